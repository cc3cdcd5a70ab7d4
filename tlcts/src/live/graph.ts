/**
 * The state graph as the liveness checker needs it, recorded during the breadth-first search (TLC's
 * `LiveCheck#addNextState`): for every expanded state, the results of the state checks and which
 * tableau nodes it is consistent with; for every step to an in-model successor and for the
 * stuttering step, the results of the action checks and the successor's tableau consistency. The
 * checks are evaluated on the states as generated, before VIEW or SYMMETRY reduce them to a
 * fingerprint; the graph itself is over fingerprints (state ids), as in TLC.
 */
import type { Value } from '../values/value.js';
import { IntColumn } from '../util/int-column.js';
import type { Atom, Live } from './formula.js';
import type { Solution } from './solution.js';

type Check = (s: Value[], t: Value[] | null) => boolean;

export class LiveGraph {
  /** Ids of the initial states, in the order they were generated. */
  readonly inits: number[] = [];
  private readonly stateWords: number;
  private readonly actionWords: number;
  private readonly consWords: number;
  /** Per expanded state: state-check bits, then its own consistency mask. */
  private readonly nodes = new IntColumn();
  /** Per state: index of its first step in `steps`; one more entry closes the last. */
  private readonly starts = new IntColumn();
  /** Per step: target id, action-check bits, target consistency mask. */
  private readonly steps = new IntColumn();
  private readonly stepWidth: number;
  private readonly stateCheck: Check[];
  private readonly actionCheck: Check[];
  /** Per tableau node (all tableaux, by consistency bit): is a state consistent with it. */
  private readonly consistent: ((s: Value[]) => boolean)[] = [];
  /** State-atom results on the state being expanded, and on the successor of the current step. */
  private readonly caches: [AtomCache, AtomCache];
  private current: Value[] = [];
  /** The steps of the state being expanded, and where each target's steps are in it. */
  private readonly pending: number[] = [];
  private readonly byTarget = new Map<number, number[]>();
  private readonly word: Int32Array;

  /**
   * `seed` orders the steps of each state: 0 keeps the order they were generated in (the stuttering
   * step last); another value shuffles them, as another fingerprint seed (`-fp`) reorders TLC's.
   */
  constructor(
    readonly solution: Solution,
    atomCount: number,
    private readonly seed = 0,
  ) {
    this.caches = [new AtomCache(atomCount), new AtomCache(atomCount)];
    this.starts.push(0);
    this.stateWords = words(solution.stateChecks.length);
    this.actionWords = words(solution.actionChecks.length);
    this.consWords = words(solution.consBits);
    this.stepWidth = 1 + this.actionWords + this.consWords;
    this.stateCheck = solution.stateChecks.map((c) => compile(c, this.caches));
    this.actionCheck = solution.actionChecks.map((c) => compile(c, this.caches));
    for (const b of solution.branches) {
      for (const n of b.tableau?.nodes ?? []) {
        const preds = n.statePreds.map((p) => compile(p, this.caches));
        this.consistent.push((s) => preds.every((p) => p(s, null)));
      }
    }
    this.word = new Int32Array(Math.max(this.stepWidth, this.stateWords + this.consWords));
  }

  /** States expanded so far (TLC's "total distinct states" counts them once per branch). */
  get size(): number {
    return this.starts.length - 1;
  }

  initial(id: number): void {
    this.inits.push(id);
  }

  /** Starts the expansion of state id, with value s; states are expanded in the order of their ids. */
  begin(id: number, s: Value[]): void {
    if (id !== this.size) throw new Error(`Internal error: state ${id} expanded out of order.`);
    this.current = s;
    this.caches[0].reset(s);
    const w = this.word;
    w.fill(0);
    for (let i = 0; i < this.stateCheck.length; i++) if (this.stateCheck[i]!(s, null)) setBit(w, 0, i);
    this.consistency(s, w, this.stateWords);
    for (let i = 0; i < this.stateWords + this.consWords; i++) this.nodes.push(w[i]!);
    this.pending.length = 0;
    this.byTarget.clear();
  }

  /** A step of the state being expanded to an in-model successor t with id target. */
  step(target: number, t: Value[]): void {
    const w = this.word;
    w.fill(0);
    w[0] = target;
    const s = this.current;
    this.caches[1].reset(t);
    for (let i = 0; i < this.actionCheck.length; i++) if (this.actionCheck[i]!(s, t)) setBit(w, 1, i);
    this.consistency(t, w, 1 + this.actionWords);
    // A successor generated again with the same results is the same step (TLC's SetOfStates).
    const width = this.stepWidth;
    const p = this.pending;
    const known = this.byTarget.get(target);
    if (known) {
      for (const at of known) {
        let same = true;
        for (let i = 1; i < width && same; i++) same = p[at + i] === w[i];
        if (same) return;
      }
      known.push(p.length);
    } else this.byTarget.set(target, [p.length]);
    for (let i = 0; i < width; i++) p.push(w[i]!);
  }

