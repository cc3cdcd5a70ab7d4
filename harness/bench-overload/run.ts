/**
 * The overload benchmark (scripts/bench-overload.ts): one system grown to N live sessions and warmed up
 * at the recovery rate (unmeasured), then PushText offered at 3× the knee for a while (overload), then
 * at 0.5× the knee (recovery), open loop: refused calls are counted, not retried, so the offered load
 * stays what it says. Reported: how fast refusals are answered, the admitted calls' latency during the
 * overload, leases of live workers that lapsed (an incarnation that changed: the worker registered
 * again), inputs lost (appended, never released), and how long after the overload ends the P99 of a
 * second is first back under the paper's PushText P99 (and which later seconds went over it again).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { readLoadView } from '../../impl/store/steps.js';
import { checkHistory } from '../history.js';
import { Latencies } from '../bench-scale/latency.js';
import { delta } from '../bench-scale/probes.js';
import { PAPER } from '../bench-scale/run.js';
import {
  BenchSystem,
  CELL,
  type Ingress,
  LOAD_BENCH_DEPLOYMENT,
  WARM_UP_SECONDS,
  loadBenchSettings,
} from '../bench-scale/system.js';
import { hostFacts } from '../host.js';

const positive = (max: number) => z.number().int().min(1).max(max);

export const OverloadOptions = z.object({
  sessions: positive(1_000_000).default(10_000),
  /** The knee (bench-knee) of the ingress, PushText per second. */
  knee: positive(1_000_000),
  ingress: z.enum(['stream', 'unary']).default('stream'),
  overloadFactor: z.number().positive().default(3),
  recoveryFactor: z.number().positive().default(0.5),
  overloadSeconds: z.number().positive().default(60),
  recoverySeconds: z.number().positive().default(60),
  /** Before the overload, PushText at the recovery rate for this long, unmeasured. */
  warmUpSeconds: z.number().min(0).default(WARM_UP_SECONDS),
  workers: positive(64).default(LOAD_BENCH_DEPLOYMENT.workers),
  dispatchers: positive(16).default(LOAD_BENCH_DEPLOYMENT.dispatchers),
  createRate: positive(100_000).default(2000),
  targetP99Ms: z.number().positive().default(PAPER.paperPushTextP99Ms),
  leaseTtlMs: positive(3_600_000).default(10_000),
  heartbeatMs: positive(3_600_000).default(2000),
  settleSeconds: z.number().positive().default(120),
});
export type OverloadOptions = z.input<typeof OverloadOptions>;

export type Progress = (line: string) => void;

const r1 = (x: number) => Math.round(x * 10) / 10;

/** Each worker's incarnation now: one that grew registered again, so its lease had lapsed. */
async function incarnations(bench: BenchSystem): Promise<Map<string, number>> {
  const view = await readLoadView(bench.store, { cell: CELL, now: Date.now() });
  return new Map(view.map((w) => [w.worker, w.incarnation]));
}

/** Per-second P99 of the calls that ended in each second of a phase; [second, p99 ms]. */
class PerSecond {
  private readonly seconds: Latencies[] = [];
  constructor(private readonly t0: number) {}
  add(atMs: number, latencyMs: number): void {
    const k = Math.floor((atMs - this.t0) / 1000);
    if (k >= 0) (this.seconds[k] ??= new Latencies()).add(latencyMs);
  }
  p99s(): [number, number][] {
    return this.seconds.map((l, k) => [k, l?.summary().p99Ms ?? 0]);
  }
}

