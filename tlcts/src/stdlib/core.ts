/**
 * TLA+'s built-in set operators (always in scope), and helpers the standard modules share: TLC's
 * value classes and kind names, its conversions (toTuple, toFcnRcd, toSetEnum) and error messages.
 *
 * Exit codes, as TLC gives them for an error met while computing successors: an EvalException
 * raised by a Java module override keeps its error code, which the exit-status map sends to 255
 * (`moduleError`); `Assert.fail` in value classes and in Tool raises a TLCRuntimeException, reported
 * with 75 (EvalError's default).
 */
import type { OpValue } from '../eval/runtime.js';
import { EvalError } from '../values/errors.js';
import {
  EMPTY_SET,
  type ExplicitFcn,
  FcnValue,
  FiniteSet,
  InfiniteSet,
  IntervalSet,
  LazyFcn,
  LazySet,
  ModelValue,
  Record as Rcd,
  SetValue,
  Tuple,
  equals,
  kindOf,
  setOf,
  show,
  type Value,
} from '../values/value.js';
import { binary, unary, type Builtin, type BuiltinModule } from './builtin.js';

// ---------------------------------------------------------------------------------------------------
// Module construction

export function defineModule(
  name: string,
  ext: readonly string[],
  ops: { [op: string]: Builtin },
): BuiltinModule {
  return { name, extends: ext, ops: new Map(Object.entries(ops)) };
}

// ---------------------------------------------------------------------------------------------------
// TLC's value classes, kind names and messages

/** `Value.getKindString` of TLC, per value class. */
const KIND_TEXT: { readonly [cls: string]: string } = {
  BoolValue: 'a Boolean value',
  IntValue: 'an integer',
  StringValue: 'a string',
  RecordValue: 'a record',
  SetEnumValue: 'a set of the form {e1, ... ,eN}',
  SetPredValue: 'a set of the form {x \\in S : expr}',
  TupleValue: 'a tuple',
  FcnLambdaValue: 'a function of the form  [x \\in S |-> expr]',
  FcnRcdValue: 'a function  of the form (d1 :> e1 @@ ... @@ dN :> eN)',
  SetOfFcnsValue: 'a set of the form [S -> T]',
  SetOfRcdsValue: 'a set of the form [d1 : S1, ... , dN : SN]',
  SetOfTuplesValue: 'a cartesian product',
  SubsetValue: 'a set of the form SUBSET S',
  SetDiffValue: 'a set of the form S \\ T',
  SetCapValue: 'a set of the form S \\cap T',
  SetCupValue: 'a set of the form S \\cup T',
  UnionValue: 'a set of the form UNION  S',
  ModelValue: 'a model value',
  UserValue: 'a special set constant',
  IntervalValue: 'a set of the form i..j',
};

/** The simple name of the TLC value class that represents v (best effort for lazy sets built elsewhere). */
export function javaClass(v: Value): string {
  switch (typeof v) {
    case 'boolean':
      return 'BoolValue';
    case 'number':
      return 'IntValue';
    case 'string':
      return 'StringValue';
  }
  if (v instanceof ModelValue) return 'ModelValue';
  if (v instanceof OpSet) return v.javaClass;
  if (v instanceof FiniteSet) return 'SetEnumValue';
  if (v instanceof IntervalSet) return 'IntervalValue';
  if (v instanceof InfiniteSet) return 'UserValue';
  if (v instanceof LazySet) return v.javaClass;
  if (v instanceof Tuple) return 'TupleValue';
  if (v instanceof Rcd) return 'RecordValue';
  return v instanceof LazyFcn ? 'FcnLambdaValue' : 'FcnRcdValue';
}

/** TLC's `getKindString`, as in "a non-function (a set of the form {e1, ... ,eN})". */
export function kindString(v: Value): string {
  return KIND_TEXT[javaClass(v)]!;
}

/** The noun TLC's value classes use for themselves in membership and finiteness errors. */
function noun(v: Value): string {
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'integer';
    case 'string':
      return 'string';
  }
  if (v instanceof ModelValue) return 'model value';
  if (v instanceof Tuple) return 'tuple';
  if (v instanceof Rcd) return 'record';
  return 'function';
}

/** An error raised by a TLC Java module override through EvalException: exit code 255. */
export function moduleError(message: string): EvalError {
  return new EvalError(message, 255);
}

