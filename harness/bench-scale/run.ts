/**
 * The scale benchmark (scripts/bench-scale.ts), in three parts, each on real processes and a real Redis:
 *   levels   one system grown level by level (e.g. 1k, 10k, 50k, 100k live sessions): at each, the
 *            CreateLive calls that grew it, an idle window (the background's cost at that size), a window
 *            of PushText load, and the memory of every process; per request: Redis commands and CPU.
 *   storm    on the same system at its largest size: Migrate calls and drains while PushText load runs;
 *            a capacity sampler reads every worker's tokens and runtimes against its cap, then the
 *            history checker judges the cell's audit stream.
 *   compare  a fresh system per protocol variant at a moderate size: the same figures side by side, and
 *            the history check after a burst of migrations.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { Protocol } from '../../impl/store/schema.js';
import { readLoadView } from '../../impl/store/steps.js';
import { checkHistory } from '../history.js';
import type { LatencySummary } from './latency.js';
import type { LoadResult } from './load.js';
import { type Delta, type Snapshot, delta, perRequest, startSlowlog, takeSlowlog } from './probes.js';
import { BenchSystem, CELL, type DrainResult, type SystemSettings } from './system.js';
import { hostFacts } from '../host.js';

const Variant = z.object({ name: z.string(), protocol: Protocol, audit: z.boolean(), trace: z.boolean() });
export type Variant = z.infer<typeof Variant>;

/** The comparison's variants: DHSched without and with its audit/trace, then the three baselines. */
export const DEFAULT_VARIANTS: Variant[] = [
  { name: 'dhsched', protocol: 'dhsched', audit: true, trace: false },
  { name: 'dhsched-no-audit', protocol: 'dhsched', audit: false, trace: false },
  { name: 'dhsched-trace', protocol: 'dhsched', audit: true, trace: true },
  { name: 'assignment-time', protocol: 'assignment_time', audit: true, trace: false },
  { name: 'claim-only', protocol: 'claim_only', audit: true, trace: false },
  { name: 'workerid-only', protocol: 'workerid_only', audit: true, trace: false },
];

const count = (max: number) => z.number().int().min(0).max(max);
const positive = (max: number) => z.number().int().min(1).max(max);

export const ScaleOptions = z
  .object({
    /** Live sessions at each level, ascending; one system grows through them. */
    sessions: z.array(positive(1_000_000)).min(1),
    workers: positive(64).default(4),
    dispatchers: positive(16).default(2),
    /** Runtimes per worker; default: room for every session on 2/3 of the workers. */
    capacity: positive(1_000_000).optional(),
    createRate: positive(100_000).default(500),
    pushRate: positive(100_000).default(500),
    /** How the load client sends PushText. */
    ingress: z.enum(['unary', 'stream']).default('unary'),
    pushSeconds: z.number().positive().default(20),
    idleSeconds: z.number().positive().default(10),
    migrations: count(1_000_000).default(10_000),
    migrationRate: positive(100_000).default(200),
    /** Spare workers added for the storm and drained during it, one after the other. */
    drains: count(8).default(2),
    compareSessions: count(1_000_000).default(5000),
    compareMigrations: count(1_000_000).default(1000),
    variants: z.array(Variant).default(DEFAULT_VARIANTS),
    /** Trace every step of the main system (audit alone is what the history check reads). */
    trace: z.boolean().default(false),
    leaseTtlMs: positive(3_600_000).default(10_000),
    heartbeatMs: positive(3_600_000).default(2000),
    sweepMs: positive(3_600_000).default(10_000),
    refreshMs: positive(60_000).default(200),
    settleSeconds: z.number().positive().default(120),
  })
  .refine((o) => o.sessions.every((n, i) => i === 0 || n > o.sessions[i - 1]!), {
    path: ['sessions'],
    message: 'levels must be ascending',
  })
  .refine((o) => o.heartbeatMs < o.leaseTtlMs, {
    path: ['heartbeatMs'],
    message: 'must be shorter than leaseTtlMs',
  });
export type ScaleOptions = z.input<typeof ScaleOptions>;

/** What the paper reports, as reference lines. */
export const PAPER = {
  paperCreateLiveP99Ms: 98.3,
  paperPushTextP99Ms: 16.5,
  paperSessions: 49_987,
  paperMigrations: 9927,
};

