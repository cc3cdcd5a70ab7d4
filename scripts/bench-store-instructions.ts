/**
 * bench-store-instructions: Redis's instructions per push, counted by callgrind
 * (harness/store-instructions/run.ts): the store's append and release steps of a push, in batches, on a
 * cell of N sessions, audit on. A repeatable count for comparing store scripts side by side on a noisy
 * machine (needs valgrind). Writes bench/store-instructions.json; the last line printed is the same JSON
 * object.
 */
import { StoreInstructionsOptions, runStoreInstructions } from '../harness/store-instructions/run.js';
import { checked, fileName, integer, option, program as cliProgram, runScript } from '../impl/cli/flags.js';
import { writeResult } from './lib/bench-cli.js';

async function main(): Promise<number> {
  const cli = cliProgram('bench-store-instructions', "Redis's instructions per push, counted by callgrind")
    .addOption(option('--sessions <n>', 'sessions in the cell', integer(2, 100_000)).default(2000))
    .addOption(option('--batches <n>', 'append batches, each released', integer(1, 10_000)).default(100))
    .addOption(option('--batch-size <n>', 'inputs per append batch', integer(1, 256)).default(24))
    .addOption(option('--seed <n>', 'seed of the sessions drawn', integer(1, 0xffffffff)).default(12345))
    .addOption(option('--out <file>', 'results file', fileName).default('bench/store-instructions.json'));
  const { out, ...rest } = cli.parse().opts<{ out: string; [flag: string]: unknown }>();
  const result = await runStoreInstructions(checked(StoreInstructionsOptions, rest));
  writeResult(out, result);
  return 0;
}

runScript('bench-store-instructions', main);
