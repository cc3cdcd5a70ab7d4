/**
 * FiniteSetsExt (CommunityModules), which EXTENDS Integers, FiniteSets, Folds and Functions.
 * FoldSet, Quantify and kSubset follow TLC's Java overrides (FoldSet computes op(x, acc) over the
 * set in TLC's enumeration order); the other operators compute the module's definitions, Max and
 * Min with Integers' >= and <= (and their errors), ChooseUnique with CHOOSE's error.
 */
import type { Ctx, OpValue } from '../eval/runtime.js';
import { EMPTY_SET, FiniteSet, setOf, type SetValue, type Value } from '../values/value.js';
import type { BuiltinHost, BuiltinModule } from './builtin.js';
import {
  argCastError,
  argError,
  asSetEnum,
  bigUnion,
  defineModule,
  forEachCombination,
  isEnumerable,
  setCup,
  setDiff,
} from './core.js';
import { mapThenFoldSet } from './folds.js';
import { arith, elementsOf, noChoice, truth } from './ops.js';

const FOLD_SET =
  'public static tlc2.value.impl.Value tlc2.overrides.FiniteSetsExt.foldSet(tlc2.value.impl.OpValue,tlc2.value.impl.Value,tlc2.value.impl.Enumerable)';

/** FoldSet(op, base, S): acc := op(x, acc) for each x of S in TLC's enumeration order. */
function foldSet(op: (x: Value, acc: Value) => Value, base: Value, s: Value): Value {
  if (!isEnumerable(s)) throw argCastError(FOLD_SET, s, 'Enumerable');
  let acc = base;
  s.forEach((x) => {
    acc = op(x, acc);
  });
  return acc;
}

function quantify(s: Value, p: OpValue, c: Ctx): number {
  if (!isEnumerable(s)) throw argError('first', 'Quantify', 'set', s);
  let n = 0;
  for (const x of s.normalized().elems) {
    const v = p([x], c);
    if (typeof v !== 'boolean') throw argError('second', 'Quantify', 'boolean-valued operator', p);
    if (v) n++;
  }
  return n;
}

/** kSubset(k, S): the k-element subsets of S, by k-combinations of the sorted S (TLC's order). */
function kSubset(k: Value, s: Value): SetValue {
  const set = asSetEnum(s);
  if (set === null) throw argError('second', 'kSubset', 'set', s);
  if (typeof k !== 'number') throw argError('first', 'kSubset', 'natural number', k);
  if (k < 0 || k > set.elems.length) return EMPTY_SET;
  const out: FiniteSet[] = [];
  forEachCombination(set.elems, k, (picked) => {
    out.push(new FiniteSet(picked));
  });
  // Same-size combinations of a sorted set, in lexicographic order, are already in set order.
  return new FiniteSet(out);
}

/** Max(S) == CHOOSE x \in S : \A y \in S : x >= y (Min with =<). */
function extreme(s: Value, cmp: '>=' | '<=', host: BuiltinHost, c: Ctx): Value {
  const elems = elementsOf(s);
  if (elems.length === 0) throw noChoice();
  let best = elems[0]!;
  for (const y of elems) if (!arith(cmp, best, y, host, c)) best = y;
  return best;
}

/** Choices(Sets): every set made of one element of each set of Sets. */
function choices(sets: Value): SetValue {
  const lists = elementsOf(sets).map(elementsOf);
  const out: Value[] = [];
  const picked: Value[] = [];
  const extend = (i: number): void => {
    if (i === lists.length) {
      out.push(setOf(picked.slice()));
      return;
    }
    for (const x of lists[i]!) {
      picked.push(x);
      extend(i + 1);
      picked.pop();
    }
  };
  extend(0);
  return setOf(out);
}

function chooseUnique(s: Value, p: OpValue, c: Ctx): Value {
  const hits = elementsOf(s).filter((x) => truth(p([x], c)));
  if (hits.length !== 1) throw noChoice();
  return hits[0]!;
}

export const FINITESETSEXT: BuiltinModule = defineModule(
  'FiniteSetsExt',
  ['Integers', 'FiniteSets', 'Folds', 'Functions'],
  {
    FoldSet: {
      arity: 3,
      opParams: [0],
      fn: (a, _h, c) => foldSet((x, acc) => (a[0] as OpValue)([x, acc], c), a[1] as Value, a[2] as Value),
    },
    SumSet: {
      arity: 1,
      fn: (a, h, c) => foldSet((x, acc) => arith('+', x, acc, h, c), 0, a[0] as Value),
    },
    ProductSet: {
      arity: 1,
      fn: (a, h, c) => foldSet((x, acc) => arith('*', x, acc, h, c), 1, a[0] as Value),
    },
    ReduceSet: {
      arity: 3,
      opParams: [0],
      fn: (a, _h, c) => foldSet((x, acc) => (a[0] as OpValue)([x, acc], c), a[2] as Value, a[1] as Value),
    },
    MapThenSumSet: {
      arity: 2,
      opParams: [0],
      fn: (a, h, c) =>
        mapThenFoldSet(
          ([x, acc]) => arith('+', x, acc, h, c),
          0,
          a[0] as OpValue,
          ([s]) => elementsOf(s)[0]!,
          a[1] as Value,
          c,
        ),
    },
    FlattenSet: { arity: 1, fn: (a) => bigUnion(a[0] as Value) },
    SymDiff: {
      arity: 2,
      fn: (a) => {
        const x = a[0] as Value;
        const y = a[1] as Value;
        return setCup(setDiff(x, y), setDiff(y, x));
      },
    },
    Quantify: { arity: 2, opParams: [1], fn: (a, _h, c) => quantify(a[0] as Value, a[1] as OpValue, c) },
    kSubset: { arity: 2, fn: (a) => kSubset(a[0] as Value, a[1] as Value) },
    Max: { arity: 1, fn: (a, h, c) => extreme(a[0] as Value, '>=', h, c) },
    Min: { arity: 1, fn: (a, h, c) => extreme(a[0] as Value, '<=', h, c) },
    Choices: { arity: 1, fn: (a) => choices(a[0] as Value) },
    ChooseUnique: {
      arity: 2,
      opParams: [1],
      fn: (a, _h, c) => chooseUnique(a[0] as Value, a[1] as OpValue, c),
    },
  },
);
