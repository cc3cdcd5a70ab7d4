/**
 * The PushText ingress on a real store: the push stream (replies per push, idempotence, refusals that
 * leave the stream open, flow control), batched appends, deadlines and bounded admission.
 */
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, PushRefused, PushStream, dispatchClient, retrying } from '../rpc/client.js';
import { rpcRefusals } from '../common/metrics.js';
import { RETRY_AFTER, grpcCode } from '../rpc/errors.js';
import { type DispatchMethods, PUSH_STREAM_WINDOW } from '../rpc/proto.js';
import * as steps from '../store/steps.js';
import { loggedRequests, readLog, useStore } from '../test-support/redis.js';
import { type DispatchServerOptions, startDispatchServer } from './server.js';

const f = useStore();
const LONG = 600_000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(options: Partial<DispatchServerOptions> = {}): Promise<Client<DispatchMethods>> {
  const server = await startDispatchServer({ store: f.store, cells: [f.cell], recoveryMs: 0, ...options });
  const client = dispatchClient(server.addr);
  cleanups.push(
    () => server.stop(),
    () => client.close(),
  );
  return client;
}

/** A cell with worker w1 and the sessions, each placed on it. */
async function withSessions(client: Client<DispatchMethods>, sessions: string[]): Promise<void> {
  await steps.registerWorker(f.store, {
    cell: f.cell,
    worker: 'w1',
    cap: 1000,
    now: Date.now(),
    ttlMs: LONG,
    addr: '',
  });
  for (const session of sessions) await client.call('createLive', { cell: f.cell, session });
}

const log = (session: string) => loggedRequests(f.redis, f.cell, session);
const push = (session: string, requestId: string, text = `text ${requestId}`) => ({
  cell: f.cell,
  session,
  requestId,
  text,
});

/** Holds Redis busy for `ms` (a script that spins), from a connection of its own. */
async function holdRedis(ms: number): Promise<{ done: Promise<unknown> }> {
  const other = f.connect().redis;
  await other.ping();
  const done = other.eval(
    `local t = redis.call('TIME'); local stop = t[1] * 1e6 + t[2] + ${ms * 1000}
    repeat t = redis.call('TIME') until t[1] * 1e6 + t[2] >= stop
    return 1`,
    0,
  );
  // the script runs once a PING sent after it on another connection waits
  await new Promise((r) => setTimeout(r, 20));
  return { done };
}

describe('PushTextStream', () => {
  it('answers each push with its own reply, as the unary call would, and stays open after a refusal', async () => {
    const client = await serve();
    await withSessions(client, ['s1', 's2']);
    const stream = new PushStream(client);
    cleanups.push(() => stream.close());
    const replies = await Promise.allSettled([
      stream.push(push('s1', 'a')),
      stream.push(push('s2', 'a')),
      stream.push(push('s1', 'b')),
      stream.push(push('s9', 'a')),
      stream.push({ ...push('s1', 'bad id'), requestId: 'bad id' }),
      stream.push(push('s1', 'a', 'retried')),
    ]);
    expect(
      replies.map((r) => (r.status === 'fulfilled' ? r.value : grpc.status[grpcCode(r.reason)!])),
    ).toEqual([
      { seq: 1, duplicate: false },
      { seq: 1, duplicate: false },
      { seq: 2, duplicate: false },
      'NOT_FOUND',
      'INVALID_ARGUMENT',
      { seq: 1, duplicate: true },
    ]);
    expect(await log('s1')).toEqual(['a', 'b']);
    expect((await readLog(f.redis, f.cell, 's1')).map((input) => input.text)).toEqual(['text a', 'text b']);
    // the same push over the unary API is the same append
    expect(await client.call('pushText', push('s2', 'a'))).toEqual({ seq: 1, duplicate: true });
    expect(await stream.push(push('s2', 'b'))).toEqual({ seq: 2, duplicate: false });
  });

  it('keeps at most its window in flight: a client is held back while replies do not come, and loses none', async () => {
    const client = await serve({ pushRate: 0, maxQueued: 0, admission: false });
    await withSessions(client, ['s1']);
    const stream = new PushStream(client);
    cleanups.push(() => stream.close());
    const busy = (await holdRedis(1500)).done;
    let writesDuringHold = -1;
    const total = 4 * PUSH_STREAM_WINDOW;
    const replies: Promise<unknown>[] = [];
    setTimeout(() => (writesDuringHold = stream.inFlight), 1000);
    for (let i = 1; i <= total; i++) {
      await stream.ready();
      replies.push(stream.push(push('s1', `r${i}`, 'x')));
    }
    // while no reply came the client could write its window and no more
    expect(writesDuringHold).toBe(PUSH_STREAM_WINDOW);
    await busy;
    const got = (await Promise.all(replies)) as { seq: number }[];
    expect(got.map((r) => r.seq)).toEqual(got.map((_, i) => i + 1));
    expect((await log('s1')).length).toBe(total);
  });

  it('does not run a push still waiting when its timeout passes: DEADLINE_EXCEEDED, nothing appended', async () => {
    const client = await serve();
    await withSessions(client, ['s1']);
    const stream = new PushStream(client);
    cleanups.push(() => stream.close());
    const busy = (await holdRedis(300)).done;
    const first = stream.push(push('s1', 'a'));
    await new Promise((r) => setTimeout(r, 20));
    const late = stream.push(push('s1', 'b'), 50);
    await busy;
    expect(await first).toEqual({ seq: 1, duplicate: false });
    await expect(late).rejects.toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
    expect(await log('s1')).toEqual(['a']);
  });
});

