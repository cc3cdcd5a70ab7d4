/**
 * Randomized real runs for trace validation and fault injection: fast-check draws a scenario (concurrent
 * clients creating sessions, pushing text with retries, migrating and closing them; worker SIGKILLs with a
 * restart, worker SIGSTOP/SIGCONT pauses shorter or longer than the lease, a worker's Redis link
 * partitioned or slowed (each process reaches Redis through its own FaultProxy), a worker restarted on a
 * skewed clock, Dispatch replicas killed or paused, one killed right after a commit, drains, Redis crashed and
 * restarted from its AOF, Redis failed over to its replica), which runs against a fresh system of real
 * processes (launchSystem: Dispatch replicas and Workers over gRPC) on a fresh, traced cell of the run's
 * own Redis (RunStore). The cell's trace is then validated against the spec (validate.ts) and judged by
 * the history checker (harness/history.ts). A run is reproducible from its seed as a scenario; the
 * interleaving is the machine's.
 */
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { type System, type SystemOptions, launchSystem } from '../../impl/ops/launch.js';
import type { ProcessHandle } from '../../impl/ops/processes.js';
import { type Client, dispatchClient } from '../../impl/rpc/client.js';
import type { DispatchMethods } from '../../impl/rpc/proto.js';
import { RunStore } from '../../harness/faults/store.js';
import type { HistorySummary } from '../../harness/history.js';
import type { Protocol } from '../../impl/store/schema.js';
import { type TraceEntry, configureCell, openStore, readTraceRows } from '../../impl/store/steps.js';
import { type RecordedRun, judge, saveRecorded } from './recorded.js';
import type { Verdict } from './validate.js';

/** Timings short enough that leases lapse and recovery runs within a run of a few seconds. */
const TIMINGS = { leaseTtlMs: 400, refreshMs: 100, recoveryMs: 150, sweepMs: 150 };
/** How long a run's end waits for its inputs to be released: past it, those left count as unreleased. */
const SETTLE_MS = 10_000;

type ClientOp =
  | { op: 'create'; s: number }
  | { op: 'push'; s: number; n: number; retry: boolean }
  | { op: 'migrate'; s: number; to: number | null }
  | { op: 'close'; s: number }
  | { op: 'wait'; ms: number };

type FaultOp =
  | { op: 'kill-worker'; w: number; downMs: number }
  | { op: 'pause-worker'; w: number; ms: number }
  | { op: 'partition-worker'; w: number; ms: number }
  | { op: 'delay-worker'; w: number; delayMs: number; ms: number }
  | { op: 'skew-worker'; w: number; skewMs: number }
  | { op: 'kill-dispatcher'; d: number }
  | { op: 'pause-dispatcher'; d: number; ms: number }
  | { op: 'crash-after-commit'; s: number }
  | { op: 'drain'; w: number }
  | { op: 'redis-restart'; downMs: number }
  | { op: 'redis-failover' };

export interface Scenario {
  workers: number;
  dispatchers: number;
  capacity: number;
  sessions: number;
  /** Each client's calls, in order; the clients run side by side. */
  clients: ClientOp[][];
  /** Faults, each after its delay from the start. */
  faults: { afterMs: number; fault: FaultOp }[];
}

/** fc.oneof's weighted choice of a record of these fields. */
const weighted = <T extends object>(weight: number, fields: { [K in keyof T]: fc.Arbitrary<T[K]> }) => ({
  weight,
  arbitrary: fc.record(fields),
});