/** EC.TLC_MODULE_ARGUMENT_ERROR / _AN: "The first argument of Op should be a[n] ...". */
export function argError(nth: string, op: string, what: string, v: Value | OpValue, an = false): EvalError {
  const shown = typeof v === 'function' ? opText(v) : show(v);
  return moduleError(
    `The ${nth} argument of ${op} should be a${an ? 'n' : ''} ${what}, but instead it is:\n${shown}`,
  );
}

/** EC.TLC_MODULE_ONE_ARGUMENT_ERROR. */
export function oneArgError(op: string, what: string, v: Value): EvalError {
  return moduleError(`The argument of ${op} should be a ${what}, but instead it is:\n${show(v)}`);
}

/** EC.TLC_MODULE_ARGUMENT_NOT_IN_DOMAIN: "The second argument of SubSeq must be in the domain of ...". */
export function notInDomain(nth: string, op: string, of: string, s: Value, v: Value): EvalError {
  return moduleError(
    `The ${nth} argument of ${op} must be in the domain of its ${of} argument:\n${show(s)}\n, but instead it is\n${show(v)}`,
  );
}

/** EC.TLC_MODULE_APPLYING_TO_WRONG_VALUE. */
export function wrongValue(op: string, what: string, v: Value): EvalError {
  return moduleError(`Applying ${op} to the following value,\nwhich is not ${what}:\n${show(v)}`);
}

/** EC.TLC_MODULE_OVERFLOW. */
export function overflow(expr: string): EvalError {
  return moduleError(`Overflow when computing ${expr}`);
}

/** EC.TLC_MODULE_CHECK_MEMBER_OF, raised by Nat, Int, STRING and Seq(S). */
export function notMemberOf(v: Value, setName: string): EvalError {
  return moduleError(`Attempted to check if the value:\n${show(v)}\nis an element of ${setName}.`);
}

/** How TLC prints an operator value (OpLambdaValue): the compiler may name an OpValue with `tlaName`. */
export function opText(op: OpValue): string {
  return `<Operator ${(op as { tlaName?: string }).tlaName ?? 'LAMBDA'}>`;
}

const IMPL = 'tlc2.value.impl.';

/** A Java module override that failed inside the method (EC.TLC_MODULE_VALUE_JAVA_METHOD_OVERRIDE). */
export function javaOverrideError(signature: string, message: string, exitCode = 75): EvalError {
  return new EvalError(
    `Attempted to apply the operator overridden by the Java method\n${signature},\nbut it produced the following error:\n${message}`,
    exitCode,
  );
}

/** The method handle of an override cast an argument to `target` (IntValue unless said) and failed. */
export function argCastError(signature: string, v: Value, target = 'IntValue'): EvalError {
  return javaOverrideError(signature, `Cannot cast ${IMPL}${javaClass(v)} to ${IMPL}${target}`);
}

/** The body of an override cast a value to IntValue and failed (a ClassCastException, Java 17 text). */
export function bodyCastError(signature: string, v: Value): EvalError {
  const cls = IMPL + javaClass(v);
  const int = `${IMPL}IntValue`;
  return javaOverrideError(
    signature,
    `class ${cls} cannot be cast to class ${int} (${cls} and ${int} are in unnamed module of loader 'app')`,
  );
}

// ---------------------------------------------------------------------------------------------------
// TLC's conversions and generic value operations

/** A set TLC can enumerate (class Enumerable): everything but Nat, Int, STRING, Seq(S) and the like. */
export function isEnumerable(v: Value): v is SetValue {
  return v instanceof SetValue && !(v instanceof InfiniteSet);
}

/** TLC's `member`: set membership, with the error a non-set gives. */
export function isIn(set: Value, v: Value): boolean {
  if (set instanceof SetValue) return set.has(v);
  throw new EvalError(
    `Attempted to check if the value:\n${show(v)}\nis an element of the ${noun(set)} ${show(set)}`,
  );
}

/** TLC's `isFinite`: functions count as finite, scalars are errors. */
export function isFiniteValue(v: Value): boolean {
  if (v instanceof SetValue) return v.isFinite();
  if (v instanceof FcnValue) return true;
  throw new EvalError(`Attempted to check if the ${noun(v)} ${show(v)} is a finite set.`);
}

/** TLC's `toTuple`: a function on 1..n as a Tuple, else null. */
export function asTuple(v: Value): Tuple | null {
  if (v instanceof Tuple) return v;
  if (v instanceof LazyFcn && v.domain().isFinite()) {
    const m = v.materialize();
    return m instanceof Tuple ? m : null;
  }
  return null;
}