/** Calls of `method` refused for overload in this process so far (dhsched_rpc_refusals_total). */
const overloadRefusals = async (method: string) =>
  (await rpcRefusals.get()).values.find((v) => v.labels.method === method && v.labels.reason === 'overloaded')
    ?.value ?? 0;

describe('admission', () => {
  it('refuses calls past its limit at once, RESOURCE_EXHAUSTED with a retry-after, and a retrying client gets through', async () => {
    const client = await serve({ admission: { pushes: { initial: 1, min: 1, max: 1 } } });
    await withSessions(client, ['s1']);
    const busy = (await holdRedis(300)).done;
    const admitted = client.call('pushText', push('s1', 'a'));
    await new Promise((r) => setTimeout(r, 20));
    const before = [await overloadRefusals('pushText'), await overloadRefusals('pushTextStream')];
    const started = Date.now();
    const refused = await client.call('pushText', push('s1', 'b')).catch((err: grpc.ServiceError) => err);
    const stream = new PushStream(client);
    cleanups.push(() => stream.close());
    const refusedOnStream = await stream.push(push('s1', 'c')).catch((err: unknown) => err);
    expect(Date.now() - started).toBeLessThan(200);
    expect([await overloadRefusals('pushText'), await overloadRefusals('pushTextStream')]).toEqual([
      before[0]! + 1,
      before[1]! + 1,
    ]);
    expect(grpcCode(refused)).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(Number((refused as grpc.ServiceError).metadata.get(RETRY_AFTER)[0])).toBeGreaterThan(0);
    expect(refusedOnStream).toBeInstanceOf(PushRefused);
    expect((refusedOnStream as PushRefused).retryAfterMs).toBeGreaterThan(0);
    await busy;
    expect(await admitted).toEqual({ seq: 1, duplicate: false });
    expect(await log('s1')).toEqual(['a']);
    let attempts = 0;
    const busyAgain = (await holdRedis(200)).done;
    const held = client.call('pushText', push('s1', 'b'));
    const retried = await retrying(
      () => {
        attempts++;
        return client.call('pushText', push('s1', 'c'));
      },
      { deadline: Date.now() + 5000 },
    );
    await busyAgain;
    expect(await held).toEqual({ seq: 2, duplicate: false });
    expect(retried).toEqual({ seq: 3, duplicate: false });
    expect(attempts).toBeGreaterThan(1);
  });

  it('gives up at the deadline with the last refusal', async () => {
    const client = await serve({ admission: { pushes: { initial: 1, min: 1, max: 1 } } });
    await withSessions(client, ['s1']);
    const busy = (await holdRedis(400)).done;
    const held = client.call('pushText', push('s1', 'a'));
    const started = Date.now();
    const err = await retrying(() => client.call('pushText', push('s1', 'b')), {
      deadline: started + 150,
    }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(300);
    expect(grpcCode(err)).toBe(grpc.status.RESOURCE_EXHAUSTED);
    await busy;
    await held;
    expect(await log('s1')).toEqual(['a']);
  });
});
