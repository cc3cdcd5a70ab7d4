/**
 * What every DHSched process shares: connecting to the store, announcing readiness, graceful shutdown.
 * A process logs to stderr (pino) and writes exactly one line to stdout, a JSON `Ready` object, once it
 * serves; the launcher and the tests wait for that line.
 */
import { Cluster, Redis } from 'ioredis';
import { z } from 'zod';

export const Ready = z.object({
  ready: z.literal(true),
  role: z.enum(['dispatch', 'worker', 'media-sink']),
  id: z.string(),
  /** The gRPC address it serves on. */
  addr: z.string(),
  /** The port of its /metrics endpoint, 0 when it serves none. */
  metricsPort: z.number().int().nonnegative(),
  pid: z.number().int().positive(),
});
export type Ready = z.infer<typeof Ready>;

export function announceReady(ready: Omit<Ready, 'ready' | 'pid'>): void {
  process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid, ...ready })}\n`);
}

/** redis://host:port for one server, redis+cluster://host:port,host:port for a Redis Cluster. */
export const RedisUrl = z
  .string()
  .regex(
    /^redis(\+cluster)?:\/\/[^\s/]+(\/[0-9]+)?$/,
    'a Redis URL is redis://host:port or redis+cluster://h:p,h:p',
  );

export function connectRedis(url: string): Redis | Cluster {
  const u = RedisUrl.parse(url);
  if (u.startsWith('redis+cluster://')) {
    const nodes = u
      .slice('redis+cluster://'.length)
      .split(',')
      .map((hp) => ({
        host: hp.slice(0, hp.lastIndexOf(':')),
        port: Number(hp.slice(hp.lastIndexOf(':') + 1)),
      }));
    return new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: 2 } });
  }
  return new Redis(u, { maxRetriesPerRequest: 2 });
}

/** Runs `stop` once on SIGTERM or SIGINT, then exits 0 (1 if stopping failed). */
export function onShutdown(
  stop: () => Promise<void>,
  log: { info(msg: string): void; error(o: object, msg: string): void },
): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: shutting down`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => handler('SIGTERM'));
  process.once('SIGINT', () => handler('SIGINT'));
}
