/**
 * Randomized ownership runs (harness/ownership/run.ts): seeds S .. S+N-1 under each protocol, one lane
 * per --parallel (a worker thread with its own redis-server and many runs in flight), each run's trace
 * checked for dual-owner and stale-generation releases, capacity overshoots, gaps and inputs never
 * released. Prints a table per protocol: runs, violations by kind (in how many runs), the first seed
 * showing each kind. The last line is the table as one JSON object, also written to --out unless a
 * single run is asked for: `--seed S --runs 1 --protocol P` reruns exactly that run and prints each
 * violation of its history. Exit 1 if a run failed, or if DHSched shows any violation.
 * Usage: node dist/scripts/bench-ownership.js [--runs N] [--seed S] [--protocol P...] [--parallel P]
 */
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { Option } from 'commander';
import { fileName, integer, option, program as cliProgram, runScript } from '../impl/cli/flags.js';
import {
  type LaneJob,
  type ProtocolTally,
  type Tally,
  mergeTally,
  runLane,
  staleExecution,
} from '../harness/ownership/bench.js';
import type { LaneMessage } from '../harness/ownership/lane.js';
import { KINDS, PROTOCOLS, type ProtocolName } from '../harness/ownership/run.js';

const NAMES = Object.keys(PROTOCOLS) as ProtocolName[];
const count = integer(1, 10_000_000);

const program = cliProgram(
  'bench-ownership',
  'randomized ownership runs under DHSched and the three unsafe baselines',
)
  .addOption(option('--runs <n>', 'runs per protocol', count).default(1000))
  .addOption(
    option(
      '--baseline-runs <n>',
      'runs of each unsafe baseline, the first seeds of --runs (default: --runs)',
      count,
    ),
  )
  .addOption(option('--seed <s>', 'the first run’s seed (default: random, printed)', integer(0, 2 ** 31 - 1)))
  .addOption(
    new Option('--protocol <p...>', 'protocols to run').choices(NAMES).default(NAMES, NAMES.join(' ')),
  )
  .addOption(
    option('--parallel <p>', 'lanes (threads, each with its own redis-server)', integer(1, 64)).default(
      os.cpus().length,
    ),
  )
  .addOption(option('--concurrency <c>', 'runs in flight per lane', integer(1, 1024)).default(16))
  .addOption(option('--out <file>', 'where the table is written', fileName).default('bench/ownership.json'));

interface Flags {
  runs: number;
  baselineRuns?: number;
  seed?: number;
  protocol: ProtocolName[];
  parallel: number;
  concurrency: number;
  out: string;
}

/** One lane in a worker thread; `progress` gets its count of runs ended so far. */
function laneThread(job: LaneJob, progress: (done: number) => void): Promise<Tally> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('../harness/ownership/lane.js', import.meta.url), { workerData: job });
    worker.on('message', (m: LaneMessage) => {
      if (m.kind === 'progress') return progress(m.done);
      resolve(m.tally);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`lane ${job.lane} exited with code ${code}`)));
  });
}

const pad = (s: string | number, n: number) => String(s).padStart(n);

/** Each protocol's row, in the order asked for. */
function rows(tally: Tally, protocols: readonly ProtocolName[]): [ProtocolName, ProtocolTally][] {
  return protocols.flatMap((p) => {
    const t = tally[p];
    return t ? [[p, t] as [ProtocolName, ProtocolTally]] : [];
  });
}

function printTable(tally: Tally, protocols: readonly ProtocolName[]): void {
  const head = KINDS.map((k) => pad(k, 20)).join('');
  console.log(
    `${'protocol'.padEnd(16)}${pad('runs', 9)}${head}${pad('lost authority', 16)}${pad('errors', 8)}`,
  );
  for (const [name, t] of rows(tally, protocols)) {
    const cells = KINDS.map((k) => {
      const seed = t.firstFailingSeed[k];
      return pad(seed === null ? '0' : `${t.runsWith[k]} (seed ${seed})`, 20);
    });
    console.log(
      `${name.padEnd(16)}${pad(t.runs, 9)}${cells.join('')}${pad(t.lostAuthority, 16)}${pad(t.errors, 8)}`,
    );
  }
  console.log('(runs with a violation of the kind, and the first seed showing it)');
  console.log('(lost authority: releases the store refused, each stopping a stale runtime)');
}

async function main(): Promise<number> {
  const parsed = program.parse().opts<Flags>();
  const { runs, protocol: protocols, out } = parsed;
  const baselineRuns = Math.min(parsed.baselineRuns ?? runs, runs);
  const runsOf = (p: ProtocolName) => (p === 'dhsched' ? runs : baselineRuns);
  const first = parsed.seed ?? randomInt(2 ** 31 - runs);
  const parallel = Math.min(parsed.parallel, runs);
  const total = protocols.reduce((n, p) => n + runsOf(p), 0);
  const concurrency = Math.min(parsed.concurrency, Math.ceil(total / parallel));
  console.log(
    `ownership runs: ${protocols.map((p) => `${p} ${runsOf(p)}`).join(', ')} from seed ${first}, ` +
      `${parallel} lanes of ${concurrency} runs in flight`,
  );
  const started = Date.now();
  const job = { protocols, first, runs, baselineRuns, lanes: parallel, concurrency };
  const tally: Tally = {};
  if (runs === 1) {
    // one run per protocol, in this thread: each violation is printed
    mergeTally(
      tally,
      await runLane({ ...job, lane: 0 }, (protocol, seed, r) => {
        if ('error' in r) return;
        console.log(`${protocol} seed ${seed}: ${r.actions} actions, ${r.violations.length} violations`);
        for (const v of r.violations) console.log(`  ${v.kind} ${v.session}#${v.seq}: ${v.detail}`);
      }),
    );
  } else {
    const done = new Array<number>(parallel).fill(0);
    const report = setInterval(() => {
      const n = done.reduce((a, b) => a + b, 0);
      const s = (Date.now() - started) / 1000;
      process.stderr.write(`  ${n}/${total} runs, ${(n / s).toFixed(0)} runs/s\n`);
    }, 10_000);
    try {
      const tallies = await Promise.all(
        done.map((_, lane) => laneThread({ ...job, lane }, (n) => (done[lane] = n))),
      );
      for (const t of tallies) mergeTally(tally, t);
    } finally {
      clearInterval(report);
    }
  }
  const seconds = (Date.now() - started) / 1000;
  const ran = Object.values(tally).reduce((n, t) => n + t.runs, 0);
  printTable(tally, protocols);
  for (const [name, t] of rows(tally, protocols)) {
    if (t.firstError)
      console.log(
        `${name}: ${t.errors} runs failed; first, seed ${t.firstError.seed}: ${t.firstError.message}`,
      );
  }
  const protocolsOut = Object.fromEntries(
    rows(tally, protocols).map(([name, t]) => [name, { ...t, staleExecution: staleExecution(t) }]),
  );
  const table = {
    date: new Date().toISOString(),
    runsPerProtocol: runs,
    baselineRuns,
    firstSeed: first,
    parallel,
    concurrency,
    seconds: Math.round(seconds * 10) / 10,
    runsPerSecond: Math.round(ran / seconds),
    protocols: protocolsOut,
  };
  if (runs > 1) fs.writeFileSync(out, `${JSON.stringify(table, null, 2)}\n`);
  console.log(JSON.stringify(table));
  const dhsched = tally.dhsched;
  const unsafe = dhsched !== undefined && KINDS.some((k) => dhsched.violations[k] > 0);
  return unsafe || Object.values(tally).some((t) => t.errors > 0) ? 1 : 0;
}

runScript('bench-ownership', main);
