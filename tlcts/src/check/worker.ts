/**
 * A worker thread of the parallel search (see parallel.ts): it loads the model and expands each
 * batch of states it is sent, in order, answering with the operations of parallel.ts's Op.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Frame, ROOT_FRAME } from '../eval/runtime.js';
import { StateReader, StateWriter, decodeState } from '../values/codec.js';
import { EvalError } from '../values/errors.js';
import { internedCount, type Value } from '../values/value.js';
import { IntColumn } from '../util/int-column.js';
import { slotOf } from './fpset.js';
import { loadModel, type Model } from './model.js';
import {
  LOADED,
  Op,
  type BatchMessage,
  type BatchResult,
  type ErrorInfo,
  type WorkerData,
} from './parallel.js';
import { makeHost } from './run.js';
import { SuccessorFingerprints, asEvalError, completeSuccessor, firstFailure, inModel } from './successor.js';

/** The KnownCache has 2^16 slots (512 KiB), which stay in a core's cache: more would cost more in misses than they save. */
const KNOWN_BITS = 16;

/** Thrown to end a state's expansion at an event that stops the search. */
const STOPPED = Symbol('stopped');

/**
 * Fingerprints the main thread has, or will have when it reaches this worker's next result (it
 * takes results in order): those the main thread found new and told of, and those this worker
 * sent a successor's bytes for. A successor with one of them is not new there, so its bytes and
 * invariants are not needed. One fingerprint a slot, the last stored: a lossy cache, never a
 * false hit.
 */
class KnownCache {
  private readonly slots = new Int32Array(2 << KNOWN_BITS);
  private readonly mask = (1 << KNOWN_BITS) - 1;

  has(hi: number, lo: number): boolean {
    const at = slotOf(hi, lo, this.mask) * 2;
    return this.slots[at] === hi && this.slots[at + 1] === lo && (hi | lo) !== 0;
  }

  add(hi: number, lo: number): void {
    const at = slotOf(hi, lo, this.mask) * 2;
    this.slots[at] = hi;
    this.slots[at + 1] = lo;
  }
}

class Expander {
  /** TLCGet("level") while evaluating. */
  level = 0;
  private readonly ops = new StateWriter();
  private readonly fps = new IntColumn();
  private readonly scratch = new StateWriter();
  private texts: string[] = [];
  private errors: ErrorInfo[] = [];
  /** Print lines count only while a batch is expanded (the main thread printed those of loading). */
  private printOp: Op.Print | Op.InvariantPrint | null = null;
  private readonly known = new KnownCache();
  private model!: Model;
  private successors!: SuccessorFingerprints;
  /** Strings interned while loading the model (see StateReader). */
  private loadStrings = 0;

  load(data: WorkerData): void {
    const host = makeHost(
      (line) => this.print(line),
      () => ({ level: this.level }),
    );
    this.model = loadModel({ tlaFile: data.tlaFile, cfgFile: data.cfgFile, host });
    this.successors = new SuccessorFingerprints(this.model);
    this.loadStrings = internedCount();
  }

  /** The operations for a batch's states. */
  batch({ found, states }: BatchMessage): BatchResult {
    const fps = new Int32Array(found);
    for (let i = 0; i < fps.length; i += 2) this.known.add(fps[i]!, fps[i + 1]!);
    const start = performance.now();
    this.ops.reset();
    this.fps.clear();
    this.texts = [];
    this.errors = [];
    this.printOp = Op.Print;
    const r = new StateReader(new Uint8Array(states));
    let expanded = 0;
    for (let n = r.varint(); n > 0; n--) {
      const level = r.varint();
      expanded++;
      if (!this.expand(decodeState(r.take(r.varint()), this.loadStrings), level)) break;
    }
    this.printOp = null;
    return {
      ops: this.ops.view().slice().buffer,
      fps: this.fps.view().slice().buffer,
      texts: this.texts,
      errors: this.errors,
      expanded,
      ms: performance.now() - start,
    };
  }

  private print(line: string): void {
    if (this.printOp === null) return;
    this.ops.varint(this.printOp);
    this.ops.varint(this.texts.push(line) - 1);
  }

