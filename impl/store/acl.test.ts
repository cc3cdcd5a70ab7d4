/** The roles' Redis users on a real redis-server: each role's steps run; nothing else does. */
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../ops/redis-server.js';
import { inCell } from '../test-support/cell.js';
import { SCRIPT_COMMANDS, aclLine, aclRules } from './acl.js';
import * as steps from './steps.js';

const PASSWORD = { dispatch: 'dispatch-secret-123', worker: 'worker-secret-456' };
const T0 = 1_700_000_000_000;

describe('Redis ACL per role', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  const as = (user: string, password: string) => {
    const c = new Redis({
      host: server.host,
      port: server.port,
      username: user,
      password,
      maxRetriesPerRequest: 0,
    });
    clients.push(c);
    return c;
  };
  beforeAll(async () => {
    server = await startRedis();
    const admin = new Redis({ host: server.host, port: server.port });
    await admin.call('ACL', 'SETUSER', 'dispatch', ...aclRules('dispatch'), `>${PASSWORD.dispatch}`);
    await admin.call('ACL', 'SETUSER', 'worker', ...aclRules('worker', 'c1'), `>${PASSWORD.worker}`);
    await admin.set('elsewhere', 'untouched');
    await admin.call('ACL', 'SETUSER', 'default', 'off');
    admin.disconnect();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await server.stop();
  });

  it('lists every command the Lua scripts call', () => {
    const lua = path.resolve(import.meta.dirname, 'lua');
    const files = [
      ...fs.readdirSync(lua),
      ...fs.readdirSync(path.join(lua, 'includes')).map((f) => `includes/${f}`),
    ];
    const called = new Set<string>();
    for (const f of files.filter((f) => f.endsWith('.lua'))) {
      for (const m of fs.readFileSync(path.join(lua, f), 'utf8').matchAll(/redis\.p?call\('([A-Z]+)'/g))
        called.add(m[1]!.toLowerCase());
    }
    expect([...called].sort()).toEqual([...SCRIPT_COMMANDS].sort());
  });

  it('runs each role’s steps, and refuses other keys, other cells and administrative commands', async () => {
    const dispatch = steps.openStore(as('dispatch', PASSWORD.dispatch));
    const worker = steps.openStore(as('worker', PASSWORD.worker));
    const d = inCell(dispatch, 'c1');
    const w = inCell(worker, 'c1');
    await w.register('w1', 2, T0);
    expect(await d.create('s1', 'w1', T0)).toBe(1);
    expect(await w.claim('w1', 's1', 1)).toBe('claimed');
    await d.append('s1', 'r1');
    expect(await w.release('w1', 's1', 1, 1)).toMatchObject({ requestId: 'r1' });
    expect(await worker.redis.xread('COUNT', 10, 'STREAMS', 'dh:{c1}:stream:w1', '0-0')).not.toBeNull();

    const noperm = /NOPERM|can't access/;
    await expect(inCell(worker, 'c2').register('w1', 2, T0)).rejects.toThrow(noperm);
    for (const redis of [dispatch.redis, worker.redis] as Redis[]) {
      await expect(redis.get('elsewhere')).rejects.toThrow(noperm);
      await expect(redis.flushall()).rejects.toThrow(noperm);
      await expect(redis.keys('*')).rejects.toThrow(noperm);
      await expect(redis.call('CONFIG', 'GET', 'dir')).rejects.toThrow(noperm);
      await expect(redis.eval("return redis.call('GET', 'elsewhere')", 0)).rejects.toThrow(noperm);
    }
    await expect((worker.redis as Redis).call('WAIT', 0, 10)).rejects.toThrow(noperm);
    await expect((dispatch.redis as Redis).xread('STREAMS', 'dh:{c1}:stream:w1', '0-0')).rejects.toThrow(
      noperm,
    );
    await expect(as('dispatch', 'wrong').ping()).rejects.toThrow(/WRONGPASS/);
    await expect(
      new Redis({ host: server.host, port: server.port, maxRetriesPerRequest: 0 }).get('dh:{c1}:sessions'),
    ).rejects.toThrow(/NOAUTH|NOPERM/);
  });

  it('writes aclfile lines that hold a digest of the password, not the password', () => {
    const line = aclLine('worker', 'worker', PASSWORD.worker, 'c1');
    expect(line).toMatch(/^user worker reset on ~dh:\{c1\}:\* resetchannels -@all .*\+xread #[0-9a-f]{64}$/);
    expect(line).not.toContain(PASSWORD.worker);
  });
});
