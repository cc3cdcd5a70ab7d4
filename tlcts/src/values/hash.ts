/**
 * The mixing behind fingerprints: two 32-bit lanes (64 bits) mixed with Math.imul. The lanes live
 * in local variables and an element's hash in a typed array (OUT): a module-level `let` holding an
 * int32 would box it on every write. Values' fingerprints are in value.ts, states' in fingerprint.ts.
 */

/** One round of lane 1 (murmur3's) on the word. */
export function mix1(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** One round of lane 2 on the word. */
export function mix2(h: number, word: number): number {
  let j = Math.imul(word ^ 0x5bd1e995, 0x85ebca6b);
  j = (j << 17) | (j >>> 15);
  j = Math.imul(j, 0xc2b2ae35);
  h ^= j;
  h = (h << 11) | (h >>> 21);
  return (Math.imul(h, 9) + 0x7fb5b1a3) | 0;
}

export function finish1(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}

export function finish2(h: number): number {
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const stringHashes = new Map<string, [number, number]>();

export function stringHash(s: string): [number, number] {
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

export function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

// The hash of one element, as two words in OUT (no allocation on the hot path). Sets and functions
// add their elements' hashes, so their fingerprint does not depend on the order of the elements: a
// state permuted by a symmetry can then be fingerprinted without rebuilding or re-sorting its values.
export const OUT = new Int32Array(2);

export function out(a: number, b: number): void {
  OUT[0] = fmix(a ^ Math.imul(b ^ (b >>> 15), 0x2c1b3c6d));
  OUT[1] = fmix((b + Math.imul(a ^ (a >>> 13), 0x297a2d39) + 0x68e31da4) | 0);
}

/** Sets OUT to the hash of a function's pair from the hashes of its key (k1, k2) and value (v1, v2). */
export function pairHash(k1: number, k2: number, v1: number, v2: number): void {
  out(k1 ^ fmix((v1 + 0x3c6ef372) | 0), (k2 + fmix(v2 ^ 0x1f83d9ab)) | 0);
}

/** Sets OUT to the hash of a value of kind `tag` made of n parts whose hashes add up to a1/a2. */
export function hashComposite(tag: number, n: number, a1: number, a2: number): void {
  OUT[0] = finish1(mix1(mix1(mix1(0x243f6a88 ^ tag, n), a1), a2));
  OUT[1] = finish2(mix2(mix2(mix2(0x85a308d3 ^ tag, n), a1), a2));
}

export const SET_TAG = 4;
export const FCN_TAG = 5;
