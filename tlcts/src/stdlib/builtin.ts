/** Operators implemented in TypeScript: the standard modules and TLA+'s built-in operators. */
import type { Ctx, OpValue } from '../eval/runtime.js';
import type { Value } from '../values/value.js';

/** Services a builtin may need from the checker (printing, TLCGet/TLCSet registers). */
export interface BuiltinHost {
  /** Print/PrintT output, one line at a time. */
  print(line: string): void;
  tlcGet(key: Value): Value;
  tlcSet(key: Value, v: Value): void;
}

export interface Builtin {
  /** Number of arguments; 0 for a constant such as Nat. */
  arity: number;
  /** Indexes of operator-valued parameters: they receive an OpValue instead of a Value. */
  opParams?: readonly number[];
  fn: (args: (Value | OpValue)[], host: BuiltinHost, c: Ctx) => Value;
}

export interface BuiltinModule {
  name: string;
  /** Modules whose builtins this one also brings into scope (as EXTENDS would). */
  extends: readonly string[];
  ops: ReadonlyMap<string, Builtin>;
}
