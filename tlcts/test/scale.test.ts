import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FingerprintStore } from '../src/check/fpset.js';
import { runCheck, type RunOptions } from '../src/check/run.js';
import { StateQueue, type QueuedState } from '../src/check/queue.js';
import { StateReader, StateWriter, decodeState, encodeState } from '../src/values/codec.js';
import { EvalError } from '../src/values/errors.js';
import {
  EMPTY_TUPLE,
  FcnValue,
  InfiniteSet,
  IntervalSet,
  LazyFcn,
  LazySet,
  Record,
  SetValue,
  Tuple,
  type Value,
  equals,
  fcnOf,
  hasModelValues,
  intern,
  modelValue,
  resetValueTables,
  setOf,
  show,
} from '../src/values/value.js';
import {
  StateHashes,
  fingerprintLeast,
  fingerprintValues,
  type Permutation,
} from '../src/values/fingerprint.js';
import { corpusDir, loadCorpus } from './support/corpus.js';
import { figures } from './support/figures.js';

/** The shape of a value: values of one shape can be compared, so they can share a set. */
type Shape =
  | { k: 'bool' | 'int' | 'bigInt' | 'str' | 'model' | 'interval' }
  | { k: 'set' | 'seq' | 'lazySet'; of: Shape }
  | { k: 'fcn' | 'lazyFcn'; key: Shape; of: Shape };

const shapeArb: fc.Arbitrary<Shape> = fc.letrec<{ shape: Shape }>((tie) => ({
  shape: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'shape' },
    fc.constantFrom<Shape>(
      { k: 'bool' },
      { k: 'int' },
      { k: 'bigInt' },
      { k: 'str' },
      { k: 'model' },
      { k: 'interval' },
    ),
    fc.tuple(fc.constantFrom('set', 'seq', 'lazySet'), tie('shape')).map(([k, of]) => ({ k, of }) as Shape),
    fc
      .tuple(fc.constantFrom('fcn', 'lazyFcn'), tie('shape'), tie('shape'))
      .map(([k, key, of]) => ({ k, key, of }) as Shape),
  ),
})).shape;

function valueArb(shape: Shape): fc.Arbitrary<Value> {
  switch (shape.k) {
    case 'bool':
      return fc.boolean();
    case 'int':
      return fc.integer();
    case 'bigInt':
      return fc.maxSafeInteger();
    case 'str':
      return fc.oneof(fc.constantFrom('a', 'idle', ''), fc.string({ unit: 'binary', maxLength: 6 }));
    case 'model':
      return fc.constantFrom('m1', 'm2', 'm3').map(modelValue);
    case 'interval':
      return fc
        .tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 }))
        .map(([lo, hi]) => new IntervalSet(lo, hi));
    case 'set':
      return fc.array(valueArb(shape.of), { maxLength: 4 }).map(setOf);
    case 'seq':
      return fc
        .array(valueArb(shape.of), { maxLength: 4 })
        .map((xs) => (xs.length === 0 ? EMPTY_TUPLE : new Tuple(xs)));
    case 'lazySet':
      return fc.array(valueArb(shape.of), { maxLength: 4 }).map((xs) => {
        const elems = setOf(xs).elems;
        return new LazySet(
          'SetEnumValue',
          'a lazy set',
          (v) => elems.some((e) => equals(e, v)),
          (fn) => elems.forEach(fn),
        );
      });
    case 'fcn':
    case 'lazyFcn': {
      const { key, of } = shape;
      return fc.array(valueArb(key), { maxLength: 4 }).chain((ks) => {
        const keys = setOf(ks).elems;
        return fc.array(valueArb(of), { minLength: keys.length, maxLength: keys.length }).map((vals) => {
          if (shape.k === 'fcn') return fcnOf(keys, vals);
          return new LazyFcn(setOf(keys.slice()), (k) => vals[keys.findIndex((x) => equals(x, k))]!);
        });
      });
    }
  }
}

const stateArb = fc.array(shapeArb.chain(valueArb), { maxLength: 4 });

const NAT = new InfiniteSet('Nat', (v) => typeof v === 'number' && v >= 0);

