import { describe, expect, it } from 'vitest';
import { Admission } from './admission.js';

/** Runs `calls` calls one after the other, each taking `ms`; returns the limit after them. */
function settle(a: Admission, calls: number, ms: number): number {
  for (let i = 0; i < calls; i++) {
    expect(a.tryAcquire()).toBe(true);
    a.done(ms);
  }
  return a.limit;
}

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

  it('grows while latency holds, shrinks while calls take much longer than usual, and grows back', () => {
    const a = new Admission({ initial: 300, min: 256, max: 4096 });
    const steady = settle(a, 2000, 2);
    expect(steady).toBe(4096);
    // calls three times slower than usual: past the tolerance, the limit comes down to its floor
    const slowed = settle(a, 300, 20);
    expect(slowed).toBeLessThan(steady / 2);
    // latency back to usual: the limit climbs again
    expect(settle(a, 3000, 2)).toBe(4096);
  });

  it('hints a retry after about twice the recent latency, within its bounds', () => {
    const a = new Admission({ minRetryAfterMs: 5, maxRetryAfterMs: 100 });
    settle(a, 100, 10);
    expect(a.retryAfterMs()).toBe(20);
    settle(a, 200, 500);
    expect(a.retryAfterMs()).toBe(100);
    const quick = new Admission({ minRetryAfterMs: 5 });
    settle(quick, 50, 0.1);
    expect(quick.retryAfterMs()).toBe(5);
  });
});
