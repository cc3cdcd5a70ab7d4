/**
 * One randomized ownership run: a seeded schedule of concurrent clients (create, push with retries,
 * migrate, close), Dispatch replicas (a move planned on one read and committed later, or abandoned by a
 * replica that dies between the two steps; recovery) and Workers (work stream, notifications, each
 * runtime's steps, heartbeats), with faults, one faulty worker at a time: a worker crashed (its
 * controller dropped, then restarted as a new incarnation), paused past its lease while it keeps its
 * runtimes, or partitioned with a step in flight on its connection that reaches Redis when the
 * partition heals. Every step is taken by the real components: InferController (manual: the run takes
 * each of its steps), DispatchCore and the store's Lua steps, on a fresh traced cell of a real Redis,
 * under one protocol. Time is a virtual clock that every component reads, so leases lapse without
 * sleeping.
 *
 * A run ends by healing every fault and letting every component work until each live session has
 * released all its input; then the cell's trace is checked (history.ts, with the workers' capacities)
 * and the cell deleted. The runtimes alive on each worker are also counted whenever one starts. Steps
 * run one at a time, so a seed reruns exactly its schedule and interleaving.
 */
import type { Redis } from 'ioredis';
import { InferController } from '../../gpu-worker/controller.js';
import type { RuntimeBackend, SessionRuntime } from '../../gpu-worker/runtime/pipeline.js';
import { silentLogger } from '../../impl/common/log.js';
import { DispatchCore, type Plan } from '../../impl/dispatch/core.js';
import { LoadView } from '../../impl/dispatch/load-view.js';
import type { Notifier, NotifyMethod } from '../../impl/dispatch/notifier.js';
import { type Random, leastLoaded, seededRandom } from '../../impl/dispatch/ranking.js';
import { RpcError } from '../../impl/rpc/errors.js';
import type { WorkerMethods } from '../../impl/rpc/proto.js';
import { StoreCode, StoreError } from '../../impl/store/codes.js';
import { cellKeys } from '../../impl/store/keys.js';
import type { Protocol } from '../../impl/store/schema.js';
import * as steps from '../../impl/store/steps.js';
import { type Violation, type ViolationKind, checkHistory } from '../history.js';
import * as connection from './connections.js';

/** The protocols by their names on the command line. */
export const PROTOCOLS = {
  dhsched: 'dhsched',
  'assignment-time': 'assignment_time',
  'claim-only': 'claim_only',
  'workerid-only': 'workerid_only',
} as const satisfies Record<string, Protocol>;
export type ProtocolName = keyof typeof PROTOCOLS;
export const KINDS: readonly ViolationKind[] = [
  'dual-release',
  'stale-release',
  'overshoot',
  'gap',
  'unreleased',
];

/** The lease TTL on the virtual clock. */
const TTL_MS = 1000;
/** Rounds of the final phase that heals and lets every component work. */
const SETTLE_ROUNDS = 12;
/** Releases one runtime may take in one settling turn (it stops earlier at no_input). */
const RELEASES_PER_TURN = 64;

export type Fault = 'crash' | 'pause' | 'partition';

export interface RunResult {
  protocol: ProtocolName;
  seed: number;
  /** Actions of the schedule taken before settling. */
  actions: number;
  /** The faults of the schedule, by kind. */
  faults: Record<Fault, number>;
  /** Releases the store refused (LOST_AUTHORITY): runtimes stopped for having lost their generation. */
  lostAuthority: number;
  violations: Violation[];
}

/** A runtime that only keeps its cursor: the ownership runs judge the store's history, not the media. */
const counting: RuntimeBackend = {
  name: 'counting',
  open(stamp): SessionRuntime {
    let cursor = 0;
    return {
      get cursor() {
        return cursor;
      },
      restore: async (history) => void (cursor = history.length),
      process: async (input) => {
        cursor = input.seq;
        return [];
      },
      idleFrame: () => ({ ...stamp, seq: cursor, index: 0, ptsMs: 0, payload: Buffer.alloc(0) }),
      close: async () => undefined,
    };
  },
};

type Notice = { [K in NotifyMethod]: { method: K; request: WorkerMethods[K][0] } }[NotifyMethod];

/** A worker process: its controller, its own connection, where it read its stream. */
interface Process {
  controller: InferController;
  redis: Redis;
  /** The last work stream entry taken, and the incarnation it was read in. */
  lastId: string;
  incarnation: number;
  /** The step in flight while partitioned. */
  inFlight: Promise<void> | undefined;
}

