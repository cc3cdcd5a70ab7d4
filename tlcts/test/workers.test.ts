/**
 * The parallel search (-workers N, src/check/parallel.ts) against the sequential one: the same
 * output, line for line, but for timestamps and progress lines (and so TLC's figures); the runs it
 * leaves to one thread say why; a worker thread that fails ends the run.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateReader, StateWriter } from '../src/values/codec.js';
import {
  FiniteSet,
  Record,
  intern,
  internedCount,
  resetValueTables,
  setOf,
  show,
} from '../src/values/value.js';
import { corpusDir, loadCorpus } from './support/corpus.js';

const root = path.resolve(import.meta.dirname, '../..');
const corpus = corpusDir();
const specs = path.join(root, 'tlcts/test/specs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function tlcts(args: string[]): Run {
  const r = spawnSync(process.execPath, [path.join(root, 'tlcts/bin/tlcts.js'), ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The output less what depends on the clock: dates, durations and progress lines. */
function timeless(stdout: string): string {
  return stdout
    .split('\n')
    .filter((l) => !l.startsWith('Progress('))
    .map((l) =>
      l
        .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, 'DATE')
        .replace(/^Finished in \S+/, 'Finished in T')
        .replace(/in \S+ at DATE/, 'in T at DATE'),
    )
    .join('\n');
}

const ONE_THREAD = /exploring with one thread: (.*)\./;

/** A run whose queue spills to files (-queueMem 0) in a directory of its own, and what it left there. */
function spilling(args: string[]): { run: Run; left: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tlcts-workers-'));
  const run = tlcts([...args, '-queueMem', '0', '-metadir', dir]);
  return { run, left: fs.readdirSync(dir) };
}

/** Runs the model with one and with two workers; expects the same output, and two workers used. */
function sameWithTwoWorkers(args: string[]): Run {
  const one = tlcts([...args, '-workers', '1']);
  const two = tlcts([...args, '-workers', '2']);
  expect(two.stderr).not.toMatch(ONE_THREAD);
  expect(timeless(two.stdout)).toBe(timeless(one.stdout));
  expect(two.code).toBe(one.code);
  return two;
}

/** The figures of TLC's summary line and depth line. */
function figuresOf(stdout: string) {
  const m = /(\d+) states generated, (\d+) distinct states found, (\d+) states left on queue\./.exec(stdout);
  const depth = /The depth of the complete state graph search is (\d+)\./.exec(stdout);
  return m
    ? { generated: Number(m[1]), distinct: Number(m[2]), left: Number(m[3]), depth: Number(depth?.[1]) }
    : null;
}

// Success, invariant violations (one in an initial state), deadlock, evaluation errors, action
// properties, CONSTRAINT, ACTION_CONSTRAINT with VIEW, SYMMETRY, Print in ASSUME, a false ASSUME.
const CORPUS_MODELS = [
  'FunRec/FunRec',
  'StackQueue/TwoStacks',
  'Jugs/Jugs_3_5',
  'RoundRobin/RoundRobin_Starve',
  'Hanoi/Hanoi_Solve',
  'SetAlgebra/SetAlgebra_Naive',
  'WaitNotify/WaitNotify_One',
  'Philosophers/Philosophers',
  'Faulty/Faulty_Choose',
  'Faulty/Faulty_Domain',
  'Faulty/Faulty_Tail',
  'TLCOps/TLCOps_Assert',
  'Clock/Clock_Bad',
  'StackQueue/TwoStacks_Bug',
  'ConstraintEdge/ConstraintEdge_Beyond',
  'BoundedFifo/BoundedFifo',
  'Odometer/Odometer',
  'Odometer/Odometer_Far',
  'NaiveMutex/NaiveMutex',
  'TwoPhase/TwoPhase',
  'TLCOps/TLCOps',
  'Assumptions/Assumptions_False',
];

