/**
 * Private redis-servers: a standalone one on a free port with its own temp dir and no persistence. The
 * launcher starts one when no Redis is configured; the tests start their own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const REDIS_SERVER = process.env['REDIS_SERVER'] ?? 'redis-server';

export interface RedisServer {
  readonly host: string;
  readonly port: number;
  /** The server's process id (a new one after `restart`). */
  readonly pid: number;
  /** SIGKILL is a crash, SIGSTOP a stall, SIGCONT its end. */
  signal(signal: NodeJS.Signals): void;
  /**
   * A crash and a restart: SIGKILL, then after `downMs` the same server again on its port and dir (what it
   * reloads depends on its persistence flags, e.g. '--appendonly', 'yes').
   */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.setTimeout(500);
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.once('data', (d) => {
      sock.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    sock.once('error', () => resolve(false));
    sock.once('timeout', () => {
      sock.destroy();
      resolve(false);
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/**
 * Where util-linux's setpriv is (Linux), a private server gets SIGKILL when the thread that started it
 * ends (PR_SET_PDEATHSIG): a test run or benchmark that is killed or bails leaves no redis-server behind.
 */
const SETPRIV = '/usr/bin/setpriv';
const dieWithParent = fs.existsSync(SETPRIV);

/**
 * Spawns redis-server on `port`, under `wrapper` if one is given (a command that runs it in the same
 * process, e.g. valgrind), and waits until it answers PING; the stderr it printed if it did not.
 */
async function spawnServer(port: number, args: string[], wrapper: string[]): Promise<ChildProcess | string> {
  const argv = [...wrapper, REDIS_SERVER, '--port', String(port), ...args];
  const [command, ...rest] = dieWithParent ? [SETPRIV, '--pdeathsig', 'KILL', '--', ...argv] : argv;
  const child = spawn(command!, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  for (const deadline = Date.now() + 10_000; child.exitCode === null && Date.now() < deadline;) {
    if (await ping(port)) return child;
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill('SIGKILL');
  await exited(child);
  return stderr || 'no answer to PING within 10 s';
}

/**
 * Starts redis-server on a free port; `extraArgs` are passed on (e.g. ['--replicaof', host, port]), and
 * `wrapper`, if given, runs it (e.g. ['valgrind', '--tool=callgrind']).
 */
export async function startRedis(extraArgs: string[] = [], wrapper: string[] = []): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-redis-'));
    const args = ['--save', '', '--appendonly', 'no', '--bind', '127.0.0.1', '--dir', dir, ...extraArgs];
    const started = await spawnServer(port, args, wrapper);
    if (typeof started !== 'string') {
      let child = started;
      return {
        host: '127.0.0.1',
        port,
        get pid() {
          return child.pid!;
        },
        signal: (sig) => void child.kill(sig),
        async restart(downMs) {
          child.kill('SIGKILL');
          await exited(child);
          await new Promise((r) => setTimeout(r, downMs));
          const again = await spawnServer(port, args, wrapper);
          if (typeof again === 'string')
            throw new Error(`redis-server did not restart on port ${port}: ${again}`);
          child = again;
        },
        async stop() {
          // its dir is deleted, so there is nothing to flush (and SIGTERM is refused while it writes
          // its first AOF: a replica's, after a sync)
          child.kill('SIGKILL');
          await exited(child);
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    fs.rmSync(dir, { recursive: true, force: true });
    if (attempt === 3) throw new Error(`redis-server did not start on port ${port}: ${started}`);
  }
}
