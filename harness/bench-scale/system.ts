/**
 * One benchmarked system: a DHSched system launched as real processes (launchSystem) with the null
 * runtime, the bench's gRPC clients (one long-lived channel per Dispatch replica, calls round-robin over
 * them) and an observer connection to Redis for what the bench reads itself (load view, release
 * cursors, the audit stream, INFO). It drives the requests and keeps, per session, how many inputs were
 * appended, for the history check.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { connectRedis } from '../../impl/common/process.js';
import { type Client, PushStream, dispatchClient, retrying } from '../../impl/rpc/client.js';
import { type DispatchMethods, PUSH_STREAM_WINDOW } from '../../impl/rpc/proto.js';
import { cellKeys } from '../../impl/store/keys.js';
import type { Protocol } from '../../impl/store/schema.js';
import { type RedisClient, loadScriptShas, queueEvalsha, readReply } from '../../impl/store/scripts.js';
import {
  type TraceEntry,
  type Store,
  traceEntries,
  configureCell,
  openStore,
  readLoadView,
  readRelease,
} from '../../impl/store/steps.js';
import { type System, launchSystem } from '../../impl/ops/launch.js';
import { type LoadOptions, type LoadResult, runLoad } from './load.js';
import {
  LOOP_DELAY_RESOLUTION_MS,
  type LoopDelay,
  type Snapshot,
  ownLoopDelay,
  scrapeLoopDelay,
  snapshot,
  worstLoopDelay,
} from './probes.js';

export const CELL = 'default';
/** Deadline of one DrainWorker call: it moves every session of the worker, one after the other. */
const DRAIN_DEADLINE_MS = 600_000;
const AUDIT_PAGE = 50_000;
const SETTLE_CHUNK = 10_000;

export interface SystemSettings {
  protocol: Protocol;
  workers: number;
  dispatchers: number;
  capacity: number;
  /** Audit commits, closes and releases (the history check needs it); trace: every step too. */
  audit: boolean;
  trace: boolean;
  leaseTtlMs: number;
  heartbeatMs: number;
  sweepMs: number;
  refreshMs: number;
}

export interface DrainResult {
  worker: string;
  moved: number;
  notMoved: number;
  seconds: number;
  error?: string;
}

export const sessionId = (i: number) => `s${i}`;
/** The number of a session named by `sessionId` (NaN for any other id). */
export const sessionIndex = (id: string) => (id.startsWith('s') ? Number(id.slice(1)) : NaN);

/** How long a CreateLive of the bench is retried. */
const CREATE_RETRY_MS = 30_000;

/** How the bench sends PushText: unary calls, or PushTextStream. */
export type Ingress = 'unary' | 'stream';

/**
 * The load benchmarks' deployment by default: two Workers and one Dispatch replica, sized to this 2-core
 * box (with Redis and the load client, five busy processes). Four Workers and two replicas put nine
 * processes on the two cores; measured side by side at 100,000 sessions on the streaming ingress
 * (2026-12-04): 2,000/s P99 33.7 -> 9.9 ms, 5,000/s 27.9 -> 7.8 ms, 10,000/s 76.9 -> 19.9 ms.
 */
export const LOAD_BENCH_DEPLOYMENT = { workers: 2, dispatchers: 1 } as const;

/**
 * How long a load benchmark pushes, unmeasured, before it measures. A fresh system's first second of
 * PushText compiles its code paths in every process: measured at 50,000 sessions and 10,000/s
 * (2026-12-05), the first second of the first burst had P99 116-119 ms and 4,700-5,800 calls over
 * 16.5 ms, the first second of every later burst P99 4-8 ms. A long-lived deployment is warm.
 */
export const WARM_UP_SECONDS = 5;

/**
 * The system a load benchmark (bench-knee, bench-overload) runs: DHSched with its audit on, room for the
 * sessions on 2/3 of the workers, a sweep tick every 10 s.
 */
export function loadBenchSettings(o: {
  sessions: number;
  workers: number;
  dispatchers: number;
  leaseTtlMs: number;
  heartbeatMs: number;
}): SystemSettings {
  return {
    protocol: 'dhsched',
    audit: true,
    trace: false,
    workers: o.workers,
    dispatchers: o.dispatchers,
    capacity: Math.max(1, Math.ceil((o.sessions * 1.5) / o.workers)),
    leaseTtlMs: o.leaseTtlMs,
    heartbeatMs: o.heartbeatMs,
    sweepMs: 10_000,
    refreshMs: 200,
  };
}

