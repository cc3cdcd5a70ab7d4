/** The dhsched CLI as a real process (bin/dhsched.js) against a real system: each API call, output, exit codes. */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { grpcCode } from '../rpc/errors.js';
import { CELL, useSystem } from '../test-support/system.js';

// three workers: one stays drained after the first test (the last one undrains it), and sessions still
// move between the other two
const f = useSystem({ dispatchers: 1, workers: 3, capacity: 2, leaseTtlMs: 1500, sweepMs: 200 });
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/dhsched.js');

/** Runs `dhsched --dispatch <the replica> ARGS...`; its exit status and what it printed. */
function dhsched(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const argv = [bin, '--dispatch', f.system.dispatchers[0]!.addr, ...args];
  return new Promise((resolve) =>
    execFile(process.execPath, argv, { encoding: 'utf8' }, (error, out, err) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err }),
    ),
  );
}

/** Runs it with --json; the one line it printed, parsed. */
async function json(...args: string[]): Promise<unknown> {
  const r = await dhsched('--json', ...args);
  expect(r, `dhsched ${args.join(' ')}`).toMatchObject({ code: 0, err: '' });
  return JSON.parse(r.out);
}

describe('dhsched', () => {
  it('runs every API call', async () => {
    expect(await json('create', 'cli1')).toMatchObject({ session: 'cli1', epoch: 1, created: true });
    expect(await json('push', 'cli1', 'hello', '--request-id', 'q1')).toEqual({ seq: 1, duplicate: false });
    expect(await json('push', 'cli1', 'hello', '--request-id', 'q1')).toEqual({ seq: 1, duplicate: true });
    // the streaming ingress: the same append, idempotent on the same request id
    expect(await json('push', 'cli1', 'hello', '--request-id', 'q1', '--stream')).toEqual({
      seq: 1,
      duplicate: true,
    });
    expect(await json('push', 'cli1', 'again', '--stream')).toEqual({ seq: 2, duplicate: false });
    const moved = (await json('migrate', 'cli1', '--from-epoch', '1')) as Record<string, unknown>;
    expect(moved).toMatchObject({ epoch: 2, moved: true });
    expect(await json('get', 'cli1')).toMatchObject({ worker: moved['worker'], epoch: 2 });
    expect(await json('sessions')).toEqual([expect.objectContaining({ session: 'cli1' })]);
    const workers = (await json('workers')) as { worker: string }[];
    expect(workers.map((w) => w.worker)).toEqual(['w1', 'w2', 'w3']);
    const drained = (await json('drain', String(moved['worker']))) as Record<string, unknown>;
    expect(drained['moved']).toEqual([expect.objectContaining({ session: 'cli1', epoch: 3, moved: true })]);
    expect(await json('close', 'cli1')).toMatchObject({ phase: 'closed' });
  });

  it('says why a call was refused, exit 1; a request Dispatch finds invalid, exit 2', async () => {
    const missing = await dhsched('get', 'nobody');
    expect(missing.code).toBe(1);
    expect(missing.err).toBe('dhsched: NOT_FOUND: no session nobody in cell default\n');
    const bad = await dhsched('create', 'not an id');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^dhsched: INVALID_ARGUMENT: .*session/);
  });

  it('refuses empty or blank text before calling, exit 2; Dispatch refuses it too, and nothing is appended', async () => {
    await json('create', 'blank');
    for (const text of ['', ' \t ']) {
      const r = await dhsched('push', 'blank', text);
      expect(r.code).toBe(2);
      expect(r.err.split('\n')[0]).toBe(
        `dhsched: text must be something to say (not empty nor only white space, at most 16 KiB), got ${JSON.stringify(text)}`,
      );
      const call = f.dispatch().call('pushText', { cell: CELL, session: 'blank', requestId: 'b1', text });
      const refused = await call.then(
        () => undefined,
        (err: grpc.ServiceError) => err,
      );
      expect(refused && grpcCode(refused)).toBe(grpc.status.INVALID_ARGUMENT);
      expect(refused?.details).toBe('invalid request: text: text is empty or only white space');
    }
    expect(await json('push', 'blank', 'now something')).toEqual({ seq: 1, duplicate: false });
  });

  it('says when a migrate --from-epoch found the session moved already, exit 1', async () => {
    await json('create', 'late');
    const first = (await json('migrate', 'late', '--from-epoch', '1')) as { worker: string };
    const again = await dhsched('--json', 'migrate', 'late', '--from-epoch', '1');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out)).toMatchObject({
      session: 'late',
      epoch: 2,
      worker: first.worker,
      moved: false,
    });
    expect(again.err).toBe(
      `dhsched: session late did not move: it is at epoch 2 on ${first.worker}, past --from-epoch 1\n`,
    );
    expect(await json('get', 'late')).toMatchObject({ epoch: 2, worker: first.worker });
  });

  it('prints a lease’s expiry as an ISO 8601 date and how far off it is; --json keeps the milliseconds', async () => {
    const before = Date.now();
    const human = await dhsched('workers');
    const workers = (await json('workers')) as { worker: string; leaseExpiresAtMs: number }[];
    expect(human.code).toBe(0);
    const lines = human.out.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const [i, line] of lines.entries()) {
      const m = /^worker=(w\d) .*leaseExpires=(\S+) \(in (\d+(?:\.\d)?) s\) /.exec(line);
      expect(m, line).not.toBeNull();
      const [, worker, iso, seconds] = m!;
      expect(worker).toBe(workers[i]!.worker);
      // a lease of 1.5 s, renewed every 0.5 s
      const at = Date.parse(iso!);
      expect(new Date(at).toISOString()).toBe(iso);
      expect(at).toBeGreaterThan(before);
      expect(at).toBeLessThanOrEqual(Date.now() + 1500);
      expect(Number(seconds)).toBeLessThanOrEqual(1.5);
      expect(workers[i]!.leaseExpiresAtMs).toBeGreaterThanOrEqual(at);
    }
  });

  it('watch prints each frame the sink takes, pts in seconds, until Ctrl-C (exit 0)', async () => {
    const watch = spawn(process.execPath, [bin, '--sink', f.system.sink.addr, 'watch', 'seen'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    onTestFinished(() => void watch.kill());
    let out = '';
    watch.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    await json('create', 'seen');
    // a line at a time until the watch, started meanwhile, has printed a frame of one
    for (let line = 1; !/\bseq=[1-9]/.test(out); line++) {
      if (line > 10) throw new Error(`no frame of an input watched; printed: ${out}`);
      await json('push', 'seen', `Line ${line}.`);
    }
    watch.kill('SIGINT');
    const [code] = (await once(watch, 'exit')) as [number | null];
    expect(code).toBe(0);
    const frame = out.split('\n').find((l) => /\bseq=[1-9]/.test(l));
    expect(frame).toMatch(
      /^cell=default session=seen epoch=1 seq=\d+ index=\d+ pts=\d+(\.\d+)? s worker=w\d bytes=\d+$/,
    );
  });

  it('undrain: a drained worker takes placements again; one not draining is left as it is, said on stderr', async () => {
    const workers = async () => (await json('workers')) as { worker: string; draining: boolean }[];
    // the worker the first test drained
    const drained = (await workers()).filter((w) => w.draining).map((w) => w.worker);
    expect(drained).toHaveLength(1);
    const w = drained[0]!;
    await json('create', 'back');
    const refused = await dhsched('migrate', 'back', '--to', w);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      new RegExp(`^dhsched: FAILED_PRECONDITION: worker ${w} cannot take session back: DRAINING`),
    );
    expect(await json('undrain', w)).toEqual({ undrained: true });
    expect((await workers()).find((x) => x.worker === w)).toMatchObject({ draining: false });
    expect(await json('migrate', 'back', '--to', w)).toMatchObject({ worker: w, moved: true });
    expect(await dhsched('undrain', w)).toEqual({
      code: 0,
      out: 'undrained=false\n',
      err: `dhsched: ${w} was not draining: nothing changed\n`,
    });
    const unknown = await dhsched('undrain', 'w9');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe('dhsched: NOT_FOUND: no worker w9 in cell default\n');
  });
});