export const scenarios: fc.Arbitrary<Scenario> = fc
  .record({
    workers: fc.integer({ min: 2, max: 3 }),
    dispatchers: fc.integer({ min: 1, max: 2 }),
    sessions: fc.integer({ min: 2, max: 4 }),
  })
  // enough capacity that the workers but one can host every session
  .chain((size) => {
    const least = Math.ceil(size.sessions / (size.workers - 1));
    return fc.integer({ min: least, max: Math.max(least, 3) }).map((capacity) => ({ ...size, capacity }));
  })
  .chain((size) => {
    const s = fc.integer({ min: 1, max: size.sessions });
    const w = fc.integer({ min: 1, max: size.workers });
    const clientOp: fc.Arbitrary<ClientOp> = fc.oneof(
      { arbitrary: fc.record({ op: fc.constant('create' as const), s }), weight: 3 },
      {
        arbitrary: fc.record({
          op: fc.constant('push' as const),
          s,
          n: fc.integer({ min: 1, max: 4 }),
          retry: fc.boolean(),
        }),
        weight: 4,
      },
      { arbitrary: fc.record({ op: fc.constant('migrate' as const), s, to: fc.option(w) }), weight: 2 },
      { arbitrary: fc.record({ op: fc.constant('close' as const), s }), weight: 1 },
      {
        arbitrary: fc.record({ op: fc.constant('wait' as const), ms: fc.integer({ min: 20, max: 400 }) }),
        weight: 1,
      },
    );
    const ms = fc.integer({ min: 100, max: 1200 });
    const fault: fc.Arbitrary<FaultOp> = fc.oneof(
      weighted(3, { op: fc.constant('kill-worker' as const), w, downMs: ms }),
      weighted(3, { op: fc.constant('pause-worker' as const), w, ms }),
      weighted(3, { op: fc.constant('partition-worker' as const), w, ms }),
      weighted(2, {
        op: fc.constant('delay-worker' as const),
        w,
        delayMs: fc.integer({ min: 20, max: 600 }),
        ms,
      }),
      weighted(2, {
        op: fc.constant('skew-worker' as const),
        w,
        skewMs: fc.integer({ min: -1200, max: 1200 }),
      }),
      weighted(1, {
        op: fc.constant('kill-dispatcher' as const),
        d: fc.integer({ min: 1, max: size.dispatchers }),
      }),
      weighted(1, {
        op: fc.constant('pause-dispatcher' as const),
        d: fc.integer({ min: 1, max: size.dispatchers }),
        ms,
      }),
      weighted(1, { op: fc.constant('crash-after-commit' as const), s }),
      weighted(1, { op: fc.constant('drain' as const), w }),
      weighted(1, { op: fc.constant('redis-restart' as const), downMs: ms }),
      weighted(1, { op: fc.constant('redis-failover' as const) }),
    );
    return fc.record({
      ...Object.fromEntries(Object.entries(size).map(([k, v]) => [k, fc.constant(v)])),
      // every session is created first by some client; the rest of the calls are drawn
      clients: fc
        .array(fc.array(clientOp, { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 3 })
        .map((lanes) => {
          const creates = Array.from({ length: size.sessions }, (_, i): ClientOp => ({
            op: 'create',
            s: i + 1,
          }));
          lanes[0] = [...creates, ...lanes[0]!];
          return lanes;
        }),
      faults: fc
        .array(fc.record({ afterMs: fc.integer({ min: 0, max: 1500 }), fault }), {
          minLength: 1,
          maxLength: 3,
        })
        // the workers neither killed nor drained can host every session: recovery always has room
        .filter((faults) => {
          const out = new Set(
            faults.flatMap(({ fault: f }) =>
              f.op === 'kill-worker' || f.op === 'skew-worker' || f.op === 'drain' ? [f.w] : [],
            ),
          );
          return (size.workers - out.size) * size.capacity >= size.sessions;
        }),
    }) as fc.Arbitrary<Scenario>;
  });

/** The scenario of a seed. */
export function scenarioOf(seed: number): Scenario {
  return fc.sample(scenarios, { seed, numRuns: 1 })[0]!;
}

export interface RunResult {
  scenario: Scenario;
  verdict: Verdict;
  /** The history checker on the trace: every input of a session still live released once, in order, by its owner. */
  history: HistorySummary;
  trace: TraceEntry[];
  /** Client calls that failed (refused, or their replica was killed): expected, counted. */
  failedCalls: number;
  /** Where the processes' logs are (kept when the run is rejected, with the recorded run: run.json). */
  logDir: string;
  seconds: number;
}

const sessionId = (i: number) => `s${i}`;
const workerId = (i: number) => `w${i}`;

/**
 * Runs a scenario on a fresh system and its own Redis, on `cell`, and validates its trace. A scenario
 * that fails Redis over runs with a replica, and every process WAITs for it on each write (the spec's
 * StoreMode "wait"). `options` change the system's (a baseline protocol, worker flags); `seed` is only
 * recorded.
 */
export async function runScenario(
  scenario: Scenario,
  cell: string,
  options: Pick<SystemOptions, 'protocol' | 'extraArgs'> & { seed?: number } = {},
): Promise<RunResult> {
  const started = Date.now();
  const workers = Array.from({ length: scenario.workers }, (_, i) => workerId(i + 1));
  const standby = scenario.faults.some((f) => f.fault.op === 'redis-failover');
  const db = await RunStore.start({ standby, links: ['harness', 'dispatch', ...workers] });
  const wait = standby ? ['--wait-replicas', '1'] : [];
  const system = await launchSystem({
    redisUrl: db.url('dispatch'),
    cell,
    workers: scenario.workers,
    dispatchers: scenario.dispatchers,
    capacity: scenario.capacity,
    workerArgs: Object.fromEntries(workers.map((w) => [w, ['--redis', db.url(w)]])),
    ...TIMINGS,
    ...options,
    extraArgs: {
      dispatch: [...(options.extraArgs?.dispatch ?? []), ...wait],
      worker: [...(options.extraArgs?.worker ?? []), ...wait],
    },
  }).catch(async (err: unknown) => {
    await db.stop();
    throw err;
  });
  const redis = new Redis(db.url('harness'), { maxRetriesPerRequest: 1 });
  const store = openStore(redis);
  const exercise = new Exercise(system, cell, db);
  let stream: RecordedRun['stream'] = [];
  let appended = new Map<string, number>();
  try {
    // the workers have registered (Init: every worker live, no session): trace from here on
    await configureCell(store, { cell, audit: true, trace: true });
    await Promise.all([
      ...scenario.clients.map((lane) => exercise.client(lane)),
      ...scenario.faults.map(({ afterMs, fault }) => sleep(afterMs).then(() => exercise.fault(fault))),
    ]);
    appended = await exercise.settle(scenario.sessions);
    stream = await readTraceRows(store, { cell });
  } finally {
    exercise.close();
    await system.stop();
    redis.disconnect();
    await db.stop();
  }
  const recorded: RecordedRun = {
    seed: options.seed,
    scenario,
    sessions: Array.from({ length: scenario.sessions }, (_, i) => sessionId(i + 1)),
    workers: Array.from({ length: scenario.workers }, (_, i) => workerId(i + 1)),
    capacity: scenario.capacity,
    appended: Object.fromEntries(appended),
    stream,
  };
  const { trace, verdict, history } = judge(recorded);
  if (!verdict.rejection && history.violations.length === 0)
    fs.rmSync(system.logDir, { recursive: true, force: true });
  else saveRecorded(`${system.logDir}/run.json`, recorded);
  return {
    scenario,
    verdict,
    history,
    trace,
    failedCalls: exercise.failed,
    logDir: system.logDir,
    seconds: (Date.now() - started) / 1000,
  };
}

/**
 * Runs the scenarios of `seeds`, `parallel` at a time, each on cell `<cellPrefix><seed>` of its own
 * Redis; `done` gets each run's result, or why it could not be run. Once `stop` is aborted no run
 * starts; the runs under way finish.
 */
export async function runSeeds(
  o: {
    seeds: readonly number[];
    parallel: number;
    cellPrefix: string;
    protocol?: Protocol;
    stop?: AbortSignal;
  },
  done: (seed: number, r: RunResult | { error: unknown }) => void,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let k = next++; k < o.seeds.length && !o.stop?.aborted; k = next++) {
      const seed = o.seeds[k]!;
      const run = runScenario(scenarioOf(seed), `${o.cellPrefix}${seed}`, { protocol: o.protocol, seed });
      done(seed, await run.catch((error: unknown) => ({ error })));
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.parallel, o.seeds.length) }, lane));
}

