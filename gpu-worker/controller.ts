/**
 * The Infer-Controller: the gate between the store and the runtimes of one worker (docs/protocol.md,
 * "Roles"). Each action of a worker in spec/DHSched.tla is one public method, the step; the loops that run
 * in production (work stream, runtime loops, sweep, heartbeat) only decide when to take them:
 *   Register(w)            `start`, and again after a lost lease once every runtime has stopped
 *   Claim(w, s, e)         `claimStep`: an assignment from the work stream (`startRuntime`, which the
 *                          conformance adapter also calls for Redeliver: an assignment delivered again); a runtime starts
 *                          (phase new) if claimed, nothing if stale
 *   Reconstruct(w, s, e)   `reconstructStep`: the new runtime restores the log up to the store's release
 *                          cursor (phase ready)
 *   ReleaseInput(w, s, e)  `releaseStep`: one store step releases one input, then the runtime renders it
 *                          and its frames go to the publisher; refused: it stops (phase stopping)
 *   ReleaseBatch(w, B)     `batchStep`: one store step releases every input waiting for each runtime of B
 *                          (one per session), each against its own generation; the release loop
 *                          (`releaseDue`) takes every runtime with input waiting and none in flight
 *   Fence(w, s, e)         `fenceStep`: a runtime whose generation is not current stops (for one session:
 *                          its superseded entry on the work stream, Revoke and Stop; the sweep goes round
 *                          every runtime, SWEEP_BATCH reads a tick)
 *   Teardown(w, s, e)      `teardownStep`: a stopped runtime is closed and frees its capacity token
 *   Emit(w, s, e)          the frames of each release, and `emitStep`: the frame a ready runtime shows now;
 *                          every frame is stamped with its generation
 * `heartbeat` renews the lease (what keeps LeaseExpire(w) from happening) and publishes load; the renewal
 * has a connection of its own, so a busy worker's releases never hold it up.
 * `runtimeTable` is rt[w]. With `autonomous: false` no loop runs: the caller takes every step (the
 * conformance adapter, conformance/adapter.ts).
 *
 * The work stream is the reliable path to the worker: what a Dispatch committed before crashing is still
 * read there. The RPCs are the fast path. Both meet in the same idempotent methods, so a generation never
 * has two runtimes. The stream is read with XREAD BLOCK on a connection of its own (`redis.duplicate()`;
 * for a Cluster that is a Cluster too, which sends the XREAD to the node of the stream's slot).
 *
 * `stop` stops every runtime as a crash would (Crash(w)): their tokens stay held and the lease is left to
 * expire, so nothing more is placed here; recovery then moves the sessions, or the worker's next
 * registration takes them back. For a gapless shutdown an operator drains the worker first (DrainWorker
 * moves its sessions).
 */
import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import client from 'prom-client';
import { z } from 'zod';
import {
  capacityTokens,
  inputsReleased,
  registry,
  runtimesGauge,
  staleRejections,
} from '../impl/common/metrics.js';
import type { HealthReply, RuntimeReply } from '../impl/rpc/proto.js';
import { StoreCode, isStoreError } from '../impl/store/codes.js';
import { cellKeys, tokenOf } from '../impl/store/keys.js';
import { ID_RULE, Id, MAX_BATCH_INPUTS, MAX_BATCH_RUNTIMES } from '../impl/store/schema.js';
import type { RedisClient } from '../impl/store/scripts.js';
import * as steps from '../impl/store/steps.js';
import type { FrameSink } from './media/publisher.js';
import type { Input, MediaFrame, RuntimeBackend, SessionRuntime } from './runtime/pipeline.js';

export interface ControllerOptions {
  store: steps.Store;
  cell: string;
  worker: string;
  capacity: number;
  /** Its gRPC address, registered for Dispatch to call; '' when it serves none. */
  addr: string;
  leaseTtlMs: number;
  /** Renewing the lease and publishing load; default a third of the TTL. */
  heartbeatMs?: number;
  /**
   * One sweep tick: the next SWEEP_BATCH runtimes revalidated (fenced: dhsched only) and woken if their log
   * holds input they were not told of.
   */
  sweepMs: number;
  backend: RuntimeBackend;
  publisher: FrameSink;
  log: Logger;
  now?: () => number;
  /**
   * True (the default): `start` runs the loops that take the steps. False: `start` only registers (once;
   * a refusal throws) and nothing runs by itself; the caller takes each step (conformance/adapter.ts).
   */
  autonomous?: boolean;
}

/** registering until the store takes the registration (again, after a lost lease); stopping from `stop`. */
export type ControllerState = HealthReply['state'];

/** Why a runtime stopped: fenced (its generation is not current), its release refused, lease lost, stop. */
export type StopReason = 'fenced' | 'lost_authority' | 'lease_lost' | 'shutdown';

/** A runtime's phase, as rt[w] of spec/DHSched.tla has it: claimed, reconstructed, stopped. */
export type RuntimePhase = 'new' | 'ready' | 'stopping';

/** One runtime of rt[w]: its generation (s, e), the last seq it released or restored, its phase. */
export interface RuntimeEntry {
  s: string;
  e: number;
  cur: number;
  ph: RuntimePhase;
}

/**
 * A manual controller between two steps: its incarnation and its runtimes (`opened`: restored, whether or
 * not stopping since). What `resume` rebuilds a controller from (the conformance adapter's prefix sharing).
 */
export interface ControllerSnapshot {
  incarnation: number;
  runtimes: {
    session: string;
    epoch: number;
    /** The incarnation that claimed it. */
    incarnation: number;
    cursor: number;
    opened: boolean;
    stopReason: StopReason | undefined;
  }[];
}

