/**
 * The floor of a push on this machine (scripts/bench-floor.ts): the bench's load client (the same
 * open-loop generator on its 2 ms tick) sends numbered messages on one grpc-js bidirectional stream to a
 * server process that does nothing a push does not need at the least: stage `echo` answers at once;
 * stage `store` first appends them to a private Redis in one script per batch. What a stage's P99 is at a
 * rate bounds from below what any system whose push crosses those processes can reach here.
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { z } from 'zod';
import { startRedis } from '../../impl/ops/redis-server.js';
import { median } from '../bench-scale/latency.js';
import { LOAD_TICK_MS, runLoad } from '../bench-scale/load.js';
import { hostFacts } from '../host.js';
import { FLOOR_METHOD, type FloorStage } from './method.js';

export const FloorOptions = z.object({
  rate: z.number().int().min(1).max(100_000).default(2000),
  seconds: z.number().min(0.1).max(600).default(10),
  warmUpSeconds: z.number().min(0).max(600).default(5),
  runs: z.number().int().min(1).max(100).default(3),
  targetP99Ms: z.number().positive().default(2),
});
export type FloorOptions = z.input<typeof FloorOptions>;

const STAGES: FloorStage[] = ['echo', 'store'];
const here = path.dirname(fileURLToPath(import.meta.url));
const fromSource = import.meta.url.endsWith('.ts');

async function startServer(
  stage: FloorStage,
  redisPort: number,
): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(path.join(here, `server${fromSource ? '.ts' : '.js'}`), [stage, String(redisPort)], {
    execArgv: fromSource ? ['--import', 'tsx'] : [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve(z.number().int().parse(m)));
    child.once('exit', (code) => reject(new Error(`the floor's ${stage} server exited (${code})`)));
  });
  return { child, port };
}

/** One stage, one run: `warmUpSeconds` unmeasured, then `seconds` measured. */
async function measure(stage: FloorStage, o: z.output<typeof FloorOptions>) {
  const redis = stage === 'store' ? await startRedis() : undefined;
  const server = await startServer(stage, redis?.port ?? 0);
  const Client = grpc.makeGenericClientConstructor({ push: FLOOR_METHOD }, 'Floor');
  const client = new Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  const stream = (client as unknown as { push(): grpc.ClientDuplexStream<Buffer, Buffer> }).push();
  // each message's answer, by its number; a stream that fails fails every message waiting and to come
  const answered = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  let failure: Error | undefined;
  stream.on('error', (e: Error) => {
    failure ??= e;
    for (const waiting of answered.values()) waiting.reject(e);
    answered.clear();
  });
  const ended = new Promise((resolve) => stream.once('status', resolve));
  stream.on('data', (m: Buffer) => {
    const id = m.readUInt32LE(0);
    answered.get(id)?.resolve();
    answered.delete(id);
  });
  let next = 0;
  const send = () =>
    new Promise<void>((resolve, reject) => {
      if (failure) return reject(failure);
      const message = Buffer.alloc(64);
      message.writeUInt32LE(next, 0);
      answered.set(next++, { resolve, reject });
      stream.write(message);
    });
  try {
    if (o.warmUpSeconds > 0) await runLoad({ rate: o.rate, until: delay(o.warmUpSeconds * 1000) }, send);
    const load = await runLoad({ rate: o.rate, until: delay(o.seconds * 1000) }, send);
    stream.end();
    await ended;
    if (failure) throw new Error(`the floor's ${stage} stream failed: ${failure.message}`);
    const { cdf: _cdf, ...latency } = load.latency.summary();
    return { stage, achievedPerS: Math.round((load.ok / load.seconds) * 10) / 10, ...latency };
  } finally {
    client.close();
    server.child.kill();
    await redis?.stop();
  }
}

export async function runFloor(options: FloorOptions, progress: (line: string) => void = () => {}) {
  const o = FloorOptions.parse(options);
  const runs: ({ run: number } & Awaited<ReturnType<typeof measure>>)[] = [];
  for (let run = 1; run <= o.runs; run++) {
    for (const stage of STAGES) {
      const r = await measure(stage, o);
      progress(`  run ${run} ${stage}: P50 ${r.p50Ms} P99 ${r.p99Ms} P99.9 ${r.p999Ms} ms`);
      runs.push({ run, ...r });
    }
  }
  const byStage = Object.fromEntries(
    STAGES.map((stage) => {
      const mine = runs.filter((r) => r.stage === stage);
      const p99s = mine.map((r) => r.p99Ms);
      return [
        stage,
        {
          p50MsMedian: median(mine.map((r) => r.p50Ms)),
          p99MsMedian: median(p99s),
          p99MsMin: Math.min(...p99s),
          runsWithinTarget: p99s.filter((p) => p <= o.targetP99Ms).length,
        },
      ];
    }),
  );
  return {
    date: new Date().toISOString(),
    system: { host: hostFacts(), tickMs: LOAD_TICK_MS, stages: STAGES, runsAlternated: true },
    rate: o.rate,
    seconds: o.seconds,
    warmUpSeconds: o.warmUpSeconds,
    targetP99Ms: o.targetP99Ms,
    byStage,
    runs,
  };
}