const MiB = 1024 * 1024;
/** Redis commands (a script is one) slower than this are logged: every other client waited on them. */
const SLOW_US = 1000;
const r1 = (x: number) => Math.round(x * 10) / 10;

/** A load's figures: latency, throughput, failures. */
function calls(r: LoadResult): LatencySummary & {
  ok: number;
  perSecond: number;
  errors: Record<string, number>;
  skipped: number;
} {
  return {
    ...r.latency.summary(),
    ok: r.ok,
    perSecond: r1(r.ok / r.seconds),
    errors: r.errors,
    skipped: r.skipped,
  };
}

/** Runs `body` between two snapshots. */
async function measured<T>(bench: BenchSystem, body: () => Promise<T>): Promise<[T, Delta, Snapshot]> {
  const before = await bench.snapshot();
  const out = await body();
  const after = await bench.snapshot();
  return [out, delta(before, after), after];
}

/** The background's rate over an idle window: commands and scripts per second, CPU ms per second. */
function backgroundRate(idle: Delta) {
  const commands = [...idle.calls].reduce((a, [cmd, n]) => a + (cmd === 'info' ? 0 : n), 0);
  return {
    redisCommandsPerS: r1(commands / idle.seconds),
    redisScriptsPerS: r1((idle.calls.get('evalsha') ?? 0) / idle.seconds),
    cpuMsPerS: Object.fromEntries(
      Object.entries(idle.cpuS).map(([k, s]) => [k, r1((s * 1000) / idle.seconds)]),
    ),
  };
}

/** Memory at a level; per session: RSS of the workers and replicas plus Redis's used_memory, over sessions. */
function memory(s: Snapshot, sessions: number) {
  const rss = (g: string) => s.groups[g]?.rssBytes ?? 0;
  const total = rss('workers') + rss('dispatchers') + s.redis.usedMemoryBytes;
  return {
    workersRssMiB: r1(rss('workers') / MiB),
    dispatchersRssMiB: r1(rss('dispatchers') / MiB),
    sinkRssMiB: r1(rss('sink') / MiB),
    redisUsedMiB: r1(s.redis.usedMemoryBytes / MiB),
    redisRssMiB: r1(s.redis.rssBytes / MiB),
    benchRssMiB: r1(rss('bench') / MiB),
    totalMiB: r1(total / MiB),
    bytesPerSession: Math.round(total / sessions),
    totalBytes: total,
  };
}

/**
 * The history check of the cell's audit stream (its trace, when traced): violations by kind, and a
 * few of them. Tokens are replayed only from a trace (the audit has no teardowns); the run samples
 * them from the store besides.
 */
async function judge(bench: BenchSystem, settleSeconds: number) {
  const lagging = await bench.settle(settleSeconds * 1000);
  const audit = await bench.audit();
  const capacities = bench.settings.trace
    ? new Map(bench.system.workers.map((w) => [w.id, bench.settings.capacity]))
    : undefined;
  const summary = checkHistory(audit, bench.appended, capacities);
  const byKind: Record<string, number> = {};
  for (const v of summary.violations) byKind[v.kind] = (byKind[v.kind] ?? 0) + 1;
  return {
    auditEntries: audit.length,
    commits: summary.commits,
    releases: summary.releases,
    violations: summary.violations.length,
    violationsByKind: byKind,
    firstViolations: summary.violations.slice(0, 5),
    sessionsNotSettled: lagging,
  };
}

/**
 * Reads every worker's tokens and published runtimes against its cap until `until` resolves:
 * NoCapacityOvershoot as the store and the workers show it, sampled.
 */
async function sampleCapacity(bench: BenchSystem, until: Promise<unknown>) {
  let stop = false;
  void until.then(() => (stop = true));
  const out = { samples: 0, tokenOvershoots: 0, runtimeOvershoots: 0, maxTokensPerCap: 0 };
  while (!stop) {
    const view = await readLoadView(bench.store, { cell: CELL, now: Date.now() });
    out.samples++;
    for (const w of view) {
      if (w.tokens > w.cap) out.tokenOvershoots++;
      if (w.runtimes > w.cap) out.runtimeOvershoots++;
      out.maxTokensPerCap = Math.max(out.maxTokensPerCap, Math.round((w.tokens / w.cap) * 1000) / 1000);
    }
    await delay(200);
  }
  return out;
}

