/**
 * SequencesExt (CommunityModules), which EXTENDS Sequences, Naturals, FiniteSets, FiniteSetsExt,
 * Folds, Functions, Bags and TLC: a specification that extends it sees their operators too.
 *
 * Where TLC runs a Java override (SetToSeq, SetToSeqs, Contains, IsPrefix, SelectInSeq,
 * SelectInSubSeq, SelectLastInSeq, SelectLastInSubSeq, RemoveFirst, RemoveFirstMatch, Suffixes,
 * AllSubSeqs, LongestCommonPrefix, the folds, and ReplaceFirstSubSeq and ReplaceAllSubSeqs when
 * all arguments are strings) the checks and messages are the override's. The other operators
 * compute the module's definitions from the same Sequences operators (Len, SubSeq, \o, Append,
 * SelectSeq), so that strings are accepted, and bad arguments fail, where the definition does.
 *
 * One difference from TLC: its LongestCommonPrefix override fails on a set of strings whose first
 * element (in TLC's order) is not the shortest; this computes the longest common prefix.
 */
import type { Ctx, OpValue } from '../eval/runtime.js';
import { EvalError } from '../values/errors.js';
import {
  EMPTY_TUPLE,
  IntervalSet,
  LazySet,
  type SetValue,
  Tuple,
  equals,
  fcnFromPairs,
  setOf,
  type Value,
} from '../values/value.js';
import { exceptAt, fcnSetOf } from '../eval/sets.js';
import type { Builtin, BuiltinHost, BuiltinModule } from './builtin.js';
import {
  argError,
  asSetEnum,
  asTuple,
  defineModule,
  feed,
  notInDomain,
  oneArgError,
  permutations,
  powerSet,
  valuesOf,
  wrongValue,
} from './core.js';
import { foldFunction, range } from './functions.js';
import { apply, arith, asSet, elementsOf, explicitFcn, noChoice, truth } from './ops.js';
import { append, concat, len, selectSeq, subSeq } from './sequences.js';
import { sortSeq } from './tlc.js';

/** The tuple an override reads its sequence argument as (EC.TLC_MODULE_ARGUMENT_ERROR otherwise). */
function seqArg(nth: string, op: string, s: Value): readonly Value[] {
  const t = asTuple(s);
  if (t === null) throw argError(nth, op, 'sequence', s);
  return t.elems;
}

/** The tuple a one-argument override reads (EC.TLC_MODULE_ONE_ARGUMENT_ERROR otherwise). */
function oneSeqArg(op: string, s: Value): readonly Value[] {
  const t = asTuple(s);
  if (t === null) throw oneArgError(op, 'sequence', s);
  return t.elems;
}

/** [i \in 1..n |-> at(i)] for a definition that indexes a sequence: s[i] fails on a string. */
function indexed(n: number, at: (i: number) => Value): Tuple {
  return new Tuple(Array.from({ length: n }, (_, i) => at(i + 1)));
}

// ---------------------------------------------------------------------------------------------------
// Sets and sequences

function setToSeq(s: Value): Tuple {
  const set = asSetEnum(s);
  if (set === null) throw wrongValue('SetToSeq', 'a finite set', s);
  return new Tuple(set.elems);
}

/** The sequences holding each element of S exactly once, from the permutations of the sorted S. */
function setToSeqs(s: Value): SetValue {
  const set = asSetEnum(s);
  if (set === null) throw wrongValue('SetToSeqs', 'a finite set', s);
  return setOf(permutations(set.elems).map((p) => new Tuple(p)));
}

/** SetToAllKPermutations(S) == UNION { SetToSeqs(s) : s \in SUBSET S }. */
function allKPermutations(s: Value): SetValue {
  const out: Value[] = [];
  powerSet(s).forEach((sub) => {
    setToSeqs(sub).forEach((t) => {
      out.push(t);
    });
  });
  return setOf(out);
}

