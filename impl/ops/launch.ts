/**
 * One call starts a whole DHSched system as separate processes: Redis (a private redis-server unless a
 * URL is given), a media sink, N Dispatch replicas and M Workers. `stop` shuts them down gracefully.
 * With `restartWorkersAfterMs` it supervises the workers: one whose process ends is started again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { RedisUrl } from '../common/process.js';
import { Capacity, Protocol } from '../store/schema.js';
import { type ProcessHandle, spawnProcess } from './processes.js';
import { type RedisServer, startRedis } from './redis-server.js';

export const SystemOptions = z.object({
  /** An existing Redis; absent: a private redis-server is started and stopped with the system. */
  redisUrl: RedisUrl.optional(),
  dispatchers: z.number().int().min(1).max(64).default(2),
  workers: z.number().int().min(1).max(256).default(3),
  capacity: Capacity.default(4),
  cell: z.string().default('default'),
  leaseTtlMs: z.number().int().min(100).default(3000),
  refreshMs: z.number().int().min(10).default(200),
  recoveryMs: z.number().int().min(10).default(500),
  sweepMs: z.number().int().min(10).default(500),
  ranking: z.enum(['least-loaded', 'p2c']).default('least-loaded'),
  protocol: Protocol.default('dhsched'),
  /** Each process's pino log goes to <logDir>/<id>.log. */
  logDir: z.string().default(() => fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-logs-'))),
  /** Extra flags of one worker id, after its role's, each time it starts (e.g. its own --redis, a proxy). */
  workerArgs: z.record(z.string(), z.array(z.string())).default({}),
  /** Extra flags per role, e.g. a fault to inject into one replica. */
  extraArgs: z
    .object({ dispatch: z.array(z.string()), worker: z.array(z.string()) })
    .partial()
    .default({}),
  /**
   * A worker whose process ends (not by `stop`) is started again this long after, with the same id and
   * flags; it registers as a new incarnation. Absent: never (tests and fault runs kill workers on purpose).
   */
  restartWorkersAfterMs: z.number().int().min(0).optional(),
});
export type SystemOptions = z.input<typeof SystemOptions>;

/** What befalls the system's processes while it runs; `stop` ends them without a word. */
export interface SystemEvents {
  /** A process ended; `killed`: by the system's `kill`, not a crash. */
  exited?(process: ProcessHandle, how: { code: number | string; killed: boolean }): void;
  /** A worker whose process ended is serving again (`restartWorkersAfterMs`). */
  restarted?(worker: ProcessHandle): void;
  /** Starting it again failed; it is tried again after the same delay. */
  restartFailed?(id: string, err: unknown): void;
}

export interface System {
  readonly redisUrl: string;
  readonly logDir: string;
  readonly sink: ProcessHandle;
  readonly dispatchers: ProcessHandle[];
  /** Every worker process started, in order (a restarted worker's new process is appended). */
  readonly workers: ProcessHandle[];
  /** The latest process of worker `id` (a restart's once it serves), if one was started. */
  worker(id: string): ProcessHandle | undefined;
  /** SIGKILL to one of the system's processes, which `exited` reports as killed; resolves once it ended. */
  kill(process: ProcessHandle): Promise<void>;
  /** Starts one more worker (e.g. to replace a killed one) with the system's settings. */
  addWorker(id: string, extraArgs?: string[]): Promise<ProcessHandle>;
  addDispatcher(id: string, extraArgs?: string[]): Promise<ProcessHandle>;
  /** Stops every process (a pending restart included) and the private Redis. */
  stop(): Promise<void>;
}