/** TLC's `toFcnRcd`: a function with a finite domain, explicitly, else null. */
export function asFcn(v: Value): ExplicitFcn | null {
  if (!(v instanceof FcnValue)) return null;
  if (v instanceof LazyFcn && !v.domain().isFinite()) return null;
  return v.materialize();
}

/** TLC's `toSetEnum`: a finite enumerable set, normalized, else null. */
export function asSetEnum(v: Value): FiniteSet | null {
  return isEnumerable(v) && v.isFinite() ? v.normalized() : null;
}

/** The values of f, in the order of its keys. */
export function valuesOf(f: ExplicitFcn): Value[] {
  return Array.from({ length: f.size() }, (_, i) => f.valAt(i));
}

/**
 * Calls fn with each k-element selection of elems (k <= elems.length), in lexicographic order of
 * positions; false when fn asked to stop.
 */
export function forEachCombination(
  elems: readonly Value[],
  k: number,
  fn: (picked: Value[]) => void | boolean,
): boolean {
  const n = elems.length;
  const idx = Array.from({ length: k }, (_, i) => i);
  for (;;) {
    if (fn(idx.map((i) => elems[i]!)) === false) return false;
    let i = k - 1;
    while (i >= 0 && idx[i] === n - k + i) i--;
    if (i < 0) return true;
    idx[i]!++;
    for (let j = i + 1; j < k; j++) idx[j] = idx[j - 1]! + 1;
  }
}

