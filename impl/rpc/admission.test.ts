import { describe, expect, it } from 'vitest';
import { Admission, type AdmissionOptions } from './admission.js';

/** An admission on a clock the test moves: `interval(latencies)` runs one interval of calls that took them. */
function clocked(o: AdmissionOptions) {
  let now = 0;
  const a = new Admission({ intervalMs: 100, ...o, now: () => now });
  const interval = (latencies: number[]) => {
    for (const ms of latencies) {
      expect(a.tryAcquire()).toBe(true);
      a.done(ms);
    }
    now += 100;
    expect(a.tryAcquire()).toBe(true);
    a.done(latencies[0] ?? 1);
  };
  return { a, interval };
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

  it('shrinks while even the fastest call waits past the target (a standing queue), and grows back', () => {
    const { a, interval } = clocked({ initial: 1000, min: 32, max: 4000, targetMs: 5 });
    interval([1, 40, 2]);
    expect(a.limit).toBe(1031);
    for (let i = 0; i < 10; i++) interval([30, 60, 45]);
    expect(a.limit).toBeLessThan(400);
    for (let i = 0; i < 60; i++) interval([20]);
    expect(a.limit).toBe(32);
    for (let i = 0; i < 150; i++) interval([1, 200]);
    expect(a.limit).toBe(4000);
  });

  it('hints a retry after about twice the standing queue, within its bounds', () => {
    const { a, interval } = clocked({ minRetryAfterMs: 5, maxRetryAfterMs: 100 });
    expect(a.retryAfterMs()).toBe(5);
    interval([12, 30]);
    expect(a.retryAfterMs()).toBe(24);
    interval([400]);
    expect(a.retryAfterMs()).toBe(100);
  });
});
