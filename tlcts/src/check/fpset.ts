import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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

  /** The id stored for the fingerprint, or -1. */
  get(hi: number, lo: number): number {
    const t = this.table;
    for (let i = slotOf(hi, lo, this.mask); ; i = (i + 1) & this.mask) {
      const stored = t[i * 3 + 2]!;
      if (stored === 0) return -1;
      if (t[i * 3] === hi && t[i * 3 + 1] === lo) return stored - 1;
    }
  }

  /** Whether the next new fingerprint doubles the table. */
  wouldGrow(): boolean {
    return (this.size + 1) * 2 > this.mask;
  }

  /** The entries (hi, lo, id) in the order of their fingerprints as unsigned numbers, hi first. */
  sortedEntries(): Int32Array {
    let from = new Int32Array(this.size * 3);
    let n = 0;
    const t = this.table;
    for (let at = 0; at < t.length; at += 3) {
      if (t[at + 2] === 0) continue;
      from[n++] = t[at]!;
      from[n++] = t[at + 1]!;
      from[n++] = t[at + 2]! - 1;
    }
    // Radix sort, 16 bits a pass: lo's low half, lo's high half, then hi's.
    let to = new Int32Array(from.length);
    const counts = new Int32Array(1 << 16);
    for (const [word, shift] of [
      [1, 0],
      [1, 16],
      [0, 0],
      [0, 16],
    ] as const) {
      counts.fill(0);
      for (let at = 0; at < from.length; at += 3) counts[(from[at + word]! >>> shift) & 0xffff]!++;
      for (let d = 0, sum = 0; d < counts.length; d++) {
        const c = counts[d]!;
        counts[d] = sum;
        sum += c * 3;
      }
      for (let at = 0; at < from.length; at += 3) {
        const dest = (counts[(from[at + word]! >>> shift) & 0xffff]! += 3) - 3;
        to[dest] = from[at]!;
        to[dest + 1] = from[at + 1]!;
        to[dest + 2] = from[at + 2]!;
      }
      [from, to] = [to, from];
    }
    return from;
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

/** Entries per page of the disk tier: the unit read to look a fingerprint up (6 KiB). */
const PAGE = 512;
/** Entries read or written at a time while merging the table into the file. */
const CHUNK = 1 << 16;

export interface FingerprintStoreOptions {
  /** Bytes the table in memory may take; past them it is merged into a file (TLC's DiskFPSet). */
  budget?: number;
  /** Where the file is made (TLC's -metadir); by default os.tmpdir(). */
  dir?: string;
}

/** The default budget: a quarter of the machine's memory (a table of up to ~130M states on 24 GiB). */
export const DEFAULT_FP_BUDGET = Math.floor(os.totalmem() / 4);

/**
 * The fingerprints of the states found, within a memory budget. New fingerprints go to the table in
 * memory; when it would grow past the budget, its entries are merged, sorted by fingerprint, into a
 * file of (hi, lo, id) entries of which every PAGE-th key stays in memory, and the table starts empty
 * again. A fingerprint the table lacks is then looked up in the file: one page read.
 */
export class FingerprintStore {
  private table = new FingerprintSet();
  private readonly budget: number;
  /** Entries in the file, and the first key of each of its pages. */
  private onDisk = 0;
  private pageHi = new Int32Array(0);
  private pageLo = new Int32Array(0);
  private file: { dir: string; path: string; fd: number } | null = null;
  private readonly page = new Int32Array(PAGE * 3);
  /** Merges of the table into the file. */
  flushes = 0;

  constructor(private readonly opts: FingerprintStoreOptions = {}) {
    this.budget = opts.budget ?? DEFAULT_FP_BUDGET;
  }

  get size(): number {
    return this.table.size + this.onDisk;
  }

  /** Bytes held in memory: the table and the file's page index. */
  get bytes(): number {
    return this.table.bytes + this.pageHi.byteLength * 2;
  }

  /** Bytes of the file. */
  get diskBytes(): number {
    return this.onDisk * 12;
  }

  /** Adds the fingerprint with `id` unless present; returns the id it already had, or -1 if new. */
  put(hi: number, lo: number, id: number): number {
    if (this.onDisk > 0 || this.full()) {
      const known = this.table.get(hi, lo);
      if (known >= 0) return known;
      const stored = this.onDisk > 0 ? this.lookUp(hi, lo) : -1;
      if (stored >= 0) return stored;
      if (this.full()) this.flush();
    }
    return this.table.put(hi, lo, id);
  }

  /** The fingerprints of these ids (for the few states of a trace). */
  fingerprintsOf(ids: readonly number[]): Map<number, [number, number]> {
    const found = this.table.fingerprintsOf(ids);
    const wanted = new Set(ids);
    this.scanFile((e, n) => {
      for (let at = 0; at < n * 3; at += 3)
        if (wanted.has(e[at + 2]!)) found.set(e[at + 2]!, [e[at]!, e[at + 1]!]);
    });
    return found;
  }

  /** Removes the file and its directory. */
  close(): void {
    if (!this.file) return;
    fs.closeSync(this.file.fd);
    fs.rmSync(this.file.dir, { recursive: true, force: true });
    this.file = null;
  }

  /** Whether a new fingerprint would grow the table past the budget. */
  private full(): boolean {
    return this.table.wouldGrow() && this.table.bytes * 2 > this.budget;
  }

  /** The id stored in the file for the fingerprint, or -1. */
  private lookUp(hi: number, lo: number): number {
    // The last page whose first key is at most the fingerprint.
    let a = 0;
    let b = this.pageHi.length - 1;
    while (a < b) {
      const m = (a + b + 1) >> 1;
      if (compareKeys(this.pageHi[m]!, this.pageLo[m]!, hi, lo) <= 0) a = m;
      else b = m - 1;
    }
    const n = Math.min(PAGE, this.onDisk - a * PAGE);
    fs.readSync(this.file!.fd, this.page, 0, n * 12, a * PAGE * 12);
    const e = this.page;
    let x = 0;
    let y = n - 1;
    while (x <= y) {
      const m = (x + y) >> 1;
      const c = compareKeys(e[m * 3]!, e[m * 3 + 1]!, hi, lo);
      if (c === 0) return e[m * 3 + 2]!;
      if (c < 0) x = m + 1;
      else y = m - 1;
    }
    return -1;
  }

  /** Calls fn with the file's entries, CHUNK at a time, in order. */
  private scanFile(fn: (entries: Int32Array, n: number) => void): void {
    if (!this.file) return;
    const buf = new Int32Array(CHUNK * 3);
    for (let done = 0; done < this.onDisk;) {
      const n = Math.min(CHUNK, this.onDisk - done);
      fs.readSync(this.file.fd, buf, 0, n * 12, done * 12);
      fn(buf, n);
      done += n;
    }
  }

  /** Merges the table's entries into the file, in fingerprint order, and empties the table. */
  private flush(): void {
    const fresh = this.table.sortedEntries();
    const dir = this.file?.dir ?? fs.mkdtempSync(path.join(this.opts.dir ?? os.tmpdir(), 'tlcts-fp-'));
    const next = path.join(dir, `fp-${++this.flushes}`);
    const out = fs.openSync(next, 'w+');
    const total = this.onDisk + fresh.length / 3;
    const pageHi = new Int32Array(Math.ceil(total / PAGE));
    const pageLo = new Int32Array(pageHi.length);
    const buf = new Int32Array(CHUNK * 3);
    let filled = 0;
    let written = 0;
    const emit = (e: Int32Array, at: number) => {
      if ((written + filled) % PAGE === 0) {
        pageHi[(written + filled) / PAGE] = e[at]!;
        pageLo[(written + filled) / PAGE] = e[at + 1]!;
      }
      buf[filled * 3] = e[at]!;
      buf[filled * 3 + 1] = e[at + 1]!;
      buf[filled * 3 + 2] = e[at + 2]!;
      if (++filled === CHUNK) {
        fs.writeSync(out, buf, 0, filled * 12);
        written += filled;
        filled = 0;
      }
    };
    let j = 0;
    this.scanFile((old, n) => {
      for (let at = 0; at < n * 3; at += 3) {
        while (j < fresh.length && compareKeys(fresh[j]!, fresh[j + 1]!, old[at]!, old[at + 1]!) < 0) {
          emit(fresh, j);
          j += 3;
        }
        emit(old, at);
      }
    });
    for (; j < fresh.length; j += 3) emit(fresh, j);
    if (filled > 0) fs.writeSync(out, buf, 0, filled * 12);
    if (this.file) {
      fs.closeSync(this.file.fd);
      fs.rmSync(this.file.path);
    }
    this.file = { dir, path: next, fd: out };
    this.onDisk = total;
    this.pageHi = pageHi;
    this.pageLo = pageLo;
    this.table = new FingerprintSet();
  }
}

/** Fingerprints in the file's order: hi, then lo, as unsigned 32-bit numbers. */
function compareKeys(hi1: number, lo1: number, hi2: number, lo2: number): number {
  if (hi1 !== hi2) return hi1 >>> 0 < hi2 >>> 0 ? -1 : 1;
  if (lo1 !== lo2) return lo1 >>> 0 < lo2 >>> 0 ? -1 : 1;
  return 0;
}

/** Where a fingerprint's probe starts in a table of mask + 1 slots. */
export function slotOf(hi: number, lo: number, mask: number): number {
  return (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
}
