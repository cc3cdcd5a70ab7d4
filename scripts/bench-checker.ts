/**
 * Checker throughput on the corpus's larger models and on the project's DHSched models: wall time
 * of the whole `tlcts` process (Node start included, like TLC's figure with JVM start), distinct
 * states per second and memory per distinct state, medians of N runs, with TLC's figure from the
 * corpus (and from a real TLC run when TLA2TOOLS_JAR is set).
 * Usage: ./scripts/bench-checker [--runs N] [--models A,B] [--workers 1,2] [--out bench/checker.json]
 * A model is a corpus name (`Hanoi/Hanoi`), a model of spec/models.json (`spec/DHSched_Race`) or a
 * path in the repository without its extension, naming NAME.tla and NAME.cfg (`tlcts/examples/Wheels`).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { median } from '../harness/bench-scale/latency.js';
import { loadManifest, specDir } from '../spec/manifest.js';
import {
  UsageError,
  fileName,
  integer,
  listOf,
  option,
  program as cliProgram,
  runScript,
} from '../impl/cli/flags.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Safety-only models: TLC's time on a model with liveness properties includes its liveness checking.
const DEFAULT_MODELS = [
  'SlidingPuzzle/SlidingPuzzle',
  'Hanoi/Hanoi',
  'FilterLock/FilterLock_Big',
  'SlidingPuzzle/SlidingPuzzle_Solve',
  'Increments/Increments_Race',
  'spec/DHSched',
  'spec/DHSched_Race',
  'spec/DHSched_Ops',
  // Ten million states.
  'tlcts/examples/Wheels',
];
// The process's memory on a one-state model: what Node and the checker hold before any state.
const BASELINE_MODEL = 'Faulty/Faulty_Compare';

const Expected = z.array(
  z.object({
    model: z.string(),
    tla: z.string(),
    cfg: z.string(),
    distinctStates: z.number().nullable(),
    tlcSeconds: z.number(),
  }),
);

interface Target {
  tla: string;
  cfg: string;
  /** TLC's figures from the corpus, where the model is a corpus model. */
  corpus?: { distinctStates: number | null; tlcSeconds: number };
}

function timed(cmd: string, args: string[]): { seconds: number; stdout: string; rss: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const rssKb = Number(r.stderr.trim().split('\n').pop());
  return { seconds, stdout: r.stdout, rss: rssKb * 1024 };
}

function distinctOf(stdout: string): number {
  return Number(
    /\d+ states generated, (\d+) distinct states found, \d+ states left/.exec(stdout)?.[1] ?? NaN,
  );
}

const program = cliProgram('bench-checker', 'checker throughput on the corpus’s larger models and on spec/’s')
  .addOption(option('--runs <n>', 'runs per model', integer(1)).default(3))
  .addOption(
    option(
      '--models <list>',
      'comma-separated models (corpus names or spec/NAME)',
      listOf(z.string(), 'models'),
    ).default(DEFAULT_MODELS, DEFAULT_MODELS.join(',')),
  )
  .addOption(
    option('--corpus <dir>', 'corpus folder', fileName).default(path.resolve(root, 'tlcts/test/tlc-corpus')),
  )
  .addOption(option('--out <file>', 'JSON results', fileName).default(path.join(root, 'bench/checker.json')))
  .addOption(
    option(
      '--workers <list>',
      "tlcts's -workers (threads expanding states), each measured: a comma-separated list",
      listOf(integer(1).schema, 'positive integers'),
    ).default([1], '1'),
  );
