import net from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedis, useStore } from '../../impl/test-support/redis.js';
import { FaultProxy } from './proxy.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An echo server and a client connected to it through a fresh proxy; `received` is what came back. */
async function echoThroughProxy() {
  const echo = net.createServer((s) => s.pipe(s));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()));
  closers.push(() => new Promise((resolve) => echo.close(() => resolve())));
  const proxy = await FaultProxy.start({ host: '127.0.0.1', port: (echo.address() as net.AddressInfo).port });
  closers.push(() => proxy.close());
  const client = net.connect(proxy.port, '127.0.0.1');
  await new Promise<void>((resolve) => client.once('connect', () => resolve()));
  closers.push(async () => void client.destroy());
  let received = '';
  client.on('data', (d: Buffer) => (received += d.toString()));
  client.on('error', () => {});
  const until = async (text: string) => {
    for (const deadline = Date.now() + 5000; received !== text; await new Promise((r) => setTimeout(r, 5))) {
      if (Date.now() > deadline) throw new Error(`received ${JSON.stringify(received)}, not ${text}`);
    }
  };
  return { proxy, client, until, received: () => received };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the fault proxy', () => {
  it('passes bytes both ways, in order', async () => {
    const { client, until } = await echoThroughProxy();
    client.write('one ');
    client.write('two');
    await until('one two');
  });

  it('holds everything while partitioned and delivers it, in order, on heal', async () => {
    const { proxy, client, until, received } = await echoThroughProxy();
    proxy.partition();
    client.write('a');
    client.write('b');
    await sleep(200);
    expect(received()).toBe('');
    proxy.heal();
    await until('ab');
  });

  it('delays each chunk by delayMs', async () => {
    const { proxy, client, until } = await echoThroughProxy();
    proxy.delayMs = 150;
    const started = Date.now();
    client.write('x');
    await until('x');
    // there and back: two delays
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('cut resets every connection and loses what was held', async () => {
    const { proxy, client, received } = await echoThroughProxy();
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    proxy.partition();
    client.write('lost');
    proxy.cut();
    await closed;
    proxy.heal();
    expect(received()).toBe('');
    expect(proxy.open).toBe(0);
  });

  describe('in front of Redis', () => {
    const f = useStore();
    it('a command sent while partitioned completes on heal', async () => {
      const proxy = await FaultProxy.start({ host: f.server.host, port: f.server.port });
      closers.push(() => proxy.close());
      const r = new Redis({ host: '127.0.0.1', port: proxy.port });
      closers.push(async () => void r.disconnect());
      expect(await r.ping()).toBe('PONG');
      proxy.partition();
      const held = r.set('proxy-test', '1');
      await sleep(100);
      expect(await f.redis.get('proxy-test')).toBeNull();
      proxy.heal();
      expect(await held).toBe('OK');
      expect(await f.redis.get('proxy-test')).toBe('1');
    });

    it('retargeted, it resets its connections and its clients reconnect to the new target', async () => {
      const other = await startRedis();
      closers.push(() => other.stop());
      const proxy = await FaultProxy.start({ host: f.server.host, port: f.server.port });
      closers.push(() => proxy.close());
      const r = new Redis({ host: '127.0.0.1', port: proxy.port, retryStrategy: () => 10 });
      closers.push(async () => void r.disconnect());
      await r.set('proxy-target', 'first');
      proxy.retarget(other);
      expect(await r.get('proxy-target')).toBeNull();
      await r.set('proxy-target', 'second');
      expect(await f.redis.get('proxy-target')).toBe('first');
    });
  });
});
