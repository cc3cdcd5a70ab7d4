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

/** A frame with f's parent and a copy of its slots. */
export function copyFrame(f: Frame): Frame {
  const copy = new Frame(f.v.length, f.parent);
  for (let i = 0; i < f.v.length; i++) copy.v[i] = f.v[i];
  return copy;
}

export const ROOT_FRAME = new Frame(0, null);

/** The frames of a scope's runs: one kept from run to run, and a new one while another is in use. */
export class FramePool {
  private free: Frame | null = null;
  constructor(
    private readonly info: { readonly size: number },
    private readonly parent: Frame,
  ) {}
  take(): Frame {
    const f = this.free ?? new Frame(this.info.size, this.parent);
    this.free = null;
    return f;
  }
  give(f: Frame): void {
    this.free = f;
  }
}

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
export class ArgRef {
  constructor(
    readonly fn: Closure,
    readonly act: ActClosure,
    /** UNCHANGED of the argument, as an action. */
    readonly unchanged: ActClosure,
    /** The variable the argument is, when it is one (it can then be assigned through the parameter). */
    readonly varIndex: number | undefined,
    /** The variable the argument primes (`F(x')`): `p = e` and `p \in S` then assign it in a step. */
    readonly primedVarIndex: number | undefined,
    readonly f: Frame,
  ) {}
}

/** A zero-argument LET definition, evaluated on first use. */
export class LetThunk {
  /** The value, once computed (kept while s, t and the version are those it was computed at). */
  val: Value | undefined = undefined;
  constructor(
    readonly fn: Closure,
    readonly f: Frame,
    public s: Value[] | null,
    public t: Value[] | null,
    /** The partial-state version the value was computed at (see stateVersion in compile/support.ts). */
    public version: number,
  ) {}
}

/**
 * A copy of f's slots and of its parents', for a value evaluated after they change (a lazy set
 * or function). LET definitions and arguments by name in them are copied too, to run in the
 * copies of their frames: their frames' slots may change as well (inlined calls reuse them).
 */
export function snapshotFrame(f: Frame, copies = new Map<Frame, Frame>()): Frame {
  if (f === ROOT_FRAME) return f;
  let copy = copies.get(f);
  if (copy) return copy;
  copy = new Frame(f.v.length, f.parent ? snapshotFrame(f.parent, copies) : null);
  copies.set(f, copy);
  for (let i = 0; i < f.v.length; i++) {
    const v = f.v[i];
    if (v instanceof LetThunk) {
      const th = new LetThunk(v.fn, snapshotFrame(v.f, copies), v.s, v.t, v.version);
      th.val = v.val;
      copy.v[i] = th;
    } else if (v instanceof ArgRef)
      copy.v[i] = new ArgRef(
        v.fn,
        v.act,
        v.unchanged,
        v.varIndex,
        v.primedVarIndex,
        snapshotFrame(v.f, copies),
      );
    else copy.v[i] = v;
  }
  return copy;
}

/** An operator as a value: LAMBDA, an operator argument, a builtin passed to a higher-order operator. */
export type OpValue = (args: Value[], c: Ctx) => Value;

export function walkUp(f: Frame, hops: number): Frame {
  while (hops-- > 0) f = f.parent!;
  return f;
}
