/** What the evaluator calls a builtin: an operator implemented in TypeScript, and its module. */
import type { Ctx, OpValue } from './runtime.js';
import type { Value } from '../values/value.js';

/** Services a builtin may need from the checker (printing, TLCGet/TLCSet registers). */
export interface BuiltinHost {
  /** Print/PrintT output, one line at a time. */
  print(line: string): void;
  /** The value of a TLCGet key; undefined for an integer register that was never set. */
  tlcGet(key: Value): Value | undefined;
  tlcSet(key: Value, v: Value): void;
  /** TLCExt's Trace: the behaviour from an initial state to s, one record per state. */
  trace(s: Value[] | null): Value;
  /** TLCExt's CounterExample: the violation being reported (in POSTCONDITION and ALIAS), or none. */
  counterExample(): Value;
}

/** An argument evaluated on demand (AssertError must catch the errors of its second argument). */
export type LazyArg = () => Value;

export interface Builtin {
  /** Number of arguments; 0 for a constant such as Nat. */
  arity: number;
  /** Indexes of operator-valued parameters: they receive an OpValue instead of a Value. */
  opParams?: readonly number[];
  /** Indexes of parameters passed unevaluated: they receive a LazyArg to evaluate (or not). */
  lazyParams?: readonly number[];
  fn: (args: (Value | OpValue | LazyArg)[], host: BuiltinHost, c: Ctx) => Value;
  /** fn for one value argument, called without an argument array. */
  fn1?: (x: Value) => Value;
  /** fn for two value arguments, called without an argument array. */
  fn2?: (x: Value, y: Value) => Value;
}

export interface BuiltinModule {
  name: string;
  /** Modules whose builtins this one also brings into scope (as EXTENDS would). */
  extends: readonly string[];
  ops: ReadonlyMap<string, Builtin>;
}