export async function launchSystem(options: SystemOptions = {}, events: SystemEvents = {}): Promise<System> {
  const o = SystemOptions.parse(options);
  fs.mkdirSync(o.logDir, { recursive: true });
  let redis: RedisServer | undefined;
  const started: ProcessHandle[] = [];
  const killed = new WeakSet<ProcessHandle>();
  const stopping = new AbortController();
  const restarts = new Set<Promise<void>>();
  const stopAll = async () => {
    stopping.abort();
    await Promise.all(restarts);
    await Promise.all(started.map((p) => p.stop()));
    await redis?.stop();
  };
  try {
    if (!o.redisUrl) redis = await startRedis();
    const redisUrl = o.redisUrl ?? `redis://${redis!.host}:${redis!.port}`;
    /** Starts a process logging to <logDir>/<id>.log; `restart` runs if it ends while the system runs. */
    const spawnLogged = async (
      role: Parameters<typeof spawnProcess>[0],
      id: string,
      args: string[],
      restart?: () => Promise<void>,
    ) => {
      const p = await spawnProcess(role, ['--id', id, ...args], {
        logFile: path.join(o.logDir, `${id}.log`),
      });
      started.push(p);
      void p.exited.then((code) => {
        if (stopping.signal.aborted) return;
        events.exited?.(p, { code, killed: killed.has(p) });
        if (!restart) return;
        const restarting = restart();
        restarts.add(restarting);
        void restarting.finally(() => restarts.delete(restarting));
      });
      return p;
    };
    const sink = await spawnLogged('media-sink', 'sink', []);
    const workers: ProcessHandle[] = [];
    const restartAfterMs = o.restartWorkersAfterMs;
    const addWorker = (id: string, extra: string[] = []): Promise<ProcessHandle> =>
      spawnLogged(
        'worker',
        id,
        [
          ...['--redis', redisUrl, '--cell', o.cell, '--capacity', String(o.capacity)],
          ...['--lease-ttl-ms', String(o.leaseTtlMs), '--sweep-ms', String(o.sweepMs)],
          ...['--sink', sink.addr, '--protocol', o.protocol],
          ...(o.extraArgs.worker ?? []),
          ...(o.workerArgs[id] ?? []),
          ...extra,
        ],
        restartAfterMs === undefined ? undefined : () => restartWorker(id, extra, restartAfterMs),
      );
    /** Starts worker `id` again `afterMs` after its process ended, and again after each failed start. */
    const restartWorker = async (id: string, extra: string[], afterMs: number): Promise<void> => {
      for (;;) {
        await delay(afterMs, undefined, { signal: stopping.signal }).catch(() => undefined);
        if (stopping.signal.aborted) return;
        try {
          const w = await addWorker(id, extra);
          workers.push(w);
          if (!stopping.signal.aborted) events.restarted?.(w);
          return;
        } catch (err) {
          if (stopping.signal.aborted) return;
          events.restartFailed?.(id, err);
        }
      }
    };
    const addDispatcher = (id: string, extra: string[] = []) =>
      spawnLogged('dispatch', id, [
        ...['--redis', redisUrl, '--cells', o.cell, '--ranking', o.ranking],
        ...['--refresh-ms', String(o.refreshMs), '--recovery-ms', String(o.recoveryMs)],
        ...['--protocol', o.protocol],
        ...(o.extraArgs.dispatch ?? []),
        ...extra,
      ]);
    workers.push(...(await Promise.all(Array.from({ length: o.workers }, (_, i) => addWorker(`w${i + 1}`)))));
    const dispatchers = await Promise.all(
      Array.from({ length: o.dispatchers }, (_, i) => addDispatcher(`d${i + 1}`)),
    );
    return {
      redisUrl,
      logDir: o.logDir,
      sink,
      dispatchers,
      workers,
      worker: (id) => workers.filter((w) => w.id === id).at(-1),
      async kill(p) {
        killed.add(p);
        p.signal('SIGKILL');
        await p.exited;
      },
      async addWorker(id, extra) {
        const w = await addWorker(id, extra);
        workers.push(w);
        return w;
      },
      async addDispatcher(id, extra) {
        const d = await addDispatcher(id, extra);
        dispatchers.push(d);
        return d;
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
