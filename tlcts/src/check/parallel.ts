/**
 * The parallel search (TLC's -workers N), exact: it gives the sequential search's results, figures,
 * counterexample and Print output, in the same order.
 *
 * The main thread keeps the fingerprint set, the parent links and the queue, whose states stay
 * bytes there. It sends them, in the order they leave the queue, in batches to N worker threads
 * (worker.ts), which load the same model and expand each state: every successor with its
 * fingerprint, whether it is in the model, the first invariant it violates, and its bytes, with the
 * Print lines and errors in the order they happened (the operations below). The main thread takes
 * the results strictly in the order the states left the queue and applies the sequential search's
 * rules (Explorer.integrate): whether a successor is new, and so whether its invariants count, is
 * decided there. Work sent beyond the first event that stops the search is discarded. With each
 * batch, a worker is told the fingerprints found new since its last one: it skips the bytes and
 * invariants of successors the main thread is sure to have by then.
 *
 * Strings made at run time may be interned in a different order by each thread: as with TLC's
 * workers, the order in which sets and functions of such strings are enumerated (CHOOSE, Print,
 * the order of successors, a trace's states) is then that of the thread that expands the state,
 * or shows the trace, rather than the order one thread would have met them in (see codec.ts).
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { TlaError } from '../errors.js';
import { forEachChild } from '../syntax/walk.js';
import type { Expr, Unit } from '../syntax/ast.js';
import type { ExploreOptions } from './result.js';
import type { Model } from './model.js';
import { IntColumn } from '../util/int-column.js';

/** The operations of a batch's result, as varints; a state's end with End. */
export const enum Op {
  /** A successor was generated. */
  Generated,
  /** It is outside the model (a CONSTRAINT or ACTION_CONSTRAINT is false). */
  OutOfModel,
  /** It is in the model, with the next fingerprint of the result; a State or EncodeError follows. */
  InModel,
  /** In the model, with the next fingerprint, which the main thread has (see worker.ts's KnownCache). */
  Known,
  /** A Print line (a text index). */
  Print,
  /** A Print line of the successor's invariants: shown only if they are checked (a new state). */
  InvariantPrint,
  /** The first invariant the successor violates (its index, then the state's length and bytes). */
  InvariantViolated,
  /** An error evaluating an invariant of the successor (its index, an error index, the state). */
  InvariantError,
  /** The first implied action property the step violates (its index, the state): the state's end. */
  ActionViolated,
  /** An error evaluating an implied action property (its index, an error index, the state): the end. */
  ActionError,
  /** The successor's bytes, for the queue (length, bytes). */
  State,
  /** The successor cannot be stored (an error index). */
  EncodeError,
  /** An evaluation error that ends the state (an error index). */
  Error,
  /** The state's end. */
  End,
}

/** An evaluation error as a worker sends it, with TLCGet("level") when it happened. */
export interface ErrorInfo {
  message: string;
  exitCode: number;
  location?: string;
  level: number;
}

/** What a worker is sent: states to expand, and fingerprints of states the main thread has found. */
export interface BatchMessage {
  /** The fingerprints (hi, lo) found new since the worker's last batch. */
  found: ArrayBuffer;
  /** The states: their number, then each one's level, length and bytes (see Explorer.dispatch). */
  states: ArrayBuffer;
}

/** A worker's result for one batch. */
export interface BatchResult {
  /** The operations of each state in the batch, up to the first state that stops the search. */
  ops: ArrayBuffer;
  /** The fingerprints (hi, lo) of the InModel and Known operations, in order. */
  fps: ArrayBuffer;
  texts: string[];
  errors: ErrorInfo[];
  /** The states expanded, and the milliseconds it took. */
  expanded: number;
  ms: number;
}

/** What a worker is started with. */
export interface WorkerData {
  tlaFile: string;
  cfgFile: string;
}

/** Batches in flight per worker: one being expanded, one waiting. */
const BATCHES_PER_WORKER = 2;
/**
 * What a batch should take a worker, in milliseconds: much more than its messages and the main
 * thread's answer (a batch of cheap states is large), little enough to share a narrow level.
 */
