/**
 * bench-knee: an offered-load sweep of PushText at N live sessions, for the streaming ingress and the
 * unary call (harness/bench-knee/run.ts): per step the achieved rate, P50/P99/P99.9, refusals, CPU per
 * request of every process (the client's included) and the end-to-end latency from push to release; the
 * knee is the highest step up to which every step had P99 ≤ 16.5 ms and nothing refused. Writes
 * bench/knee.json; the last line printed is the same JSON object.
 */
import { KneeOptions, runBenchKnee } from '../harness/bench-knee/run.js';
import {
  checked,
  fileName,
  listOf,
  option,
  positiveNumber,
  program as cliProgram,
  runScript,
} from '../impl/cli/flags.js';
import {
  ingress,
  logLevelOption,
  positive,
  systemOptions,
  useLogLevel,
  writeResult,
} from './lib/bench-cli.js';

async function main(): Promise<number> {
  const cli = systemOptions(
    cliProgram('bench-knee', 'Offered-load sweep of PushText: the knee of each ingress'),
  )
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
    .addOption(
      option('--target-p99-ms <ms>', 'a step passes with P99 at most this', positiveNumber).default(16.5),
    )
    .option('--all-steps', 'run every step, even past an ingress’s first failing one', false)
    .addOption(option('--out <file>', 'results file', fileName).default('bench/knee.json'))
    .addOption(logLevelOption());
  const { allSteps, logLevel, out, ...rest } = cli.parse().opts<{
    allSteps: boolean;
    logLevel: string;
    out: string;
    [flag: string]: unknown;
  }>();
  useLogLevel(logLevel);
  const options = checked(KneeOptions, { ...rest, stopAtFailure: !allSteps });
  const result = await runBenchKnee(options, (line) => console.log(line));
  writeResult(out, result);
  return 0;
}

runScript('bench-knee', main);
