/**
 * Open-loop load: calls issued at a fixed rate whatever the replies' latency (a client that waits for
 * each reply would hide a slow system behind fewer calls), with a bound on calls in flight so that an
 * overloaded system is reported as calls not sent rather than an ever-growing queue in the bench.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Latencies } from './latency.js';

export interface LoadOptions {
  /** Calls per second. */
  rate: number;
  /** Stop after this many calls (all of them answered), or ... */
  total?: number;
  /** ... when this resolves (calls in flight are awaited). */
  until?: Promise<unknown>;
  maxInFlight?: number;
  /** Sees each call as it ends: when (performance.now()), its latency, its error's name if it failed. */
  onEnd?: (atMs: number, latencyMs: number, error?: string) => void;
}

export interface LoadResult {
  latency: Latencies;
  /** Latency of the calls refused RESOURCE_EXHAUSTED: how fast overload is turned away. */
  refusalLatency: Latencies;
  ok: number;
  /** Failed calls by error (gRPC status name or message). */
  errors: Record<string, number>;
  /** Calls due but not sent because maxInFlight were pending. */
  skipped: number;
  seconds: number;
}

/** How often the load client issues the calls that have come due. */
export const LOAD_TICK_MS = 2;

/** Issues `call(i)` for i = 0, 1, ... at `rate` per second; each resolves on success, rejects on failure. */
export async function runLoad(o: LoadOptions, call: (i: number) => Promise<unknown>): Promise<LoadResult> {
  const maxInFlight = o.maxInFlight ?? 1024;
  const result: LoadResult = {
    latency: new Latencies(),
    refusalLatency: new Latencies(),
    ok: 0,
    errors: {},
    skipped: 0,
    seconds: 0,
  };
  let stop = false;
  void o.until?.then(() => (stop = true));
  // calls in flight: a count, and the end of the last one once the loop has stopped issuing (a call is
  // counted out before onEnd sees it, so a callback that throws does not leave the run waiting)
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const ended = () => {
    if (--inFlight === 0) drained?.();
  };
  const t0 = performance.now();
  let due = 0;
  let issued = 0;
  while (!stop && (o.total === undefined || issued < o.total)) {
    const target = Math.floor(((performance.now() - t0) / 1000) * o.rate);
    for (; due < target && (o.total === undefined || issued < o.total); due++) {
      if (inFlight >= maxInFlight) {
        result.skipped++;
        continue;
      }
      const i = issued++;
      const start = performance.now();
      inFlight++;
      call(i).then(
        () => {
          const end = performance.now();
          result.latency.add(end - start);
          result.ok++;
          ended();
          o.onEnd?.(end, end - start);
        },
        (err: unknown) => {
          const end = performance.now();
          const why = errorName(err);
          result.errors[why] = (result.errors[why] ?? 0) + 1;
          if (why === 'RESOURCE_EXHAUSTED') result.refusalLatency.add(end - start);
          ended();
          o.onEnd?.(end, end - start, why);
        },
      );
    }
    await delay(LOAD_TICK_MS);
  }
  if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
  result.seconds = (performance.now() - t0) / 1000;
  return result;
}

/** A gRPC error's status name from its details line ("10 ABORTED: ..."), else its message's start. */
function errorName(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return /^\d+ ([A-Z_]+):/.exec(message)?.[1] ?? message.slice(0, 60);
}
