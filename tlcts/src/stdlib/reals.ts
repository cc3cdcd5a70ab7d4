/**
 * Reals, as TLC ships it (tla2sany/StandardModules/Reals.tla): dummy definitions with no Java
 * class behind them. `Real` is the string "Reals"; `/` and `Infinity` are CHOOSEs over it that TLC
 * cannot evaluate, so a specification that uses them fails when TLC meets them, with the errors of
 * those CHOOSEs at their lines of Reals.tla.
 */
import { EvalError } from '../values/errors.js';
import type { BuiltinModule } from './builtin.js';
import { defineModule } from './core.js';

/** `a / b == CHOOSE m \in Real : m * b = a`: Real is a string, not an enumerable set. */
const DIVIDE =
  'Attempted to compute the value of an expression of form\nCHOOSE x \\in S: P, but S was not enumerable.\nline 17, col 10 to line 17, col 38 of module Reals';

/** `Infinity == CHOOSE i : (i \notin Real) /\ (\A r \in Real : i > r)`. */
const INFINITY =
  'TLC attempted to evaluate an unbounded CHOOSE.\nMake sure that the expression is of form CHOOSE x \\in S: P(x).\nline 18, col 13 to line 18, col 65 of module Reals';

export const REALS: BuiltinModule = defineModule('Reals', ['Integers'], {
  Real: { arity: 0, fn: () => 'Reals' },
  '/': {
    arity: 2,
    fn: () => {
      throw new EvalError(DIVIDE);
    },
  },
  Infinity: {
    arity: 0,
    fn: () => {
      throw new EvalError(INFINITY);
    },
  },
});
