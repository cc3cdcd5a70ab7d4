/**
 * Bags, as TLC's class tlc2.module.Bags overrides it; SubBag, which TLC evaluates from its TLA+
 * definition, computes the same set directly. A bag is a function whose values are positive
 * integers; keys are matched with TLA+ equality, as TLC does.
 */
import type { Ctx, OpValue } from '../eval/runtime.js';
import {
  EMPTY_TUPLE,
  type ExplicitFcn,
  equals,
  fcnFromPairs,
  fcnOf,
  setOf,
  show,
  type Value,
} from '../values/value.js';
import type { BuiltinModule } from './builtin.js';
import {
  argCastError,
  argError,
  asFcn,
  asSetEnum,
  bodyCastError,
  defineModule,
  domainOf,
  javaOverrideError,
  moduleError,
  nonEnumerableSubset,
  overflow,
  wrongValue,
} from './core.js';
import { intMethod } from './naturals.js';

const VALUE = 'tlc2.value.impl.Value';

function method(ret: string, name: string, arity: number): string {
  return `public static ${ret} tlc2.module.Bags.${name}(${Array.from({ length: arity }, () => VALUE).join(',')})`;
}

/** The sum of two bag counts, with the overflow error of Math.addExact. */
function addCounts(x: number, y: number): number {
  const r = x + y;
  if (r > 2147483647 || r < -2147483648) throw overflow(`${x}+${y}`);
  return r;
}

/** A count read by a method body that casts it to IntValue. */
function count(v: Value, signature: string): number {
  if (typeof v !== 'number') throw bodyCastError(signature, v);
  return v;
}

function isBag(f: ExplicitFcn | null): f is ExplicitFcn {
  if (f === null) return false;
  for (let i = 0; i < f.size(); i++) {
    const v = f.valAt(i);
    if (typeof v !== 'number' || v <= 0) return false;
  }
  return true;
}

/** Index of the first of keys[0..limit) equal to k, or -1 (a linear search with TLA+ equality, as in TLC). */
function keyIndex(keys: readonly Value[], k: Value, limit = keys.length): number {
  for (let i = 0; i < limit; i++) if (equals(k, keys[i]!)) return i;
  return -1;
}

function keysOf(f: ExplicitFcn): Value[] {
  return Array.from({ length: f.size() }, (_, i) => f.keyAt(i));
}

function valsOf(f: ExplicitFcn): Value[] {
  return Array.from({ length: f.size() }, (_, i) => f.valAt(i));
}

/** BagIn and CopiesIn: the count of e in b, or 0. */
function copies(e: Value, b: Value, op: 'BagIn' | 'CopiesIn', signature: string): number {
  const f = asFcn(b);
  // TLC reads the values of the converted function without checking it: a NullPointerException.
  if (f === null) throw javaOverrideError(signature, 'Cannot read field "values" because "fcn" is null', 255);
  for (let i = 0; i < f.size(); i++) {
    if (equals(e, f.keyAt(i))) {
      const v = f.valAt(i);
      if (typeof v !== 'number') throw argError('second', op, 'bag', b);
      return v;
    }
  }
  return 0;
}

const BAG_IN = method('tlc2.value.IBoolValue', 'BagIn', 2);
const COPIES_IN = method('tlc2.value.impl.IntValue', 'CopiesIn', 2);
const BAG_DIFF = method(VALUE, 'BagDiff', 2);
const BAG_UNION = method(VALUE, 'BagUnion', 1);
const SQ_SUBSETEQ = method('tlc2.value.IBoolValue', 'SqSubseteq', 2);
const BAG_OF_ALL = method(VALUE, 'BagOfAll', 2);

