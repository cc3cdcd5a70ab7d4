/** Errors and refusals as TLC and SANY report them: wording, and TLC's exit codes. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../src/check/run.js';
import { corpusDir } from './support/corpus.js';

const root = path.resolve(import.meta.dirname, '../..');
const corpus = corpusDir();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tlcts-errors-'));

function tlcts(...args: string[]): { code: number; out: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'tlcts/bin/tlcts.js'), ...args], {
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

/** Writes module `name` (and its configuration) to a fresh folder; returns the module's path. */
function writeSpec(name: string, tla: string, cfg = 'INIT Init\nNEXT Next\n'): string {
  const dir = fs.mkdtempSync(path.join(tmp, `${name}-`));
  fs.writeFileSync(path.join(dir, `${name}.cfg`), cfg);
  const file = path.join(dir, `${name}.tla`);
  fs.writeFileSync(file, tla);
  return file;
}

/** tlcts's run of a module written by writeSpec: its result, and every line it printed. */
function check(tlaFile: string): { result: ReturnType<typeof runCheck>['result']; text: string } {
  const lines: string[] = [];
  const { result } = runCheck({
    tlaFile,
    cfgFile: tlaFile.replace(/\.tla$/, '.cfg'),
    out: (l) => lines.push(l),
  });
  return { result, text: lines.join('\n') };
}

/** The first line of a corpus log (TLC's output) that starts with `prefix`. */
function tlcLine(cfg: string, prefix: string): string {
  const log = fs.readFileSync(path.join(corpus, cfg.replace(/\.cfg$/, '.tlc.log')), 'utf8');
  const line = log.split('\n').find((l) => l.startsWith(prefix));
  if (line === undefined) throw new Error(`no line of ${cfg}'s log starts with ${prefix}`);
  return line;
}

const COUNTER = `---- MODULE Counter ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Grows == [][x' > x]_x
Named == Grows /\\ [](x < 5)
Inline == [](x < 5) /\\ [][x' > x]_x
====
`;

describe('a violated property is named as TLC names it (SpecProcessor#processConfigProps)', () => {
  it('an action property defined on its own: by its definition', () => {
    const { result } = check(writeSpec('Counter', COUNTER, 'INIT Init\nNEXT Next\nPROPERTY Grows\n'));
    expect(result.exitCode).toBe(13);
    expect(result.message).toBe('Action property Grows is violated.');
  });

  it('a conjunct that names a definition: by that definition', () => {
    const { result } = check(writeSpec('Counter', COUNTER, 'INIT Init\nNEXT Next\nPROPERTY Named\n'));
    expect(result.message).toBe('Action property Grows is violated.');
    expect(result.violated).toBe('Named');
  });

  it('an inline conjunct: by its location', () => {
    const { result } = check(writeSpec('Counter', COUNTER, 'INIT Init\nNEXT Next\nPROPERTY Inline\n'));
    expect(result.message).toBe(
      'Action property line 8, col 24 to line 8, col 35 of module Counter is violated.',
    );
  });

  it("the [][A]_v conjunct of an instanced module's Spec: by its location, as in the corpus logs", () => {
    for (const [tla, cfg] of [
      ['Clock/Clock.tla', 'Clock/Clock_Bad.cfg'],
      ['StackQueue/TwoStacks.tla', 'StackQueue/TwoStacks_Bug.cfg'],
    ] as const) {
      const { result } = runCheck({ tlaFile: path.join(corpus, tla), cfgFile: path.join(corpus, cfg) });
      expect(`Error: ${result.message}`).toBe(tlcLine(cfg, 'Error: Action property'));
    }
  });
});

describe('the command line, as TLC takes it (TLC#handleParameters)', () => {
  const clock = [
    path.join(corpus, 'Clock/Clock.tla'),
    '-config',
    path.join(corpus, 'Clock/Clock_NoFair.cfg'),
  ];

  it('-nowarning suppresses every warning; without it the first says how', () => {
    const warned = tlcts(...clock);
    expect(warned.code).toBe(13);
    expect(warned.out).toContain(
      `${tlcLine('Clock/Clock_NoFair.cfg', 'Warning: ')}\n(Use the -nowarning option to disable this warning.)\n`,
    );
    const quiet = tlcts(...clock, '-nowarning');
    expect(quiet.code).toBe(13);
    expect(quiet.out).not.toContain('Warning');
    expect(quiet.out).toContain('State 4: Stuttering');
  });

  it('prints its version with -version or --version', () => {
    const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
    for (const flag of ['-version', '--version'])
      expect(tlcts(flag)).toEqual({ code: 0, out: `tlcts ${version}\n` });
  });

  it('refuses an unknown option by name, a missing or bad value, and a missing module, with exit 1', () => {
    const usage = 'Usage: tlcts [-help] [-option] SPEC.tla\n';
    expect(tlcts('-frobnicate', ...clock)).toEqual({
      code: 1,
      out: `Error: unrecognized option: -frobnicate\n${usage}`,
    });
    expect(tlcts(...clock, '-workers')).toEqual({
      code: 1,
      out: `Error: expect an integer or 'auto' for -workers option.\n${usage}`,
    });
    expect(tlcts(...clock, '-depth', 'ten')).toEqual({
      code: 1,
      out: `Error: An integer for trace length required. But encountered ten\n${usage}`,
    });
    expect(tlcts('-deadlock')).toEqual({ code: 1, out: `Error: Missing input TLA+ module.\n${usage}` });
  });
});
