/**
 * docs/evaluation.md and docs/plots/*.svg from bench/ownership.json and bench/scale.json
 * (scripts/lib/evaluation-report.ts).
 * Usage: ./scripts/report-evaluation [--bench bench] [--out docs]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { writeEvaluationReport } from './lib/evaluation-report.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const opts = new Command('report-evaluation')
  .option('--bench <dir>', 'where the benchmarks wrote their JSON', path.join(root, 'bench'))
  .option('--out <dir>', 'where evaluation.md and its plots go', path.join(root, 'docs'))
  .parse()
  .opts<{ bench: string; out: string }>();

writeEvaluationReport(opts.bench, opts.out).then(
  (files) => console.log(`wrote ${files.join(', ')}`),
  (err: unknown) => {
    console.error(`report-evaluation: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
