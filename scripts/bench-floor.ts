/**
 * bench-floor: the floor of a push on this machine (harness/bench-floor/run.ts): the load client's
 * PushText pattern on one gRPC stream to a server that answers at once (`echo`) or after one Redis
 * append per batch (`store`), alternated for --runs runs. A system whose push crosses those processes
 * cannot have a lower P99 here. Writes bench/floor.json; the last line printed is the same JSON object.
 */
import { FloorOptions, runFloor } from '../harness/bench-floor/run.js';
import { checked, fileName, integer, option, program as cliProgram, runScript } from '../impl/cli/flags.js';
import { writeResult } from './lib/bench-cli.js';

async function main(): Promise<number> {
  const cli = cliProgram('bench-floor', 'the floor of a push on this machine: gRPC stream, then Redis')
    .addOption(option('--rate <n>', 'messages per second', integer(1, 100_000)).default(2000))
    .addOption(option('--seconds <s>', 'measured seconds per run and stage', integer(1, 600)).default(10))
    .addOption(option('--warm-up-seconds <s>', 'unmeasured seconds first', integer(0, 600)).default(5))
    .addOption(option('--runs <n>', 'runs of each stage, alternated', integer(1, 100)).default(3))
    .addOption(option('--out <file>', 'results file', fileName).default('bench/floor.json'));
  const { out, ...rest } = cli.parse().opts<{ out: string; [flag: string]: unknown }>();
  const result = await runFloor(checked(FloorOptions, rest), (line) => console.error(line));
  writeResult(out, result);
  return 0;
}

runScript('bench-floor', main);