interface Worker {
  id: string;
  cap: number;
  proc: Process | undefined;
  /** Actions left until the pause or the partition ends (0: none). */
  pausedFor: number;
  partitioned: boolean;
  /** Resumed from a pause or partition and not renewed since: its lease may have lapsed. */
  resumed: boolean;
  notices: Notice[];
}

interface Replica {
  core: DispatchCore;
  loadView: LoadView;
  plan: Plan | undefined;
}

/** Refusals the components answer with by design, and a crashed worker's failures: the schedule goes on. */
function expected(err: unknown): boolean {
  return (
    (err instanceof StoreError && err.code !== StoreCode.INVALID_INPUT) ||
    err instanceof RpcError ||
    (err instanceof Error &&
      /Connection is closed|Stream isn't writeable|max retries per request/.test(err.message))
  );
}

const ignoreRefusal = (err: unknown) => {
  if (!expected(err)) throw err;
};

export interface RunEnv {
  /** A connection of the process: Dispatch, reads and cleanup of every run share it. */
  redis: Redis;
  /** The workers' connections. */
  connections: connection.ConnectionPool;
}

class Run {
  private clock = 1_000_000;
  private readonly now = () => this.clock;
  private readonly random: Random;
  private readonly store: steps.Store;
  private readonly cell: string;
  private readonly workers: Worker[];
  private readonly replicas: Replica[];
  private readonly sessions: string[];
  private readonly created = new Set<string>();
  private readonly closed = new Set<string>();
  private pushes = 0;
  /** Per worker, the first time it had more runtimes alive than its capacity (stale ones included). */
  private readonly crowded = new Map<string, Violation>();
  actions = 0;
  readonly faults: Record<Fault, number> = { crash: 0, pause: 0, partition: 0 };

  constructor(
    private readonly env: RunEnv,
    private readonly protocol: ProtocolName,
    seed: number,
  ) {
    this.random = seededRandom(seed);
    this.store = steps.openStore(env.redis, { protocol: PROTOCOLS[protocol] });
    this.cell = `own-${protocol}-${seed}`;
    const nWorkers = this.int(2, 3);
    const nSessions = this.int(1, 4);
    // enough capacity that the workers but one can host every session
    const least = Math.ceil(nSessions / (nWorkers - 1));
    const cap = this.int(least, Math.max(least, 3));
    this.workers = Array.from({ length: nWorkers }, (_, k) => ({
      id: `w${k + 1}`,
      cap,
      proc: undefined,
      pausedFor: 0,
      partitioned: false,
      resumed: false,
      notices: [],
    }));
    this.sessions = Array.from({ length: nSessions }, (_, k) => `s${k + 1}`);
    const notifier: Notifier = {
      notify: (_cell, worker, method, request) => this.notify(worker, { method, request } as Notice),
      close: () => undefined,
    };
    this.replicas = [1, 2].map((d) => {
      const loadView = new LoadView({
        store: this.store,
        cells: [this.cell],
        refreshMs: 60_000,
        log: silentLogger,
        now: this.now,
      });
      const core = new DispatchCore({
        store: this.store,
        id: `d${d}`,
        ranking: leastLoaded,
        loadView,
        notifier,
        log: silentLogger,
        now: this.now,
        random: seededRandom(seed + d),
        // thousands of runs push on one clock far faster than a client: no rate bound
        pushRate: 0,
      });
      return { core, loadView, plan: undefined };
    });
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private chance(p: number): boolean {
    return this.random() < p;
  }

  /** One of the choices, drawn by weight (a weight of 0: not possible now). */
  private choose<T>(choices: readonly [weight: number, choice: T][]): T {
    let r = this.random() * choices.reduce((n, [weight]) => n + weight, 0);
    return (choices.find(([weight]) => (r -= weight) < 0) ?? choices[0]!)[1];
  }

  async execute(): Promise<{ violations: Violation[]; lostAuthority: number }> {
    await steps.configureCell(this.store, { cell: this.cell, audit: true, trace: true });
    try {
      for (const w of this.workers) await this.boot(w);
      const length = this.int(30, 90);
      for (; this.actions < length; this.actions++) {
        await this.act();
        for (const w of this.workers) if (w.pausedFor > 0 && --w.pausedFor === 0) await this.resume(w);
      }
      await this.settle();
      const judged = await this.judge();
      return { ...judged, violations: [...judged.violations, ...this.crowded.values()] };
    } finally {
      for (const w of this.workers) this.crash(w);
      await this.drop();
    }
  }

  /** One action of the schedule, drawn by weight among those that can be taken. */
  private async act(): Promise<void> {
    const up = this.workers.filter((w) => w.proc && w.pausedFor === 0);
    const down = this.workers.filter((w) => !w.proc);
    // one worker at a time is faulty, so that the others can always take its sessions
    const faulty = this.workers.filter((w) => this.faulty(w));
    const faultable = faulty.length === 0 ? up : [];
    // the faulty worker may also crash, a partitioned one with its step in flight
    const crashable = faulty.length === 0 ? up : faulty.filter((w) => w.proc);
    const live = this.sessions.filter((s) => this.created.has(s) && !this.closed.has(s));
    const d = this.pick(this.replicas);
    const choices: [number, () => Promise<void>][] = [
      [3, () => this.create(d, this.pick(this.sessions))],
      [live.length ? 6 : 0, () => this.push(d, this.pick(live))],
      [live.length ? 2 : 0, () => this.migrate(d, this.pick(live))],
      [live.length && !d.plan ? 2 : 0, () => this.plan(d, this.pick(live))],
      [d.plan ? 2 : 0, () => this.commit(d)],
      [d.plan ? 0.5 : 0, async () => void (d.plan = undefined)],
      [live.length ? 0.3 : 0, () => this.close(d, this.pick(live))],
      [1.5, async () => void (await d.core.recoverOnce(this.cell))],
      [0.5, async () => void (await d.loadView.fresh(this.cell))],
      [1.5, () => this.tick()],
      [up.length ? 12 : 0, () => this.workerStep(this.pick(up))],
      [crashable.length ? 0.4 : 0, async () => this.fault('crash', () => this.crash(this.pick(crashable)))],
      [down.length ? 1 : 0, () => this.boot(this.pick(down))],
      [
        faultable.length ? 0.6 : 0,
        () => this.fault('pause', () => (this.pick(faultable).pausedFor = this.int(5, 30))),
      ],
      [faultable.length ? 0.6 : 0, () => this.fault('partition', () => this.partition(this.pick(faultable)))],
    ];
    await this.choose(choices)().catch(ignoreRefusal);
  }

  private async fault(kind: Fault, inject: () => unknown): Promise<void> {
    this.faults[kind]++;
    await inject();
  }

  private async create(d: Replica, s: string): Promise<void> {
    await d.core.createLive(this.cell, s);
    this.created.add(s);
  }

  /** A push, sometimes a client's retry of its last request (the store appends it once). */
  private async push(d: Replica, s: string): Promise<void> {
    const retry = this.pushes > 0 && this.chance(0.15);
    const request = `r${retry ? this.pushes : ++this.pushes}`;
    await d.core.pushText(this.cell, s, request, `text ${request}`);
  }

  private async migrate(d: Replica, s: string): Promise<void> {
    await d.core.migrate(this.cell, s, this.chance(0.5) ? this.pick(this.workers).id : undefined);
  }

  /** BeginMove: the replica reads gen[s] and plans a move to a worker; none if that is the owner. */
  private async plan(d: Replica, s: string): Promise<void> {
    const target = this.pick(this.workers).id;
    const plan = await d.core.planMove(this.cell, s, target);
    d.plan = plan.from?.worker === target ? undefined : plan;
  }

  /** Commit of the plan, then the Revoke a move sends, unless the replica dies in between. */
  private async commit(d: Replica): Promise<void> {
    const plan = d.plan!;
    d.plan = undefined;
    const outcome = await d.core.commitPlan(plan);
    if (outcome.kind !== 'committed' || this.chance(0.3)) return;
    const { session, from } = plan;
    if (from)
      this.notify(from.worker, {
        method: 'revoke',
        request: { cell: this.cell, session, epoch: from.epoch },
      });
  }

  private notify(worker: string, notice: Notice): void {
    this.workers.find((w) => w.id === worker)?.notices.push(notice);
  }

  private async close(d: Replica, s: string): Promise<void> {
    await d.core.closeLive(this.cell, s);
    this.closed.add(s);
  }

  /**
   * NoCapacityOvershoot's second half, checked whenever a runtime starts: the runtimes alive on the
   * worker, stopping ones included, are at most its capacity.
   */
  private countRuntimes(w: Worker, c: InferController, session: string): void {
    const alive = c.runtimeTable().length;
    if (alive > w.cap && !this.crowded.has(w.id)) {
      const detail = `${alive} runtimes alive on ${w.id}, capacity ${w.cap}`;
      this.crowded.set(w.id, { kind: 'overshoot', session, seq: alive, worker: w.id, detail });
    }
  }

  /** Down, paused, partitioned, maybe past its lease, or registering again after losing it. */
  private faulty(w: Worker): boolean {
    return !w.proc || w.pausedFor > 0 || w.resumed || w.proc.controller.state !== 'serving';
  }

  /** Time passes; each worker that is not paused renews its lease first (or finds it lost). */
  private async tick(): Promise<void> {
    for (const w of this.workers) {
      if (w.proc && w.pausedFor === 0) {
        await w.proc.controller.heartbeat().catch(ignoreRefusal);
        w.resumed = false;
      }
    }
    this.clock += Math.floor(TTL_MS * (0.3 + 0.4 * this.random()));
  }

  /** A new worker process: a controller on its own connection, registering (refused until its time). */
  private async boot(w: Worker): Promise<void> {
    const redis = await this.env.connections.take();
    const controller = new InferController({
      store: steps.openStore(redis, { protocol: PROTOCOLS[this.protocol] }),
      cell: this.cell,
      worker: w.id,
      capacity: w.cap,
      addr: '',
      leaseTtlMs: TTL_MS,
      sweepMs: 60_000,
      backend: counting,
      publisher: { publish: () => undefined, close: async () => undefined },
      log: silentLogger,
      now: this.now,
      autonomous: false,
    });
    controller.events.on('claimed', ({ session }) => this.countRuntimes(w, controller, session));
    w.proc = { controller, redis, lastId: '0', incarnation: 0, inFlight: undefined };
    w.notices = [];
    await controller.start().catch(ignoreRefusal);
  }

  /**
   * The process dies: its controller is dropped, and a step in flight on its partitioned connection
   * never arrives. Steps run one at a time, so nothing else is in flight: an idle connection is reused.
   */
  private crash(w: Worker): void {
    if (!w.proc) return;
    if (w.partitioned) {
      connection.crash(w.proc.redis);
      // whatever the step in flight meets now, it is a dead process's
      void w.proc.inFlight?.catch(() => undefined);
    } else {
      this.env.connections.give(w.proc.redis);
    }
    w.proc = undefined;
    w.pausedFor = 0;
    w.partitioned = false;
    w.resumed = false;
    w.notices = [];
  }

  /** The connection holds what the worker sends; one step goes out on it and waits there. */
  private async partition(w: Worker): Promise<void> {
    const proc = w.proc!;
    connection.partition(proc.redis);
    w.partitioned = true;
    w.pausedFor = this.int(3, 30);
    proc.inFlight = this.workerStep(w).catch(ignoreRefusal);
  }

  /** The pause or partition ends: the held step reaches Redis, and the worker goes on. */
  private async resume(w: Worker): Promise<void> {
    const proc = w.proc;
    w.pausedFor = 0;
    w.resumed = true;
    if (!proc || !w.partitioned) return;
    w.partitioned = false;
    connection.heal(proc.redis);
    await proc.inFlight;
    proc.inFlight = undefined;
  }

  /** One step of the worker: registering, reading its stream, a notification, a runtime's step. */
  private async workerStep(w: Worker): Promise<void> {
    const proc = w.proc!;
    const c = proc.controller;
    if (c.state !== 'serving') return c.start();
    const table = c.runtimeTable();
    const choices: [number, () => Promise<unknown>][] = [
      [2, () => this.readStream(w.id, proc)],
      [w.notices.length ? 3 : 0, () => this.takeNotice(proc, w.notices.shift()!)],
      [table.length ? 8 : 0, () => this.runtimeStep(c, this.pick(table))],
    ];
    await this.choose(choices)();
  }

  /** The work stream after what was taken (from the start after a registration), claimed in order. */
  private async readStream(worker: string, proc: Process): Promise<void> {
    const incarnation = proc.controller.snapshot().incarnation;
    if (incarnation !== proc.incarnation) [proc.lastId, proc.incarnation] = ['0', incarnation];
    const key = cellKeys(this.cell).stream(worker);
    const from = proc.lastId === '0' ? '-' : `(${proc.lastId}`;
    const entries = await proc.redis.xrange(key, from, '+', 'COUNT', 16);
    if (entries.length === 0) return;
    proc.lastId = entries[entries.length - 1]![0];
    await proc.controller.takeWork(entries);
  }

  private async takeNotice(proc: Process, n: Notice): Promise<void> {
    const c = proc.controller;
    if (n.method === 'revoke') await c.revoke(n.request.session, n.request.epoch);
    else await c.stopRuntime(n.request.session, n.request.epoch);
  }

  /** The next step of one runtime; a ready one mostly releases, else revalidates as the sweep does. */
  private async runtimeStep(c: InferController, r: { s: string; e: number; ph: string }): Promise<unknown> {
    if (r.ph === 'new') return c.reconstructStep(r.s, r.e);
    if (r.ph === 'stopping') return c.teardownStep(r.s, r.e);
    return this.chance(0.8) ? c.releaseStep(r.s, r.e) : c.revoke(r.s, r.e);
  }

  /**
   * Every fault heals (crashed workers restart) and every component works, round after round, until
   * each live session has released all its input on a live worker, or the rounds run out.
   */
  private async settle(): Promise<void> {
    for (const w of this.workers) await (w.proc ? this.resume(w) : this.boot(w));
    for (let round = 0; round < SETTLE_ROUNDS; round++) {
      await this.tick();
      for (const d of this.replicas) d.plan = undefined;
      await this.replicas[round % 2]!.core.recoverOnce(this.cell);
      for (const w of this.workers) await this.work(w).catch(ignoreRefusal);
      if (await this.settled()) return;
    }
  }

  /** The worker takes every step it can: registers, reads its stream and notices, runs its runtimes dry. */
  private async work(w: Worker): Promise<void> {
    const proc = w.proc!;
    const c = proc.controller;
    if (c.state !== 'serving') await c.start();
    await this.readStream(w.id, proc);
    for (const n of w.notices.splice(0)) await this.takeNotice(proc, n).catch(ignoreRefusal);
    for (const r of c.runtimeTable()) {
      if (r.ph === 'new') await c.reconstructStep(r.s, r.e).catch(ignoreRefusal);
      if (r.ph !== 'stopping') await c.revoke(r.s, r.e);
    }
    for (const r of c.runtimeTable()) {
      if (r.ph === 'stopping') await c.teardownStep(r.s, r.e);
      else if (r.ph === 'ready') {
        for (let k = 0; k < RELEASES_PER_TURN; k++) {
          if ((await c.releaseStep(r.s, r.e)) !== 'released') break;
        }
      }
    }
  }

  /** Every live session claimed, with its input all released (read side by side: one write). */
  private async settled(): Promise<boolean> {
    const cell = this.cell;
    const live = [...this.created].filter((s) => !this.closed.has(s));
    const states = await Promise.all(
      live.map((session) =>
        Promise.all([
          steps.readGen(this.store, { cell, session }),
          steps.readRelease(this.store, { cell, session, fromSeq: Number.MAX_SAFE_INTEGER }),
        ]),
      ),
    );
    return states.every(([gen, rel]) => gen?.phase === 'claimed' && rel.seq === rel.appended);
  }

  /**
   * The trace's violations (every input appended to a session still live must have been released), and
   * how many releases the store refused for lost authority.
   */
  private async judge(): Promise<{ violations: Violation[]; lostAuthority: number }> {
    const trace = await steps.readTrace(this.store, { cell: this.cell });
    const lostAuthority = trace.filter((t) => t.kind === 'lost').length;
    const appended = new Map<string, number>();
    for (const t of trace) {
      if (t.kind === 'append' && !this.closed.has(t.session)) {
        appended.set(t.session, Math.max(appended.get(t.session) ?? 0, t.seq));
      }
    }
    const capacities = new Map(this.workers.map((w) => [w.id, w.cap]));
    return { violations: checkHistory(trace, appended, capacities).violations, lostAuthority };
  }

  /** Deletes every key of the cell. */
  private async drop(): Promise<void> {
    const k = cellKeys(this.cell);
    const keys = [
      ...this.sessions.flatMap((s) => [k.gen(s), k.log(s), k.req(s)]),
      ...this.workers.flatMap(({ id }) => [
        k.tokens(id),
        k.cap(id),
        k.lease(id),
        k.stream(id),
        k.placed(id),
        k.load(id),
      ]),
      k.workers,
      k.config,
      k.audit,
      k.draining,
      k.sessions,
    ];
    await this.env.redis.del(...keys);
  }
}

/** Runs the seed's schedule under the protocol and checks its history. */
export async function ownershipRun(env: RunEnv, protocol: ProtocolName, seed: number): Promise<RunResult> {
  const run = new Run(env, protocol, seed);
  const judged = await run.execute();
  return { protocol, seed, actions: run.actions, faults: run.faults, ...judged };
}