/** SIGSTOP, then SIGCONT `ms` later. */
async function pause(handle: ProcessHandle, ms: number): Promise<void> {
  handle.signal('SIGSTOP');
  await sleep(ms);
  handle.signal('SIGCONT');
}

/** Drives one system: client calls through any live replica, and faults. */
class Exercise {
  failed = 0;
  private readonly clients = new Map<string, Client<DispatchMethods>>();
  private next = 0;
  private pushes = 0;
  /** Per session, the highest seq an append returned. */
  private readonly appended = new Map<string, number>();
  /** Workers killed and not started again yet. */
  private readonly down = new Set<string>();
  /** The replicas killed on purpose (the doomed one too, from its start). */
  private readonly killed = new Set<ProcessHandle>();
  /** Replicas started so far: the next one's id is d<started + 1>. */
  private started: number;

  constructor(
    private readonly system: System,
    private readonly cell: string,
    private readonly db: RunStore,
  ) {
    this.started = system.dispatchers.length;
  }

  async client(ops: readonly ClientOp[]): Promise<void> {
    for (const op of ops) {
      const session = 's' in op ? sessionId(op.s) : '';
      const cell = this.cell;
      switch (op.op) {
        case 'create':
          await this.call((d) => d.call('createLive', { cell, session }));
          break;
        case 'push':
          for (let k = 0; k < op.n; k++) {
            const requestId = `r${++this.pushes}`;
            const push = (d: Client<DispatchMethods>) =>
              d.call('pushText', { cell, session, requestId, text: requestId }).then(({ seq }) => {
                this.appended.set(session, Math.max(seq, this.appended.get(session) ?? 0));
              });
            await this.call(push);
            if (op.retry) await this.call(push);
          }
          break;
        case 'migrate':
          await this.call((d) =>
            d.call('migrate', { cell, session, target: op.to === null ? '' : workerId(op.to), fromEpoch: 0 }),
          );
          break;
        case 'close':
          await this.call((d) => d.call('closeLive', { cell, session }));
          break;
        case 'wait':
          await sleep(op.ms);
          break;
      }
    }
  }

