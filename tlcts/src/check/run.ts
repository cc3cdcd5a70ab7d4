/** Checking a specification end to end: load, explore, and report in TLC's words. */
import { CfgError } from '../cfg/types.js';
import { SanyError, TlaError } from '../errors.js';
import { EvalError } from '../values/errors.js';
import { FcnValue, Tuple, intern, recordOf, show, type Value } from '../values/value.js';
import type { BuiltinHost } from '../eval/builtin.js';
import { Explorer, duration, tlcDate } from './explore.js';
import type { CheckResult, ExploreOptions, RunCounters, TraceState } from './result.js';
import { loadModel, type Model } from './model.js';
import { WorkerPool, defaultWorkerHeapMb, sequentialReason } from './parallel.js';
import { formatLasso, formatState, formatTrace } from '../output/format.js';
import { packageRoot } from '../util/package-root.js';
import { NO_COUNTEREXAMPLE, counterExampleValue } from './counterexample.js';
import { asEvalError } from './successor.js';

export interface RunOptions extends ExploreOptions {
  tlaFile: string;
  cfgFile: string;
  checkDeadlock?: boolean;
  /** False for TLC's -nowarning: no warnings are printed. */
  warnings?: boolean;
  /** Receives every line of TLC-style output (Print output included). */
  out?: (line: string) => void;
  /** TLC's -continue: every invariant and implied action property violation is printed and the search goes on. */
  continueAfterViolations?: boolean;
}

export interface ParallelRunOptions extends RunOptions {
  /** Worker threads expanding states (TLC's -workers); one runs the sequential search. */
  workers: number;
  /** The heap limit of each worker thread, in MiB (default: defaultWorkerHeapMb). */
  workerHeapMb?: number;
  /** Told why the search runs sequentially although workers were asked for (not TLC's output). */
  note?: (line: string) => void;
}

export interface RunOutcome {
  result: CheckResult;
  model?: Model;
  explorer?: Explorer;
}

/**
 * What TLCExt's Trace and CounterExample read: the variables, the behaviour that led to a state,
 * and the violation being reported.
 */
export interface History {
  readonly vars: readonly string[];
  behaviourTo(s: Value[]): Value[][];
  readonly counterExample: Value | null;
}

/** TLCExt's Trace: the behaviour to s as records (`TLCExt#getTrace`), refused while s is partial. */
function traceValue(history: History | undefined, s: Value[] | null): Value {
  if (!history)
    throw new EvalError(
      'unsupported: TLCExt!Trace outside model checking (in simulation, tlcts has no behaviour to give)',
      255,
    );
  const { vars } = history;
  const undefinedVars = vars.filter((_, i) => !s || s[i] === undefined);
  if (!s || undefinedVars.length > 0) {
    throw new EvalError(
      `In evaluating TLCExt!Trace, the state is not completely specified yet (variable${undefinedVars.length > 1 ? 's' : ''} ${undefinedVars.join(', ')} undefined).`,
    );
  }
  return new Tuple(
    history.behaviourTo(s).map((state) => recordOf(vars.map((name, i) => ({ name, value: state[i]! })))),
  );
}

/** What TLCGet("config") tells of the run. */
export interface RunSettings {
  deadlock: boolean;
  workers: number;
}

const str = (s: string): Value => {
  intern(s);
  return s;
};

/**
 * Print/PrintT and TLCGet/TLCSet as TLC provides them to a model-checking run (TLC's TLCGetSet): the
 * registers, the run's counters, "stats" (those counters and the seconds since the start), "duration",
 * "config" and "revision" (of tlcts, in TLC's fields).
 */
