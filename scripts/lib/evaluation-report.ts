/**
 * The evaluation report: reads the benchmarks' results (ownership.json from bench-ownership,
 * scale.json from bench-scale) and writes evaluation.md, the tables beside the paper's figures, with
 * plots rendered by Vega-Lite into plots/*.svg: latency CDFs, latency and memory against sessions,
 * PushText during the migration storm, and the cost of safety per protocol; with knee.json (bench-knee)
 * and overload.json (bench-overload), the knee of each ingress and the overload run.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { z } from 'zod';
import { issuesText } from '../../impl/common/issues.js';

const Latency = z.object({
  count: z.number(),
  p50Ms: z.number(),
  p99Ms: z.number(),
  p999Ms: z.number(),
  perSecond: z.number(),
  cdf: z.array(z.tuple([z.number(), z.number()])),
});
const Cost = z.object({
  redisCommands: z.number(),
  cpuMs: z.record(z.string(), z.number()),
});
const Call = Latency.extend({ cost: Cost });
const History = z.object({
  violations: z.number(),
  violationsByKind: z.record(z.string(), z.number()),
  commits: z.number(),
  releases: z.number(),
});

/** The processes a benchmark ran. */
const Deployment = z.object({ workers: z.number(), dispatchers: z.number() });
const deployment = (d: z.infer<typeof Deployment>) =>
  `${d.workers} Workers, ${d.dispatchers} Dispatch replica${d.dispatchers === 1 ? '' : 's'}`;
const Scale = z.object({
  date: z.string(),
  paperCreateLiveP99Ms: z.number(),
  paperPushTextP99Ms: z.number(),
  paperSessions: z.number(),
  paperMigrations: z.number(),
  system: Deployment.extend({ runtime: z.string() }),
  levels: z.array(
    z.object({
      sessions: z.number(),
      createLive: Call,
      pushText: Call,
      memory: z.object({ bytesPerSession: z.number(), totalMiB: z.number() }).passthrough(),
    }),
  ),
  storm: z.object({
    sessions: z.number(),
    migrations: z.number(),
    migrate: Latency,
    pushTextDuring: Latency,
    capacity: z.object({ tokenOvershoots: z.number(), runtimeOvershoots: z.number() }),
    history: History,
  }),
  comparison: z.array(
    z.object({
      name: z.string(),
      protocol: z.string(),
      sessions: z.number(),
      createLive: Call,
      pushText: Call,
    }),
  ),
});

const KINDS = ['dual-release', 'stale-release', 'overshoot', 'gap', 'unreleased'] as const;
const Counts = z.object(
  Object.fromEntries(KINDS.map((k) => [k, z.number()])) as Record<(typeof KINDS)[number], z.ZodNumber>,
);
const Ownership = z.object({
  date: z.string(),
  runsPerProtocol: z.number(),
  /** Absent in results from before --baseline-runs: every protocol ran runsPerProtocol. */
  baselineRuns: z.number().optional(),
  seconds: z.number(),
  protocols: z.record(
    z.string(),
    z.object({
      runs: z.number(),
      violations: Counts,
      runsWith: Counts,
      firstFailingSeed: z.object(
        Object.fromEntries(KINDS.map((k) => [k, z.number().nullable()])) as Record<
          (typeof KINDS)[number],
          z.ZodNullable<z.ZodNumber>
        >,
      ),
      staleExecution: z.boolean(),
    }),
  ),
});

const KneeStep = z.object({
  ingress: z.string(),
  offeredPerS: z.number(),
  achievedPerS: z.number(),
  p50Ms: z.number(),
  p99Ms: z.number(),
  p999Ms: z.number(),
  refusals: z.number(),
  notSent: z.number(),
  cpuMsPerRequest: z.object({ all: z.number() }).passthrough(),
  endToEnd: z.object({ p99Ms: z.number() }).passthrough(),
  passed: z.boolean(),
});
const Knee = z.object({
  date: z.string(),
  beforeKneePerS: z.number(),
  system: Deployment.extend({
    sessions: z.number(),
    stepSeconds: z.number(),
    targetP99Ms: z.number(),
  }).passthrough(),
  knee: z.record(z.string(), z.object({ perSecond: z.number(), ratioToBefore: z.number() }).nullable()),
  steps: z.array(KneeStep),
});
const Overload = z.object({
  date: z.string(),
  system: Deployment.extend({ sessions: z.number(), ingress: z.string(), knee: z.number() }).passthrough(),
  overload: z.object({
    offeredPerS: z.number(),
    seconds: z.number(),
    admittedPerS: z.number(),
    admitted: z.object({ p99Ms: z.number() }).passthrough(),
    refused: z.number(),
    refusalLatency: z.object({ p99Ms: z.number() }).passthrough(),
  }),
  recovery: z
    .object({
      offeredPerS: z.number(),
      latency: z.object({ p99Ms: z.number() }).passthrough(),
      secondsUntilP99UnderTarget: z.number().nullable(),
      secondsOverTargetAfter: z.array(z.tuple([z.number(), z.number()])),
    })
    .passthrough(),
  leasesLapsed: z.number(),
  inputsLost: z.number(),
  violations: z.number(),
});

