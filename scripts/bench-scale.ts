/**
 * The scale benchmark on real processes (harness/bench-scale/run.ts): live sessions level by level with
 * CreateLive and PushText latency, memory, Redis commands and CPU per request; a migration storm under
 * PushText load judged by the history checker; DHSched against the baseline protocols. Progress lines
 * first; the last line is the result as one JSON object, also written to bench/scale.json.
 * Usage: node dist/scripts/bench-scale.js --sessions 1000,10000,50000,100000 [options]
 */
import { z } from 'zod';
import { DEFAULT_VARIANTS, ScaleOptions, type Variant, runBenchScale } from '../harness/bench-scale/run.js';
import {
  type Kind,
  checked,
  fileName,
  integer,
  listOf,
  option,
  positiveNumber,
  program as cliProgram,
  runScript,
} from '../impl/cli/flags.js';
import { logLevelOption, useLogLevel, writeResult } from './lib/bench-cli.js';

const VARIANTS: Record<string, Variant> = Object.fromEntries(DEFAULT_VARIANTS.map((v) => [v.name, v]));
const NAMES = Object.keys(VARIANTS) as [string, ...string[]];

const count = integer(0);
const positive = integer(1);
const seconds = positiveNumber;
// assignment_time and assignment-time alike
const variant = z
  .string()
  .transform((p) => p.replace(/_/g, '-'))
  .pipe(z.enum(NAMES));

/** Each flag: its spelling, what it means, what it takes, its default. */
const OPTIONS: [flags: string, description: string, kind: Kind<unknown>, fallback?: unknown][] = [
  [
    '--sessions <list>',
    'live sessions at each level, ascending (one system grows)',
    listOf(positive.schema, 'positive integers'),
    [1000, 10_000],
  ],
  ['--workers <n>', 'worker processes', positive, 4],
  ['--dispatchers <n>', 'Dispatch replicas', positive, 2],
  ['--capacity <n>', 'runtimes per worker (default: the largest level on 2/3 of the workers)', positive],
  ['--create-rate <n>', 'CreateLive calls per second', positive, 500],
  ['--push-rate <n>', 'PushText calls per second, over every live session', positive, 500],
  ['--push-seconds <s>', 'PushText window at each level', seconds, 20],
  [
    '--ingress <kind>',
    'how the load client sends PushText: unary or stream',
    { words: 'unary or stream', schema: z.enum(['unary', 'stream']) },
    'unary',
  ],
  [
    '--idle-seconds <s>',
    'idle window at each level (background, subtracted per request; ≥ sweep)',
    seconds,
    10,
  ],
  ['--migrations <n>', 'successful Migrate calls in the storm (drains move more)', count, 10_000],
  ['--migration-rate <n>', 'Migrate calls per second', positive, 200],
  ['--drains <n>', 'spare workers added for the storm and drained during it', count, 2],
  ['--compare-sessions <n>', 'sessions of each comparison system (0: no comparison)', count, 5000],
  ['--compare-migrations <n>', 'successful Migrate calls in each comparison system', count, 1000],
  ['--protocols <list>', 'comparison variants', listOf(variant, `variants (${NAMES.join(', ')})`), NAMES],
  ['--sweep-ms <ms>', 'workers sweep their next 256 runtimes this often', positive, 10_000],
  ['--lease-ttl-ms <ms>', 'worker lease TTL', positive, 10_000],
  ['--heartbeat-ms <ms>', 'worker lease renewal and load publishing period', positive, 2000],
  ['--settle-seconds <s>', 'how long to wait for runtimes to start and inputs to be released', seconds, 120],
  ['--out <file>', 'results file', fileName, 'bench/scale.json'],
];

interface Flags {
  protocols: string[];
  logLevel: string;
  out: string;
  [flag: string]: unknown;
}

async function main(): Promise<number> {
  const cli = cliProgram(
    'bench-scale',
    'Scale, latency, migration storm and cost of safety of DHSched on real processes',
  );
  for (const [flags, description, kind, fallback] of OPTIONS)
    cli.addOption(
      option(flags, description, kind).default(
        fallback,
        Array.isArray(fallback) ? fallback.join(',') : undefined,
      ),
    );
  cli
    .option('--trace', 'trace every step of the main system (audit alone is on by default)', false)
    .addOption(logLevelOption());
  const { protocols, logLevel, out, ...rest } = cli.parse().opts<Flags>();
  useLogLevel(logLevel);
  const options = checked(ScaleOptions, { ...rest, variants: protocols.map((p) => VARIANTS[p]!) });
  const result = await runBenchScale(options, (line) => console.log(line));
  writeResult(out, result);
  return 0;
}

runScript('bench-scale', main);
