/**
 * Naturals, as TLC's Java classes tlc2.module.Naturals and tlc2.module.Integers override it: Java
 * 32-bit ints with overflow errors. The two classes differ in one message (Naturals' >= calls itself >)
 * and in the method named when an argument is not an integer; \div floors in both (see below).
 */
import { InfiniteSet, IntervalSet, ModelValue, show, type Value } from '../values/value.js';
import { binary, type Builtin, type BuiltinModule } from './builtin.js';
import { argCastError, defineModule, moduleError, notMemberOf, overflow } from './core.js';

const MIN = -2147483648;
const MAX = 2147483647;

export type ArithClass = 'Naturals' | 'Integers';

/** The signature TLC prints for the Java method `name` of class `cls` taking `arity` IntValues. */
export function intMethod(
  cls: ArithClass,
  name: string,
  arity: number,
  ret = 'tlc2.value.impl.IntValue',
): string {
  const params = Array.from({ length: arity }, () => 'tlc2.value.impl.IntValue').join(',');
  return `public static ${ret} tlc2.module.${cls}.${name}(${params})`;
}

/** A binary operator on ints; other arguments fail as TLC's method handle does when it casts them. */
function intOp(signature: string, f: (x: number, y: number) => Value): Builtin {
  return binary((x, y) => {
    if (typeof x !== 'number') throw argCastError(signature, x);
    if (typeof y !== 'number') throw argCastError(signature, y);
    return f(x, y);
  });
}

function comparison(op: string, test: (x: number, y: number) => boolean): Builtin {
  return binary((x, y) => {
    if (typeof x !== 'number')
      throw moduleError(`The first argument of ${op} should be an integer, but instead it is:\n${show(x)}`);
    if (typeof y !== 'number')
      throw moduleError(`The second argument of ${op} should be an integer, but instead it is:\n${show(y)}`);
    return test(x, y);
  });
}

/** The operators of Naturals as implemented by TLC's class `cls`. */
export function arithmetic(cls: ArithClass): { [op: string]: Builtin } {
  const plus = intMethod(cls, 'Plus', 2);
  const minus = intMethod(cls, 'Minus', 2);
  const times = intMethod(cls, 'Times', 2);
  const divide = intMethod(cls, 'Divide', 2);
  const mod = intMethod(cls, 'Mod', 2);
  const expt = intMethod(cls, 'Expt', 2);
  const dotDot = intMethod(cls, 'DotDot', 2, 'tlc2.value.impl.IntervalValue');
  return {
    '+': intOp(plus, (x, y) => {
      const r = x + y;
      if (r < MIN || r > MAX) throw overflow(`${x}+${y}`);
      return r;
    }),
    '-': intOp(minus, (x, y) => {
      const r = x - y;
      if (r < MIN || r > MAX) throw overflow(`${x}-${y}`);
      return r;
    }),
    '*': intOp(times, (x, y) => {
      const r = x * y;
      if (r < MIN || r > MAX) throw overflow(`${x}*${y}`);
      return r | 0;
    }),
    '\\div': intOp(divide, (x, y) => {
      if (y === 0) throw moduleError('The second argument of \\div is 0.');
      // Floor division as TLA+ defines it, and as TLC computes it whenever Integers is loaded
      // (always with -dumpTrace json); TLC's Naturals-only class rounds (-1) \\div 2 to 0.
      if (x === MIN && y === -1) throw overflow('-2147483648 \\div -1');
      const q = (x / y) | 0;
      return x < 0 !== y < 0 && q * y !== x ? q - 1 : q;
    }),
    '%': intOp(mod, (x, y) => {
      if (y <= 0)
        throw moduleError(`The second argument of % should be a positive number, but instead it is:\n${y}`);
      const r = (x % y) | 0;
      return r < 0 ? r + y : r;
    }),
    '^': intOp(expt, (x, y) => {
      if (y < 0)
        throw moduleError(`The second argument of ^ should be a natural number, but instead it is:\n${y}`);
      if (y === 0) {
        if (x === 0) throw moduleError('0^0 is undefined.');
        return 1;
      }
      // TLC multiplies y - 1 times; with |x| <= 1 that cannot overflow, so the result is direct.
      if (x === 0 || x === 1) return x;
      if (x === -1) return y % 2 === 0 ? 1 : -1;
      let r = x;
      for (let i = 1; i < y; i++) {
        r *= x;
        if (r < MIN || r > MAX) throw overflow(`${x}^${y}`);
      }
      return r;
    }),
    '..': intOp(dotDot, (x, y) => new IntervalSet(x, y)),
    '<': comparison('<', (x, y) => x < y),
    '>': comparison('>', (x, y) => x > y),
    '<=': comparison('<=', (x, y) => x <= y),
    // TLC's Naturals reports its >= errors as coming from > (Integers fixed the text).
    '>=': comparison(cls === 'Naturals' ? '>' : '>=', (x, y) => x >= y),
  };
}

export const NAT: InfiniteSet = new InfiniteSet('Nat', (v) => {
  if (typeof v === 'number') return v >= 0;
  if (v instanceof ModelValue) return false;
  throw notMemberOf(v, 'Nat');
});

export const NATURALS: BuiltinModule = defineModule('Naturals', [], {
  ...arithmetic('Naturals'),
  Nat: { arity: 0, fn: () => NAT },
});
