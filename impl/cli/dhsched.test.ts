/** The dhsched CLI against a real system: one command per API call, JSON output, exit codes. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useSystem } from '../test-support/system.js';
import { main } from './dhsched.js';

const f = useSystem({ dispatchers: 1, workers: 2, capacity: 2, leaseTtlMs: 1500, sweepMs: 200 });

/** Runs the CLI in-process; returns its exit code and what it printed. */
async function dhsched(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
  try {
    const code = await main(['--dispatch', f.system.dispatchers[0]!.addr, '--json', ...args]);
    return { code, json: out.map((l) => JSON.parse(l) as Record<string, unknown>), err: err.join('') };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('dhsched', () => {
  it('runs every API call', async () => {
    expect((await dhsched('create', 'cli1')).json[0]).toMatchObject({
      session: 'cli1',
      epoch: 1,
      created: true,
    });
    expect((await dhsched('push', 'cli1', 'hello', '--request-id', 'q1')).json[0]).toEqual({
      seq: 1,
      duplicate: false,
    });
    expect((await dhsched('push', 'cli1', 'hello', '--request-id', 'q1')).json[0]).toEqual({
      seq: 1,
      duplicate: true,
    });
    const moved = (await dhsched('migrate', 'cli1', '--from-epoch', '1')).json[0]!;
    expect(moved).toMatchObject({ epoch: 2 });
    expect((await dhsched('get', 'cli1')).json[0]).toMatchObject({ worker: moved['worker'], epoch: 2 });
    expect((await dhsched('sessions')).json[0]).toEqual([expect.objectContaining({ session: 'cli1' })]);
    const workers = (await dhsched('workers')).json[0] as unknown as { worker: string }[];
    expect(workers.map((w) => w.worker)).toEqual(['w1', 'w2']);
    const drained = (await dhsched('drain', String(moved['worker']))).json[0]!;
    expect(drained['moved']).toEqual([expect.objectContaining({ session: 'cli1', epoch: 3 })]);
    expect((await dhsched('close', 'cli1')).json[0]).toMatchObject({ phase: 'closed' });
  });

  it('says why a call was refused, exit 1; bad input exit 2', async () => {
    const missing = await dhsched('get', 'nobody');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/NOT_FOUND: no session nobody/);
    const bad = await dhsched('create', 'not an id');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/INVALID_ARGUMENT: .*session/);
    const flag = await dhsched('migrate', 'x', '--from-epoch', 'soon');
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(/--from-epoch must be an integer/);
  });
});
