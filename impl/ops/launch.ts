/**
 * One call starts a whole DHSched system as separate processes: Redis (a private redis-server unless a
 * URL is given), a media sink, N Dispatch replicas and M Workers. `stop` shuts them down gracefully.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { RedisUrl } from '../common/process.js';
import { Protocol } from '../store/schema.js';
import { type ProcessHandle, spawnProcess } from './processes.js';
import { type RedisServer, startRedis } from './redis-server.js';

export const SystemOptions = z.object({
  /** An existing Redis; absent: a private redis-server is started and stopped with the system. */
  redisUrl: RedisUrl.optional(),
  dispatchers: z.number().int().min(1).max(64).default(2),
  workers: z.number().int().min(1).max(256).default(3),
  capacity: z.number().int().min(1).max(100_000).default(4),
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
  workerArgs: z.record(z.array(z.string())).default({}),
  /** Extra flags per role, e.g. a fault to inject into one replica. */
  extraArgs: z
    .object({ dispatch: z.array(z.string()), worker: z.array(z.string()) })
    .partial()
    .default({}),
});
export type SystemOptions = z.input<typeof SystemOptions>;

export interface System {
  readonly redisUrl: string;
  readonly logDir: string;
  readonly sink: ProcessHandle;
  readonly dispatchers: ProcessHandle[];
  readonly workers: ProcessHandle[];
  /** Starts one more worker (e.g. to replace a killed one) with the system's settings. */
  addWorker(id: string, extraArgs?: string[]): Promise<ProcessHandle>;
  addDispatcher(id: string, extraArgs?: string[]): Promise<ProcessHandle>;
  stop(): Promise<void>;
}

export async function launchSystem(options: SystemOptions = {}): Promise<System> {
  const o = SystemOptions.parse(options);
  fs.mkdirSync(o.logDir, { recursive: true });
  let redis: RedisServer | undefined;
  const started: ProcessHandle[] = [];
  const stopAll = async () => {
    await Promise.all(started.map((p) => p.stop()));
    await redis?.stop();
  };
  try {
    if (!o.redisUrl) redis = await startRedis();
    const redisUrl = o.redisUrl ?? `redis://${redis!.host}:${redis!.port}`;
    const spawnLogged = async (role: Parameters<typeof spawnProcess>[0], id: string, args: string[]) => {
      const p = await spawnProcess(role, ['--id', id, ...args], {
        logFile: path.join(o.logDir, `${id}.log`),
      });
      started.push(p);
      return p;
    };
    const sink = await spawnLogged('media-sink', 'sink', []);
    const addWorker = (id: string, extra: string[] = []) =>
      spawnLogged('worker', id, [
        ...['--redis', redisUrl, '--cell', o.cell, '--capacity', String(o.capacity)],
        ...['--lease-ttl-ms', String(o.leaseTtlMs), '--sweep-ms', String(o.sweepMs)],
        ...['--sink', sink.addr, '--protocol', o.protocol],
        ...(o.extraArgs.worker ?? []),
        ...(o.workerArgs[id] ?? []),
        ...extra,
      ]);
    const addDispatcher = (id: string, extra: string[] = []) =>
      spawnLogged('dispatch', id, [
        ...['--redis', redisUrl, '--cells', o.cell, '--ranking', o.ranking],
        ...['--refresh-ms', String(o.refreshMs), '--recovery-ms', String(o.recoveryMs)],
        ...['--protocol', o.protocol],
        ...(o.extraArgs.dispatch ?? []),
        ...extra,
      ]);
    const workers = await Promise.all(Array.from({ length: o.workers }, (_, i) => addWorker(`w${i + 1}`)));
    const dispatchers = await Promise.all(
      Array.from({ length: o.dispatchers }, (_, i) => addDispatcher(`d${i + 1}`)),
    );
    return {
      redisUrl,
      logDir: o.logDir,
      sink,
      dispatchers,
      workers,
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
