/**
 * bench-overload: at N live sessions, PushText at 3× the knee for 60 s, then at 0.5× for 60 s
 * (harness/bench-overload/run.ts): refusal latency, admitted-call P99 during the overload, lapsed leases of
 * live workers, inputs lost, and the seconds until each second's P99 is back under 16.5 ms. Writes
 * bench/overload.json; the last line printed is the same JSON object.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Option } from 'commander';
import { z } from 'zod';
import { OverloadOptions, runBenchOverload } from '../harness/bench-overload/run.js';
import {
  checked,
  fileName,
  integer,
  option,
  positiveNumber,
  program as cliProgram,
  runScript,
} from '../impl/cli/flags.js';

const positive = integer(1);
const ingress = { words: 'stream or unary', schema: z.enum(['stream', 'unary']) };
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

async function main(): Promise<number> {
  const cli = cliProgram('bench-overload', 'PushText at 3× the knee, then at half of it: overload control')
    .addOption(option('--sessions <n>', 'live sessions', positive).default(10_000))
    .addOption(
      option(
        '--knee <n>',
        'the knee of the ingress, PushText per second (bench-knee)',
        positive,
      ).makeOptionMandatory(),
    )
    .addOption(option('--ingress <kind>', 'stream or unary', ingress).default('stream'))
    .addOption(option('--overload-seconds <s>', 'how long the overload lasts', positiveNumber).default(60))
    .addOption(
      option('--recovery-seconds <s>', 'how long the load after it lasts', positiveNumber).default(60),
    )
    .addOption(option('--workers <n>', 'worker processes', positive).default(4))
    .addOption(option('--dispatchers <n>', 'Dispatch replicas', positive).default(2))
    .addOption(
      option('--create-rate <n>', 'CreateLive calls per second while growing', positive).default(2000),
    )
    .addOption(option('--out <file>', 'results file', fileName).default('bench/overload.json'))
    .addOption(
      new Option('--log-level <level>', 'the processes’ log level ($DHSCHED_LOG_LEVEL)')
        .choices(LOG_LEVELS)
        .default('warn'),
    );
  const { logLevel, out, ...rest } = cli
    .parse()
    .opts<{ logLevel: string; out: string; [flag: string]: unknown }>();
  process.env['DHSCHED_LOG_LEVEL'] = logLevel;
  const result = await runBenchOverload(checked(OverloadOptions, rest), (line) => console.log(line));
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const json = JSON.stringify(result);
  fs.writeFileSync(out, `${json}\n`);
  console.log(json);
  return 0;
}

runScript('bench-overload', main);
