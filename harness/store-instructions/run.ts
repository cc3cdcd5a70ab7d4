/**
 * Redis's instructions per push (scripts/bench-store-instructions.ts): a private redis-server under
 * valgrind's callgrind, one cell (audit on) with `sessions` sessions claimed on two workers, then
 * `batches` rounds of a push: an append batch of `batchSize` inputs to sessions drawn by a seeded
 * generator, then each worker's release batch of its runtimes those inputs woke. Only the rounds are
 * counted (callgrind zeroed before them, dumped after): the same code gives the same count whatever else
 * the machine is doing, which timing on a shared, noisy box cannot.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { startRedis } from '../../impl/ops/redis-server.js';
import * as steps from '../../impl/store/steps.js';

const run = promisify(execFile);

export const StoreInstructionsOptions = z.object({
  sessions: z.number().int().min(2).max(100_000).default(2000),
  batches: z.number().int().min(1).max(10_000).default(100),
  batchSize: z.number().int().min(1).max(256).default(24),
  seed: z.number().int().min(1).max(0xffffffff).default(12345),
});
export type StoreInstructionsOptions = z.input<typeof StoreInstructionsOptions>;

const CELL = 'c1';
const WORKERS = ['w1', 'w2'] as const;
const HOUR_MS = 3_600_000;

/** xorshift32: the same sessions for the same seed. */
function sessionsDrawn(seed: number, count: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % count;
  };
}

/** The instruction count of a callgrind dump (its `summary:` line). */
function summaryOf(dumpFile: string): number {
  const line = fs
    .readFileSync(dumpFile, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('summary:'));
  if (!line) throw new Error(`${dumpFile} has no summary line`);
  return Number(line.slice('summary:'.length).trim());
}

export async function runStoreInstructions(options: StoreInstructionsOptions) {
  const o = StoreInstructionsOptions.parse(options);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-callgrind-'));
  const server = await startRedis(
    [],
    ['valgrind', '--tool=callgrind', `--callgrind-out-file=${dir}/callgrind.out.%p`],
  );
  const redis = new Redis({ host: server.host, port: server.port, lazyConnect: true });
  try {
    await redis.connect();
    const store = steps.openStore(redis);
    await steps.configureCell(store, { cell: CELL, audit: true, trace: false });
    const now = Date.now();
    const incarnation = new Map<string, number>();
    for (const worker of WORKERS) {
      const registered = await steps.registerWorker(store, {
        cell: CELL,
        worker,
        cap: o.sessions,
        now,
        ttlMs: HOUR_MS,
      });
      incarnation.set(worker, registered.incarnation);
    }
    const runtimes: { worker: string; epoch: number; from: number }[] = [];
    for (let s = 0; s < o.sessions; s++) {
      const worker = WORKERS[s % 2]!;
      const session = `s${s}`;
      const { epoch } = await steps.admitCommit(store, {
        cell: CELL,
        session,
        target: worker,
        expected: null,
        now,
      });
      await steps.claim(store, { cell: CELL, worker, session, epoch, incarnation: incarnation.get(worker)! });
      runtimes.push({ worker, epoch, from: 0 });
    }
    const draw = sessionsDrawn(o.seed, o.sessions);
    let requests = 0;
    await run('callgrind_control', ['-z', String(server.pid)]);
    for (let b = 0; b < o.batches; b++) {
      const drawn = Array.from({ length: o.batchSize }, draw);
      await steps.appendBatch(store, {
        cell: CELL,
        inputs: drawn.map((s) => ({
          session: `s${s}`,
          requestId: `r${requests++}`,
          text: 'hello, how are you?',
        })),
      });
      const woken = [...new Set(drawn)];
      for (const worker of WORKERS) {
        const due = woken.filter((s) => runtimes[s]!.worker === worker);
        if (due.length === 0) continue;
        const released = await steps.releaseBatch(store, {
          cell: CELL,
          worker,
          max: o.batchSize,
          runtimes: due.map((s) => ({
            session: `s${s}`,
            epoch: runtimes[s]!.epoch,
            incarnation: incarnation.get(worker)!,
            from: runtimes[s]!.from,
          })),
        });
        released.forEach((got, k) => {
          if (got.outcome !== 'released') throw new Error(`s${due[k]} was not released: ${got.outcome}`);
          runtimes[due[k]!]!.from = got.inputs.at(-1)!.seq;
        });
      }
    }
    await run('callgrind_control', ['-d', String(server.pid)]);
    const instructions = summaryOf(path.join(dir, `callgrind.out.${server.pid}.1`));
    const version = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
    const pushes = o.batches * o.batchSize;
    return {
      date: new Date().toISOString(),
      redis: version,
      audit: true,
      sessions: o.sessions,
      batches: o.batches,
      batchSize: o.batchSize,
      seed: o.seed,
      pushes,
      instructions,
      instructionsPerPush: Math.round(instructions / pushes),
    };
  } finally {
    redis.disconnect();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
