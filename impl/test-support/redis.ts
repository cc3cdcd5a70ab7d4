/**
 * Redis for tests: `useStore` gives each test a fresh cell (key namespace) on the suite's private
 * redis-server and deletes the cell's keys after it; `startCluster` starts a private Redis Cluster.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type RedisServer, startRedis } from '../ops/redis-server.js';
import { cellKeys } from '../store/keys.js';
import { type Input, type Store, type StoreOptions, inputsOf, openStore } from '../store/steps.js';

export { REDIS_SERVER, type RedisServer, startRedis } from '../ops/redis-server.js';

/** A fresh cell id. */
export function newCell(): string {
  return `t${randomBytes(6).toString('hex')}`;
}

/** Deletes every key of the cell. */
export async function dropCell(redis: Redis, cell: string): Promise<void> {
  const prefix = cellKeys(cell).prefix;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(
      cursor,
      'MATCH',
      `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`,
      'COUNT',
      500,
    );
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** The session's log as the store keeps it: every input appended, in order. */
export async function readLog(redis: Redis, cell: string, session: string): Promise<Input[]> {
  return inputsOf(await redis.lrange(cellKeys(cell).log(session), 0, -1), 0);
}

/** The request ids of the session's log, in order. */
export async function loggedRequests(redis: Redis, cell: string, session: string): Promise<string[]> {
  return (await readLog(redis, cell, session)).map((input) => input.requestId);
}

export interface StoreFixture {
  readonly server: RedisServer;
  readonly redis: Redis;
  readonly store: Store;
  /** This test's cell. */
  readonly cell: string;
  /** Another connection with the store's scripts, closed after the suite (racing callers). */
  connect(options?: StoreOptions): Store;
}

/** A private Redis for the suite and a fresh cell per test. */
export function useStore(options: StoreOptions = {}): StoreFixture {
  let server: RedisServer | undefined;
  let redis: Redis | undefined;
  let store: Store | undefined;
  let cell = '';
  const extra: Redis[] = [];
  const need = <T>(x: T | undefined): T => {
    if (x === undefined) throw new Error('useStore: used outside a test');
    return x;
  };
  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis({ host: server.host, port: server.port, maxRetriesPerRequest: 1 });
    store = openStore(redis, options);
  });
  afterAll(async () => {
    for (const r of [...extra, redis]) await r?.quit();
    await server?.stop();
  });
  beforeEach(() => {
    cell = newCell();
  });
  afterEach(async () => {
    await dropCell(need(redis), cell);
  });
  return {
    get server() {
      return need(server);
    },
    get redis() {
      return need(redis);
    },
    get store() {
      return need(store);
    },
    get cell() {
      return cell;
    },
    connect(opts = options) {
      const r = new Redis({ host: need(server).host, port: need(server).port, maxRetriesPerRequest: 1 });
      extra.push(r);
      return openStore(r, opts);
    },
  };
}

export const REDIS_CLI = process.env['REDIS_CLI'] ?? 'redis-cli';

/** A Redis Cluster of `masters` private servers (no replicas), its slots spread evenly by redis-cli. */
export async function startCluster(
  masters = 3,
): Promise<{ nodes: { host: string; port: number }[]; stop(): Promise<void> }> {
  const servers: RedisServer[] = [];
  const stop = async () => {
    for (const s of servers) await s.stop();
  };
  try {
    for (let i = 0; i < masters; i++) {
      servers.push(await startRedis(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf']));
    }
    const addrs = servers.map((s) => `${s.host}:${s.port}`);
    await new Promise<void>((resolve, reject) => {
      const cli = spawn(
        REDIS_CLI,
        ['--cluster', 'create', ...addrs, '--cluster-replicas', '0', '--cluster-yes'],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      cli.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      cli.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      cli.once('error', reject);
      cli.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`redis-cli --cluster create: ${out}`)),
      );
    });
    for (const s of servers) {
      const r = new Redis({ host: s.host, port: s.port, maxRetriesPerRequest: 1 });
      try {
        for (const deadline = Date.now() + 15_000; !(await r.cluster('INFO')).includes('cluster_state:ok');) {
          if (Date.now() > deadline) throw new Error(`cluster node ${s.port} did not reach cluster_state:ok`);
          await new Promise((res) => setTimeout(res, 50));
        }
      } finally {
        await r.quit();
      }
    }
    return { nodes: servers.map(({ host, port }) => ({ host, port })), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
