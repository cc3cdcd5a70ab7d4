/**
 * Mutation testing of the conformance suite: each mutant of conformance/mutants.ts is applied, one at a
 * time, to a scratch copy of the repository (node_modules linked), and the conformance tests run there
 * (vitest, stopping at the first failure). Prints one line per mutant — its name, killed (and by which
 * test) or survived — and ends with `mutants: K killed of N`. Exit 1 if any survived or was broken.
 * Usage: node dist/scripts/mutants.js [--only name,name] [--tests conformance]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { type Mutant, mutants } from '../conformance/mutants.js';

const root = process.cwd();

const Report = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string(),
      message: z.string().optional(),
      assertionResults: z.array(z.object({ fullName: z.string(), status: z.string() })),
    }),
  ),
});

/** A scratch copy of the tracked tree, with the working tree's node_modules linked in. */
function scratchCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-mutant-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
  })
    .toString()
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    if (!fs.existsSync(path.join(root, f))) continue;
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(root, f), path.join(dir, f));
  }
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

function apply(dir: string, m: Mutant): string | undefined {
  const file = path.join(dir, m.file);
  if (!fs.existsSync(file)) return `no file ${m.file}`;
  const text = fs.readFileSync(file, 'utf8');
  const count = text.split(m.find).length - 1;
  if (count !== 1) return `the text to replace occurs ${count} times in ${m.file}`;
  fs.writeFileSync(file, text.replace(m.find, m.replace));
  return undefined;
}

/** One vitest run in `dir`, stopping at the first failure: the failing test's name, or how it ended. */
function vitestRun(dir: string, tests: string[], extra: string[]): { named?: string; status: number | null } {
  const report = path.join(dir, 'mutant-report.json');
  fs.rmSync(report, { force: true });
  const run = spawnSync(
    process.execPath,
    [
      path.join(dir, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      ...tests,
      ...extra,
      '--bail',
      '1',
      '--reporter',
      'json',
      '--outputFile',
      report,
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  if (!fs.existsSync(report)) return { status: run.status };
  const r = Report.parse(JSON.parse(fs.readFileSync(report, 'utf8')));
  for (const file of r.testResults) {
    const failed = file.assertionResults.find((a) => a.status === 'failed');
    if (failed) return { named: `${path.relative(dir, file.name)} > ${failed.fullName}`, status: run.status };
    // a failure outside any test (a hook, a test that failed while others ran concurrently)
    if (file.status === 'failed') {
      return { named: `${path.relative(dir, file.name)} (${file.message ?? 'failed'})`, status: run.status };
    }
  }
  return { status: run.status };
}

/**
 * Runs the tests in `dir`; the first failing test's name, or undefined if all passed. A failure so early
 * that the bail cancelled the files before any reported it is named by a second run, one file at a time.
 */
function firstFailure(dir: string, tests: string[]): string | undefined {
  const first = vitestRun(dir, tests, []);
  if (first.named || first.status === 0) return first.named;
  const again = vitestRun(dir, tests, ['--no-file-parallelism']);
  return again.named ?? `the test run failed naming no test (exit ${first.status}, then ${again.status})`;
}

function main(): number {
  const o = new Command('mutants')
    .option('--only <names>', 'comma-separated mutant names')
    .option('--tests <paths>', 'comma-separated test paths', 'conformance')
    .parse()
    .opts<{ only?: string; tests: string }>();
  const only = o.only?.split(',');
  const unknown = only?.filter((name) => !mutants.some((m) => m.name === name)) ?? [];
  if (unknown.length > 0) {
    console.error(`mutants: no mutant named ${unknown.join(', ')} (see conformance/mutants.ts)`);
    return 2;
  }
  const chosen = only ? mutants.filter((m) => only.includes(m.name)) : mutants;
  let killed = 0;
  let failures = 0;
  for (const m of chosen) {
    const dir = scratchCopy();
    try {
      const broken = apply(dir, m);
      if (broken) {
        console.log(`${m.name}: BROKEN (${broken})`);
        failures++;
        continue;
      }
      const by = firstFailure(dir, o.tests.split(','));
      if (by) {
        killed++;
        console.log(`${m.name}: killed by ${by}`);
      } else {
        failures++;
        console.log(`${m.name}: SURVIVED (${m.breaks})`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`mutants: ${killed} killed of ${chosen.length}`);
  return failures > 0 ? 1 : 0;
}

process.exitCode = main();