export type Progress = (line: string) => void;

/** One level: grow to `n` sessions, then the idle and PushText windows and the memory reading. */
async function level(bench: BenchSystem, o: z.output<typeof ScaleOptions>, n: number, progress: Progress) {
  const from = bench.created;
  await takeSlowlog(bench.observer);
  const [created, createDelta] = await measured(bench, async () => {
    const r = await bench.createUpTo(n, o.createRate);
    if (!(await bench.waitRuntimes(n, o.settleSeconds * 1000))) progress(`  not every runtime started`);
    return r;
  });
  const createSlow = await takeSlowlog(bench.observer);
  progress(`  ${n} sessions: ${created.ok} creates, P99 ${created.latency.summary().p99Ms} ms`);
  const [, idle] = await measured(bench, () => delay(o.idleSeconds * 1000));
  const idleSlow = await takeSlowlog(bench.observer);
  const [pushed, pushDelta, after] = await measured(bench, () =>
    bench.push(o.pushRate, delay(o.pushSeconds * 1000), o.ingress),
  );
  const pushSlow = await takeSlowlog(bench.observer);
  progress(`  ${n} sessions: ${pushed.ok} pushes, P99 ${pushed.latency.summary().p99Ms} ms`);
  return {
    sessions: n,
    createLive: {
      ...calls(created),
      cost: perRequest(createDelta, idle, Math.max(1, n - from)),
      redisSlow: createSlow,
    },
    pushText: {
      ...calls(pushed),
      cost: perRequest(pushDelta, idle, Math.max(1, pushed.ok)),
      redisSlow: pushSlow,
    },
    background: { ...backgroundRate(idle), redisSlow: idleSlow },
    memory: memory(after, n),
  };
}

/** Migrations (and drains of spare workers) while PushText load runs; then the history check. */
async function storm(bench: BenchSystem, o: z.output<typeof ScaleOptions>, progress: Progress) {
  const targets = bench.system.workers.map((w) => w.id);
  const spares = await Promise.all(
    Array.from({ length: o.drains }, (_, i) => bench.system.addWorker(`spare${i + 1}`)),
  );
  let migrated = 0;
  const drains: Promise<DrainResult>[] = [];
  const onOk = () => {
    migrated++;
    // spare i is drained once (i + 1) / (drains + 1) of the migrations are done
    const next = drains.length;
    if (next < spares.length && migrated >= ((next + 1) * o.migrations) / (spares.length + 1)) {
      drains.push(bench.drain(spares[next]!.id));
    }
  };
  await takeSlowlog(bench.observer);
  let endPush: () => void = () => {};
  const pushing = bench.push(o.pushRate, new Promise<void>((resolve) => (endPush = resolve)), o.ingress);
  const sampling = sampleCapacity(bench, pushing);
  const t0 = performance.now();
  const moves = await bench.migrate(o.migrations, o.migrationRate, targets, onOk);
  const drained = await Promise.all(drains);
  const seconds = (performance.now() - t0) / 1000;
  endPush();
  const [pushes, capacity] = await Promise.all([pushing, sampling]);
  const redisSlow = await takeSlowlog(bench.observer);
  progress(`  storm: ${moves.ok} migrations, ${drained.length} drains in ${r1(seconds)} s; checking`);
  const history = await judge(bench, o.settleSeconds);
  const drainMoves = drained.reduce((a, d) => a + d.moved, 0);
  return {
    sessions: bench.created,
    seconds: r1(seconds),
    migrate: calls(moves),
    drains: drained,
    migrations: moves.ok + drainMoves,
    pushTextDuring: calls(pushes),
    redisSlow,
    capacity,
    history,
  };
}

