import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RunStore } from './store.js';

const stores: RunStore[] = [];
const clients: Redis[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  for (const s of stores.splice(0)) await s.stop();
});

async function start(standby: boolean): Promise<RunStore> {
  const store = await RunStore.start({ standby, links: ['a', 'b'] });
  stores.push(store);
  return store;
}

function client(url: string): Redis {
  const r = new Redis(url, { maxRetriesPerRequest: 20, retryStrategy: () => 20 });
  clients.push(r);
  return r;
}

const port = async (r: Redis) => Number(/tcp_port:(\d+)/.exec(await r.info('server'))![1]);

describe("a fault run's store", () => {
  it('keeps every acknowledged write across a crash and restart (AOF), and its clients reconnect', async () => {
    const store = await start(false);
    const a = client(store.url('a'));
    for (let i = 0; i < 50; i++) await a.incr('n');
    await store.restart(100);
    expect(await a.get('n')).toBe('50');
    expect(await client(store.url('b')).incr('n')).toBe(51);
  });

  it('fails over to its replica: acknowledged (WAITed) writes are there, every link moves to it', async () => {
    const store = await start(true);
    const a = client(store.url('a'));
    const b = client(store.url('b'));
    const before = await port(a);
    for (let i = 0; i < 50; i++) {
      await a.incr('n');
      expect(await a.wait(1, 1000)).toBe(1);
    }
    await store.failover();
    expect(await port(a)).not.toBe(before);
    expect(await port(b)).toBe(await port(a));
    expect(await b.get('n')).toBe('50');
    expect(await a.info('replication')).toMatch(/role:master/);
    // the new primary has a replica of its own: WAIT is satisfied again
    await a.incr('n');
    expect(await a.wait(1, 1000)).toBe(1);
  });

  it('refuses a failover without a standby', async () => {
    await expect((await start(false)).failover()).rejects.toThrow(/standby/);
  });

  it('runs its faults one at a time: a restart during a failover restarts the promoted primary', async () => {
    const store = await start(true);
    const a = client(store.url('a'));
    await a.set('k', 'v');
    expect(await a.wait(1, 1000)).toBe(1);
    await Promise.all([store.failover(), store.restart(50)]);
    expect(await a.get('k')).toBe('v');
    expect(await a.info('replication')).toMatch(/role:master/);
  });
});
