/** Latency samples of one kind of call, summarised as percentiles and as CDF points for plotting. */

/** The percentiles a CDF is drawn from: 0..99 by 1, 99.1..99.9 by 0.1, 99.99 and 100 (the maximum). */
const CDF_PERCENTILES = [
  ...Array.from({ length: 100 }, (_, i) => i),
  ...Array.from({ length: 9 }, (_, i) => 99.1 + i / 10),
  99.99,
  100,
].map((p) => Math.round(p * 100) / 100);

const ms3 = (x: number) => Math.round(x * 1000) / 1000;

export interface LatencySummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  /** [percentile, ms] pairs: the CDF, for plotting. */
  cdf: [number, number][];
}

/** The median of some figures (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Samples in ms, in a growing typed array (a million samples take 8 MB). */
export class Latencies {
  private samples = new Float64Array(1024);
  private n = 0;

  add(ms: number): void {
    if (this.n === this.samples.length) {
      const grown = new Float64Array(this.samples.length * 2);
      grown.set(this.samples);
      this.samples = grown;
    }
    this.samples[this.n++] = ms;
  }

  get count(): number {
    return this.n;
  }

  /** Nearest-rank percentiles of the samples so far; zeros when there are none. */
  summary(): LatencySummary {
    const sorted = this.samples.slice(0, this.n).sort();
    const at = (p: number) =>
      this.n === 0
        ? 0
        : ms3(sorted[Math.min(this.n - 1, Math.max(0, Math.ceil((p / 100) * this.n - 1e-9) - 1))]!);
    let sum = 0;
    for (const x of sorted) sum += x;
    return {
      count: this.n,
      meanMs: this.n === 0 ? 0 : ms3(sum / this.n),
      p50Ms: at(50),
      p99Ms: at(99),
      p999Ms: at(99.9),
      maxMs: at(100),
      cdf: CDF_PERCENTILES.map((p) => [p, at(p)]),
    };
  }
}
