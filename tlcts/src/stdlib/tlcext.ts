/**
 * TLCExt: the operators specs commonly use; Trace and CounterExample ask the checker for the
 * behaviour. TLCDefer, PickSuccessor, TLCFP and TLCEvalDefinition are not here.
 */
import { FcnValue, Tuple, equals, isSet, modelValue, show, type Value } from '../values/value.js';
import { EvalError } from '../values/errors.js';
import type { BuiltinModule, LazyArg } from './builtin.js';
import type { OpValue } from '../eval/runtime.js';
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
  // TLC's Java override (TLCExt#assertError): TRUE only when evaluating exp fails with exactly the
  // message err; FALSE when it fails otherwise or does not fail (TLCExt.tla's definition says TRUE).
  AssertError: {
    arity: 2,
    lazyParams: [1],
    fn: (a) => {
      try {
        (a[1] as LazyArg)();
        return false;
      } catch (e) {
        if (!(e instanceof EvalError)) throw e;
        return e.message === (a[0] as Value);
      }
    },
  },
  TLCGetOrDefault: { arity: 2, fn: (a, host) => host.tlcGet(a[0] as Value) ?? (a[1] as Value) },
  // Sets register key to Op(current or default, val) and returns the previous value (or default).
  TLCGetAndSet: {
    arity: 4,
    opParams: [1],
    fn: (a, host, c) => {
      const old = host.tlcGet(a[0] as Value) ?? (a[3] as Value);
      host.tlcSet(a[0] as Value, (a[1] as OpValue)([old, a[2] as Value], c));
      return old;
    },
  },
  TLCCache: { arity: 2, fn: (a) => a[0] as Value },
  Trace: { arity: 0, fn: (_a, host, c) => host.trace(c.s) },
  CounterExample: { arity: 0, fn: (_a, host) => host.counterExample() },
  // The states of a CounterExample as a sequence, ordered by their indexes.
  ToTrace: {
    arity: 1,
    fn: (a) => {
      const ce = a[0] as Value;
      const states = ce instanceof FcnValue ? ce.get('state') : undefined;
      if (!states || !isSet(states) || !states.isFinite()) throw oneArgError('ToTrace', 'CounterExample', ce);
      const pairs = [...states.normalized().elems].map((p) =>
        p instanceof FcnValue ? [p.get(1), p.get(2)] : [],
      );
      if (pairs.some(([i, s]) => typeof i !== 'number' || s === undefined))
        throw oneArgError('ToTrace', 'CounterExample', ce);
      return new Tuple(pairs.sort((x, y) => (x[0] as number) - (y[0] as number)).map(([, s]) => s!));
    },
  },
});
