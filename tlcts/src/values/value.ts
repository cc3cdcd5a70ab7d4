/**
 * TLA+ values with TLC's semantics.
 *
 * Booleans, integers and strings are JS primitives; everything else is an immutable object.
 * Functions have one canonical representation per value (a function on 1..n is a Tuple, a non-empty
 * function on strings is a Record, anything else a Fcn), so equal values hash alike.
 */
import { EvalError } from './errors.js';
import {
  FCN_TAG,
  OUT,
  SET_TAG,
  finish1,
  finish2,
  hashComposite,
  mix1,
  mix2,
  out,
  pairHash,
  stringHash,
} from './hash.js';

export type Value = boolean | number | string | ModelValue | SetValue | FcnValue;

export const enum Kind {
  Bool = 0,
  Int = 1,
  Str = 2,
  Model = 3,
  Set = 4,
  Fcn = 5,
}

export function kindOf(v: Value): Kind {
  switch (typeof v) {
    case 'boolean':
      return Kind.Bool;
    case 'number':
      return Kind.Int;
    case 'string':
      return Kind.Str;
    default:
      return v.kind;
  }
}

// ---------------------------------------------------------------------------------------------------
// Fingerprints of values (hash.ts mixes the words; fingerprint.ts hashes states)

/** Sets OUT to the hash of v. */
export function elementHash(v: Value): void {
  switch (typeof v) {
    case 'boolean':
      return out(v ? 0x7001 : 0x7000, 0x51ed270b);
    case 'number':
      return out(v | 0, 0x7002);
    case 'string': {
      const [a, b] = stringHash(v);
      return out(a, b ^ 0x7003);
    }
  }
  const fp = v.fingerprint();
  out(fp[0], fp[1]);
}

function compositeHash(v: SetValue | FcnValue): [number, number] {
  let a1 = 0;
  let a2 = 0;
  if (v instanceof SetValue) {
    const elems = v.normalized().elems;
    for (let i = 0; i < elems.length; i++) {
      elementHash(elems[i]!);
      a1 = (a1 + OUT[0]!) | 0;
      a2 = (a2 + OUT[1]!) | 0;
    }
    hashComposite(SET_TAG, elems.length, a1, a2);
    return [OUT[0]!, OUT[1]!];
  }
  const f = v.materialize();
  const n = f.size();
  for (let i = 0; i < n; i++) {
    elementHash(f.keyAt(i));
    const k1 = OUT[0]!;
    const k2 = OUT[1]!;
    elementHash(f.valAt(i));
    pairHash(k1, k2, OUT[0]!, OUT[1]!);
    a1 = (a1 + OUT[0]!) | 0;
    a2 = (a2 + OUT[1]!) | 0;
  }
  hashComposite(FCN_TAG, n, a1, a2);
  return [OUT[0]!, OUT[1]!];
}

// ---------------------------------------------------------------------------------------------------
// Model values

export class ModelValue {
  readonly kind = Kind.Model;
  private fp?: [number, number];
  /** The name's position in the intern order (cached for compare). */
  private order = -1;
  /** Hashes under the permutations of a symmetry group (cached; see fingerprintLeast in fingerprint.ts). */
  lanes?: Int32Array;
  /**
   * A typed model value's type (`T_1` has type T), null for an untyped one: TLC refuses to compare
   * a typed model value with one of another type or with a value that is not a model value.
   */
  readonly type: string | null;
  constructor(readonly name: string) {
    this.type = name.length > 2 && name[1] === '_' ? name[0]! : null;
  }
  fingerprint(): [number, number] {
    if (!this.fp) {
      const [a, b] = stringHash(this.name);
      this.fp = [finish1(mix1(mix1(0x243f6a88 ^ 3, a), b)), finish2(mix2(mix2(0x85a308d3 ^ 3, a), b))];
    }
    return this.fp;
  }
  /** The name's position in TLC's intern order. */
  internOrder(): number {
    return this.order >= 0 ? this.order : (this.order = intern(this.name));
  }
}

const modelValues = new Map<string, ModelValue>();
/** The model value named `name`; one object per name. */
export function modelValue(name: string): ModelValue {
  let mv = modelValues.get(name);
  if (!mv) {
    mv = new ModelValue(name);
    intern(name);
    modelValues.set(name, mv);
  }
  return mv;
}

// ---------------------------------------------------------------------------------------------------
// Ordering and equality

