import { describe, expect, it } from 'vitest';
import { ROOT_FRAME, type Ctx, type OpValue } from '../src/eval/runtime.js';
import type { BuiltinHost, BuiltinModule } from '../src/eval/builtin.js';
import { BAGS } from '../src/stdlib/bags.js';
import { CORE } from '../src/stdlib/core.js';
import { FINITESETS } from '../src/stdlib/finitesets.js';
import { STANDARD_MODULES } from '../src/stdlib/index.js';
import { INTEGERS } from '../src/stdlib/integers.js';
import { NATURALS } from '../src/stdlib/naturals.js';
import { SEQUENCES } from '../src/stdlib/sequences.js';
import { TLC } from '../src/stdlib/tlc.js';
import { TLCEXT } from '../src/stdlib/tlcext.js';
import { EvalError } from '../src/values/errors.js';
import {
  EMPTY_SET,
  EMPTY_TUPLE,
  FiniteSet,
  IntervalSet,
  LazyFcn,
  type SetValue,
  Tuple,
  equals,
  fcnFromPairs,
  modelValue,
  recordOf,
  setOf,
  show,
  type Value,
} from '../src/values/value.js';

const ctx: Ctx = { s: null, t: null, f: ROOT_FRAME };

class Host implements BuiltinHost {
  lines: string[] = [];
  regs = new Map<Value, Value>();
  print(line: string): void {
    this.lines.push(line);
  }
  tlcGet(key: Value): Value {
    const v = this.regs.get(key);
    if (v === undefined) throw new EvalError(`TLCGet(${show(key)}) was undefined.`, 255);
    return v;
  }
  tlcSet(key: Value, v: Value): void {
    this.regs.set(key, v);
  }
  trace(): Value {
    throw new EvalError('no behaviour here', 255);
  }
  counterExample(): Value {
    throw new EvalError('no violation here', 255);
  }
}

let host = new Host();

function call(mod: BuiltinModule, name: string, ...args: (Value | OpValue)[]): Value {
  const b = mod.ops.get(name);
  if (!b) throw new Error(`${mod.name} has no ${name}`);
  expect(b.arity).toBe(args.length);
  return b.fn(args, host, ctx);
}

const core = (name: string, ...args: Value[]) => call(CORE, name, ...args);
const int = (name: string, ...args: Value[]) => call(INTEGERS, name, ...args);
const nat = (name: string, ...args: Value[]) => call(NATURALS, name, ...args);
const seq = (name: string, ...args: (Value | OpValue)[]) => call(SEQUENCES, name, ...args);
const bag = (name: string, ...args: (Value | OpValue)[]) => call(BAGS, name, ...args);
const tlc = (name: string, ...args: (Value | OpValue)[]) => call(TLC, name, ...args);

/** The EvalError that f throws. */
function error(f: () => unknown): EvalError {
  try {
    f();
  } catch (e) {
    if (e instanceof EvalError) return e;
    throw e;
  }
  throw new Error('expected an EvalError');
}

function expectError(f: () => unknown, message: string, exitCode = 75): void {
  const e = error(f);
  expect(e.message).toBe(message);
  expect(e.exitCode).toBe(exitCode);
}

const set = (...vs: Value[]) => setOf(vs);
const tup = (...vs: Value[]) => new Tuple(vs);
const rec = (fields: { [name: string]: Value }) =>
  recordOf(Object.entries(fields).map(([name, value]) => ({ name, value })));
const lam =
  (f: (...xs: Value[]) => Value): OpValue =>
  (args) =>
    f(...args);
const eq = (a: Value, b: Value) => expect(equals(a, b), `${show(a)} = ${show(b)}`).toBe(true);
const nat0 = nat('Nat') as SetValue;
const int0 = int('Int') as SetValue;
const asSet = (v: Value) => v as SetValue;

function javaError(method: string, cls: string): string {
  return (
    'Attempted to apply the operator overridden by the Java method\n' +
    `${method},\nbut it produced the following error:\nCannot cast tlc2.value.impl.${cls} to tlc2.value.impl.IntValue`
  );
}

