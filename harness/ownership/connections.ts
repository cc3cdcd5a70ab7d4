/**
 * Worker processes' connections to Redis for ownership runs. A partition holds what the worker sends on
 * its connection (the socket is corked: its writes wait in memory) and heals by sending it, in order; a
 * crash destroys the socket, and what was held never reaches Redis.
 */
import { once } from 'node:events';
import { Redis } from 'ioredis';

/**
 * Connections reused from run to run: a new connection sends each script's source once before it can
 * call it by hash, which would cost more than a run. A crashed one is never given back.
 */
export class ConnectionPool {
  private readonly idle: Redis[] = [];

  /** `path`: the redis-server's unix socket (cheaper than TCP on localhost). */
  constructor(private readonly path: string) {}

  /** A connected connection: one that can be partitioned. */
  async take(): Promise<Redis> {
    const reused = this.idle.pop();
    if (reused) return reused;
    const redis = new Redis({ path: this.path, maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined);
    await once(redis, 'ready');
    return redis;
  }

  /** Takes back a connection that is not partitioned and has nothing in flight. */
  give(redis: Redis): void {
    this.idle.push(redis);
  }

  close(): void {
    for (const r of this.idle.splice(0)) r.disconnect();
  }
}

/** Holds what the connection sends until `heal`; it must be connected. */
export function partition(redis: Redis): void {
  redis.stream.cork();
}

export function heal(redis: Redis): void {
  redis.stream.uncork();
}

/** The process dies: its connection is closed and what it held is lost (ending the socket would send it). */
export function crash(redis: Redis): void {
  redis.stream.destroy();
  redis.disconnect();
}
