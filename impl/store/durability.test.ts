/**
 * waitReplicas: a mutating step is acknowledged only once replicas have it (Redis WAIT), as the spec's
 * StoreMode "wait" (DHSched_FailoverWait) requires; too few replicas is NOT_DURABLE, never success.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inCell, refusal } from '../test-support/cell.js';
import { type RedisServer, newCell, startRedis } from '../test-support/redis.js';
import { cellKeys } from './keys.js';
import { openStore } from './steps.js';

const T0 = 1_700_000_000_000;
let primary: RedisServer;
let replica: RedisServer;
const clients: Redis[] = [];

function client(server: RedisServer): Redis {
  const r = new Redis({ host: server.host, port: server.port, maxRetriesPerRequest: 1 });
  clients.push(r);
  return r;
}

beforeAll(async () => {
  primary = await startRedis(['--repl-diskless-sync-delay', '0']);
  replica = await startRedis(['--replicaof', primary.host, String(primary.port)]);
  const p = client(primary);
  for (const deadline = Date.now() + 10_000; ;) {
    if (/slave0:.*state=online/.test(await p.info('replication'))) break;
    if (Date.now() > deadline) throw new Error('the replica did not come online');
    await new Promise((r) => setTimeout(r, 50));
  }
});

afterAll(async () => {
  for (const r of clients) await r.quit();
  await replica?.stop();
  await primary?.stop();
});

describe('waitReplicas', () => {
  it('acknowledges each step once the replica has it', async () => {
    const cell = newCell();
    const c = inCell(openStore(client(primary), { waitReplicas: 1 }), cell);
    await c.register('w1', 1, T0);
    await c.create('s1', 'w1', T0);
    expect(await c.claim('w1', 's1', 1)).toBe('claimed');
    expect(await c.append('s1', 'r1')).toEqual({ seq: 1, duplicate: false });
    expect(await c.release('w1', 's1', 1, 1)).toMatchObject({ seq: 1 });
    const k = cellKeys(cell);
    const r = client(replica);
    expect(await r.hgetall(k.gen('s1'))).toEqual({
      w: 'w1',
      e: '1',
      ph: 'claimed',
      i: '1',
      ...{ rseq: '1', rw: 'w1', re: '1', rfrom: '0' },
    });
  });

  it('fails with NOT_DURABLE when fewer replicas acknowledge in time (the step itself ran)', async () => {
    const cell = newCell();
    const store = openStore(client(primary), { waitReplicas: 2, waitTimeoutMs: 50 });
    const c = inCell(store, cell);
    expect(await refusal(c.register('w1', 1, T0))).toBe('NOT_DURABLE');
    expect(await inCell(openStore(client(primary)), cell).worker('w1', T0)).toMatchObject({ incarnation: 1 });
  });

  it('a refusal stays a refusal, not NOT_DURABLE', async () => {
    const c = inCell(openStore(client(primary), { waitReplicas: 2, waitTimeoutMs: 50 }), newCell());
    expect(await refusal(c.append('s1', 'r1'))).toBe('NO_SESSION');
  });

  it('reads do not wait', async () => {
    const c = inCell(openStore(client(primary), { waitReplicas: 2, waitTimeoutMs: 5_000 }), newCell());
    const started = Date.now();
    expect(await c.gen('s1')).toBeNull();
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('Redis failover (asynchronous replication can roll an epoch back)', () => {
  it('loses no acknowledged step: one the replica did not have was refused NOT_DURABLE, never acknowledged', async () => {
    const old = await startRedis(['--repl-diskless-sync-delay', '0']);
    const standby = await startRedis(['--replicaof', old.host, String(old.port)]);
    const o = new Redis({ host: old.host, port: old.port, maxRetriesPerRequest: 1 });
    try {
      for (
        const deadline = Date.now() + 10_000;
        !/slave0:.*state=online/.test(await o.info('replication'));
      ) {
        if (Date.now() > deadline) throw new Error('the replica did not come online');
        await new Promise((r) => setTimeout(r, 50));
      }
      const cell = newCell();
      const c = inCell(openStore(o, { waitReplicas: 1, waitTimeoutMs: 5_000 }), cell);
      const impatient = inCell(openStore(o, { waitReplicas: 1, waitTimeoutMs: 200 }), cell);
      await c.register('w1', 2, T0);
      await c.register('w2', 2, T0);
      expect(await c.create('s1', 'w1', T0)).toBe(1); // acknowledged: the standby has it
      standby.signal('SIGSTOP'); // replication stalls, and its link breaks
      await o.client('KILL', 'TYPE', 'replica');
      expect(await refusal(impatient.move('s1', ['w1', 1], 'w2', T0))).toBe('NOT_DURABLE');
      old.signal('SIGKILL'); // the primary dies with a step the standby never got
      o.disconnect();
      standby.signal('SIGCONT');
      const promoted = client(standby);
      await promoted.replicaof('NO', 'ONE');

      // the acknowledged generation is there; the unacknowledged move is gone and was never reported done
      const after = inCell(openStore(promoted), cell);
      expect(await after.gen('s1')).toEqual({ worker: 'w1', epoch: 1, phase: 'assigned' });
      // a caller that saw NOT_DURABLE reads again and retries, guarded by what it reads now
      expect(await after.move('s1', ['w1', 1], 'w2', T0)).toBe(2);
      expect(await refusal(after.move('s1', ['w1', 1], 'w2', T0))).toBe('CONFLICT');
    } finally {
      o.disconnect();
      standby.signal('SIGCONT');
      await standby.stop();
      await old.stop();
    }
  });
});
