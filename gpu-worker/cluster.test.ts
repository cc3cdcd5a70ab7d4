/** The Infer-Controller on a 3-master Redis Cluster: its blocking work-stream reads and every step it runs. */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../impl/common/log.js';
import { inCell } from '../impl/test-support/cell.js';
import { newCell, startCluster } from '../impl/test-support/redis.js';
import { openStore } from '../impl/store/steps.js';
import { InferController } from './controller.js';
import { cpuReference } from './runtime/cpu-reference.js';
import { waitFor } from './test-support.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: Cluster;

beforeAll(async () => {
  cluster = await startCluster(3);
  client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 2 } });
}, 60_000);

afterAll(async () => {
  await client?.quit();
  await cluster?.stop();
});

describe('on a Redis Cluster', () => {
  it('claims from the work stream, releases in order, and hands over on a move', async () => {
    const store = openStore(client);
    const cell = newCell();
    const released: [string, number][] = [];
    const worker = (id: string) => {
      const c = new InferController({
        ...{ store, cell, worker: id, capacity: 2, addr: '', leaseTtlMs: 5000, sweepMs: 100 },
        ...{ backend: cpuReference, log: silentLogger },
        publisher: { publish: () => undefined, close: async () => undefined },
      });
      c.events.on('released', (e) => released.push([id, e.seq]));
      return c;
    };
    const [w1, w2] = [worker('w1'), worker('w2')];
    try {
      await Promise.all([w1.start(), w2.start()]);
      const c = inCell(store, cell);
      await c.create('s1', 'w1', Date.now());
      for (let i = 1; i <= 3; i++) await c.append('s1', `r${i}`);
      await waitFor(() => released.length === 3, 'inputs 1-3 on w1');
      await c.move('s1', ['w1', 1], 'w2', Date.now());
      for (let i = 4; i <= 5; i++) await c.append('s1', `r${i}`);
      await waitFor(() => released.length === 5, 'inputs 4-5 on w2');
      expect(released).toEqual([
        ['w1', 1],
        ['w1', 2],
        ['w1', 3],
        ['w2', 4],
        ['w2', 5],
      ]);
      await waitFor(() => w1.snapshot().runtimes.length === 0, 'the old runtime fenced');
    } finally {
      await Promise.all([w1.stop(), w2.stop()]);
    }
  });
});
