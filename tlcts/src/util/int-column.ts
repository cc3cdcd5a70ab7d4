/** A growable Int32 column (per-state parent links, the live graph's nodes and steps, fingerprints for workers). */
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
  /** The values pushed so far (a view, valid until the next push). */
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
  clear(): void {
    this.length = 0;
  }
  get bytes(): number {
    return this.data.byteLength;
  }
}
