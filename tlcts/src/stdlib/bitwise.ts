/**
 * Bitwise (CommunityModules): x & y, x | y, x ^^ y and shiftR(n, pos). Each infix operator compares its
 * arguments with Integers' >= as its definition does, then TLC's Java override of the LOCAL helper it
 * calls (And, Or, Xor) computes Java's 32-bit int operation; shiftR is overridden directly (Java's >>>).
 */
import { show, type Value } from '../values/value.js';
import { binary, type Builtin, type BuiltinModule } from './builtin.js';
import { argCastError, defineModule, moduleError } from './core.js';

/** `IF x >= y THEN Op(x, y, 0, x) ELSE Op(y, x, 0, y)` with Op overridden by `f`. */
function bitwise(f: (x: number, y: number) => number): Builtin {
  return binary((x: Value, y: Value) => {
    if (typeof x !== 'number')
      throw moduleError(`The first argument of >= should be an integer, but instead it is:\n${show(x)}`);
    if (typeof y !== 'number')
      throw moduleError(`The second argument of >= should be an integer, but instead it is:\n${show(y)}`);
    return f(x, y);
  });
}

const SHIFT_R =
  'public static tlc2.value.impl.IntValue tlc2.overrides.Bitwise.shiftR(tlc2.value.impl.IntValue,tlc2.value.impl.IntValue)';

export const BITWISE: BuiltinModule = defineModule('Bitwise', [], {
  '&': bitwise((x, y) => x & y),
  '|': bitwise((x, y) => x | y),
  '^^': bitwise((x, y) => x ^ y),
  shiftR: binary((n, pos) => {
    if (typeof n !== 'number') throw argCastError(SHIFT_R, n);
    if (typeof pos !== 'number') throw argCastError(SHIFT_R, pos);
    return (n >>> pos) | 0;
  }),
});
