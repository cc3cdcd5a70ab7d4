/**
 * Checker throughput on the corpus's larger models: wall time of the whole `tlcts` process (Node
 * start included, like TLC's figure with JVM start), distinct states per second, median of N runs,
 * with TLC's figure from the corpus (and from a real TLC run when TLA2TOOLS_JAR is set).
 * Usage: node dist/scripts/bench-checker.js [--runs N] [--models A,B] [--out bench/checker.json]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { z } from 'zod';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Safety-only models: TLC's time on a model with liveness properties includes its liveness checking.
const DEFAULT_MODELS = [
  'SlidingPuzzle/SlidingPuzzle',
  'Hanoi/Hanoi',
  'FilterLock/FilterLock_Big',
  'SlidingPuzzle/SlidingPuzzle_Solve',
  'Increments/Increments_Race',
];

const Expected = z.array(
  z.object({
    model: z.string(),
    tla: z.string(),
    cfg: z.string(),
    distinctStates: z.number().nullable(),
    tlcSeconds: z.number(),
  }),
);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function timed(cmd: string, args: string[]): { seconds: number; stdout: string; rss: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const rssKb = Number(r.stderr.trim().split('\n').pop());
  return { seconds, stdout: r.stdout, rss: rssKb * 1024 };
}

const program = new Command('bench-checker')
  .option('--runs <n>', 'runs per model', (v) => z.coerce.number().int().positive().parse(v), 3)
  .option('--models <list>', 'comma-separated corpus models', (v) => v.split(','), DEFAULT_MODELS)
  .option(
    '--corpus <dir>',
    'corpus folder',
    process.env.TLC_CORPUS ?? path.resolve(root, '../shared/tlc-corpus'),
  )
  .option('--out <file>', 'JSON results', path.join(root, 'bench/checker.json'))
  .parse();
const opts = program.opts<{ runs: number; models: string[]; corpus: string; out: string }>();
const expected = Expected.parse(JSON.parse(fs.readFileSync(path.join(opts.corpus, 'expected.json'), 'utf8')));
const jar = process.env.TLA2TOOLS_JAR;

const rows = opts.models.map((name) => {
  const e = expected.find((x) => x.model === name);
  if (!e) throw new Error(`unknown corpus model ${name}`);
  const tla = path.join(opts.corpus, e.tla);
  const cfg = path.join(opts.corpus, e.cfg);
  const runs = Array.from({ length: opts.runs }, () =>
    timed(process.execPath, [path.join(root, 'tlcts/bin/tlcts.js'), tla, '-config', cfg]),
  );
  const distinct = Number(
    /\d+ states generated, (\d+) distinct states found, \d+ states left/.exec(runs[0]!.stdout)?.[1] ?? NaN,
  );
  const seconds = median(runs.map((r) => r.seconds));
  const row: Record<string, unknown> = {
    model: name,
    distinctStates: distinct,
    agreesWithTlc: distinct === e.distinctStates,
    seconds,
    statesPerSecond: Math.round(distinct / seconds),
    peakRssMiB: Math.round(median(runs.map((r) => r.rss)) / 2 ** 20),
    tlcSecondsCorpus: e.tlcSeconds,
    tlcStatesPerSecondCorpus: Math.round((e.distinctStates ?? 0) / e.tlcSeconds),
    ratioToTlc: Number((distinct / seconds / ((e.distinctStates ?? 0) / e.tlcSeconds)).toFixed(2)),
  };
  if (jar) {
    const tlcRuns = Array.from({ length: opts.runs }, () =>
      timed('java', ['-XX:+UseParallelGC', '-cp', jar, 'tlc2.TLC', '-workers', '1', '-config', cfg, tla]),
    );
    row.tlcSecondsHere = median(tlcRuns.map((r) => r.seconds));
  }
  console.log(JSON.stringify(row));
  return row;
});

const result = { date: new Date().toISOString(), node: process.version, runsPerModel: opts.runs, rows };
fs.mkdirSync(path.dirname(opts.out), { recursive: true });
fs.writeFileSync(opts.out, JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify({ medianRatioToTlc: median(rows.map((r) => r.ratioToTlc as number)) }));