export function makeHost(
  out: (line: string) => void,
  counters: () => RunCounters,
  settings: () => RunSettings = () => ({ deadlock: true, workers: 1 }),
  history: () => History | undefined = () => undefined,
): BuiltinHost {
  const registers = new Map<number, Value>();
  const startedAt = Date.now();
  const seconds = () => Math.floor((Date.now() - startedAt) / 1000);
  return {
    print: out,
    tlcGet(key) {
      if (typeof key === 'number') return registers.get(key);
      const s = counters();
      switch (key) {
        case 'distinct':
          return s.distinctStates ?? 0;
        case 'generated':
          return s.generatedStates ?? 0;
        case 'queue':
          return s.statesLeftOnQueue ?? 0;
        case 'diameter':
          return s.depth ?? 1;
        case 'level':
          return s.level ?? 0;
        case 'duration':
          return seconds();
        case 'stats':
          return recordOf([
            { name: 'queue', value: s.statesLeftOnQueue ?? 0 },
            { name: 'distinct', value: s.distinctStates ?? 0 },
            { name: 'generated', value: s.generatedStates ?? 0 },
            { name: 'diameter', value: s.depth ?? 1 },
            { name: 'duration', value: seconds() },
          ]);
        case 'config': {
          const { deadlock, workers } = settings();
          return recordOf([
            { name: 'mode', value: str('bfs') },
            { name: 'deadlock', value: deadlock },
            { name: 'worker', value: workers },
            { name: 'seed', value: str('0') },
            { name: 'fingerprint', value: str('0') },
            { name: 'install', value: str(INSTALL) },
          ]);
        }
        case 'revision':
          return recordOf([
            { name: 'count', value: 0 },
            { name: 'timestamp', value: 0 },
            { name: 'date', value: str('1970-01-01T00:00:00.0Z') },
            { name: 'tag', value: str('tlcts') },
          ]);
        case 'spec':
        case 'action':
          throw new EvalError(`unsupported: TLCGet(${show(key)}) is not available in tlcts`, 255);
        default:
          throw new EvalError(
            `The argument of TLCGet should be a nonnegative integer, but instead it is:\n${show(key)}`,
          );
      }
    },
    trace: (s) => traceValue(history(), s),
    counterExample: () => history()?.counterExample ?? NO_COUNTEREXAMPLE,
    tlcSet(key, v) {
      if (typeof key !== 'number')
        throw new EvalError(
          `The first argument of TLCSet should be a nonnegative integer, but instead it is:\n${show(key)}`,
        );
      registers.set(key, v);
    },
  };
}

/** Where tlcts is installed: TLCGet("config").install. */
const INSTALL = packageRoot() ?? '';

export function runCheck(opts: RunOptions): RunOutcome {
  const run = prepare(opts);
  return 'result' in run ? run : run.report(run.explorer.run());
}

/**
 * runCheck with the states expanded by opts.workers threads (parallel.ts), with the same outcome;
 * sequentially where the parallel search would not give it, saying why to opts.note.
 */
export async function runCheckParallel(opts: ParallelRunOptions): Promise<RunOutcome> {
  const run = prepare(opts, opts.workers);
  if ('result' in run) return run;
  if (opts.workers <= 1) return run.report(run.explorer.run());
  const reason = sequentialReason(run.model, opts);
  if (reason !== null) {
    opts.note?.(`tlcts: -workers ${opts.workers}: exploring with one thread: ${reason}.`);
    return run.report(run.explorer.run());
  }
  const pool = new WorkerPool(
    { tlaFile: opts.tlaFile, cfgFile: opts.cfgFile },
    opts.workers,
    opts.workerHeapMb ?? defaultWorkerHeapMb(opts.workers),
  );
  try {
    return run.report(await run.explorer.runParallel(pool, opts.out ?? (() => undefined)));
  } finally {
    await pool.close();
  }
}

/**
 * A specification or configuration TLC refuses before it explores, reported as TLC does: TLC reads the
 * configuration before SANY parses, says `Starting...` once SANY is done, and always ends with
 * `Finished in`.
 */
export function reportLoadFailure(err: TlaError, start: number, out: (line: string) => void): CheckResult {
  const seconds = (Date.now() - start) / 1000;
  if (err instanceof SanyError) out(err.report);
  if (!(err instanceof CfgError)) out(`Starting... (${tlcDate(start)})`);
  out(`Error: ${err.message}`);
  out(`Finished in ${duration(seconds)} at (${tlcDate(Date.now())})`);
  return {
    verdict: 'evaluation error',
    exitCode: err.exitCode,
    message: err.message,
    distinctStates: null,
    generatedStates: null,
    statesLeftOnQueue: null,
    depth: null,
    seconds,
  };
}

/**
 * A loaded model and its explorer (for `workers` threads, as TLCGet("config") tells), and how to report
 * the result; or the outcome of a failed load.
 */
