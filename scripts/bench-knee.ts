/**
 * bench-knee: an offered-load sweep of PushText at N live sessions, for the streaming ingress and the
 * unary call (harness/bench-knee/run.ts): per step the achieved rate, P50/P99/P99.9, refusals, CPU per
 * request of every process (the client's included) and the end-to-end latency from push to release; the
 * knee is the highest step with P99 ≤ 16.5 ms and nothing refused. Writes bench/knee.json; the last line
 * printed is the same JSON object.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Option } from 'commander';
import { z } from 'zod';
import { KneeOptions, runBenchKnee } from '../harness/bench-knee/run.js';
import {
  checked,
  fileName,
  integer,
  listOf,
  option,
  positiveNumber,
  program as cliProgram,
  runScript,
} from '../impl/cli/flags.js';

const positive = integer(1);
const ingress = { words: 'stream or unary', schema: z.enum(['stream', 'unary']) };
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

async function main(): Promise<number> {
  const cli = cliProgram('bench-knee', 'Offered-load sweep of PushText: the knee of each ingress')
    .addOption(option('--sessions <n>', 'live sessions', positive).default(10_000))
    .addOption(
      option(
        '--rates <list>',
        'offered PushText rates per second, ascending',
        listOf(positive.schema, 'positive integers'),
      ).default([1000, 2000, 5000, 10_000, 20_000, 40_000], '1000,2000,5000,10000,20000,40000'),
    )
    .addOption(
      option(
        '--ingress <list>',
        'ingresses swept, in order',
        listOf(ingress.schema, 'stream or unary'),
      ).default(['stream', 'unary'], 'stream,unary'),
    )
    .addOption(option('--step-seconds <s>', 'length of each step', positiveNumber).default(10))
    .addOption(option('--workers <n>', 'worker processes', positive).default(4))
    .addOption(option('--dispatchers <n>', 'Dispatch replicas', positive).default(2))
    .addOption(
      option('--create-rate <n>', 'CreateLive calls per second while growing', positive).default(2000),
    )
    .addOption(
      option('--target-p99-ms <ms>', 'a step passes with P99 at most this', positiveNumber).default(16.5),
    )
    .option('--all-steps', 'run every step, even past an ingress’s first failing one', false)
    .addOption(option('--out <file>', 'results file', fileName).default('bench/knee.json'))
    .addOption(
      new Option('--log-level <level>', 'the processes’ log level ($DHSCHED_LOG_LEVEL)')
        .choices(LOG_LEVELS)
        .default('warn'),
    );
  const { allSteps, logLevel, out, ...rest } = cli.parse().opts<{
    allSteps: boolean;
    logLevel: string;
    out: string;
    [flag: string]: unknown;
  }>();
  process.env['DHSCHED_LOG_LEVEL'] = logLevel;
  const options = checked(KneeOptions, { ...rest, stopAtFailure: !allSteps });
  const result = await runBenchKnee(options, (line) => console.log(line));
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const json = JSON.stringify(result);
  fs.writeFileSync(out, `${json}\n`);
  console.log(json);
  return 0;
}

runScript('bench-knee', main);
