/**
 * Bounded admission: a server runs at most `limit` calls at once and refuses the rest at once
 * (RESOURCE_EXHAUSTED, with a retry-after hint), so overload is turned away in microseconds instead of
 * queueing until calls are seconds old. The limit adapts to a standing queue, in the spirit of Envoy's
 * adaptive concurrency and of CoDel: over each interval the fastest call's latency is the work's own cost
 * plus the queue every call waited in; while that minimum is above `targetMs` the queue stands, and the
 * limit shrinks by a tenth; otherwise it grows by its square root, but only while the load presses on it
 * (half of it in flight at some point), so a quiet spell does not leave a limit the next burst pours
 * through. Noise (a GC pause, a large batch) moves the slow calls, not the fastest, so it does not shrink
 * the limit (a limit that chased a percentile instead fell to its floor on a machine saturated by the
 * offered load rather than the admitted, and took the goodput with it). An interval lasts until it has
 * seen MIN_SAMPLES calls. The floor (64 by default) keeps the goodput where refusing a call costs about
 * what serving it does (a unary call's HTTP/2 stream, on both ends): at 16, unary PushText at 5,000/s
 * offered fell to 450/s admitted on this machine, at 64 it kept 1,670/s.
 */
export interface AdmissionOptions {
  /** The limit it starts at. */
  initial?: number;
  min?: number;
  max?: number;
  /** The fastest call of an interval above this: a standing queue, ms. */
  targetMs?: number;
  /** How often the limit moves, ms. */
  intervalMs?: number;
  /** Calls a refusal's hint says to wait for, at least and at most, ms. */
  minRetryAfterMs?: number;
  maxRetryAfterMs?: number;
  now?: () => number;
}

/** The calls an interval sees at least before the limit moves. */
const MIN_SAMPLES = 100;

export class Admission {
  private inFlight = 0;
  private current: number;
  private readonly min: number;
  private readonly max: number;
  private readonly targetMs: number;
  private readonly intervalMs: number;
  private readonly minRetryAfterMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly now: () => number;
  private intervalEnds: number;
  private intervalMin = Infinity;
  private intervalCalls = 0;
  /** The most calls in flight at once this interval. */
  private intervalPeak = 0;
  /** The last interval's fastest call, ms. */
  private lastMinMs = 0;
  private refusedTotal = 0;

  constructor(o: AdmissionOptions = {}) {
    this.min = o.min ?? 64;
    this.max = o.max ?? 8192;
    this.current = o.initial ?? 1024;
    this.targetMs = o.targetMs ?? 5;
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
    if (latencyMs < this.intervalMin) this.intervalMin = latencyMs;
    const now = this.now();
    if (now < this.intervalEnds || this.intervalCalls < MIN_SAMPLES) return;
    this.lastMinMs = this.intervalMin;
    if (this.intervalMin > this.targetMs) this.current = Math.max(this.min, this.current * 0.9);
    else if (this.intervalPeak * 2 >= this.current)
      this.current = Math.min(this.max, this.current + Math.sqrt(this.current));
    this.intervalMin = Infinity;
    this.intervalCalls = 0;
    this.intervalPeak = this.inFlight;
    this.intervalEnds = now + this.intervalMs;
  }

  /** What a refusal tells the client to wait before it retries: about twice the standing queue. */
  retryAfterMs(): number {
    return Math.round(Math.min(this.maxRetryAfterMs, Math.max(this.minRetryAfterMs, 2 * this.lastMinMs)));
  }
}
