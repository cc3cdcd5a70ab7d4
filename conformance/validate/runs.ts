/**
 * Randomized real runs for trace validation: fast-check draws a scenario (concurrent clients creating
 * sessions, pushing text with retries, migrating and closing them; worker SIGKILLs with a restart, worker
 * SIGSTOP/SIGCONT pauses shorter or longer than the lease, Dispatch replicas killed, one killed right
 * after a commit, drains), which runs against a fresh system of real processes (launchSystem: Dispatch
 * replicas and Workers over gRPC) on a fresh, traced cell of a shared redis-server. The cell's trace is
 * then validated against the spec (validate.ts). A run is reproducible from its seed as a scenario; the
 * interleaving is the machine's.
 */
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { type System, type SystemOptions, launchSystem } from '../../impl/ops/launch.js';
import type { ProcessHandle } from '../../impl/ops/processes.js';
import { type Client, dispatchClient } from '../../impl/rpc/client.js';
import type { DispatchMethods } from '../../impl/rpc/proto.js';
import { type TraceEntry, configureCell, openStore, readTrace } from '../../impl/store/steps.js';
import { type RunInfo, type Verdict, validateTrace } from './validate.js';

/** Timings short enough that leases lapse and recovery runs within a run of a few seconds. */
const TIMINGS = { leaseTtlMs: 400, refreshMs: 100, recoveryMs: 150, sweepMs: 150 };

type ClientOp =
  | { op: 'create'; s: number }
  | { op: 'push'; s: number; n: number; retry: boolean }
  | { op: 'migrate'; s: number; to: number | null }
  | { op: 'close'; s: number }
  | { op: 'wait'; ms: number };

type FaultOp =
  | { op: 'kill-worker'; w: number; downMs: number }
  | { op: 'pause-worker'; w: number; ms: number }
  | { op: 'kill-dispatcher'; d: number }
  | { op: 'crash-after-commit'; s: number }
  | { op: 'drain'; w: number };

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
    const fault: fc.Arbitrary<FaultOp> = fc.oneof(
      {
        arbitrary: fc.record({
          op: fc.constant('kill-worker' as const),
          w,
          downMs: fc.integer({ min: 100, max: 1200 }),
        }),
        weight: 3,
      },
      {
        arbitrary: fc.record({
          op: fc.constant('pause-worker' as const),
          w,
          ms: fc.integer({ min: 100, max: 1200 }),
        }),
        weight: 3,
      },
      {
        arbitrary: fc.record({
          op: fc.constant('kill-dispatcher' as const),
          d: fc.integer({ min: 1, max: size.dispatchers }),
        }),
        weight: 1,
      },
      { arbitrary: fc.record({ op: fc.constant('crash-after-commit' as const), s }), weight: 1 },
      { arbitrary: fc.record({ op: fc.constant('drain' as const), w }), weight: 1 },
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
            faults.flatMap(({ fault: f }) => (f.op === 'kill-worker' || f.op === 'drain' ? [f.w] : [])),
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
  trace: TraceEntry[];
  /** Client calls that failed (refused, or their replica was killed): expected, counted. */
  failedCalls: number;
  /** Where the processes' logs are (kept when the run is rejected). */
  logDir: string;
  seconds: number;
}

const sessionId = (i: number) => `s${i}`;
const workerId = (i: number) => `w${i}`;

/**
 * Runs a scenario on a fresh system against the shared Redis at `redisUrl`, on `cell` (a cell no run used
 * before), and validates its trace. `options` change the system's (a baseline protocol, worker flags).
 */
export async function runScenario(
  redisUrl: string,
  scenario: Scenario,
  cell: string,
  options: Pick<SystemOptions, 'protocol' | 'extraArgs'> = {},
): Promise<RunResult> {
  const started = Date.now();
  const system = await launchSystem({
    redisUrl,
    cell,
    workers: scenario.workers,
    dispatchers: scenario.dispatchers,
    capacity: scenario.capacity,
    ...TIMINGS,
    ...options,
  });
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const store = openStore(redis);
  const exercise = new Exercise(system, cell);
  let trace: TraceEntry[] = [];
  try {
    // the workers have registered (Init: every worker live, no session): trace from here on
    await configureCell(store, { cell, audit: true, trace: true });
    await Promise.all([
      ...scenario.clients.map((lane) => exercise.client(lane)),
      ...scenario.faults.map(({ afterMs, fault }) => sleep(afterMs).then(() => exercise.fault(fault))),
    ]);
    await exercise.settle(scenario.sessions);
    trace = await readTrace(store, { cell });
  } finally {
    exercise.close();
    await system.stop();
    await redis.quit();
  }
  const run: RunInfo = {
    sessions: Array.from({ length: scenario.sessions }, (_, i) => sessionId(i + 1)),
    workers: Array.from({ length: scenario.workers }, (_, i) => workerId(i + 1)),
    capacity: scenario.capacity,
  };
  const verdict = validateTrace(trace, run);
  if (!verdict.rejection) fs.rmSync(system.logDir, { recursive: true, force: true });
  return {
    scenario,
    verdict,
    trace,
    failedCalls: exercise.failed,
    logDir: system.logDir,
    seconds: (Date.now() - started) / 1000,
  };
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
      case 'kill-worker': {
        // one process per worker id at a time (the spec's worker is one process): a worker already down
        // is not killed again, so it is not started twice either
        const id = workerId(f.w);
        if (this.down.has(id)) return;
        this.down.add(id);
        const handle = this.process(id);
        handle.signal('SIGKILL');
        await handle.exited;
        await sleep(f.downMs);
        // the same worker comes back: it registers once its lease has lapsed and its sessions moved
        await this.system.addWorker(id).catch(() => this.failed++);
        this.down.delete(id);
        return;
      }
      case 'pause-worker': {
        const handle = this.process(workerId(f.w));
        handle.signal('SIGSTOP');
        await sleep(f.ms);
        handle.signal('SIGCONT');
        return;
      }
      case 'kill-dispatcher': {
        const victim = this.live()[f.d - 1];
        if (!victim) return;
        // its replacement first: the clients always have a replica, and calls in flight on the victim fail
        await this.system.addDispatcher(`d${++this.started}`);
        this.killed.add(victim);
        victim.signal('SIGKILL');
        await victim.exited;
        return;
      }
      case 'crash-after-commit': {
        const doomed = await this.system.addDispatcher(`d${++this.started}`, [
          '--fault',
          'crash-after-commit',
        ]);
        this.killed.add(doomed);
        const d = dispatchClient(doomed.addr, 2000);
        await d.call('createLive', { cell: this.cell, session: sessionId(f.s) }).catch(() => this.failed++);
        d.close();
        return;
      }
      case 'drain':
        await this.call((d) => d.call('drainWorker', { cell: this.cell, worker: workerId(f.w) }));
        return;
    }
  }

  /** Waits until every live session is claimed and has released what was appended (at most 4 s). */
  async settle(sessions: number): Promise<void> {
    const deadline = Date.now() + 4000;
    const cell = this.cell;
    const ids = Array.from({ length: sessions }, (_, i) => sessionId(i + 1));
    while (Date.now() < deadline) {
      const d = this.dispatch();
      const states = await Promise.all(
        ids.map((session) => d.call('getSession', { cell, session }).catch(() => null)),
      );
      const busy = states.some(
        (s, i) =>
          s !== null &&
          s.phase !== 'closed' &&
          (s.phase !== 'claimed' || s.releasedSeq < (this.appended.get(ids[i]!) ?? 0)),
      );
      if (!busy) return;
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
