/**
 * Starting DHSched's processes: each is a separate Node process that writes one `Ready` line to stdout
 * once it serves (impl/common/process.ts). Run from source (tests, tsx) it starts the .ts entry through
 * tsx; run from dist/ it starts the compiled .js. $DHSCHED_NODE_ARGS adds Node flags to each (profiling:
 * `DHSCHED_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"`, which NODE_OPTIONS does not allow).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Ready } from '../common/process.js';

export type Role = Ready['role'];

const here = path.dirname(fileURLToPath(import.meta.url));
const fromSource = import.meta.url.endsWith('.ts');
/** The repository root (source) or dist/ (compiled): entries are relative to it. */
const root = path.resolve(here, '..', '..');

const entries: Record<Role, string> = {
  dispatch: 'impl/dispatch/main',
  worker: 'gpu-worker/main',
  'media-sink': 'gpu-worker/media/main',
};

export function entryCommand(role: Role): string[] {
  const entry = path.join(root, entries[role] + (fromSource ? '.ts' : '.js'));
  return fromSource ? ['--import', 'tsx', entry] : [entry];
}

export interface ProcessHandle extends Ready {
  readonly child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** What `exited` resolved with; undefined while the process runs. */
  readonly ended: number | string | undefined;
  /** Sends a signal: SIGKILL is a crash, SIGSTOP a pause, SIGCONT its end. */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  /** Appends the process's stderr (its pino log) to this file; otherwise it is discarded. */
  logFile?: string;
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
}

export async function spawnProcess(
  role: Role,
  args: string[],
  options: SpawnOptions = {},
): Promise<ProcessHandle> {
  const nodeArgs = (process.env['DHSCHED_NODE_ARGS'] ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, ...entryCommand(role), ...args], {
    cwd: fromSource ? root : path.resolve(root, '..'),
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let ended: number | string | undefined;
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve((ended = code ?? signal ?? 'unknown'))),
  );
  let stderrTail = '';
  const log = options.logFile ? fs.createWriteStream(options.logFile, { flags: 'a' }) : undefined;
  child.stderr!.on('data', (d: Buffer) => {
    log?.write(d);
    stderrTail = (stderrTail + d.toString()).slice(-4000);
  });
  child.once('exit', () => log?.end());

  const lines = readline.createInterface({ input: child.stdout! });
  const timeoutMs = options.readyTimeoutMs ?? 30_000;
  const ready = await new Promise<Ready>((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${role} ${args.join(' ')}: ${why}\n${stderrTail}`));
    };
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs);
    lines.once('line', (line) => {
      const parsed = Ready.safeParse(safeJson(line));
      if (!parsed.success) return fail(`its first stdout line is not a Ready object: ${line}`);
      settled = true;
      clearTimeout(timer);
      resolve(parsed.data);
    });
    void exited.then((code) => fail(`exited (${code}) before it was ready`));
  });
  const signal = (sig: NodeJS.Signals) => {
    if (ended === undefined) child.kill(sig);
  };
  return {
    ...ready,
    child,
    exited,
    get ended() {
      return ended;
    },
    signal,
    async stop(graceMs = 10_000) {
      signal('SIGCONT');
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