/** SeqOf(S, n) == UNION {[1..m -> S] : m \in 0..n}: membership without enumeration. */
function seqOf(s: Value, n: Value, host: BuiltinHost, c: Ctx): SetValue {
  const lengths = (arith('..', 0, n, host, c) as IntervalSet).toArray() as number[];
  const set = asSet(s);
  const byLength = lengths.map((m) => fcnSetOf(new IntervalSet(1, m), set));
  return new LazySet(
    'UnionValue',
    () => `UNION({${byLength.map((f) => f.describe()).join(', ')}})`,
    (v) => byLength.some((f) => f.has(v)),
    (fn) => {
      byLength.every((f) => feed(f, fn));
    },
    undefined,
    byLength.every((f) => f.isFinite()),
  );
}

/** ToBag(s) == [x \in Range(s) |-> Cardinality({i \in DOMAIN s : s[i] = x})]. */
function toBag(s: Value): Value {
  const vals = valuesOf(explicitFcn(s));
  return fcnFromPairs(
    range(s)
      .toArray()
      .map((x) => [x, vals.filter((v) => equals(v, x)).length]),
  );
}

// ---------------------------------------------------------------------------------------------------
// Searching and editing

function contains(s: Value, e: Value): boolean {
  return oneSeqArg('Contains', s).some((x) => equals(x, e));
}

/** IsSorted(s, op) == \A i, j \in 1..Len(s) : i < j => op(s[i], s[j]). */
function isSorted(s: Value, op: OpValue, c: Ctx): boolean {
  const n = len(s);
  for (let i = 1; i <= n; i++) {
    for (let j = i + 1; j <= n; j++) if (!truth(op([apply(s, i), apply(s, j)], c))) return false;
  }
  return true;
}

function reverse(s: Value): Tuple {
  const n = len(s);
  return indexed(n, (i) => apply(s, n - i + 1));
}

function replaceAll(s: Value, old: Value, by: Value): Tuple {
  return indexed(len(s), (i) => {
    const x = apply(s, i);
    return equals(x, old) ? by : x;
  });
}

/** A Select* override's test of one element. */
function selected(test: OpValue, x: Value, c: Ctx, nth: string, op: string, what: string): boolean {
  const v = test([x], c);
  if (typeof v !== 'boolean') throw argError(nth, op, what, test);
  return v;
}

/** A sequence and the positions from..to of it that a Select* override searches. */
type Span = { elems: readonly Value[]; from: number; to: number };

/** The span of a Select*InSubSeq override: null when from > to (the result is then 0). */
function subSeqBounds(op: string, s: Value, from: Value, to: Value): Span | null {
  const elems = seqArg('first', op, s);
  if (typeof from !== 'number') throw argError('second', op, 'natural', from);
  if (typeof to !== 'number') throw argError('third', op, 'natural', to);
  if (from > to) return null;
  if (from < 1 || from > elems.length) throw notInDomain('second', op, 'first', s, from);
  if (to < 1 || to > elems.length) throw notInDomain('third', op, 'first', s, to);
  return { elems, from, to };
}

/** The span of a SelectInSeq or SelectLastInSeq override: all of s. */
function wholeSeq(op: string, s: Value): Span {
  const elems = seqArg('first', op, s);
  return { elems, from: 1, to: elems.length };
}

/**
 * SelectInSeq(s, Test) and SelectInSubSeq(s, from, to, Test), or with `last` their SelectLast*
 * forms: the first (last) index of s in the range whose element passes Test, else 0. TLC's
 * messages call Test the third argument of SelectInSeq and SelectLastInSeq.
 */
function selectOverride(op: string, { sub, last }: { sub: boolean; last: boolean }): Builtin {
  const testAt = sub ? 3 : 1;
  const what = last ? 'boolean-valued function' : 'boolean-valued operator';
  return {
    arity: testAt + 1,
    opParams: [testAt],
    fn: (a, _h, c) => {
      const b = sub
        ? subSeqBounds(op, a[0] as Value, a[1] as Value, a[2] as Value)
        : wholeSeq(op, a[0] as Value);
      if (b === null) return 0;
      for (let k = 0; k <= b.to - b.from; k++) {
        const i = last ? b.to - k : b.from + k;
        if (selected(a[testAt] as OpValue, b.elems[i - 1]!, c, sub ? 'fourth' : 'third', op, what)) return i;
      }
      return 0;
    },
  };
}

