/**
 * The search for a behaviour that violates the properties (TLC's `LiveWorker`): for each branch and
 * each of its PEMs, Tarjan's algorithm over the behaviour graph (states times tableau nodes)
 * restricted to the steps that satisfy the PEM's <>[] conditions, started from the initial nodes; a
 * strongly connected component that is not a single node without a self-loop, where each []<>
 * condition holds at some state or step and each promise of the tableau is fulfilled, is the loop
 * of a counterexample. The counterexample is a shortest path from an initial node to the
 * component's root, then a cycle through the component that meets every condition.
 */
import { fulfils, type Tableau } from './tableau.js';
import type { Branch, Pem } from './solution.js';
import type { LiveGraph } from './graph.js';
import type { Live } from './formula.js';

/** A counterexample as state ids: `states[loop]` is where the cycle starts; the last state steps back to it. */
export interface Lasso {
  states: number[];
  loop: number;
}

export function findViolation(graph: LiveGraph): Lasso | null {
  for (const branch of graph.solution.branches) {
    const g = new Product(graph, branch);
    for (const pem of branch.pems) {
      const lasso = new PemSearch(g, pem).run();
      if (lasso) return lasso;
    }
  }
  return null;
}

/** The behaviour graph of one branch: node = state id × tableau size + tableau node. */
class Product {
  readonly width: number;
  readonly tableau: Tableau | null;

  constructor(
    readonly graph: LiveGraph,
    readonly branch: Branch,
  ) {
    this.tableau = branch.tableau;
    this.width = branch.tableau ? branch.tableau.nodes.length : 1;
  }

  get size(): number {
    return this.graph.size * this.width;
  }

  state(node: number): number {
    return Math.floor(node / this.width);
  }

  /** Initial nodes: initial states paired with the initial tableau nodes they are consistent with. */
  initial(): number[] {
    const out: number[] = [];
    for (const id of this.graph.inits) {
      if (!this.tableau) out.push(id);
      else
        for (let t = 0; t < this.tableau.initCount; t++)
          if (this.graph.selfConsistent(id, this.branch.consOffset + t)) out.push(id * this.width + t);
    }
    return out;
  }

  /** Calls fn(successor node, step) for each successor, in TLC's order (steps, then tableau nodes). */
  successors(node: number, fn: (next: number, step: number) => void): void {
    const g = this.graph;
    const s = this.state(node);
    const [from, to] = g.stepsOf(s);
    if (!this.tableau) {
      for (let e = from; e < to; e++) fn(g.target(e), e);
      return;
    }
    const nexts = this.tableau.nodes[node % this.width]!.nexts;
    const offset = this.branch.consOffset;
    for (let e = from; e < to; e++) {
      const target = g.target(e);
      for (const t of nexts)
        if (g.targetConsistent(e, offset + t.index)) fn(target * this.width + t.index, e);
    }
  }

  par(node: number): readonly Live[] {
    return this.tableau ? this.tableau.nodes[node % this.width]!.par : [];
  }
}

class PemSearch {
  private readonly index: Int32Array;
  private readonly low: Int32Array;
  private readonly done: Uint8Array;
  /** Component stamp: nodes of the component being checked carry its number. */
  private readonly comp: Int32Array;
  private compCount = 0;

  constructor(
    private readonly g: Product,
    private readonly pem: Pem,
  ) {
    const n = g.size;
    this.index = new Int32Array(n).fill(-1);
    this.low = new Int32Array(n);
    this.done = new Uint8Array(n);
    this.comp = new Int32Array(n).fill(-1);
  }

  private ea(step: number): boolean {
    for (const c of this.pem.ea) if (!this.g.graph.actionBit(step, c)) return false;
    return true;
  }

