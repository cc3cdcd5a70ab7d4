/**
 * The Dispatch gRPC service on a real store: the API end to end, refusals of bad input that leave the
 * cell's keys untouched, and the fast-path calls to a worker's gRPC endpoint.
 */
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../common/log.js';
import { digestOf } from '../rpc/auth.js';
import { type Client, dispatchClient, workerClient } from '../rpc/client.js';
import { grpcCode } from '../rpc/errors.js';
import { type DispatchMethods, type WorkerMethods, services } from '../rpc/proto.js';
import { listen, shutdown, unaryService } from '../rpc/server.js';
import { serverCredentials } from '../rpc/tls.js';
import { cellKeys } from '../store/keys.js';
import * as steps from '../store/steps.js';
import { makeCerts } from '../test-support/certs.js';
import { loggedRequests, useStore } from '../test-support/redis.js';
import { type DispatchServer, type DispatchServerOptions, startDispatchServer } from './server.js';

const f = useStore();
const LONG = 600_000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(
  options: Partial<DispatchServerOptions> = {},
): Promise<{ server: DispatchServer; client: Client<DispatchMethods> }> {
  const server = await startDispatchServer({
    store: f.store,
    cells: [f.cell],
    refreshMs: 50,
    recoveryMs: 50,
    ...options,
  });
  const client = dispatchClient(server.addr);
  cleanups.push(
    () => server.stop(),
    () => client.close(),
  );
  return { server, client };
}

const register = (worker: string, cap: number, addr = '') =>
  steps.registerWorker(f.store, { cell: f.cell, worker, cap, now: Date.now(), ttlMs: LONG, addr });

/** The gRPC status name and message a call is refused with. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; details: string }> {
  try {
    await p;
  } catch (err) {
    return {
      code: grpc.status[grpcCode(err) ?? grpc.status.UNKNOWN],
      details: (err as grpc.ServiceError).details,
    };
  }
  throw new Error('the call succeeded; a refusal was expected');
}

/** Every key of the cell with its serialized value. */
async function dumpCell(): Promise<Record<string, string>> {
  const keys = (await f.redis.keys(`${cellKeys(f.cell).prefix}*`)).sort();
  const out: Record<string, string> = {};
  for (const k of keys) out[k] = (await f.redis.dumpBuffer(k))!.toString('hex');
  return out;
}

