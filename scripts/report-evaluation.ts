/**
 * docs/evaluation.md and docs/plots/*.svg from bench/ownership.json and bench/scale.json
 * (scripts/lib/evaluation-report.ts).
 * Usage: ./scripts/report-evaluation [--bench bench] [--out docs]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileName, option, program as cliProgram, runScript } from '../impl/cli/flags.js';
import { writeEvaluationReport } from './lib/evaluation-report.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const program = cliProgram('report-evaluation', 'docs/evaluation.md and its plots from the benchmarks’ JSON')
  .addOption(
    option('--bench <dir>', 'where the benchmarks wrote their JSON', fileName).default(
      path.join(root, 'bench'),
    ),
  )
  .addOption(
    option('--out <dir>', 'where evaluation.md and its plots go', fileName).default(path.join(root, 'docs')),
  );

runScript('report-evaluation', async () => {
  const opts = program.parse().opts<{ bench: string; out: string }>();
  const files = await writeEvaluationReport(opts.bench, opts.out);
  console.log(`wrote ${files.join(', ')}`);
  return 0;
});
