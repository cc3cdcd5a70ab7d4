/**
 * The command-line conventions (flags.ts) on every program that follows them, each run as a real process
 * from dist/: --version and --help exit 0, an unknown option or a bad value exits 2 naming the flag and
 * the value, a refusal or a failure exits 1; every option --help lists is described.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
};

interface Ran {
  status: number | null;
  out: string;
  err: string;
}

/** Runs `file` (relative to the repository) with `args`; its exit status and what it printed. */
function run(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  const [cmd, argv] = file.endsWith('.js') ? [process.execPath, [file, ...args]] : [file, args];
  return new Promise((resolve) =>
    execFile(cmd, argv, { cwd: root, env, encoding: 'utf8' }, (error, out, err) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err }),
    ),
  );
}

/** Where `tool` is on $PATH. */
function onPath(tool: string): string {
  const dirs = (process.env['PATH'] ?? '').split(path.delimiter);
  const found = dirs.map((d) => path.join(d, tool)).find((f) => fs.existsSync(f));
  if (!found) throw new Error(`${tool} is not on PATH`);
  return found;
}

const PROGRAMS: [name: string, file: string][] = [
  ['dhsched', 'bin/dhsched.js'],
  ...['bench-checker', 'bench-cost', 'bench-media', 'bench-ownership', 'bench-scale'].map(
    (name): [string, string] => [name, `dist/scripts/${name}.js`],
  ),
  ...['check-spec', 'faults', 'mutants', 'report-evaluation', 'trace-validate'].map(
    (name): [string, string] => [name, `dist/scripts/${name}.js`],
  ),
  ['conformance-generate', 'dist/conformance/generate.js'],
  ['conformance-report', 'dist/conformance/report.js'],
];

/** The option lines of a --help with no description (commander: "  --flag <v>   description (default: x)"). */
function undescribed(help: string): string[] {
  const options = help.split('\n').filter((line) => /^ {2}-/.test(line));
  return options.filter((line) => {
    const description = /^ {2}-\S.*?\s{2,}(\S.*)$/.exec(line)?.[1];
    return description === undefined || /^\((default|choices)/.test(description);
  });
}

describe.each(PROGRAMS)('%s', (name, file) => {
  it('prints the version, and help describing every option, exit 0; an unknown option exits 2', async () => {
    const [v, help, bogus] = await Promise.all([
      run(file, ['--version']),
      run(file, ['--help']),
      run(file, ['--bogus']),
    ]);
    expect(v).toEqual({ status: 0, out: `${version}\n`, err: '' });
    expect(help.status).toBe(0);
    expect(help.out).toMatch(new RegExp(`^Usage: ${name} `));
    expect(undescribed(help.out)).toEqual([]);
    expect(bogus.status).toBe(2);
    expect(bogus.err).toMatch(new RegExp(`^${name}: unknown option '--bogus'\n`));
  });
});

describe('dhsched', () => {
  it('describes every option of every command', async () => {
    const help = (await run('bin/dhsched.js', ['--help'])).out;
    const commands = [...help.split('Commands:')[1]!.matchAll(/^ {2}(\w+)/gm)].map((m) => m[1]!);
    expect(commands).toContain('up');
    const helps = await Promise.all(commands.map((c) => run('bin/dhsched.js', [c, '--help'])));
    expect(helps.map((h) => h.status)).toEqual(commands.map(() => 0));
    expect(helps.flatMap((h) => undescribed(h.out))).toEqual([]);
  });
});

describe('bad usage: exit 2, the flag and the value named', () => {
  it.each([
    ['faults', ['--runs', 'abc'], 'faults: --runs must be an integer from 1 to 1000000, got "abc"'],
    [
      'faults',
      ['--protocol', 'x'],
      'faults: --protocol must be one of dhsched, assignment_time, claim_only,',
    ],
    [
      'bench-checker',
      ['--workers', '1,x'],
      'bench-checker: --workers must be a comma-separated list of positive',
    ],
    ['bench-scale', ['--workers', '100'], 'bench-scale: --workers must be at most 64, got 100'],
    ['bench-scale', ['--sessions', '10,5'], 'bench-scale: --sessions: levels must be ascending'],
    ['check-spec', ['--size', 'huge'], 'check-spec: --size must be one of small, large, all, got "huge"'],
    ['mutants', ['--only', 'nope'], 'mutants: no mutant named nope'],
    ['report-evaluation', ['stray'], 'report-evaluation: too many arguments'],
    ['trace-validate', [], "trace-validate: missing required argument 'file'"],
    ['trace-validate', ['package.json'], 'trace-validate: package.json: not a recorded run'],
    [
      'conformance-report',
      ['--lanes', '0'],
      'conformance-report: --lanes must be a positive integer, got "0"',
    ],
  ])('%s %j', async (name, args, said) => {
    const r = await run(PROGRAMS.find(([n]) => n === name)![1], args);
    expect(r.err).toContain(said);
    expect(r.status).toBe(2);
  });

  it('dhsched: a bad flag value, a missing argument, no command at all', async () => {
    const bin = 'bin/dhsched.js';
    const [epoch, missing, none] = await Promise.all([
      run(bin, ['migrate', 's1', '--from-epoch', 'soon']),
      run(bin, ['get']),
      run(bin, []),
    ]);
    expect(epoch.err).toMatch(/^dhsched: --from-epoch must be a non-negative integer, got "soon"\n/);
    expect(missing.err).toMatch(/^dhsched: missing required argument 'session'\n/);
    expect(none.err).toMatch(/^Usage: dhsched /);
    expect([epoch.status, missing.status, none.status]).toEqual([2, 2, 2]);
  });

  it('the bash wrappers: the demo takes no arguments; a dependency that cannot be had exits 1', async () => {
    expect(await run('scripts/demo', ['--bogus'])).toMatchObject({
      status: 2,
      err: expect.stringMatching(/^demo: /),
    });
    // a PATH with bash and dirname, and no node
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-path-'));
    try {
      for (const tool of ['bash', 'dirname']) fs.symlinkSync(onPath(tool), path.join(bin, tool));
      const r = await run('scripts/faults', ['--version'], { PATH: bin, DHSCHED_SKIP_APT: '1' });
      expect(r.err).toContain('[deps] error: node is not installed');
      expect(r.status).toBe(1);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });
});
