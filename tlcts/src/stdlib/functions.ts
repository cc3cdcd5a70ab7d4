/**
 * Functions (CommunityModules), which EXTENDS Folds. IsInjective, FoldFunction and
 * FoldFunctionOnSet follow TLC's Java overrides (the folds take the domain in TLC's enumeration
 * order and compute op(f[x], acc)); the other operators compute the module's definitions.
 *
 * One difference from TLC: its IsInjective override rejects records and functions it cannot
 * convert to a tuple or an explicit function of class FcnRcdValue; this implements the module's
 * definition, \A a, b \in DOMAIN f : f[a] = f[b] => a = b, for every function with a finite domain.
 */
import type { Ctx, OpValue } from '../eval/runtime.js';
import { FcnValue, LazySet, type SetValue, equals, setOf, type Value } from '../values/value.js';
import { fcnSetOf } from '../eval/sets.js';
import type { BuiltinModule } from './builtin.js';
import {
  argCastError,
  asFcn,
  defineModule,
  domainOf,
  isEnumerable,
  isSubsetEq,
  oneArgError,
  setCap,
  valuesOf,
} from './core.js';
import { apply, asSet, elementsOf, explicitFcn, fcnOver, noChoice, truth } from './ops.js';

/** Range(f) == { f[x] : x \in DOMAIN f }. */
export function range(f: Value): SetValue {
  return setOf(valuesOf(explicitFcn(f)));
}

/** Restrict(f, S) == [x \in S |-> f[x]]. */
function restrict(f: Value, s: Value): FcnValue {
  return fcnOver(s, (x) => apply(f, x));
}

/** Restrict(f, {x \in DOMAIN f : keep(x)}). */
function restrictWhere(f: Value, keep: (x: Value) => boolean): FcnValue {
  return restrict(f, setOf(elementsOf(domainOf(f)).filter(keep)));
}

function isRestriction(narrow: Value, wide: Value): boolean {
  const dn = domainOf(narrow);
  const dw = domainOf(wide);
  if (!isSubsetEq(dn, dw)) return false;
  return elementsOf(setCap(dn, dw)).every((x) => equals(apply(narrow, x), apply(wide, x)));
}

/** Inverse(f, S, T) == [t \in T |-> CHOOSE s \in S : t \in Range(f) => f[s] = t]. */
function inverse(f: Value, s: Value, t: Value): FcnValue {
  const img = range(f);
  return fcnOver(t, (y) => {
    for (const x of elementsOf(s)) if (!img.has(y) || equals(apply(f, x), y)) return x;
    throw noChoice();
  });
}

/** IsInjective: the values at distinct keys, compared pairwise with TLA+ equality. */
function isInjective(f: Value): boolean {
  const g = asFcn(f);
  if (g === null) throw oneArgError('IsInjective', 'function', f);
  const n = g.size();
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) if (equals(g.valAt(i), g.valAt(j))) return false;
  return true;
}

/** { M \in [S -> T] : keep(M) }, enumerated in [S -> T]'s order, as TLC's set filter. */
function functionsWhere(s: Value, t: Value, form: string, keep: (m: Value) => boolean): SetValue {
  const all = fcnSetOf(asSet(s), asSet(t));
  return new LazySet(
    'SetPredValue',
    () => `{M \\in ${all.describe()} : ${form}}`,
    (v) => all.has(v) && keep(v),
    (fn) =>
      all.forEach((m) => {
        if (keep(m)) return fn(m);
      }),
    undefined,
    all.isFinite(),
  );
}

function injections(s: Value, t: Value): SetValue {
  return functionsWhere(s, t, 'IsInjective(M)', isInjective);
}

/** Surjection(S, T) == { M \in [S -> T] : \A t \in T : \E s \in S : M[s] = t }. */
function surjections(s: Value, t: Value): SetValue {
  return functionsWhere(s, t, '\\A t \\in T : \\E s \\in S : M[s] = t', (m) =>
    elementsOf(t).every((y) => elementsOf(s).some((x) => equals(apply(m, x), y))),
  );
}

/** The number of elements of a set, for the Exists* operators (whose sets are then finite). */
function count(s: Value): number {
  return elementsOf(s).length;
}