function prepare(
  opts: RunOptions,
  workers = 1,
): RunOutcome | { model: Model; explorer: Explorer; report: (r: CheckResult) => RunOutcome } {
  const out = opts.out ?? (() => undefined);
  let explorer: Explorer | undefined;
  let model: Model | undefined;
  const host = makeHost(
    out,
    () => explorer?.counters ?? { level: 0 },
    () => ({
      deadlock: model?.checkDeadlock ?? opts.checkDeadlock ?? true,
      workers,
    }),
    () => explorer,
  );
  const start = Date.now();
  try {
    model = loadModel({
      tlaFile: opts.tlaFile,
      cfgFile: opts.cfgFile,
      host,
      ...(opts.checkDeadlock === undefined ? {} : { checkDeadlock: opts.checkDeadlock }),
    });
  } catch (err) {
    if (!(err instanceof TlaError)) throw err;
    return { result: reportLoadFailure(err, start, out) };
  }
  out(`Starting... (${tlcDate(start)})`);
  const warn = warningPrinter(out, opts.warnings ?? true);
  if (model.liveness) {
    for (const w of model.liveness.warnings) warn(w);
    out(
      `Implied-temporal checking--satisfiability problem has ${model.liveness.solution.branches.length} branches.`,
    );
  }
  const loaded = model;
  // An ALIAS or a POSTCONDITION evaluated while a violation is shown reads TLCExt's Trace and
  // CounterExample from it.
  const showing = (r: Pick<CheckResult, 'trace' | 'lasso'>, print: () => void): void => {
    ready.shownTrace = r.trace?.map((t) => t.state) ?? null;
    ready.counterExample = r.trace ? counterExampleValue(loaded.vars, r.trace, r.lasso) : null;
    try {
      print();
    } finally {
      ready.shownTrace = null;
      ready.counterExample = null;
    }
  };
  const ready: Explorer = new Explorer(loaded, {
    log: out,
    ...opts,
    ...(opts.continueAfterViolations
      ? {
          onViolation: (v: Omit<CheckResult, 'seconds'>) =>
            showing(v, () => reportError(v, loaded, out, () => undefined)),
        }
      : {}),
  });
  explorer = ready;
  return {
    model: loaded,
    explorer: ready,
    report: (result) => {
      let reported = result;
      showing(result, () => (reported = report(result, loaded, out, warn)));
      return { result: reported, model: loaded, explorer: ready };
    },
  };
}

/**
 * Prints TLC's warnings as `MP.printWarning` does: none under -nowarning, each text once, and the first
 * one of the run followed by how to turn them off.
 */
function warningPrinter(out: (line: string) => void, enabled: boolean): (text: string) => void {
  const printed = new Set<string>();
  return (text) => {
    if (!enabled || printed.has(text)) return;
    const hint = printed.size === 0 ? '\n(Use the -nowarning option to disable this warning.)' : '';
    printed.add(text);
    out(`Warning: ${text}${hint}`);
  };
}

/**
 * The POSTCONDITIONs in the configuration's order (`Tool#checkPostConditionWithContext`): the first
 * false or failing one is printed, and its exit status returned (VIOLATION_ASSUMPTION, 10).
 */
function checkPostconditions(m: Model, out: (line: string) => void): number | undefined {
  for (const p of m.postconditions) {
    let holds: boolean;
    try {
      holds = p.check();
    } catch (thrown) {
      const err = asEvalError(thrown);
      if (!(err instanceof EvalError)) throw err;
      out(`Error: Evaluating postcondition ${p.name} at ${p.loc} failed.\n${err.message}`);
      return 10;
    }
    if (!holds) {
      out(`Error: Postcondition ${p.name} at ${p.loc} is false.`);
      return 10;
    }
  }
  return undefined;
}

/**
 * Prints the result in TLC's words; the POSTCONDITIONs are checked on success (a failure there is
 * the run's exit status, after TLC's success lines) and after the behaviour of a safety violation
 * or deadlock (where the violation's status stands), not after evaluation errors (`ModelChecker`).
 */
