/**
 * The steps on a real 3-master Redis Cluster: every key of a step shares its cell's hash tag, so every
 * step runs in one slot, whichever master serves it (registerWorker also reads the cell's gen keys).
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TTL, inCell, refusal } from '../test-support/cell.js';
import { newCell, startCluster } from '../test-support/redis.js';
import { cellKeys } from './keys.js';
import * as steps from './steps.js';

const T0 = 1_700_000_000_000;
let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: Cluster;

beforeAll(async () => {
  cluster = await startCluster(3);
  client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 1 } });
});

afterAll(async () => {
  await client?.quit();
  await cluster?.stop();
});

/** One cell per master: redis-cli spreads the 16384 slots evenly over the three. */
async function cellPerMaster(): Promise<string[]> {
  const byThird = new Map<number, string>();
  while (byThird.size < 3) {
    const cell = newCell();
    const slot = Number(await client.cluster('KEYSLOT', cellKeys(cell).sessions));
    byThird.set(Math.floor((slot * 3) / 16384), cell);
  }
  return [...byThird.values()];
}

describe('on a 3-master Redis Cluster', () => {
  it('runs every step of a session’s life in each master’s slots', async () => {
    const store = steps.openStore(client);
    for (const cell of await cellPerMaster()) {
      const c = inCell(store, cell);
      await steps.configureCell(store, { cell, audit: true });
      await c.register('w1', 2, T0);
      await c.register('w2', 2, T0);
      expect(await c.create('s1', 'w1', T0)).toBe(1);
      expect(await c.claim('w1', 's1', 1)).toBe('claimed');
      expect(await c.append('s1', 'r1')).toEqual({ seq: 1, duplicate: false });
      expect(await c.append('s1', 'r1')).toEqual({ seq: 1, duplicate: true });
      expect(await c.release('w1', 's1', 1, 1)).toMatchObject({ requestId: 'r1' });
      // the steps that reach keys named by stored values (same hash tag, same slot)
      expect(await steps.readPlaced(store, { cell, worker: 'w1' })).toHaveLength(1);
      expect((await steps.readSessions(store, { cell })).sessions).toHaveLength(1);
      await steps.publishLoad(store, { cell, worker: 'w1', incarnation: 1, runtimes: 1, queued: 0, now: T0 });
      const view = await steps.readLoadView(store, { cell, now: T0 });
      expect(view.map((w) => [w.worker, w.placed, w.runtimes])).toEqual([
        ['w1', 1, 1],
        ['w2', 0, 0],
      ]);
      const head = await client.xrange(cellKeys(cell).stream('w1'), '-', '+');
      expect(await steps.ackStream(store, { cell, worker: 'w1', id: head.at(-1)![0] })).toEqual({
        trimmed: 1,
      });
      expect(await c.move('s1', ['w1', 1], 'w2', T0)).toBe(2);
      expect(await refusal(c.release('w1', 's1', 1, 2))).toBe('LOST_AUTHORITY');
      expect(await c.teardown('w1', 's1', 1)).toBe(true);
      expect(await c.claim('w2', 's1', 2)).toBe('claimed');
      expect(await c.released('s1')).toMatchObject({ seq: 1, by: { worker: 'w1', epoch: 1 } });
      await c.renew('w2', 1, T0 + 1);
      expect(await c.drain('w2')).toBe(true);
      expect(await c.close('s1')).toBe(2);
      expect(await c.gen('s1')).toEqual({ worker: 'w2', epoch: 2, phase: 'closed' });
      expect(await c.create('s2', 'w1', T0)).toBe(1);
      expect(await c.register('w1', 2, T0 + TTL)).toMatchObject({ incarnation: 2, adopted: 1 });
      expect(await c.gen('s2')).toEqual({ worker: 'w1', epoch: 2, phase: 'assigned' });
      expect(await c.worker('w2', T0 + 1)).toMatchObject({
        draining: true,
        tokens: [{ session: 's1', epoch: 2 }],
      });
      expect((await steps.readAudit(store, { cell })).map((a) => a.kind)).toEqual([
        'commit',
        'release',
        'commit',
        'close',
        'commit',
        'commit',
      ]);
    }
  });

  it('sends WAIT in the step’s own pipeline, on the master of its slot (no replicas: NOT_DURABLE)', async () => {
    const store = steps.openStore(client, { waitReplicas: 1, waitTimeoutMs: 20 });
    for (const cell of await cellPerMaster()) {
      expect(await refusal(inCell(store, cell).register('w1', 1, T0))).toBe('NOT_DURABLE');
    }
  });
});