  /** The operations for a state's successors, as the sequential search meets them; false at a stop. */
  private expand(s: Value[], level: number): boolean {
    const m = this.model;
    const ops = this.ops;
    const t: Value[] = new Array(m.vars.length);
    this.level = level;
    this.successors.from(s);
    try {
      m.next({ s, t, f: new Frame(0, ROOT_FRAME) }, () => {
        ops.varint(Op.Generated);
        this.level = level + 1;
        const succ = completeSuccessor(m, t);
        if (!inModel(m, s, succ)) {
          ops.varint(Op.OutOfModel);
          this.checkInvariants(succ, s);
          this.checkActions(s, succ);
        } else {
          const [hi, lo] = this.successors.of(succ);
          const known = this.known.has(hi, lo);
          ops.varint(known ? Op.Known : Op.InModel);
          this.fps.push(hi);
          this.fps.push(lo);
          if (!known) this.checkInvariants(succ, s);
          this.checkActions(s, succ);
          if (!known) this.store(succ, hi, lo);
        }
        this.level = level;
      });
    } catch (err) {
      if (err === STOPPED) return false;
      this.error(Op.Error, err);
      return false;
    }
    ops.varint(Op.End);
    return true;
  }

  /** The first invariant the state violates, or the error evaluating one; the search goes on. */
  private checkInvariants(succ: Value[], s: Value[]): void {
    this.printOp = Op.InvariantPrint;
    const failed = firstFailure(this.model.invariants, (inv) => inv.check(succ, s));
    this.printOp = Op.Print;
    if (failed.index < 0) return;
    if ('thrown' in failed) this.withError(Op.InvariantError, failed.index, failed.thrown, succ);
    else this.withState(Op.InvariantViolated, failed.index, succ);
  }

  /** The first implied action property the step violates, or fails to evaluate, stops the search. */
  private checkActions(s: Value[], succ: Value[]): void {
    const failed = firstFailure(this.model.impliedActions, (p) => p.check(s, succ));
    if (failed.index < 0) return;
    if ('thrown' in failed) this.withError(Op.ActionError, failed.index, failed.thrown, succ);
    else this.withState(Op.ActionViolated, failed.index, succ);
    throw STOPPED;
  }

  private withError(
    op: Op.InvariantError | Op.ActionError,
    index: number,
    err: unknown,
    succ: Value[],
  ): void {
    this.error(op, err);
    this.ops.varint(index);
    this.bytes(this.encode(succ));
  }

  /** The successor's bytes for the queue, or why they cannot be written. */
  private store(succ: Value[], hi: number, lo: number): void {
    let bytes: Uint8Array;
    try {
      bytes = this.encode(succ);
    } catch (err) {
      this.error(Op.EncodeError, err);
      return;
    }
    this.ops.varint(Op.State);
    this.bytes(bytes);
    this.known.add(hi, lo);
  }

  private withState(op: Op.InvariantViolated | Op.ActionViolated, index: number, succ: Value[]): void {
    const bytes = this.encode(succ);
    this.ops.varint(op);
    this.ops.varint(index);
    this.bytes(bytes);
  }

  private encode(succ: Value[]): Uint8Array {
    this.scratch.reset();
    this.scratch.state(succ);
    return this.scratch.view();
  }

  private bytes(b: Uint8Array): void {
    this.ops.varint(b.length);
    this.ops.raw(b);
  }

  /** An evaluation error as an operation; any other exception is the worker's failure. */
  private error(op: Op.Error | Op.InvariantError | Op.ActionError | Op.EncodeError, err: unknown): void {
    const e = asEvalError(err);
    if (!(e instanceof EvalError)) throw e;
    this.ops.varint(op);
    this.ops.varint(
      this.errors.push({
        message: e.message,
        exitCode: e.exitCode,
        ...(e.location !== undefined ? { location: e.location } : {}),
        level: this.level,
      }) - 1,
    );
  }
}

const expander = new Expander();
expander.load(workerData as WorkerData);
parentPort!.postMessage(LOADED);
parentPort!.on('message', (batch: BatchMessage) => {
  const result = expander.batch(batch);
  parentPort!.postMessage(result, [result.ops, result.fps]);
});
