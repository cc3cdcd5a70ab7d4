/**
 * TLA+ values with TLC's semantics.
 *
 * Booleans, integers and strings are JS primitives; everything else is an immutable object.
 * Functions have one canonical representation per value (a function on 1..n is a Tuple, a non-empty
 * function on strings is a Record, anything else a Fcn), so equal values hash alike.
 */
import { EvalError } from './errors.js';

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
// Fingerprints: two 32-bit lanes (64 bits) mixed with Math.imul, cached on composite values. The
// lanes live in local variables and the element hash in a typed array: a module-level `let` holding
// an int32 would box it on every write.

/** One round of lane 1 (murmur3's) on the word. */
function mix1(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** One round of lane 2 on the word. */
function mix2(h: number, word: number): number {
  let j = Math.imul(word ^ 0x5bd1e995, 0x85ebca6b);
  j = (j << 17) | (j >>> 15);
  j = Math.imul(j, 0xc2b2ae35);
  h ^= j;
  h = (h << 11) | (h >>> 21);
  return (Math.imul(h, 9) + 0x7fb5b1a3) | 0;
}

function finish1(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}

function finish2(h: number): number {
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const stringHashes = new Map<string, [number, number]>();

function stringHash(s: string): [number, number] {
  let cached = stringHashes.get(s);
  if (!cached) {
    let a = mix1(0x3c6ef372, s.length);
    let b = mix2(0x1f83d9ab, s.length);
    for (let i = 0; i < s.length; i++) {
      a = mix1(a, s.charCodeAt(i));
      b = mix2(b, s.charCodeAt(i));
    }
    cached = [finish1(a), finish2(b)];
    if (stringHashes.size < 1_000_000) stringHashes.set(s, cached);
  }
  return cached;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

// The hash of one element, as two words in OUT (no allocation on the hot path). Sets and functions
// add their elements' hashes, so their fingerprint does not depend on the order of the elements: a
// state permuted by a symmetry can then be fingerprinted without rebuilding or re-sorting its values.
const OUT = new Int32Array(2);

function out(a: number, b: number): void {
  OUT[0] = fmix(a ^ Math.imul(b ^ (b >>> 15), 0x2c1b3c6d));
  OUT[1] = fmix((b + Math.imul(a ^ (a >>> 13), 0x297a2d39) + 0x68e31da4) | 0);
}

/** A renaming of model values by a symmetry. */
export interface Permutation {
  map: ReadonlyMap<Value, Value>;
}

/** Sets OUT to the hash of v. */
function elementHash(v: Value): void {
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

/** Sets OUT to the hash of a function's pair from the hashes of its key (k1, k2) and value (v1, v2). */
function pairHash(k1: number, k2: number, v1: number, v2: number): void {
  out(k1 ^ fmix((v1 + 0x3c6ef372) | 0), (k2 + fmix(v2 ^ 0x1f83d9ab)) | 0);
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

const SET_TAG = 4;
const FCN_TAG = 5;

/** The keys of the variables 0, 1, ... (two words each), grown as needed. */
let indexHashes = new Int32Array(0);

/** Sets OUT to the hash of variable i holding a value whose hash is (v1, v2): v's, keyed by i. */
function variableHash(i: number, v1: number, v2: number): void {
  if (2 * i >= indexHashes.length) {
    const grown = new Int32Array(Math.max(64, 4 * (i + 1)));
    grown.set(indexHashes);
    // Keys of their own (not the integers' element hashes: variable i holding j would hash as j holding i).
    for (let j = indexHashes.length / 2; j < grown.length / 2; j++) {
      out(j, 0x7004);
      grown[2 * j] = OUT[0]!;
      grown[2 * j + 1] = OUT[1]!;
    }
    indexHashes = grown;
  }
  OUT[0] = fmix(v1 ^ indexHashes[2 * i]!);
  OUT[1] = fmix((v2 + indexHashes[2 * i + 1]!) | 0);
}

/** The words a state's hash starts from. */
const STATE_SEED1 = 0x9e3779b9 | 0;
const STATE_SEED2 = 0x7f4a7c15;

/** Sets OUT to the fingerprint of a state of n variables whose hashes add up to a1/a2. */
function stateHash(n: number, a1: number, a2: number): void {
  OUT[0] = finish1(mix1(mix1(STATE_SEED1, n), a1));
  OUT[1] = finish2(mix2(mix2(STATE_SEED2, n), a2));
}

/**
 * Fingerprint of a sequence of values (a state): [hi, lo] as two int32. Hashed as a function from
 * indices to values (the variables' hashes added up), so that a successor's is computed from its
 * predecessor's sums and the variables the step changed (see StateHashes).
 */
export function fingerprintValues(vs: readonly Value[]): [number, number] {
  let a1 = 0;
  let a2 = 0;
  for (let i = 0; i < vs.length; i++) {
    elementHash(vs[i]!);
    variableHash(i, OUT[0]!, OUT[1]!);
    a1 = (a1 + OUT[0]!) | 0;
    a2 = (a2 + OUT[1]!) | 0;
  }
  stateHash(vs.length, a1, a2);
  return [OUT[0]!, OUT[1]!];
}

/**
 * The least fingerprint (by hi, then lo, as signed ints) of a state and of its images under the
 * permutations: the fingerprint of its orbit under a symmetry group. One pass over the values
 * hashes them under every permutation at once.
 */
export function fingerprintLeast(vs: readonly Value[], perms: readonly Permutation[]): [number, number] {
  const g = groupOf(perms);
  const sums = scratchAt(g, 0);
  const term = scratchAt(g, 1);
  sums.fill(0);
  for (let i = 0; i < vs.length; i++) {
    variableLanes(i, vs[i]!, g, term, 0);
    for (let j = 0; j < term.length; j++) sums[j] = (sums[j]! + term[j]!) | 0;
  }
  return leastOfLanes(sums, vs.length, g.lanes);
}

/**
 * The fingerprints of a state's successors, from the state's own sums: a successor holding the very
 * value (the same object) of a variable of the state is not hashed again for it. Gives what
 * fingerprintValues, or fingerprintLeast with the permutations, gives.
 */
export class StateHashes {
  private readonly g: Group | null;
  /** Words per variable: two a lane. */
  private readonly width: number;
  private base: readonly Value[] = [];
  /** Whether baseSums and baseTerms are the base state's (hashed at the first successor that needs them). */
  private hashed = false;
  /** Each variable's hash in the base state, in each lane. */
  private baseTerms = new Int32Array(0);
  private readonly baseSums: Int32Array;
  private readonly sums: Int32Array;
  private readonly term: Int32Array;

  constructor(perms?: readonly Permutation[]) {
    this.g = perms ? groupOf(perms) : null;
    this.width = this.g ? 2 * this.g.lanes : 2;
    this.baseSums = new Int32Array(this.width);
    this.sums = new Int32Array(this.width);
    this.term = new Int32Array(this.width);
  }

  /** Makes s the state whose successors are fingerprinted next. */
  from(s: readonly Value[]): void {
    this.base = s;
    this.hashed = false;
  }

  /** The fingerprint of t, a state of as many variables as the one given to `from`. */
  of(t: readonly Value[]): [number, number] {
    const w = this.width;
    const base = this.base;
    const sums = this.sums;
    let kept = 0;
    for (let i = 0; i < t.length; i++) if (t[i] === base[i]) kept++;
    // Loops, not fill and set: on a state of one or two variables their calls cost more than the hashing.
    if (kept === 0) {
      for (let j = 0; j < w; j++) sums[j] = 0;
      this.addAll(t, sums, this.term, 0, 0);
      return leastOfLanes(sums, t.length, w / 2);
    }
    if (!this.hashed) this.hashBase();
    const terms = this.baseTerms;
    const term = this.term;
    const baseSums = this.baseSums;
    for (let j = 0; j < w; j++) sums[j] = baseSums[j]!;
    for (let i = 0; i < t.length; i++) {
      if (t[i] === base[i]) continue;
      this.variable(i, t[i]!, term, 0);
      for (let j = 0; j < w; j++) sums[j] = (sums[j]! - terms[i * w + j]! + term[j]!) | 0;
    }
    return leastOfLanes(sums, t.length, w / 2);
  }

  /** The base state's sums, and each variable's hash kept in baseTerms. */
  private hashBase(): void {
    const w = this.width;
    const s = this.base;
    if (this.baseTerms.length < w * s.length) this.baseTerms = new Int32Array(w * s.length);
    for (let j = 0; j < w; j++) this.baseSums[j] = 0;
    this.addAll(s, this.baseSums, this.baseTerms, w, 0);
    this.hashed = true;
  }

  /** Adds each variable's hashes to sums, written to terms from index at, each `step` further. */
  private addAll(s: readonly Value[], sums: Int32Array, terms: Int32Array, step: number, at: number): void {
    const w = this.width;
    for (let i = 0; i < s.length; i++, at += step) {
      this.variable(i, s[i]!, terms, at);
      for (let j = 0; j < w; j++) sums[j] = (sums[j]! + terms[at + j]!) | 0;
    }
  }

  /** Writes variable i holding v's hash in each lane to dst from index at. */
  private variable(i: number, v: Value, dst: Int32Array, at: number): void {
    if (this.g) return variableLanes(i, v, this.g, dst, at);
    elementHash(v);
    variableHash(i, OUT[0]!, OUT[1]!);
    dst[at] = OUT[0]!;
    dst[at + 1] = OUT[1]!;
  }
}

// Hashes under a group of permutations are computed in lanes, lane 0 for the identity and lane
// p for perms[p - 1]: an Int32Array holds two words per lane, and, cached on a value, the group's
// number after them.

/** Permutations hashed together, with their scratch buffers (one per nesting depth). */
interface Group {
  readonly perms: readonly Permutation[];
  readonly lanes: number;
  readonly id: number;
  readonly scratch: Int32Array[];
}

let groupCount = 0;
const groups = new WeakMap<readonly Permutation[], Group>();

/** The group of these permutations. */
function groupOf(perms: readonly Permutation[]): Group {
  let g = groups.get(perms);
  if (!g) groups.set(perms, (g = { perms, lanes: perms.length + 1, id: ++groupCount, scratch: [] }));
  return g;
}

/** A buffer of the group's lanes for nesting depth d (each depth's, and the state's, apart). */
function scratchAt(g: Group, d: number): Int32Array {
  while (g.scratch.length <= d) g.scratch.push(new Int32Array(2 * g.lanes));
  return g.scratch[d]!;
}

/** Writes variable i holding v's hash in each of the group's lanes to dst from index at. */
function variableLanes(i: number, v: Value, g: Group, dst: Int32Array, at: number): void {
  const e = scratchAt(g, 2);
  elementLanes(v, g, e, 3);
  for (let p = 0; p < g.lanes; p++) {
    variableHash(i, e[2 * p]!, e[2 * p + 1]!);
    dst[at + 2 * p] = OUT[0]!;
    dst[at + 2 * p + 1] = OUT[1]!;
  }
}

/** The least of the fingerprints of n variables whose hashes add up to each lane's sums. */
function leastOfLanes(sums: Int32Array, n: number, lanes: number): [number, number] {
  stateHash(n, sums[0]!, sums[1]!);
  let hi = OUT[0]!;
  let lo = OUT[1]!;
  for (let p = 1; p < lanes; p++) {
    stateHash(n, sums[2 * p]!, sums[2 * p + 1]!);
    const h = OUT[0]!;
    const l = OUT[1]!;
    if (h < hi || (h === hi && l < lo)) {
      hi = h;
      lo = l;
    }
  }
  return [hi, lo];
}

/** Whether lanes cached on a value are this group's. */
function isGroups(cached: Int32Array | undefined, g: Group): cached is Int32Array {
  return cached !== undefined && cached.length === 2 * g.lanes + 1 && cached[2 * g.lanes] === g.id;
}

/** Sets dst to v's element hash in each lane; d is the nesting depth of v's parts' buffers. */
function elementLanes(v: Value, g: Group, dst: Int32Array, d: number): void {
  const lanes = g.lanes;
  if (typeof v === 'object' && hasModelValues(v)) {
    const own = groupLanes(v, g, d);
    for (let i = 0; i < 2 * lanes; i++) dst[i] = own[i]!;
    return;
  }
  // No model value: the same hash in every lane.
  elementHash(v);
  for (let p = 0; p < lanes; p++) {
    dst[2 * p] = OUT[0]!;
    dst[2 * p + 1] = OUT[1]!;
  }
}

/** The element hashes of v (with model values) in the group's lanes, cached on v. */
function groupLanes(v: ModelValue | SetValue | FcnValue, g: Group, d: number): Int32Array {
  const own = v.lanes;
  if (isGroups(own, g)) return own;
  return (v.lanes = v instanceof ModelValue ? modelValueLanes(v, g) : compositeLanes(v, g, d));
}

/** A model value's element hash in each lane: that of the model value the lane's permutation renames it to. */
function modelValueLanes(v: ModelValue, g: Group): Int32Array {
  const own = new Int32Array(2 * g.lanes + 1);
  for (let p = 0; p < g.lanes; p++) {
    const image = p === 0 ? v : ((g.perms[p - 1]!.map.get(v) ?? v) as ModelValue);
    const fp = image.fingerprint();
    out(fp[0], fp[1]);
    own[2 * p] = OUT[0]!;
    own[2 * p + 1] = OUT[1]!;
  }
  own[2 * g.lanes] = g.id;
  return own;
}

/** A set's or function's element hash in each lane, from its hash as compositeHash computes it. */
function compositeLanes(v: SetValue | FcnValue, g: Group, d: number): Int32Array {
  const lanes = g.lanes;
  const own = new Int32Array(2 * lanes + 1);
  const e = scratchAt(g, d);
  let tag: number;
  let n: number;
  if (v instanceof SetValue) {
    const elems = v.normalized().elems;
    for (let i = 0; i < elems.length; i++) {
      elementLanes(elems[i]!, g, e, d + 2);
      for (let j = 0; j < 2 * lanes; j++) own[j] = (own[j]! + e[j]!) | 0;
    }
    tag = SET_TAG;
    n = elems.length;
  } else {
    const f = v.materialize();
    const k = scratchAt(g, d + 1);
    n = f.size();
    for (let i = 0; i < n; i++) {
      elementLanes(f.keyAt(i), g, k, d + 2);
      elementLanes(f.valAt(i), g, e, d + 2);
      for (let p = 0; p < lanes; p++) {
        pairHash(k[2 * p]!, k[2 * p + 1]!, e[2 * p]!, e[2 * p + 1]!);
        own[2 * p] = (own[2 * p]! + OUT[0]!) | 0;
        own[2 * p + 1] = (own[2 * p + 1]! + OUT[1]!) | 0;
      }
    }
    tag = FCN_TAG;
  }
  for (let p = 0; p < lanes; p++) {
    hashComposite(tag, n, own[2 * p]!, own[2 * p + 1]!);
    out(OUT[0]!, OUT[1]!);
    own[2 * p] = OUT[0]!;
    own[2 * p + 1] = OUT[1]!;
  }
  own[2 * lanes] = g.id;
  return own;
}

/** Sets OUT to the hash of a value of kind `tag` made of n parts whose hashes add up to a1/a2. */
function hashComposite(tag: number, n: number, a1: number, a2: number): void {
  OUT[0] = finish1(mix1(mix1(mix1(0x243f6a88 ^ tag, n), a1), a2));
  OUT[1] = finish2(mix2(mix2(mix2(0x85a308d3 ^ tag, n), a1), a2));
}

// ---------------------------------------------------------------------------------------------------
// Model values

export class ModelValue {
  readonly kind = Kind.Model;
  private fp?: [number, number];
  /** The name's position in the intern order (cached for compare). */
  private order = -1;
  /** Hashes under the permutations of a symmetry group (cached; see fingerprintLeast). */
  lanes?: Int32Array;
  constructor(readonly name: string) {}
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
    if (ka === Kind.Model || kb === Kind.Model) return ka === Kind.Model ? -1 : 1;
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
    if (ka === Kind.Model || kb === Kind.Model) return false;
    throw new EvalError(
      `Attempted to check equality of ${describeKind(a)} with ${NON_NAMES[ka]}:\n${show(b)}`,
    );
  }
  if (ka === Kind.Model) return false;
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
  if (kv === Kind.Model) return;
  const e = elems[elems.length - 1]!;
  const ke = kindOf(e);
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
  /** Hashes under the permutations of a symmetry group (cached; see fingerprintLeast). */
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
