/**
 * Integers. Its Java class re-implements every operator of Naturals; TLC installs those methods on
 * the Naturals operators whenever the Integers module is part of the specification.
 */
import { InfiniteSet, ModelValue, type Value } from '../values/value.js';
import type { BuiltinModule } from './builtin.js';
import { argCastError, defineModule, notMemberOf, overflow } from './core.js';
import { arithmetic, intMethod } from './naturals.js';

const NEG = intMethod('Integers', 'Neg', 1);

export const INT: InfiniteSet = new InfiniteSet('Int', (v) => {
  if (typeof v === 'number') return true;
  if (v instanceof ModelValue) return false;
  throw notMemberOf(v, 'Int');
});

export const INTEGERS: BuiltinModule = defineModule('Integers', ['Naturals'], {
  ...arithmetic('Integers'),
  '-.': {
    arity: 1,
    fn: (a) => {
      const x = a[0] as Value;
      if (typeof x !== 'number') throw argCastError(NEG, x);
      if (x === -2147483648) throw overflow('--2147483648');
      return 0 - x;
    },
  },
  Int: { arity: 0, fn: () => INT },
});
