/**
 * Bounded admission: a server runs at most `limit` calls at once and refuses the rest at once
 * (RESOURCE_EXHAUSTED, with a retry-after hint), so overload is turned away in microseconds instead of
 * queueing until calls are seconds old. The limit moves each interval, increase-additive and
 * decrease-multiplicative on latency, in the spirit of Netflix's concurrency-limits and Envoy's adaptive
 * concurrency: it shrinks by a tenth when more than `slowShare` of the interval's calls took longer than
 * `targetMs` (with the defaults: the P99 is over 10 ms) or when even the fastest took longer than
 * `queueMs` (a standing queue, as CoDel reads it); otherwise it grows by its square root, but only when
 * the load came near it (half of it in flight at some point), so a quiet spell does not leave a limit the
 * next burst pours through. An interval lasts until it has seen MIN_SAMPLES calls, so a lone slow call
 * at low load (a GC pause) is not read as a P99.
 */
export interface AdmissionOptions {
  /** The limit it starts at. */
  initial?: number;
  min?: number;
  max?: number;
  /** The latency that more than `slowShare` of an interval's calls may not exceed, ms. */
  targetMs?: number;
  slowShare?: number;
  /** The fastest call of an interval above this: a standing queue, ms. */
  queueMs?: number;
  /** How often the limit moves, ms. */
  intervalMs?: number;
  /** Calls a refusal's hint says to wait for, at least and at most, ms. */
  minRetryAfterMs?: number;
  maxRetryAfterMs?: number;
  now?: () => number;
}

/** The calls an interval sees at least before the limit moves: enough for a P99. */
const MIN_SAMPLES = 100;

export class Admission {
  private inFlight = 0;
  private current: number;
  private readonly min: number;
  private readonly max: number;
  private readonly targetMs: number;
  private readonly slowShare: number;
  private readonly queueMs: number;
  private readonly intervalMs: number;
  private readonly minRetryAfterMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly now: () => number;
  private intervalEnds: number;
  private intervalMin = Infinity;
  private intervalCalls = 0;
  private intervalSlow = 0;
  /** The most calls in flight at once this interval. */
  private intervalPeak = 0;
  /** The last interval's fastest call, ms. */
  private lastMinMs = 0;
  private refusedTotal = 0;

  constructor(o: AdmissionOptions = {}) {
    this.min = o.min ?? 16;
    this.max = o.max ?? 8192;
    this.current = o.initial ?? 256;
    this.targetMs = o.targetMs ?? 10;
    this.slowShare = o.slowShare ?? 0.01;
    this.queueMs = o.queueMs ?? 5;
    this.intervalMs = o.intervalMs ?? 100;
    this.minRetryAfterMs = o.minRetryAfterMs ?? 5;
    this.maxRetryAfterMs = o.maxRetryAfterMs ?? 1000;
    this.now = o.now ?? (() => performance.now());
    this.intervalEnds = this.now() + this.intervalMs;
  }

  /** The limit now. */
  get limit(): number {
    return Math.floor(this.current);
  }

  get running(): number {
    return this.inFlight;
  }

  get refused(): number {
    return this.refusedTotal;
  }

  /** Takes a slot: false (refuse the call) when `limit` calls run. Each slot taken is given back by `done`. */
  tryAcquire(): boolean {
    if (this.inFlight >= this.limit) {
      this.refusedTotal++;
      return false;
    }
    if (++this.inFlight > this.intervalPeak) this.intervalPeak = this.inFlight;
    return true;
  }

  /** Gives the slot back with how long its call took; at the end of an interval the limit moves. */
  done(latencyMs: number): void {
    this.inFlight--;
    this.intervalCalls++;
    if (latencyMs > this.targetMs) this.intervalSlow++;
    if (latencyMs < this.intervalMin) this.intervalMin = latencyMs;
    const now = this.now();
    if (now < this.intervalEnds || this.intervalCalls < MIN_SAMPLES) return;
    this.lastMinMs = this.intervalMin;
    if (this.intervalMin > this.queueMs || this.intervalSlow > this.intervalCalls * this.slowShare)
      this.current = Math.max(this.min, this.current * 0.9);
    else if (this.intervalPeak * 2 >= this.current)
      this.current = Math.min(this.max, this.current + Math.sqrt(this.current));
    this.intervalMin = Infinity;
    this.intervalCalls = this.intervalSlow = 0;
    this.intervalPeak = this.inFlight;
    this.intervalEnds = now + this.intervalMs;
  }

  /** What a refusal tells the client to wait before it retries: about twice the standing queue. */
  retryAfterMs(): number {
    return Math.round(Math.min(this.maxRetryAfterMs, Math.max(this.minRetryAfterMs, 2 * this.lastMinMs)));
  }
}