/** The sequence without its first element that matches (RemoveFirst, RemoveFirstMatch). */
function removeFirstWhere(elems: readonly Value[], match: (x: Value) => boolean): Tuple {
  const i = elems.findIndex(match);
  return i < 0 ? new Tuple(elems) : new Tuple([...elems.slice(0, i), ...elems.slice(i + 1)]);
}

// ---------------------------------------------------------------------------------------------------
// Prefixes, suffixes, subsequences

function isPrefix(s: Value, t: Value): boolean {
  if (typeof s === 'string' && typeof t === 'string') return t.startsWith(s);
  const a = seqArg('first', 'IsPrefix', s);
  const b = seqArg('second', 'IsPrefix', t);
  return a.length <= b.length && a.every((x, i) => equals(x, b[i]!));
}

/** IsSuffix(s, t) == IsPrefix(Reverse(s), Reverse(t)). */
function isSuffix(s: Value, t: Value): boolean {
  return isPrefix(reverse(s), reverse(t));
}

/** { SubSeq(s, 1, l) : l \in 0..Len(s) }. */
function prefixes(s: Value): SetValue {
  const n = len(s);
  return setOf(Array.from({ length: n + 1 }, (_, l) => subSeq(s, 1, l)));
}

/** CommonPrefixes(S) == {p \in UNION {Prefixes(seq) : seq \in S} : \A t \in S : IsPrefix(p, t)}. */
function commonPrefixes(s: Value): SetValue {
  const seqs = elementsOf(s);
  const all = setOf(seqs.flatMap((seq) => prefixes(seq).toArray()));
  return setOf(all.elems.filter((p) => seqs.every((t) => isPrefix(p, t))));
}

function longestCommonPrefix(s: Value): Value {
  const set = asSetEnum(s);
  if (set === null || set.elems.length === 0) throw oneArgError('LongestCommonPrefix', 'non-empty set', s);
  const elems = set.elems;
  if (typeof elems[0] === 'string') {
    if (!elems.every((x) => typeof x === 'string')) throw oneArgError('LongestCommonPrefix', 'sequence', s);
    const strs = elems as string[];
    let n = Math.min(...strs.map((x) => x.length));
    for (const x of strs) while (n > 0 && !x.startsWith(strs[0]!.substring(0, n))) n--;
    return strs[0]!.substring(0, n);
  }
  const seqs = elems.map((x) => {
    const t = asTuple(x);
    if (t === null) throw oneArgError('LongestCommonPrefix', 'sequence', s);
    return t.elems;
  });
  // TLC's order puts a shortest sequence first.
  let n = seqs[0]!.length;
  for (const t of seqs) {
    for (let i = 0; i < n; i++) {
      if (!equals(seqs[0]![i]!, t[i]!)) n = i;
    }
  }
  return new Tuple(seqs[0]!.slice(0, n));
}

function suffixes(s: Value): SetValue {
  const elems = oneSeqArg('Suffixes', s);
  return setOf([EMPTY_TUPLE, ...elems.map((_, i) => new Tuple(elems.slice(i)))]);
}

/** SubSeqs(s) == { SubSeq(s, i+1, j) : i, j \in 0..Len(s) }. */
function subSeqs(s: Value): SetValue {
  const n = len(s);
  const out: Value[] = [];
  for (let i = 0; i <= n; i++) for (let j = 0; j <= n; j++) out.push(subSeq(s, i + 1, j));
  return setOf(out);
}

/** Every subsequence: the elements at each subset of the positions, in order. */
function allSubSeqs(s: Value): SetValue {
  const elems = oneSeqArg('AllSubSeqs', s);
  const out: Value[] = [];
  for (let mask = 0; mask < 2 ** elems.length; mask++) {
    out.push(new Tuple(elems.filter((_, i) => Math.floor(mask / 2 ** i) % 2 === 1)));
  }
  return setOf(out);
}

/**
 * IndexFirstSubSeq(s, t): for the least i with s \in SubSeqs(SubSeq(t, 1, i)), i - (Len(s) - 1),
 * the position where the first occurrence of s in t starts.
 */
function indexFirstSubSeq(s: Value, t: Value, host: BuiltinHost, c: Ctx): Value {
  const n = len(t);
  for (let i = 0; i <= n; i++) {
    if (subSeqs(subSeq(t, 1, i)).has(s)) return arith('-', i, arith('-', len(s), 1, host, c), host, c);
  }
  throw noChoice();
}

