/**
 * Relation (CommunityModules): properties and closures of a relation R over a set S, given as a
 * Boolean function with R[x, y] (that is, R[<<x, y>>]) TRUE when x is related to y, or, in the
 * ...Under forms, as a binary operator. TLC evaluates the module's definitions; these builtins
 * compute them with the same quantifier order over S (TLC's order) and the same applications of R.
 */
import type { Ctx, OpValue } from '../eval/runtime.js';
import { Tuple, equals, type Value } from '../values/value.js';
import type { Builtin, BuiltinModule } from './builtin.js';
import { defineModule } from './core.js';
import { apply, closeTransitively, elementsOf, pairFcn, truth } from './ops.js';

/** x related to y. */
type Rel = (x: Value, y: Value) => boolean;

const ofFunction =
  (r: Value): Rel =>
  (x, y) =>
    truth(apply(r, new Tuple([x, y])));

const ofOperator =
  (op: OpValue, c: Ctx): Rel =>
  (x, y) =>
    truth(op([x, y], c));

/** \A x, y \in S : p(x, y), x varying slowest. */
function forAllPairs(s: readonly Value[], p: (x: Value, y: Value) => boolean): boolean {
  return s.every((x) => s.every((y) => p(x, y)));
}

type Property = (r: Rel, s: readonly Value[]) => boolean;

const reflexive: Property = (r, s) => s.every((x) => r(x, x));
const irreflexive: Property = (r, s) => s.every((x) => !r(x, x));
const symmetric: Property = (r, s) => forAllPairs(s, (x, y) => r(x, y) === r(y, x));
const antiSymmetric: Property = (r, s) => forAllPairs(s, (x, y) => !(r(x, y) && r(y, x)) || equals(x, y));
const asymmetric: Property = (r, s) => forAllPairs(s, (x, y) => !(r(x, y) && r(y, x)));
const transitive: Property = (r, s) =>
  forAllPairs(s, (x, y) => s.every((z) => !(r(x, y) && r(y, z)) || r(x, z)));
const strictPartialOrder: Property = (r, s) => irreflexive(r, s) && antiSymmetric(r, s) && transitive(r, s);
const partialOrder: Property = (r, s) => reflexive(r, s) && antiSymmetric(r, s) && transitive(r, s);
const strictTotalOrder: Property = (r, s) =>
  strictPartialOrder(r, s) && forAllPairs(s, (x, y) => equals(x, y) || r(x, y) || r(y, x));
const totalOrder: Property = (r, s) => partialOrder(r, s) && forAllPairs(s, (x, y) => r(x, y) || r(y, x));

/** The path matrix of R over S (paths of one or more steps through S), by Warshall's algorithm. */
function closure(r: Value, s: readonly Value[]): boolean[][] {
  const rel = ofFunction(r);
  return closeTransitively(s.map((x) => s.map((y) => rel(x, y))));
}

/** The reflexive transitive closure: x = y or a path from x to y. */
function reflexiveClosure(r: Value, s: readonly Value[]): boolean[][] {
  const m = closure(r, s);
  s.forEach((x, i) => s.forEach((y, j) => (m[i]![j] = equals(x, y) || m[i]![j]!)));
  return m;
}

/** IsP(R, S) and IsPUnder(op, S) for each property P. */
function properties(entries: [string, Property][]): { [op: string]: Builtin } {
  const out: { [op: string]: Builtin } = {};
  for (const [name, p] of entries) {
    out[name] = { arity: 2, fn: (a) => p(ofFunction(a[0] as Value), elementsOf(a[1] as Value)) };
    out[`${name}Under`] = {
      arity: 2,
      opParams: [0],
      fn: (a, _h, c) => p(ofOperator(a[0] as OpValue, c), elementsOf(a[1] as Value)),
    };
  }
  return out;
}

export const RELATION: BuiltinModule = defineModule('Relation', [], {
  ...properties([
    ['IsReflexive', reflexive],
    ['IsIrreflexive', irreflexive],
    ['IsSymmetric', symmetric],
    ['IsAntiSymmetric', antiSymmetric],
    ['IsAsymmetric', asymmetric],
    ['IsTransitive', transitive],
    ['IsStrictlyPartiallyOrdered', strictPartialOrder],
    ['IsPartiallyOrdered', partialOrder],
    ['IsStrictlyTotallyOrdered', strictTotalOrder],
    ['IsTotallyOrdered', totalOrder],
  ]),
  TransitiveClosure: {
    arity: 2,
    fn: (a) => {
      const s = elementsOf(a[1] as Value);
      return pairFcn(s, closure(a[0] as Value, s));
    },
  },
  ReflexiveTransitiveClosure: {
    arity: 2,
    fn: (a) => {
      const s = elementsOf(a[1] as Value);
      return pairFcn(s, reflexiveClosure(a[0] as Value, s));
    },
  },
  IsConnected: {
    arity: 2,
    fn: (a) => {
      const s = elementsOf(a[1] as Value);
      return reflexiveClosure(a[0] as Value, s).every((row) => row.every((b) => b));
    },
  },
});
