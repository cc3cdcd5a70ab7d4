/** Private redis-servers: one answers while it runs, and none outlives the process that started it. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { eventually } from '../test-support/system.js';
import { startRedis } from './redis-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));

async function answers(port: number): Promise<boolean> {
  const r = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

describe('a private redis-server', () => {
  it('answers on its port until it is stopped', async () => {
    const redis = await startRedis();
    expect(await answers(redis.port)).toBe(true);
    await redis.stop();
    expect(await answers(redis.port)).toBe(false);
  });

  it.runIf(process.platform === 'linux')(
    'dies with the process that started it, even one killed',
    async () => {
      const script = `import { startRedis } from ${JSON.stringify(path.join(here, 'redis-server.ts'))};
      const r = await startRedis(); console.log(r.port); setInterval(() => {}, 1000);`;
      const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const port = await new Promise<number>((resolve, reject) => {
        parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
        parent.once('exit', (code) => reject(new Error(`the parent exited (${code}) before starting one`)));
      });
      expect(await answers(port)).toBe(true);
      parent.kill('SIGKILL');
      await eventually('the orphaned server to go', async () => !(await answers(port)));
    },
  );
});
