/**
 * The evaluation report: reads the benchmarks' results (ownership.json from bench-ownership,
 * scale.json from bench-scale) and writes evaluation.md, the tables beside the paper's figures, with
 * plots rendered by Vega-Lite into plots/*.svg: latency CDFs, latency and memory against sessions,
 * PushText during the migration storm, and the cost of safety per protocol.
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

const Scale = z.object({
  date: z.string(),
  paperCreateLiveP99Ms: z.number(),
  paperPushTextP99Ms: z.number(),
  paperSessions: z.number(),
  paperMigrations: z.number(),
  system: z.object({ workers: z.number(), dispatchers: z.number(), runtime: z.string() }),
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
\`bench/scale.json\` (${scale.date}); rerun the benchmarks (\`./scripts/bench-ownership\`,
\`./scripts/bench-scale\`) and then this script to refresh it. Every figure was measured on the 2-core
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

\`./scripts/bench-scale\`: ${scale.system.workers} Worker processes (runtime \`${scale.system.runtime}\`),
${scale.system.dispatchers} Dispatch replicas over gRPC, one Redis. The paper, at ${int(scale.paperSessions)} sessions in
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
`;
  const report = path.join(out, 'evaluation.md');
  fs.writeFileSync(report, md);
  return [report, ...figures.map(([file]) => path.join(plots, file))];
}
