/**
 * What the parts of the compiler share: locations of errors, conditions, the partial state's version.
 */
import { locationText, type Expr } from '../../syntax/ast.js';
import { SetValue, show, type Value } from '../../values/value.js';
import { EvalError } from '../../values/errors.js';
import type { Sym } from '../scope.js';
import type { Closure } from '../runtime.js';

export function locText(e: { loc: Expr['loc'] }): string {
  return locationText(e.loc);
}

/** Attaches e's location to an evaluation error unwinding through it, unless an inner one did. */
export function locate(err: unknown, e: Expr): unknown {
  if (err instanceof EvalError && !err.location) err.location = locText(e);
  return err;
}

/** Attaches the innermost location to an evaluation error as it unwinds (hot closures inline this). */
export function located(e: Expr, cl: Closure): Closure {
  return (c) => {
    try {
      return cl(c);
    } catch (err) {
      throw locate(err, e);
    }
  };
}

export function boolOf(v: Value, e: Expr): boolean {
  if (v === true || v === false) return v;
  throw new EvalError(`A non-boolean expression (${show(v)}) was used as a condition at ${locText(e)}.`);
}

export function asSet(v: Value, e: Expr): SetValue {
  if (v instanceof SetValue) return v;
  throw new EvalError(`Attempted to use ${show(v)}, which is not a set, as a set at ${locText(e)}.`);
}

/**
 * Counts writes to partial states (assignments and their undoing), so that a LET value computed
 * from a partial state is reused only while that state has not changed.
 */
export let stateVersion = 0;

/** Counts a write to a partial state (see stateVersion). */
export function stateChanged(): void {
  stateVersion++;
}

/** Bound names of a split point hold constants while Next is split (TLC binds them before any state). */
export function markSplitConstant(sym: Sym | undefined): void {
  if (sym?.k === 'slot') sym.splitConstant = true;
}

/** Temporal operators spelled as operator names, and how TLC's message names them. */
export const TEMPORAL_OPERATORS = new Map([
  ['-+->', 'a -+-> formula'],
  ['\\EE', '\\EE'],
  ['\\AA', '\\AA'],
]);

/** How TLC's message names the temporal operator of e (`Tool#evalAppl`). */
export function temporalText(
  e: Extract<Expr, { kind: 'Fair' | 'Always' | 'Eventually' | 'LeadsTo' | 'TemporalQuant' }>,
): string {
  switch (e.kind) {
    case 'Fair':
      return e.strong ? 'SF' : 'WF';
    case 'Always':
      return '[]A';
    case 'Eventually':
      return '<>A';
    case 'LeadsTo':
      return 'a ~> b';
    case 'TemporalQuant':
      return e.forall ? '\\AA' : '\\EE';
  }
}

/**
 * TLC's error for a temporal formula met while evaluating a predicate or action
 * (TLC_ENCOUNTERED_FORMULA_IN_PREDICATE): it has no exit status of its own, so 255.
 */
export function temporalInPredicate(what: string, e: Expr): EvalError {
  return new EvalError(
    `TLC encountered a temporal formula (${what}) when evaluating a predicate or action.\n${locText(e)}`,
    255,
  );
}

/** Builtins whose value changes from call to call, so definitions using them are not cached. */
export const NONDETERMINISTIC = new Set([
  'RandomElement',
  'TLCGet',
  'JavaTime',
  'Print',
  'PrintT',
  'TLCSet',
  // TLCExt's: the behaviour to the current state, the violation being reported.
  'Trace',
  'CounterExample',
]);

/**
 * Builtins whose value depends on the run (its registers, counters and behaviour): TLC's
 * pre-evaluation of constant definitions fails on them at startup, or freezes what it should not,
 * so a definition using them is evaluated where it is used. A definition that prints or draws a
 * random element once is TLC's constant (`SpecProcessor#processConstantDefns`).
 */
export const RUN_DEPENDENT: ReadonlySet<string> = new Set(['TLCGet', 'TLCSet', 'Trace', 'CounterExample']);

/**
 * Builtins that read the checker's registers or the outside world, or have effects: a constant
 * definition using them is computed once (as TLC does), but a subexpression is not (nor is an
 * invariant's conjunct using them taken over from a predecessor, see eval/reads.ts).
 */
export const NOT_HOISTED_BUILTINS: ReadonlySet<string> = new Set([
  ...NONDETERMINISTIC,
  'AssertEq',
  'TLCGetOrDefault',
  'TLCGetAndSet',
  'IOEnv',
  'Serialize',
  'Deserialize',
  'JsonSerialize',
  'JsonDeserialize',
  'ndJsonSerialize',
  'ndJsonDeserialize',
]);