/** Polls until `done` holds, for up to 10 s. */
async function eventually(done: () => boolean | Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 10_000; !(await done());) {
    if (Date.now() > deadline) throw new Error('condition not reached in 10 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the Dispatch service', () => {
  it('serves create, push, get, list, migrate, drain, undrain and close', async () => {
    await register('w1', 2);
    await register('w2', 2);
    const { client } = await serve();
    const cell = f.cell;
    expect(await client.call('createLive', { cell, session: 's1' })).toEqual({
      cell,
      session: 's1',
      worker: 'w1',
      epoch: 1,
      phase: 'assigned',
      releasedSeq: 0,
      created: true,
      moved: false,
    });
    expect(await client.call('createLive', { cell, session: 's1' })).toMatchObject({ created: false });
    expect(await client.call('pushText', { cell, session: 's1', requestId: 'r-1', text: 'hi' })).toEqual({
      seq: 1,
      duplicate: false,
    });
    expect(await client.call('getSession', { cell, session: 's1' })).toMatchObject({
      worker: 'w1',
      epoch: 1,
    });
    expect(await client.call('listSessions', { cell, cursor: '', limit: 0 })).toMatchObject({
      sessions: [{ session: 's1' }],
      nextCursor: '0',
    });
    const moved = await client.call('migrate', { cell, session: 's1', target: '', fromEpoch: 1 });
    expect(moved).toMatchObject({ worker: 'w2', epoch: 2, moved: true });
    // the session is past the epoch the caller saw: it is returned as it is, and says it did not move
    expect(await client.call('migrate', { cell, session: 's1', target: '', fromEpoch: 1 })).toEqual({
      ...moved,
      moved: false,
    });
    expect(await client.call('drainWorker', { cell, worker: 'w2' })).toMatchObject({
      moved: [{ session: 's1', worker: 'w1', epoch: 3, moved: true }],
      notMoved: [],
    });
    expect((await client.call('listWorkers', { cell })).workers).toMatchObject([
      { worker: 'w1', live: true, capacity: 2, tokens: 2, placed: 1, draining: false },
      { worker: 'w2', live: true, capacity: 2, tokens: 1, placed: 0, draining: true },
    ]);
    expect(await client.call('undrainWorker', { cell, worker: 'w2' })).toEqual({ undrained: true });
    expect(await client.call('undrainWorker', { cell, worker: 'w2' })).toEqual({ undrained: false });
    expect((await client.call('listWorkers', { cell })).workers[1]).toMatchObject({ draining: false });
    expect(await refusal(client.call('undrainWorker', { cell, worker: 'w9' }))).toEqual({
      code: 'NOT_FOUND',
      details: `no worker w9 in cell ${cell}`,
    });
    expect(await client.call('closeLive', { cell, session: 's1' })).toMatchObject({
      phase: 'closed',
      epoch: 3,
    });
    expect(await refusal(client.call('createLive', { cell: '', session: 's1' }))).toEqual({
      code: 'RESOURCE_EXHAUSTED',
      details: 'no worker with room in cell default',
    });
  });

  it('refuses bad input with the right status and writes nothing', async () => {
    await register('w1', 2);
    const { client, server } = await serve();
    const cell = f.cell;
    await client.call('createLive', { cell, session: 's1' });
    await client.call('pushText', { cell, session: 's1', requestId: 'r1', text: 'hi' });
    const before = await dumpCell();
    const push = (over: Partial<DispatchMethods['pushText'][0]>) =>
      client.call('pushText', { cell, session: 's1', requestId: 'r2', text: 'x', ...over });
    const raw = new grpc.Client(server.addr, grpc.credentials.createInsecure());
    cleanups.push(() => raw.close());
    const rawPush = (bytes: Buffer) =>
      new Promise((resolve, reject) =>
        raw.makeUnaryRequest(
          '/dhsched.v1.Dispatch/PushText',
          (b: Buffer) => b,
          (b: Buffer) => b,
          bytes,
          (err, reply) => (err ? reject(err) : resolve(reply)),
        ),
      );
    const field = (n: number, s: string) => [(n << 3) | 2, s.length, ...Buffer.from(s)];
    const cases: [string, () => Promise<unknown>, string, string][] = [
      [
        'unknown session',
        () => client.call('getSession', { cell, session: 'nope' }),
        'NOT_FOUND',
        'no session nope',
      ],
      ['push to an unknown session', () => push({ session: 'nope' }), 'NOT_FOUND', 'no session nope'],
      [
        'oversized text',
        () => push({ text: 'x'.repeat(16 * 1024 + 1) }),
        'INVALID_ARGUMENT',
        'text: text is at most',
      ],
      [
        'oversized in bytes, not chars',
        () => push({ text: 'é'.repeat(8193) }),
        'INVALID_ARGUMENT',
        'text is at most',
      ],
      ['empty text', () => push({ text: '' }), 'INVALID_ARGUMENT', 'text: text is empty or only white space'],
      ['white space only', () => push({ text: ' \t\n ' }), 'INVALID_ARGUMENT', 'text: text is empty'],
      ['malformed session', () => push({ session: 'bad id' }), 'INVALID_ARGUMENT', 'session: an id is'],
      [
        'separator in an id',
        () => client.call('createLive', { cell, session: 'a:b' }),
        'INVALID_ARGUMENT',
        'session',
      ],
      [
        'malformed cell',
        () => client.call('createLive', { cell: 'c{1}', session: 's2' }),
        'INVALID_ARGUMENT',
        'cell',
      ],
      ['empty request id', () => push({ requestId: '' }), 'INVALID_ARGUMENT', 'requestId: a request id is'],
      ['long request id', () => push({ requestId: 'r'.repeat(129) }), 'INVALID_ARGUMENT', 'requestId'],
      [
        'epoch out of range',
        () => client.call('migrate', { cell, session: 's1', target: '', fromEpoch: 2 ** 60 }),
        'INVALID_ARGUMENT',
        'fromEpoch: an epoch is below 2^53',
      ],
      [
        'malformed target',
        () => client.call('migrate', { cell, session: 's1', target: 'w|1', fromEpoch: 0 }),
        'INVALID_ARGUMENT',
        'target',
      ],
      [
        'limit too large',
        () => client.call('listSessions', { cell, cursor: '', limit: 1001 }),
        'INVALID_ARGUMENT',
        'limit',
      ],
      [
        'bad cursor',
        () => client.call('listSessions', { cell, cursor: 'x', limit: 1 }),
        'INVALID_ARGUMENT',
        'cursor',
      ],
      ['empty worker', () => client.call('drainWorker', { cell, worker: '' }), 'INVALID_ARGUMENT', 'worker'],
      [
        'malformed worker',
        () => client.call('undrainWorker', { cell, worker: 'w|1' }),
        'INVALID_ARGUMENT',
        'worker',
      ],
      [
        'an id sent as an object',
        () => client.call('createLive', { cell, session: { a: 1 } as unknown as string }),
        'INVALID_ARGUMENT',
        'session: an id is',
      ],
      [
        'a text field whose length is cut off',
        () =>
          rawPush(Buffer.from([...field(1, cell), ...field(2, 's1'), ...field(3, 'r3'), (4 << 3) | 2, 0x80])),
        'INVALID_ARGUMENT',
        'not a valid protobuf message',
      ],
      [
        'a field of no wire type',
        () => rawPush(Buffer.from([...field(1, cell), ...field(2, 's1'), (9 << 3) | 7, 1])),
        'INVALID_ARGUMENT',
        'not a valid protobuf message',
      ],
    ];
    for (const [what, call, code, details] of cases) {
      const r = await refusal(call()).catch((err: Error) => {
        throw new Error(`${what}: ${err.message}`);
      });
      expect(r.code, what).toBe(code);
      expect(r.details, what).toContain(details);
    }
    expect(await dumpCell()).toEqual(before);
  });

  it('refuses a PushText past the session’s queue bound with RESOURCE_EXHAUSTED and says why', async () => {
    await register('w1', 2);
    const { client } = await serve({ maxQueued: 2 });
    const cell = f.cell;
    await client.call('createLive', { cell, session: 's1' });
    const push = (requestId: string) =>
      client.call('pushText', { cell, session: 's1', requestId, text: 'hi' });
    await push('r1');
    await push('r2');
    expect(await refusal(push('r3'))).toEqual({
      code: 'RESOURCE_EXHAUSTED',
      details: 'session s1 has 2 inputs not yet released; retry later',
    });
    expect(await push('r1')).toEqual({ seq: 1, duplicate: true });
  });

  it('refuses a session’s PushText calls past its rate with RESOURCE_EXHAUSTED, writing nothing; other sessions go on', async () => {
    await register('w1', 4);
    const { client } = await serve({ pushRate: 2 });
    const cell = f.cell;
    for (const session of ['s1', 's2']) await client.call('createLive', { cell, session });
    const push = (session: string, requestId: string) =>
      client.call('pushText', { cell, session, requestId, text: 'hi' });
    for (const r of ['r1', 'r2', 'r3', 'r4']) await push('s1', r); // a burst of twice the rate
    const before = await dumpCell();
    expect(await refusal(push('s1', 'r5'))).toEqual({
      code: 'RESOURCE_EXHAUSTED',
      details: 'session s1 sends more than 2 PushText calls a second; retry later',
    });
    expect(await dumpCell()).toEqual(before);
    expect(await push('s2', 'r1')).toEqual({ seq: 1, duplicate: false });
    await eventually(async () => (await push('s1', 'r5').catch(() => null)) !== null);
    expect(await loggedRequests(f.redis, cell, 's1')).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
  });

  it('with API keys: refuses a call without a known key and one for another tenant’s cell; never logs a key', async () => {
    await register('w1', 2);
    const keys = { mine: 'key-of-tenant-a-0123456789', theirs: 'key-of-tenant-b-9876543210' };
    const sha = (key: string) => digestOf(key).toString('hex');
    const lines: string[] = [];
    const log = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    const apiKeys = {
      tenants: [
        { tenant: 'a', keySha256: sha(keys.mine), cells: [f.cell] },
        { tenant: 'b', keySha256: sha(keys.theirs), cells: ['elsewhere'] },
      ],
    };
    const { server, client: anonymous } = await serve({ apiKeys, log });
    const as = (key: string) => {
      const c = dispatchClient(server.addr, 10_000, key);
      cleanups.push(() => c.close());
      return c;
    };
    const cell = f.cell;
    const before = await dumpCell();
    expect(await refusal(anonymous.call('createLive', { cell, session: 's1' }))).toEqual({
      code: 'UNAUTHENTICATED',
      details: 'a valid API key is required (authorization: Bearer <key>)',
    });
    expect((await refusal(as('not-a-known-key-000000').call('listWorkers', { cell }))).code).toBe(
      'UNAUTHENTICATED',
    );
    expect(await refusal(as(keys.theirs).call('createLive', { cell, session: 's1' }))).toEqual({
      code: 'PERMISSION_DENIED',
      details: `tenant b may not use cell ${cell}`,
    });
    expect(await dumpCell()).toEqual(before);
    expect(await as(keys.mine).call('createLive', { cell, session: 's1' })).toMatchObject({
      worker: 'w1',
      epoch: 1,
    });
    expect(await refusal(as(keys.theirs).call('getSession', { cell, session: 's1' }))).toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    expect(lines.length).toBeGreaterThan(0);
    for (const key of Object.values(keys)) expect(lines.join('\n')).not.toContain(key);
  });

  it('tells a move’s source and a closed session’s owner at their published address; a worker that does not answer fails nothing', async () => {
    const calls: [string, unknown][] = [];
    const fake = new grpc.Server();
    const record =
      <K extends keyof WorkerMethods>(method: K) =>
      async (request: WorkerMethods[K][0]) => {
        calls.push([method, request]);
        return { state: 'running' as const, epoch: 0, cursor: 0 };
      };
    const any = z.any();
    fake.addService(
      services().Worker.service,
      unaryService<Omit<WorkerMethods, 'health'>>(
        'Worker',
        { revoke: any, stop: any },
        {
          revoke: record('revoke'),
          stop: record('stop'),
        },
        silentLogger,
      ),
    );
    const addr = await listen(fake, '127.0.0.1:0');
    cleanups.push(() => shutdown(fake, 100));
    await register('w1', 2, addr);
    await register('w2', 2, addr);
    const { client } = await serve();
    const cell = f.cell;
    await client.call('createLive', { cell, session: 's1' });
    await client.call('pushText', { cell, session: 's1', requestId: 'r1', text: 'hi' });
    await client.call('migrate', { cell, session: 's1', target: 'w2', fromEpoch: 1 });
    await client.call('closeLive', { cell, session: 's1' });
    const expected = [
      ['revoke', { cell, session: 's1', epoch: 1 }],
      ['stop', { cell, session: 's1', epoch: 2 }],
    ];
    await eventually(() => calls.length >= expected.length);
    // assignments and inputs go by the work stream only
    expect(calls).toHaveLength(expected.length);
    expect(calls).toEqual(expect.arrayContaining(expected));

    // a worker whose address answers nothing
    await shutdown(fake, 100);
    expect(await client.call('createLive', { cell, session: 's2' })).toMatchObject({
      worker: 'w1',
      created: true,
    });
  });

  it('over mutual TLS: a worker that requires it hears a Dispatch holding the CA’s certificate, and no other client', async () => {
    const { worker, dispatch } = makeCerts(['worker', 'dispatch']);
    const rogue = makeCerts(['dispatch']).dispatch; // signed by another CA
    const revoked: unknown[] = [];
    const fake = new grpc.Server();
    const any = z.any();
    const answer = async (request: unknown) => (
      revoked.push(request),
      { state: 'stopped' as const, epoch: 0, cursor: 0 }
    );
    fake.addService(
      services().Worker.service,
      unaryService<Pick<WorkerMethods, 'revoke' | 'stop'>>(
        'Worker',
        { revoke: any, stop: any },
        { revoke: answer, stop: answer },
        silentLogger,
      ),
    );
    const addr = await listen(fake, '127.0.0.1:0', serverCredentials(worker));
    cleanups.push(() => shutdown(fake, 100));
    await register('w1', 2, addr);
    await register('w2', 2, addr);
    const { client } = await serve({ workerTls: dispatch });
    const cell = f.cell;
    await client.call('createLive', { cell, session: 's1' });
    await client.call('migrate', { cell, session: 's1', target: 'w2', fromEpoch: 1 });
    await eventually(() => revoked.length === 1);
    expect(revoked).toEqual([{ cell, session: 's1', epoch: 1 }]);

    const ref = { cell, session: 's1', epoch: 1 };
    const noClientCert = new (services().Worker)(addr, grpc.credentials.createSsl(dispatch.ca));
    cleanups.push(() => noClientCert.close());
    const refusedBy = async (c: Client<WorkerMethods>) => {
      cleanups.push(() => c.close());
      return refusal(c.call('revoke', ref));
    };
    expect((await refusedBy(workerClient(addr, 2000))).code).toBe('UNAVAILABLE');
    expect((await refusedBy(workerClient(addr, 2000, rogue))).code).toBe('UNAVAILABLE');
    type Revoke = {
      revoke(r: unknown, o: grpc.CallOptions, done: (err: grpc.ServiceError | null) => void): void;
    };
    const bare = await new Promise<grpc.ServiceError | null>((resolve) =>
      (noClientCert as unknown as Revoke).revoke(ref, { deadline: Date.now() + 2000 }, resolve),
    );
    expect(bare?.code).toBe(grpc.status.UNAVAILABLE);
    expect(revoked).toHaveLength(1);
  });
});
