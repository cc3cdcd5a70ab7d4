/**
 * The TLA+ operations that the community modules' definitions are made of, for the builtins that
 * compute those definitions directly: function application and record selection, CHOOSE,
 * conditions, Integers' arithmetic, sets as element lists, function constructors, transitive
 * closure. Their errors are the ones TLC gives when it evaluates the same expressions.
 */
import type { Ctx } from '../eval/runtime.js';
import { EvalError } from '../values/errors.js';
import {
  type ExplicitFcn,
  FcnValue,
  LazyFcn,
  Record as Rcd,
  SetValue,
  Tuple,
  fcnFromPairs,
  fcnOf,
  show,
  type Value,
} from '../values/value.js';
import type { BuiltinHost } from './builtin.js';
import { domainOf, isEnumerable, kindString } from './core.js';
import { arithmetic } from './naturals.js';

/** f[arg], with the messages of TLC's value classes. */
export function apply(f: Value, arg: Value): Value {
  if (!(f instanceof FcnValue)) {
    throw new EvalError(`A non-function (${kindString(f)}) was applied as a function.`);
  }
  const v = f.get(arg);
  if (v !== undefined) return v;
  if (f instanceof Tuple && typeof arg === 'number') {
    throw new EvalError(`Attempted to access index ${arg} of tuple\n${show(f)}\nwhich is out of bounds.`);
  }
  if (f instanceof Rcd && typeof arg === 'string') {
    throw new EvalError(`Attempted to access nonexistent field '${arg}' of record\n${show(f)}`);
  }
  throw new EvalError(
    `Attempted to apply function:\n${show(f)}\nto argument ${show(arg)}, which is not in the domain of the function.`,
  );
}

/** r.name. */
export function select(r: Value, name: string): Value {
  if (r instanceof Rcd && r.get(name) === undefined) {
    throw new EvalError(`Attempted to select nonexistent field ${name} from the record\n${show(r)}`);
  }
  return apply(r, name);
}

/** CHOOSE x \in S : P found no x. */
export function noChoice(): EvalError {
  return new EvalError(
    'Attempted to compute the value of an expression of form\nCHOOSE x \\in S: P, but no element of S satisfied P.',
  );
}

/** A value used as a condition (a quantifier's body, a set filter's predicate, a conjunct). */
export function truth(v: Value): boolean {
  if (typeof v === 'boolean') return v;
  throw new EvalError(`A non-boolean expression (${show(v)}) was used as a condition.`);
}

const INTEGER_OPS = arithmetic('Integers');

/**
 * x op y with Integers' operator (+, -, *, %, .., <=, >=): TLC installs the Integers class whenever
 * a community module that extends Integers is loaded.
 */
export function arith(op: string, x: Value, y: Value, host: BuiltinHost, c: Ctx): Value {
  return INTEGER_OPS[op]!.fn([x, y], host, c);
}

/** v used as a set (`x \in v`). */
export function asSet(v: Value): SetValue {
  if (v instanceof SetValue) return v;
  throw new EvalError(`Attempted to use ${show(v)}, which is not a set, as a set.`);
}

/** The elements of a set that a definition enumerates, in TLC's (normalized) order. */
export function elementsOf(v: Value): readonly Value[] {
  const s = asSet(v);
  if (!isEnumerable(s))
    throw new EvalError(`Attempted to enumerate the set ${show(s)}, which is not enumerable.`);
  return s.normalized().elems;
}

/** f as an explicit function after DOMAIN f, for definitions that range over DOMAIN f. */
export function explicitFcn(f: Value): ExplicitFcn {
  domainOf(f);
  return (f as FcnValue).materialize();
}

/** [x \in S |-> body(x)]: explicit when S is finite, computed on demand otherwise (as TLC's FcnLambdaValue). */
export function fcnOver(domain: Value, body: (x: Value) => Value): FcnValue {
  const s = asSet(domain);
  if (!isEnumerable(s) || !s.isFinite()) return new LazyFcn(s, body);
  const keys = s.normalized().elems;
  return fcnOf(keys, keys.map(body));
}

/** [x, y \in S |-> m[i][j]], for S's elements s (x = s[i], y = s[j]). */
export function pairFcn(s: readonly Value[], m: boolean[][]): Value {
  return fcnFromPairs(s.flatMap((x, i) => s.map((y, j): [Value, Value] => [new Tuple([x, y]), m[i]![j]!])));
}

/** Closes the path matrix m in place: m[i][j] when a chain of m-steps leads from i to j (Warshall). */
export function closeTransitively(m: boolean[][]): boolean[][] {
  for (let k = 0; k < m.length; k++) {
    for (let i = 0; i < m.length; i++) {
      if (!m[i]![k]) continue;
      for (let j = 0; j < m.length; j++) if (m[k]![j]) m[i]![j] = true;
    }
  }
  return m;
}
