/**
 * The knee benchmark (scripts/bench-knee.ts): one system (real processes, one Redis) grown to N live
 * sessions, then an offered-load sweep of PushText, for each ingress (the PushTextStream, the unary
 * call; each warmed up first at its first rate, unmeasured, as a long-lived deployment is): at each
 * step the achieved rate, latency percentiles, refusals, CPU per request of every process group (the
 * load client included), and the end-to-end latency from a push to its input's release by the runtime
 * (the release's audit entry, whose id is Redis's clock: the same machine's). The knee is the highest
 * step up to which every step passed: P99 at most the paper's PushText P99 with nothing refused,
 * failed or left unsent (a step that fails ends it, even below one that passes).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { Latencies } from '../bench-scale/latency.js';
import { type Delta, delta, perRequest } from '../bench-scale/probes.js';
import { PAPER } from '../bench-scale/run.js';
import {
  BenchSystem,
  type Ingress,
  LOAD_BENCH_DEPLOYMENT,
  WARM_UP_SECONDS,
  loadBenchSettings,
  sessionIndex,
} from '../bench-scale/system.js';
import { hostFacts } from '../host.js';

const positive = (max: number) => z.number().int().min(1).max(max);

export const KneeOptions = z.object({
  sessions: positive(1_000_000).default(10_000),
  /** Offered PushText rates, ascending. */
  rates: z
    .array(positive(1_000_000))
    .min(1)
    .default([1000, 2000, 5000, 10_000, 20_000, 40_000])
    .refine((r) => r.every((x, i) => i === 0 || x > r[i - 1]!), 'rates must be ascending'),
  ingress: z
    .array(z.enum(['stream', 'unary']))
    .min(1)
    .default(['stream', 'unary']),
  stepSeconds: z.number().positive().default(10),
  /** Before an ingress's first step, PushText at its first rate for this long, unmeasured. */
  warmUpSeconds: z.number().min(0).default(WARM_UP_SECONDS),
  idleSeconds: z.number().positive().default(5),
  workers: positive(64).default(LOAD_BENCH_DEPLOYMENT.workers),
  dispatchers: positive(16).default(LOAD_BENCH_DEPLOYMENT.dispatchers),
  createRate: positive(100_000).default(2000),
  /** A step passes with P99 at most this (the paper's PushText P99). */
  targetP99Ms: z.number().positive().default(PAPER.paperPushTextP99Ms),
  /** Past an ingress's first failing step, its higher rates are skipped (they only overload). */
  stopAtFailure: z.boolean().default(true),
  leaseTtlMs: positive(3_600_000).default(10_000),
  heartbeatMs: positive(3_600_000).default(2000),
  settleSeconds: z.number().positive().default(60),
});
export type KneeOptions = z.input<typeof KneeOptions>;

/** The knee on this machine before the batched ingress (issue 21's measurement, unary PushText). */
export const BEFORE_KNEE_PER_S = 1800;

const r1 = (x: number) => Math.round(x * 10) / 10;

export type Progress = (line: string) => void;

/**
 * When each push of a step was sent, kept in typed arrays while the step runs (a Map of 200,000 string
 * keys grew the load client's heap and its scavenges); looked up by (session, seq) once it is over.
 */
class SentLog {
  /** session index, seq, sent at: three numbers a push */
  private rows = new Float64Array(3 << 16);
  private n = 0;

  add(sessionIndex: number, seq: number, sentAt: number): void {
    if (this.n + 3 > this.rows.length) {
      const grown = new Float64Array(this.rows.length * 2);
      grown.set(this.rows);
      this.rows = grown;
    }
    this.rows[this.n++] = sessionIndex;
    this.rows[this.n++] = seq;
    this.rows[this.n++] = sentAt;
  }

  /**
   * When each push was sent, looked up by session id and seq: the rows grouped by session in typed arrays
   * (a session has a few pushes a step, in send order), so the lookup leaves no garbage for the next step.
   */
  bySessionAndSeq(): (session: string, seq: number) => number | undefined {
    let sessions = 0;
    for (let k = 0; k < this.n; k += 3) sessions = Math.max(sessions, this.rows[k]! + 1);
    const start = new Int32Array(sessions + 1);
    for (let k = 0; k < this.n; k += 3) start[this.rows[k]! + 1]!++;
    for (let i = 0; i < sessions; i++) start[i + 1]! += start[i]!;
    const filled = start.slice(0, sessions);
    const seqs = new Float64Array(this.n / 3);
    const sentAt = new Float64Array(this.n / 3);
    for (let k = 0; k < this.n; k += 3) {
      const at = filled[this.rows[k]!]!++;
      seqs[at] = this.rows[k + 1]!;
      sentAt[at] = this.rows[k + 2]!;
    }
    return (session, seq) => {
      const index = sessionIndex(session);
      if (!(index < sessions)) return undefined;
      for (let at = start[index]!; at < start[index + 1]!; at++) if (seqs[at] === seq) return sentAt[at];
      return undefined;
    };
  }
}