const BATCH_MS = 10;
const MAX_BATCH_STATES = 8192;

/** A worker thread ended abnormally (it crashed or ran out of memory): the run ends. */
export class WorkerFailure extends TlaError {
  constructor(message: string) {
    super(`a worker thread of the parallel search failed: ${message}`, 255);
  }
}

/** The heap limit of each worker thread by default: together they may use half of the memory. */
export function defaultWorkerHeapMb(workers: number): number {
  return Math.floor(os.totalmem() / 2 / workers / 2 ** 20);
}

/** A worker's first message: its model is loaded (the native parser is done). */
export const LOADED = 'loaded';

interface Pending {
  resolve: (r: BatchResult) => void;
  reject: (e: Error) => void;
}

/** The worker threads, each expanding the batches it is sent in order. */
export class WorkerPool {
  private readonly workers: Worker[] = [];
  /** Each worker's batches in flight, oldest first. */
  private readonly pending: Pending[][] = [];
  /** For each worker, the fingerprints (hi, lo) the others found new since its last batch. */
  private readonly unsent: IntColumn[] = [];
  /** Milliseconds a state takes to expand, on average over the last batches. */
  private msPerState = 0.05;
  private failure: WorkerFailure | null = null;
  private closing = false;
  /** Each worker's model loaded (or the worker gone): terminating one mid-parse aborts the process. */
  private readonly loaded: Promise<void>[] = [];

  constructor(data: WorkerData, count: number, heapMb: number) {
    for (let i = 0; i < count; i++) {
      // The stack of the tlcts command's thread (bin/tlcts.js): deep recursion evaluates alike.
      const w = new Worker(new URL('./worker.js', import.meta.url), {
        workerData: data,
        resourceLimits: { stackSizeMb: 256, maxOldGenerationSizeMb: heapMb },
      });
      const queue: Pending[] = [];
      let markLoaded!: () => void;
      this.loaded.push(new Promise((resolve) => (markLoaded = resolve)));
      w.on('message', (r: BatchResult | typeof LOADED) => {
        if (r === LOADED) return markLoaded();
        if (r.expanded > 0) this.msPerState = 0.8 * this.msPerState + (0.2 * r.ms) / r.expanded;
        queue.shift()?.resolve(r);
      });
      w.on('error', (err: Error & { code?: string }) =>
        this.fail(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `it ran out of memory (its heap is limited to ${heapMb} MiB; see -workerHeap)`
            : err.message,
        ),
      );
      w.on('exit', (code) => {
        markLoaded();
        if (!this.closing) this.fail(`it exited with code ${code}`);
      });
      this.workers.push(w);
      this.pending.push(queue);
      this.unsent.push(new IntColumn());
    }
  }

  /** Batches to keep in flight. */
  get capacity(): number {
    return this.workers.length * BATCHES_PER_WORKER;
  }

  /**
   * How many states the next batch takes from a queue of that many: about BATCH_MS of work, and
   * no more than a share that leaves some for every batch in flight.
   */
  batchSize(queued: number): number {
    const byTime = Math.max(1, Math.round(BATCH_MS / this.msPerState));
    return Math.min(MAX_BATCH_STATES, byTime, Math.ceil(queued / this.capacity));
  }

  /**
   * A state the main thread found new in a result of worker `by`: the others are told with their
   * next batch, so that they need not send its bytes nor check its invariants when they meet it.
   */
  found(hi: number, lo: number, by: number): void {
    for (let i = 0; i < this.unsent.length; i++) {
      if (i === by) continue;
      this.unsent[i]!.push(hi);
      this.unsent[i]!.push(lo);
    }
  }

  /**
   * Sends states to expand (see Explorer.dispatch) to the worker with the fewest batches in flight;
   * its result to come, and which worker it is.
   */
  expand(states: ArrayBuffer): { worker: number; result: Promise<BatchResult> } {
    let best = 0;
    for (let i = 1; i < this.workers.length; i++)
      if (this.pending[i]!.length < this.pending[best]!.length) best = i;
    const found = this.unsent[best]!.view().slice().buffer;
    this.unsent[best]!.clear();
    const result = new Promise<BatchResult>((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.pending[best]!.push({ resolve, reject });
      const message: BatchMessage = { found, states };
      this.workers[best]!.postMessage(message, [found, states]);
    });
    // Awaited in order; a batch after the one that fails must not be an unhandled rejection.
    result.catch(() => undefined);
    return { worker: best, result };
  }