  run(): Lasso | null {
    const roots = this.g.initial();
    const stack: number[] = [];
    let counter = 0;
    for (let r = 0; r < roots.length; r++) {
      const root = roots[r]!;
      if (this.index[root] !== -1) continue;
      const frames: { node: number; pending: number[] }[] = [];
      const enter = (v: number) => {
        this.index[v] = this.low[v] = counter++;
        stack.push(v);
        const pending: number[] = [];
        this.g.successors(v, (w, e) => {
          if (!this.ea(e)) {
            // Not part of a cycle of this PEM, but its successors may be: search from it later.
            if (this.index[w] === -1) roots.push(w);
          } else if (this.index[w] === -1) pending.push(w);
          else if (!this.done[w]) this.low[v] = Math.min(this.low[v]!, this.index[w]!);
        });
        frames.push({ node: v, pending });
      };
      enter(root);
      while (frames.length > 0) {
        const f = frames[frames.length - 1]!;
        const v = f.node;
        if (f.pending.length > 0) {
          // TLC explores the successors pushed last first.
          const w = f.pending.pop()!;
          if (this.index[w] === -1) enter(w);
          else if (!this.done[w]) this.low[v] = Math.min(this.low[v]!, this.index[w]!);
          continue;
        }
        frames.pop();
        if (this.low[v] === this.index[v]) {
          const com: number[] = [];
          let w: number;
          do {
            w = stack.pop()!;
            this.done[w] = 1;
            com.push(w);
          } while (w !== v);
          const lasso = this.check(v, com);
          if (lasso) return lasso;
        }
        const parent = frames[frames.length - 1];
        if (parent) this.low[parent.node] = Math.min(this.low[parent.node]!, this.low[v]!);
      }
    }
    return null;
  }

  /** The counterexample whose cycle lies in com (rooted at root), if com meets the PEM and the promises. */
  private check(root: number, com: number[]): Lasso | null {
    const g = this.g;
    const graph = g.graph;
    const stamp = this.compCount++;
    for (const n of com) this.comp[n] = stamp;
    if (com.length === 1 && !this.selfLoop(root)) return null;
    const inCom = (n: number) => this.comp[n] === stamp;
    const aeState = this.pem.aeState.map((c) => com.some((n) => graph.stateBit(g.state(n), c)));
    const aeAction = this.pem.aeAction.map(() => false);
    for (const n of com) {
      g.successors(n, (w, e) => {
        if (!inCom(w) || !this.ea(e)) return;
        this.pem.aeAction.forEach((c, i) => (aeAction[i] ||= graph.actionBit(e, c)));
      });
    }
    const promises = g.branch.promises.map((p) => com.some((n) => fulfils(g.par(n), p)));
    if (![...aeState, ...aeAction, ...promises].every(Boolean)) return null;
    const prefix = this.prefix(root);
    const cycle = this.cycle(root, inCom);
    const states = collapse([...prefix, ...cycle.slice(1)].map((n) => g.state(n)));
    const loop = collapse(prefix.map((n) => g.state(n))).length - 1;
    // The cycle ends where it started: drop a last state equal to the loop's first.
    if (states.length - 1 > loop && states[states.length - 1] === states[loop]) states.pop();
    return { states, loop };
  }

  /** A step from the node to itself that satisfies the <>[] conditions (TLC checks the first self-loop). */
  private selfLoop(node: number): boolean {
    let found: boolean | undefined;
    this.g.successors(node, (w, e) => {
      if (found === undefined && w === node) found = this.ea(e);
    });
    return found === true;
  }

  /** A shortest path from an initial node to target, over all steps (self-loops aside). */
  private prefix(target: number): number[] {
    const g = this.g;
    const roots = g.initial();
    if (roots.includes(target)) return [target];
    const parent = new Int32Array(g.size).fill(-2);
    const queue: number[] = [];
    for (const r of roots) {
      if (parent[r] !== -2) continue;
      parent[r] = -1;
      queue.push(r);
    }
    for (let head = 0; head < queue.length; head++) {
      const v = queue[head]!;
      let reached = false;
      g.successors(v, (w) => {
        if (reached || w === v || parent[w] !== -2) return;
        parent[w] = v;
        if (w === target) reached = true;
        else queue.push(w);
      });
      if (reached) break;
    }
    const path: number[] = [];
    for (let v = target; v !== -1; v = parent[v]!) path.push(v);
    return path.reverse();
  }