export class BenchSystem {
  /** Sessions s0 .. s(created - 1) exist. */
  created = 0;
  /** Their ids, made once: a push names one without making a string. */
  private readonly sessions: string[] = [];
  /** Per session, the highest seq a PushText reply returned. */
  readonly appended = new Map<string, number>();
  private pushes = 0;
  private calls = 0;
  /** The bench's own event-loop ticks, measured as the system's processes measure theirs. */
  private readonly benchLoop = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });

  private constructor(
    readonly system: System,
    readonly settings: SystemSettings,
    readonly observer: RedisClient,
    readonly store: Store,
    private readonly clients: Client<DispatchMethods>[],
  ) {
    this.streams = clients.map((c) => new PushStream(c));
  }

  /** One push stream per replica, over the same channels as the unary calls. */
  private readonly streams: PushStream[];

  static async launch(s: SystemSettings): Promise<BenchSystem> {
    const system = await launchSystem({
      workers: s.workers,
      dispatchers: s.dispatchers,
      capacity: s.capacity,
      protocol: s.protocol,
      leaseTtlMs: s.leaseTtlMs,
      sweepMs: s.sweepMs,
      refreshMs: s.refreshMs,
      extraArgs: {
        worker: ['--runtime', 'null', '--heartbeat-ms', String(s.heartbeatMs)],
      },
    });
    const observer = connectRedis(system.redisUrl);
    const store = openStore(observer, { protocol: s.protocol });
    await configureCell(store, { cell: CELL, audit: s.audit, trace: s.trace });
    const clients = system.dispatchers.map((d) => dispatchClient(d.addr));
    return new BenchSystem(system, s, observer, store, clients);
  }

  /** The next Dispatch replica's client. */
  private client(): Client<DispatchMethods> {
    return this.clients[this.calls++ % this.clients.length]!;
  }

  /** The processes whose CPU and memory are measured, by group; Redis is read from INFO. */
  pids(): Record<string, number[]> {
    const pid = (p: { child: { pid?: number } }) => p.child.pid!;
    return {
      workers: this.system.workers.map(pid),
      dispatchers: this.system.dispatchers.map(pid),
      sink: [pid(this.system.sink)],
    };
  }

  snapshot(): Promise<Snapshot> {
    return snapshot(this.observer, this.pids());
  }

  /**
   * Each group's worst event-loop delay since the last call (the first call starts the window), the
   * bench's own included: where a latency tail comes from a process that could not run.
   */
  async loopDelays(): Promise<Record<'dispatchers' | 'workers' | 'bench', LoopDelay>> {
    const group = async (ps: readonly { metricsPort: number }[]) =>
      worstLoopDelay(await Promise.all(ps.map((p) => scrapeLoopDelay(p.metricsPort))));
    const bench = ownLoopDelay(this.benchLoop);
    this.benchLoop.enable();
    this.benchLoop.reset();
    return {
      dispatchers: await group(this.system.dispatchers),
      workers: await group(this.system.workers),
      bench,
    };
  }

  /** CreateLive of the sessions up to `n`, at `rate` per second. */
  async createUpTo(n: number, rate: number): Promise<LoadResult> {
    const first = this.created;
    // CreateLive is idempotent: one refused for overload or timed out is retried, jittered, for a while
    const result = await runLoad({ rate, total: n - first }, (i) =>
      retrying(() => this.client().call('createLive', { cell: CELL, session: sessionId(first + i) }), {
        deadline: Date.now() + CREATE_RETRY_MS,
      }),
    );
    for (let i = this.sessions.length; i < n; i++) this.sessions.push(sessionId(i));
    this.created = n;
    return result;
  }

  /** Waits until the workers report `n` runtimes (published with each heartbeat); false on timeout. */
  async waitRuntimes(n: number, timeoutMs: number): Promise<boolean> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await delay(100)) {
      const view = await readLoadView(this.store, { cell: CELL, now: Date.now() });
      if (view.reduce((a, w) => a + w.runtimes, 0) >= n) return true;
    }
    return false;
  }

  /**
   * PushText to sessions drawn at random, at `rate` per second, until `until` resolves: unary calls
   * round-robin over the replicas, or pushes on one PushTextStream per replica. `onAppended` sees each,
   * its session by number (session i is `sessionId(i)`).
   */
  push(
    rate: number,
    until: Promise<unknown>,
    ingress: Ingress = 'unary',
    onAppended?: (sessionIndex: number, seq: number, sentAt: number) => void,
    onEnd?: LoadOptions['onEnd'],
  ): Promise<LoadResult> {
    const maxInFlight = ingress === 'stream' ? this.streams.length * PUSH_STREAM_WINDOW : undefined;
    return runLoad({ rate, until, maxInFlight, onEnd }, async () => {
      const index = Math.floor(Math.random() * this.created);
      const session = this.sessions[index]!;
      const n = this.pushes++;
      const request = {
        cell: CELL,
        session,
        requestId: `r${n}`,
        text: `Hello, this is input number ${n}, said to session ${session}.`,
      };
      const sentAt = Date.now();
      const reply =
        ingress === 'stream'
          ? await this.streams[this.calls++ % this.streams.length]!.push(request)
          : await this.client().call('pushText', request);
      if (!reply.duplicate) onAppended?.(index, reply.seq, sentAt);
      this.appended.set(session, Math.max(this.appended.get(session) ?? 0, reply.seq));
    });
  }

  /** PushText at `rate` for `seconds`, unmeasured, then every input it appended released (`settleMs`). */
  async warmUp(rate: number, seconds: number, ingress: Ingress, settleMs: number): Promise<void> {
    await this.push(rate, delay(seconds * 1000), ingress);
    await this.settle(settleMs);
  }

  /**
   * Migrate calls at `rate` per second on sessions drawn at random until `total` have moved a session
   * (or twice as many have been tried): every other one to a target drawn among `targets`, the others
   * to whichever worker Dispatch ranks best. `onOk` sees each success.
   */
  migrate(total: number, rate: number, targets: readonly string[], onOk: () => void): Promise<LoadResult> {
    let ok = 0;
    let done: () => void = () => {};
    const enough = new Promise<void>((resolve) => (done = resolve));
    if (total === 0) done();
    return runLoad({ rate, until: enough }, async (i) => {
      if (i >= 2 * total) done();
      const session = sessionId(Math.floor(Math.random() * this.created));
      const target = i % 2 === 0 ? '' : targets[Math.floor(Math.random() * targets.length)]!;
      await this.client().call('migrate', { cell: CELL, session, target, fromEpoch: 0 });
      if (++ok === total) done();
      onOk();
    });
  }

  /** DrainWorker: how many sessions it moved, how many no worker took, or why it failed. */
  async drain(worker: string): Promise<DrainResult> {
    const t0 = performance.now();
    const seconds = () => Math.round(performance.now() - t0) / 1000;
    try {
      const reply = await this.client().call('drainWorker', { cell: CELL, worker }, DRAIN_DEADLINE_MS);
      return { worker, moved: reply.moved.length, notMoved: reply.notMoved.length, seconds: seconds() };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      return { worker, moved: 0, notMoved: 0, seconds: seconds(), error };
    }
  }

  /**
   * Waits until every input appended has been released (each session's release cursor, read by
   * readRelease in pipelines); returns how many sessions still lag after `timeoutMs`.
   */
  async settle(timeoutMs: number): Promise<number> {
    const shas = await loadScriptShas(this.observer);
    let lagging = [...this.appended.entries()];
    for (const deadline = Date.now() + timeoutMs; lagging.length > 0 && Date.now() < deadline;) {
      const next: [string, number][] = [];
      for (let i = 0; i < lagging.length; i += SETTLE_CHUNK) {
        const chunk = lagging.slice(i, i + SETTLE_CHUNK);
        const p = this.observer.pipeline();
        // the cursor alone: no input lies past the largest seq
        const calls = chunk.map(([session]) =>
          readRelease.build({ cell: CELL, session, fromSeq: Number.MAX_SAFE_INTEGER }),
        );
        for (const c of calls) queueEvalsha(p, shas, c);
        const replies = (await p.exec()) ?? [];
        chunk.forEach((entry, j) => {
          const [err, reply] = replies[j] ?? [new Error('no reply')];
          if (err) throw err;
          const [seq] = readReply(calls[j]!, reply);
          if (seq < entry[1]) next.push(entry);
        });
      }
      lagging = next;
      if (lagging.length > 0) await delay(250);
    }
    return lagging.length;
  }

  /**
   * The cell's audit stream, read in pages: commits, closes and releases, and every step when traced;
   * with `sinceMs`, the entries Redis added from that time on (an entry's id is its time, ms).
   */
  async audit(sinceMs = 0): Promise<TraceEntry[]> {
    const key = cellKeys(CELL).audit;
    const out: TraceEntry[] = [];
    for (let after = sinceMs > 0 ? `${sinceMs - 1}-18446744073709551615` : '0'; ;) {
      const rows = await this.observer.xrange(key, `(${after}`, '+', 'COUNT', AUDIT_PAGE);
      if (rows.length === 0) return out;
      // a release batch's entry is many releases: a loop, not push(...), whose arguments the stack bounds
      for (const [id, flat] of rows) for (const e of traceEntries(id, flat)) out.push(e);
      after = rows[rows.length - 1]![0];
    }
  }

  async stop(): Promise<void> {
    this.benchLoop.disable();
    for (const s of this.streams) s.close();
    for (const c of this.clients) c.close();
    this.observer.disconnect();
    await this.system.stop();
  }
}