describe('CORE', () => {
  it('SUBSET enumerates by size, then lexicographically, and sizes without enumerating', () => {
    const p = asSet(core('SUBSET', set(1, 2, 3)));
    expect(p.size()).toBe(8);
    expect(p.toArray().map(show)).toEqual([
      '{}',
      '{1}',
      '{2}',
      '{3}',
      '{1, 2}',
      '{1, 3}',
      '{2, 3}',
      '{1, 2, 3}',
    ]);
    expect(p.has(set(1, 3))).toBe(true);
    expect(p.has(set(1, 4))).toBe(false);
    eq(core('SUBSET', EMPTY_SET), set(EMPTY_SET));
    expect(show(core('SUBSET', set(1, 2)))).toBe('{{}, {1}, {2}, {1, 2}}');
    expectError(
      () => p.has(1),
      'Attempted to check if the non-enumerable value\n1\nis element of\n' + show(p),
    );
  });

  it('SUBSET of an infinite set has membership only', () => {
    const p = asSet(core('SUBSET', nat0));
    expect(p.isFinite()).toBe(false);
    expect(p.has(set(0, 5))).toBe(true);
    expect(p.has(set(-1))).toBe(false);
    expect(show(p)).toBe('SUBSET Nat');
    expectError(
      () => p.toArray(),
      'Attempted to compute the value of an expression of form\nSUBSET S, but S is a non-enumerable value:\nNat',
    );
    expectError(
      () => asSet(core('SUBSET', new IntervalSet(1, 40))).size(),
      'Overflow when computing the number of elements in:\nSUBSET (1..40)',
    );
    // Sized before it is enumerated, as TLC does: the inner SUBSET overflows at once (no 2^32 walk).
    expectError(
      () => asSet(core('SUBSET', core('SUBSET', new IntervalSet(1, 32)))).toArray(),
      'Overflow when computing the number of elements in:\nSUBSET (1..32)',
    );
  });

  it('UNION is eager over explicit sets and lazy otherwise', () => {
    const u = core('UNION', set(set(1, 2), set(2, 3)));
    expect(u).toBeInstanceOf(FiniteSet);
    eq(u, set(1, 2, 3));
    const lazy = asSet(core('UNION', set(new IntervalSet(1, 2), set(5))));
    expect(lazy.has(5)).toBe(true);
    expect(lazy.has(3)).toBe(false);
    // S is enumerated in its normalized order, where the smaller set {5} comes first.
    expect(lazy.toArray()).toEqual([5, 1, 2]);
    eq(lazy, set(1, 2, 5));
    const inf = asSet(core('UNION', set(nat0)));
    expect(inf.has(1)).toBe(true);
    expect(inf.has(-2)).toBe(false);
    expect(inf.isFinite()).toBe(false);
    // {{1}, {"a"}} cannot be normalized; TLC's UNION meets "a" when it deduplicates with equality.
    const mixed = new FiniteSet([set(1), set('a')]);
    expectError(() => core('UNION', mixed), 'Attempted to check equality of string "a" with non-string:\n1');
  });

  it('DOMAIN', () => {
    eq(core('DOMAIN', tup('a', 'b')), new IntervalSet(1, 2));
    eq(core('DOMAIN', rec({ a: 1, b: 2 })), set('a', 'b'));
    eq(core('DOMAIN', new LazyFcn(nat0, (x) => x)), nat0);
    expectError(
      () => core('DOMAIN', 3),
      'Attempted to apply the operator DOMAIN to a non-function\n(an integer)\n',
    );
    expectError(
      () => core('DOMAIN', set(1)),
      'Attempted to apply the operator DOMAIN to a non-function\n(a set of the form {e1, ... ,eN})\n',
    );
  });

  it('\\cup', () => {
    const u = core('\\cup', set(1, 2), set(2, 3));
    expect(u).toBeInstanceOf(FiniteSet);
    eq(u, set(1, 2, 3));
    eq(core('\\cup', new IntervalSet(1, 3), set(5)), set(1, 2, 3, 5));
    expect(core('\\cup', EMPTY_SET, 7)).toBe(7);
    const s = asSet(core('\\cup', nat0, set(-1)));
    expect([s.has(-1), s.has(5), s.has(-2)]).toEqual([true, true, false]);
    expect(s.isFinite()).toBe(false);
    expect(show(s)).toBe('{-1} \\cup Nat');
    expectError(
      () => s.toArray(),
      'Attempted to enumerate S \\cup T when S:\n{-1}\nand T:\nNat\nare not both enumerable',
    );
    // Corpus Faulty_Member: the union is built by asking the interval about "none".
    expectError(
      () => core('\\cup', new IntervalSet(0, 5), set('none')),
      'Attempted to check if the value:\n"none"\nis in the integer interval 0..5',
    );
    // Unions of lazy sets enumerate both operands, as TLC does, and normalize when sized.
    const l = asSet(core('\\cup', core('SUBSET', set(1)), core('SUBSET', set(2))));
    expect(l.toArray().map(show)).toEqual(['{}', '{1}', '{}', '{2}']);
    expect(l.size()).toBe(3);
    expect(l.isFinite()).toBe(true);
  });

  it('\\cap', () => {
    eq(core('\\cap', set(1, 2, 3), set(2, 3, 4)), set(2, 3));
    const r = core('\\cap', nat0, set(-1, 0, 1));
    expect(r).toBeInstanceOf(FiniteSet);
    eq(r, set(0, 1));
    const s = asSet(core('\\cap', int0, nat0));
    expect([s.has(3), s.has(-3)]).toEqual([true, false]);
    expectError(() => s.isFinite(), 'Attempted to check if the set Int \\cap Natis finite.');
    expectError(
      () => s.toArray(),
      'Attempted to enumerate S \\cap T when neither S:\nInt\nnor T:\nNat\nis enumerable',
    );
    const f = asSet(core('\\cap', core('SUBSET', set(1, 2)), core('SUBSET', nat0)));
    expect(f.size()).toBe(4);
  });

  it('\\ (set difference)', () => {
    eq(core('\\', set(1, 2, 3), set(2)), set(1, 3));
    eq(core('\\', new IntervalSet(1, 4), nat0), EMPTY_SET);
    const s = asSet(core('\\', int0, set(0)));
    expect([s.has(1), s.has(0), s.has(-1)]).toEqual([true, false, true]);
    expect(s.isFinite()).toBe(false);
    expect(show(s)).toBe('Int \\ {0}');
    expectError(() => s.toArray(), 'Attempted to enumerate S \\ T when S:\nInt\nis not enumerable.');
    const d = asSet(core('\\', core('SUBSET', set(1, 2)), set(EMPTY_SET)));
    expect(d.size()).toBe(3);
    expectError(
      () => asSet(core('\\', int0, nat0)).isFinite(),
      'Attempted to check if the set Int \\ Natis finite.',
    );
  });

  it('\\subseteq', () => {
    expect(core('\\subseteq', set(1, 2), new IntervalSet(1, 3))).toBe(true);
    expect(core('\\subseteq', new IntervalSet(1, 3), new IntervalSet(0, 5))).toBe(true);
    expect(core('\\subseteq', set(1, 4), new IntervalSet(1, 3))).toBe(false);
    expect(core('\\subseteq', set(1, 4), nat0)).toBe(true);
    expect(core('\\subseteq', core('SUBSET', set(1)), core('SUBSET', set(1, 2)))).toBe(true);
    expect(core('\\subseteq', core('SUBSET', set(1, 3)), core('SUBSET', set(1, 2)))).toBe(false);
    expect(core('\\subseteq', core('SUBSET', set(1)), core('SUBSET', nat0))).toBe(true);
    expectError(
      () => core('\\subseteq', nat0, int0),
      'Attempted to evaluate an expression of form S \\subseteq T, but S was not enumerable.\n',
    );
  });

  it('BOOLEAN and STRING', () => {
    eq(core('BOOLEAN'), set(false, true));
    const s = asSet(core('STRING'));
    expect([s.has('x'), s.has(modelValue('m')), s.isFinite()]).toEqual([true, false, false]);
    expectError(() => s.has(1), 'Attempted to check if the value:\n1\nis an element of STRING.', 255);
  });

  it('has no \\subset, \\supset or \\supseteq: TLA+ does not predefine them', () => {
    for (const op of ['\\subset', '\\supset', '\\supseteq']) expect(CORE.ops.has(op)).toBe(false);
  });
});

