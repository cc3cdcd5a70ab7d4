import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDir } from './support/corpus.js';

const root = path.resolve(import.meta.dirname, '../..');
const corpus = corpusDir();

function tlcts(...args: string[]): { code: number; out: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'tlcts/bin/tlcts.js'), ...args], {
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

/** A corpus model as arguments: the module, then -config and its configuration. */
const model = (tla: string, cfg: string) => [path.join(corpus, tla), '-config', path.join(corpus, cfg)];
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tlcts-cli-'));
const jugs = model('Jugs/MCJugs.tla', 'Jugs/Jugs_3_5.cfg');

describe('tlcts command line', () => {
  it('prints TLC summary lines and exits 0 on success', () => {
    const { code, out } = tlcts(...model('Jugs/MCJugs.tla', 'Jugs/Jugs_4_6.cfg'));
    expect(code).toBe(0);
    expect(out).toContain('Model checking completed. No error has been found.');
    expect(out).toContain('49 states generated, 10 distinct states found, 0 states left on queue.');
    expect(out).toContain('The depth of the complete state graph search is 5.');
  });

  it('reports an invariant violation with exit 12 and a TLC-shaped trace', () => {
    const file = path.join(tmp, 'jugs.json');
    const { code, out } = tlcts(...jugs, '-dumpTrace', 'json', file);
    expect(code).toBe(12);
    expect(out).toContain('Error: Invariant NotSolved is violated.');
    expect(out).toContain('State 2: <Fill("big") line 31, col 13 to line 31, col 54 of module Jugs>');
    const ours = readJson(file);
    const theirs = readJson(path.join(corpus, 'Jugs/Jugs_3_5.trace.json'));
    expect(ours.counterexample.state).toEqual(theirs.counterexample.state);
    expect(
      ours.counterexample.action.map((a: unknown[]) => (a[1] as { name: string; context?: unknown }).context),
    ).toEqual(theirs.counterexample.action.map((a: unknown[]) => (a[1] as { context?: unknown }).context));
  });

  it('writes the counterexample as ITF', () => {
    const file = path.join(tmp, 'jugs.itf.json');
    expect(tlcts(...jugs, '-dumpTrace', 'itf', file).code).toBe(12);
    const itf = readJson(file);
    expect(itf.vars).toEqual(['water']);
    expect(itf.states).toHaveLength(7);
    expect(itf.states[0].water).toEqual({ small: { '#bigint': '0' }, big: { '#bigint': '0' } });
    expect(itf.states[1]['#meta']).toMatchObject({ index: 1, action: 'Fill', parameters: { j: 'big' } });
  });

  it('dumps the reachable state graph with labelled edges', () => {
    const file = path.join(tmp, 'graph.json');
    const { code } = tlcts(...model('Jugs/MCJugs.tla', 'Jugs/Jugs_4_6.cfg'), '-dump', file);
    expect(code).toBe(0);
    const g = readJson(file);
    expect(g.states).toHaveLength(10);
    expect(g.states.filter((s: { initial: boolean }) => s.initial)).toHaveLength(1);
    const labels = new Set(g.edges.map((e: { label: string }) => e.label));
    expect(labels).toEqual(
      new Set([
        'Empty("four")',
        'Empty("six")',
        'Fill("four")',
        'Fill("six")',
        'Pour("four", "six")',
        'Pour("six", "four")',
      ]),
    );
    for (const e of g.edges) expect(e.to).toBeLessThan(10);
  });

  it('dumps the state graph as DOT', () => {
    const file = path.join(tmp, 'graph.dot');
    expect(tlcts(...model('Jugs/MCJugs.tla', 'Jugs/Jugs_4_6.cfg'), '-dump', 'dot', file).code).toBe(0);
    const dot = fs.readFileSync(file, 'utf8');
    expect(dot.startsWith('digraph StateGraph {')).toBe(true);
    expect(dot).toMatch(/-> \d+ \[label="Empty\(\\"six\\"\)"\]/);
  });

  it('simulates reproducibly from a seed and finds a violation', () => {
    const args = [
      ...model('NaiveMutex/NaiveMutex.tla', 'NaiveMutex/NaiveMutex.cfg'),
      '-simulate',
      'num=200',
      '-depth',
      '30',
      '-seed',
      '7',
    ];
    const a = tlcts(...args);
    const b = tlcts(...args);
    expect(a.code).toBe(12);
    expect(a.out).toContain('Error: Invariant MutualExclusion is violated.');
    expect(a.out.replace(/\(\d{4}-.*\)/g, '')).toEqual(b.out.replace(/\(\d{4}-.*\)/g, ''));
  });

  it('-continue reports every violation, in the order met, and ends as TLC does: a success', () => {
    // Figures by hand from the spec's comment: states 1..4, 2 initial + 3 steps, depth 3 (1 and 2 initial).
    const spec = [path.join(root, 'tlcts/test/specs/Continue/Continue.tla'), '-deadlock'];
    expect(tlcts(...spec).code).toBe(12);
    for (const workers of ['1', '2']) {
      const { code, out } = tlcts(...spec, '-continue', '-workers', workers);
      expect(code).toBe(0);
      expect(out.match(/^Error: .*violated.*$/gm)).toEqual([
        'Error: Invariant Small is violated by the initial state:',
        'Error: Invariant NotTwo is violated by the initial state:',
        'Error: Invariant Small is violated.',
        'Error: Invariant Small is violated.',
        'Error: Action property NeverFour is violated.',
      ]);
      // Each behaviour ends in its violating state: x = 3, then x = 4 twice.
      expect(out.match(/^State \d+: .*\nx = \d$/gm)!.map((s) => s.slice(-1))).toEqual([
        '2',
        '3',
        '2',
        '3',
        '4',
        '2',
        '3',
        '4',
      ]);
      expect(out).toContain('Model checking completed. No error has been found.');
      expect(out).toContain('5 states generated, 4 distinct states found, 0 states left on queue.');
      expect(out).toContain('The depth of the complete state graph search is 3.');
    }
    expect(tlcts(...spec, '-continue', '-simulate').code).toBe(1);
  });

  it('takes -config M as M.cfg, a .tla given to -config by its embedded block, and -lncheck final', () => {
    const dir = path.join(root, 'tlcts/test/specs/Continue');
    const base = [path.join(dir, 'Continue.tla'), '-deadlock', '-continue'];
    expect(tlcts(...base, '-config', path.join(dir, 'Continue'), '-lncheck', 'final').code).toBe(0);
    expect(tlcts(...base, '-lncheck', 'sometimes').out).toContain(
      '-lncheck takes default, final or seqfinal',
    );
    const tla = path.join(tmp, 'Embedded.tla');
    // Only the block named after the file counts; an Init without solutions gives 0 states, depth 0.
    fs.writeFileSync(
      tla,
      "---- MODULE Embedded ----\nVARIABLE x\nInit == x \\in {}\nNext == x' = x\n====\n" +
        '---- CONFIG Other ----\nINIT Nothing\n====\n---- CONFIG Embedded ----\nINIT Init\nNEXT Next\n====\n',
    );
    const { code, out } = tlcts(tla, '-config', tla);
    expect(code).toBe(0);
    expect(out).toContain('0 states generated, 0 distinct states found, 0 states left on queue.');
    expect(out).toContain('The depth of the complete state graph search is 0.');
  });

  it('counts columns as SANY does: a tab reaches the next multiple of 8', () => {
    const tla = path.join(tmp, 'Tabs.tla');
    // `Next ==` ends at column 7; the tabs end at columns 8 and 16, so x' starts at 17 (not 10).
    fs.writeFileSync(
      tla,
      "---- MODULE Tabs ----\nVARIABLE x\nInit == x = FALSE\nNext ==\t\tx' = ~x\nInv == ~x\n====\n",
    );
    fs.writeFileSync(path.join(tmp, 'Tabs.cfg'), 'INIT Init\nNEXT Next\nINVARIANT Inv\n');
    const { code, out } = tlcts(tla);
    expect(code).toBe(12);
    expect(out).toContain('State 2: <Next line 4, col 17 to line 4, col 23 of module Tabs>');
  });

  it('reports deadlock with exit 11, and -deadlock turns the check off', () => {
    const spec = model('Philosophers/Philosophers.tla', 'Philosophers/Philosophers.cfg');
    expect(tlcts(...spec).code).toBe(11);
    expect(tlcts(...spec, '-deadlock').code).toBe(0);
  });

  it('reports a temporal violation with exit 13 and a lasso, in text, -dumpTrace json and ITF', () => {
    const clock = model('Clock/Clock.tla', 'Clock/Clock_NoFair.cfg');
    const json = path.join(tmp, 'clock.json');
    const { code, out } = tlcts(...clock, '-dumpTrace', 'json', json);
    expect(code).toBe(13);
    expect(out).toContain('Implied-temporal checking--satisfiability problem has 1 branches.');
    expect(out).toContain(
      'Checking temporal properties for the complete state space with 72 total distinct states at (',
    );
    expect(out).toContain(
      'Error: Temporal property Midnight was violated.\n\nError: The following behavior constitutes a counter-example:\n\nState 1: <Initial predicate>\n/\\ h = 23\n/\\ m = 0\n',
    );
    expect(out).toContain(
      '/\\ m = 2\n\nState 4: Stuttering\nWarning: The stuttering counterexample above may be caused',
    );
    expect(out).toMatch(/\nFinished checking temporal properties in \d\ds at [^\n]*\n96 states generated/);
    // The corpus trace is TLC's, stuttering step included.
    expect(readJson(json)).toEqual(readJson(path.join(corpus, 'Clock/Clock_NoFair.trace.json')));
    const itf = path.join(tmp, 'clock.itf.json');
    expect(tlcts(...clock, '-dumpTrace', 'itf', itf).code).toBe(13);
    const trace = readJson(itf);
    expect(trace.states).toHaveLength(3);
    expect(trace.loop).toBe(2);
  });

  it('ends a lasso that loops back with the step that closes it', () => {
    const alt = model('Crossing/Crossing.tla', 'Crossing/Crossing_Settle.cfg');
    const json = path.join(tmp, 'crossing.json');
    const { code, out } = tlcts(...alt, '-dumpTrace', 'json', json);
    expect(code).toBe(13);
    expect(out).toContain(
      '\n\nBack to state 1: <Control line 44, col 9 to line 66, col 39 of module Crossing>\n\n',
    );
    expect(readJson(json)).toEqual(readJson(path.join(corpus, 'Crossing/Crossing_Settle.trace.json')));
  });

  it('refuses a missing file and bad flags with a clear message', () => {
    const missing = tlcts(path.join(tmp, 'Nope.tla'));
    expect(missing.code).toBe(150);
    expect(missing.out).toContain('cannot find the specification');
    expect(tlcts(...jugs, '-dumpTrace', 'xml', path.join(tmp, 'x')).code).toBe(1);
    expect(tlcts('--help').out).toContain('-config');
  });
});

describe('scripts/tlc', () => {
  it('explains how to point at tla2tools.jar instead of downloading it', () => {
    const r = spawnSync(path.join(root, 'scripts/tlc'), jugs, {
      encoding: 'utf8',
      env: { ...process.env, TLA2TOOLS_JAR: '' },
    });
    expect(r.status).toBe(2);
    expect(r.stdout + r.stderr).toContain('TLA2TOOLS_JAR');
  });
});