/** ReplaceSubSeqAt(i, r, s, t) == SubSeq(t, 1, i - 1) \o r \o SubSeq(t, i + Len(s), Len(t)). */
function replaceSubSeqAt(i: Value, r: Value, s: Value, t: Value, host: BuiltinHost, c: Ctx): Value {
  const prefix = subSeq(t, 1, arith('-', i, 1, host, c));
  return concat(concat(prefix, r), subSeq(t, arith('+', i, len(s), host, c), len(t)));
}

function replaceFirstSubSeq(r: Value, s: Value, t: Value, host: BuiltinHost, c: Ctx): Value {
  if (typeof r === 'string' && typeof s === 'string' && typeof t === 'string') {
    if (s === '') return r + t;
    const i = t.indexOf(s);
    return i < 0 ? t : t.substring(0, i) + r + t.substring(i + s.length);
  }
  if (!subSeqs(t).has(s)) return t;
  return replaceSubSeqAt(indexFirstSubSeq(s, t, host, c), r, s, t, host, c);
}

/**
 * ReplaceAllSubSeqs(r, s, t): t with every occurrence of s replaced by r, occurrences taken from
 * the left without overlap (the definition's segmentation with the most, leftmost, matches); with
 * s empty, r before each element of t.
 */
function replaceAllSubSeqs(r: Value, s: Value, t: Value): Value {
  if (typeof r === 'string' && typeof s === 'string' && typeof t === 'string') {
    if (s === '') return r + t.split('').join(r);
    return t.split(s).join(r);
  }
  if (equals(s, t)) return r;
  if (equals(r, s)) return t;
  if (len(s) === 0) {
    // FlattenSeq(FlattenSeq(Interleave(...))) = r \o <<t[1]>> \o r \o <<t[2]>> ...
    const n = len(t);
    if (n === 0) return EMPTY_TUPLE;
    let acc = concat(r, new Tuple([apply(t, 1)]));
    for (let i = 2; i <= n; i++) acc = concat(concat(acc, r), new Tuple([apply(t, i)]));
    return acc;
  }
  if (!subSeqs(t).has(s)) return t;
  const pattern = asTuple(s)!.elems;
  const elems = asTuple(t)!.elems;
  const pieces: Value[] = [];
  let run: Value[] = [];
  for (let i = 0; i < elems.length;) {
    if (i + pattern.length <= elems.length && pattern.every((x, j) => equals(elems[i + j]!, x))) {
      if (run.length > 0) pieces.push(new Tuple(run));
      pieces.push(r);
      run = [];
      i += pattern.length;
    } else run.push(elems[i++]!);
  }
  if (run.length > 0) pieces.push(new Tuple(run));
  return pieces.slice(1).reduce((acc, p) => concat(acc, p), pieces[0]!);
}

// ---------------------------------------------------------------------------------------------------
// Folds and combinations

/** FlattenSeq(seqs): seqs[1] \o seqs[2] \o ... (seqs itself when empty). */
function flattenSeq(seqs: Value): Value {
  const n = len(seqs);
  if (n === 0) return seqs;
  let acc = apply(seqs, 1);
  for (let i = 2; i <= n; i++) acc = concat(acc, apply(seqs, i));
  return acc;
}

function zip(s: Value, t: Value): Tuple {
  return indexed(Math.min(len(s), len(t)), (i) => new Tuple([apply(s, i), apply(t, i)]));
}

/** Interleave(s, t) == << <<s[1]>>, <<t[1]>>, <<s[2]>>, <<t[2]>>, ... >>, for Len(s) = Len(t). */
function interleave(s: Value, t: Value): Tuple {
  const n = len(s);
  if (n !== len(t)) throw new EvalError('Attempted to evaluate a CASE with no arm true.');
  return indexed(2 * n, (i) => new Tuple([apply(i % 2 === 1 ? s : t, Math.ceil(i / 2))]));
}

type Fold = (op: OpValue, seq: readonly Value[], base: Value, c: Ctx) => Value;

/** FoldLeft and FoldLeftDomain: op(op(op(base, x1), x2), ...). */
const foldLeft: Fold = (op, xs, base, c) => xs.reduce((acc, x) => op([acc, x], c), base);

