/**
 * The fingerprints of states: each variable's hash keyed by the variable, added up and finished, so
 * that a successor is hashed from its predecessor's sums (StateHashes); under a symmetry, the least
 * over the permutations, all hashed at once in lanes.
 */
import {
  FCN_TAG,
  OUT,
  SET_TAG,
  finish1,
  finish2,
  fmix,
  hashComposite,
  mix1,
  mix2,
  out,
  pairHash,
} from './hash.js';
import { FcnValue, ModelValue, SetValue, elementHash, hasModelValues, type Value } from './value.js';

/** A renaming of model values by a symmetry. */
export interface Permutation {
  map: ReadonlyMap<Value, Value>;
}

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
  return hashState(vs, null);
}

/**
 * The least fingerprint (by hi, then lo, as signed ints) of a state and of its images under the
 * permutations: the fingerprint of its orbit under a symmetry group. One pass over the values
 * hashes them under every permutation at once.
 */
export function fingerprintLeast(vs: readonly Value[], perms: readonly Permutation[]): [number, number] {
  return hashState(vs, groupOf(perms));
}

/** The sums and one variable's hash of a state hashed without a group. */
const PLAIN_SUMS = new Int32Array(2);
const PLAIN_TERM = new Int32Array(2);

/** The fingerprint of vs, the least over the group's lanes with a group. */
function hashState(vs: readonly Value[], g: Group | null): [number, number] {
  const sums = g ? scratchAt(g, 0) : PLAIN_SUMS;
  sumVariables(vs, g, sums, g ? scratchAt(g, 1) : PLAIN_TERM, 0);
  return leastOfLanes(sums, vs.length, g ? g.lanes : 1);
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
    if (kept === 0) return hashState(t, this.g);
    if (!this.hashed) this.hashBase();
    const terms = this.baseTerms;
    const term = this.term;
    const baseSums = this.baseSums;
    for (let j = 0; j < w; j++) sums[j] = baseSums[j]!;
    for (let i = 0; i < t.length; i++) {
      if (t[i] === base[i]) continue;
      variableTerms(i, t[i]!, this.g, term, 0);
      for (let j = 0; j < w; j++) sums[j] = (sums[j]! - terms[i * w + j]! + term[j]!) | 0;
    }
    return leastOfLanes(sums, t.length, w / 2);
  }

  /** The base state's sums, and each variable's hash kept in baseTerms. */
  private hashBase(): void {
    const w = this.width;
    const s = this.base;
    if (this.baseTerms.length < w * s.length) this.baseTerms = new Int32Array(w * s.length);
    sumVariables(s, this.g, this.baseSums, this.baseTerms, w);
    this.hashed = true;
  }
}

/**
 * Sets sums to each lane's sum of the variables' hashes (one lane without a group), each written
 * to terms, the next `step` further. Loops, not fill and set: on a state of one or two variables
 * their calls cost more than the hashing.
 */
function sumVariables(
  s: readonly Value[],
  g: Group | null,
  sums: Int32Array,
  terms: Int32Array,
  step: number,
): void {
  const w = sums.length;
  for (let j = 0; j < w; j++) sums[j] = 0;
  for (let i = 0, at = 0; i < s.length; i++, at += step) {
    variableTerms(i, s[i]!, g, terms, at);
    for (let j = 0; j < w; j++) sums[j] = (sums[j]! + terms[at + j]!) | 0;
  }
}

/** Writes variable i holding v's hash in each of the group's lanes (one without a group) to dst from index at. */
function variableTerms(i: number, v: Value, g: Group | null, dst: Int32Array, at: number): void {
  if (!g) {
    elementHash(v);
    variableHash(i, OUT[0]!, OUT[1]!);
    dst[at] = OUT[0]!;
    dst[at + 1] = OUT[1]!;
    return;
  }
  const e = scratchAt(g, 2);
  elementLanes(v, g, e, 3);
  for (let p = 0; p < g.lanes; p++) {
    variableHash(i, e[2 * p]!, e[2 * p + 1]!);
    dst[at + 2 * p] = OUT[0]!;
    dst[at + 2 * p + 1] = OUT[1]!;
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