  async fault(f: FaultOp): Promise<void> {
    switch (f.op) {
      case 'kill-worker':
        await this.restart(workerId(f.w), f.downMs);
        return;
      case 'pause-worker':
        await pause(this.process(workerId(f.w)), f.ms);
        return;
      case 'partition-worker': {
        // what the worker sends is held, then delivered in order when the link heals
        const proxy = this.db.link(workerId(f.w));
        proxy.partition();
        await sleep(f.ms);
        proxy.heal();
        return;
      }
      case 'delay-worker': {
        const proxy = this.db.link(workerId(f.w));
        proxy.delayMs = f.delayMs;
        await sleep(f.ms);
        proxy.delayMs = 0;
        return;
      }
      case 'skew-worker':
        await this.restart(workerId(f.w), 0, ['--clock-skew-ms', String(f.skewMs)]);
        return;
      case 'kill-dispatcher': {
        const victim = this.live()[f.d - 1];
        if (!victim) return;
        // its replacement first: the clients always have a replica, and calls in flight on the victim
        // fail; a replacement that cannot start (Redis away) spares the victim
        if (!(await this.system.addDispatcher(`d${++this.started}`).catch(() => null))) {
          this.failed++;
          return;
        }
        this.killed.add(victim);
        victim.signal('SIGKILL');
        await victim.exited;
        return;
      }
      case 'pause-dispatcher': {
        // calls under way on it wait (or time out), then it goes on with what it read before
        const victim = this.live()[f.d - 1];
        if (victim) await pause(victim, f.ms);
        return;
      }
      case 'crash-after-commit': {
        const doomed = await this.system
          .addDispatcher(`d${++this.started}`, ['--fault', 'crash-after-commit'])
          .catch(() => null);
        if (!doomed) {
          this.failed++;
          return;
        }
        this.killed.add(doomed);
        const d = dispatchClient(doomed.addr, 2000);
        await d.call('createLive', { cell: this.cell, session: sessionId(f.s) }).catch(() => this.failed++);
        d.close();
        return;
      }
      case 'drain':
        await this.call((d) => d.call('drainWorker', { cell: this.cell, worker: workerId(f.w) }));
        return;
      case 'redis-restart':
        await this.db.restart(f.downMs);
        return;
      case 'redis-failover':
        await this.db.failover();
        return;
    }
  }

