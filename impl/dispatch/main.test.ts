/** The replica process: ready line, serving, metrics, graceful stop, and exit 2 on bad flags. */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { entryCommand, spawnProcess } from '../ops/processes.js';
import { dispatchClient } from '../rpc/client.js';
import * as steps from '../store/steps.js';
import { useStore } from '../test-support/redis.js';

const f = useStore();

/** Runs the entry to its end with only the given DHSCHED_* variables; returns its exit code and stderr. */
function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DHSCHED_')));
  const child = spawn(process.execPath, [...entryCommand('dispatch'), ...args], {
    env: { ...clean, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

describe('impl/dispatch/main', () => {
  it('announces itself once it serves, exposes metrics, and stops on SIGTERM', async () => {
    await steps.registerWorker(f.store, {
      cell: f.cell,
      worker: 'w1',
      cap: 1,
      now: Date.now(),
      ttlMs: 600_000,
    });
    const redisUrl = `redis://${f.server.host}:${f.server.port}`;
    const replica = await spawnProcess('dispatch', [
      ...['--redis', redisUrl, '--cells', f.cell, '--id', 'd-test', '--ranking', 'p2c', '--seed', '3'],
    ]);
    const client = dispatchClient(replica.addr);
    try {
      expect(replica).toMatchObject({ role: 'dispatch', id: 'd-test' });
      expect(await client.call('createLive', { cell: f.cell, session: 's1' })).toMatchObject({
        worker: 'w1',
      });
      const metrics = await (await fetch(`http://127.0.0.1:${replica.metricsPort}/metrics`)).text();
      expect(metrics).toContain(
        'dhsched_rpc_duration_seconds_count{service="Dispatch",method="createLive",code="OK"} 1',
      );
    } finally {
      client.close();
      await replica.stop();
    }
    expect(await replica.exited).toBe(0);
  });

  it('exits 2 on bad flags or variables, naming them', async () => {
    const [missing, bad, badEnv] = await Promise.all([
      run([]),
      run(['--redis', 'redis://127.0.0.1:1', '--refresh-ms', '0', '--cells', 'a,b:c']),
      run([], { DHSCHED_REDIS_URL: 'redis://127.0.0.1:1', DHSCHED_RANKING: 'random' }),
    ]);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('--redis: required') });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--refresh-ms');
    expect(bad.stderr).toContain('--cells: an id is');
    expect(badEnv).toMatchObject({ code: 2, stderr: expect.stringContaining('--ranking') });
  });
});