interface Flags {
  runs: number;
  models: string[];
  corpus: string;
  out: string;
  workers: number[];
}
function main(): number {
  const opts = program.parse().opts<Flags>();
  const expected = Expected.parse(
    JSON.parse(fs.readFileSync(path.join(opts.corpus, 'expected.json'), 'utf8')),
  );
  const specModels = loadManifest();
  const jar = process.env.TLA2TOOLS_JAR;
  function target(name: string): Target {
    if (name.startsWith('spec/')) {
      const m = specModels.find((x) => x.name === name.slice('spec/'.length));
      if (!m) throw new UsageError(`unknown spec model ${name} (see spec/models.json)`);
      return { tla: path.join(specDir, m.tla), cfg: path.join(specDir, m.cfg) };
    }
    const inRepo = path.join(root, name);
    if (fs.existsSync(`${inRepo}.tla`) && fs.existsSync(`${inRepo}.cfg`))
      return { tla: `${inRepo}.tla`, cfg: `${inRepo}.cfg` };
    const e = expected.find((x) => x.model === name);
    if (!e)
      throw new UsageError(
        `unknown model ${name}: not in the corpus, spec/models.json, nor NAME.tla/.cfg here`,
      );
    return { tla: path.join(opts.corpus, e.tla), cfg: path.join(opts.corpus, e.cfg), corpus: e };
  }

  function runTlcts(t: Target, workers = 1) {
    return timed(process.execPath, [
      path.join(root, 'tlcts/bin/tlcts.js'),
      t.tla,
      '-config',
      t.cfg,
      '-workers',
      String(workers),
    ]);
  }

  const targets = opts.models.map((name) => ({ name, ...target(name) }));
  const baselineRss = median(Array.from({ length: opts.runs }, () => runTlcts(target(BASELINE_MODEL)).rss));

  const rows = targets.flatMap((t) => opts.workers.map((workers) => measure(t, workers)));

  function measure(t: Target & { name: string }, workers: number): Record<string, unknown> {
    const runs = Array.from({ length: opts.runs }, () => runTlcts(t, workers));
    const distinct = distinctOf(runs[0]!.stdout);
    const seconds = median(runs.map((r) => r.seconds));
    const rss = median(runs.map((r) => r.rss));
    const row: Record<string, unknown> = {
      model: t.name,
      workers,
      distinctStates: distinct,
      seconds,
      statesPerSecond: Math.round(distinct / seconds),
      peakRssMiB: Math.round(rss / 2 ** 20),
      bytesPerDistinctState: Math.round(Math.max(0, rss - baselineRss) / distinct),
    };
    if (t.corpus) {
      const tlcRate = (t.corpus.distinctStates ?? 0) / t.corpus.tlcSeconds;
      Object.assign(row, {
        agreesWithTlc: distinct === t.corpus.distinctStates,
        tlcSecondsCorpus: t.corpus.tlcSeconds,
        tlcStatesPerSecondCorpus: Math.round(tlcRate),
        ratioToTlc: Number((distinct / seconds / tlcRate).toFixed(2)),
      });
    }
    if (jar && workers === 1) {
      const tlcRuns = Array.from({ length: opts.runs }, () =>
        timed('java', [
          '-XX:+UseParallelGC',
          '-cp',
          jar,
          'tlc2.TLC',
          '-workers',
          '1',
          '-config',
          t.cfg,
          t.tla,
        ]),
      );
      const tlcSecondsHere = median(tlcRuns.map((r) => r.seconds));
      Object.assign(row, {
        tlcSecondsHere,
        agreesWithTlcHere: distinct === distinctOf(tlcRuns[0]!.stdout),
        ratioToTlcHere: Number((tlcSecondsHere / seconds).toFixed(2)),
      });
    }
    console.log(JSON.stringify(row));
    return row;
  }

  const ratios = rows.flatMap((r) =>
    r.workers === 1 && typeof r.ratioToTlc === 'number' ? [r.ratioToTlc] : [],
  );
  const summary = { medianRatioToTlc: median(ratios) };
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    runsPerModel: opts.runs,
    baselineRssMiB: Math.round(baselineRss / 2 ** 20),
    ...summary,
    rows,
  };
  fs.mkdirSync(path.dirname(opts.out), { recursive: true });
  fs.writeFileSync(opts.out, JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(summary));
  return 0;
}

runScript('bench-checker', main);