/** What a release did for one runtime: released input(s), found nothing appended, or was refused. */
export type ReleaseOutcome = 'released' | 'no_input' | 'stopped';

/** One runtime's part of a batch: what the store answered, and the inputs it released to it. */
interface SlotRelease {
  slot: RuntimeSlot;
  outcome: ReleaseOutcome;
  inputs: Input[];
}

export interface ControllerEvents {
  registered: [{ incarnation: number }];
  claimed: [{ session: string; epoch: number }];
  released: [{ session: string; epoch: number; seq: number }];
  stopped: [{ session: string; epoch: number; reason: StopReason; cursor: number }];
}

const runtimesStopped = new client.Counter({
  name: 'dhsched_runtimes_stopped_total',
  help: 'Runtimes stopped and torn down, by worker and reason (fenced, lost_authority, lease_lost, shutdown)',
  labelNames: ['worker', 'reason'] as const,
  registers: [registry],
});

const STREAM_BATCH = 256;
const STREAM_BLOCK_MS = 2000;
/** Entries handled before the stream is trimmed (it is also trimmed whenever it goes quiet). */
const ACK_EVERY = 256;
/** How often a worker that is (re)registering looks again whether it serves. */
const NOT_SERVING_PAUSE_MS = 100;
const TEARDOWN_ATTEMPTS = 5;
/** Runtimes whose generations and log lengths one sweep tick reads. */
const SWEEP_BATCH = 256;
/**
 * Runtimes one readGens of the sweep reads, the reads of a tick one after another: 256 in one script held
 * Redis 2.7 ms (its slowlog, idle, 100,000 sessions), which every push arriving meanwhile waited out.
 */
const SWEEP_READ = 64;
const backoffMs = (failures: number) => Math.min(100 * 2 ** failures, 2000);

const Count = z.coerce.number().int().positive();
const Assignment = z.object({ s: Id, e: Count });
const Superseded = z.object({ s: Id, x: Count });
/** An append batch's entry: field a, "s seq s seq ...", each session appended to with its last seq. */
const Appended = z.object({
  a: z.string().transform((a, ctx) => {
    const words = a.split(' ');
    const appended = [];
    for (let k = 0; k < words.length; k += 2) {
      const s = words[k]!;
      const q = Number(words[k + 1]);
      if (!ID_RULE.pattern.test(s) || !Number.isSafeInteger(q) || q <= 0) {
        ctx.addIssue({ code: 'custom', message: 'a is "session seq session seq ..."' });
        return z.NEVER;
      }
      appended.push({ s, q });
    }
    return appended;
  }),
});

/**
 * A work stream entry (XREAD's flat fields): an assignment (s, e), a generation (s, x) of this worker
 * superseded by a move or a close, or the inputs an append batch appended (a: each session's last seq);
 * undefined if malformed. Its kind is told by its fields first, so a valid entry costs one parse.
 */
export function workEntry(
  flat: string[],
): { s: string; e: number } | { s: string; x: number } | { a: { s: string; q: number }[] } | undefined {
  const fields = steps.streamFields(flat);
  const schema = fields['e'] !== undefined ? Assignment : fields['x'] !== undefined ? Superseded : Appended;
  const parsed = schema.safeParse(fields);
  return parsed.success ? parsed.data : undefined;
}

/** One incarnation of the worker, from its registration until its lease is lost or it stops. */
interface Life {
  readonly incarnation: number;
  over: boolean;
}

/** A kick that is not lost when it arrives before anyone waits for it. */
class Wakeup {
  private pending = false;
  private waiter: (() => void) | undefined;

  notify(): void {
    if (this.waiter) this.waiter();
    else this.pending = true;
  }

  /** Resolves on a kick (one that came since the last wait included), or after `ms` when given. */
  wait(ms?: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve();
      };
      this.waiter = done;
    });
  }
}

/** The runtime of one generation (session, epoch) and the loop that drives it. */
class RuntimeSlot {
  runtime: SessionRuntime | undefined;
  /** The last seq released by this generation; after reconstruction, the store's release cursor. */
  cursor = 0;
  /** The highest seq known to be appended (stream entries, the log length a release returns). */
  appended = 0;
  stopReason: StopReason | undefined;
  /** A release or a render of its inputs is in flight: it takes no other, and it is not torn down. */
  busy = false;
  /** Its loop's kick: it stopped, or it lost its runtime (a render failed), or a step of it failed. */
  readonly wake = new Wakeup();
  /** Resolves once the runtime has stopped and its token is freed. */
  done: Promise<void> = Promise.resolve();

  constructor(
    readonly session: string,
    readonly epoch: number,
    /** The incarnation of this worker that claimed it: its releases are checked against it. */
    readonly incarnation: number,
  ) {}

  get phase(): RuntimePhase {
    return this.stopReason ? 'stopping' : this.runtime ? 'ready' : 'new';
  }

  reply(): RuntimeReply {
    return { state: this.stopReason ? 'stopping' : 'running', epoch: this.epoch, cursor: this.cursor };
  }
}

const absent = (epoch: number): RuntimeReply => ({ state: 'absent', epoch, cursor: 0 });