// TLC orders strings, record fields and model values by when their text was first interned
// (UniqueString): cfg values first, then the modules' tokens in parse order (see docs/tlc-semantics.md).
const internIds = new Map<string, number>();

/** Records s in the intern order if it is not there yet; returns its position. */
export function intern(s: string): number {
  let id = internIds.get(s);
  if (id === undefined) {
    id = internIds.size;
    internIds.set(s, id);
  }
  return id;
}

/** How many strings the intern order holds. */
export function internedCount(): number {
  return internIds.size;
}

/** Starts a new intern order and model-value table (one per model checked in this process). */
export function resetValueTables(): void {
  internIds.clear();
  modelValues.clear();
}

export function compareStrings(a: string, b: string): number {
  return a === b ? 0 : intern(a) - intern(b);
}

/**
 * TLC's total order on comparable values, used to normalize sets. Values of different kinds are
 * incomparable (an error), except that a model value is unequal to, and ordered after, anything else.
 */
export function compare(a: Value, b: Value): number {
  if (a === b) return 0;
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka !== kb) {
    if (ka === Kind.Model || kb === Kind.Model) {
      const [mv, other] = ka === Kind.Model ? [a as ModelValue, b] : [b as ModelValue, a];
      if (mv.type !== null)
        throw new EvalError(
          `Attempted to compare the typed model value ${show(mv)} and non-model value\n${show(other)}`,
        );
      return ka === Kind.Model ? -1 : 1;
    }
    throw new EvalError(`Attempted to compare ${describeKind(a)} with ${NON_NAMES[ka]}:\n${show(b)}`);
  }
  switch (ka) {
    case Kind.Bool:
      return a ? 1 : -1;
    case Kind.Int:
      return (a as number) - (b as number);
    case Kind.Str:
      return compareStrings(a as string, b as string);
    case Kind.Model:
      checkTypes(a as ModelValue, b as ModelValue, 'compare');
      return (a as ModelValue).internOrder() - (b as ModelValue).internOrder();
    case Kind.Set:
      return compareSets(a as SetValue, b as SetValue);
    case Kind.Fcn:
      return compareFcns(a as FcnValue, b as FcnValue);
  }
}

