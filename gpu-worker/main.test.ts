/** The worker and media sink processes: flags, the Ready line, media end to end (the avatar's too), graceful shutdown. */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { Ready } from '../impl/common/process.js';
import { mediaSinkClient } from '../impl/rpc/client.js';
import { type Frame, services } from '../impl/rpc/proto.js';
import { inCell } from '../impl/test-support/cell.js';
import { useStore } from '../impl/test-support/redis.js';
import { decodeAvatarPayload } from './runtime/avatar.js';
import { waitFor } from './test-support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const f = useStore();
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function start(entry: string, args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, entry), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const firstLine = new Promise<string>((resolve) =>
    readline.createInterface({ input: child.stdout! }).once('line', resolve),
  );
  const ready = async () => {
    const exitedFirst = exited.then((code) => {
      throw new Error(`${entry} exited (${code}) before it was ready: ${stderr}`);
    });
    return Ready.parse(JSON.parse(await Promise.race([firstLine, exitedFirst])));
  };
  return { child, ready, exited, stderr: () => stderr };
}

describe('the processes', () => {
  it('exit with status 2 and say which flag is wrong', async () => {
    const worker = start('gpu-worker/main.ts', [
      '--redis',
      'redis://127.0.0.1:1',
      '--id',
      'w1',
      '--capacity',
      'x',
    ]);
    const sink = start('gpu-worker/media/main.ts', ['--metrics-port', '-5']);
    expect(await worker.exited).toBe(2);
    expect(worker.stderr()).toMatch(/--capacity/);
    expect(await sink.exited).toBe(2);
    expect(sink.stderr()).toMatch(/--metrics-port/);
  });

  it('times its lease on its own clock, skewed by --clock-skew-ms', async () => {
    const hour = 3_600_000;
    const worker = start('gpu-worker/main.ts', [
      ...['--redis', `redis://${f.server.host}:${f.server.port}`, '--cell', f.cell, '--id', 'w1'],
      ...['--runtime', 'null'],
      ...['--lease-ttl-ms', '1000', '--clock-skew-ms', String(hour)],
    ]);
    await worker.ready();
    const { expiresAt } = await inCell(f.store, f.cell).worker('w1', Date.now());
    expect(expiresAt).toBeGreaterThan(Date.now() + hour);
    expect(expiresAt).toBeLessThan(Date.now() + hour + 1000 + 1);
  });

  it('serve: the worker registers its address, frames reach the sink, SIGTERM stops both', async () => {
    const sink = start('gpu-worker/media/main.ts', ['--id', 'sink1']);
    const sinkReady = await sink.ready();
    expect(sinkReady).toMatchObject({ role: 'media-sink', id: 'sink1' });
    const redis = `redis://${f.server.host}:${f.server.port}`;
    const worker = start('gpu-worker/main.ts', [
      ...['--redis', redis, '--cell', f.cell, '--id', 'w1', '--sink', sinkReady.addr],
      ...['--lease-ttl-ms', '5000', '--metrics-port', '-1'],
    ]);
    const ready = await worker.ready();
    expect(ready).toMatchObject({ role: 'worker', id: 'w1', metricsPort: 0 });
    const c = inCell(f.store, f.cell);
    expect(await c.worker('w1', Date.now())).toMatchObject({ addr: ready.addr, live: true, cap: 4 });

    await c.create('s1', 'w1', Date.now());
    await c.append('s1', 'r1', 'Hello from the worker process.');
    const stats = mediaSinkClient(sinkReady.addr);
    await waitFor(
      async () => (await stats.call('stats', {})).sessions.some((s) => s.session === 's1' && s.lastSeq === 1),
      'frames of input 1 at the sink',
    );
    stats.close();

    worker.child.kill('SIGTERM');
    sink.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(await sink.exited).toBe(0);
    // it left its tokens and its lease to expire, as after a crash
    expect(await c.worker('w1', Date.now())).toMatchObject({
      live: true,
      tokens: [{ session: 's1', epoch: 1 }],
    });
  });

  it('--runtime avatar: a watcher of the sink gets pictures and speech of the input', async () => {
    const sink = start('gpu-worker/media/main.ts', ['--id', 'sink2']);
    const sinkAddr = (await sink.ready()).addr;
    const watcher = new (services().MediaSink)(sinkAddr, grpc.credentials.createInsecure());
    const stream = watcher['watch']({ cell: f.cell, session: 's1' }) as grpc.ClientReadableStream<Frame>;
    const seen: Frame[] = [];
    stream.on('data', (frame: Frame) => seen.push(frame));
    stream.on('error', () => {});
    await new Promise((resolve) => stream.once('metadata', resolve));
    const worker = start('gpu-worker/main.ts', [
      ...['--redis', `redis://${f.server.host}:${f.server.port}`, '--cell', f.cell, '--id', 'w1'],
      ...['--sink', sinkAddr, '--runtime', 'avatar', '--metrics-port', '-1'],
    ]);
    await worker.ready();
    const c = inCell(f.store, f.cell);
    await c.create('s1', 'w1', Date.now());
    await c.append('s1', 'r1', 'Hello, I am speaking.');
    await waitFor(
      async () => seen.filter((fr) => fr.seq === 1).length >= 10,
      'frames of input 1 at the watcher',
    );
    const frames = seen
      .filter((fr) => fr.seq === 1)
      .map((fr) => decodeAvatarPayload(Buffer.from(fr.payload)));
    expect(frames[0]!.jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(frames.some((fr) => fr.pcm.some((x) => Math.abs(x) > 1000))).toBe(true);
    stream.cancel();
    watcher.close();
    worker.child.kill('SIGTERM');
    sink.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});
