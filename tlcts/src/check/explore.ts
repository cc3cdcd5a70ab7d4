/** Breadth-first model checking with TLC's counting rules (see docs/tlc-semantics.md §1–2). */
import { fingerprintValues } from '../values/fingerprint.js';
import { internedCount, type Value } from '../values/value.js';
import { EvalError } from '../values/errors.js';
import { StateReader, StateWriter, decodeState, encodeState } from '../values/codec.js';
import { TlaError } from '../errors.js';
import type { Ctx } from '../eval/runtime.js';
import { Frame, ROOT_FRAME } from '../eval/runtime.js';
import type { Compiler } from '../eval/compiler.js';
import { OutDegree } from './outdegree.js';
import type { CheckResult, ExploreOptions, RunCounters, StepLabel, TraceState } from './result.js';
import { IntColumn } from '../util/int-column.js';
import { FingerprintStore } from './fpset.js';
import { StateQueue } from './queue.js';
import type { ActionPred, Model, NamedCheck } from './model.js';
import { LiveGraph } from '../live/graph.js';
import { findViolation } from '../live/search.js';
import { holdsOnLasso } from '../live/lasso.js';
import { Op, type BatchResult, type ErrorInfo, type WorkerPool } from './parallel.js';
import {
  asEvalError,
  asInitialStateError,
  completeSuccessor,
  firstFailure,
  inModel,
  SuccessorFingerprints,
  stateFingerprint,
} from './successor.js';

class Stop {
  constructor(readonly result: Partial<CheckResult> & { traceTo?: number; extra?: TraceState }) {}
}

/** The states of a batch sent to a worker thread (see searchParallel), and its result to come. */
interface Dispatched {
  ids: Int32Array;
  levels: Int32Array;
  worker: number;
  result: Promise<BatchResult>;
}

export class Explorer {
  readonly fps: FingerprintStore;
  private readonly parent = new IntColumn();
  private generated = 0;
  private maxLevel = 0;
  readonly queue: StateQueue;
  private readonly n: number;
  /** The behaviour graph, recorded only when there are temporal properties. */
  private readonly live: LiveGraph | null;
  /**
   * The strings interned when the explorer is made, right after the model is loaded: the worker
   * threads of the parallel search intern them alike (see codec.ts).
   */
  private readonly loadStrings = internedCount();
  private readonly successors: SuccessorFingerprints;

  constructor(
    private readonly model: Model,
    private readonly opts: ExploreOptions = {},
  ) {
    this.n = model.vars.length;
    this.successors = new SuccessorFingerprints(model);
    this.queue = new StateQueue(opts.queue);
    this.fps = new FingerprintStore(opts.fingerprints);
    if (model.liveness && opts.maxDepth !== undefined)
      throw new TlaError('unsupported: a search bounded by maxDepth cannot check temporal properties', 255);
    this.live = model.liveness
      ? new LiveGraph(model.liveness.solution, model.liveness.atoms, opts.fp ?? 0)
      : null;
  }

  /** TLCGet("level"): the level of the state being evaluated (0 while computing initial states). */
  level = 0;

  /** Bytes in memory of the fingerprint set and per-state columns (the queue's states excluded). */
  get indexBytes(): number {
    return this.fps.bytes + this.parent.bytes;
  }

  /** Memory per distinct state, in bytes: the index and the queue's states in memory (not spilled). */
  get bytesPerState(): number {
    return (this.indexBytes + this.queue.memoryBytes) / Math.max(1, this.fps.size);
  }

  private fingerprint(s: Value[]): [number, number] {
    return stateFingerprint(this.model, s);
  }

  run(): CheckResult {
    const start = Date.now();
    try {
      const early = this.begin(start);
      if (early) return early;
      this.search(start);
      return this.complete(start);
    } catch (err) {
      return this.stopped(start, err);
    } finally {
      this.release();
    }
  }

  /**
   * run() with the states expanded by worker threads (see parallel.ts), with the same result; their
   * Print lines go to print. Not for temporal properties, onEdge, onState or maxDepth.
   */
  async runParallel(pool: WorkerPool, print: (line: string) => void): Promise<CheckResult> {
    const start = Date.now();
    this.raw = true;
    try {
      const early = this.begin(start);
      if (early) return early;
      await this.searchParallel(start, pool, print);
      return this.complete(start);
    } catch (err) {
      return this.stopped(start, err);
    } finally {
      this.release();
    }
  }

  /** Deletes the files of the queue and of the fingerprints. */
  private release(): void {
    this.queue.close();
    this.fps.close();
  }

