/**
 * A set of 64-bit fingerprints (open addressing, linear probing, load at most 1/2), mapping each to
 * a state id. A slot is three ints side by side, hi, lo and id + 1 (0: free), so that a probe reads
 * one cache line.
 */
export class FingerprintSet {
  private table: Int32Array;
  private mask: number;
  size = 0;

  constructor(initialCapacity = 1 << 16) {
    let cap = 1;
    while (cap < initialCapacity) cap <<= 1;
    this.table = new Int32Array(cap * 3);
    this.mask = cap - 1;
  }

  /** Bytes held by the table. */
  get bytes(): number {
    return this.table.byteLength;
  }

  /** Adds the fingerprint with `id` unless present; returns the id it already had, or -1 if new. */
  put(hi: number, lo: number, id: number): number {
    const t = this.table;
    let i = slotOf(hi, lo, this.mask);
    for (;;) {
      const at = i * 3;
      const stored = t[at + 2]!;
      if (stored === 0) break;
      if (t[at] === hi && t[at + 1] === lo) return stored - 1;
      i = (i + 1) & this.mask;
    }
    const at = i * 3;
    t[at] = hi;
    t[at + 1] = lo;
    t[at + 2] = id + 1;
    if (++this.size * 2 > this.mask) this.grow();
    return -1;
  }

  /** The fingerprints of these ids, in one pass over the table (for the few states of a trace). */
  fingerprintsOf(ids: readonly number[]): Map<number, [number, number]> {
    const wanted = new Set(ids);
    const found = new Map<number, [number, number]>();
    const t = this.table;
    for (let at = 0; at < t.length; at += 3) {
      const id = t[at + 2]! - 1;
      if (wanted.has(id)) found.set(id, [t[at]!, t[at + 1]!]);
    }
    return found;
  }

  private grow(): void {
    const old = this.table;
    const cap = (this.mask + 1) * 2;
    const t = new Int32Array(cap * 3);
    this.mask = cap - 1;
    for (let from = 0; from < old.length; from += 3) {
      if (old[from + 2] === 0) continue;
      let i = slotOf(old[from]!, old[from + 1]!, this.mask);
      while (t[i * 3 + 2] !== 0) i = (i + 1) & this.mask;
      t[i * 3] = old[from]!;
      t[i * 3 + 1] = old[from + 1]!;
      t[i * 3 + 2] = old[from + 2]!;
    }
    this.table = t;
  }
}

function slotOf(hi: number, lo: number, mask: number): number {
  return (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
}

/** A growable Int32 column (per-state parent links, the live graph's nodes and steps). */
export class IntColumn {
  private data = new Int32Array(1 << 16);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  at(i: number): number {
    return this.data[i]!;
  }
  get bytes(): number {
    return this.data.byteLength;
  }
}