export class InferController {
  readonly events = new EventEmitter<ControllerEvents>();
  readonly cell: string;
  readonly worker: string;
  readonly capacity: number;
  private readonly store: steps.Store;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly heartbeatMs: number;
  private readonly autonomous: boolean;
  private life: Life | undefined;
  private current: ControllerState = 'registering';
  private readonly runtimes = new Map<string, RuntimeSlot>();
  /** The same slots by session: deliveries and revalidations find a session's runtimes without a scan. */
  private readonly bySession = new Map<string, RuntimeSlot[]>();
  /** Claims in flight, by token: a second delivery of an assignment waits for the first. */
  private readonly starting = new Map<string, Promise<RuntimeReply>>();
  private readonly closing = new AbortController();
  private blocking: RedisClient | undefined;
  /** The lease's own store connection (autonomous): a renewal never waits behind releases and claims. */
  private leaseStore: steps.Store | undefined;
  private loops: Promise<void>[] = [];
  /** Where the sweep goes on from: a live iterator over the table (runtimes added are visited, removed skipped). */
  private sweepAt: Iterator<RuntimeSlot> | undefined;
  /**
   * Runtimes with input waiting and none of theirs in flight (autonomous): the release loop's next batch
   * takes them, one per session; those that become due while a batch is in flight go in the next one.
   */
  private readonly due = new Set<RuntimeSlot>();
  private releasing = false;

  constructor(private readonly options: ControllerOptions) {
    this.store = options.store;
    this.cell = options.cell;
    this.worker = options.worker;
    this.capacity = options.capacity;
    this.log = options.log.child({ cell: options.cell });
    this.now = options.now ?? Date.now;
    this.heartbeatMs = options.heartbeatMs ?? Math.max(1, Math.floor(options.leaseTtlMs / 3));
    this.autonomous = options.autonomous ?? true;
  }

  get state(): ControllerState {
    return this.current;
  }

  /**
   * Registers (retrying while refused), then reads the work stream, heartbeats and sweeps until `stop`.
   * Not autonomous: registers once (a refusal throws) and starts nothing.
   */
  async start(): Promise<void> {
    if (!this.autonomous) return this.register();
    const blocking = this.store.redis.duplicate();
    blocking.on('error', (err: Error) => this.log.debug({ err: err.message }, 'work stream connection'));
    this.blocking = blocking;
    const leaseRedis = this.store.redis.duplicate();
    leaseRedis.on('error', (err: Error) => this.log.debug({ err: err.message }, 'lease connection'));
    this.leaseStore = steps.openStore(leaseRedis, this.store);
    await this.register();
    this.loops = [
      this.readWorkStream(blocking),
      this.every(this.heartbeatMs, async () => void (await this.renew())),
      this.every(this.heartbeatMs, () => this.publishLoad()),
    ];
    this.loops.push(this.every(this.options.sweepMs, () => this.sweep()));
  }

  /** Stops the loops and every runtime; their tokens and the lease are left to expire (see above). */
  async stop(): Promise<void> {
    this.current = 'stopping';
    this.closing.abort();
    this.blocking?.disconnect();
    await Promise.all(this.loops);
    this.leaseStore?.redis.disconnect();
    await this.stopAll('shutdown');
  }

  /** Claim(w, s, e) and start its runtime: the stream's assignments (and Redeliver's). Idempotent. */
  startRuntime(session: string, epoch: number): Promise<RuntimeReply> {
    const key = tokenOf(session, epoch);
    const slot = this.runtimes.get(key);
    if (slot) return Promise.resolve(slot.reply());
    let starting = this.starting.get(key);
    if (!starting) {
      starting = this.claimStep(session, epoch).finally(() => this.starting.delete(key));
      this.starting.set(key, starting);
    }
    return starting;
  }

  /**
   * Claim(w, s, e): claims the generation in the store; claimed, its runtime enters the table in phase new
   * (and, autonomous, its loop starts); stale, nothing starts (the store freed the token). A generation
   * that already has a runtime here is answered without a store step.
   */
  async claimStep(session: string, epoch: number): Promise<RuntimeReply> {
    const existing = this.runtimes.get(tokenOf(session, epoch));
    if (existing) return existing.reply();
    const life = this.life;
    if (!this.serving(life)) return absent(epoch);
    const generation = { cell: this.cell, worker: this.worker, session, epoch };
    let claimed: 'claimed' | 'stale';
    try {
      claimed = await steps.claim(this.store, { ...generation, incarnation: life.incarnation });
    } catch (err) {
      if (!isStoreError(err, StoreCode.STALE_INCARNATION)) throw err;
      // another process registered as this worker: this one lost its lease and stops (not awaited:
      // stopping waits for the claims in flight, this one among them)
      void this.relapse(life, err.message);
      return absent(epoch);
    }
    if (claimed === 'stale') {
      staleRejections.inc({ worker: this.worker, step: 'claim' });
      this.log.info({ session, epoch }, 'stale assignment: not started, its token freed');
      return { state: 'stale', epoch, cursor: 0 };
    }
    if (!this.serving(life)) {
      // The lease was lost, or stop began, while claiming: this runtime never starts.
      await this.freeToken(session, epoch);
      return absent(epoch);
    }
    const slot = new RuntimeSlot(session, epoch, life.incarnation);
    this.addSlot(slot);
    runtimesGauge.set({ worker: this.worker }, this.runtimes.size);
    this.log.info({ session, epoch }, 'claimed');
    this.events.emit('claimed', { session, epoch });
    if (this.autonomous) {
      slot.done = this.run(slot).catch((err: unknown) =>
        this.log.error({ err, session, epoch }, 'runtime failed'),
      );
    }
    return slot.reply();
  }