const FloorStageFigures = z.object({
  p50MsMedian: z.number(),
  p99MsMedian: z.number(),
  p99MsMin: z.number(),
  runsWithinTarget: z.number(),
});
const Floor = z.object({
  date: z.string(),
  rate: z.number(),
  targetP99Ms: z.number(),
  byStage: z.object({ echo: FloorStageFigures, store: FloorStageFigures }),
  runs: z.array(z.object({ stage: z.string(), p99Ms: z.number() }).passthrough()),
});

/** The file's contents if the benchmark that writes it has run, else undefined. */
function readOptional<T>(file: string, schema: z.ZodType<T>): T | undefined {
  return fs.existsSync(file) ? readJson(file, schema) : undefined;
}

/** P99 against offered load (log x), one line per ingress, with the target as a rule. */
function kneePlot(knee: z.infer<typeof Knee>): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `PushText P99 against offered load at ${int(knee.system.sessions)} live sessions`,
    width: 560,
    height: 300,
    layer: [
      {
        data: { values: knee.steps.map((s) => ({ ...s, p99Ms: Math.max(s.p99Ms, 0.01) })) },
        mark: { type: 'line', point: true },
        encoding: {
          x: {
            field: 'offeredPerS',
            type: 'quantitative',
            scale: { type: 'log' },
            title: 'offered PushText/s (log scale)',
          },
          y: { field: 'p99Ms', type: 'quantitative', scale: { type: 'log' }, title: 'P99 (ms, log scale)' },
          color: { field: 'ingress', type: 'nominal', title: null },
        },
      },
      {
        data: { values: [{ ms: knee.system.targetP99Ms }] },
        mark: { type: 'rule', strokeDash: [4, 4], color: 'gray' },
        encoding: { y: { field: 'ms', type: 'quantitative' } },
      },
    ],
  };
}

/** The throughput section: the knee of each ingress, the overload run and the floor, when they have run. */
function throughputSection(
  knee: z.infer<typeof Knee> | undefined,
  overload: z.infer<typeof Overload> | undefined,
  floor: z.infer<typeof Floor> | undefined,
): string {
  const parts: string[] = [];
  if (knee) {
    const kneeText = Object.entries(knee.knee)
      .map(([ingress, k]) =>
        k === null
          ? `${ingress}: below the lowest step`
          : `${ingress}: **${int(k.perSecond)}/s** (${k.ratioToBefore}× the ~${int(knee.beforeKneePerS)}/s before the batched ingress)`,
      )
      .join('; ');
    const rows = knee.steps.map(
      (s) =>
        `| ${s.ingress} | ${int(s.offeredPerS)} | ${int(s.achievedPerS)} | ${ms(s.p50Ms)} / ${ms(s.p99Ms)} / ${ms(s.p999Ms)} | ${int(s.refusals)} | ${int(s.notSent)} | ${s.cpuMsPerRequest.all.toFixed(3)} | ${ms(s.endToEnd.p99Ms)} | ${s.passed ? 'yes' : 'no'} |`,
    );
    parts.push(`\`./scripts/bench-knee --sessions ${knee.system.sessions}\` (${knee.date}; ${deployment(knee.system)}): PushText offered open loop for
${knee.system.stepSeconds} s a step; a step passes with P99 ≤ ${knee.system.targetP99Ms} ms and nothing refused, failed or unsent, and
the knee is the highest step up to which every step passed. Knee: ${kneeText}. CPU is per PushText, every process and the load client together, net of the
idle background; end to end is from the push to its release by the runtime (the release's audit entry).

| ingress | offered/s | achieved/s | P50 / P99 / P99.9 ms | refused | not sent | CPU ms per PushText | push → release P99 ms | passed |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
${rows.join('\n')}

![P99 against offered load](plots/knee.svg)
`);
  }
  if (overload) {
    const o = overload.overload;
    const back = overload.recovery.secondsUntilP99UnderTarget;
    parts.push(`\`./scripts/bench-overload --sessions ${overload.system.sessions} --knee ${overload.system.knee} --ingress ${overload.system.ingress}\` (${overload.date}; ${deployment(overload.system)}):
${int(o.offeredPerS)} PushText/s for ${o.seconds} s, then ${int(overload.recovery.offeredPerS)}/s. During the overload ${int(o.admittedPerS)}/s were admitted (P99
${ms(o.admitted.p99Ms)} ms) and ${o.refused === 0 ? 'none refused' : `${int(o.refused)} refused (answered in P99 ${ms(o.refusalLatency.p99Ms)} ms)`}; leases of live workers lapsed: ${overload.leasesLapsed};
inputs lost: ${overload.inputsLost}; history violations: ${overload.violations}. A second's P99 first back under the target
${back === null ? 'not within the run' : `${back} s after the overload ended`} (later seconds over it again: ${overload.recovery.secondsOverTargetAfter.length}; P99
after the overload ${ms(overload.recovery.latency.p99Ms)} ms).
`);
  }
  if (floor) {
    const runs = floor.runs.length / 2;
    const stage = (name: 'echo' | 'store') => {
      const f = floor.byStage[name];
      return `P99 median ${ms(f.p99MsMedian)} ms (best ${ms(f.p99MsMin)}; ${f.runsWithinTarget} of ${runs} runs within ${floor.targetP99Ms} ms)`;
    };
    parts.push(`\`./scripts/bench-floor --rate ${floor.rate}\` (${floor.date}): the floor of a push on this machine, the load client's pattern on
one gRPC stream to a server that answers at once (echo: ${stage('echo')}) or after appending the pushes waiting in
one Redis script (store: ${stage('store')}). No system whose push crosses those processes answers faster here.
`);
  }
  return parts.length === 0 ? '' : `\n## Throughput: the knee and overload\n\n${parts.join('\n')}`;
}

