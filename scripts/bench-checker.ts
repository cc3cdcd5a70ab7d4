/**
 * Checker speed against TLC on every corpus model and every model of spec/models.json: wall time of
 * the whole `tlcts` process (Node start included, like TLC's figure with JVM start), distinct states
 * per second and memory per distinct state, medians of N runs, beside TLC's recorded time (the
 * corpus's expected.json, spec/tlc-reference/) and, when TLA2TOOLS_JAR is set, a real TLC run here.
 * Usage: ./scripts/bench-checker [--runs N] [--models A,B] [--workers 1,2] [--out bench/checker.json]
 * A model is `corpus` (all of its models), `spec` (all of spec/models.json), a corpus name
 * (`Hanoi/Hanoi`), a spec model (`spec/DHSched_Race`) or a path in the repository without its
 * extension, naming NAME.tla and NAME.cfg (`tlcts/examples/Wheels`).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { median } from '../harness/bench-scale/latency.js';
import { loadManifest, specDir, type SpecModel } from '../spec/manifest.js';
import { loadTlcReference } from '../spec/tlc-reference.js';
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
// Wheels: ten million states, for memory per state at scale (no TLC figure).
const DEFAULT_MODELS = ['corpus', 'spec', 'tlcts/examples/Wheels'];
/** The acceptance's line for small models' memory: those under this many distinct states. */
const SMALL_MODEL_STATES = 10_000;
// The process's memory on a one-state model: what Node and the checker hold before any state.
const BASELINE_MODEL = 'Faulty/Faulty_Compare';

const Expected = z.array(
  z.object({
    model: z.string(),
    tla: z.string(),
    cfg: z.string(),
    distinctStates: z.number().nullable(),
    exitCode: z.number().int(),
    tlcSeconds: z.number(),
  }),
);

/** What TLC recorded for a model, and where the figure comes from. */
interface TlcRecord {
  distinctStates: number | null;
  exitCode: number;
  tlcSeconds: number;
  source: 'corpus' | 'spec/tlc-reference';
}

interface Target {
  name: string;
  tla: string;
  cfg: string;
  tlc?: TlcRecord;
}

interface Timed {
  seconds: number;
  stdout: string;
  rss: number;
  exitCode: number;
}

function timed(cmd: string, args: string[]): Timed {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const rssKb = Number(r.stderr.trim().split('\n').pop());
  return { seconds, stdout: r.stdout, rss: rssKb * 1024, exitCode: r.status ?? 255 };
}

/** The distinct states TLC's last summary line reports; null where the run printed none. */
function distinctOf(stdout: string): number | null {
  const found = /\d+ states generated, (\d+) distinct states found, \d+ states left/.exec(stdout);
  return found ? Number(found[1]) : null;
}