  /**
   * Reconstruct(w, s, e): the runtime in phase new is opened and restored from the store's log up to its
   * release cursor, never from another worker; its cursor is the store's (phase ready).
   */
  async reconstructStep(session: string, epoch: number): Promise<void> {
    const slot = this.slot(session, epoch);
    if (slot.runtime) return;
    const released = await steps.readRelease(this.store, {
      cell: this.cell,
      session,
      tracedAs: { worker: this.worker, epoch },
    });
    const runtime = this.options.backend.open({ cell: this.cell, session, epoch, worker: this.worker });
    try {
      await runtime.restore(released.entries);
    } catch (err) {
      await this.closeRuntime(slot, runtime);
      throw err;
    }
    slot.runtime = runtime;
    slot.cursor = released.seq;
    slot.appended = Math.max(slot.appended, released.appended);
    this.log.info({ session, epoch, cursor: released.seq }, 'reconstructed');
  }

  /**
   * ReleaseInput(w, s, e): one store step releases input cursor + 1 (revalidating the generation), then
   * the runtime renders it and its frames go to the publisher (Emit). Refused (LOST_AUTHORITY): the
   * runtime stops. `no_input`: nothing is appended at that seq yet.
   */
  async releaseStep(session: string, epoch: number): Promise<ReleaseOutcome> {
    const [got] = await this.releaseBatch([this.slot(session, epoch)], 1);
    return this.render(got!);
  }

  /**
   * ReleaseBatch(w, B): one store step in which each runtime of B (at most one per session) releases every
   * input waiting for it, each revalidated against its own generation; then each renders its inputs.
   */
  async batchStep(runtimes: { session: string; epoch: number }[]): Promise<ReleaseOutcome[]> {
    const slots = runtimes.map((r) => this.slot(r.session, r.epoch));
    return Promise.all((await this.releaseBatch(slots, MAX_BATCH_INPUTS)).map((got) => this.render(got)));
  }

  /**
   * The store step of a batch: each slot's inputs after its cursor, at most `max`; its cursor moves past
   * what it got, and one refused stops. Rendering is the caller's (`render`), so a slow runtime holds up
   * no other runtime's next batch.
   */
  private async releaseBatch(slots: RuntimeSlot[], max: number): Promise<SlotRelease[]> {
    for (const slot of slots) {
      if (!slot.runtime)
        throw new Error(`runtime ${slot.session}/${slot.epoch} on ${this.worker} is not reconstructed`);
    }
    const results = await steps.releaseBatch(this.store, {
      cell: this.cell,
      worker: this.worker,
      max,
      runtimes: slots.map((s) => ({
        session: s.session,
        epoch: s.epoch,
        incarnation: s.incarnation,
        from: s.cursor,
      })),
    });
    let released = 0;
    const announce = this.events.listenerCount('released') > 0;
    const outcomes = slots.map((slot, k): SlotRelease => {
      const got = results[k]!;
      if (got.outcome === 'lost') {
        staleRejections.inc({ worker: this.worker, step: 'releaseInput' });
        slot.stopReason ??= 'lost_authority';
        return { slot, outcome: 'stopped', inputs: [] };
      }
      // a hint that came while the batch was in flight may name more than the log held when it ran
      slot.appended = Math.max(slot.appended, slot.cursor, got.appended);
      if (got.outcome === 'noinput') return { slot, outcome: 'no_input', inputs: [] };
      slot.cursor = got.inputs[got.inputs.length - 1]!.seq;
      released += got.inputs.length;
      if (announce)
        for (const { seq } of got.inputs)
          this.events.emit('released', { session: slot.session, epoch: slot.epoch, seq });
      return { slot, outcome: 'released', inputs: got.inputs };
    });
    if (released > 0) inputsReleased.inc({ worker: this.worker }, released);
    return outcomes;
  }

  /** The runtime renders what its batch released, in order; its frames go to the publisher (Emit). */
  private async render({ slot, outcome, inputs }: SlotRelease): Promise<ReleaseOutcome> {
    for (const input of inputs) {
      const runtime = slot.runtime;
      if (!runtime) break;
      try {
        this.options.publisher.publish(await runtime.process(input));
      } catch (err) {
        // The input stays released: a runtime rebuilt from the log up to it renders the rest of the batch.
        this.log.error(
          { err, session: slot.session, epoch: slot.epoch, seq: input.seq },
          'the runtime failed on an input; rebuilding it',
        );
        slot.runtime = undefined;
        await this.closeRuntime(slot, runtime);
        slot.runtime = await this.rebuilt(slot, input.seq).catch((rebuildErr: unknown) => {
          // its loop reconstructs it from the store, as a new one (the rest of the batch is restored)
          this.log.error({ err: rebuildErr, session: slot.session, epoch: slot.epoch }, 'rebuilding failed');
          return undefined;
        });
      }
    }
    return outcome;
  }

  /** A new runtime of the slot's generation restored from the store's log up to `seq`. */
  private async rebuilt(slot: RuntimeSlot, seq: number): Promise<SessionRuntime> {
    const { entries } = await steps.readRelease(this.store, { cell: this.cell, session: slot.session });
    const runtime = this.options.backend.open({
      cell: this.cell,
      session: slot.session,
      epoch: slot.epoch,
      worker: this.worker,
    });
    try {
      await runtime.restore(entries.slice(0, seq));
    } catch (err) {
      await this.closeRuntime(slot, runtime);
      throw err;
    }
    return runtime;
  }

  /**
   * Fence(w, s, e): reads gen[s]; unless it is (w, e, claimed) the runtime stops (phase stopping; its
   * teardown is the next step). True if it stopped it now.
   */
  async fenceStep(session: string, epoch: number): Promise<boolean> {
    const slot = this.slot(session, epoch);
    if (slot.stopReason) return false;
    const gen = await steps.readGen(this.store, {
      cell: this.cell,
      session,
      tracedAs: { worker: this.worker, epoch },
    });
    if (this.isCurrent(gen, epoch)) return false;
    void this.fence(slot, 'fenced');
    return true;
  }