  /** Ends the expansion of state id with its stuttering step. */
  end(id: number): void {
    this.step(id, this.current);
    const width = this.stepWidth;
    const p = this.pending;
    if (this.seed === 0) for (const x of p) this.steps.push(x);
    else {
      const order = Array.from({ length: p.length / width }, (_, i) => i);
      shuffle(order, this.seed, id);
      for (const e of order) for (let i = 0; i < width; i++) this.steps.push(p[e * width + i]!);
    }
    this.starts.push(this.steps.length / width);
  }

  // Reading the graph.

  stepsOf(id: number): [number, number] {
    return [this.starts.at(id), this.starts.at(id + 1)];
  }

  target(step: number): number {
    return this.steps.at(step * this.stepWidth);
  }

  actionBit(step: number, check: number): boolean {
    return bitAt(this.steps, step * this.stepWidth + 1, check);
  }

  /** Whether the step's target is consistent with tableau node `bit` (its consistency bit). */
  targetConsistent(step: number, bit: number): boolean {
    return bitAt(this.steps, step * this.stepWidth + 1 + this.actionWords, bit);
  }

  stateBit(id: number, check: number): boolean {
    return bitAt(this.nodes, id * (this.stateWords + this.consWords), check);
  }

  selfConsistent(id: number, bit: number): boolean {
    return bitAt(this.nodes, id * (this.stateWords + this.consWords) + this.stateWords, bit);
  }

  private consistency(s: Value[], w: Int32Array, at: number): void {
    for (let i = 0; i < this.consistent.length; i++) if (this.consistent[i]!(s)) setBit(w, at, i);
  }
}

/**
 * Results of state atoms, computed once per state: on the state being expanded (its checks and
 * every step's) and on the successor of the current step (the consistency of every tableau node).
 */
class AtomCache {
  private readonly stamp: Int32Array;
  private readonly val: Uint8Array;
  private gen = 0;
  private state: Value[] | null = null;

  constructor(atoms: number) {
    this.stamp = new Int32Array(atoms);
    this.val = new Uint8Array(atoms);
  }

  reset(s: Value[]): void {
    this.state = s;
    this.gen++;
  }

  /** The result of the atom on s, if s is this cache's state; else undefined. */
  get(atom: Atom, s: Value[]): boolean | undefined {
    if (s !== this.state) return undefined;
    const id = atom.id;
    if (this.stamp[id] === this.gen) return this.val[id] === 1;
    const v = atom.eval(s, null);
    this.stamp[id] = this.gen;
    this.val[id] = v ? 1 : 0;
    return v;
  }
}

/** A formula without temporal operators as a predicate of a step (s, t); t is null for a state. */
function compile(e: Live, caches: [AtomCache, AtomCache]): Check {
  switch (e.k) {
    case 'bool': {
      const b = e.b;
      return () => b;
    }
    case 'state': {
      const atom = e.atom;
      return (s) => caches[0].get(atom, s) ?? caches[1].get(atom, s) ?? atom.eval(s, null);
    }
    case 'action': {
      const atom = e.atom;
      return (s, t) => atom.eval(s, t);
    }
    case 'neg': {
      const body = compile(e.body, caches);
      return (s, t) => !body(s, t);
    }
    case 'and': {
      const items = e.items.map((x) => compile(x, caches));
      return (s, t) => items.every((x) => x(s, t));
    }
    case 'or': {
      const items = e.items.map((x) => compile(x, caches));
      return (s, t) => items.some((x) => x(s, t));
    }
    default:
      throw new Error(`Internal error: ${e.k} formula evaluated on a step.`);
  }
}

/** A permutation of order that depends only on the seed and the state. */
function shuffle(order: number[], seed: number, id: number): void {
  let x = (Math.imul(seed, 0x9e3779b1) ^ Math.imul(id + 1, 0x85ebca6b)) >>> 0;
  for (let i = order.length - 1; i > 0; i--) {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x68e31da4) >>> 0;
    const j = x % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
}

function words(bits: number): number {
  return Math.ceil(bits / 32);
}

function setBit(w: Int32Array, at: number, bit: number): void {
  w[at + (bit >>> 5)]! |= 1 << (bit & 31);
}

function bitAt(col: IntColumn, at: number, bit: number): boolean {
  return (col.at(at + (bit >>> 5)) & (1 << (bit & 31))) !== 0;
}