function readJson<T>(file: string, schema: z.ZodType<T>): T {
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run the benchmark that writes it first`);
  const parsed = schema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${issuesText(parsed.error, 'file')}`);
  return parsed.data;
}

async function svgOf(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const int = (x: number) => Math.round(x).toLocaleString('en-US');
const byKind = (counts: Record<string, number>) => {
  const kinds = Object.entries(counts);
  return kinds.length === 0 ? '' : ` (${kinds.map(([k, n]) => `${k}: ${int(n)}`).join(', ')})`;
};
const cpuPerRequest = (c: z.infer<typeof Cost>) => Object.values(c.cpuMs).reduce((a, b) => a + b, 0);

/** Latency CDF lines of several series, x on a log scale, with the paper's P99s as rules. */
function cdfPlot(
  title: string,
  series: { name: string; cdf: [number, number][] }[],
  rules: { name: string; ms: number }[],
): TopLevelSpec {
  const points = series.flatMap((s) =>
    s.cdf.map(([pct, latency]) => ({ series: s.name, pct, latency: Math.max(latency, 0.01) })),
  );
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: 560,
    height: 300,
    layer: [
      {
        data: { values: points },
        mark: { type: 'line', interpolate: 'step-after' },
        encoding: {
          x: {
            field: 'latency',
            type: 'quantitative',
            scale: { type: 'log' },
            title: 'latency (ms, log scale)',
          },
          y: { field: 'pct', type: 'quantitative', title: 'percentile' },
          color: {
            field: 'series',
            type: 'nominal',
            title: null,
            legend: { orient: 'bottom', labelLimit: 0 },
          },
        },
      },
      {
        data: { values: rules },
        mark: { type: 'rule', strokeDash: [4, 4], color: 'gray' },
        encoding: { x: { field: 'ms', type: 'quantitative' }, tooltip: { field: 'name' } },
      },
      {
        data: { values: rules },
        mark: {
          type: 'text',
          angle: 270,
          dy: -4,
          align: 'right',
          baseline: 'bottom',
          color: 'gray',
          fontSize: 10,
        },
        encoding: { x: { field: 'ms', type: 'quantitative' }, y: { value: 4 }, text: { field: 'name' } },
      },
    ],
  };
}

/** Lines of a figure against sessions (log x), one per series. */
function bySessionsPlot(
  title: string,
  yTitle: string,
  points: { sessions: number; series: string; y: number }[],
  logY: boolean,
): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: 560,
    height: 300,
    data: { values: points },
    mark: { type: 'line', point: true },
    encoding: {
      x: {
        field: 'sessions',
        type: 'quantitative',
        scale: { type: 'log' },
        title: 'live sessions (log scale)',
      },
      y: { field: 'y', type: 'quantitative', scale: { type: logY ? 'log' : 'linear' }, title: yTitle },
      color: { field: 'series', type: 'nominal', title: null, legend: { labelLimit: 0 } },
    },
  };
}