  /**
   * Teardown(w, s, e): the stopped runtime is closed, then its token freed; only then it leaves the table.
   * Stopped by `stop` it keeps its token, as after a crash: its generation may still be current, and a
   * token freed then would let a commit place more on this worker than it takes back when it registers.
   */
  async teardownStep(session: string, epoch: number): Promise<void> {
    const slot = this.slot(session, epoch);
    const reason = slot.stopReason;
    if (!reason) throw new Error(`runtime ${session}/${epoch} on ${this.worker} has not stopped`);
    const { cursor } = slot;
    if (slot.runtime) await this.closeRuntime(slot, slot.runtime);
    slot.runtime = undefined;
    if (reason !== 'shutdown') await this.freeToken(session, epoch);
    this.removeSlot(slot);
    runtimesGauge.set({ worker: this.worker }, this.runtimes.size);
    runtimesStopped.inc({ worker: this.worker, reason });
    this.log.info({ session, epoch, reason, cursor }, 'runtime stopped');
    this.events.emit('stopped', { session, epoch, reason, cursor });
  }

  /**
   * Emit(w, s, e) between inputs: a ready runtime publishes the frame it shows now (its idle frame),
   * stamped with its generation; returns it, or undefined if the runtime is not ready.
   */
  emitStep(session: string, epoch: number): MediaFrame | undefined {
    const slot = this.runtimes.get(tokenOf(session, epoch));
    if (!slot?.runtime || slot.stopReason) return undefined;
    const frame = slot.runtime.idleFrame();
    this.options.publisher.publish([frame]);
    return frame;
  }

  /** A manual controller's state between steps, for `resume`. */
  snapshotState(): ControllerSnapshot {
    if (this.autonomous || !this.serving(this.life) || this.starting.size > 0) {
      throw new Error('only a manual, serving controller between steps has a snapshot');
    }
    return {
      incarnation: this.life.incarnation,
      runtimes: [...this.runtimes.values()].map((s) => ({
        session: s.session,
        epoch: s.epoch,
        incarnation: s.incarnation,
        cursor: s.cursor,
        opened: s.runtime !== undefined,
        stopReason: s.stopReason,
      })),
    };
  }

  /**
   * A new manual controller takes up a snapshot instead of registering: the incarnation it names and its
   * runtimes, each opened one rebuilt as Reconstruct builds one (`backend.open`, then `restore` of the
   * store's log up to its cursor), which by source-independent reconstruction is the runtime it was. The
   * store must hold what it held when the snapshot was taken (every cursor is at most the release cursor).
   */
  async resume(snapshot: ControllerSnapshot): Promise<void> {
    if (this.autonomous || this.life !== undefined) {
      throw new Error('only a manual controller that has not started can resume a snapshot');
    }
    const logs = new Map<string, Promise<Input[]>>();
    const logOf = (session: string) => {
      let log = logs.get(session);
      if (!log) {
        log = steps.readRelease(this.store, { cell: this.cell, session }).then((r) => r.entries);
        logs.set(session, log);
      }
      return log;
    };
    const slots = await Promise.all(
      snapshot.runtimes.map(async (r) => {
        const slot = new RuntimeSlot(r.session, r.epoch, r.incarnation);
        slot.cursor = r.cursor;
        slot.appended = r.cursor;
        slot.stopReason = r.stopReason;
        if (r.opened) {
          const history = (await logOf(r.session)).slice(0, r.cursor);
          if (history.length !== r.cursor) {
            throw new Error(
              `the store's log of ${r.session} does not reach ${r.cursor}: not this snapshot's`,
            );
          }
          const runtime = this.options.backend.open({
            cell: this.cell,
            session: r.session,
            epoch: r.epoch,
            worker: this.worker,
          });
          await runtime.restore(history);
          slot.runtime = runtime;
        }
        return slot;
      }),
    );
    for (const slot of slots) this.addSlot(slot);
    this.life = { incarnation: snapshot.incarnation, over: false };
    this.current = 'serving';
  }

  /** rt[w]: every runtime in the table, stopping ones included, by session then epoch. */
  runtimeTable(): RuntimeEntry[] {
    return [...this.runtimes.values()]
      .map((s) => ({ s: s.session, e: s.epoch, cur: s.cursor, ph: s.phase }))
      .sort((a, b) => (a.s < b.s ? -1 : a.s > b.s ? 1 : a.e - b.e));
  }

  /** Input seq of the session was appended (a stream entry): its runtimes ask the store now. */
  deliver(session: string, seq: number): void {
    for (const slot of this.slotsOf(session)) {
      if (seq > slot.appended) slot.appended = seq;
      this.markDue(slot);
    }
  }

  /** Revoke: the generation was superseded. Revalidates now under dhsched; the baselines do not fence. */
  revoke(session: string, epoch: number): Promise<RuntimeReply> {
    return this.store.protocol === 'dhsched'
      ? this.revalidateNow(session, epoch)
      : Promise.resolve(this.replyFor(session, epoch));
  }

  /** Stop: the session was closed. Revalidates now, under every protocol. */
  stopRuntime(session: string, epoch: number): Promise<RuntimeReply> {
    return this.revalidateNow(session, epoch);
  }

  /** What Health reports. */
  snapshot(): HealthReply {
    return {
      cell: this.cell,
      worker: this.worker,
      incarnation: this.life?.incarnation ?? 0,
      capacity: this.capacity,
      state: this.current,
      runtimes: [...this.runtimes.values()].map((s) => ({
        session: s.session,
        epoch: s.epoch,
        state: s.reply().state,
        cursor: s.cursor,
      })),
    };
  }

