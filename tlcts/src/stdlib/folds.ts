/**
 * Folds (CommunityModules). MapThenFoldSet(op, base, f, choose, S) is, for S = {x1, ..., xn} where
 * x1 = choose(S), x2 = choose(S \ {x1}) and so on, op(f(x1), op(f(x2), ... op(f(xn), base))).
 * TLC evaluates the module's recursive definition; this computes the same value.
 */
import type { Ctx, OpValue } from '../eval/runtime.js';
import { EvalError } from '../values/errors.js';
import { EMPTY_SET, FiniteSet, equals, show, type Value } from '../values/value.js';
import type { BuiltinModule } from './builtin.js';
import { defineModule } from './core.js';
import { elementsOf } from './ops.js';

export function mapThenFoldSet(
  op: OpValue,
  base: Value,
  f: OpValue,
  choose: OpValue,
  s: Value,
  c: Ctx,
): Value {
  if (equals(s, EMPTY_SET)) return base;
  let rest = elementsOf(s);
  const chosen: Value[] = [];
  while (rest.length > 0) {
    const set = new FiniteSet(rest);
    const x = choose([set], c);
    if (!set.has(x)) {
      throw new EvalError(
        `The choose argument of MapThenFoldSet gave ${show(x)}, which is not an element of\n${show(set)}`,
      );
    }
    chosen.push(x);
    rest = rest.filter((y) => !equals(y, x));
  }
  let acc = base;
  for (let i = chosen.length - 1; i >= 0; i--) acc = op([f([chosen[i]!], c), acc], c);
  return acc;
}

export const FOLDS: BuiltinModule = defineModule('Folds', [], {
  MapThenFoldSet: {
    arity: 5,
    opParams: [0, 2, 3],
    fn: (a, _h, c) =>
      mapThenFoldSet(a[0] as OpValue, a[1] as Value, a[2] as OpValue, a[3] as OpValue, a[4] as Value, c),
  },
});
