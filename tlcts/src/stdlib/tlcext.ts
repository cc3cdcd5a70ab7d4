/**
 * TLCExt: its operators that are functions of their argument values. AssertError (needs its second
 * argument unevaluated), TLCGetOrDefault and TLCGetAndSet (need to know whether a register is set),
 * TLCDefer, PickSuccessor, TLCFP, Trace, CounterExample, ToTrace and TLCEvalDefinition (need the
 * checker) are not here.
 */
import { equals, modelValue, show, type Value } from '../values/value.js';
import type { BuiltinModule } from './builtin.js';
import { defineModule, oneArgError } from './core.js';

export const TLCEXT: BuiltinModule = defineModule('TLCExt', [], {
  // The TLA+ definition: a = b, printing "Assertion failed", a and b (as PrintT does) when unequal.
  AssertEq: {
    arity: 2,
    fn: (a, host) => {
      const x = a[0] as Value;
      const y = a[1] as Value;
      if (equals(x, y)) return true;
      host.print(show('Assertion failed'));
      host.print(show(x));
      host.print(show(y));
      return false;
    },
  },
  TLCModelValue: {
    arity: 1,
    fn: (a) => {
      const name = a[0] as Value;
      // TLC's message calls the operator ModelValue.
      if (typeof name !== 'string') throw oneArgError('ModelValue', 'string', name);
      return modelValue(name);
    },
  },
  TLCNoOp: { arity: 1, fn: (a) => a[0] as Value },
  TLCCache: { arity: 2, fn: (a) => a[0] as Value },
});