  /**
   * SIGKILL, then the same worker id again after `downMs` (with `extra` flags): it registers once its
   * lease has lapsed. One process per worker id at a time (the spec's worker is one process): a worker
   * already down is not killed again, so it is not started twice either.
   */
  private async restart(id: string, downMs: number, extra: string[] = []): Promise<void> {
    if (this.down.has(id)) return;
    this.down.add(id);
    const handle = this.process(id);
    handle.signal('SIGKILL');
    await handle.exited;
    await sleep(downMs);
    await this.system.addWorker(id, extra).catch(() => this.failed++);
    this.down.delete(id);
  }

  /**
   * Waits until every live session is claimed and has released what was appended (at most SETTLE_MS);
   * returns, per session still live, how many inputs were appended (each must have been released). A
   * session whose state cannot be read (Dispatch or Redis still recovering) is waited for; still
   * unreadable at the deadline, the run cannot be judged and this throws.
   */
  async settle(sessions: number): Promise<Map<string, number>> {
    const deadline = Date.now() + SETTLE_MS;
    const cell = this.cell;
    const ids = Array.from({ length: sessions }, (_, i) => sessionId(i + 1));
    for (;;) {
      const d = this.dispatch();
      // per session: its state, null when it does not exist, or why it could not be read
      const read = await Promise.all(
        ids.map((session) =>
          d.call('getSession', { cell, session }).then(
            (state) => ({ state }),
            (err: unknown) =>
              (err as { code?: unknown }).code === grpc.status.NOT_FOUND
                ? { state: null }
                : { why: String(err) },
          ),
        ),
      );
      const unreadable = ids.flatMap((id, i) => {
        const r = read[i]!;
        return 'why' in r ? [`${id}: ${r.why}`] : [];
      });
      const live = ids.flatMap((id, i) => {
        const r = read[i]!;
        return 'state' in r && r.state && r.state.phase !== 'closed' ? [{ id, ...r.state }] : [];
      });
      const busy =
        unreadable.length > 0 ||
        live.some((s) => s.phase !== 'claimed' || s.releasedSeq < (this.appended.get(s.id) ?? 0));
      if (!busy || Date.now() > deadline) {
        if (unreadable.length > 0)
          throw new Error(`session states could not be read: ${unreadable.join('; ')}`);
        return new Map(live.map((s) => [s.id, this.appended.get(s.id) ?? 0]));
      }
      await sleep(100);
    }
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
  }

  /** The worker's latest process (a dead one's signals do nothing). */
  private process(id: string): ProcessHandle {
    return this.system.workers.filter((p) => p.id === id).at(-1)!;
  }

  /** The replicas not killed on purpose. */
  private live() {
    return this.system.dispatchers.filter(
      (p) => !this.killed.has(p) && p.child.exitCode === null && p.child.signalCode === null,
    );
  }

  private dispatch(): Client<DispatchMethods> {
    const live = this.live();
    if (live.length === 0) throw new Error('no Dispatch replica is alive: one exited by itself');
    const handle = live[this.next++ % live.length]!;
    let c = this.clients.get(handle.addr);
    if (!c) this.clients.set(handle.addr, (c = dispatchClient(handle.addr, 3000)));
    return c;
  }

  /** One client call through a live replica; a refusal or a replica killed under it is counted, not thrown. */
  private async call(f: (d: Client<DispatchMethods>) => Promise<unknown>): Promise<void> {
    await f(this.dispatch()).catch(() => this.failed++);
  }
}
