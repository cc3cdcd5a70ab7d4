/**
 * Bounded admission: a server runs at most `limit` calls at once and refuses the rest at once
 * (RESOURCE_EXHAUSTED, with a retry-after hint), so overload is turned away in microseconds instead of
 * queueing until calls are seconds old. The limit adapts to latency as Netflix's concurrency-limits
 * Gradient2 does: TOLERANCE × the long-run average latency over the recent one is the gradient (at most
 * 1); the limit follows limit × gradient + headroom, so it shrinks while calls take more than TOLERANCE
 * times their usual latency (work queues inside the process or in Redis) and grows back while they do not.
 */
export interface AdmissionOptions {
  /** The limit it starts at. */
  initial?: number;
  min?: number;
  max?: number;
  /** Calls a refusal's hint says to wait for, at least and at most, ms. */
  minRetryAfterMs?: number;
  maxRetryAfterMs?: number;
}

/** Recent-latency smoothing (short) and long-run smoothing (long), as weights of one new sample. */
const SHORT = 0.1;
const LONG = 1 / 600;
/** How fast the limit moves toward its new value. */
const SMOOTHING = 0.2;
/** How much slower than usual calls may be before the limit shrinks: batching and GC make latency noisy. */
const TOLERANCE = 2;

export class Admission {
  private inFlight = 0;
  private current: number;
  private readonly min: number;
  private readonly max: number;
  private readonly minRetryAfterMs: number;
  private readonly maxRetryAfterMs: number;
  private shortMs = 0;
  private longMs = 0;
  private refusedTotal = 0;

  constructor(o: AdmissionOptions = {}) {
    this.min = o.min ?? 256;
    this.max = o.max ?? 8192;
    this.current = o.initial ?? 2048;
    this.minRetryAfterMs = o.minRetryAfterMs ?? 5;
    this.maxRetryAfterMs = o.maxRetryAfterMs ?? 1000;
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
    this.inFlight++;
    return true;
  }

  /** Gives the slot back with how long its call took, which moves the limit. */
  done(latencyMs: number): void {
    this.inFlight--;
    const sample = Math.max(latencyMs, 0.01);
    if (this.longMs === 0) this.shortMs = this.longMs = sample;
    this.shortMs += (sample - this.shortMs) * SHORT;
    this.longMs += (sample - this.longMs) * LONG;
    // after a long overload the long-run average has drifted up: let it come down with the recent one
    if (this.longMs > 2 * this.shortMs) this.longMs *= 0.95;
    const gradient = Math.max(0.5, Math.min(1, (TOLERANCE * this.longMs) / this.shortMs));
    const target = this.current * gradient + Math.sqrt(this.current);
    this.current = Math.min(this.max, Math.max(this.min, this.current + (target - this.current) * SMOOTHING));
  }

  /** What a refusal tells the client to wait before it retries: about one recent call's latency. */
  retryAfterMs(): number {
    return Math.round(Math.min(this.maxRetryAfterMs, Math.max(this.minRetryAfterMs, 2 * this.shortMs)));
  }
}
