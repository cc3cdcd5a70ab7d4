/**
 * The scale benchmark on real processes (impl/ops/bench-scale/run.ts): live sessions level by level with
 * CreateLive and PushText latency, memory, Redis commands and CPU per request; a migration storm under
 * PushText load judged by the history checker; DHSched against the baseline protocols. Progress lines
 * first; the last line is the result as one JSON object, also written to bench/scale.json.
 * Usage: node dist/scripts/bench-scale.js --sessions 1000,10000,50000,100000 [options]
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { DEFAULT_VARIANTS, ScaleOptions, type Variant, runBenchScale } from '../impl/ops/bench-scale/run.js';

const VARIANTS: Record<string, Variant> = Object.fromEntries(DEFAULT_VARIANTS.map((v) => [v.name, v]));

const list = <T extends z.ZodTypeAny>(item: T) =>
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== ''),
    )
    .pipe(z.array(item).min(1));
const int = z.coerce.number().int();
const num = z.coerce.number();

const Flags = z.object({
  sessions: list(int),
  workers: int,
  dispatchers: int,
  capacity: int.optional(),
  createRate: int,
  pushRate: int,
  pushSeconds: num,
  idleSeconds: num,
  migrations: int,
  migrationRate: int,
  drains: int,
  compareSessions: int,
  compareMigrations: int,
  protocols: list(
    // assignment_time and assignment-time alike
    z
      .string()
      .transform((p) => p.replace(/_/g, '-'))
      .pipe(z.enum(Object.keys(VARIANTS) as [string, ...string[]])),
  ),
  trace: z.boolean(),
  sweepMs: int,
  pollMs: int,
  leaseTtlMs: int,
  heartbeatMs: int,
  settleSeconds: num,
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']),
  out: z.string(),
});

/** Each flag: its spelling, what it means, its default. */
const OPTIONS: [flags: string, description: string, fallback?: string | boolean][] = [
  ['--sessions <list>', 'live sessions at each level, ascending (one system grows)', '1000,10000'],
  ['--workers <n>', 'worker processes', '4'],
  ['--dispatchers <n>', 'Dispatch replicas', '2'],
  ['--capacity <n>', 'runtimes per worker (default: the largest level on 2/3 of the workers)'],
  ['--create-rate <n>', 'CreateLive calls per second', '500'],
  ['--push-rate <n>', 'PushText calls per second, over every live session', '500'],
  ['--push-seconds <s>', 'PushText window at each level', '20'],
  ['--idle-seconds <s>', 'idle window at each level (background, subtracted per request; ≥ sweep)', '10'],
  ['--migrations <n>', 'successful Migrate calls in the storm (drains move more)', '10000'],
  ['--migration-rate <n>', 'Migrate calls per second', '200'],
  ['--drains <n>', 'spare workers added for the storm and drained during it', '2'],
  ['--compare-sessions <n>', 'sessions of each comparison system (0: no comparison)', '5000'],
  ['--compare-migrations <n>', 'successful Migrate calls in each comparison system', '1000'],
  ['--protocols <list>', 'comparison variants', Object.keys(VARIANTS).join(',')],
  ['--trace', 'trace every step of the main system (audit alone is on by default)', false],
  ['--sweep-ms <ms>', 'workers revalidate every runtime this often', '10000'],
  ['--poll-ms <ms>', 'an idle runtime asks the store after this long without a hint', '600000'],
  ['--lease-ttl-ms <ms>', 'worker lease TTL', '10000'],
  ['--heartbeat-ms <ms>', 'worker lease renewal and load publishing period', '2000'],
  ['--settle-seconds <s>', 'how long to wait for runtimes to start and inputs to be released', '120'],
  ['--log-level <level>', 'the processes’ log level ($DHSCHED_LOG_LEVEL)', 'warn'],
  ['--out <file>', 'results file', 'bench/scale.json'],
];

/** The input as the schema reads it; otherwise each problem on stderr, by flag, and exit status 2. */
function valid<S extends z.ZodTypeAny>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data as z.output<S>;
  for (const issue of r.error.issues) {
    const flag = String(issue.path[0] ?? '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    process.stderr.write(`bench-scale: --${flag}: ${issue.message}\n`);
  }
  process.exit(2);
}

async function main() {
  const cli = new Command('bench-scale').description(
    'Scale, latency, migration storm and cost of safety of DHSched on real processes',
  );
  for (const [flags, description, fallback] of OPTIONS) cli.option(flags, description, fallback);
  cli.parse();
  const f = valid(Flags, cli.opts());
  process.env['DHSCHED_LOG_LEVEL'] = f.logLevel;
  const { protocols, logLevel: _l, out, ...rest } = f;
  const options = valid(ScaleOptions, { ...rest, variants: protocols.map((p) => VARIANTS[p]!) });
  const result = await runBenchScale(options, (line) => console.log(line));
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const json = JSON.stringify(result);
  fs.writeFileSync(out, `${json}\n`);
  console.log(json);
}

await main();
