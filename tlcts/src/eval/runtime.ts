/** Runtime structures shared by compiled closures. */
import type { Value } from '../values/value.js';

/** A frame of bound names; `parent` is the frame of the enclosing definition (static link). */
export class Frame {
  readonly v: unknown[];
  constructor(
    size: number,
    readonly parent: Frame | null,
  ) {
    this.v = new Array(size);
  }
}

export const ROOT_FRAME = new Frame(0, null);

/** What a closure sees: the current state `s`, the next state `t` (actions only) and its frame. */
export interface Ctx {
  s: Value[] | null;
  t: Value[] | null;
  f: Frame;
}

export type Closure = (c: Ctx) => Value;
/** Successor enumeration: calls `k` once for every way the action can be taken (assignments in c.t). */
export type Cont = () => void;
export type ActClosure = (c: Ctx, k: Cont) => void;

/** An argument passed by name: re-evaluated in the caller's frame with the user's state selection. */
export interface ArgRef {
  fn: Closure;
  act: ActClosure;
  /** UNCHANGED of the argument, as an action. */
  unchanged: ActClosure;
  /** The variable the argument is, when it is one (it can then be assigned through the parameter). */
  varIndex: number | undefined;
  f: Frame;
}

/** A zero-argument LET definition, evaluated on first use. */
export interface LetThunk {
  fn: Closure;
  f: Frame;
  s: Value[] | null;
  t: Value[] | null;
  /** The partial-state version the value was computed at (see compiler's stateVersion). */
  version: number;
  val: Value | undefined;
}

/** An operator as a value: LAMBDA, an operator argument, a builtin passed to a higher-order operator. */
export type OpValue = (args: Value[], c: Ctx) => Value;

export function walkUp(f: Frame, hops: number): Frame {
  while (hops-- > 0) f = f.parent!;
  return f;
}
