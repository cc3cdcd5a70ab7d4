/** The Worker gRPC service over a controller on a real Redis: validation, cell check, the calls. */
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../impl/common/log.js';
import { workerClient } from '../impl/rpc/client.js';
import { grpcCode } from '../impl/rpc/errors.js';
import { services } from '../impl/rpc/proto.js';
import { listen, shutdown } from '../impl/rpc/server.js';
import { inCell } from '../impl/test-support/cell.js';
import { useStore } from '../impl/test-support/redis.js';
import { workerService } from './server.js';
import { moveUnannounced, useWorkers, waitFor } from './test-support.js';

const f = useStore();
const makeWorker = useWorkers(f);
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serveWorker(worker: string) {
  const w = makeWorker(worker, { sweepMs: 60_000 });
  const server = new grpc.Server();
  server.addService(services().Worker.service, workerService(w.controller, silentLogger));
  const addr = await listen(server, '127.0.0.1:0');
  const client = workerClient(addr);
  closers.push(async () => {
    client.close();
    await shutdown(server, 1000);
  });
  return { ...w, client };
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return grpcCode(err);
  }
  throw new Error('the call succeeded');
};

describe('the Worker service', () => {
  it('rejects malformed requests with INVALID_ARGUMENT, another cell with NOT_FOUND', async () => {
    const { controller, client } = await serveWorker('w1');
    await controller.start();
    const cell = f.cell;
    expect(await codeOf(client.call('revoke', { cell, session: 'bad id!', epoch: 1 }))).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
    expect(await codeOf(client.call('stop', { cell, session: 's1', epoch: 0 }))).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
    expect(await codeOf(client.call('revoke', { cell: '', session: 's1', epoch: 1 }))).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
    expect(await codeOf(client.call('stop', { cell: 'elsewhere', session: 's1', epoch: 1 }))).toBe(
      grpc.status.NOT_FOUND,
    );
  });

  it('reports registering until it has registered', async () => {
    const { client } = await serveWorker('w1');
    expect(await client.call('health', {})).toMatchObject({ state: 'registering', incarnation: 0 });
  });

  it('reports its runtimes, and revokes one whose generation moved', async () => {
    const c = inCell(f.store, f.cell);
    const w1 = await serveWorker('w1');
    await w1.controller.start();
    await c.register('w2', 1, Date.now());
    await c.create('s1', 'w1', Date.now());
    const cell = f.cell;
    await c.append('s1', 'r1');
    await waitFor(() => w1.released.length === 1, 'input 1 released');
    expect(await w1.client.call('health', {})).toEqual({
      cell,
      worker: 'w1',
      incarnation: 1,
      capacity: 4,
      state: 'serving',
      runtimes: [{ session: 's1', epoch: 1, state: 'running', cursor: 1 }],
    });
    await moveUnannounced(f); // only the Revoke tells w1
    expect(await w1.client.call('revoke', { cell, session: 's1', epoch: 1 })).toEqual({
      state: 'stopped',
      epoch: 1,
      cursor: 1,
    });
    expect(await w1.client.call('revoke', { cell, session: 's1', epoch: 1 })).toEqual({
      state: 'absent',
      epoch: 1,
      cursor: 0,
    });
  });
});
