/**
 * `dhsched up` as a real process: a worker killed from outside is started again as a new incarnation; a
 * clean stop (SIGTERM) removes the temporary log folder and the state file, and keeps the logs (saying
 * where) once a process died during the run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/dhsched.js');

const Started = z.object({ console: z.string().url(), logs: z.string(), workers: z.array(z.string()) });
const State = z.object({
  workers: z.array(
    z.object({
      worker: z.string(),
      incarnation: z.number(),
      live: z.boolean(),
      process: z.object({ pid: z.number(), ended: z.string().nullable() }).nullable(),
    }),
  ),
});

interface Up {
  child: ChildProcess;
  started: z.infer<typeof Started>;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Where it runs: its state file and its temporary log folder are under here. */
  dir: string;
}

/** Starts `dhsched up` with one worker of the null runtime, in a folder of its own; resolves once it serves. */
async function up(): Promise<Up> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-up-test-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const args = ['--json', 'up', '--dispatchers', '1', '--workers', '1', '--runtime', 'null'];
  const child = spawn(
    process.execPath,
    [bin, ...args, '--console', '127.0.0.1:0', '--lease-ttl-ms', '1000'],
    {
      cwd: dir,
      env: { ...process.env, TMPDIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  onTestFinished(() => void child.kill('SIGKILL'));
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
  let out = '';
  child.stdout!.setEncoding('utf8');
  for await (const chunk of child.stdout! as AsyncIterable<string>) {
    out += chunk;
    if (out.includes('\n')) break;
  }
  return { child, started: Started.parse(JSON.parse(out.split('\n')[0]!)), stderr: () => err, dir };
}

async function stop(u: Up): Promise<number | null> {
  u.child.kill('SIGTERM');
  const [code] = (await once(u.child, 'exit')) as [number | null];
  return code;
}

async function state(u: Up): Promise<z.infer<typeof State>> {
  return State.parse(await (await fetch(new URL('/api/state', u.started.console))).json());
}

describe('dhsched up', () => {
  it('stops cleanly on SIGTERM: its state file and temporary log folder are removed', async () => {
    const u = await up();
    expect(path.dirname(u.started.logs)).toBe(u.dir);
    expect(fs.existsSync(path.join(u.dir, '.dhsched', 'system.json'))).toBe(true);
    expect(fs.readdirSync(u.started.logs)).toContain('w1.log');
    expect(await stop(u)).toBe(0);
    expect(fs.existsSync(u.started.logs)).toBe(false);
    expect(fs.existsSync(path.join(u.dir, '.dhsched', 'system.json'))).toBe(false);
    expect(u.stderr()).not.toMatch(/started again|kept in/);
  }, 60_000);

  it('starts a worker killed from outside again, as a new incarnation; keeps the logs, saying where', async () => {
    const u = await up();
    const first = (await state(u)).workers[0]!;
    expect(first).toMatchObject({ worker: 'w1', live: true, process: { ended: null } });
    process.kill(first.process!.pid, 'SIGKILL');
    await expect
      .poll(async () => (await state(u)).workers[0], { timeout: 20_000, interval: 250 })
      .toMatchObject({ incarnation: first.incarnation + 1, live: true, process: { ended: null } });
    expect((await state(u)).workers[0]!.process!.pid).not.toBe(first.process!.pid);
    expect(u.stderr()).toMatch(/w1 exited \(SIGKILL\); starting it again in 1000 ms/);
    expect(u.stderr()).toMatch(/w1 started again: pid \d+/);
    expect(await stop(u)).toBe(0);
    expect(u.stderr()).toContain(
      `the processes' logs are kept in ${u.started.logs} (w1 exited (SIGKILL) during the run)`,
    );
    expect(fs.readdirSync(u.started.logs)).toContain('w1.log');
  }, 60_000);
});