/** FoldRight and FoldRightDomain: op(x1, op(x2, ... op(xn, base))). */
const foldRight: Fold = (op, xs, base, c) => xs.reduceRight((acc, x) => op([x, acc], c), base);

const indices = (elems: readonly Value[]): number[] => elems.map((_, i) => i + 1);

export const SEQUENCESEXT: BuiltinModule = defineModule(
  'SequencesExt',
  ['Sequences', 'Naturals', 'FiniteSets', 'FiniteSetsExt', 'Folds', 'Functions', 'Bags', 'TLC'],
  {
    ToSet: { arity: 1, fn: (a) => range(a[0] as Value) },
    ToBag: { arity: 1, fn: (a) => toBag(a[0] as Value) },
    SetToSeq: { arity: 1, fn: (a) => setToSeq(a[0] as Value) },
    SetToSeqs: { arity: 1, fn: (a) => setToSeqs(a[0] as Value) },
    SetToSortSeq: {
      arity: 2,
      opParams: [1],
      fn: (a, _h, c) => sortSeq(setToSeq(a[0] as Value), a[1] as OpValue, c),
    },
    SetToAllKPermutations: { arity: 1, fn: (a) => allKPermutations(a[0] as Value) },
    TupleOf: {
      arity: 2,
      fn: (a, h, c) => fcnSetOf(arith('..', 1, a[1] as Value, h, c) as SetValue, asSet(a[0] as Value)),
    },
    SeqOf: { arity: 2, fn: (a, h, c) => seqOf(a[0] as Value, a[1] as Value, h, c) },
    BoundedSeq: { arity: 2, fn: (a, h, c) => seqOf(a[0] as Value, a[1] as Value, h, c) },
    Contains: { arity: 2, fn: (a) => contains(a[0] as Value, a[1] as Value) },
    IsSorted: { arity: 2, opParams: [1], fn: (a, _h, c) => isSorted(a[0] as Value, a[1] as OpValue, c) },
    Reverse: { arity: 1, fn: (a) => reverse(a[0] as Value) },
    Remove: {
      arity: 2,
      fn: (a, _h, c) => selectSeq(a[0] as Value, ([x]) => !equals(x, a[1] as Value), c),
    },
    ReplaceAll: { arity: 3, fn: (a) => replaceAll(a[0] as Value, a[1] as Value, a[2] as Value) },
    SelectInSeq: selectOverride('SelectInSeq', { sub: false, last: false }),
    SelectInSubSeq: selectOverride('SelectInSubSeq', { sub: true, last: false }),
    SelectLastInSeq: selectOverride('SelectLastInSeq', { sub: false, last: true }),
    SelectLastInSubSeq: selectOverride('SelectLastInSubSeq', { sub: true, last: true }),
    InsertAt: {
      arity: 3,
      fn: (a, h, c) => {
        const [s, i, e] = a as Value[];
        const front = concat(subSeq(s, 1, arith('-', i, 1, h, c)), new Tuple([e]));
        return concat(front, subSeq(s, i, len(s)));
      },
    },
    ReplaceAt: { arity: 3, fn: (a) => exceptAt(a[0] as Value, [a[1] as Value], 0, () => a[2] as Value) },
    RemoveAt: {
      arity: 2,
      fn: (a, h, c) => {
        const [s, i] = a as Value[];
        return concat(subSeq(s, 1, arith('-', i, 1, h, c)), subSeq(s, arith('+', i, 1, h, c), len(s)));
      },
    },
    RemoveFirst: {
      arity: 2,
      fn: (a) =>
        removeFirstWhere(seqArg('first', 'RemoveFirst', a[0] as Value), (x) => equals(x, a[1] as Value)),
    },
    RemoveFirstMatch: {
      arity: 2,
      opParams: [1],
      fn: (a, _h, c) =>
        removeFirstWhere(seqArg('first', 'RemoveFirstMatch', a[0] as Value), (x) =>
          selected(a[1] as OpValue, x, c, 'second', 'RemoveFirstMatch', 'boolean-valued function'),
        ),
    },
    Cons: { arity: 2, fn: (a) => concat(new Tuple([a[0] as Value]), a[1] as Value) },
    Snoc: { arity: 2, fn: (a) => append(a[1] as Value, a[0] as Value) },
    Front: { arity: 1, fn: (a, h, c) => subSeq(a[0] as Value, 1, arith('-', len(a[0] as Value), 1, h, c)) },
    Last: { arity: 1, fn: (a) => apply(a[0] as Value, len(a[0] as Value)) },
    IsPrefix: { arity: 2, fn: (a) => isPrefix(a[0] as Value, a[1] as Value) },
    IsStrictPrefix: {
      arity: 2,
      fn: (a) => isPrefix(a[0] as Value, a[1] as Value) && !equals(a[0] as Value, a[1] as Value),
    },
    IsSuffix: { arity: 2, fn: (a) => isSuffix(a[0] as Value, a[1] as Value) },
    IsStrictSuffix: {
      arity: 2,
      fn: (a) => isSuffix(a[0] as Value, a[1] as Value) && !equals(a[0] as Value, a[1] as Value),
    },
    Prefixes: { arity: 1, fn: (a) => prefixes(a[0] as Value) },
    CommonPrefixes: { arity: 1, fn: (a) => commonPrefixes(a[0] as Value) },
    LongestCommonPrefix: { arity: 1, fn: (a) => longestCommonPrefix(a[0] as Value) },
    Suffixes: { arity: 1, fn: (a) => suffixes(a[0] as Value) },
    SeqMod: {
      arity: 2,
      fn: (a, h, c) => {
        const m = arith('%', a[0] as Value, a[1] as Value, h, c);
        return m === 0 ? (a[1] as Value) : m;
      },
    },
    FoldSeq: {
      arity: 3,
      opParams: [0],
      fn: (a, _h, c) => foldFunction(a[0] as OpValue, a[1] as Value, a[2] as Value, c),
    },
    FoldLeft: {
      arity: 3,
      opParams: [0],
      fn: (a, _h, c) =>
        foldLeft(a[0] as OpValue, seqArg('third', 'FoldLeft', a[2] as Value), a[1] as Value, c),
    },
    FoldRight: {
      arity: 3,
      opParams: [0],
      fn: (a, _h, c) =>
        foldRight(a[0] as OpValue, seqArg('second', 'FoldRight', a[1] as Value), a[2] as Value, c),
    },
    FoldLeftDomain: {
      arity: 3,
      opParams: [0],
      fn: (a, _h, c) =>
        foldLeft(
          a[0] as OpValue,
          indices(seqArg('third', 'FoldLeftDomain', a[2] as Value)),
          a[1] as Value,
          c,
        ),
    },
    FoldRightDomain: {
      arity: 3,
      opParams: [0],
      fn: (a, _h, c) =>
        foldRight(
          a[0] as OpValue,
          indices(seqArg('second', 'FoldRightDomain', a[1] as Value)),
          a[2] as Value,
          c,
        ),
    },
    FlattenSeq: { arity: 1, fn: (a) => flattenSeq(a[0] as Value) },
    Zip: { arity: 2, fn: (a) => zip(a[0] as Value, a[1] as Value) },
    Interleave: { arity: 2, fn: (a) => interleave(a[0] as Value, a[1] as Value) },
    SubSeqs: { arity: 1, fn: (a) => subSeqs(a[0] as Value) },
    AllSubSeqs: { arity: 1, fn: (a) => allSubSeqs(a[0] as Value) },
    IndexFirstSubSeq: {
      arity: 2,
      fn: (a, h, c) => indexFirstSubSeq(a[0] as Value, a[1] as Value, h, c),
    },
    ReplaceSubSeqAt: {
      arity: 4,
      fn: (a, h, c) => replaceSubSeqAt(a[0] as Value, a[1] as Value, a[2] as Value, a[3] as Value, h, c),
    },
    ReplaceFirstSubSeq: {
      arity: 3,
      fn: (a, h, c) => replaceFirstSubSeq(a[0] as Value, a[1] as Value, a[2] as Value, h, c),
    },
    ReplaceAllSubSeqs: {
      arity: 3,
      fn: (a) => replaceAllSubSeqs(a[0] as Value, a[1] as Value, a[2] as Value),
    },
  },
);