  /**
   * A cycle from root through the component meeting every []<> condition and promise, over steps
   * that satisfy the <>[] conditions: greedily towards unmet conditions, depth first (TLC's
   * `dfsPostFix`), then back to root by a shortest path (`bfsPostFix`). Returns the nodes from root.
   */
  private cycle(root: number, inCom: (n: number) => boolean): number[] {
    const g = this.g;
    const graph = g.graph;
    const pem = this.pem;
    const stateMet = pem.aeState.map(() => false);
    const actionMet = pem.aeAction.map(() => false);
    const promiseMet = g.branch.promises.map(() => false);
    let unmet = stateMet.length + actionMet.length + promiseMet.length;
    /** Unmet conditions when the search last moved towards one: exploring since then. */
    let unmetAtMove = unmet;
    let seen = new Set<number>([root]);
    const path: number[] = [];
    let cur = root;
    const move = (next: number) => {
      path.push(cur);
      cur = next;
      seen = new Set();
      unmetAtMove = unmet;
    };
    for (;;) {
      pem.aeState.forEach((c, i) => {
        if (!stateMet[i] && graph.stateBit(g.state(cur), c)) ((stateMet[i] = true), unmet--);
      });
      g.branch.promises.forEach((p, i) => {
        if (!promiseMet[i] && fulfils(g.par(cur), p)) ((promiseMet[i] = true), unmet--);
      });
      if (unmet === 0) break;
      const before = unmet;
      let progress: number | undefined;
      let last: number | undefined;
      let unvisited: number | undefined;
      g.successors(cur, (w, e) => {
        if (progress !== undefined || !inCom(w) || !this.ea(e)) return;
        last = w;
        pem.aeAction.forEach((c, i) => {
          if (!actionMet[i] && graph.actionBit(e, c)) ((actionMet[i] = true), unmet--);
        });
        if (unmet < before) progress = w;
        else if (!seen.has(w)) unvisited = w;
      });
      if (progress !== undefined) {
        move(progress);
        continue;
      }
      if (unmet < unmetAtMove) {
        // This node met a condition: go on from it.
        move(last!);
        continue;
      }
      while (unvisited === undefined) {
        cur = path.pop()!;
        g.successors(cur, (w, e) => {
          if (unvisited === undefined && inCom(w) && this.ea(e) && !seen.has(w)) unvisited = w;
        });
      }
      path.push(cur);
      cur = unvisited;
      seen.add(cur);
    }
    if (path.length === 0 && !this.selfLoop(root)) {
      // Every condition holds at root, which cannot stutter here: go round the component once.
      let out: number | undefined;
      g.successors(root, (w, e) => {
        if (out === undefined && w !== root && inCom(w) && this.ea(e)) out = w;
      });
      return [root, out!, ...this.back(out!, root, inCom)];
    }
    return [...path, cur, ...this.back(cur, root, inCom)];
  }

  /** A shortest path from `from` to `to` within the component (excluding both), over <>[]-satisfying steps. */
  private back(from: number, to: number, inCom: (n: number) => boolean): number[] {
    if (from === to) return [];
    const parent = new Map<number, number>([[from, -1]]);
    const queue = [from];
    for (let head = 0; head < queue.length; head++) {
      const v = queue[head]!;
      let found = false;
      this.g.successors(v, (w, e) => {
        if (found || w === v || !inCom(w) || !this.ea(e)) return;
        if (w === to) {
          found = true;
          return;
        }
        if (parent.has(w)) return;
        parent.set(w, v);
        queue.push(w);
      });
      if (found) {
        const path: number[] = [];
        for (let x = v; x !== from; x = parent.get(x)!) path.push(x);
        return path.reverse();
      }
    }
    throw new Error('Internal error: the component is not strongly connected.');
  }
}

/** Consecutive equal states are one state of the behaviour (nodes differing in their tableau node). */
function collapse(ids: number[]): number[] {
  return ids.filter((id, i) => i === 0 || ids[i - 1] !== id);
}
