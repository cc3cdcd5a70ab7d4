/** Helpers for the operators the standard modules implement in TypeScript (their types: eval/builtin.ts). */
import type { Builtin } from '../eval/builtin.js';
import type { Value } from '../values/value.js';

export type { Builtin, BuiltinHost, BuiltinModule, LazyArg } from '../eval/builtin.js';

/** A builtin of one value argument. */
export function unary(f: (x: Value) => Value): Builtin {
  return { arity: 1, fn: (a) => f(a[0] as Value), fn1: f };
}

/** A builtin of two value arguments. */
export function binary(f: (x: Value, y: Value) => Value): Builtin {
  return { arity: 2, fn: (a) => f(a[0] as Value, a[1] as Value), fn2: f };
}