/** The orderings of elems, in lexicographic order of their positions (TLC's Permutations order). */
export function permutations(elems: readonly Value[]): Value[][] {
  const out: Value[][] = [];
  const used = elems.map(() => false);
  const chosen: Value[] = [];
  const extend = (): void => {
    if (chosen.length === elems.length) {
      out.push(chosen.slice());
      return;
    }
    for (let i = 0; i < elems.length; i++) {
      if (used[i]) continue;
      used[i] = true;
      chosen.push(elems[i]!);
      extend();
      chosen.pop();
      used[i] = false;
    }
  };
  extend();
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Lazily evaluated sets

/**
 * A set that a built-in operator computes on demand, like TLC's SubsetValue, UnionValue, SetCupValue,
 * SetCapValue and SetDiffValue: membership without enumeration, enumeration in TLC's order.
 */
class OpSet extends LazySet {
  constructor(
    javaClass: string,
    readonly operands: readonly Value[],
    form: string,
    member: (v: Value) => boolean,
    enumerate: (fn: (v: Value) => void | boolean) => void,
    private readonly finiteness: () => boolean,
    private readonly symbolic: () => string,
    count?: () => number,
  ) {
    super(javaClass, form, member, enumerate, count);
  }
  override isFinite(): boolean {
    return this.finiteness();
  }
  /** The symbolic form TLC prints when it does not expand the set. */
  override describe(): string {
    return this.symbolic();
  }
}

/** Feeds the elements of s to fn; false when fn asked to stop. */
export function feed(s: SetValue, fn: (v: Value) => void | boolean): boolean {
  let more = true;
  s.forEach((v) => {
    if (fn(v) === false) return (more = false);
  });
  return more;
}

/** The error for enumerating SUBSET S when S cannot be enumerated. */
export function nonEnumerableSubset(base: Value): EvalError {
  return new EvalError(
    `Attempted to compute the value of an expression of form\nSUBSET S, but S is a non-enumerable value:\n${show(base)}`,
  );
}

/** SUBSET S: enumerated by size, then as combinations of the sorted S in lexicographic order. */
export function powerSet(base: Value): SetValue {
  const baseElems = (): readonly Value[] => {
    if (!isEnumerable(base)) throw nonEnumerableSubset(base);
    // TLC sizes a set before it enumerates it: SUBSET of 31 or more elements overflows there.
    base.size();
    return base.normalized().elems;
  };
  const symbolic = () => `SUBSET ${base instanceof IntervalSet ? `(${show(base)})` : show(base)}`;
  // TLC prints SUBSET S expanded when S has fewer than 7 elements.
  const text = (): string =>
    isEnumerable(base) && base.isFinite() && base.size() < 7 ? show(set) : symbolic();
  const set: OpSet = new OpSet(
    'SubsetValue',
    [base],
    'SUBSET S',
    (v) => {
      if (!isEnumerable(v)) {
        throw new EvalError(
          `Attempted to check if the non-enumerable value\n${show(v)}\nis element of\n${text()}`,
        );
      }
      return feed(v, (e) => isIn(base, e));
    },
    (fn) => {
      const elems = baseElems();
      if (fn(EMPTY_SET) === false) return;
      for (let k = 1; k <= elems.length; k++) {
        if (!forEachCombination(elems, k, (picked) => fn(new FiniteSet(picked)))) return;
      }
    },
    () => isFiniteValue(base),
    symbolic,
    () => {
      const n = baseElems().length;
      if (n >= 31) throw new EvalError(`Overflow when computing the number of elements in:\n${symbolic()}`);
      return 2 ** n;
    },
  );
  return set;
}

/** The elements of the sets of one FiniteSet, deduplicated; mixed kinds fail as TLC's equality does. */
function flatten(sets: readonly FiniteSet[]): FiniteSet {
  const out: Value[] = [];
  let ref: Value | undefined;
  for (const s of sets) {
    for (const v of s.elems) {
      if (!(v instanceof ModelValue)) {
        if (ref === undefined) ref = v;
        else if (kindOf(v) !== kindOf(ref)) equals(v, ref);
      }
      out.push(v);
    }
  }
  return setOf(out);
}

/** UNION S: computed at once when S and its elements are explicit finite sets, else on demand. */
export function bigUnion(s: Value): Value {
  if (s instanceof FiniteSet && s.elems.every((e) => e instanceof FiniteSet))
    return flatten(s.elems as FiniteSet[]);
  const set: OpSet = new OpSet(
    'UnionValue',
    [s],
    'UNION S',
    (v) => {
      if (!isEnumerable(s)) {
        throw new EvalError(
          `Attempted to check if:\n ${show(v)}\nis an element of the non-enumerable set:\n ${set.describe()}`,
        );
      }
      return !feed(s, (e) => !isIn(e, v));
    },
    (fn) => {
      if (!isEnumerable(s))
        throw new EvalError(`Attempted to enumerate the nonenumerable set:\n${set.describe()}`);
      let first = true;
      feed(s, (e) => {
        if (!isEnumerable(e)) {
          throw new EvalError(
            first
              ? 'Attempted to enumerate UNION(s), but some element of s is nonenumerable.'
              : `Attempted to enumerate the nonenumerable set:\n${show(e)}\nwhen enumerating:\n${set.describe()}`,
          );
        }
        first = false;
        return feed(e, fn);
      });
    },
    () => {
      if (!isEnumerable(s)) {
        throw new EvalError(
          `Attempted to check if the nonenumerable set:\n${set.describe()}\nis a finite set.`,
        );
      }
      return feed(s, isFiniteValue);
    },
    () => `UNION(${show(s)})`,
  );
  return set;
}

/** Explicit finite sets, on which TLC computes \cup, \cap and \ at once (its Reducible values). */
function isReducible(v: Value): v is FiniteSet | IntervalSet {
  return v instanceof FiniteSet || v instanceof IntervalSet;
}

/** S \cup T, as TLC evaluates it: elements of T not in S are found with S's membership test. */
export function setCup(a: Value, b: Value): Value {
  if (isReducible(a)) return reducibleCup(a, b);
  if (isReducible(b)) return reducibleCup(b, a);
  return lazyCup(a, b);
}

function reducibleCup(r: FiniteSet | IntervalSet, s: Value): Value {
  if (r.size() === 0) return s;
  if (!isReducible(s)) return lazyCup(r, s);
  const out = r.toArray();
  const n = out.length;
  s.forEach((v) => {
    if (!r.has(v)) out.push(v);
  });
  return out.length === n ? r : setOf(out);
}

function lazyCup(a: Value, b: Value): Value {
  return new OpSet(
    'SetCupValue',
    [a, b],
    'S \\cup T',
    (v) => isIn(a, v) || isIn(b, v),
    (fn) => {
      if (!isEnumerable(a) || !isEnumerable(b)) {
        throw new EvalError(
          `Attempted to enumerate S \\cup T when S:\n${show(a)}\nand T:\n${show(b)}\nare not both enumerable`,
        );
      }
      if (feed(a, fn)) feed(b, fn);
    },
    () => isFiniteValue(a) && isFiniteValue(b),
    () => `${show(a)} \\cup ${show(b)}`,
  );
}

/** The elements of r (in order) that pass keep. */
function filterReducible(r: FiniteSet | IntervalSet, keep: (v: Value) => boolean): FiniteSet {
  const out: Value[] = [];
  r.forEach((v) => {
    if (keep(v)) out.push(v);
  });
  return out.length === 0 ? EMPTY_SET : new FiniteSet(out);
}

/** S \cap T. */
export function setCap(a: Value, b: Value): Value {
  if (isReducible(a)) return filterReducible(a, (v) => isIn(b, v));
  if (isReducible(b)) return filterReducible(b, (v) => isIn(a, v));
  const set: OpSet = new OpSet(
    'SetCapValue',
    [a, b],
    'S \\cap T',
    (v) => isIn(a, v) && isIn(b, v),
    (fn) => {
      if (isEnumerable(a)) feed(a, (v) => !isIn(b, v) || fn(v));
      else if (isEnumerable(b)) feed(b, (v) => !isIn(a, v) || fn(v));
      else {
        throw new EvalError(
          `Attempted to enumerate S \\cap T when neither S:\n${show(a)}\nnor T:\n${show(b)}\nis enumerable`,
        );
      }
    },
    () => {
      if (!isFiniteValue(a) && !isFiniteValue(b)) {
        throw new EvalError(`Attempted to check if the set ${set.describe()}is finite.`);
      }
      return true;
    },
    () => `${show(a)} \\cap ${show(b)}`,
  );
  return set;
}

/** S \ T. */
export function setDiff(a: Value, b: Value): Value {
  if (isReducible(a)) return filterReducible(a, (v) => !isIn(b, v));
  const set: OpSet = new OpSet(
    'SetDiffValue',
    [a, b],
    'S \\ T',
    (v) => isIn(a, v) && !isIn(b, v),
    (fn) => {
      if (!isEnumerable(a))
        throw new EvalError(`Attempted to enumerate S \\ T when S:\n${show(a)}\nis not enumerable.`);
      feed(a, (v) => isIn(b, v) || fn(v));
    },
    () => {
      if (isFiniteValue(a)) return true;
      if (!isFiniteValue(b)) throw new EvalError(`Attempted to check if the set ${set.describe()}is finite.`);
      return false;
    },
    () => `${show(a)} \\ ${show(b)}`,
  );
  return set;
}

/**
 * S \subseteq T. TLC's message ends with the location of the expression, which the caller appends
 * (the message here ends with a newline).
 */
export function isSubsetEq(a: Value, b: Value): boolean {
  if (!isEnumerable(a)) {
    throw new EvalError(
      'Attempted to evaluate an expression of form S \\subseteq T, but S was not enumerable.\n',
    );
  }
  // SUBSET A \subseteq SUBSET B is decided as A \subseteq B, without the power sets.
  if (isSubsetValue(a) && isSubsetValue(b) && isEnumerable(a.operands[0]!))
    return isSubsetEq(a.operands[0]!, b.operands[0]!);
  if (a instanceof IntervalSet && b instanceof IntervalSet && b.lo <= a.lo && b.hi >= a.hi) return true;
  return feed(a, (v) => isIn(b, v));
}

function isSubsetValue(v: Value): v is OpSet {
  return v instanceof OpSet && v.javaClass === 'SubsetValue';
}

/**
 * DOMAIN f. TLC's message ends with the location of the expression, which the caller appends (the
 * message here ends with a newline).
 */
export function domainOf(f: Value): SetValue {
  if (f instanceof FcnValue) return f.domain();
  throw new EvalError(`Attempted to apply the operator DOMAIN to a non-function\n(${kindString(f)})\n`);
}

export const BOOLEAN_SET: FiniteSet = setOf([false, true]);

export const STRING_SET: SetValue = new InfiniteSet('STRING', (v) => {
  if (typeof v === 'string') return true;
  if (v instanceof ModelValue) return false;
  throw notMemberOf(v, 'STRING');
});

export const CORE: BuiltinModule = defineModule('--TLA+ BUILTINS--', [], {
  SUBSET: { arity: 1, fn: (a) => powerSet(a[0] as Value) },
  UNION: { arity: 1, fn: (a) => bigUnion(a[0] as Value) },
  DOMAIN: unary(domainOf),
  '\\cup': binary(setCup),
  '\\cap': binary(setCap),
  '\\': binary(setDiff),
  '\\subseteq': binary(isSubsetEq),
  BOOLEAN: { arity: 0, fn: () => BOOLEAN_SET },
  STRING: { arity: 0, fn: () => STRING_SET },
  // Action composition: named here, taken by the compiler as the actions it composes (action-mode.ts).
  '\\cdot': {
    arity: 2,
    lazyParams: [0, 1],
    fn: () => {
      throw new EvalError('Internal error: \\cdot evaluated as a value.', 255);
    },
  },
});
