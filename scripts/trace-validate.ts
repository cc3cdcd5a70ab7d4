/**
 * Trace validation of randomized real runs (conformance/validate/): runs seeds S .. S+N-1, P at a time, each
 * a fresh system of real processes on one private redis-server, and validates each run's trace against
 * spec/DHSched.tla. One line per run; a rejected run prints the event, why, and the spec states it was
 * tried from, and keeps its processes' logs. The last line is one JSON object: runs, events, accepted,
 * share, errors (runs that could not be run or validated), the first failing seed (null if none), the
 * trace's entries by kind and the seconds taken. Exit 1 unless every event is accepted and no run failed.
 * Usage: node dist/scripts/trace-validate.js [--runs N] [--seed S] [--parallel P]
 */
import { randomInt } from 'node:crypto';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { scriptFlags } from './lib/flags.js';
import { runSeeds } from '../conformance/validate/runs.js';
import { describeRejection } from '../conformance/validate/validate.js';

const Count = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const Flags = z.object({
  runs: Count(1, 1_000_000),
  seed: Count(0, 2 ** 31 - 1).optional(),
  parallel: Count(1, 16),
});

const program = new Command('trace-validate')
  .description('validates the traces of randomized real runs against spec/DHSched.tla')
  .addOption(new Option('--runs <n>', 'how many runs').default('20'))
  .addOption(new Option('--seed <s>', 'the first run’s seed (default: random, printed)'))
  .addOption(new Option('--parallel <p>', 'runs at a time').default('2'))
  .allowExcessArguments(false)
  .exitOverride();

async function main(): Promise<number> {
  const parsed = scriptFlags(program, Flags);
  if (typeof parsed === 'number') return parsed;
  const { runs, parallel } = parsed;
  const first = parsed.seed ?? randomInt(2 ** 31 - runs);
  console.log(`trace validation: ${runs} runs from seed ${first}, ${parallel} at a time`);
  const started = Date.now();
  /** errors: runs that could not be run or whose trace could not be read as one (named, and failing). */
  const totals = { runs: 0, events: 0, accepted: 0, errors: 0 };
  /** Trace entries by kind, over every run: what the runs exercised. */
  const kinds: Record<string, number> = {};
  let firstFailingSeed: number | null = null;
  const seeds = Array.from({ length: runs }, (_, k) => first + k);
  await runSeeds({ seeds, parallel, cellPrefix: 'tv' }, (seed, r) => {
    const failed = () => {
      if (firstFailingSeed === null || seed < firstFailingSeed) firstFailingSeed = seed;
    };
    if ('error' in r) {
      totals.errors++;
      failed();
      console.log(`seed ${seed}: error: ${r.error instanceof Error ? r.error.message : String(r.error)}`);
      return;
    }
    const v = r.verdict;
    totals.runs++;
    totals.events += v.events;
    totals.accepted += v.accepted;
    for (const e of r.trace) kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
    console.log(
      `seed ${seed}: ${v.accepted}/${v.events} events accepted, ${v.hidden} hidden steps, ${v.widest} states at most, ` +
        `${r.failedCalls} client calls refused, ${r.seconds.toFixed(1)} s`,
    );
    if (v.rejection) {
      failed();
      console.log(describeRejection(v.rejection));
      console.log(`  scenario: ${JSON.stringify(r.scenario)}`);
      console.log(`  logs: ${r.logDir}`);
    }
  });
  const share = totals.events === 0 ? 1 : totals.accepted / totals.events;
  console.log(
    JSON.stringify({
      ...totals,
      share,
      firstFailingSeed,
      kinds,
      seconds: Math.round((Date.now() - started) / 1000),
    }),
  );
  return totals.accepted === totals.events && totals.errors === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `trace-validate: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
