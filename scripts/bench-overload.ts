/**
 * bench-overload: at N live sessions, PushText at 3× the knee for 60 s, then at 0.5× for 60 s
 * (harness/bench-overload/run.ts): refusal latency, admitted-call P99 during the overload, lapsed leases of
 * live workers, inputs lost, and the seconds until each second's P99 is back under 16.5 ms. Writes
 * bench/overload.json; the last line printed is the same JSON object.
 */
import { OverloadOptions, runBenchOverload } from '../harness/bench-overload/run.js';
import {
  checked,
  fileName,
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
    cliProgram('bench-overload', 'PushText at 3× the knee, then at half of it: overload control'),
  )
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
    .addOption(option('--out <file>', 'results file', fileName).default('bench/overload.json'))
    .addOption(logLevelOption());
  const { logLevel, out, ...rest } = cli
    .parse()
    .opts<{ logLevel: string; out: string; [flag: string]: unknown }>();
  useLogLevel(logLevel);
  const result = await runBenchOverload(checked(OverloadOptions, rest), (line) => console.log(line));
  writeResult(out, result);
  return 0;
}

runScript('bench-overload', main);