/** Runs the overload and the recovery; returns the result object scripts/bench-overload.ts prints. */
export async function runBenchOverload(options: OverloadOptions, progress: Progress = () => {}) {
  const o = OverloadOptions.parse(options);
  const settings = loadBenchSettings(o);
  const ingress: Ingress = o.ingress;
  const started = performance.now();
  const bench = await BenchSystem.launch(settings);
  try {
    const created = await bench.createUpTo(o.sessions, o.createRate);
    if (!(await bench.waitRuntimes(o.sessions, o.settleSeconds * 1000)))
      progress('  not every runtime started');
    progress(`${o.sessions} sessions: ${created.ok} created`);
    const before = await incarnations(bench);
    const overloadRate = Math.round(o.knee * o.overloadFactor);
    const recoveryRate = Math.round(o.knee * o.recoveryFactor);
    if (o.warmUpSeconds > 0)
      await bench.warmUp(recoveryRate, o.warmUpSeconds, ingress, o.settleSeconds * 1000);
    const overloadFrom = await bench.snapshot();
    const overload = await bench.push(overloadRate, delay(o.overloadSeconds * 1000), ingress);
    const recoveryFrom = await bench.snapshot();
    const ended = performance.now();
    const perSecond = new PerSecond(ended);
    progress(
      `  overload ${overloadRate}/s: ${r1(overload.ok / overload.seconds)}/s admitted, P99 ` +
        `${overload.latency.summary().p99Ms} ms; refused ${overload.errors['RESOURCE_EXHAUSTED'] ?? 0}`,
    );
    const recovery = await bench.push(
      recoveryRate,
      delay(o.recoverySeconds * 1000),
      ingress,
      undefined,
      (at, ms) => perSecond.add(at, ms),
    );
    const recoveryTo = await bench.snapshot();
    const lagging = await bench.settle(o.settleSeconds * 1000);
    const after = await incarnations(bench);
    const lapsed = [...before].filter(([w, i]) => (after.get(w) ?? i) !== i).map(([w]) => w);
    const history = checkHistory(await bench.audit(), bench.appended);
    const p99s = perSecond.p99s();
    const recoveredAt = p99s.findIndex(([, p99]) => p99 <= o.targetP99Ms);
    const summary = (l: Latencies) => {
      const { cdf: _cdf, ...s } = l.summary();
      return s;
    };
    const unreleased = history.violations.filter((v) => v.kind === 'unreleased').length;
    return {
      date: new Date().toISOString(),
      paperPushTextP99Ms: PAPER.paperPushTextP99Ms,
      system: {
        sessions: o.sessions,
        workers: o.workers,
        dispatchers: o.dispatchers,
        ingress,
        knee: o.knee,
        warmUpSeconds: o.warmUpSeconds,
        host: hostFacts(),
        client: 'open loop: refused calls are counted, not retried',
      },
      overload: {
        offeredPerS: overloadRate,
        seconds: r1(overload.seconds),
        admittedPerS: r1(overload.ok / overload.seconds),
        admitted: summary(overload.latency),
        refused: overload.errors['RESOURCE_EXHAUSTED'] ?? 0,
        refusalLatency: summary(overload.refusalLatency),
        errors: overload.errors,
        notSent: overload.skipped,
        /** The host's kernel threads meanwhile, which took a core from the system while they ran. */
        hostKernelThreads: delta(overloadFrom, recoveryFrom).kernel,
      },
      recovery: {
        offeredPerS: recoveryRate,
        admittedPerS: r1(recovery.ok / recovery.seconds),
        latency: summary(recovery.latency),
        errors: recovery.errors,
        /** The first second after the overload whose P99 is under the target. */
        secondsUntilP99UnderTarget: recoveredAt >= 0 ? recoveredAt : null,
        /** The seconds after that one whose P99 was over the target again. */
        secondsOverTargetAfter: p99s.filter(([k, p99]) => k > recoveredAt && p99 > o.targetP99Ms),
        p99PerSecond: p99s,
        hostKernelThreads: delta(recoveryFrom, recoveryTo).kernel,
      },
      leasesLapsed: lapsed.length,
      lapsedWorkers: lapsed,
      inputsLost: unreleased,
      sessionsNotSettled: lagging,
      violations: history.violations.length,
      firstViolations: history.violations.slice(0, 5),
      seconds: r1((performance.now() - started) / 1000),
    };
  } finally {
    await bench.stop();
  }
}
