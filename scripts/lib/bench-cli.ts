/**
 * What the benchmark scripts share: the system's flags of the load benchmarks, the processes' log level,
 * and the result written and printed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Command, Option } from 'commander';
import { z } from 'zod';
import { LOAD_BENCH_DEPLOYMENT, WARM_UP_SECONDS } from '../../harness/bench-scale/system.js';
import { integer, option } from '../../impl/cli/flags.js';

export const positive = integer(1);
/** How the load client sends PushText. */
export const ingress = { words: 'stream or unary', schema: z.enum(['stream', 'unary']) };

/**
 * The flags of the system a load benchmark grows: --sessions, --workers, --dispatchers, --create-rate,
 * and --warm-up-seconds before it measures.
 */
export function systemOptions(cli: Command): Command {
  return cli
    .addOption(option('--sessions <n>', 'live sessions', positive).default(10_000))
    .addOption(option('--workers <n>', 'worker processes', positive).default(LOAD_BENCH_DEPLOYMENT.workers))
    .addOption(
      option('--dispatchers <n>', 'Dispatch replicas', positive).default(LOAD_BENCH_DEPLOYMENT.dispatchers),
    )
    .addOption(
      option('--create-rate <n>', 'CreateLive calls per second while growing', positive).default(2000),
    )
    .addOption(
      option(
        '--warm-up-seconds <s>',
        'PushText, unmeasured, before the first measurement (0: none)',
        integer(0, 600),
      ).default(WARM_UP_SECONDS),
    );
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** --log-level: the log level of the processes a benchmark starts ($DHSCHED_LOG_LEVEL), warn by default. */
export function logLevelOption(): Option {
  return new Option('--log-level <level>', 'the processes’ log level ($DHSCHED_LOG_LEVEL)')
    .choices(LOG_LEVELS)
    .default('warn');
}

/** Sets the processes' log level, as --log-level gave it. */
export function useLogLevel(level: string): void {
  process.env['DHSCHED_LOG_LEVEL'] = level;
}

/** Writes the result to `out` as one line of JSON and prints the same line last. */
export function writeResult(out: string, result: unknown): void {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const json = JSON.stringify(result);
  fs.writeFileSync(out, `${json}\n`);
  console.log(json);
}
