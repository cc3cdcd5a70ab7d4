/** Breadth-first model checking with TLC's counting rules (see docs/tlc-semantics.md §1–2). */
import { fingerprintValues, type Value } from '../values/value.js';
import { EvalError } from '../values/errors.js';
import { TlaError } from '../errors.js';
import type { Ctx } from '../eval/runtime.js';
import { Frame, ROOT_FRAME } from '../eval/runtime.js';
import type { Compiler } from '../eval/compiler.js';
import type { Loc } from '../syntax/ast.js';
import { FingerprintSet, IntColumn } from './fpset.js';
import { StateQueue, type QueueOptions } from './queue.js';
import type { Model } from './model.js';
import { LiveGraph } from '../live/graph.js';
import { findViolation } from '../live/search.js';
import { holdsOnLasso } from '../live/lasso.js';

export type Verdict =
  | 'success'
  | 'invariant violated'
  | 'property violated'
  | 'deadlock'
  | 'evaluation error'
  | 'assumption false';

export interface StepLabel {
  name: string;
  /** The action's parameters and their values, in parameter order. */
  params: [string, Value][];
  loc?: Loc;
}

export interface TraceState {
  state: Value[];
  /** The action that led here; absent for an initial state. */
  action?: StepLabel;
}

export interface CheckResult {
  verdict: Verdict;
  exitCode: number;
  /** TLC's error text, e.g. `Invariant Inv is violated.` */
  message?: string;
  violated?: string;
  propertyKind?: 'action' | 'temporal';
  distinctStates: number | null;
  generatedStates: number | null;
  statesLeftOnQueue: number | null;
  depth: number | null;
  trace?: TraceState[];
  /** Evaluation errors: where the error occurred. */
  location?: string;
  /** The error occurred while TLC was working on an initial state (it prints that state alone). */
  inInitialState?: boolean;
  /**
   * A temporal counterexample is a lasso: after the last state of the trace, the behaviour goes back
   * to `trace[loop]` by `action`, forever; loop is the last state (and no action) for stuttering.
   */
  lasso?: { loop: number; action?: StepLabel };
  /** Seconds spent checking temporal properties, when there were any. */
  livenessSeconds?: number;
  seconds: number;
}

export interface ExploreOptions {
  /** Receives TLC's phase lines (Computing initial states..., Finished computing initial states: ...). */
  log?: (line: string) => void;
  /** Called with TLC's progress line every `progressSeconds`. */
  progress?: (line: string) => void;
  progressSeconds?: number;
  /** Called once per transition explored (from, to, label); enables label capture. */
  onEdge?: (from: number, to: number, label: StepLabel) => void;
  /** Called once per distinct state, with its id. */
  onState?: (id: number, state: Value[], initial: boolean) => void;
  /** Stop after this BFS depth (simulation-like bound for huge models). */
  maxDepth?: number;
  /**
   * TLC's -fp: TLC keeps a state's successors in the order of their fingerprints, so the seed
   * decides which counterexample a temporal violation shows. Here a seed other than 0 shuffles them.
   */
  fp?: number;
  /** The queue's memory budget, block size and spill directory. */
  queue?: QueueOptions;
}

class Stop {
  constructor(readonly result: Partial<CheckResult> & { traceTo?: number; extra?: TraceState }) {}
}

export class Explorer {
  private readonly fps = new FingerprintSet();
  private readonly parent = new IntColumn();
  private generated = 0;
  private maxLevel = 0;
  readonly queue: StateQueue;
  private readonly n: number;
  /** The behaviour graph, recorded only when there are temporal properties. */
  private readonly live: LiveGraph | null;

  constructor(
    private readonly model: Model,
    private readonly opts: ExploreOptions = {},
  ) {
    this.n = model.vars.length;
    this.queue = new StateQueue(opts.queue);
    if (opts.onEdge) model.compiler.captureLabels = true;
    if (model.liveness && opts.maxDepth !== undefined)
      throw new TlaError('unsupported: a search bounded by maxDepth cannot check temporal properties', 255);
    this.live = model.liveness
      ? new LiveGraph(model.liveness.solution, model.liveness.atoms, opts.fp ?? 0)
      : null;
  }

  get distinct(): number {
    return this.fps.size;
  }

  /** TLCGet("level"): the level of the state being evaluated (0 while computing initial states). */
  level = 0;

  /** Bytes used by the fingerprint set and per-state columns (the queue's states excluded). */
  get indexBytes(): number {
    return this.fps.bytes + this.parent.bytes;
  }

