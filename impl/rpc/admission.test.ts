import { describe, expect, it } from 'vitest';
import { Admission, type AdmissionOptions } from './admission.js';

/**
 * An admission on a clock the test moves: `interval(latencies)` runs one interval of calls that took
 * them, all in flight at once; the last to end ends the interval.
 */
function clocked(o: AdmissionOptions) {
  let now = 0;
  const a = new Admission({ intervalMs: 100, ...o, now: () => now });
  const interval = (latencies: number[]) => {
    for (const _ of latencies) expect(a.tryAcquire()).toBe(true);
    latencies.slice(0, -1).forEach((ms) => a.done(ms));
    now += 100;
    a.done(latencies[latencies.length - 1] ?? 1);
  };
  return { a, interval };
}

const calls = (n: number, ms: number) => Array.from({ length: n }, () => ms);

describe('Admission', () => {
  it('admits up to its limit and refuses the rest at once, counting them; a slot given back admits again', () => {
    const a = new Admission({ initial: 3, min: 3, max: 3 });
    expect([1, 2, 3, 4].map(() => a.tryAcquire())).toEqual([true, true, true, false]);
    expect(a.running).toBe(3);
    expect(a.refused).toBe(1);
    a.done(1);
    expect(a.tryAcquire()).toBe(true);
    expect(a.tryAcquire()).toBe(false);
    expect(a.refused).toBe(2);
  });

  it('shrinks by a tenth while even the fastest call of an interval waits past the target (a standing queue)', () => {
    const { a, interval } = clocked({ initial: 1000, targetMs: 5 });
    interval(calls(100, 6));
    expect(a.limit).toBe(900);
    interval([...calls(99, 60), 4]);
    expect(a.limit).toBe(900);
    interval(calls(100, 30));
    expect(a.limit).toBe(810);
  });

  it('moves only once an interval has seen 100 calls', () => {
    const { a, interval } = clocked({ initial: 1000, targetMs: 5 });
    interval(calls(40, 50));
    interval(calls(40, 50));
    expect(a.limit).toBe(1000);
    interval(calls(40, 50));
    expect(a.limit).toBe(900);
  });

  it('grows by its square root only when half of it was in flight, within its bounds', () => {
    const { a, interval } = clocked({ initial: 300, min: 100, max: 400, targetMs: 5 });
    interval(calls(149, 1));
    expect(a.limit).toBe(300);
    interval(calls(150, 1));
    expect(a.limit).toBe(317);
    for (let i = 0; i < 6; i++) interval(calls(a.limit, 1));
    expect(a.limit).toBe(400);
    for (let i = 0; i < 30; i++) interval(calls(100, 30));
    expect(a.limit).toBe(100);
  });

  it('hints a retry after about twice the standing queue, within its bounds', () => {
    const { a, interval } = clocked({ minRetryAfterMs: 5, maxRetryAfterMs: 100 });
    expect(a.retryAfterMs()).toBe(5);
    interval([...calls(99, 30), 12]);
    expect(a.retryAfterMs()).toBe(24);
    interval(calls(100, 400));
    expect(a.retryAfterMs()).toBe(100);
  });
});
