/** The TLC module, as TLC's class tlc2.module.TLC (and its TLCGet/TLCSet handling) implements it. */
import type { Ctx, OpValue } from '../eval/runtime.js';
import { EvalError } from '../values/errors.js';
import {
  FcnValue,
  InfiniteSet,
  ModelValue,
  SetValue,
  Tuple,
  equals,
  fcnFromPairs,
  fcnOf,
  kindOf,
  setOf,
  show,
  type Value,
} from '../values/value.js';
import { binary, type BuiltinModule } from './builtin.js';
import { ppr } from '../values/ppr.js';
import {
  argError,
  asFcn,
  asSetEnum,
  asTuple,
  defineModule,
  isEnumerable,
  javaOverrideError,
  moduleError,
  permutations,
  wrongValue,
} from './core.js';

/** f @@ g: the domain of f, then the keys of g that are not in it; f's values win. */
function combine(f1: Value, f2: Value): Value {
  const f = asFcn(f1);
  const g = asFcn(f2);
  if (f === null) throw argError('first', '@@', 'function', f1);
  if (g === null) throw argError('second', '@@', 'function', f2);
  const pairs: [Value, Value][] = [];
  for (let i = 0; i < f.size(); i++) pairs.push([f.keyAt(i), f.valAt(i)]);
  // TLC compares each key of g with f's keys by equality: keys of another kind are an error.
  const ref = pairs.find(([k]) => !(k instanceof ModelValue))?.[0];
  for (let i = 0; i < g.size(); i++) {
    const k = g.keyAt(i);
    if (ref !== undefined && !(k instanceof ModelValue) && kindOf(k) !== kindOf(ref)) equals(k, ref);
    if (f.indexOf(k) < 0) pairs.push([k, g.valAt(i)]);
  }
  return pairs.length === f.size() ? f : fcnFromPairs(pairs);
}

/** SortSeq(s, Op): TLC's insertion sort; Op(a, b) means a goes before b. */
export function sortSeq(s: Value, op: Value | OpValue, c: Ctx): Value {
  const t = asTuple(s);
  // TLC's message asks for a natural number here.
  if (t === null) throw argError('first', 'SortSeq', 'natural number', s);
  if (typeof op !== 'function') throw argError('second', 'SortSeq', 'function', op);
  const elems = t.elems;
  if (elems.length === 0) return t;
  const before = (a: Value, b: Value): boolean => {
    const r = op([a, b], c);
    if (typeof r !== 'boolean') throw argError('second', 'SortSeq', 'boolean function', r);
    return r;
  };
  const out: Value[] = [elems[0]!];
  for (let i = 1; i < elems.length; i++) {
    const v = elems[i]!;
    let j = i;
    while (j > 0 && before(v, out[j - 1]!)) {
      out[j] = out[j - 1]!;
      j--;
    }
    out[j] = v;
  }
  return new Tuple(out);
}

/** Permutations(S): the bijections from S to S. */
function bijections(s: Value): Value {
  const set = asSetEnum(s);
  if (set === null) throw wrongValue('Permutations', 'a finite set', s);
  return setOf(permutations(set.elems).map((vals) => fcnOf(set.elems, vals)));
}

function randomElement(s: Value): Value {
  const set = asSetEnum(s);
  if (set === null) throw wrongValue('RandomElement', 'a finite set', s);
  if (set.elems.length === 0) {
    throw javaOverrideError(
      'public static tlc2.value.impl.Value tlc2.module.TLC.RandomElement(tlc2.value.impl.Value)',
      'Index 0 out of bounds for length 0',
    );
  }
  return set.elems[Math.floor(Math.random() * set.elems.length)]!;
}

/** TLCEval(v): v with a finite set or function made explicit. */
function tlcEval(v: Value): Value {
  if (v instanceof SetValue) return isEnumerable(v) && v.isFinite() ? v.normalized() : v;
  if (v instanceof FcnValue) return asFcn(v) ?? v;
  return v;
}

/** Any: the set that contains every value. */
export const ANY: SetValue = new InfiniteSet('Any', () => true);

export const TLC: BuiltinModule = defineModule('TLC', [], {
  ':>': binary((x, y) => fcnOf([x], [y])),
  '@@': binary(combine),
  Print: {
    arity: 2,
    fn: (a, host) => {
      host.print(`${ppr(show(a[0] as Value))}  ${ppr(show(a[1] as Value))}`);
      return a[1] as Value;
    },
  },
  PrintT: {
    arity: 1,
    fn: (a, host) => {
      host.print(ppr(show(a[0] as Value)));
      return true;
    },
  },
  Assert: {
    arity: 2,
    fn: (a) => {
      if (a[0] === true) return true;
      throw new EvalError(
        `The first argument of Assert evaluated to FALSE; the second argument was:\n${ppr(show(a[1] as Value))}`,
        14,
      );
    },
  },
  // The low 31 bits of the wall clock in milliseconds, as TLC computes it.
  JavaTime: { arity: 0, fn: () => (Date.now() | 0) & 0x7fffffff },
  TLCGet: {
    arity: 1,
    fn: (a, host) => {
      const v = host.tlcGet(a[0] as Value);
      if (v === undefined) throw moduleError(`TLCGet(${show(a[0] as Value)}) was undefined.`);
      return v;
    },
  },
  TLCSet: {
    arity: 2,
    fn: (a, host) => {
      host.tlcSet(a[0] as Value, a[1] as Value);
      return true;
    },
  },
  Permutations: { arity: 1, fn: (a) => bijections(a[0] as Value) },
  SortSeq: { arity: 2, opParams: [1], fn: (a, _h, c) => sortSeq(a[0] as Value, a[1]!, c) },
  RandomElement: { arity: 1, fn: (a) => randomElement(a[0] as Value) },
  Any: { arity: 0, fn: () => ANY },
  ToString: { arity: 1, fn: (a) => show(a[0] as Value) },
  TLCEval: { arity: 1, fn: (a) => tlcEval(a[0] as Value) },
});