function bagCup(b1: Value, b2: Value): Value {
  const f1 = asFcn(b1);
  const f2 = asFcn(b2);
  if (!isBag(f1)) throw argError('first', '(+)', 'bag', b1);
  if (!isBag(f2)) throw argError('second', '(+)', 'bag', b2);
  const keys = keysOf(f1);
  const vals = valsOf(f1) as number[];
  const n = keys.length;
  for (let i = 0; i < f2.size(); i++) {
    const k = f2.keyAt(i);
    const j = keyIndex(keys, k, n);
    if (j >= 0) vals[j] = addCounts(vals[j]!, f2.valAt(i) as number);
    else {
      keys.push(k);
      vals.push(f2.valAt(i) as number);
    }
  }
  return fcnFromPairs(keys.map((k, i) => [k, vals[i]!]));
}

function bagDiff(b1: Value, b2: Value): Value {
  const f1 = asFcn(b1);
  const f2 = asFcn(b2);
  if (f1 === null) throw argError('first', '(-)', 'bag', b1);
  if (f2 === null) throw argError('second', '(-)', 'bag', b2);
  const keys2 = keysOf(f2);
  const keys: Value[] = [];
  const vals: Value[] = [];
  for (let i = 0; i < f1.size(); i++) {
    let v = count(f1.valAt(i), BAG_DIFF);
    const j = keyIndex(keys2, f1.keyAt(i));
    if (j >= 0) v = (v - count(f2.valAt(j), BAG_DIFF)) | 0;
    if (v > 0) {
      keys.push(f1.keyAt(i));
      vals.push(v);
    }
  }
  return fcnOf(keys, vals);
}

function bagUnion(s: Value): Value {
  const set = asSetEnum(s);
  if (set === null) throw wrongValue('BagUnion', 'a finite enumerable set', s);
  const bags = set.elems;
  if (bags.length === 0) return EMPTY_TUPLE;
  if (bags.length === 1) return bags[0]!;
  const keys: Value[] = [];
  const vals: Value[] = [];
  for (const b of bags) {
    const f = asFcn(b);
    if (f === null)
      throw moduleError(
        `Attempted to apply BagUnion to the following set, whose\nelement is not a bag:\n${show(s)}`,
      );
    for (let i = 0; i < f.size(); i++) {
      const j = keyIndex(keys, f.keyAt(i));
      if (j >= 0) vals[j] = addCounts(count(vals[j]!, BAG_UNION), count(f.valAt(i), BAG_UNION));
      else {
        keys.push(f.keyAt(i));
        vals.push(f.valAt(i));
      }
    }
  }
  return fcnFromPairs(keys.map((k, i) => [k, vals[i]!]));
}

function sqSubseteq(b1: Value, b2: Value): boolean {
  const f1 = asFcn(b1);
  const f2 = asFcn(b2);
  if (f1 === null) throw wrongValue('\\sqsubseteq', 'a function with a finite domain', b1);
  if (f2 === null) throw wrongValue('\\sqsubseteq', 'a function with a finite domain', b2);
  const keys2 = keysOf(f2);
  for (let i = 0; i < f1.size(); i++) {
    let v = count(f1.valAt(i), SQ_SUBSETEQ);
    const j = keyIndex(keys2, f1.keyAt(i));
    if (j >= 0) v = (v - count(f2.valAt(j), SQ_SUBSETEQ)) | 0;
    if (v > 0) return false;
  }
  return true;
}

/** SubBag(B): every bag SB with DOMAIN SB \subseteq DOMAIN B and SB[e] \in 1..B[e]. */
function subBag(b: Value): Value {
  const f = asFcn(b);
  // The TLA+ definition fails on DOMAIN B, or on SUBSET DOMAIN B when that domain is infinite.
  if (f === null) throw nonEnumerableSubset(domainOf(b));
  const keys = keysOf(f);
  // The TLA+ definition builds 1..B[e] with Naturals' .., which casts B[e] to an integer.
  const max = valsOf(f).map((v) => {
    if (typeof v !== 'number')
      throw argCastError(intMethod('Naturals', 'DotDot', 2, 'tlc2.value.impl.IntervalValue'), v);
    return Math.max(v, 0);
  });
  const out: Value[] = [];
  const pick = keys.map(() => 0);
  for (;;) {
    const ks: Value[] = [];
    const vs: Value[] = [];
    pick.forEach((p, i) => {
      if (p > 0) {
        ks.push(keys[i]!);
        vs.push(p);
      }
    });
    out.push(fcnOf(ks, vs));
    let i = keys.length - 1;
    while (i >= 0 && pick[i] === max[i]) pick[i--] = 0;
    if (i < 0) return setOf(out);
    pick[i]!++;
  }
}

