/**
 * Fault injection on real processes (conformance/validate/runs.ts): runs seeds S .. S+N-1, P at a time,
 * each a fresh system (Dispatch replicas, Workers, each Worker's Redis link through its own TCP fault
 * proxy) under a drawn schedule of client calls and faults — kill -9 and restart, SIGSTOP/SIGCONT past
 * the lease, a partitioned or slowed Redis link, a restart on a skewed clock, Dispatch replicas killed
 * (one right after a commit), drains. Each run is judged by the history checker (dual, stale, gap,
 * unreleased, overshoot) and its trace validated against spec/DHSched.tla. One line per run; the last
 * line is one JSON object: per fault kind, the runs that had it and their violations, and the totals.
 * Exit 1 on any violation, rejected trace or run that could not be run.
 * Usage: node dist/scripts/faults.js [--runs N] [--seed S] [--parallel P] [--out FILE]
 */
import fs from 'node:fs';
import { randomInt } from 'node:crypto';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { scriptFlags } from './lib/flags.js';
import { runSeeds } from '../conformance/validate/runs.js';
import { describeRejection } from '../conformance/validate/validate.js';
import type { ViolationKind } from '../impl/ops/history.js';
import { Protocol } from '../impl/store/schema.js';

const KINDS: ViolationKind[] = ['dual-release', 'stale-release', 'gap', 'unreleased', 'overshoot'];
const Count = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const Flags = z.object({
  runs: Count(1, 1_000_000),
  seed: Count(0, 2 ** 31 - 1).optional(),
  parallel: Count(1, 16),
  out: z.string().min(1).optional(),
  protocol: Protocol,
});

const program = new Command('faults')
  .description('fault injection on real processes, each run judged by the history checker and the spec')
  .addOption(new Option('--runs <n>', 'how many runs').default('20'))
  .addOption(new Option('--seed <s>', 'the first run’s seed (default: random, printed)'))
  .addOption(new Option('--parallel <p>', 'runs at a time').default('2'))
  .addOption(new Option('--out <file>', 'also write the table (JSON) there'))
  .addOption(
    new Option(
      '--protocol <p>',
      'an unsafe baseline instead, to see the checker catch it (its trace is not judged)',
    )
      .choices(Protocol.options)
      .default('dhsched'),
  )
  .allowExcessArguments(false)
  .exitOverride();

type Row = { runs: number; rejected: number; violations: Record<ViolationKind, number> };
const emptyRow = (): Row => ({
  runs: 0,
  rejected: 0,
  violations: Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<ViolationKind, number>,
});

async function main(): Promise<number> {
  const parsed = scriptFlags(program, Flags);
  if (typeof parsed === 'number') return parsed;
  const { runs, parallel, out, protocol } = parsed;
  const first = parsed.seed ?? randomInt(2 ** 31 - runs);
  console.log(`fault injection: ${protocol}, ${runs} runs from seed ${first}, ${parallel} at a time`);
  const started = Date.now();
  const total = emptyRow();
  const byFault: Record<string, Row> = {};
  let errors = 0;
  let firstFailingSeed: number | null = null;
  await runSeeds({ first, runs, parallel, cellPrefix: 'fi', protocol }, (seed, r) => {
    const failed = () => {
      if (firstFailingSeed === null || seed < firstFailingSeed) firstFailingSeed = seed;
    };
    if ('error' in r) {
      errors++;
      failed();
      console.log(`seed ${seed}: error: ${r.error instanceof Error ? r.error.message : String(r.error)}`);
      return;
    }
    const faults = [...new Set(r.scenario.faults.map((f) => f.fault.op))];
    // the spec is DHSched's: a baseline's trace is judged by the history checker alone
    const rejected = r.verdict.rejection && protocol === 'dhsched' ? 1 : 0;
    for (const row of [total, ...faults.map((f) => (byFault[f] ??= emptyRow()))]) {
      row.runs++;
      row.rejected += rejected;
      for (const v of r.history.violations) row.violations[v.kind]++;
    }
    console.log(
      `seed ${seed}: ${faults.join(' ')}; ${r.history.commits} commits, ${r.history.releases} releases, ` +
        `${r.history.violations.length} violations, trace ${protocol !== 'dhsched' ? 'not judged' : rejected ? 'REJECTED' : 'accepted'}, ${r.seconds.toFixed(1)} s`,
    );
    if (r.history.violations.length > 0 || rejected) {
      failed();
      for (const v of r.history.violations) console.log(`  ${v.kind} ${v.session}#${v.seq}: ${v.detail}`);
      if (rejected) console.log(describeRejection(r.verdict.rejection!));
      console.log(`  scenario: ${JSON.stringify(r.scenario)}`);
      console.log(`  logs: ${r.logDir}`);
    }
  });
  const table = {
    date: new Date().toISOString(),
    protocol,
    firstSeed: first,
    runs: total.runs,
    errors,
    firstFailingSeed,
    total,
    byFault: Object.fromEntries(Object.entries(byFault).sort(([a], [b]) => a.localeCompare(b))),
    seconds: Math.round((Date.now() - started) / 1000),
  };
  if (out) fs.writeFileSync(out, `${JSON.stringify(table, null, 2)}\n`);
  console.log(JSON.stringify(table));
  const bad = errors + total.rejected + Object.values(total.violations).reduce((a, b) => a + b, 0);
  return bad === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`faults: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