const program = cliProgram('bench-checker', 'checker speed against TLC on the corpus and spec/')
  .addOption(option('--runs <n>', 'runs per model', integer(1)).default(3))
  .addOption(
    option(
      '--models <list>',
      'comma-separated models: corpus, spec, corpus names, spec/NAME or repository paths',
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
  const reference = loadTlcReference().figures;
  const jar = process.env.TLA2TOOLS_JAR;

  function corpusTarget(e: z.infer<typeof Expected>[number]): Target {
    const { distinctStates, exitCode, tlcSeconds } = e;
    return {
      name: e.model,
      tla: path.join(opts.corpus, e.tla),
      cfg: path.join(opts.corpus, e.cfg),
      tlc: { distinctStates, exitCode, tlcSeconds, source: 'corpus' },
    };
  }
  function specTarget(m: SpecModel): Target {
    const figures = reference.get(m.cfg);
    return {
      name: `spec/${m.name}`,
      tla: path.join(specDir, m.tla),
      cfg: path.join(specDir, m.cfg),
      ...(figures && {
        tlc: {
          distinctStates: figures.distinctStates,
          exitCode: figures.exitCode,
          tlcSeconds: figures.tlcSeconds,
          source: 'spec/tlc-reference',
        },
      }),
    };
  }
  function targets(name: string): Target[] {
    if (name === 'corpus') return expected.map(corpusTarget);
    if (name === 'spec') return specModels.map(specTarget);
    if (name.startsWith('spec/')) {
      const m = specModels.find((x) => x.name === name.slice('spec/'.length));
      if (!m) throw new UsageError(`unknown spec model ${name} (see spec/models.json)`);
      return [specTarget(m)];
    }
    const inRepo = path.join(root, name);
    if (fs.existsSync(`${inRepo}.tla`) && fs.existsSync(`${inRepo}.cfg`))
      return [{ name, tla: `${inRepo}.tla`, cfg: `${inRepo}.cfg` }];
    const e = expected.find((x) => x.model === name);
    if (!e)
      throw new UsageError(
        `unknown model ${name}: not corpus or spec, not in the corpus or spec/models.json, nor NAME.tla/.cfg here`,
      );
    return [corpusTarget(e)];
  }

  function runTlcts(t: Target, workers = 1): Timed {
    return timed(process.execPath, [
      path.join(root, 'tlcts/bin/tlcts.js'),
      t.tla,
      '-config',
      t.cfg,
      '-workers',
      String(workers),
    ]);
  }

  const chosen = opts.models.flatMap(targets);
  const baseline = targets(BASELINE_MODEL)[0]!;
  const baselineRss = median(Array.from({ length: opts.runs }, () => runTlcts(baseline).rss));

  const rows = chosen.flatMap((t) => opts.workers.map((workers) => measure(t, workers)));

  function measure(t: Target, workers: number): Row {
    const runs = Array.from({ length: opts.runs }, () => runTlcts(t, workers));
    const distinct = distinctOf(runs[0]!.stdout);
    const seconds = median(runs.map((r) => r.seconds));
    const rss = median(runs.map((r) => r.rss));
    const row: Row = {
      model: t.name,
      workers,
      distinctStates: distinct,
      exitCode: runs[0]!.exitCode,
      seconds,
      statesPerSecond: distinct === null ? null : Math.round(distinct / seconds),
      peakRssMiB: Math.round(rss / 2 ** 20),
      bytesPerDistinctState: distinct ? Math.round(Math.max(0, rss - baselineRss) / distinct) : null,
    };
    if (t.tlc) {
      Object.assign(row, {
        agreesWithTlc: distinct === t.tlc.distinctStates && row.exitCode === t.tlc.exitCode,
        tlcSeconds: t.tlc.tlcSeconds,
        tlcFigureFrom: t.tlc.source,
        ratioToTlc: Number((t.tlc.tlcSeconds / seconds).toFixed(2)),
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

  const single = rows.filter((r) => r.workers === 1);
  const compared = single.filter((r) => r.ratioToTlc !== undefined);
  const small = single.filter((r) => r.distinctStates !== null && r.distinctStates < SMALL_MODEL_STATES);
  const smallest = small.reduce<Row | undefined>(
    (least, r) => (least && least.distinctStates! <= r.distinctStates! ? least : r),
    undefined,
  );
  const summary = {
    modelsComparedWithTlc: compared.length,
    medianRatioToTlc: median(compared.map((r) => r.ratioToTlc!)),
    slowerThanTlc: compared.filter((r) => r.ratioToTlc! < 1).map((r) => r.model),
    disagreeWithTlc: compared.filter((r) => !r.agreesWithTlc).map((r) => r.model),
    maxPeakRssMiBUnder10kStates: small.length > 0 ? Math.max(...small.map((r) => r.peakRssMiB)) : null,
    smallestModel: smallest && { model: smallest.model, peakRssMiB: smallest.peakRssMiB },
  };
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    loadAverage: os.loadavg(),
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

interface Row {
  model: string;
  workers: number;
  distinctStates: number | null;
  exitCode: number;
  seconds: number;
  statesPerSecond: number | null;
  peakRssMiB: number;
  bytesPerDistinctState: number | null;
  agreesWithTlc?: boolean;
  tlcSeconds?: number;
  tlcFigureFrom?: TlcRecord['source'];
  ratioToTlc?: number;
}

runScript('bench-checker', main);