  /** Ends the threads; work in flight is dropped. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map(async (w, i) => (await this.loaded[i], w.terminate())));
  }

  private fail(message: string): void {
    this.failure ??= new WorkerFailure(message);
    for (const queue of this.pending) for (const p of queue.splice(0)) p.reject(this.failure);
  }
}

/** TLCGet keys whose values are the main thread's (the run's counters, its settings and its clock). */
const RUN_COUNTERS = new Set(['distinct', 'generated', 'queue', 'diameter', 'stats', 'duration', 'config']);
const REGISTER_WRITERS = new Set(['TLCSet', 'TLCGetAndSet']);
const REGISTER_READERS = new Set(['TLCGet', 'TLCGetOrDefault']);
/** TLCExt's Trace: the behaviour to a state, as the one thread that found it rebuilds it. */
const HISTORY_READERS = new Set(['Trace']);
/** Random draws: a constant definition drawing one is drawn once for the run, by one thread. */
const RANDOM = new Set(['RandomElement', 'JavaTime']);
/** Action composition, whose intermediate states the thread taking the steps counts as generated. */
const COMPOSITION = '\\cdot';

/**
 * Why the parallel search would not give the sequential search's results, or null when it does.
 * TLCGet of the run's counters and TLCSet's registers are found in the modules' text.
 */
export function sequentialReason(
  model: Model,
  opts: ExploreOptions & { continueAfterViolations?: boolean },
): string | null {
  if (model.liveness) return 'the temporal properties are checked on a behaviour graph built by one thread';
  if (opts.onEdge || opts.onState) return 'the state graph is recorded (-dump) as one thread finds it';
  if (opts.maxDepth !== undefined) return 'the search is bounded by depth';
  if (opts.continueAfterViolations) return 'violations are reported as one thread meets them (-continue)';
  let reason: string | null = null;
  const visit = (e: Expr): void => {
    if (reason) return;
    if (e.kind === 'Ident' || e.kind === 'OpApp' || e.kind === 'Prefixed') {
      const key = e.kind === 'Ident' ? undefined : e.args[0];
      if (REGISTER_WRITERS.has(e.name))
        reason = `the spec uses ${e.name}, whose registers would be each worker's own`;
      else if (HISTORY_READERS.has(e.name))
        reason = `the spec uses ${e.name}, the behaviour that one thread found`;
      else if (RANDOM.has(e.name))
        reason = `the spec uses ${e.name}, whose constant definitions one thread computes once`;
      else if (e.name === COMPOSITION)
        reason = 'the spec composes actions (\\cdot), whose steps one thread counts';
      else if (REGISTER_READERS.has(e.name) && !(key && isFixedKey(key)))
        reason = `the spec reads the run's counters with ${e.name} (they would differ from one thread's)`;
    }
    if (e.kind === 'Let') {
      e.defs.forEach(visitUnit);
      visit(e.body);
    } else forEachChild(e, visit);
  };
  const visitUnit = (u: Unit): void => {
    switch (u.kind) {
      case 'OpDef':
        return visit(u.body);
      case 'FcnDef':
        u.bounds.forEach((b) => b.set && visit(b.set));
        return visit(u.body);
      case 'Instance':
        return u.subs.forEach((s) => visit(s.expr));
      case 'Assume':
        return visit(u.expr);
      case 'Module':
        return u.units.forEach(visitUnit);
    }
  };
  for (const name of model.loader.parseOrder) model.loader.module(name)?.units.forEach(visitUnit);
  return reason;
}

/** A TLCGet key whose value is the same in every thread: a register's number, or "level". */
function isFixedKey(key: Expr): boolean {
  return key.kind === 'Num' || (key.kind === 'Str' && !RUN_COUNTERS.has(key.value));
}