function report(
  r: CheckResult,
  m: Model,
  out: (line: string) => void,
  warn: (text: string) => void,
): CheckResult {
  let reported = r;
  const stats = () => {
    if (r.generatedStates === null) return;
    out(
      `${r.generatedStates} states generated, ${r.distinctStates} distinct states found, ${r.statesLeftOnQueue} states left on queue.`,
    );
    out(`The depth of the complete state graph search is ${r.depth}.`);
  };
  // After the behaviour, before the figures.
  const postconditionsThenStats = () => {
    checkPostconditions(m, out);
    stats();
  };
  switch (r.verdict) {
    case 'success': {
      const failed = checkPostconditions(m, out);
      if (failed !== undefined) reported = { ...r, exitCode: failed };
      out('Model checking completed. No error has been found.');
      const d = r.distinctStates ?? 0;
      const p = (d * ((r.generatedStates ?? 0) - d)) / 2 ** 64;
      out('  Estimates of the probability that TLC did not check all reachable states');
      out('  because two distinct states had the same fingerprint:');
      out(
        `  calculated (optimistic):  val = ${p === 0 ? '0.0' : p.toExponential(1).replace('e', 'E').replace('+', '')}`,
      );
      stats();
      if (r.outDegree) {
        const { mean, min, max, p95 } = r.outDegree;
        out(
          `The average outdegree of the complete state graph is ${mean} (minimum is ${min}, the maximum ${max} and the 95th percentile is ${p95}).`,
        );
      }
      break;
    }
    case 'property violated':
      if (r.lasso) reportLasso(r, m, out, warn, stats);
      else reportError(r, m, out, postconditionsThenStats);
      break;
    case 'assumption false':
      out(`Error: ${r.message}`);
      break;
    case 'evaluation error':
      reportError(r, m, out, stats);
      break;
    default:
      reportError(r, m, out, postconditionsThenStats);
  }
  out(`Finished in ${duration(r.seconds)} at (${tlcDate(Date.now())})`);
  return reported;
}

/** A temporal violation, with its lasso. */
function reportLasso(
  r: CheckResult,
  m: Model,
  out: (line: string) => void,
  warn: (text: string) => void,
  stats: () => void,
): void {
  const lasso = r.lasso!;
  out(`Error: ${r.message}`);
  out('');
  out('Error: The following behavior constitutes a counter-example:');
  out('');
  const trace = shown(m, r.trace!);
  out(formatLasso(trace.vars, trace.trace, lasso));
  if (lasso.action === undefined && m.liveness?.stutteringWarning) warn(m.liveness.stutteringWarning);
  out(`Finished checking temporal properties in ${duration(r.livenessSeconds!)} at ${tlcDate(Date.now())}`);
  stats();
}

/** A safety violation or an evaluation error, with the behaviour up to it. */
function reportError(
  r: Omit<CheckResult, 'seconds'>,
  m: Model,
  out: (line: string) => void,
  stats: () => void,
): void {
  out(`Error: ${r.message}`);
  if (r.inInitialState && r.trace) {
    out(`While working on the initial state:\n${formatState(m.vars, r.trace[0]!.state)}\n`);
    stats();
    return;
  }
  if (r.location) out(`The error occurred when evaluating ${r.location}.`);
  if (r.trace && r.trace.length > 0) {
    const trace = shown(m, r.trace);
    if (r.message?.endsWith('initial state:')) out(formatState(trace.vars, trace.trace[0]!.state) + '\n');
    else {
      out('Error: The behavior up to this point is:');
      out(formatTrace(trace.vars, trace.trace));
    }
  }
  stats();
}

/** The trace as shown: under ALIAS, each state as its record (evaluated with the state and its successor). */
function shown(m: Model, trace: TraceState[]): { vars: readonly string[]; trace: TraceState[] } {
  if (!m.alias) return { vars: m.vars, trace };
  const records = trace.map((t, i) => {
    const v = m.alias!(t.state, trace[i + 1]?.state ?? t.state);
    if (!(v instanceof FcnValue)) throw new EvalError(`The ALIAS must be a record, not ${show(v)}.`);
    return v.materialize();
  });
  const vars =
    records.length > 0
      ? Array.from({ length: records[0]!.size() }, (_, i) => String(records[0]!.keyAt(i)))
      : [];
  return { vars, trace: trace.map((t, i) => ({ ...t, state: vars.map((_, j) => records[i]!.valAt(j)) })) };
}