function costPlot(rows: { name: string; metric: string; value: number }[]): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'The cost of safety: DHSched against the unsafe baselines',
    data: { values: rows },
    facet: { column: { field: 'metric', type: 'nominal', title: null } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 170,
      height: 220,
      mark: 'bar',
      encoding: {
        x: { field: 'name', type: 'nominal', title: null, axis: { labelAngle: -40 } },
        y: { field: 'value', type: 'quantitative', title: null },
        color: { field: 'name', type: 'nominal', legend: null },
      },
    },
  };
}

/** Writes evaluation.md and plots/ under `out` from the JSON results in `bench`; returns the files written. */
export async function writeEvaluationReport(bench: string, out: string): Promise<string[]> {
  const scale = readJson(path.join(bench, 'scale.json'), Scale);
  const ownership = readJson(path.join(bench, 'ownership.json'), Ownership);
  const knee = readOptional(path.join(bench, 'knee.json'), Knee);
  const overload = readOptional(path.join(bench, 'overload.json'), Overload);
  const floor = readOptional(path.join(bench, 'floor.json'), Floor);
  const plots = path.join(out, 'plots');
  fs.mkdirSync(plots, { recursive: true });

  const top = scale.levels[scale.levels.length - 1]!;
  const paperRules = [
    { name: `paper CreateLive P99 ${scale.paperCreateLiveP99Ms} ms`, ms: scale.paperCreateLiveP99Ms },
    { name: `paper PushText P99 ${scale.paperPushTextP99Ms} ms`, ms: scale.paperPushTextP99Ms },
  ];
  const figures: [string, TopLevelSpec][] = [
    [
      'latency-cdf.svg',
      cdfPlot(
        `Latency at ${int(top.sessions)} live sessions`,
        [
          { name: 'CreateLive', cdf: top.createLive.cdf },
          { name: 'PushText', cdf: top.pushText.cdf },
          { name: 'PushText during the migration storm', cdf: scale.storm.pushTextDuring.cdf },
        ],
        paperRules,
      ),
    ],
    [
      'latency-vs-sessions.svg',
      bySessionsPlot(
        'Latency against live sessions',
        'latency (ms, log scale)',
        scale.levels.flatMap((l) =>
          (['createLive', 'pushText'] as const).flatMap((call) =>
            (['p50Ms', 'p99Ms', 'p999Ms'] as const).map((p) => ({
              sessions: l.sessions,
              series: `${call === 'createLive' ? 'CreateLive' : 'PushText'} ${p.slice(0, -2).replace('p999', 'P99.9').replace('p', 'P')}`,
              y: Math.max(l[call][p], 0.01),
            })),
          ),
        ),
        true,
      ),
    ],
    [
      'memory-vs-sessions.svg',
      bySessionsPlot(
        'Memory against live sessions (all processes and Redis)',
        'MiB',
        scale.levels.map((l) => ({ sessions: l.sessions, series: 'total memory', y: l.memory.totalMiB })),
        false,
      ),
    ],
    [
      'cost-of-safety.svg',
      costPlot(
        scale.comparison.flatMap((c) => [
          { name: c.name, metric: 'PushText P99 (ms)', value: c.pushText.p99Ms },
          { name: c.name, metric: 'CreateLive P99 (ms)', value: c.createLive.p99Ms },
          { name: c.name, metric: 'Redis commands per PushText', value: c.pushText.cost.redisCommands },
        ]),
      ),
    ],
  ];
  if (knee) figures.push(['knee.svg', kneePlot(knee)]);
  for (const [file, spec] of figures) fs.writeFileSync(path.join(plots, file), await svgOf(spec));

  const ownershipRows = Object.entries(ownership.protocols).map(
    ([name, p]) =>
      `| ${name} | ${int(p.runs)} | ${KINDS.map((k) => `${int(p.violations[k])} (${int(p.runsWith[k])} runs)`).join(' | ')} | ${KINDS.map((k) => p.firstFailingSeed[k] ?? '–').join(', ')} | ${p.staleExecution ? 'yes' : 'no'} |`,
  );
  const levelRows = scale.levels.map(
    (l) =>
      `| ${int(l.sessions)} | ${ms(l.createLive.p50Ms)} / ${ms(l.createLive.p99Ms)} / ${ms(l.createLive.p999Ms)} | ${ms(l.pushText.p50Ms)} / ${ms(l.pushText.p99Ms)} / ${ms(l.pushText.p999Ms)} | ${int(l.pushText.perSecond)} | ${int(l.memory.bytesPerSession)} | ${l.createLive.cost.redisCommands.toFixed(1)} / ${l.pushText.cost.redisCommands.toFixed(1)} | ${cpuPerRequest(l.createLive.cost).toFixed(2)} / ${cpuPerRequest(l.pushText.cost).toFixed(2)} |`,
  );
  const comparisonRows = scale.comparison.map(
    (c) =>
      `| ${c.name} | ${int(c.sessions)} | ${ms(c.createLive.p99Ms)} | ${ms(c.pushText.p99Ms)} | ${c.createLive.cost.redisCommands.toFixed(1)} | ${c.pushText.cost.redisCommands.toFixed(1)} |`,
  );
  const storm = scale.storm;
  const baselineRuns = ownership.baselineRuns ?? ownership.runsPerProtocol;
  const baselineFlag = baselineRuns === ownership.runsPerProtocol ? '' : ` --baseline-runs ${baselineRuns}`;
  const baselineText = `, ${int(baselineRuns)} of each baseline (the first seeds)`;
  const md = `# Evaluation: the paper's figures, measured on this code

Generated by \`./scripts/report-evaluation\` from \`bench/ownership.json\` (${ownership.date}) and
\`bench/scale.json\` (${scale.date}), and \`bench/knee.json\`, \`bench/overload.json\` and \`bench/floor.json\` where
they exist; rerun the benchmarks (\`./scripts/bench-ownership\`, \`./scripts/bench-scale\`, \`./scripts/bench-knee\`,
\`./scripts/bench-overload\`, \`./scripts/bench-floor\`) and then this script to refresh it. Every figure was measured on the 2-core
machine the project is developed on, all processes and Redis on it.

## Randomized ownership runs

\`./scripts/bench-ownership --runs ${ownership.runsPerProtocol}${baselineFlag}\`: ${int(ownership.runsPerProtocol)} seeded runs of DHSched${baselineText}
(${ownership.seconds.toFixed(0)} s in all) of concurrent create, push, migrate, crash, pause and partition
schedules against the real Infer-Controller, Dispatch core and store; the history checker counts each
violation (and the runs with one). The paper: "assignment-time, claim-only, and WorkerID-only protocols
permit stale execution, while DHSched records no dual-owner or stale-generation release".

| protocol | runs | ${KINDS.join(' | ')} | first failing seed (each kind) | stale execution |
| --- | ---: | ${KINDS.map(() => '---:').join(' | ')} | --- | --- |
${ownershipRows.join('\n')}

## Scale and latency

\`./scripts/bench-scale\`: ${deployment(scale.system)} over gRPC (runtime \`${scale.system.runtime}\`), one
Redis. The paper, at ${int(scale.paperSessions)} sessions in
production: CreateLive P99 ${scale.paperCreateLiveP99Ms} ms, PushText P99 ${scale.paperPushTextP99Ms} ms.

| sessions | CreateLive P50 / P99 / P99.9 ms | PushText P50 / P99 / P99.9 ms | PushText/s | bytes per session | Redis commands per CreateLive / PushText | CPU ms per CreateLive / PushText |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${levelRows.join('\n')}

![latency CDF](plots/latency-cdf.svg)

![latency against sessions](plots/latency-vs-sessions.svg)

![memory against sessions](plots/memory-vs-sessions.svg)

## Migration storm

At ${int(storm.sessions)} live sessions, ${int(storm.migrations)} migrations (the paper: ${int(scale.paperMigrations)} in a day)
while the push load ran: Migrate P50 ${ms(storm.migrate.p50Ms)} ms, P99 ${ms(storm.migrate.p99Ms)} ms. PushText during the
storm: P50 ${ms(storm.pushTextDuring.p50Ms)} ms, P99 ${ms(storm.pushTextDuring.p99Ms)} ms (before it: P99 ${ms(top.pushText.p99Ms)} ms).
History checker over the storm: ${int(storm.history.commits)} commits, ${int(storm.history.releases)} releases,
**${int(storm.history.violations)} violations**${byKind(storm.history.violationsByKind)}; capacity overshoots: ${storm.capacity.tokenOvershoots} (tokens), ${storm.capacity.runtimeOvershoots} (runtimes).

## The cost of safety

The same load on a fresh system per protocol:

| protocol | sessions | CreateLive P99 ms | PushText P99 ms | Redis commands per CreateLive | per PushText |
| --- | ---: | ---: | ---: | ---: | ---: |
${comparisonRows.join('\n')}

![cost of safety](plots/cost-of-safety.svg)
${throughputSection(knee, overload, floor)}`;
  const report = path.join(out, 'evaluation.md');
  fs.writeFileSync(report, md);
  return [report, ...figures.map(([file]) => path.join(plots, file))];
}