  /** True while `life` is the current incarnation and the worker takes work. */
  private serving(life: Life | undefined): life is Life {
    return life !== undefined && life === this.life && !life.over && this.current === 'serving';
  }

  /**
   * Register(w): a new incarnation, which takes back the sessions still placed here (its work stream
   * then holds their new generations); refused while the old lease is live.
   */
  private async register(): Promise<void> {
    let lastWhy = '';
    for (let attempt = 0; !this.closing.signal.aborted; attempt++) {
      try {
        const { incarnation, adopted } = await steps.registerWorker(this.store, {
          cell: this.cell,
          worker: this.worker,
          cap: this.capacity,
          now: this.now(),
          ttlMs: this.options.leaseTtlMs,
          addr: this.options.addr,
        });
        this.life = { incarnation, over: false };
        this.current = 'serving';
        this.log.info({ incarnation, adopted, addr: this.options.addr }, 'registered');
        this.events.emit('registered', { incarnation });
        return;
      } catch (err) {
        if (!this.autonomous || isStoreError(err, StoreCode.INVALID_INPUT)) throw err;
        const why = isStoreError(err, StoreCode.LEASE_LIVE)
          ? 'the previous incarnation’s lease is still live'
          : `the store failed: ${err instanceof Error ? err.message : String(err)}`;
        if (why !== lastWhy) this.log.warn({ attempt }, `registration refused: ${why}; retrying`);
        lastWhy = why;
        await this.pause(backoffMs(attempt));
      }
    }
  }

  /** Runs `tick` every `ms` until `stop`. */
  private async every(ms: number, tick: () => Promise<void>): Promise<void> {
    while (!this.closing.signal.aborted) {
      await this.pause(ms);
      if (this.closing.signal.aborted) return;
      await tick().catch((err: unknown) => this.log.error({ err }, 'periodic task failed'));
    }
  }

  /** Sleeps, cut short by `stop`. */
  private pause(ms: number): Promise<void> {
    return delay(ms, undefined, { signal: this.closing.signal }).catch(() => undefined);
  }

