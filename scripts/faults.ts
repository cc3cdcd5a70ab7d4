/**
 * Fault injection on real processes (conformance/validate/runs.ts): runs seeds S .. S+N-1, P at a time,
 * each a fresh system (Dispatch replicas, Workers, its own Redis, each process's Redis link through its
 * own TCP fault proxy) under a drawn schedule of client calls and faults — kill -9 and restart,
 * SIGSTOP/SIGCONT past the lease, a partitioned or slowed Redis link, a restart on a skewed clock,
 * Dispatch replicas killed or paused (one killed right after a commit), drains, Redis crashed and restarted from its AOF, Redis failed over to its
 * replica. Each run is judged by the history checker (dual, stale, gap, unreleased, overshoot) and its
 * trace validated against spec/DHSched.tla. One line per run; the last line is one JSON object: per
 * fault kind, the runs that had it and their violations, and the totals. Exit 1 on any violation,
 * rejected trace or run that could not be run.
 * With --journal, each finished run is also appended to that file (JSON lines), and a run started again
 * with the same journal, protocol and first seed skips the seeds it holds and counts them: a long table
 * can be made in several sittings. Each line names the commit that ran it. SIGINT or SIGTERM stops it
 * after the runs under way; the table then counts the runs made.
 * Usage: node dist/scripts/faults.js [--runs N] [--seed S] [--parallel P] [--out FILE] [--journal FILE]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { randomInt } from 'node:crypto';
import { Option } from 'commander';
import { fileName, integer, option, program as cliProgram, runScript } from '../impl/cli/flags.js';
import { type Entry, appendRun, openJournal } from './lib/fault-journal.js';
import { runSeeds } from '../conformance/validate/runs.js';
import { describeRejection } from '../conformance/validate/validate.js';
import { type ViolationKind, violationKinds as KINDS } from '../harness/history.js';
import { Protocol } from '../impl/store/schema.js';

const program = cliProgram(
  'faults',
  'fault injection on real processes, each run judged by the history checker and the spec',
)
  .addOption(option('--runs <n>', 'how many runs', integer(1, 1_000_000)).default(20))
  .addOption(option('--seed <s>', 'the first run’s seed (default: random, printed)', integer(0, 2 ** 31 - 1)))
  .addOption(option('--parallel <p>', 'runs at a time', integer(1, 16)).default(2))
  .addOption(option('--out <file>', 'also write the table (JSON) there', fileName))
  .addOption(option('--journal <file>', 'append each run there; seeds it holds are not run again', fileName))
  .addOption(
    new Option(
      '--protocol <p>',
      'an unsafe baseline instead, to see the checker catch it (its trace is not judged)',
    )
      .choices(Protocol.options)
      .default('dhsched'),
  );

interface Flags {
  runs: number;
  seed?: number;
  parallel: number;
  out?: string;
  journal?: string;
  protocol: Protocol;
}

type Row = { runs: number; rejected: number; violations: Record<ViolationKind, number> };
const emptyRow = (): Row => ({
  runs: 0,
  rejected: 0,
  violations: Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<ViolationKind, number>,
});

/** The commit that runs (and whether its tree was changed), or "unknown" outside a git checkout. */
function currentCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    });
    return dirty.trim() ? `${head}+changes` : head;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<number> {
  const parsed = program.parse().opts<Flags>();
  const { runs, parallel, out, protocol, journal } = parsed;
  const first = parsed.seed ?? randomInt(2 ** 31 - runs);
  const kept = journal
    ? openJournal(journal, { journal: 'faults', protocol, firstSeed: first }, runs)
    : new Map();
  const commit = currentCommit();
  console.log(
    `fault injection: ${protocol}, ${runs} runs from seed ${first}, ${parallel} at a time` +
      (journal ? `; ${kept.size} of them already in ${journal}` : ''),
  );
  const started = Date.now();
  const total = emptyRow();
  const byFault: Record<string, Row> = {};
  let errors = 0;
  let firstFailingSeed: number | null = null;
  const count = (e: Entry) => {
    const violations = Object.values(e.violations).reduce((a, b) => a + b, 0);
    if (e.error !== undefined || e.rejected || violations > 0)
      firstFailingSeed = Math.min(firstFailingSeed ?? e.seed, e.seed);
    if (e.error !== undefined) {
      errors++;
      return;
    }
    for (const row of [total, ...e.faults.map((f) => (byFault[f] ??= emptyRow()))]) {
      row.runs++;
      row.rejected += e.rejected ? 1 : 0;
      for (const k of KINDS) row.violations[k] += e.violations[k];
    }
  };
  for (const e of kept.values()) count(e);
  const toRun = Array.from({ length: runs }, (_, k) => first + k).filter((seed) => !kept.has(seed));
  // Ctrl-C (or SIGTERM): no new run starts; those under way finish, and the table counts what ran
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.log(`${signal}: stopping after the runs under way`);
      stop.abort();
    });
  }
  await runSeeds({ seeds: toRun, parallel, cellPrefix: 'fi', protocol, stop: stop.signal }, (seed, r) => {
    const entry: Entry =
      'error' in r
        ? {
            seed,
            commit,
            faults: [],
            rejected: false,
            violations: emptyRow().violations,
            error: r.error instanceof Error ? r.error.message : String(r.error),
            seconds: 0,
          }
        : {
            seed,
            commit,
            faults: [...new Set(r.scenario.faults.map((f) => f.fault.op))],
            // the spec is DHSched's: a baseline's trace is judged by the history checker alone
            rejected: r.verdict.rejection !== undefined && protocol === 'dhsched',
            ...(r.verdict.rejection && protocol === 'dhsched'
              ? { rejection: r.verdict.rejection.event }
              : {}),
            violations: Object.fromEntries(
              KINDS.map((k) => [k, r.history.violations.filter((v) => v.kind === k).length]),
            ) as Record<ViolationKind, number>,
            seconds: Math.round(r.seconds * 10) / 10,
          };
    count(entry);
    if (journal) appendRun(journal, entry);
    if ('error' in r) {
      console.log(`seed ${seed}: error: ${entry.error}`);
      return;
    }
    console.log(
      `seed ${seed}: ${entry.faults.join(' ')}; ${r.history.commits} commits, ${r.history.releases} releases, ` +
        `${r.history.violations.length} violations, trace ${protocol !== 'dhsched' ? 'not judged' : entry.rejected ? 'REJECTED' : 'accepted'}, ${r.seconds.toFixed(1)} s`,
    );
    if (r.history.violations.length > 0 || entry.rejected) {
      for (const v of r.history.violations) console.log(`  ${v.kind} ${v.session}#${v.seq}: ${v.detail}`);
      if (entry.rejected) console.log(describeRejection(r.verdict.rejection!));
      console.log(`  scenario: ${JSON.stringify(r.scenario)}`);
      console.log(
        `  logs: ${r.logDir}; the run, to judge again: ./scripts/trace-validate ${r.logDir}/run.json`,
      );
    }
  });
  const commits = [
    ...new Set([...kept.values()].map((e) => e.commit).concat(toRun.length > 0 ? [commit] : [])),
  ];
  const table = {
    date: new Date().toISOString(),
    protocol,
    firstSeed: first,
    runs: total.runs,
    errors,
    firstFailingSeed,
    total,
    byFault: Object.fromEntries(Object.entries(byFault).sort(([a], [b]) => a.localeCompare(b))),
    /** the commits that ran them, and how many were counted from the journal, not run now */
    commits,
    fromJournal: kept.size,
    seconds: Math.round((Date.now() - started) / 1000),
  };
  if (out) fs.writeFileSync(out, `${JSON.stringify(table, null, 2)}\n`);
  console.log(JSON.stringify(table));
  const bad = errors + total.rejected + Object.values(total.violations).reduce((a, b) => a + b, 0);
  return bad === 0 ? 0 : 1;
}

runScript('faults', main);
