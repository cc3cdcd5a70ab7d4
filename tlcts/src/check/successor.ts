/** What the sequential search (explore.ts) and the parallel workers (worker.ts) do alike with a state. */
import { StateHashes, fingerprintLeast, fingerprintValues } from '../values/fingerprint.js';
import type { Value } from '../values/value.js';
import { EvalError } from '../values/errors.js';
import type { Model } from './model.js';

/** The fingerprint a state is known by: VIEW replaces the state by its view; SYMMETRY then reduces it. */
export function stateFingerprint(m: Model, s: Value[]): [number, number] {
  const vals = m.view ? [m.view(s)] : s;
  // The least fingerprint over the symmetry group: one per orbit, whichever member was reached.
  return m.symmetry ? fingerprintLeast(vals, m.symmetry) : fingerprintValues(vals);
}

/** stateFingerprint of one state's successors at a time, hashing again only the variables a step changed. */
export class SuccessorFingerprints {
  private readonly hashes: StateHashes | null;

  constructor(private readonly m: Model) {
    this.hashes = m.view ? null : new StateHashes(m.symmetry);
  }

  /** Makes s the state whose successors are fingerprinted next. */
  from(s: Value[]): void {
    this.hashes?.from(s);
  }

  of(succ: Value[]): [number, number] {
    return this.hashes ? this.hashes.of(succ) : stateFingerprint(this.m, succ);
  }
}

/** A copy of the successor the next-state action assigned to t; an error if it left a variable unset. */
export function completeSuccessor(m: Model, t: Value[]): Value[] {
  for (let i = 0; i < t.length; i++) {
    if (t[i] === undefined) {
      const missing = m.vars.filter((_, j) => t[j] === undefined).sort();
      throw new EvalError(
        `Successor state is not completely specified by the next-state action. The following variable${missing.length > 1 ? 's are' : ' is'} not defined: ${missing.join(', ')}.`,
      );
    }
  }
  return t.slice();
}

/** Whether the step from s to succ stays in the model: every CONSTRAINT (all evaluated), then every ACTION_CONSTRAINT. */
export function inModel(m: Model, s: Value[], succ: Value[]): boolean {
  let ok = true;
  for (const con of m.constraints) if (!con(succ)) ok = false;
  if (ok) for (const ac of m.actionConstraints) if (!ac(s, succ)) ok = false;
  return ok;
}

/**
 * The evaluation error an exception stands for: a stack overflow becomes TLC's SYSTEM_STACK_OVERFLOW
 * (exit 255; the tlcts command runs with a 256 MB stack); others are returned as they are.
 */
export function asEvalError(err: unknown): unknown {
  if (err instanceof RangeError && /call stack/.test(err.message)) {
    return new EvalError(
      'This was a Java StackOverflowError. It was probably the result\nof an incorrect recursive function definition that caused TLC to enter\nan infinite loop when trying to compute the function or its application\nto an element in its putative domain.',
      255,
    );
  }
  return err;
}

/**
 * An evaluation error met computing the initial states: TLC replays it to print where it happened and
 * reports that replay's TLC_NESTED_EXPRESSION, exit 75, whatever the error (an Assert, \div by 0, a
 * stack overflow). Anything else is returned as it is.
 */
export function asInitialStateError(thrown: unknown): unknown {
  const err = asEvalError(thrown);
  if (!(err instanceof EvalError) || err.exitCode === 75) return err;
  const replayed = new EvalError(err.message, 75);
  if (err.location !== undefined) replayed.location = err.location;
  return replayed;
}

/** Which check failed first: its index (-1: every check holds), and what it threw if it did not evaluate. */
export interface FirstFailure {
  index: number;
  thrown?: unknown;
}

const ALL_HOLD: FirstFailure = Object.freeze({ index: -1 });

/**
 * The first of `checks` (invariants in cfg order, implied action properties) that does not hold or
 * that throws, as the sequential search and the workers both stop at it.
 */
export function firstFailure<T>(checks: readonly T[], holds: (check: T) => boolean): FirstFailure {
  for (let index = 0; index < checks.length; index++) {
    try {
      if (!holds(checks[index]!)) return { index };
    } catch (thrown) {
      return { index, thrown };
    }
  }
  return ALL_HOLD;
}