describe('Naturals and Integers', () => {
  it('computes with 32-bit overflow errors', () => {
    expect(int('+', 2, 3)).toBe(5);
    expect(int('-', 3, 5)).toBe(-2);
    expect(nat('-', 3, 5)).toBe(-2);
    expect(int('*', -4, 5)).toBe(-20);
    expect(Object.is(int('*', -3, 0), 0)).toBe(true);
    expectError(() => int('+', 2147483647, 1), 'Overflow when computing 2147483647+1', 255);
    expectError(() => int('-', -2147483648, 1), 'Overflow when computing -2147483648-1', 255);
    expectError(() => nat('*', 65536, 65536), 'Overflow when computing 65536*65536', 255);
    expect(int('*', 46340, 46340)).toBe(2147395600);
  });

  it('\\div rounds down in both modules (TLA+ floor division)', () => {
    for (const m of [int, nat]) {
      expect(m('\\div', 7, 2)).toBe(3);
      expect(m('\\div', -7, 2)).toBe(-4);
      expect(m('\\div', 7, -2)).toBe(-4);
      expect(m('\\div', -7, -2)).toBe(3);
      expect(m('\\div', -6, 3)).toBe(-2);
      expectError(() => m('\\div', 1, 0), 'The second argument of \\div is 0.', 255);
    }
    expect(int('\\div', -1, 2)).toBe(-1);
    expect(nat('\\div', -1, 2)).toBe(-1);
    for (const m of [int, nat]) {
      expectError(() => m('\\div', -2147483648, -1), 'Overflow when computing -2147483648 \\div -1', 255);
    }
  });

  it('% is in 0..b-1', () => {
    expect(int('%', 7, 3)).toBe(1);
    expect(int('%', -7, 3)).toBe(2);
    expect(Object.is(int('%', -6, 3), 0)).toBe(true);
    expectError(
      () => int('%', 7, 0),
      'The second argument of % should be a positive number, but instead it is:\n0',
      255,
    );
    expectError(
      () => nat('%', 7, -2),
      'The second argument of % should be a positive number, but instead it is:\n-2',
      255,
    );
  });

  it('^', () => {
    expect(int('^', 2, 10)).toBe(1024);
    expect(int('^', -3, 3)).toBe(-27);
    expect(int('^', -2, 4)).toBe(16);
    expect(int('^', 5, 0)).toBe(1);
    expect(int('^', 1, 2147483647)).toBe(1);
    expect(int('^', -1, 2147483647)).toBe(-1);
    expect(int('^', 0, 5)).toBe(0);
    expect(int('^', -2, 31)).toBe(-2147483648);
    expectError(() => int('^', 0, 0), '0^0 is undefined.', 255);
    expectError(() => int('^', 2, 31), 'Overflow when computing 2^31', 255);
    expectError(
      () => int('^', 2, -1),
      'The second argument of ^ should be a natural number, but instead it is:\n-1',
      255,
    );
  });

  it('.. and comparisons', () => {
    const r = int('..', 1, 3);
    expect(r).toBeInstanceOf(IntervalSet);
    eq(r, set(1, 2, 3));
    eq(int('..', 3, 1), EMPTY_SET);
    expect([int('<', 1, 2), int('>', 1, 2), int('<=', 2, 2), int('>=', 1, 2)]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expectError(
      () => int('<', 'a', 1),
      'The first argument of < should be an integer, but instead it is:\n"a"',
      255,
    );
    expectError(
      () => nat('>=', 1, TRUE),
      'The second argument of > should be an integer, but instead it is:\nTRUE',
      255,
    );
    expectError(
      () => int('>=', 1, TRUE),
      'The second argument of >= should be an integer, but instead it is:\nTRUE',
      255,
    );
  });

  it('reports non-integer arguments as the failed Java method call', () => {
    const plus = (cls: string) =>
      `public static tlc2.value.impl.IntValue tlc2.module.${cls}.Plus(tlc2.value.impl.IntValue,tlc2.value.impl.IntValue)`;
    expectError(() => int('+', 1, 'a'), javaError(plus('Integers'), 'StringValue'));
    expectError(() => nat('+', true, 'a'), javaError(plus('Naturals'), 'BoolValue'));
    expectError(
      () => int('..', 1, set(2)),
      javaError(
        'public static tlc2.value.impl.IntervalValue tlc2.module.Integers.DotDot(tlc2.value.impl.IntValue,tlc2.value.impl.IntValue)',
        'SetEnumValue',
      ),
    );
    expectError(
      () => int('-.', tup()),
      javaError(
        'public static tlc2.value.impl.IntValue tlc2.module.Integers.Neg(tlc2.value.impl.IntValue)',
        'TupleValue',
      ),
    );
  });

  it('unary minus, Nat and Int', () => {
    expect(int('-.', 5)).toBe(-5);
    expect(Object.is(int('-.', 0), 0)).toBe(true);
    expectError(() => int('-.', -2147483648), 'Overflow when computing --2147483648', 255);
    expect([nat0.has(0), nat0.has(-1), nat0.has(modelValue('m')), nat0.isFinite()]).toEqual([
      true,
      false,
      false,
      false,
    ]);
    expect([int0.has(-7), int0.has(modelValue('m'))]).toEqual([true, false]);
    expectError(() => nat0.has('a'), 'Attempted to check if the value:\n"a"\nis an element of Nat.', 255);
    expectError(() => int0.has(set()), 'Attempted to check if the value:\n{}\nis an element of Int.', 255);
    expect(show(nat0)).toBe('Nat');
  });
});

const TRUE = true;

describe('Sequences', () => {
  it('Seq(S)', () => {
    const s = asSet(seq('Seq', set(1, 2)));
    expect([s.has(tup(1, 2, 1)), s.has(tup(3)), s.has(EMPTY_TUPLE), s.has(modelValue('m'))]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(show(s)).toBe('Seq({1, 2})');
    expectError(() => s.has(1), 'Attempted to check if the value:\n1\nis an element of Seq({1, 2}).', 255);
    expect(asSet(seq('Seq', nat0)).has(tup(0, 7))).toBe(true);
  });

  it('Len, Head, Tail, Append, \\o on sequences and strings', () => {
    expect(seq('Len', tup(1, 2))).toBe(2);
    expect(seq('Len', 'abc')).toBe(3);
    expect(seq('Len', new LazyFcn(new IntervalSet(1, 3), (i) => i))).toBe(3);
    expectError(
      () => seq('Len', set(1)),
      'The argument of Len should be a sequence, but instead it is:\n{1}',
      255,
    );
    expect(seq('Head', tup(1, 2))).toBe(1);
    expectError(() => seq('Head', EMPTY_TUPLE), 'Attempted to apply Head to the empty sequence.', 255);
    expectError(
      () => seq('Head', 'ab'),
      'The argument of Head should be a sequence, but instead it is:\n"ab"',
      255,
    );
    eq(seq('Tail', tup(1, 2)), tup(2));
    expect(seq('Tail', 'abc')).toBe('bc');
    // Corpus Faulty_Tail: exit code 255.
    expectError(() => seq('Tail', EMPTY_TUPLE), 'Attempted to apply Tail to the empty sequence.', 255);
    expectError(() => seq('Tail', ''), 'Attempted to apply Tail to the empty sequence.', 255);
    eq(seq('Append', tup(1), 2), tup(1, 2));
    expectError(
      () => seq('Append', EMPTY_SET, 1),
      'Evaluating an expression of the form Append(s, v) when s is not a sequence:\n{}',
      255,
    );
    eq(seq('\\o', tup(1), tup(2, 3)), tup(1, 2, 3));
    eq(seq('\\o', EMPTY_TUPLE, tup(2)), tup(2));
    expect(seq('\\o', 'ab', 'cd')).toBe('abcd');
    expectError(
      () => seq('\\o', 'ab', tup(1)),
      'Evaluating an expression of the form t \\o s when s is not a string:\n<<1>>',
      255,
    );
    expectError(
      () => seq('\\o', 3, tup(1)),
      'Evaluating an expression of the form s \\o t when s is not a sequence:\n3',
      255,
    );
    expectError(
      () => seq('\\o', tup(1), 3),
      'Evaluating an expression of the form t \\o s when s is not a sequence:\n3',
      255,
    );
  });

  it('SubSeq', () => {
    const s = tup(1, 2, 3);
    eq(seq('SubSeq', s, 2, 3), tup(2, 3));
    eq(seq('SubSeq', s, 3, 2), EMPTY_TUPLE);
    expect(seq('SubSeq', 'hello', 2, 4)).toBe('ell');
    expect(seq('SubSeq', 'hello', 4, 2)).toBe('');
    expectError(
      () => seq('SubSeq', s, 0, 1),
      'The second argument of SubSeq must be in the domain of its first argument:\n<<1, 2, 3>>\n, but instead it is\n0',
      255,
    );
    expectError(
      () => seq('SubSeq', s, 1, 4),
      'The third argument of SubSeq must be in the domain of its first argument:\n<<1, 2, 3>>\n, but instead it is\n4',
      255,
    );
    expectError(
      () => seq('SubSeq', s, 'a', 4),
      'The second argument of SubSeq should be a natural number, but instead it is:\n"a"',
      255,
    );
    expectError(
      () => seq('SubSeq', set(), 1, 1),
      'The first argument of SubSeq should be a sequence, but instead it is:\n{}',
      255,
    );
  });

  it('SelectSeq', () => {
    const even = lam((x) => (x as number) % 2 === 0);
    eq(seq('SelectSeq', tup(1, 2, 3, 4), even), tup(2, 4));
    eq(seq('SelectSeq', EMPTY_TUPLE, even), EMPTY_TUPLE);
    expectError(
      () =>
        seq(
          'SelectSeq',
          tup(1),
          lam((x) => x),
        ),
      'The second argument of SelectSeq should be a boolean-valued operator, but instead it is:\n<Operator LAMBDA>',
      255,
    );
    expect(SEQUENCES.ops.get('SelectSeq')!.opParams).toEqual([1]);
  });
});

describe('FiniteSets', () => {
  const fs = (name: string, v: Value) => call(FINITESETS, name, v);
  it('IsFiniteSet and Cardinality', () => {
    expect(fs('IsFiniteSet', set(1))).toBe(true);
    expect(fs('IsFiniteSet', nat0)).toBe(false);
    expect(fs('IsFiniteSet', core('SUBSET', nat0))).toBe(false);
    expectError(() => fs('IsFiniteSet', 3), 'Attempted to check if the integer 3 is a finite set.');
    expect(fs('Cardinality', set(1, 2))).toBe(2);
    expect(fs('Cardinality', new IntervalSet(1, 10))).toBe(10);
    expect(fs('Cardinality', core('SUBSET', new IntervalSet(1, 3)))).toBe(8);
    expectError(() => fs('Cardinality', nat0), 'Attempted to compute cardinality of the value\nNat', 255);
    expectError(() => fs('Cardinality', tup(1)), 'Attempted to compute cardinality of the value\n<<1>>', 255);
  });
});

describe('Bags', () => {
  const B = bag('SetToBag', set('a', 'b'));
  const BB = bag('\\oplus', B, B);
  it('builds and inspects bags', () => {
    eq(B, rec({ a: 1, b: 1 }));
    expect([bag('IsABag', B), bag('IsABag', tup(0)), bag('IsABag', 3)]).toEqual([true, false, false]);
    eq(bag('BagToSet', B), set('a', 'b'));
    eq(bag('EmptyBag'), EMPTY_TUPLE);
    expect([bag('BagIn', 'a', B), bag('BagIn', 'c', B)]).toEqual([true, false]);
    expect([bag('CopiesIn', 'a', BB), bag('CopiesIn', 'c', BB)]).toEqual([2, 0]);
    expect(bag('BagCardinality', BB)).toBe(4);
    expectError(
      () => bag('BagCardinality', tup(0)),
      'Applying BagCardinality to the following value,\nwhich is not a bag:\n<<0>>',
      255,
    );
    expectError(
      () => bag('BagToSet', 3),
      'Applying BagToSet to the following value,\nwhich is not a function with a finite domain:\n3',
      255,
    );
    expect(error(() => bag('BagIn', 1, 5)).exitCode).toBe(255);
  });

  it('combines bags', () => {
    eq(BB, rec({ a: 2, b: 2 }));
    eq(bag('\\oplus', B, fcnFromPairs([['c', 3]])), rec({ a: 1, b: 1, c: 3 }));
    eq(bag('\\ominus', BB, B), B);
    eq(bag('\\ominus', B, BB), EMPTY_TUPLE);
    eq(bag('BagUnion', set(B, bag('SetToBag', set('a')))), rec({ a: 2, b: 1 }));
    eq(bag('BagUnion', EMPTY_SET), EMPTY_TUPLE);
    expect([bag('\\sqsubseteq', B, BB), bag('\\sqsubseteq', BB, B)]).toEqual([true, false]);
    expectError(
      () => bag('\\oplus', tup(0), B),
      'The first argument of (+) should be a bag, but instead it is:\n<<0>>',
      255,
    );
    expectError(
      () => bag('BagUnion', set(set(1), set(2))),
      'Attempted to apply BagUnion to the following set, whose\nelement is not a bag:\n{{1}, {2}}',
      255,
    );
  });

  it('SubBag and BagOfAll', () => {
    const sub = asSet(bag('SubBag', rec({ a: 2, b: 1 })));
    expect(sub.size()).toBe(6);
    expect(sub.has(rec({ a: 2 }))).toBe(true);
    expect(sub.has(EMPTY_TUPLE)).toBe(true);
    expect(sub.has(rec({ b: 2 }))).toBe(false);
    const parity = lam((x) => (x as number) % 2);
    eq(
      bag('BagOfAll', parity, tup(1, 2, 1)),
      fcnFromPairs([
        [0, 2],
        [1, 2],
      ]),
    );
    expect(BAGS.ops.get('BagOfAll')!.opParams).toEqual([0]);
  });
});

describe('TLC', () => {
  it(':> and @@', () => {
    eq(tlc(':>', 1, 'a'), tup('a'));
    eq(tlc(':>', 'a', 1), rec({ a: 1 }));
    const f = tlc('@@', tlc(':>', 1, 'a'), tlc(':>', 3, 'c'));
    eq(core('DOMAIN', f), set(1, 3));
    eq(tlc('@@', tlc(':>', 1, 'a'), tlc(':>', 1, 'z')), tup('a'));
    eq(tlc('@@', tlc(':>', 1, 'a'), tlc(':>', 2, 'b')), tup('a', 'b'));
    expectError(
      () => tlc('@@', tlc(':>', 1, 1), tlc(':>', 'a', 2)),
      'Attempted to check equality of string "a" with non-string:\n1',
    );
    expectError(
      () => tlc('@@', 3, tup()),
      'The first argument of @@ should be a function, but instead it is:\n3',
      255,
    );
  });

  it('SortSeq and Permutations', () => {
    const lt = lam((x, y) => (x as number) < (y as number));
    const gt = lam((x, y) => (x as number) > (y as number));
    eq(tlc('SortSeq', tup(3, 1, 2), lt), tup(1, 2, 3));
    eq(tlc('SortSeq', tup(3, 1, 2), gt), tup(3, 2, 1));
    const byKey = lam((x, y) => ((x as Tuple).elems[0] as number) < ((y as Tuple).elems[0] as number));
    eq(
      tlc('SortSeq', tup(tup(2, 'a'), tup(1, 'b'), tup(2, 'c')), byKey),
      tup(tup(1, 'b'), tup(2, 'a'), tup(2, 'c')),
    );
    expectError(
      () =>
        tlc(
          'SortSeq',
          tup(2, 1),
          lam(() => 0),
        ),
      'The second argument of SortSeq should be a boolean function, but instead it is:\n0',
      255,
    );
    expect(asSet(tlc('Permutations', new IntervalSet(1, 3))).size()).toBe(6);
    const xy = tlc('Permutations', set('x', 'y'));
    eq(xy, set(rec({ x: 'x', y: 'y' }), rec({ x: 'y', y: 'x' })));
    eq(tlc('Permutations', EMPTY_SET), set(EMPTY_TUPLE));
    expectError(
      () => tlc('Permutations', nat0),
      'Applying Permutations to the following value,\nwhich is not a finite set:\nNat',
      255,
    );
  });

  it('ToString, Print, PrintT, Assert', () => {
    expect(tlc('ToString', 42)).toBe('42');
    expect(tlc('ToString', -3)).toBe('-3');
    expect(tlc('ToString', 'hi')).toBe('"hi"');
    expect(tlc('ToString', tup(1, 'a'))).toBe('<<1, "a">>');
    expect(tlc('ToString', set(2, 1))).toBe('{1, 2}');
    expect(tlc('ToString', rec({ a: 1 }))).toBe('[a |-> 1]');
    expect(tlc('ToString', true)).toBe('TRUE');
    host = new Host();
    expect(tlc('Print', tup('permutations of 1..3:', 6), true)).toBe(true);
    expect(tlc('PrintT', 'hi')).toBe(true);
    expect(host.lines).toEqual(['<<"permutations of 1..3:", 6>>  TRUE', '"hi"']);
    expect(tlc('Assert', true, 'x')).toBe(true);
    expectError(
      () => tlc('Assert', false, tup('registry full, cannot register', modelValue('k3'))),
      'The first argument of Assert evaluated to FALSE; the second argument was:\n<<"registry full, cannot register", k3>>',
      14,
    );
  });

  it('TLCGet, TLCSet, RandomElement, Any, TLCEval, JavaTime', () => {
    host = new Host();
    expect(tlc('TLCSet', 1, 5)).toBe(true);
    expect(tlc('TLCGet', 1)).toBe(5);
    const s = set(1, 2, 3);
    for (let i = 0; i < 20; i++) expect(s.has(tlc('RandomElement', s))).toBe(true);
    expectError(
      () => tlc('RandomElement', nat0),
      'Applying RandomElement to the following value,\nwhich is not a finite set:\nNat',
      255,
    );
    const any = asSet(tlc('Any'));
    expect([any.has(1), any.has(set()), any.has(modelValue('m'))]).toEqual([true, true, true]);
    const e = tlc('TLCEval', new IntervalSet(1, 3));
    expect(e).toBeInstanceOf(FiniteSet);
    eq(e, set(1, 2, 3));
    const f = tlc('TLCEval', new LazyFcn(new IntervalSet(1, 2), (x) => (x as number) * 10));
    expect(f).toBeInstanceOf(Tuple);
    eq(f, tup(10, 20));
    expect(tlc('TLCEval', nat0)).toBe(nat0);
    const t = tlc('JavaTime') as number;
    expect(Number.isInteger(t) && t >= 0 && t <= 2147483647).toBe(true);
  });
});

describe('TLCExt', () => {
  it('AssertEq, TLCModelValue, TLCNoOp, TLCCache', () => {
    host = new Host();
    expect(call(TLCEXT, 'AssertEq', 1, 1)).toBe(true);
    expect(host.lines).toEqual([]);
    expect(call(TLCEXT, 'AssertEq', 1, 2)).toBe(false);
    expect(host.lines).toEqual(['"Assertion failed"', '1', '2']);
    expect(call(TLCEXT, 'TLCModelValue', 'mv')).toBe(modelValue('mv'));
    expectError(
      () => call(TLCEXT, 'TLCModelValue', 1),
      'The argument of ModelValue should be a string, but instead it is:\n1',
      255,
    );
    expect(call(TLCEXT, 'TLCNoOp', 5)).toBe(5);
    expect(call(TLCEXT, 'TLCCache', 5, 6)).toBe(5);
  });
});

describe('STANDARD_MODULES', () => {
  it('maps module names to modules, with TLA+ EXTENDS (LOCAL INSTANCEs export nothing)', () => {
    const extending: { [name: string]: string[] } = {
      Integers: ['Naturals'],
      Reals: ['Integers'],
      Functions: ['Folds'],
      FiniteSetsExt: ['Integers', 'FiniteSets', 'Folds', 'Functions'],
      SequencesExt: [
        'Sequences',
        'Naturals',
        'FiniteSets',
        'FiniteSetsExt',
        'Folds',
        'Functions',
        'Bags',
        'TLC',
      ],
    };
    expect([...STANDARD_MODULES.keys()].sort()).toEqual(
      [
        ...['Bags', 'FiniteSets', 'Integers', 'Naturals', 'Reals', 'Sequences', 'TLAPS', 'TLC', 'TLCExt'],
        ...['Folds', 'Functions', 'FiniteSetsExt', 'SequencesExt', 'Relation', 'Graphs', 'IOUtils', 'Json'],
        'Bitwise',
        'UndirectedGraphs',
      ].sort(),
    );
    for (const [name, m] of STANDARD_MODULES) {
      expect(m.name).toBe(name);
      expect(m.extends).toEqual(extending[name] ?? []);
    }
    expect(STANDARD_MODULES.get('Integers')!.ops.has('\\div')).toBe(true);
  });
});