  /** Memory per distinct state, in bytes: the index and the queue's states in memory (not spilled). */
  get bytesPerState(): number {
    return (this.indexBytes + this.queue.memoryBytes) / Math.max(1, this.fps.size);
  }

  fingerprint(s: Value[]): [number, number] {
    const m = this.model;
    // VIEW replaces the state by its view; SYMMETRY then reduces what is fingerprinted.
    const vals = m.view ? [m.view(s)] : s;
    if (!m.symmetry) return fingerprintValues(vals);
    // The least fingerprint over the symmetry group: one per orbit, whichever member was reached.
    let best = fingerprintValues(vals);
    for (const perm of m.symmetry) {
      const fp = fingerprintValues(vals, perm);
      if (fp[0] < best[0] || (fp[0] === best[0] && fp[1] < best[1])) best = fp;
    }
    return best;
  }

  run(): CheckResult {
    try {
      return this.check();
    } finally {
      this.queue.close();
    }
  }

  private check(): CheckResult {
    const start = Date.now();
    const m = this.model;
    let livenessSeconds: number | undefined;
    for (const a of m.assumptions) {
      let ok: boolean;
      try {
        ok = a.check();
      } catch (err) {
        if (!(err instanceof EvalError)) throw err;
        return this.finish(start, {
          verdict: 'assumption false',
          exitCode: 10,
          message: `Evaluating assumption ${a.loc} failed.\n${err.message}`,
          ...nullStats,
        });
      }
      if (!ok) {
        return this.finish(start, {
          verdict: 'assumption false',
          exitCode: 10,
          message: `Assumption ${a.loc} is false.`,
          ...nullStats,
        });
      }
    }
    try {
      this.opts.log?.('Computing initial states...');
      this.initialStates();
      const inits = this.generated;
      const distinct = this.fps.size;
      const plural = (n: number) => (n === 1 ? '' : 's');
      this.opts.log?.(
        inits === distinct
          ? `Finished computing initial states: ${distinct} distinct state${plural(distinct)} generated at ${tlcDate(Date.now())}.`
          : `Finished computing initial states: ${inits} state${plural(inits)} generated, with ${distinct} of them distinct at ${tlcDate(Date.now())}.`,
      );
      this.search(start);
      if (this.live) {
        const live = this.checkLiveness(this.live);
        if (live.violation) return this.finish(start, live.violation);
        livenessSeconds = live.seconds;
      }
    } catch (err) {
      if (err instanceof Stop) return this.finish(start, this.stopResult(err));
      if (err instanceof RangeError && /call stack/.test(err.message)) {
        err = new EvalError(
          'The evaluation recursed too deeply: the stack overflowed (the tlcts command runs with a 256 MB stack).',
        );
      }
      if (err instanceof EvalError) {
        return this.finish(
          start,
          this.stopResult(
            new Stop({
              verdict: 'evaluation error',
              exitCode: err.exitCode,
              message: err.message,
              location: err.location,
            }),
          ),
        );
      }
      throw err;
    }
    return this.finish(start, {
      verdict: 'success',
      exitCode: 0,
      ...this.stats(),
      ...(livenessSeconds !== undefined ? { livenessSeconds } : {}),
    });
  }

  /**
   * The temporal properties on the complete state graph (TLC's final liveness check); a violation
   * is reported with a lasso and the properties it violates.
   */
  private checkLiveness(graph: LiveGraph): { seconds: number; violation?: Omit<CheckResult, 'seconds'> } {
    const liveness = this.model.liveness!;
    const branches = liveness.solution.branches.length;
    const log = this.opts.log;
    log?.(progressLine(this.stats(), null, null, Date.now()));
    log?.(
      `Checking ${branches === 1 ? '' : `${branches} branches of `}temporal properties for the complete state space with ${graph.size * branches} total distinct states at (${tlcDate(Date.now())})`,
    );
    const t0 = Date.now();
    const lasso = findViolation(graph);
    if (!lasso) {
      const seconds = (Date.now() - t0) / 1000;
      log?.(`Finished checking temporal properties in ${duration(seconds)} at ${tlcDate(Date.now())}`);
      return { seconds };
    }
    const trace = this.path(lasso.states);
    const last = trace[trace.length - 1]!.state;
    const back =
      lasso.loop < trace.length - 1
        ? this.findSuccessor(last, this.matches(this.fingerprint(trace[lasso.loop]!.state)))
        : undefined;
    // TLC names the properties the lasso violates, evaluated on its states as generated (under
    // VIEW or SYMMETRY, these may differ from the ones the graph was checked on, and satisfy them all).
    const states = trace.map((t) => t.state);
    const violated = [
      ...new Set(
        liveness.properties.filter((p) => !holdsOnLasso(p.formula, states, lasso.loop)).map((p) => p.name),
      ),
    ];
    const seconds = (Date.now() - t0) / 1000;
    const violation: Omit<CheckResult, 'seconds'> = {
      verdict: 'property violated',
      exitCode: 13,
      ...(violated.length > 0 ? { violated: violated.join(', ') } : {}),
      propertyKind: 'temporal',
      message:
        violated.length === 0
          ? 'Temporal properties were violated.'
          : violated.length === 1
            ? `Temporal property ${violated[0]} was violated.`
            : `Temporal properties ${violated.slice(0, -1).join(', ')} and ${violated[violated.length - 1]} were violated.`,
      trace,
      lasso: { loop: lasso.loop, ...(back?.action ? { action: back.action } : {}) },
      livenessSeconds: seconds,
      ...this.stats(),
    };
    return { seconds, violation };
  }