describe('-workers 2 reports what one thread reports', () => {
  const expected = loadCorpus();
  for (const name of CORPUS_MODELS) {
    it(name, () => {
      const e = expected.find((x) => x.model === name)!;
      const run = sameWithTwoWorkers([path.join(corpus, e.tla), '-config', path.join(corpus, e.cfg)]);
      expect(run.code).toBe(e.exitCode);
      const figures = figuresOf(run.stdout);
      if (e.distinctStates === null) expect(figures).toBeNull();
      else
        expect(figures).toEqual({
          generated: e.generatedStates,
          distinct: e.distinctStates,
          left: e.statesLeftOnQueue ?? figures?.left,
          depth: e.depth,
        });
    });
  }

  it('prints from the next-state action, a constraint and invariants (on new states) in order', () => {
    const run = sameWithTwoWorkers([path.join(specs, 'Workers/Workers.tla')]);
    expect(run.code).toBe(0);
    expect(figuresOf(run.stdout)).toEqual({ generated: 13757, distinct: 6404, left: 0, depth: 15 });
    const printed = run.stdout.split('\n').filter((l) => l.startsWith('<<"'));
    expect(printed.filter((l) => l.startsWith('<<"next"'))).toHaveLength(31);
    expect(printed.filter((l) => l.startsWith('<<"constraint"'))).toHaveLength(4);
    expect(printed.filter((l) => l.startsWith('<<"invariant"'))).toEqual(['<<"invariant", 14>>']);
  });

  it('stops where one thread stops, and rebuilds the trace alike, printing with the same level', () => {
    const run = sameWithTwoWorkers([
      path.join(specs, 'Workers/Workers.tla'),
      '-config',
      path.join(specs, 'Workers/Workers_Stop.cfg'),
    ]);
    expect(run.code).toBe(12);
    expect(figuresOf(run.stdout)).toEqual({ generated: 6154, distinct: 3511, left: 1370, depth: 11 });
    expect(run.stdout.split('\n').filter((l) => l.startsWith('<<"first step"'))).toEqual([
      '<<"first step", 1>>',
      '<<"first step", 11>>',
    ]);
  });

  it('recurses as deep as one thread (worker threads have the same stack)', () => {
    const run = sameWithTwoWorkers([path.join(specs, 'DeepRecursion/DeepRecursion.tla')]);
    expect(figuresOf(run.stdout)).toMatchObject({ distinct: 1, generated: 2 });
  });

  it('spills the queue to files and deletes them', () => {
    const { run, left } = spilling([path.join(specs, 'Workers/Workers.tla'), '-workers', '2']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/the queue of states spilled \d+ files/);
    expect(figuresOf(run.stdout)).toMatchObject({ distinct: 6404, generated: 13757 });
    expect(left).toEqual([]);
  });
});

describe('-workers falls back to one thread where results would differ, and says why', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'temporal properties',
      [path.join(corpus, 'Clock/Clock.tla'), '-config', path.join(corpus, 'Clock/Clock_Refines.cfg')],
      /temporal properties/,
    ],
    ['TLCGet of the counters', [path.join(specs, 'Workers/Counters.tla')], /TLCGet/],
    ['TLCSet', [path.join(specs, 'Workers/Registers.tla')], /TLCSet/],
    [
      '-dump',
      [
        path.join(corpus, 'Jugs/MCJugs.tla'),
        '-config',
        path.join(corpus, 'Jugs/Jugs_4_6.cfg'),
        '-dump',
        path.join(os.tmpdir(), 'tlcts-workers-graph.json'),
      ],
      /-dump/,
    ],
  ];
  for (const [what, args, reason] of cases) {
    it(what, () => {
      const one = tlcts([...args, '-workers', '1']);
      const two = tlcts([...args, '-workers', '2']);
      expect(two.stderr).toMatch(ONE_THREAD);
      expect(ONE_THREAD.exec(two.stderr)![1]).toMatch(reason);
      expect(one.stderr).not.toMatch(ONE_THREAD);
      expect(timeless(two.stdout)).toBe(timeless(one.stdout));
      expect(two.code).toBe(one.code);
    });
  }

  it('simulation', () => {
    const run = tlcts([
      path.join(corpus, 'Jugs/MCJugs.tla'),
      '-config',
      path.join(corpus, 'Jugs/Jugs_4_6.cfg'),
      '-simulate',
      'num=3',
      '-seed',
      '1',
      '-workers',
      '2',
    ]);
    expect(run.stderr).toContain('tlcts: -workers 2: simulating with one thread.');
  });

  it('takes auto as one worker per core, and refuses 0', () => {
    const jugs = [path.join(corpus, 'Jugs/MCJugs.tla'), '-config', path.join(corpus, 'Jugs/Jugs_3_5.cfg')];
    expect(tlcts([...jugs, '-workers', 'auto']).code).toBe(12);
    expect(tlcts([...jugs, '-workers', '0']).code).toBe(1);
  });
});

describe('a worker thread that fails', () => {
  it('ends the run with a message and exit code 255, and the spill directory is deleted', () => {
    const { run, left } = spilling([
      path.join(specs, 'Workers/Hungry.tla'),
      '-workers',
      '2',
      '-workerHeap',
      '32',
    ]);
    expect(run.code).toBe(255);
    expect(run.stderr).toContain(
      'a worker thread of the parallel search failed: it ran out of memory (its heap is limited to 32 MiB',
    );
    expect(left).toEqual([]);
  });
});

describe('decoding states another thread encoded', () => {
  it('sorts again the sets and functions of strings that thread interned in another order', () => {
    resetValueTables();
    intern('b');
    intern('a');
    const w = new StateWriter();
    w.state([setOf(['a', 'b']), new Record(['b', 'a'], [1, 2])]);
    expect(show(setOf(['a', 'b']))).toBe('{"b", "a"}');
    // This thread interned "x" while loading; it met "a" and "b" at run time, in the other order.
    resetValueTables();
    intern('x');
    const loadStrings = internedCount();
    intern('a');
    intern('b');
    const [set, rec] = new StateReader(w.view(), loadStrings).state();
    expect((set as FiniteSet).elems).toEqual(['a', 'b']);
    expect(show(rec!)).toBe('[a |-> 2, b |-> 1]');
    expect((set as FiniteSet).has('b')).toBe(true);
  });
});