  /** Whether the queue holds states as bytes only (the parallel search). */
  private raw = false;
  private readonly outDegree = new OutDegree();
  /** States sent to the workers and not integrated yet: on the queue, as far as the figures go. */
  private inFlight = 0;

  /** Checks the assumptions, then computes the initial states; a result if the run ends there. */
  private begin(start: number): CheckResult | undefined {
    const m = this.model;
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
    // TLC ends a run without a next-state action here: a success if there is no state to expand
    if (!this.model.hasNext && distinct > 0) {
      return this.finish(start, {
        verdict: 'evaluation error',
        exitCode: 75,
        message: 'No next state actions defined to generate successor states from.',
        ...nullStats,
      });
    }
    return undefined;
  }

  /** After the search: the temporal properties, if any, then success. */
  private complete(start: number): CheckResult {
    let livenessSeconds: number | undefined;
    if (this.live) {
      const live = this.checkLiveness(this.live);
      if (live.violation) return this.finish(start, live.violation);
      livenessSeconds = live.seconds;
    }
    const outDegree = this.outDegree.summary();
    return this.finish(start, {
      verdict: 'success',
      exitCode: 0,
      ...this.stats(),
      ...(outDegree ? { outDegree } : {}),
      ...(livenessSeconds !== undefined ? { livenessSeconds } : {}),
    });
  }