/** One step: `rate` offered for `seconds`, then every input it appended released (or the settle timeout). */
async function step(
  bench: BenchSystem,
  o: z.output<typeof KneeOptions>,
  ingress: Ingress,
  rate: number,
  idle: Delta,
) {
  const log = new SentLog();
  const startedAt = Date.now();
  await bench.loopDelays();
  const before = await bench.snapshot();
  const load = await bench.push(rate, delay(o.stepSeconds * 1000), ingress, (session, seq, sentAt) =>
    log.add(session, seq, sentAt),
  );
  const after = await bench.snapshot();
  const loopDelayMs = await bench.loopDelays();
  const lagging = await bench.settle(o.settleSeconds * 1000);
  const endToEnd = new Latencies();
  const sent = log.bySessionAndSeq();
  for (const e of await bench.audit(startedAt)) {
    if (e.kind !== 'release') continue;
    const at = sent(e.session, e.seq);
    if (at !== undefined) endToEnd.add(Number(e.id.split('-')[0]) - at);
  }
  const { cdf: _cdf, ...latency } = load.latency.summary();
  const { cdf: _e2eCdf, ...e2e } = endToEnd.summary();
  const errors = Object.values(load.errors).reduce((a, n) => a + n, 0);
  const refusals = load.errors['RESOURCE_EXHAUSTED'] ?? 0;
  const achieved = r1(load.ok / load.seconds);
  const window = delta(before, after);
  const cost = perRequest(window, idle, Math.max(1, load.ok));
  const passed =
    latency.p99Ms <= o.targetP99Ms && errors === 0 && load.skipped === 0 && achieved >= 0.95 * rate;
  return {
    ingress,
    offeredPerS: rate,
    achievedPerS: achieved,
    ...latency,
    p999Ms: latency.p999Ms,
    refusals,
    errors: load.errors,
    notSent: load.skipped,
    cpuMsPerRequest: {
      ...cost.cpuMs,
      all:
        Math.round((cost.cpuMs.system + ((cost.cpuMs as Record<string, number>)['bench'] ?? 0)) * 1000) /
        1000,
    },
    redisScriptsPerRequest: cost.redisScripts,
    endToEnd: { ...e2e, sessionsNotReleased: lagging },
    /** The worst event-loop delay of each group's processes over the step. */
    loopDelayMs,
    /** The host's kernel threads over the step, which took a core from the system while they ran. */
    hostKernelThreads: window.kernel,
    passed,
  };
}

export type KneeStep = Awaited<ReturnType<typeof step>>;

/** Runs the sweep; returns the result object scripts/bench-knee.ts prints and writes. */
export async function runBenchKnee(options: KneeOptions, progress: Progress = () => {}) {
  const o = KneeOptions.parse(options);
  const settings = loadBenchSettings(o);
  const started = performance.now();
  const bench = await BenchSystem.launch(settings);
  const steps: KneeStep[] = [];
  try {
    const created = await bench.createUpTo(o.sessions, o.createRate);
    if (!(await bench.waitRuntimes(o.sessions, o.settleSeconds * 1000)))
      progress('  not every runtime started');
    progress(`${o.sessions} sessions: ${created.ok} created`);
    const idleBefore = await bench.snapshot();
    await delay(o.idleSeconds * 1000);
    const idle = delta(idleBefore, await bench.snapshot());
    for (const ingress of o.ingress) {
      if (o.warmUpSeconds > 0)
        await bench.warmUp(o.rates[0]!, o.warmUpSeconds, ingress, o.settleSeconds * 1000);
      for (const rate of o.rates) {
        const s = await step(bench, o, ingress, rate, idle);
        steps.push(s);
        progress(
          `  ${ingress} ${rate}/s: ${s.achievedPerS}/s, P50 ${s.p50Ms} P99 ${s.p99Ms} ms, ` +
            `refused ${s.refusals}, CPU ${s.cpuMsPerRequest.all} ms, end to end P99 ${s.endToEnd.p99Ms} ms, ` +
            `kernel threads ${s.hostKernelThreads.msPerS} ms/s` +
            (s.passed ? '' : '  (past the knee)'),
        );
        if (!s.passed && o.stopAtFailure) break;
      }
    }
  } finally {
    await bench.stop();
  }
  const kneeOf = (ingress: Ingress) => {
    let best: KneeStep | undefined;
    for (const s of steps.filter((x) => x.ingress === ingress)) {
      if (!s.passed) break;
      best = s;
    }
    return best
      ? {
          perSecond: best.offeredPerS,
          p99Ms: best.p99Ms,
          endToEndP99Ms: best.endToEnd.p99Ms,
          cpuMsPerRequest: best.cpuMsPerRequest.all,
          ratioToBefore: r1(best.offeredPerS / BEFORE_KNEE_PER_S),
        }
      : null;
  };
  return {
    date: new Date().toISOString(),
    paperPushTextP99Ms: PAPER.paperPushTextP99Ms,
    beforeKneePerS: BEFORE_KNEE_PER_S,
    system: {
      sessions: o.sessions,
      workers: o.workers,
      dispatchers: o.dispatchers,
      redis: 'one private redis-server, no persistence',
      audit: 'audit on (commits, closes, releases)',
      client:
        'one load process: unary calls round-robin over the replicas, or one PushTextStream per replica',
      host: hostFacts(),
      stepSeconds: o.stepSeconds,
      warmUpSeconds: o.warmUpSeconds,
      targetP99Ms: o.targetP99Ms,
    },
    knee: Object.fromEntries(o.ingress.map((i) => [i, kneeOf(i)])),
    steps,
    seconds: r1((performance.now() - started) / 1000),
  };
}
