/** A set of 64-bit fingerprints in typed arrays (open addressing), mapping each to a state id. */
export class FingerprintSet {
  private hi: Int32Array;
  private lo: Int32Array;
  private ids: Int32Array;
  private mask: number;
  size = 0;

  constructor(initialCapacity = 1 << 16) {
    let cap = 1;
    while (cap < initialCapacity) cap <<= 1;
    this.hi = new Int32Array(cap);
    this.lo = new Int32Array(cap);
    this.ids = new Int32Array(cap).fill(-1);
    this.mask = cap - 1;
  }

  /** Bytes held by the table. */
  get bytes(): number {
    return this.hi.byteLength * 3;
  }

  /** The id stored for the fingerprint, or -1. */
  get(hi: number, lo: number): number {
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask;
    for (;;) {
      const id = this.ids[i]!;
      if (id < 0) return -1;
      if (this.hi[i] === hi && this.lo[i] === lo) return id;
      i = (i + 1) & this.mask;
    }
  }

  /** Adds the fingerprint with `id` unless present; returns the id it already had, or -1 if new. */
  put(hi: number, lo: number, id: number): number {
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask;
    for (;;) {
      const cur = this.ids[i]!;
      if (cur < 0) break;
      if (this.hi[i] === hi && this.lo[i] === lo) return cur;
      i = (i + 1) & this.mask;
    }
    this.hi[i] = hi;
    this.lo[i] = lo;
    this.ids[i] = id;
    if (++this.size * 2 > this.mask) this.grow();
    return -1;
  }

  private grow(): void {
    const { hi, lo, ids } = this;
    const cap = (this.mask + 1) * 2;
    this.hi = new Int32Array(cap);
    this.lo = new Int32Array(cap);
    this.ids = new Int32Array(cap).fill(-1);
    this.mask = cap - 1;
    for (let j = 0; j < ids.length; j++) {
      const id = ids[j]!;
      if (id < 0) continue;
      let i = (lo[j]! ^ Math.imul(hi[j]!, 0x9e3779b1)) & this.mask;
      while (this.ids[i]! >= 0) i = (i + 1) & this.mask;
      this.hi[i] = hi[j]!;
      this.lo[i] = lo[j]!;
      this.ids[i] = id;
    }
  }
}

/** A growable Int32 column (per-state parent links, fingerprints, levels). */
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
