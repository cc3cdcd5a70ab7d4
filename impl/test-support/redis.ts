/**
 * Redis for tests: `useStore` gives each test a fresh cell (key namespace) on the suite's private
 * redis-server and deletes the cell's keys after it.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type RedisServer, startRedis } from '../ops/redis-server.js';
import { cellKeys } from '../store/keys.js';
import { type Store, type StoreOptions, openStore } from '../store/steps.js';

export { REDIS_CLI, REDIS_SERVER, type RedisServer, startCluster, startRedis } from '../ops/redis-server.js';

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