function bagOfAll(op: Value | OpValue, b: Value, c: Ctx): Value {
  if (typeof op !== 'function') throw argError('first', 'BagOfAll', 'operator', op, true);
  const f = asFcn(b);
  if (f === null) throw argError('second', 'BagOfAll', 'function with a finite domain', b);
  const keys: Value[] = [];
  const vals: Value[] = [];
  for (let i = 0; i < f.size(); i++) {
    const k = op([f.keyAt(i)], c);
    const j = keyIndex(keys, k);
    if (j >= 0) vals[j] = addCounts(count(vals[j]!, BAG_OF_ALL), count(f.valAt(i), BAG_OF_ALL));
    else {
      keys.push(k);
      vals.push(f.valAt(i));
    }
  }
  return fcnFromPairs(keys.map((k, i) => [k, vals[i]!]));
}

function bagCardinality(b: Value): number {
  const f = asFcn(b);
  if (f === null) throw wrongValue('BagCardinality', 'a function with a finite domain', b);
  let n = 0;
  for (let i = 0; i < f.size(); i++) {
    const v = f.valAt(i);
    if (typeof v !== 'number' || v <= 0) throw wrongValue('BagCardinality', 'a bag', b);
    n = addCounts(n, v);
  }
  return n;
}

export const BAGS: BuiltinModule = defineModule('Bags', [], {
  IsABag: { arity: 1, fn: (a) => isBag(asFcn(a[0] as Value)) },
  BagToSet: {
    arity: 1,
    fn: (a) => {
      const f = asFcn(a[0] as Value);
      if (f === null) throw wrongValue('BagToSet', 'a function with a finite domain', a[0] as Value);
      return f.domain();
    },
  },
  SetToBag: {
    arity: 1,
    fn: (a) => {
      const s = asSetEnum(a[0] as Value);
      // TLC's message names BagToSet here.
      if (s === null) throw wrongValue('BagToSet', 'a function with a finite domain', a[0] as Value);
      return fcnOf(
        s.elems,
        s.elems.map(() => 1),
      );
    },
  },
  BagIn: { arity: 2, fn: (a) => copies(a[0] as Value, a[1] as Value, 'BagIn', BAG_IN) > 0 },
  CopiesIn: { arity: 2, fn: (a) => copies(a[0] as Value, a[1] as Value, 'CopiesIn', COPIES_IN) },
  EmptyBag: { arity: 0, fn: () => EMPTY_TUPLE },
  '\\oplus': { arity: 2, fn: (a) => bagCup(a[0] as Value, a[1] as Value) },
  '\\ominus': { arity: 2, fn: (a) => bagDiff(a[0] as Value, a[1] as Value) },
  BagUnion: { arity: 1, fn: (a) => bagUnion(a[0] as Value) },
  '\\sqsubseteq': { arity: 2, fn: (a) => sqSubseteq(a[0] as Value, a[1] as Value) },
  SubBag: { arity: 1, fn: (a) => subBag(a[0] as Value) },
  BagOfAll: { arity: 2, opParams: [0], fn: (a, _h, c) => bagOfAll(a[0]!, a[1] as Value, c) },
  BagCardinality: { arity: 1, fn: (a) => bagCardinality(a[0] as Value) },
});
