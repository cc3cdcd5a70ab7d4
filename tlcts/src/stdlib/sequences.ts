/**
 * Sequences, as TLC's class tlc2.module.Sequences overrides it. Len, Tail, SubSeq and \o also accept
 * strings. The module instantiates Naturals LOCALly, so it exports no arithmetic.
 */
import type { Ctx, OpValue } from '../eval/runtime.js';
import { EMPTY_TUPLE, InfiniteSet, ModelValue, Tuple, show, type Value } from '../values/value.js';
import { binary, unary, type BuiltinModule } from './builtin.js';
import {
  argError,
  asTuple,
  defineModule,
  isIn,
  moduleError,
  notInDomain,
  notMemberOf,
  oneArgError,
  opText,
} from './core.js';

/** Seq(S): sequences (functions on 1..n) with all elements in S. */
export function seqSet(s: Value): InfiniteSet {
  // Printed only for errors and output: the name is made when needed.
  const name = () => `Seq(${show(s)})`;
  return new InfiniteSet(name, (v) => {
    const t = asTuple(v);
    if (t === null) {
      if (v instanceof ModelValue) return false;
      throw notMemberOf(v, name());
    }
    return t.elems.every((e) => isIn(s, e));
  });
}

/** EC.TLC_MODULE_APPLY_EMPTY_SEQ. */
function emptySeq(op: string) {
  return moduleError(`Attempted to apply ${op} to the empty sequence.`);
}

/** EC.TLC_MODULE_EVALUATING. */
function notA(form: string, what: string, v: Value) {
  return moduleError(`Evaluating an expression of the form ${form} when s is not a ${what}:\n${show(v)}`);
}

export function len(s: Value): number {
  if (typeof s === 'string') return s.length;
  const t = asTuple(s);
  if (t === null) throw oneArgError('Len', 'sequence', s);
  return t.elems.length;
}

function head(s: Value): Value {
  const t = asTuple(s);
  if (t === null) throw oneArgError('Head', 'sequence', s);
  if (t.elems.length === 0) throw emptySeq('Head');
  return t.elems[0]!;
}

function tail(s: Value): Value {
  if (typeof s === 'string') {
    if (s === '') throw emptySeq('Tail');
    return s.substring(1);
  }
  const t = asTuple(s);
  if (t === null) throw oneArgError('Tail', 'sequence', s);
  if (t.elems.length === 0) throw emptySeq('Tail');
  return new Tuple(t.elems.slice(1));
}

export function append(s: Value, v: Value): Value {
  const t = asTuple(s);
  if (t === null) throw notA('Append(s, v)', 'sequence', s);
  return new Tuple([...t.elems, v]);
}

export function concat(s: Value, u: Value): Value {
  if (typeof s === 'string') {
    if (typeof u !== 'string') throw notA('t \\o s', 'string', u);
    return s + u;
  }
  const t1 = asTuple(s);
  if (t1 === null) throw notA('s \\o t', 'sequence', s);
  const t2 = asTuple(u);
  if (t2 === null) throw notA('t \\o s', 'sequence', u);
  if (t1.elems.length === 0) return t2;
  if (t2.elems.length === 0) return t1;
  return new Tuple([...t1.elems, ...t2.elems]);
}

export function subSeq(s: Value, m: Value, n: Value): Value {
  const t = typeof s === 'string' ? null : asTuple(s);
  if (typeof s !== 'string' && t === null) throw argError('first', 'SubSeq', 'sequence', s);
  if (typeof m !== 'number') throw argError('second', 'SubSeq', 'natural number', m);
  if (typeof n !== 'number') throw argError('third', 'SubSeq', 'natural number', n);
  if (m > n) return t === null ? '' : EMPTY_TUPLE;
  const length = t === null ? (s as string).length : t.elems.length;
  if (m < 1 || m > length) throw notInDomain('second', 'SubSeq', 'first', s, m);
  if (n < 1 || n > length) throw notInDomain('third', 'SubSeq', 'first', s, n);
  return t === null ? (s as string).substring(m - 1, n) : new Tuple(t.elems.slice(m - 1, n));
}

export function selectSeq(s: Value, test: Value | OpValue, c: Ctx): Value {
  const t = asTuple(s);
  if (t === null) throw argError('first', 'SelectSeq', 'sequence', s);
  if (t.elems.length === 0) return EMPTY_TUPLE;
  if (typeof test !== 'function') throw argError('second', 'SelectSeq', 'operator', test);
  const out: Value[] = [];
  for (const e of t.elems) {
    const keep = test([e], c);
    if (typeof keep !== 'boolean') {
      throw moduleError(
        `The second argument of SelectSeq should be a boolean-valued operator, but instead it is:\n${opText(test)}`,
      );
    }
    if (keep) out.push(e);
  }
  return new Tuple(out);
}

export const SEQUENCES: BuiltinModule = defineModule('Sequences', [], {
  Seq: { arity: 1, fn: (a) => seqSet(a[0] as Value) },
  Len: unary(len),
  '\\o': binary(concat),
  Append: binary(append),
  Head: unary(head),
  Tail: unary(tail),
  SubSeq: { arity: 3, fn: (a) => subSeq(a[0] as Value, a[1] as Value, a[2] as Value) },
  SelectSeq: { arity: 2, opParams: [1], fn: (a, _h, c) => selectSeq(a[0] as Value, a[1]!, c) },
});