function compareSets(a: SetValue, b: SetValue): number {
  const x = a.normalized().elems;
  const y = b.normalized().elems;
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) {
    const c = compare(x[i]!, y[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

function compareFcns(a: FcnValue, b: FcnValue): number {
  const fa = a.materialize();
  const fb = b.materialize();
  const n = fa.size();
  if (n !== fb.size()) return n - fb.size();
  for (let i = 0; i < n; i++) {
    const c = compare(fa.keyAt(i), fb.keyAt(i));
    if (c !== 0) return c;
  }
  for (let i = 0; i < n; i++) {
    const c = compare(fa.valAt(i), fb.valAt(i));
    if (c !== 0) return c;
  }
  return 0;
}

/** Model values of two types are not compared (`ModelValue#compareTo`, `#equals`). */
function checkTypes(a: ModelValue, b: ModelValue, what: 'compare' | 'check equality of'): void {
  if (a.type !== null && b.type !== null && a.type !== b.type)
    throw new EvalError(`Attempted to ${what} the differently-typed model values ${a.name} and ${b.name}`);
}

const NON_NAMES = ['non-boolean', 'non-integer', 'non-string', 'non-model value', 'the value', 'the value'];

function describeKind(v: Value): string {
  switch (kindOf(v)) {
    case Kind.Bool:
      return `boolean ${show(v)}`;
    case Kind.Int:
      return `integer ${show(v)}`;
    case Kind.Str:
      return `string ${show(v)}`;
    case Kind.Set:
      return `the set ${show(v)}`;
    default:
      return v instanceof Record ? `record:\n${show(v)}\n` : `the function ${show(v)}`;
  }
}

/** TLA+ equality with TLC's errors for values that cannot be compared. */
export function equals(a: Value, b: Value): boolean {
  if (a === b) return true;
  const ta = typeof a;
  if (ta !== 'object' && ta === typeof b) return false;
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka !== kb) {
    if (ka === Kind.Model && (a as ModelValue).type !== null)
      throw new EvalError(
        `Attempted to check equality of typed model value ${show(a)} and non-model value\n${show(b)}`,
      );
    if (kb === Kind.Model && (b as ModelValue).type !== null) {
      throw new EvalError(
        `Attempted to check equality of the typed model value ${show(b)} and the non-model value\n${show(a)}`,
      );
    }
    if (ka === Kind.Model || kb === Kind.Model) return false;
    throw new EvalError(
      `Attempted to check equality of ${describeKind(a)} with ${NON_NAMES[ka]}:\n${show(b)}`,
    );
  }
  if (ka === Kind.Model) {
    checkTypes(a as ModelValue, b as ModelValue, 'check equality of');
    return false;
  }
  // Sizes at hand differ: unequal, without hashing either value.
  if (a instanceof FiniteSet && b instanceof FiniteSet && a.elems.length !== b.elems.length) return false;
  if (a instanceof Tuple && b instanceof Tuple && a.elems.length !== b.elems.length) return false;
  const fa = (a as SetValue | FcnValue).fingerprint();
  const fb = (b as SetValue | FcnValue).fingerprint();
  if (fa[0] !== fb[0] || fa[1] !== fb[1]) return false;
  return compare(a, b) === 0;
}

/** Set membership order key check: binary search in sorted elements. */
function searchSorted(elems: readonly Value[], v: Value): number {
  let lo = 0;
  let hi = elems.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compare(elems[mid]!, v);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -(lo + 1);
}

/**
 * Where v is among sorted, duplicate-free elements (negative when absent). A scalar or model value
 * equals only itself, so a few elements are scanned for it rather than compared.
 */
function findSorted(elems: readonly Value[], v: Value): number {
  if (elems.length > 8 || (typeof v === 'object' && !(v instanceof ModelValue)))
    return searchSorted(elems, v);
  for (let i = 0; i < elems.length; i++) if (elems[i] === v) return i;
  return -1;
}

/**
 * Membership compares v with the elements: values of another kind are an error, as in TLC (values
 * of one kind are compared as the elements are searched).
 */
function checkComparable(elems: readonly Value[], v: Value): void {
  if (elems.length === 0) return;
  const kv = kindOf(v);
  const e = elems[elems.length - 1]!;
  const ke = kindOf(e);
  if (kv === Kind.Model) {
    if ((v as ModelValue).type !== null) equals(v, e);
    return;
  }
  if (ke !== Kind.Model && ke !== kv) equals(v, e);
}

// ---------------------------------------------------------------------------------------------------
// Sets

/**
 * What sets and functions cache about themselves. Fields here and below are declared and assigned
 * in constructors, not initialized in class bodies: a class field initializer shared by several
 * subclasses is a slow, megamorphic define in V8.
 */
abstract class CachingValue {
  declare protected fp?: [number, number];
  /** Whether some model value occurs in the value (cached; see hasModelValues). */
  declare mv?: boolean;
  /** Hashes under the permutations of a symmetry group (cached; see fingerprintLeast in fingerprint.ts). */
  declare lanes?: Int32Array;
  constructor() {
    this.fp = undefined;
    this.mv = undefined;
    this.lanes = undefined;
  }
  /** The fingerprint, if computed yet (the codec keeps it beside the value). */
  knownFingerprint(): [number, number] | undefined {
    return this.fp;
  }
  /** Takes the fingerprint computed for an equal value (as the codec decodes one). */
  restoreFingerprint(fp: [number, number]): void {
    this.fp = fp;
  }
}

export abstract class SetValue extends CachingValue {
  declare readonly kind: Kind.Set;
  constructor() {
    super();
    this.kind = Kind.Set;
  }
  abstract has(v: Value): boolean;
  abstract isFinite(): boolean;
  /** Number of elements; throws for an infinite set. */
  size(): number {
    return this.normalized().elems.length;
  }
  /** Elements in TLC's enumeration order; throws for a set that cannot be enumerated. */
  abstract forEach(fn: (v: Value) => void | boolean): void;
  /** The set as a sorted, duplicate-free enumeration. */
  abstract normalized(): FiniteSet;
  /** A short description used in errors, in TLA+ syntax. */
  abstract describe(): string;
  fingerprint(): [number, number] {
    return (this.fp ??= compositeHash(this));
  }
  toArray(): Value[] {
    const out: Value[] = [];
    this.forEach((v) => {
      out.push(v);
    });
    return out;
  }
}

export class FiniteSet extends SetValue {
  /** Sorted by `compare`, without duplicates. */
  constructor(readonly elems: readonly Value[]) {
    super();
  }
  has(v: Value): boolean {
    checkComparable(this.elems, v);
    return findSorted(this.elems, v) >= 0;
  }
  isFinite(): boolean {
    return true;
  }
  override size(): number {
    return this.elems.length;
  }
  forEach(fn: (v: Value) => void | boolean): void {
    for (const e of this.elems) if (fn(e) === false) return;
  }
  normalized(): FiniteSet {
    return this;
  }
  describe(): string {
    return show(this);
  }
}

export const EMPTY_SET = new FiniteSet([]);

/** Builds a set from elements in any order, with duplicates. */
export function setOf(elems: Value[]): FiniteSet {
  if (elems.length <= 1) return elems.length === 0 ? EMPTY_SET : new FiniteSet(elems);
  elems.sort(compare);
  let w = 1;
  for (let i = 1; i < elems.length; i++) {
    if (compare(elems[i]!, elems[w - 1]!) !== 0) elems[w++] = elems[i]!;
  }
  elems.length = w;
  return new FiniteSet(elems);
}

export class IntervalSet extends SetValue {
  private cache?: FiniteSet;
  constructor(
    readonly lo: number,
    readonly hi: number,
  ) {
    super();
  }
  has(v: Value): boolean {
    if (typeof v !== 'number') {
      if (kindOf(v) === Kind.Model) return false;
      throw new EvalError(
        `Attempted to check if the value:\n${show(v)}\nis in the integer interval ${this.describe()}`,
      );
    }
    return v >= this.lo && v <= this.hi;
  }
  isFinite(): boolean {
    return true;
  }
  override size(): number {
    return Math.max(0, this.hi - this.lo + 1);
  }
  forEach(fn: (v: Value) => void | boolean): void {
    for (let i = this.lo; i <= this.hi; i++) if (fn(i) === false) return;
  }
  normalized(): FiniteSet {
    if (!this.cache) {
      const out: number[] = [];
      for (let i = this.lo; i <= this.hi; i++) out.push(i);
      this.cache = new FiniteSet(out);
    }
    return this.cache;
  }
  describe(): string {
    return `${this.lo}..${this.hi}`;
  }
}

/** Nat, Int, STRING, Seq(S), filters of infinite sets: membership only. */
export class InfiniteSet extends SetValue {
  constructor(
    private readonly label: Label,
    private readonly member: (v: Value) => boolean,
  ) {
    super();
  }
  get name(): string {
    return labelText(this.label);
  }
  has(v: Value): boolean {
    return this.member(v);
  }
  isFinite(): boolean {
    return false;
  }
  forEach(): void {
    throw new EvalError(`Attempted to enumerate the infinite set ${this.name}.`);
  }
  normalized(): FiniteSet {
    throw new EvalError(`Attempted to enumerate the infinite set ${this.name}.`);
  }
  override size(): number {
    throw new EvalError(`Attempted to compute the number of elements of the infinite set ${this.name}.`);
  }
  describe(): string {
    return this.name;
  }
}

/** A set defined by enumeration on demand (SUBSET S, [S -> T], S \X T, record sets, filters). */
export class LazySet extends SetValue {
  private cache?: FiniteSet;
  constructor(
    /** The TLC value class this set stands for (TLC names it in some messages). */
    readonly javaClass: string,
    private readonly label: Label,
    private readonly member: (v: Value) => boolean,
    private readonly enumerate: (fn: (v: Value) => void | boolean) => void,
    private readonly count?: () => number,
    private readonly finite = true,
  ) {
    super();
  }
  has(v: Value): boolean {
    return this.member(v);
  }
  isFinite(): boolean {
    return this.finite;
  }
  override size(): number {
    return this.count ? this.count() : this.normalized().elems.length;
  }
  forEach(fn: (v: Value) => void | boolean): void {
    if (this.cache) this.cache.forEach(fn);
    else this.enumerate(fn);
  }
  normalized(): FiniteSet {
    if (!this.cache) {
      const out: Value[] = [];
      this.enumerate((v) => {
        out.push(v);
      });
      this.cache = setOf(out);
    }
    return this.cache;
  }
  describe(): string {
    return labelText(this.label);
  }
}

/** How a lazy set prints: text, or a function computing it only when needed (it may be long). */
export type Label = string | (() => string);

function labelText(l: Label): string {
  return typeof l === 'string' ? l : l();
}

// ---------------------------------------------------------------------------------------------------
// Functions, tuples, records

export abstract class FcnValue extends CachingValue {
  declare readonly kind: Kind.Fcn;
  constructor() {
    super();
    this.kind = Kind.Fcn;
  }
  /** Applies the function; `undefined` when arg is outside the domain. */
  abstract get(arg: Value): Value | undefined;
  abstract domain(): SetValue;
  /** The function with a finite, explicit domain (sorted keys). */
  abstract materialize(): ExplicitFcn;
  fingerprint(): [number, number] {
    return (this.fp ??= this.materialize().fingerprint());
  }
}

/** A function with an explicit finite domain: keys sorted by `compare`. */
export abstract class ExplicitFcn extends FcnValue {
  abstract size(): number;
  abstract keyAt(i: number): Value;
  abstract valAt(i: number): Value;
  materialize(): ExplicitFcn {
    return this;
  }
  /** The same domain with the value at sorted index i replaced. */
  abstract withIndex(i: number, v: Value): ExplicitFcn;
  abstract indexOf(arg: Value): number;
  override fingerprint(): [number, number] {
    return (this.fp ??= compositeHash(this));
  }
  get(arg: Value): Value | undefined {
    const i = this.indexOf(arg);
    return i < 0 ? undefined : this.valAt(i);
  }
}

export class Tuple extends ExplicitFcn {
  constructor(readonly elems: readonly Value[]) {
    super();
  }
  size(): number {
    return this.elems.length;
  }
  keyAt(i: number): Value {
    return i + 1;
  }
  valAt(i: number): Value {
    return this.elems[i]!;
  }
  indexOf(arg: Value): number {
    if (typeof arg === 'number') return arg >= 1 && arg <= this.elems.length ? arg - 1 : -1;
    return -1;
  }
  override get(arg: Value): Value | undefined {
    return typeof arg === 'number' && arg >= 1 && arg <= this.elems.length ? this.elems[arg - 1] : undefined;
  }
  withIndex(i: number, v: Value): ExplicitFcn {
    const copy = this.elems.slice();
    copy[i] = v;
    return new Tuple(copy);
  }
  domain(): SetValue {
    return new IntervalSet(1, this.elems.length);
  }
}

export const EMPTY_TUPLE = new Tuple([]);

export class Record extends ExplicitFcn {
  /** names sorted by string order, non-empty. */
  constructor(
    readonly names: readonly string[],
    readonly vals: readonly Value[],
  ) {
    super();
  }
  size(): number {
    return this.names.length;
  }
  keyAt(i: number): Value {
    return this.names[i]!;
  }
  valAt(i: number): Value {
    return this.vals[i]!;
  }
  indexOf(arg: Value): number {
    if (typeof arg !== 'string') return -1;
    const names = this.names;
    for (let i = 0; i < names.length; i++) if (names[i] === arg) return i;
    return -1;
  }
  override get(arg: Value): Value | undefined {
    const i = this.indexOf(arg);
    return i < 0 ? undefined : this.vals[i];
  }
  withIndex(i: number, v: Value): ExplicitFcn {
    const copy = this.vals.slice();
    copy[i] = v;
    return new Record(this.names, copy);
  }
  domain(): SetValue {
    return new FiniteSet(this.names);
  }
}

export class Fcn extends ExplicitFcn {
  constructor(
    readonly keys: readonly Value[],
    readonly vals: readonly Value[],
  ) {
    super();
  }
  size(): number {
    return this.keys.length;
  }
  keyAt(i: number): Value {
    return this.keys[i]!;
  }
  valAt(i: number): Value {
    return this.vals[i]!;
  }
  indexOf(arg: Value): number {
    const keys = this.keys;
    const first = keys[0];
    // Keys lo..hi (sorted, distinct integers spanning as many values as there are keys): arg - lo.
    if (
      typeof arg === 'number' &&
      typeof first === 'number' &&
      keys[keys.length - 1] === first + keys.length - 1
    ) {
      const i = arg - first;
      return i >= 0 && i < keys.length ? i : -1;
    }
    checkComparable(keys, arg);
    return findSorted(keys, arg);
  }
  override get(arg: Value): Value | undefined {
    const i = this.indexOf(arg);
    return i < 0 ? undefined : this.vals[i];
  }
  withIndex(i: number, v: Value): ExplicitFcn {
    const copy = this.vals.slice();
    copy[i] = v;
    return new Fcn(this.keys, copy);
  }
  domain(): SetValue {
    return new FiniteSet(this.keys);
  }
}

/** The canonical function for sorted, duplicate-free keys and their values. */
export function fcnOf(keys: readonly Value[], vals: readonly Value[]): ExplicitFcn {
  const n = keys.length;
  if (n === 0) return EMPTY_TUPLE;
  if (keys[0] === 1 && keys[n - 1] === n && typeof keys[n - 1] === 'number') return new Tuple(vals);
  if (typeof keys[0] === 'string' && typeof keys[n - 1] === 'string')
    return new Record(keys as string[], vals);
  return new Fcn(keys, vals);
}

/** Builds a function from a map given in any order (keys distinct). */
export function fcnFromPairs(pairs: [Value, Value][]): ExplicitFcn {
  pairs.sort((x, y) => compare(x[0], y[0]));
  return fcnOf(
    pairs.map((p) => p[0]),
    pairs.map((p) => p[1]),
  );
}

export function recordOf(fields: { name: string; value: Value }[]): ExplicitFcn {
  return fcnFromPairs(fields.map((f) => [f.name, f.value]));
}

/** A function evaluated on demand: [x \in S |-> e] over a large or infinite S, recursive definitions. */
export class LazyFcn extends FcnValue {
  private readonly cache = new Map<string | number | boolean | object, Value>();
  private explicit?: ExplicitFcn;
  constructor(
    readonly dom: SetValue,
    private readonly compute: (arg: Value) => Value,
  ) {
    super();
  }
  get(arg: Value): Value | undefined {
    if (!this.dom.has(arg)) return undefined;
    const key = typeof arg === 'object' ? show(arg) : arg;
    let v = this.cache.get(key);
    if (v === undefined) {
      v = this.compute(arg);
      this.cache.set(key, v);
    }
    return v;
  }
  domain(): SetValue {
    return this.dom;
  }
  materialize(): ExplicitFcn {
    if (!this.explicit) {
      const keys = this.dom.normalized().elems;
      this.explicit = fcnOf(
        keys,
        keys.map((k) => this.get(k)!),
      );
    }
    return this.explicit;
  }
}

// ---------------------------------------------------------------------------------------------------
// Printing, as TLC prints values

export function show(v: Value): string {
  switch (typeof v) {
    case 'boolean':
      return v ? 'TRUE' : 'FALSE';
    case 'number':
      return String(v);
    case 'string':
      return JSON.stringify(v);
  }
  if (v instanceof ModelValue) return v.name;
  if (v instanceof SetValue) {
    if (v instanceof IntervalSet) return v.size() === 0 ? '{}' : v.describe();
    if (v instanceof InfiniteSet) return v.describe();
    if (v instanceof LazySet && !v.isFinite()) return v.describe();
    return '{' + v.normalized().elems.map(show).join(', ') + '}';
  }
  const f = v.materialize();
  if (f instanceof Tuple) return '<<' + f.elems.map(show).join(', ') + '>>';
  if (f instanceof Record)
    return '[' + f.names.map((n, i) => `${n} |-> ${show(f.vals[i]!)}`).join(', ') + ']';
  const parts: string[] = [];
  for (let i = 0; i < f.size(); i++) parts.push(`${show(f.keyAt(i))} :> ${show(f.valAt(i))}`);
  return '(' + parts.join(' @@ ') + ')';
}

/** Whether a model value occurs anywhere in v (symmetry reduction leaves other values alone). */
export function hasModelValues(v: Value): boolean {
  if (typeof v !== 'object') return false;
  if (v instanceof ModelValue) return true;
  if (v.mv === undefined) {
    if (v instanceof SetValue) v.mv = v.normalized().elems.some(hasModelValues);
    else {
      const f = v.materialize();
      let found = false;
      for (let i = 0; i < f.size() && !found; i++)
        found = hasModelValues(f.keyAt(i)) || hasModelValues(f.valAt(i));
      v.mv = found;
    }
  }
  return v.mv;
}

export function isSet(v: Value): v is SetValue {
  return v instanceof SetValue;
}

export function isFcn(v: Value): v is FcnValue {
  return v instanceof FcnValue;
}