describe('state codec', () => {
  it('decodes every state to equal values, with the same fingerprint and printed the same', () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        const decoded = decodeState(encodeState(state));
        expect(decoded).toHaveLength(state.length);
        state.forEach((v, i) => {
          expect(equals(decoded[i]!, v)).toBe(true);
          expect(show(decoded[i]!)).toBe(show(v));
        });
        expect(fingerprintValues(decoded)).toEqual(fingerprintValues(state));
      }),
      { numRuns: 500 },
    );
  });

  it("carries a variable's fingerprint computed before encoding, which the decoded value then uses", () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        const expected = fingerprintValues(state);
        const decoded = decodeState(encodeState(state));
        // The decoded values hash with the fingerprints carried: a wrong one changes the state's.
        for (const v of decoded)
          if (v instanceof SetValue || v instanceof FcnValue) expect(v.knownFingerprint()).toBeDefined();
        expect(fingerprintValues(decoded)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("carries a variable's hashes under a symmetry, which the decoded value then uses", () => {
    const [m1, m2, m3] = ['m1', 'm2', 'm3'].map(modelValue);
    const perms: Permutation[] = [
      {
        map: new Map<Value, Value>([
          [m1!, m2!],
          [m2!, m1!],
        ]),
      },
      {
        map: new Map<Value, Value>([
          [m2!, m3!],
          [m3!, m2!],
        ]),
      },
    ];
    fc.assert(
      fc.property(stateArb, (state) => {
        const expected = fingerprintLeast(state, perms);
        const decoded = decodeState(encodeState(state));
        for (const v of decoded)
          if ((v instanceof SetValue || v instanceof FcnValue) && hasModelValues(v))
            expect(v.lanes).toBeDefined();
        expect(fingerprintLeast(decoded, perms)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("fingerprints a successor from its predecessor's sums as from scratch, with or without a symmetry", () => {
    const [m1, m2] = ['m1', 'm2'].map(modelValue);
    const perms: Permutation[] = [
      {
        map: new Map<Value, Value>([
          [m1!, m2!],
          [m2!, m1!],
        ]),
      },
    ];
    const pairArb = fc
      .tuple(stateArb, stateArb, fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }))
      .map(([s, fresh, keep]) => [s, s.map((v, i) => (keep[i] || fresh[i] === undefined ? v : fresh[i]!))]);
    const plain = new StateHashes();
    const symmetric = new StateHashes(perms);
    fc.assert(
      fc.property(fc.array(pairArb, { minLength: 1, maxLength: 4 }), (pairs) => {
        for (const [s, t] of pairs) {
          plain.from(s!);
          symmetric.from(s!);
          expect(plain.of(t!)).toEqual(fingerprintValues(t!));
          expect(symmetric.of(t!)).toEqual(fingerprintLeast(t!, perms));
        }
      }),
      { numRuns: 500 },
    );
    // A step changing a value changes the fingerprint; swapping the model values does not, under the symmetry.
    const s = [m1!, new Tuple([m1!, 1])];
    symmetric.from(s);
    plain.from(s);
    expect(symmetric.of([m2!, new Tuple([m2!, 1])])).toEqual(fingerprintLeast(s, perms));
    expect(plain.of([m2!, new Tuple([m2!, 1])])).not.toEqual(fingerprintValues(s));
    expect(plain.of([m1!, new Tuple([m1!, 2])])).not.toEqual(fingerprintValues(s));
    // Variable i holding j is not variable j holding i: the 120 orders of 0..4 hash apart.
    const orders = (xs: number[]): number[][] =>
      xs.length === 0 ? [[]] : xs.flatMap((x) => orders(xs.filter((y) => y !== x)).map((r) => [x, ...r]));
    const fps = orders([0, 1, 2, 3, 4]).map((o) => fingerprintValues(o).join(','));
    expect(new Set(fps).size).toBe(120);
  });

  it("writes the field names a block's records share once, and reads them back shared", () => {
    const names = ['e', 'w'];
    const record = (e: number, w: string) => new Record(names, [e, modelValue(w)]);
    const states = [0, 1, 2].map((i) => [record(i, 'w1'), new Tuple([record(i + 1, 'w2'), record(i, 'w1')])]);
    const writer = new StateWriter();
    states.forEach((st) => writer.state(st));
    const reader = new StateReader(writer.view().slice());
    const decoded = states.map(() => reader.state());
    decoded.forEach((st, i) => st.forEach((v, j) => expect(equals(v, states[i]![j]!)).toBe(true)));
    const records = decoded.flatMap((st) => [st[0], ...(st[1] as Tuple).elems]) as Record[];
    expect(new Set(records.map((r) => r.names)).size).toBe(1);
    expect(records[0]!.vals[1]).toBe(modelValue('w1'));
    // Each name is written once: a block of the same records with names of their own is longer.
    const apart = new StateWriter();
    states.forEach((st) =>
      apart.state(st.map((v) => (v instanceof Record ? new Record([...v.names], v.vals) : v))),
    );
    expect(apart.length).toBeGreaterThan(writer.length);
  });

  it("writes a variable holding the previous state's very value as Same, read back as one object", () => {
    // Each state takes each variable from the state before it (the same object) or anew.
    const blockArb = fc
      .array(fc.tuple(stateArb, fc.array(fc.boolean(), { minLength: 4, maxLength: 4 })), {
        minLength: 1,
        maxLength: 8,
      })
      .map((steps) =>
        steps.reduce<Value[][]>((states, [fresh, keep]) => {
          const prev = states[states.length - 1];
          const s = prev ? prev.map((v, i) => (keep[i] || fresh[i] === undefined ? v : fresh[i]!)) : fresh;
          return [...states, s];
        }, []),
      );
    fc.assert(
      fc.property(blockArb, (states) => {
        const writer = new StateWriter();
        states.forEach((st) => writer.state(st));
        const reader = new StateReader(writer.view().slice());
        const decoded = states.map(() => reader.state());
        expect(reader.done).toBe(true);
        decoded.forEach((st, i) => {
          expect(st.map(show)).toEqual(states[i]!.map(show));
          if (i === 0) return;
          st.forEach((v, j) => {
            if (states[i]![j] === states[i - 1]![j]) expect(v).toBe(decoded[i - 1]![j]);
          });
        });
        // Written apart (a block each), the states take at least as many bytes.
        const apart = states.reduce((n, st) => n + encodeState(st).length, 0);
        expect(apart).toBeGreaterThanOrEqual(writer.length);
      }),
      { numRuns: 300 },
    );
    const big = setOf([1, 2, 3, 4, 5, 6, 7, 8]);
    const writer = new StateWriter();
    writer.state([big, 1]);
    const first = writer.length;
    writer.state([big, 2]);
    expect(writer.length - first).toBeLessThan(5);
  });

  it('refuses a block whose first state refers to a previous one', () => {
    const bytes = encodeState([1, setOf([1])]);
    bytes[1] = 11;
    expect(() => decodeState(bytes)).toThrow(/no previous state/);
  });

  it('encodes strings and model values by their text, whatever this process interned first', () => {
    const state = () => ['héllo 🙂', modelValue('m1'), new Tuple(['x', 'y'])];
    const before = encodeState(state());
    resetValueTables();
    for (const s of ['y', 'x', 'm1', 'héllo 🙂']) intern(s);
    expect(encodeState(state())).toEqual(before);
  });

  it('refuses an infinite value, naming it', () => {
    expect(() => encodeState([NAT])).toThrow(EvalError);
    expect(() => encodeState([NAT])).toThrow(/infinite set Nat/);
    expect(() => encodeState([new Tuple([new LazyFcn(NAT, (n) => n)])])).toThrow(/infinite domain Nat/);
  });
});

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tlcts-scale-test-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A queue that spills nearly every block, small ones. */
function tinyQueue(): StateQueue {
  return new StateQueue({ budget: 100, blockBytes: 64, dir: scratch });
}

function stateOf(i: number): Value[] {
  return [i, `s${i % 7}`, new Tuple([i % 3 === 0, setOf([i, i + 1])])];
}

describe('state queue', () => {
  it('gives states back in FIFO order across spill files, deleting each as it is read back', () => {
    const q = tinyQueue();
    const expected: QueuedState[] = [];
    const got: QueuedState[] = [];
    for (let i = 0; i < 3000; i++) {
      const item = { id: i, level: 1 + (i >> 8), s: stateOf(i) };
      q.push(item);
      expected.push(item);
      if (i % 3 === 2) got.push(q.shift()!);
    }
    expect(q.size).toBe(2000);
    expect(q.spillFiles).toBeGreaterThan(10);
    const dir = q.spillDir!;
    expect(path.dirname(dir)).toBe(scratch);
    expect(fs.readdirSync(dir).length).toBeGreaterThan(0);
    for (let item = q.shift(); item; item = q.shift()) got.push(item);
    expect(q.size).toBe(0);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(got.map((g) => [g.id, g.level, g.s.map(show)])).toEqual(
      expected.map((e) => [e.id, e.level, e.s.map(show)]),
    );
    q.close();
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('keeps FIFO order under any interleaving of pushes and shifts', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 400 }), (ops) => {
        const q = tinyQueue();
        const model: number[] = [];
        let next = 0;
        for (const push of ops) {
          if (push) {
            q.push({ id: next, level: 1, s: stateOf(next) });
            model.push(next++);
          } else expect(q.shift()?.id).toBe(model.shift());
          expect(q.size).toBe(model.length);
        }
        q.close();
      }),
    );
  });

  it('deletes the spill directory with the states left in it', () => {
    const q = tinyQueue();
    for (let i = 0; i < 100; i++) q.push({ id: i, level: 1, s: stateOf(i) });
    expect(fs.readdirSync(q.spillDir!).length).toBeGreaterThan(0);
    q.close();
    expect(fs.existsSync(q.spillDir!)).toBe(false);
  });
});

describe('checking with the queue or the fingerprints on disk', () => {
  const corpus = loadCorpus();
  // Queue blocks small enough for several to spill (AltBit's queue never holds many states); a
  // fingerprint table merged into its file whenever it would grow (SlidingPuzzle: five merges).
  const runs: [string, Pick<RunOptions, 'queue' | 'fingerprints'>][] = [
    ['Increments/Increments_Race', { queue: { budget: 0, blockBytes: 4096, dir: scratch } }],
    ['AltBit/AltBit_WF', { queue: { budget: 0, blockBytes: 64, dir: scratch } }],
    ['SlidingPuzzle/SlidingPuzzle_Solve', { fingerprints: { budget: 0, dir: scratch } }],
  ];
  for (const [name, options] of runs) {
    it(`${name} (${Object.keys(options).join(', ')}): TLC's figures, and the counterexample of an in-memory run`, () => {
      const e = corpus.find((x) => x.model === name)!;
      const files = { tlaFile: path.join(corpusDir(), e.tla), cfgFile: path.join(corpusDir(), e.cfg) };
      const inMemory = runCheck(files).result;
      const { result, explorer } = runCheck({ ...files, ...options });
      expect(figures(result)).toEqual({
        verdict: e.verdict,
        exitCode: e.exitCode,
        distinct: e.distinctStates,
        generated: e.generatedStates,
        depth: e.depth,
      });
      expect(result.statesLeftOnQueue).toBe(e.statesLeftOnQueue);
      expect(result.trace).toHaveLength(e.traceLength!);
      const shown = (r: typeof result) => r.trace!.map((t) => [t.action?.name, t.state.map(show)]);
      expect(shown(result)).toEqual(shown(inMemory));
      expect(result.lasso).toEqual(inMemory.lasso);
      if (options.queue) {
        expect(explorer!.queue.spillFiles).toBeGreaterThan(0);
        expect(fs.existsSync(explorer!.queue.spillDir!)).toBe(false);
      }
      if (options.fingerprints) expect(explorer!.fps.flushes).toBeGreaterThan(1);
      expect(fs.readdirSync(scratch).filter((f) => f.startsWith('tlcts-'))).toEqual([]);
    });
  }
});

describe('fingerprint store', () => {
  it('finds every fingerprint it was given, in memory or on disk, whatever is added when it flushes', () => {
    // Keys from a small universe, so that many puts repeat one, some right when the table is merged.
    const key = fc.integer({ min: 0, max: 120_000 });
    fc.assert(
      fc.property(fc.array(key, { minLength: 40_000, maxLength: 80_000 }), (keys) => {
        const store = new FingerprintStore({ budget: 0, dir: scratch });
        const ids = new Map<number, number>();
        try {
          for (const k of keys) {
            const hi = Math.imul(k, 0x9e3779b1);
            const lo = k ^ 0x5bd1e995;
            const got = store.put(hi, lo, store.size);
            expect(got).toBe(ids.get(k) ?? -1);
            if (got < 0) ids.set(k, store.size - 1);
          }
          expect(store.size).toBe(ids.size);
          const some = [...ids.values()].slice(0, 50);
          const fps = store.fingerprintsOf(some);
          for (const [k, id] of [...ids].slice(0, 50))
            expect(fps.get(id)).toEqual([Math.imul(k, 0x9e3779b1), k ^ 0x5bd1e995]);
        } finally {
          store.close();
        }
      }),
      { numRuns: 3 },
    );
  });
});

describe('tlcts -queueMem, -fpmem and -metadir', () => {
  it('spills the queue and the fingerprints under -metadir, deleted at the end, with the same figures (two workers)', () => {
    const metadir = path.join(scratch, 'meta');
    const e = loadCorpus().find((x) => x.model === 'SlidingPuzzle/SlidingPuzzle_Solve')!;
    const r = spawnSync(
      process.execPath,
      [
        path.resolve(import.meta.dirname, '../bin/tlcts.js'),
        path.join(corpusDir(), e.tla),
        '-config',
        path.join(corpusDir(), e.cfg),
        '-queueMem',
        '0',
        '-fpmem',
        '0',
        '-workers',
        '2',
        '-metadir',
        metadir,
      ],
      { encoding: 'utf8' },
    );
    expect(r.status).toBe(e.exitCode);
    expect(r.stdout).toContain(
      `${e.generatedStates} states generated, ${e.distinctStates} distinct states found, ${e.statesLeftOnQueue} states left on queue.`,
    );
    expect(r.stderr).not.toContain('one thread');
    expect(r.stderr).toMatch(/the queue of states spilled \d+ files/);
    expect(r.stderr).toContain(`the fingerprints of ${e.distinctStates} states went to disk`);
    expect(fs.readdirSync(metadir)).toEqual([]);
  });
});
