/**
 * Mutation testing of the conformance suite: each mutant of conformance/mutants.ts is applied, one at a
 * time, to a scratch copy of the repository (node_modules linked), and the conformance tests run there
 * (vitest, stopping at the first failure). First the unmutated copy must pass the same tests, so that a
 * kill is the mutant's doing. Prints one line per mutant — its name, killed (by which test, with the first
 * line of its error) or survived — and ends with `mutants: K killed of N`. Exit 1 if any survived or was
 * broken, or if the unmutated copy fails (no mutant is run then).
 * Usage: node dist/scripts/mutants.js [--only name,name] [--tests conformance] [--no-baseline]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { UsageError, listOf, option, program as cliProgram, runScript } from '../impl/cli/flags.js';
import { type Mutant, mutants } from '../conformance/mutants.js';

const root = process.cwd();

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

function inScratchCopy<T>(work: (dir: string) => T): T {
  const dir = scratchCopy();
  try {
    return work(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
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

/**
 * Runs the tests in `dir` until the first failure: the failing test's name (as the reporter of
 * scripts/lib/first-failure-reporter.ts records it), undefined if all passed. A failure so early that the
 * bail ended the run before its result was reported is named by a second run, one test at a time.
 */
function firstFailure(dir: string, tests: string[]): string | undefined {
  const recorded = path.join(dir, 'first-failure.txt');
  const run = (extra: string[]) =>
    spawnSync(
      process.execPath,
      [
        path.join(dir, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        ...tests,
        ...extra,
        // it checks that each mutant's text is in the unmutated tree: a mutated copy always fails it
        '--exclude',
        'conformance/mutants.test.ts',
        '--bail',
        '1',
        '--reporter',
        path.join(dir, 'scripts', 'lib', 'first-failure-reporter.ts'),
      ],
      { cwd: dir, stdio: 'ignore', env: { ...process.env, FIRST_FAILURE_FILE: recorded } },
    ).status;
  const named = () => (fs.existsSync(recorded) ? fs.readFileSync(recorded, 'utf8') : undefined);
  const first = run([]);
  if (first === 0 || named()) return named();
  const again = run(['--no-file-parallelism', '--maxConcurrency', '1']);
  return named() ?? `the test run failed naming no test (exit ${first}, then ${again})`;
}

const program = cliProgram('mutants', 'each seeded protocol mutant must make the conformance suite fail')
  .addOption(option('--only <names>', 'comma-separated mutant names', listOf(z.string(), 'mutant names')))
  .addOption(
    option('--tests <paths>', 'comma-separated test paths', listOf(z.string(), 'test paths')).default([
      'conformance',
    ]),
  )
  .option('--no-baseline', 'skip the run of the unmutated copy');

function main(): number {
  const o = program.parse().opts<{ only?: string[]; tests: string[]; baseline: boolean }>();
  const { only, tests } = o;
  const unknown = only?.filter((name) => !mutants.some((m) => m.name === name)) ?? [];
  if (unknown.length > 0)
    throw new UsageError(`no mutant named ${unknown.join(', ')} (see conformance/mutants.ts)`);
  const chosen = only ? mutants.filter((m) => only.includes(m.name)) : mutants;
  if (o.baseline) {
    const failed = inScratchCopy((dir) => firstFailure(dir, tests));
    if (failed) {
      console.log(`unmutated: FAILED (${failed}); no mutant was run`);
      return 1;
    }
    console.log('unmutated: passed');
  }
  let killed = 0;
  let failures = 0;
  for (const m of chosen) {
    inScratchCopy((dir) => {
      const broken = apply(dir, m);
      if (broken) {
        console.log(`${m.name}: BROKEN (${broken})`);
        failures++;
        return;
      }
      const by = firstFailure(dir, tests);
      if (by) {
        killed++;
        console.log(`${m.name}: killed by ${by}`);
      } else {
        failures++;
        console.log(`${m.name}: SURVIVED (${m.breaks})`);
      }
    });
  }
  console.log(`mutants: ${killed} killed of ${chosen.length}`);
  return failures > 0 ? 1 : 0;
}

runScript('mutants', main);