const OVERRIDES = 'public static tlc2.value.impl.Value tlc2.overrides.Functions';
const OP_BASE_FUN = 'tlc2.value.impl.OpValue,tlc2.value.impl.Value,tlc2.value.impl.Applicable';
const FOLD_FUNCTION = `${OVERRIDES}.foldFunction(${OP_BASE_FUN})`;
const FOLD_FUNCTION_ON_SET = `${OVERRIDES}.foldFunctionOnSet(${OP_BASE_FUN},tlc2.value.impl.Enumerable)`;

/** FoldFunctionOnSet: acc := op(fun[i], acc) for each i of indices, in TLC's enumeration order. */
function foldOn(op: OpValue, base: Value, fun: Value, indices: SetValue, c: Ctx): Value {
  let acc = base;
  indices.forEach((i) => {
    acc = op([apply(fun, i), acc], c);
  });
  return acc;
}

/** FoldFunction(op, base, fun): the fold over DOMAIN fun. */
export function foldFunction(op: OpValue, base: Value, fun: Value, c: Ctx): Value {
  if (!(fun instanceof FcnValue)) throw argCastError(FOLD_FUNCTION, fun, 'Applicable');
  return foldOn(op, base, fun, fun.domain(), c);
}

function foldFunctionOnSet(op: OpValue, base: Value, fun: Value, indices: Value, c: Ctx): Value {
  if (!(fun instanceof FcnValue)) throw argCastError(FOLD_FUNCTION_ON_SET, fun, 'Applicable');
  if (!isEnumerable(indices)) throw argCastError(FOLD_FUNCTION_ON_SET, indices, 'Enumerable');
  return foldOn(op, base, fun, indices, c);
}

export const FUNCTIONS: BuiltinModule = defineModule('Functions', ['Folds'], {
  Restrict: { arity: 2, fn: (a) => restrict(a[0] as Value, a[1] as Value) },
  RestrictDomain: {
    arity: 2,
    opParams: [1],
    fn: (a, _h, c) => restrictWhere(a[0] as Value, (x) => truth((a[1] as OpValue)([x], c))),
  },
  RestrictValues: {
    arity: 2,
    opParams: [1],
    fn: (a, _h, c) => {
      const f = a[0] as Value;
      return restrictWhere(f, (x) => truth((a[1] as OpValue)([apply(f, x)], c)));
    },
  },
  IsRestriction: { arity: 2, fn: (a) => isRestriction(a[0] as Value, a[1] as Value) },
  Range: { arity: 1, fn: (a) => range(a[0] as Value) },
  Pointwise: {
    arity: 3,
    opParams: [2],
    fn: (a, _h, c) => {
      const f = a[0] as Value;
      const g = a[1] as Value;
      return fcnOver(domainOf(f), (e) => (a[2] as OpValue)([apply(f, e), apply(g, e)], c));
    },
  },
  Inverse: { arity: 3, fn: (a) => inverse(a[0] as Value, a[1] as Value, a[2] as Value) },
  AntiFunction: {
    arity: 1,
    fn: (a) => {
      const f = a[0] as Value;
      return inverse(f, domainOf(f), range(f));
    },
  },
  IsInjective: { arity: 1, fn: (a) => isInjective(a[0] as Value) },
  Injection: { arity: 2, fn: (a) => injections(a[0] as Value, a[1] as Value) },
  Surjection: { arity: 2, fn: (a) => surjections(a[0] as Value, a[1] as Value) },
  Bijection: {
    arity: 2,
    fn: (a) => setCap(injections(a[0] as Value, a[1] as Value), surjections(a[0] as Value, a[1] as Value)),
  },
  ExistsInjection: { arity: 2, fn: (a) => count(a[0] as Value) <= count(a[1] as Value) },
  // A surjection onto T exists iff |S| >= |T|, and onto {} only from S = {}.
  ExistsSurjection: {
    arity: 2,
    fn: (a) => {
      const m = count(a[0] as Value);
      const n = count(a[1] as Value);
      return n === 0 ? m === 0 : m >= n;
    },
  },
  ExistsBijection: { arity: 2, fn: (a) => count(a[0] as Value) === count(a[1] as Value) },
  FoldFunction: {
    arity: 3,
    opParams: [0],
    fn: (a, _h, c) => foldFunction(a[0] as OpValue, a[1] as Value, a[2] as Value, c),
  },
  FoldFunctionOnSet: {
    arity: 4,
    opParams: [0],
    fn: (a, _h, c) => foldFunctionOnSet(a[0] as OpValue, a[1] as Value, a[2] as Value, a[3] as Value, c),
  },
});