  /** Each batch of the work stream is handled, then acknowledged (trimmed); a new incarnation starts over. */
  private async readWorkStream(blocking: RedisClient): Promise<void> {
    const key = cellKeys(this.cell).stream(this.worker);
    let life = this.life;
    let lastId = '0-0';
    let unacked = 0;
    for (let failures = 0; !this.closing.signal.aborted;) {
      if (!this.serving(this.life)) {
        await this.pause(NOT_SERVING_PAUSE_MS);
        continue;
      }
      if (this.life !== life) {
        life = this.life;
        lastId = '0-0';
        unacked = 0;
      }
      try {
        const reply = await blocking.xread(
          'COUNT',
          STREAM_BATCH,
          'BLOCK',
          STREAM_BLOCK_MS,
          'STREAMS',
          key,
          lastId,
        );
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length > 0) {
          await this.takeWork(entries);
          lastId = entries[entries.length - 1]![0];
          unacked += entries.length;
        }
        // trimming is housekeeping: once per ACK_EVERY entries, or when the stream goes quiet
        if (unacked >= ACK_EVERY || (unacked > 0 && entries.length === 0)) {
          await steps.ackStream(this.store, { cell: this.cell, worker: this.worker, id: lastId });
          unacked = 0;
        }
        failures = 0;
      } catch (err) {
        if (this.closing.signal.aborted) return;
        this.log.warn({ err }, 'reading the work stream failed; retrying');
        await this.pause(backoffMs(failures++));
      }
    }
  }

  /**
   * Work stream entries, as read: each assignment is claimed and its runtime started (Claim), each
   * appended input kicks its runtime, each superseded generation has its session's runtimes revalidated
   * (Fence; dhsched only, and not in a manual controller, whose caller takes every Fence). Throws if a
   * claim could not be made.
   */
  async takeWork(entries: [id: string, fields: string[]][]): Promise<void> {
    const starts: Promise<RuntimeReply>[] = [];
    for (const [id, fields] of entries) {
      const entry = workEntry(fields);
      if (!entry) this.log.warn({ id, fields }, 'malformed work stream entry skipped');
      else if ('e' in entry) starts.push(this.startRuntime(entry.s, entry.e));
      else if ('a' in entry) for (const { s, q } of entry.a) this.deliver(s, q);
      else if (this.autonomous && this.store.protocol === 'dhsched')
        void this.revalidate(entry.s).catch(this.sweepFailed);
    }
    await Promise.all(starts);
  }

  /**
   * The loop of one runtime: Reconstruct, after which its releases are the release loop's (`markDue`);
   * Teardown once it has stopped and nothing of it is in flight.
   */
  private async run(slot: RuntimeSlot): Promise<void> {
    const { session, epoch } = slot;
    for (let failures = 0; ;) {
      if (slot.stopReason && !slot.busy) return this.teardownStep(session, epoch);
      try {
        if (!slot.runtime && !slot.stopReason) {
          await this.reconstructStep(session, epoch);
          this.markDue(slot);
        }
        await slot.wake.wait();
        failures = 0;
      } catch (err) {
        this.log.warn({ err, session, epoch }, 'runtime step failed; retrying');
        await slot.wake.wait(backoffMs(failures++));
      }
    }
  }

  /** Puts the runtime in the release loop's next batch if it is ready, input waits and none is in flight. */
  private markDue(slot: RuntimeSlot): void {
    if (!this.autonomous || slot.busy || slot.stopReason || !slot.runtime || slot.appended <= slot.cursor)
      return;
    this.due.add(slot);
    if (!this.releasing) {
      this.releasing = true;
      setImmediate(() => void this.releaseDue());
    }
  }

  /**
   * The release loop: one store step for the due runtimes (ReleaseBatch), one batch at a time; each
   * runtime then renders what it got while the next batch goes (a slow runtime holds up no other). A
   * failed step is tried again after a backoff, its runtimes still due.
   */
  private async releaseDue(): Promise<void> {
    for (let failures = 0; this.due.size > 0 && !this.closing.signal.aborted;) {
      const batch = this.takeDue();
      if (batch.length === 0) continue;
      for (const slot of batch) slot.busy = true;
      try {
        const released = await this.releaseBatch(batch, MAX_BATCH_INPUTS);
        failures = 0;
        for (const got of released) void this.renderReleased(got);
      } catch (err) {
        this.log.warn({ err, runtimes: batch.length }, 'a release batch failed; retrying');
        for (const slot of batch) {
          slot.busy = false;
          this.markDue(slot);
        }
        await this.pause(backoffMs(failures++));
      }
    }
    this.releasing = false;
  }

  /** The next batch: due runtimes still ready, at most one per session and MAX_BATCH_RUNTIMES. */
  private takeDue(): RuntimeSlot[] {
    const batch: RuntimeSlot[] = [];
    const sessions = new Set<string>();
    for (const slot of this.due) {
      if (batch.length >= MAX_BATCH_RUNTIMES) break;
      if (sessions.has(slot.session)) continue;
      this.due.delete(slot);
      if (slot.stopReason || !slot.runtime) continue;
      sessions.add(slot.session);
      batch.push(slot);
    }
    return batch;
  }

  /** The runtime renders its release; then it is due again if more waits, or its loop takes over. */
  private async renderReleased(got: SlotRelease): Promise<void> {
    const { slot } = got;
    try {
      await this.render(got);
    } catch (err) {
      this.log.error({ err, session: slot.session, epoch: slot.epoch }, 'rendering a release failed');
    } finally {
      slot.busy = false;
      if (slot.stopReason || !slot.runtime) slot.wake.notify();
      else this.markDue(slot);
    }
  }

  private async closeRuntime(slot: RuntimeSlot, runtime: SessionRuntime): Promise<void> {
    await runtime.close().catch((err: unknown) => {
      this.log.warn({ err, session: slot.session, epoch: slot.epoch }, 'closing the runtime failed');
    });
  }

  /** Frees the token of (s, e), retrying a few times; one left behind is reclaimed at the next registration. */
  private async freeToken(session: string, epoch: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await steps.teardown(this.store, { cell: this.cell, worker: this.worker, session, epoch });
        return;
      } catch (err) {
        if (attempt === TEARDOWN_ATTEMPTS) {
          this.log.error({ err, session, epoch }, 'could not free the token; registering again reclaims it');
          return;
        }
        await delay(backoffMs(attempt));
      }
    }
  }

  /** Asks `slot` to stop; resolves once it has stopped and its token is freed. */
  private fence(slot: RuntimeSlot, reason: StopReason): Promise<void> {
    slot.stopReason ??= reason;
    slot.wake.notify();
    return slot.done;
  }

  private slotsOf(session: string): readonly RuntimeSlot[] {
    return this.bySession.get(session) ?? [];
  }

  private addSlot(slot: RuntimeSlot): void {
    this.runtimes.set(tokenOf(slot.session, slot.epoch), slot);
    this.bySession.set(slot.session, [...this.slotsOf(slot.session), slot]);
  }

  private removeSlot(slot: RuntimeSlot): void {
    this.runtimes.delete(tokenOf(slot.session, slot.epoch));
    const rest = this.slotsOf(slot.session).filter((s) => s !== slot);
    if (rest.length > 0) this.bySession.set(slot.session, rest);
    else this.bySession.delete(slot.session);
  }

  private replyFor(session: string, epoch: number): RuntimeReply {
    return this.runtimes.get(tokenOf(session, epoch))?.reply() ?? absent(epoch);
  }

  /** The runtime of (s, e); throws if there is none (a step of a runtime that is not in the table). */
  private slot(session: string, epoch: number): RuntimeSlot {
    const slot = this.runtimes.get(tokenOf(session, epoch));
    if (!slot) throw new Error(`no runtime ${session}/${epoch} on ${this.worker}`);
    return slot;
  }

  /** Fence(w, s, e)'s test: gen[s] is (w, e, claimed). */
  private isCurrent(gen: steps.Generation | null | undefined, epoch: number): boolean {
    return gen?.worker === this.worker && gen.epoch === epoch && gen.phase === 'claimed';
  }

  /** Fence(w, s, e) for each running runtime of one session; returns those it stopped. */
  private async revalidate(session: string): Promise<RuntimeSlot[]> {
    const running = this.slotsOf(session).filter((s) => !s.stopReason);
    const fenced = await Promise.all(running.map((s) => this.fenceStep(session, s.epoch)));
    return running.filter((_, i) => fenced[i]);
  }

  /** Revalidates the session and waits for the runtimes it fences; replies for (session, epoch). */
  private async revalidateNow(session: string, epoch: number): Promise<RuntimeReply> {
    // those fenced already (the work stream's superseded entry came first) are waited for as well
    const fencing = this.slotsOf(session).filter((s) => s.stopReason === 'fenced');
    const fenced = [...fencing, ...(await this.revalidate(session))];
    await Promise.all(fenced.map((s) => s.done));
    const slot = fenced.find((s) => s.epoch === epoch);
    return slot ? { state: 'stopped', epoch, cursor: slot.cursor } : this.replyFor(session, epoch);
  }

  /**
   * The periodic Fence, the backstop of the superseded entries on the work stream (one lost in a Redis
   * failover, say): each tick reads gen[s] of the next SWEEP_BATCH runtimes, SWEEP_READ a store step,
   * going round the table, so its cost per second is the same at any number of sessions (a full round
   * takes ceil(runtimes / SWEEP_BATCH) ticks); a runtime not matching (w, its epoch, claimed) stops even
   * without input.
   */
  private async sweep(): Promise<void> {
    const life = this.life;
    if (!this.serving(life) || this.runtimes.size === 0) return;
    const batch: RuntimeSlot[] = [];
    // at most one round per tick: a table smaller than a batch is read once
    for (let seen = 0, size = this.runtimes.size; batch.length < SWEEP_BATCH && seen < size; seen++) {
      let next = this.sweepAt?.next();
      if (!next || next.done) {
        this.sweepAt = this.runtimes.values();
        next = this.sweepAt.next();
        if (next.done) break;
      }
      if (!next.value.stopReason) batch.push(next.value);
    }
    if (batch.length === 0) return;
    const swept: steps.SweptSession[] = [];
    try {
      for (let i = 0; i < batch.length; i += SWEEP_READ) {
        const sessions = batch.slice(i, i + SWEEP_READ).map((s) => s.session);
        swept.push(...(await steps.readGens(this.store, { cell: this.cell, sessions })));
      }
    } catch (err) {
      this.sweepFailed(err);
      return;
    }
    if (!this.serving(life)) return;
    const fences = this.store.protocol === 'dhsched';
    batch.forEach((slot, k) => {
      const { generation, appended } = swept[k]!;
      if (slot.stopReason) return;
      if (fences && !this.isCurrent(generation, slot.epoch)) void this.fence(slot, 'fenced');
      else if (appended > slot.appended) {
        // a hint that never came (the work stream is the usual way): the runtime asks now
        slot.appended = appended;
        this.markDue(slot);
      }
    });
  }

  private readonly sweepFailed = (err: unknown) =>
    this.log.warn({ err }, 'revalidation failed; the sweep comes round again');

  /**
   * The heartbeat: renews the lease (what keeps LeaseExpire(w) from happening), then publishes load. The
   * loops take the two on timers of their own (`renew`, `publishLoad`), so load publishing never delays a
   * renewal.
   */
  async heartbeat(): Promise<void> {
    if (await this.renew()) await this.publishLoad();
  }

  /**
   * Renews the lease; true if it did. A refused renewal means the lease is lost: every runtime stops,
   * then it registers again.
   */
  private async renew(): Promise<boolean> {
    const life = this.life;
    if (!this.serving(life)) return false;
    try {
      await steps.renewLease(this.leaseStore ?? this.store, {
        cell: this.cell,
        worker: this.worker,
        incarnation: life.incarnation,
        now: this.now(),
        ttlMs: this.options.leaseTtlMs,
      });
      return true;
    } catch (err) {
      if (isStoreError(err, StoreCode.NOT_LIVE, StoreCode.STALE_INCARNATION, StoreCode.UNKNOWN_WORKER)) {
        await this.relapse(life, err.message);
        return false;
      }
      this.log.warn({ err }, 'renewing the lease failed; retrying at the next heartbeat');
      return false;
    }
  }

  /** Publishes the runtimes and the inputs waiting (advisory), and reads back this worker's tokens. */
  private async publishLoad(): Promise<void> {
    const life = this.life;
    if (!this.serving(life)) return;
    const now = this.now();
    let queued = 0;
    for (const s of this.runtimes.values()) queued += Math.max(0, s.appended - s.cursor);
    const [load, view] = await Promise.allSettled([
      steps.publishLoad(this.store, {
        cell: this.cell,
        worker: this.worker,
        incarnation: life.incarnation,
        runtimes: this.runtimes.size,
        queued,
        now,
      }),
      // token counts, not the tokens: readWorker would return every token, O(runtimes) per heartbeat
      steps.readLoadView(this.store, { cell: this.cell, now }),
    ]);
    const own = view.status === 'fulfilled' ? view.value.find((w) => w.worker === this.worker) : undefined;
    if (own) capacityTokens.set({ worker: this.worker }, own.tokens);
    const failed = [load, view].find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) this.log.warn({ err: failed.reason }, 'publishing load failed');
  }

  /** The lease is lost (paused past its TTL, or superseded): every runtime stops, then Register(w) again. */
  private async relapse(life: Life, why: string): Promise<void> {
    if (!this.serving(life)) return;
    life.over = true;
    this.current = 'registering';
    this.log.warn(
      { incarnation: life.incarnation, why },
      'lease lost: stopping every runtime, registering again',
    );
    await this.stopAll('lease_lost');
    await this.register();
  }

  /**
   * Every runtime stops, claims in flight included (they see the change and free their token). Autonomous,
   * each runtime's loop tears it down; otherwise it is torn down here.
   */
  private async stopAll(reason: StopReason): Promise<void> {
    await Promise.allSettled(this.starting.values());
    const slots = [...this.runtimes.values()];
    if (this.autonomous) {
      await Promise.all(slots.map((s) => this.fence(s, reason)));
      return;
    }
    for (const s of slots) s.stopReason ??= reason;
    await Promise.all(slots.map((s) => this.teardownStep(s.session, s.epoch)));
  }
}