  private current: { id: number; s: Value[] } | null = null;
  /** The initial state being checked, for errors met before the search starts. */
  private currentInit: Value[] | null = null;

  private stats(): Pick<CheckResult, 'distinctStates' | 'generatedStates' | 'statesLeftOnQueue' | 'depth'> {
    return {
      distinctStates: this.fps.size,
      generatedStates: this.generated,
      statesLeftOnQueue: this.queue.size,
      depth: this.generated === 0 ? 0 : Math.max(1, this.maxLevel),
    };
  }

  private finish(start: number, r: Omit<CheckResult, 'seconds'>): CheckResult {
    return { ...r, seconds: (Date.now() - start) / 1000 };
  }

  private stopResult(stop: Stop): Omit<CheckResult, 'seconds'> {
    const r = stop.result;
    const { traceTo, extra, ...rest } = r;
    let trace: TraceState[] | undefined;
    if (traceTo !== undefined && traceTo >= 0) trace = this.trace(traceTo);
    else if (this.current) trace = this.trace(this.current.id);
    const inInitialState = !this.current && this.currentInit !== null && traceTo === undefined;
    if (inInitialState) trace = [{ state: this.currentInit! }];
    if (extra) trace = [...(trace ?? []), this.labelFinal(trace, extra)];
    const noStats = r.verdict === 'invariant violated' && this.current === null && r.distinctStates === null;
    return {
      verdict: r.verdict!,
      exitCode: r.exitCode!,
      ...rest,
      ...(noStats ? nullStats : this.stats()),
      ...(inInitialState ? { inInitialState } : {}),
      ...(trace ? { trace } : {}),
    } as Omit<CheckResult, 'seconds'>;
  }

  private ctx(s: Value[], t: Value[] | null, size: number): Ctx {
    return { s, t, f: new Frame(size, ROOT_FRAME) };
  }

  private initialStates(): void {
    const m = this.model;
    const partial: Value[] = new Array(this.n);
    m.init({ s: partial, t: null, f: ROOT_FRAME }, () => {
      this.generated++;
      const s = partial.slice();
      this.currentInit = s;
      for (let i = 0; i < this.n; i++) {
        if (s[i] === undefined) {
          throw new EvalError(
            `current state is not a legal state\nWhile working on the initial state:\n${m.vars.map((v, j) => `/\\ ${v} = ${s[j] === undefined ? 'null' : '...'}`).join('\n')}`,
          );
        }
      }
      this.level = 1;
      const inModel = m.constraints.every((c) => c(s));
      let fresh = false;
      let id = -1;
      if (inModel) {
        const [hi, lo] = this.fingerprint(s);
        id = this.fps.size;
        fresh = this.fps.put(hi, lo, id) < 0;
        if (fresh) {
          this.parent.push(-1);
          this.maxLevel = Math.max(this.maxLevel, 1);
          this.queue.push({ id, level: 1, s });
          this.opts.onState?.(id, s, true);
          this.live?.initial(id);
        }
      }
      this.level = 0;
      if (!inModel || fresh) {
        this.checkInvariants(s, -1);
        for (const p of m.impliedInits) {
          if (!p.check(s)) {
            throw new Stop({
              verdict: 'property violated',
              exitCode: 13,
              violated: p.name,
              propertyKind: 'temporal',
              message: `Property ${p.name} is violated by the initial state:`,
              ...nullStats,
              traceTo: -1,
              extra: { state: s },
            });
          }
        }
      }
    });
  }