/** A fresh system per variant at `compareSessions`: one level's figures, a burst of migrations, the check. */
async function compare(o: z.output<typeof ScaleOptions>, settings: SystemSettings, progress: Progress) {
  const out = [];
  for (const v of o.variants) {
    const bench = await BenchSystem.launch({
      ...settings,
      protocol: v.protocol,
      audit: v.audit,
      trace: v.trace,
    });
    try {
      await startSlowlog(bench.observer, SLOW_US);
      const figures = await level(bench, o, o.compareSessions, progress);
      const targets = bench.system.workers.map((w) => w.id);
      const moves = await bench.migrate(o.compareMigrations, o.migrationRate, targets, () => {});
      const history = v.audit ? await judge(bench, o.settleSeconds) : null;
      progress(`  ${v.name}: violations ${history?.violations ?? 'not checked'}`);
      out.push({ ...v, ...figures, migrate: calls(moves), history });
    } finally {
      await bench.stop();
    }
  }
  return out;
}

/** Runs the whole benchmark; returns the result object that scripts/bench-scale.ts prints and writes. */
export async function runBenchScale(options: ScaleOptions, progress: Progress = () => {}) {
  const o = ScaleOptions.parse(options);
  const largest = o.sessions[o.sessions.length - 1]!;
  const capacity = o.capacity ?? Math.max(1, Math.ceil((largest * 1.5) / o.workers));
  const settings: SystemSettings = {
    protocol: 'dhsched',
    audit: true,
    trace: o.trace,
    workers: o.workers,
    dispatchers: o.dispatchers,
    capacity,
    leaseTtlMs: o.leaseTtlMs,
    heartbeatMs: o.heartbeatMs,
    sweepMs: o.sweepMs,
    refreshMs: o.refreshMs,
  };
  const started = performance.now();
  const bench = await BenchSystem.launch(settings);
  await startSlowlog(bench.observer, SLOW_US);
  const levels: Awaited<ReturnType<typeof level>>[] = [];
  let stormResult;
  try {
    for (const n of o.sessions) levels.push(await level(bench, o, n, progress));
    stormResult = await storm(bench, o, progress);
  } finally {
    await bench.stop();
  }
  const comparison = o.compareSessions > 0 ? await compare(o, settings, progress) : [];
  const top = levels[levels.length - 1]!;
  return {
    date: new Date().toISOString(),
    ...PAPER,
    system: {
      workers: o.workers,
      dispatchers: o.dispatchers,
      capacityPerWorker: capacity,
      runtime: 'null',
      redis: 'one private redis-server, no persistence',
      redisSlowUs: SLOW_US,
      growth: 'one system grown through the levels; the comparison starts a fresh system per variant',
      audit: o.trace ? 'audit and trace on, whole run' : 'audit on (commits, closes, releases), whole run',
      settings: {
        ...settings,
        createRate: o.createRate,
        pushRate: o.pushRate,
        ingress: o.ingress,
        migrationRate: o.migrationRate,
      },
      host: hostFacts(),
    },
    headline: {
      sessions: top.sessions,
      createLiveP50Ms: top.createLive.p50Ms,
      createLiveP99Ms: top.createLive.p99Ms,
      createLiveP999Ms: top.createLive.p999Ms,
      pushTextP50Ms: top.pushText.p50Ms,
      pushTextP99Ms: top.pushText.p99Ms,
      pushTextP999Ms: top.pushText.p999Ms,
      pushTextStormP50Ms: stormResult.pushTextDuring.p50Ms,
      pushTextStormP99Ms: stormResult.pushTextDuring.p99Ms,
      pushTextStormP999Ms: stormResult.pushTextDuring.p999Ms,
      bytesPerSession: top.memory.bytesPerSession,
      migrations: stormResult.migrations,
      violations: stormResult.history.violations,
      // 'unreleased' is liveness (an input not yet released when the check ran), the others safety
      violationsByKind: stormResult.history.violationsByKind,
      capacityOvershoots: stormResult.capacity.tokenOvershoots + stormResult.capacity.runtimeOvershoots,
    },
    levels: levels.map((l, i) => {
      const prev = levels[i - 1];
      const marginal = prev && (l.memory.totalBytes - prev.memory.totalBytes) / (l.sessions - prev.sessions);
      return { ...l, memory: { ...l.memory, marginalBytesPerSession: prev ? Math.round(marginal!) : null } };
    }),
    storm: stormResult,
    comparison,
    seconds: r1((performance.now() - started) / 1000),
  };
}

export type ScaleResult = Awaited<ReturnType<typeof runBenchScale>>;