  /** The result of a run that a Stop or an evaluation error ended; other exceptions are thrown on. */
  private stopped(start: number, thrown: unknown): CheckResult {
    if (thrown instanceof Stop) return this.finish(start, this.stopResult(thrown));
    const err = asEvalError(thrown);
    if (!(err instanceof EvalError)) throw err;
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

  /** The state being explored, and (in the sequential search) its values. */
  private current: { id: number } | null = null;
  private expanding: Value[] | null = null;
  /** While a trace is rebuilt by taking its steps again: its states so far. */
  private rebuilt: Value[][] | null = null;
  /** The trace being shown, whose states an ALIAS is evaluated on. */
  shownTrace: readonly Value[][] | null = null;
  /** TLCExt's CounterExample while a violation is reported. */
  counterExample: Value | null = null;

  get vars(): readonly string[] {
    return this.model.vars;
  }

  /**
   * TLCExt's Trace (`TLCExt#getTrace`): the behaviour to s, where s is a state of the trace being
   * shown, an initial state, the state being explored or one of its successors.
   */
  behaviourTo(s: Value[]): Value[][] {
    const shown = this.shownTrace?.indexOf(s) ?? -1;
    if (shown >= 0) return this.shownTrace!.slice(0, shown + 1);
    const rebuilt = this.rebuilt;
    if (rebuilt) return rebuilt[rebuilt.length - 1] === s ? rebuilt.slice() : [...rebuilt, s];
    if (!this.current) return [s];
    const states = this.trace(this.current.id).map((t) => t.state);
    if (s !== this.expanding) states.push(s);
    return states;
  }
  /** The initial state being checked, for errors met before the search starts. */
  private currentInit: Value[] | null = null;

  /** The run's counters as TLCGet reads them while it runs. */
  get counters(): RunCounters {
    return { ...this.stats(), level: this.level };
  }

  /** The states generated, with the intermediate states of \cdot steps (TLC counts them). */
  private get generatedStates(): number {
    return this.generated + this.model.compiler.composedStates;
  }

  private stats(): Pick<CheckResult, 'distinctStates' | 'generatedStates' | 'statesLeftOnQueue' | 'depth'> {
    return {
      distinctStates: this.fps.size,
      generatedStates: this.generatedStates,
      statesLeftOnQueue: this.queue.size + this.inFlight,
      // TLC's depth is at least 1 (`ConcurrentTLCTrace#getLevel`), 0 when no state was generated
      // (`ModelChecker#printSummary`)
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
    try {
      this.enumerateInitialStates();
    } catch (err) {
      throw asInitialStateError(err);
    }
  }

  private enumerateInitialStates(): void {
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
          if (this.raw) this.queue.pushRaw({ id, level: 1, bytes: encodeState(s) });
          else this.queue.push({ id, level: 1, s });
          this.opts.onState?.(id, s, true);
          this.live?.initial(id);
        }
      }
      this.level = 0;
      if (!inModel || fresh) {
        if (this.opts.onViolation) this.reportInitialViolations(s);
        else this.checkInvariants(s, -1);
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

  /**
   * Stops at the first invariant (in cfg order) that state violates or fails to evaluate; from is its
   * predecessor, -1 for an initial state (whose evaluation errors end the run as any other there).
   */
  private checkInvariants(state: Value[], from: number, parent?: Value[]): void {
    const invariants = this.model.invariants;
    const failed = firstFailure(invariants, (inv) => inv.check(state, parent));
    if (failed.index < 0) return;
    const { name } = invariants[failed.index]!;
    if (!('thrown' in failed)) return this.violated(invariantStop(name, state, from));
    if (from < 0) throw failed.thrown;
    throw evaluationStop('invariant', name, failed.thrown, state, from);
  }

  /**
   * Under -continue, TLC checks every invariant of an initial state and reports each one violated
   * (`DoInitFunctor`); an evaluation error still ends the run.
   */
  private reportInitialViolations(state: Value[]): void {
    for (const inv of this.model.invariants) {
      if (!inv.check(state)) this.violated(invariantStop(inv.name, state, -1));
    }
  }

  /** Stops at the first implied action property the step from s to succ violates or fails to evaluate. */
  private checkActions(s: Value[], succ: Value[], from: number): void {
    const actions = this.model.impliedActions;
    const failed = firstFailure(actions, (p) => p.check(s, succ));
    if (failed.index < 0) return;
    const p = actions[failed.index]!;
    if ('thrown' in failed) throw evaluationStop('action property', p.loc, failed.thrown, succ, from);
    this.violated(actionStop(p, succ, from));
  }

  /** A violation ends the run, or under -continue is reported and the search goes on. */
  private violated(stop: Stop): void {
    const { onViolation } = this.opts;
    if (!onViolation) throw stop;
    onViolation(this.stopResult(stop));
  }

  private search(start: number): void {
    this.currentInit = null;
    const m = this.model;
    const { onEdge, maxDepth } = this.opts;
    const next = onEdge ? m.labelledNext() : m.next;
    const progress = this.progressMeter(start);
    const t: Value[] = new Array(this.n);
    const live = this.live;
    for (let item = this.queue.shift(); item; item = this.queue.shift()) {
      this.current = item;
      this.expanding = item.s;
      if (maxDepth !== undefined && item.level >= maxDepth) continue;
      const s = item.s;
      const before = this.generatedStates;
      let unseen = 0;
      const c = this.ctx(s, t, 0);
      this.level = item.level;
      // TLC evaluates the temporal properties' predicates once a state's successors are queued
      // (`LiveCheck#addNextState`): an error there ends the run after them, with exit 255.
      let liveError: unknown = undefined;
      if (live) {
        try {
          live.begin(item.id, s);
        } catch (err) {
          liveError = err;
        }
      }
      this.successors.from(s);
      next(c, () => {
        this.generated++;
        this.level = item.level + 1;
        const succ = completeSuccessor(m, t);
        const label = onEdge ? this.currentLabel(s, succ) : undefined;
        const inside = inModel(m, s, succ);
        let fresh = false;
        let id = -1;
        if (inside) {
          const [hi, lo] = this.successors.of(succ);
          const existing = this.fps.put(hi, lo, this.fps.size);
          fresh = existing < 0;
          id = fresh ? this.fps.size - 1 : existing;
          if (fresh) {
            unseen++;
            this.parent.push(item.id);
            if (item.level + 1 > this.maxLevel) this.maxLevel = item.level + 1;
            this.opts.onState?.(id, succ, false);
          }
          if (onEdge) onEdge(item.id, id, label!);
          if (live && liveError === undefined) {
            try {
              live.step(id, succ);
            } catch (err) {
              liveError = err;
            }
          }
        }
        if (!inside || fresh) this.checkInvariants(succ, item.id, s);
        this.checkActions(s, succ, item.id);
        if (fresh) this.queue.push({ id, level: item.level + 1, s: succ });
        this.level = item.level;
      });
      // A state whose \cdot steps reached intermediate states only is not deadlocked (TLC's).
      if (this.generatedStates === before && m.checkDeadlock) throw deadlockStop(item.id);
      this.outDegree.add(unseen);
      if (live && liveError === undefined) {
        try {
          live.end(item.id);
        } catch (err) {
          liveError = err;
        }
      }
      if (liveError !== undefined) throw livenessFailure(liveError);
      progress.tick();
    }
    this.current = null;
    this.expanding = null;
  }

  /**
   * search() with the states expanded by worker threads: batches leave the queue in order, and
   * their results are integrated in that order (see parallel.ts).
   */
  private async searchParallel(
    start: number,
    pool: WorkerPool,
    print: (line: string) => void,
  ): Promise<void> {
    this.currentInit = null;
    const progress = this.progressMeter(start);
    const batch = new StateWriter();
    const inFlight: Dispatched[] = [];
    for (;;) {
      while (inFlight.length < pool.capacity && this.queue.size > 0)
        inFlight.push(this.dispatch(pool, batch));
      const next = inFlight.shift();
      if (!next) break;
      this.integrate(next, await next.result, { pool, print, progress });
    }
    this.current = null;
  }

  /** Sends the next states of the queue to a worker: their number, then each one's level, length and bytes. */
  private dispatch(pool: WorkerPool, batch: StateWriter): Dispatched {
    const n = pool.batchSize(this.queue.size);
    const ids = new Int32Array(n);
    const levels = new Int32Array(n);
    this.inFlight += n;
    batch.reset();
    batch.varint(n);
    for (let i = 0; i < n; i++) {
      const item = this.queue.shiftRaw()!;
      ids[i] = item.id;
      levels[i] = item.level;
      batch.varint(item.level);
      batch.varint(item.bytes.length);
      batch.raw(item.bytes);
    }
    return { ids, levels, ...pool.expand(batch.view().slice().buffer) };
  }

  /** A batch's result, state by state, by search()'s rules: a fresh successor is recorded and queued. */
  private integrate(
    batch: Dispatched,
    result: BatchResult,
    { pool, print, progress }: { pool: WorkerPool; print: (line: string) => void; progress: ProgressMeter },
  ): void {
    const m = this.model;
    const r = new StateReader(new Uint8Array(result.ops));
    const fps = new Int32Array(result.fps);
    let f = 0;
    const bytes = () => r.take(r.varint());
    const state = (b: Uint8Array) => decodeState(b, this.loadStrings);
    for (let k = 0; k < batch.ids.length; k++) {
      const from = batch.ids[k]!;
      // TLCGet("level") as search() leaves it, should the run stop here (a trace is then rebuilt).
      const itemLevel = batch.levels[k]!;
      const level = itemLevel + 1;
      this.level = itemLevel;
      this.current = { id: from };
      this.inFlight--;
      const before = this.generated;
      let unseen = 0;
      let id = -1;
      let fresh = false;
      /** Whether the successor's invariants count: it is new, or outside the model. */
      let checked = false;
      for (let op = r.varint() as Op; op !== Op.End; op = r.varint() as Op) {
        switch (op) {
          case Op.Generated:
            this.generated++;
            this.level = level;
            fresh = false;
            break;
          case Op.OutOfModel:
            checked = true;
            break;
          case Op.InModel:
          case Op.Known: {
            const hi = fps[f++]!;
            const lo = fps[f++]!;
            const existing = this.fps.put(hi, lo, this.fps.size);
            fresh = existing < 0;
            checked = fresh;
            if (!fresh) break;
            if (op === Op.Known)
              throw new TlaError('Internal error: a worker took a new state as known.', 255);
            id = this.fps.size - 1;
            unseen++;
            this.parent.push(from);
            if (level > this.maxLevel) this.maxLevel = level;
            pool.found(hi, lo, batch.worker);
            break;
          }
          case Op.Print:
            print(result.texts[r.varint()]!);
            break;
          case Op.InvariantPrint: {
            const line = result.texts[r.varint()]!;
            if (checked) print(line);
            break;
          }
          case Op.InvariantViolated: {
            const inv = m.invariants[r.varint()]!;
            const succ = bytes();
            if (checked) throw invariantStop(inv.name, state(succ), from);
            break;
          }
          case Op.InvariantError: {
            // The error counts where search() meets it: invariants of a checked successor.
            const err = evalError(result.errors[r.varint()]!);
            const inv = m.invariants[r.varint()]!;
            const succ = bytes();
            if (checked) throw evaluationStop('invariant', inv.name, err, state(succ), from);
            break;
          }
          case Op.EncodeError: {
            // The error counts where search() meets it: bytes of a new successor.
            const err = evalError(result.errors[r.varint()]!);
            if (fresh) throw err;
            break;
          }
          case Op.ActionViolated: {
            const p = m.impliedActions[r.varint()]!;
            throw actionStop(p, state(bytes()), from);
          }
          case Op.ActionError: {
            const err = evalError(result.errors[r.varint()]!);
            const p = m.impliedActions[r.varint()]!;
            throw evaluationStop('action property', p.loc, err, state(bytes()), from);
          }
          case Op.State: {
            const succ = bytes();
            if (fresh) this.queue.pushRaw({ id, level, bytes: succ });
            break;
          }
          case Op.Error: {
            const err = result.errors[r.varint()]!;
            this.level = err.level;
            throw evalError(err);
          }
        }
      }
      this.level = itemLevel;
      if (this.generated === before && m.checkDeadlock) throw deadlockStop(from);
      this.outDegree.add(unseen);
      progress.tick();
    }
  }

  /** TLC's progress line every progressSeconds (the first after 3 s), while states are explored. */
  private progressMeter(start: number): ProgressMeter {
    const { progress } = this.opts;
    const progressMs = (this.opts.progressSeconds ?? 60) * 1000;
    let nextProgress = start + Math.min(3000, progressMs);
    let lastGenerated = 0;
    let lastDistinct = 0;
    let lastTime = start;
    let explored = 0;
    return {
      tick: () => {
        if (!progress || (++explored & 1023) !== 0) return;
        const now = Date.now();
        if (now < nextProgress) return;
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
      },
    };
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
    const outer = this.rebuilt;
    const rebuilt: Value[][] = [];
    this.rebuilt = rebuilt;
    try {
      const fps = this.fps.fingerprintsOf(ids);
      let state = this.findInit(this.matches(fps.get(ids[0]!)!));
      const out: TraceState[] = [{ state }];
      for (let k = 1; k < ids.length; k++) {
        rebuilt.push(state);
        const step = this.findSuccessor(state, this.matches(fps.get(ids[k]!)!));
        if (!step) throw new TlaError(`Internal error: could not rebuild the trace at step ${k + 1}.`, 255);
        out.push(step);
        state = step.state;
      }
      return out;
    } finally {
      this.rebuilt = outer;
    }
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

  /** The first successor of s that matches, labelled with its action (its \cdot steps not counted). */
  private findSuccessor(s: Value[], match: (succ: Value[]) => boolean): TraceState | undefined {
    const t: Value[] = new Array(this.n);
    let found: TraceState | undefined;
    const { compiler } = this.model;
    const composed = compiler.composedStates;
    try {
      this.model.labelledNext()(this.ctx(s, t, 0), () => {
        const succ = t.slice();
        if (match(succ)) {
          found = { state: succ, action: this.currentLabel(s, succ) };
          throw FOUND;
        }
      });
    } catch (err) {
      if (err !== FOUND) throw err;
    } finally {
      compiler.composedStates = composed;
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

interface ProgressMeter {
  /** Counts a state explored; prints the progress line when it is due. */
  tick(): void;
}

function invariantStop(name: string, state: Value[], from: number): Stop {
  const initial = from < 0;
  return new Stop({
    verdict: 'invariant violated',
    exitCode: 12,
    violated: name,
    message: `Invariant ${name} is violated${initial ? ' by the initial state:' : '.'}`,
    ...(initial ? nullStats : {}),
    traceTo: from,
    extra: { state },
  });
}

function actionStop(p: NamedCheck<ActionPred>, state: Value[], from: number): Stop {
  return new Stop({
    verdict: 'property violated',
    exitCode: 13,
    violated: p.name,
    propertyKind: 'action',
    message: `Action property ${p.loc} is violated.`,
    traceTo: from,
    extra: { state },
  });
}

/**
 * An invariant or implied action property that fails to evaluate on a successor: TLC's
 * TLC_INVARIANT_EVALUATION_FAILED (exit 76) and TLC_ACTION_PROPERTY_EVALUATION_FAILED (exit 13), with
 * the behaviour up to the successor. Other exceptions are thrown on.
 */
function evaluationStop(
  kind: 'invariant' | 'action property',
  name: string,
  thrown: unknown,
  state: Value[],
  from: number,
): Stop {
  const err = asEvalError(thrown);
  if (!(err instanceof EvalError)) throw err;
  return new Stop({
    verdict: 'evaluation error',
    exitCode: kind === 'invariant' ? 76 : 13,
    message: `Evaluating ${kind} ${name} failed.\n${err.message}`,
    traceTo: from,
    extra: { state },
  });
}

/** An evaluation error in a temporal property's predicates: TLC's exit status there is 255. */
function livenessFailure(thrown: unknown): EvalError {
  const err = asEvalError(thrown);
  if (!(err instanceof EvalError)) throw err;
  const failure = new EvalError(err.message, 255);
  if (err.location !== undefined) failure.location = err.location;
  return failure;
}

function deadlockStop(from: number): Stop {
  return new Stop({ verdict: 'deadlock', exitCode: 11, message: 'Deadlock reached.', traceTo: from });
}

/** A worker's evaluation error, as it was thrown there. */
function evalError(info: ErrorInfo): EvalError {
  const err = new EvalError(info.message, info.exitCode);
  if (info.location !== undefined) err.location = info.location;
  return err;
}

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