  /** Stops at the first invariant (in cfg order) that state violates; from is its predecessor, -1 for an initial state. */
  private checkInvariants(state: Value[], from: number): void {
    for (const inv of this.model.invariants) {
      if (inv.check(state)) continue;
      const initial = from < 0;
      throw new Stop({
        verdict: 'invariant violated',
        exitCode: 12,
        violated: inv.name,
        message: `Invariant ${inv.name} is violated${initial ? ' by the initial state:' : '.'}`,
        ...(initial ? nullStats : {}),
        traceTo: from,
        extra: { state },
      });
    }
  }

  private search(start: number): void {
    this.currentInit = null;
    const m = this.model;
    const { onEdge, progress, maxDepth } = this.opts;
    const progressMs = (this.opts.progressSeconds ?? 60) * 1000;
    let nextProgress = start + Math.min(3000, progressMs);
    let lastGenerated = 0;
    let lastDistinct = 0;
    let lastTime = start;
    const t: Value[] = new Array(this.n);
    const live = this.live;
    let expanded = 0;
    for (let item = this.queue.shift(); item; item = this.queue.shift()) {
      this.current = item;
      if (maxDepth !== undefined && item.level >= maxDepth) continue;
      const s = item.s;
      const before = this.generated;
      const c = this.ctx(s, t, 0);
      this.level = item.level;
      if (live) live.begin(item.id, s);
      m.next(c, () => {
        this.generated++;
        this.level = item.level + 1;
        for (let i = 0; i < this.n; i++) {
          if (t[i] === undefined) {
            const missing = m.vars.filter((_, j) => t[j] === undefined).sort();
            throw new EvalError(
              `Successor state is not completely specified by the next-state action. The following variable${missing.length > 1 ? 's are' : ' is'} not defined: ${missing.join(', ')}.`,
            );
          }
        }
        const succ = t.slice();
        const label = onEdge ? this.currentLabel(s, succ) : undefined;
        let inModel = true;
        for (const con of m.constraints) if (!con(succ)) inModel = false;
        if (inModel) for (const ac of m.actionConstraints) if (!ac(s, succ)) inModel = false;
        let fresh = false;
        let id = -1;
        if (inModel) {
          const [hi, lo] = this.fingerprint(succ);
          const existing = this.fps.put(hi, lo, this.fps.size);
          fresh = existing < 0;
          id = fresh ? this.fps.size - 1 : existing;
          if (fresh) {
            this.parent.push(item.id);
            if (item.level + 1 > this.maxLevel) this.maxLevel = item.level + 1;
            this.opts.onState?.(id, succ, false);
          }
          if (onEdge) onEdge(item.id, id, label!);
          if (live) live.step(id, succ);
        }
        if (!inModel || fresh) this.checkInvariants(succ, item.id);
        for (const p of m.impliedActions) {
          if (!p.check(s, succ)) {
            throw new Stop({
              verdict: 'property violated',
              exitCode: 13,
              violated: p.name,
              propertyKind: 'action',
              message: `Action property ${p.loc} is violated.`,
              traceTo: item.id,
              extra: { state: succ },
            });
          }
        }
        if (fresh) this.queue.push({ id, level: item.level + 1, s: succ });
        this.level = item.level;
      });
      if (this.generated === before && m.checkDeadlock) {
        throw new Stop({ verdict: 'deadlock', exitCode: 11, message: 'Deadlock reached.', traceTo: item.id });
      }
      if (live) live.end(item.id);
      if (progress && (++expanded & 1023) === 0) {
        const now = Date.now();
        if (now >= nextProgress) {
          const mins = (now - lastTime) / 60000;
          progress(
            progressLine(
              this.stats(),
              (this.generated - lastGenerated) / mins,
              (this.fps.size - lastDistinct) / mins,
              now,
            ),
          );
          lastGenerated = this.generated;
          lastDistinct = this.fps.size;
          lastTime = now;
          nextProgress = now + progressMs;
        }
      }
    }
    this.current = null;
  }

  private currentLabel(s: Value[], t: Value[]): StepLabel {
    return actionLabel(this.model.compiler, s, t);
  }

  /** The states from an initial state to state `id`, re-generated as TLC does (first matching successor). */
  trace(id: number): TraceState[] {
    const ids: number[] = [];
    for (let i = id; i >= 0; i = this.parent.at(i)) ids.push(i);
    return this.path(ids.reverse());
  }

