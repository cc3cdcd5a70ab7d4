/**
 * Token buckets per key: `perSecond` tokens a second, at most `burst` saved. A bucket that has filled up
 * again is forgotten at the next sweep, so memory follows the keys active in the last few seconds.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private sweepAt: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sweepAt = burst * 2;
  }

  /** How many keys have a bucket. */
  get keys(): number {
    return this.buckets.size;
  }

  /** Takes a token of `key`: false when it has none left. A rate of 0 takes without limit. */
  take(key: string): boolean {
    if (this.perSecond === 0) return true;
    const now = this.now();
    const b = this.buckets.get(key);
    const tokens = b ? this.tokensOf(b, now) : this.burst;
    if (tokens < 1) return false;
    // a key's bucket is updated in place: a take allocates only for a key not seen lately
    if (b) {
      b.tokens = tokens - 1;
      b.at = now;
    } else {
      this.buckets.set(key, { tokens: tokens - 1, at: now });
      if (this.buckets.size >= this.sweepAt) this.sweep(now);
    }
    return true;
  }

  private tokensOf(b: { tokens: number; at: number }, now: number): number {
    return Math.min(this.burst, b.tokens + ((now - b.at) * this.perSecond) / 1000);
  }

  private sweep(now: number): void {
    for (const [key, b] of this.buckets) if (this.tokensOf(b, now) >= this.burst) this.buckets.delete(key);
    this.sweepAt = Math.max(this.burst * 2, this.buckets.size * 2);
  }
}
