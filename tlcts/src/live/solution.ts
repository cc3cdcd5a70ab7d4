/**
 * What the liveness checker looks for (TLC's `Liveness#processLiveness`): behaviours satisfying the
 * fairness of the specification and the negation of some property. The conjunction is put in
 * disjunctive normal form; each disjunct becomes a possible error model (PEM): <>[]A conditions
 * (every step of the cycle), []<>S and []<>A conditions (some state or step of the cycle), and a
 * remaining temporal formula checked with a tableau. Disjuncts with the same remaining formula share
 * one branch (TLC's OrderOfSolution), whose behaviour graph is the state graph times that tableau.
 */
import { TlaError } from '../errors.js';
import { STATE, TEMPORAL } from './level.js';
import {
  conj,
  disj,
  containsAction,
  flattenSingle,
  level,
  makeBinary,
  neg,
  promises,
  same,
  simplify,
  toDNF,
  type Live,
} from './formula.js';
import { Tableau } from './tableau.js';

/** One disjunct: indexes into the solution's state and action checks. */
export interface Pem {
  /** <>[]A: every step of the cycle satisfies A. */
  readonly ea: number[];
  /** []<>S: some state of the cycle satisfies S. */
  readonly aeState: number[];
  /** []<>A: some step of the cycle satisfies A. */
  readonly aeAction: number[];
}

export interface Branch {
  readonly tableau: Tableau | null;
  /** The <>p of the tableau formula: a cycle must fulfil each (MP p. 453). */
  readonly promises: (Live & { k: 'even' })[];
  readonly pems: Pem[];
  /** Bit of this tableau's node 0 in the consistency masks of the behaviour graph. */
  readonly consOffset: number;
}

export interface Solution {
  readonly branches: Branch[];
  /** The state formulas evaluated on every state, and the action formulas on every step. */
  readonly stateChecks: Live[];
  readonly actionChecks: Live[];
  /** Bits of a consistency mask: one per node of every tableau. */
  readonly consBits: number;
}

/**
 * The branches for fairness /\ ~(P1 /\ P2 /\ ...), or null when that formula simplifies to FALSE
 * (the properties are implied by any behaviour).
 */
export function solve(fairness: Live[], properties: Live[]): Solution | null {
  const negated = properties.length === 1 ? neg(properties[0]!) : disj(properties.map(neg));
  const whole = fairness.length === 0 ? negated : conj([...conj(fairness).items, negated]);
  const dnf = toDNF(simplify(whole));
  if (dnf.k === 'bool' && !dnf.b) return null;
  const disjuncts = dnf.k === 'or' ? dnf.items : [dnf];

  const stateChecks: Live[] = [];
  const actionChecks: Live[] = [];
  const bin = (checks: Live[], x: Live): number => {
    const i = checks.findIndex((c) => same(c, x));
    return i >= 0 ? i : checks.push(x) - 1;
  };
  const groups: { tf: Live | null; pems: Pem[] }[] = [];
  for (const d of disjuncts) {
    const pem: Pem = { ea: [], aeState: [], aeAction: [] };
    const tfs: Live[] = [];
    const ln = flattenSingle(d);
    for (const x of ln.k === 'and' ? ln.items : [ln]) classify(x, pem, tfs, actionChecks, stateChecks, bin);
    const tf = tfs.length === 0 ? null : tfs.length === 1 ? tfs[0]! : conj(tfs);
    let group = groups.find((g) => (g.tf === null ? tf === null : tf !== null && same(g.tf, tf)));
    if (!group) groups.push((group = { tf, pems: [] }));
    group.pems.push(pem);
  }

  let consBits = 0;
  const branches = groups.map((g): Branch => {
    if (!g.tf) return { tableau: null, promises: [], pems: g.pems, consOffset: 0 };
    const tf = makeBinary(g.tf);
    const tableau = new Tableau(tf);
    const consOffset = consBits;
    consBits += tableau.nodes.length;
    return { tableau, promises: promises(tf), pems: g.pems, consOffset };
  });
  return { branches, stateChecks, actionChecks, consBits };
}

/** Sorts one conjunct of a disjunct into the PEM or the tableau formula (`Liveness#classifyExpr`). */
function classify(
  x: Live,
  pem: Pem,
  tfs: Live[],
  actionChecks: Live[],
  stateChecks: Live[],
  bin: (checks: Live[], x: Live) => number,
): void {
  if (x.k === 'even' && x.body.k === 'always' && level(x.body.body) < TEMPORAL) {
    pem.ea.push(bin(actionChecks, x.body.body));
    return;
  }
  if (x.k === 'always' && x.body.k === 'even') {
    const body = x.body.body;
    const l = level(body);
    if (l <= STATE) {
      pem.aeState.push(bin(stateChecks, body));
      return;
    }
    if (l < TEMPORAL) {
      pem.aeAction.push(bin(actionChecks, body));
      return;
    }
  }
  if (containsAction(x))
    throw new TlaError('Temporal formulas containing actions must be of forms <>[]A or []<>A.', 255);
  tfs.push(x);
}