  /** The states with these ids, each a successor of the one before: the first generated with its fingerprint. */
  private path(ids: number[]): TraceState[] {
    const fps = this.fps.fingerprintsOf(ids);
    let state = this.findInit(this.matches(fps.get(ids[0]!)!));
    const out: TraceState[] = [{ state }];
    for (let k = 1; k < ids.length; k++) {
      const step = this.findSuccessor(state, this.matches(fps.get(ids[k]!)!));
      if (!step) throw new TlaError(`Internal error: could not rebuild the trace at step ${k + 1}.`, 255);
      out.push(step);
      state = step.state;
    }
    return out;
  }

  /** Whether a state has this fingerprint. */
  private matches([hi, lo]: [number, number]): (s: Value[]) => boolean {
    return (s) => {
      const fp = this.fingerprint(s);
      return fp[0] === hi && fp[1] === lo;
    };
  }

  private findInit(match: (s: Value[]) => boolean): Value[] {
    const partial: Value[] = new Array(this.n);
    let found: Value[] | undefined;
    try {
      this.model.init({ s: partial, t: null, f: ROOT_FRAME }, () => {
        const s = partial.slice();
        if (match(s)) {
          found = s;
          throw FOUND;
        }
      });
    } catch (err) {
      if (err !== FOUND) throw err;
    }
    if (!found) throw new TlaError('Internal error: could not rebuild the initial state of the trace.', 255);
    return found;
  }

  /** The first successor of s that matches, labelled with its action. */
  private findSuccessor(s: Value[], match: (succ: Value[]) => boolean): TraceState | undefined {
    const t: Value[] = new Array(this.n);
    let found: TraceState | undefined;
    const compiler = this.model.compiler;
    const saved = compiler.captureLabels;
    compiler.captureLabels = true;
    try {
      this.model.next(this.ctx(s, t, 0), () => {
        const succ = t.slice();
        if (match(succ)) {
          found = { state: succ, action: this.currentLabel(s, succ) };
          throw FOUND;
        }
      });
    } catch (err) {
      if (err !== FOUND) throw err;
    } finally {
      compiler.captureLabels = saved;
    }
    return found;
  }

  /** The violating state, labelled with the first action producing an equal state. */
  private labelFinal(trace: TraceState[] | undefined, extra: TraceState): TraceState {
    if (!trace || trace.length === 0) return extra;
    const prev = trace[trace.length - 1]!.state;
    const fp = fingerprintValues(extra.state);
    const step = this.findSuccessor(prev, (succ) => {
      const f = fingerprintValues(succ);
      return f[0] === fp[0] && f[1] === fp[1];
    });
    return step ?? extra;
  }
}

const FOUND = Symbol('found');

/** The label of the step being taken from s to t (labels must be captured). */
export function actionLabel(compiler: Compiler, s: Value[], t: Value[]): StepLabel {
  const a = compiler.currentAction;
  if (!a) return { name: 'Next', params: [] };
  const vals = compiler.labelArgs(a, s, t);
  return { name: a.name, params: a.params.map((p, i) => [p, vals[i]!]), ...(a.loc ? { loc: a.loc } : {}) };
}

const nullStats = { distinctStates: null, generatedStates: null, statesLeftOnQueue: null, depth: null };

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** TLC's progress line; without rates, the final one printed before temporal properties are checked. */
function progressLine(
  s: Pick<CheckResult, 'distinctStates' | 'generatedStates' | 'statesLeftOnQueue' | 'depth'>,
  genRate: number | null,
  distRate: number | null,
  now: number,
): string {
  const rate = (r: number | null, unit: string) => (r === null ? '' : ` (${fmt(r)} ${unit})`);
  return (
    `Progress(${s.depth}) at ${tlcDate(now)}: ${fmt(s.generatedStates!)} states generated${rate(genRate, 's/min')}, ` +
    `${fmt(s.distinctStates!)} distinct states found${rate(distRate, 'ds/min')}, ${fmt(s.statesLeftOnQueue!)} states left on queue.`
  );
}

/** A duration as TLC prints it: `00s`, `01min 05s`, `02h 03min`, `1d 04h`. */
export function duration(seconds: number): string {
  const s = Math.floor(seconds);
  const p = (x: number) => String(x).padStart(2, '0');
  if (s < 60) return `${p(s)}s`;
  if (s < 3600) return `${p(Math.floor(s / 60))}min ${p(s % 60)}s`;
  if (s < 86400) return `${p(Math.floor(s / 3600))}h ${p(Math.floor((s % 3600) / 60))}min`;
  return `${Math.floor(s / 86400)}d ${p(Math.floor((s % 86400) / 3600))}h`;
}

export function tlcDate(ms: number): string {
  const d = new Date(ms);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
