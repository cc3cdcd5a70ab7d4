import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.js';

describe('RateLimiter', () => {
  it('lets a burst through, then the rate, per key', () => {
    let now = 0;
    const limit = new RateLimiter(10, 3, () => now);
    expect([1, 2, 3, 4].map(() => limit.take('a'))).toEqual([true, true, true, false]);
    expect(limit.take('b')).toBe(true);
    now = 99;
    expect(limit.take('a')).toBe(false);
    now = 100; // one token a tenth of a second
    expect(limit.take('a')).toBe(true);
    expect(limit.take('a')).toBe(false);
    now = 10_000; // refilled to the burst, no more
    expect([1, 2, 3, 4].map(() => limit.take('a'))).toEqual([true, true, true, false]);
  });

  it('forgets buckets that filled up again, and keeps the others', () => {
    let now = 0;
    const limit = new RateLimiter(1, 2, () => now);
    limit.take('busy');
    limit.take('busy');
    for (let i = 0; i < 10; i++) limit.take(`idle${i}`);
    now = 1500; // idle buckets are full again; busy has 1.5 tokens
    for (let i = 0; i < 10; i++) limit.take(`next${i}`);
    expect(limit.keys).toBeLessThan(12);
    expect(limit.take('busy')).toBe(true);
    expect(limit.take('busy')).toBe(false);
  });

  it('does not limit at rate 0', () => {
    const limit = new RateLimiter(0, 0);
    expect(Array.from({ length: 1000 }, () => limit.take('a')).every(Boolean)).toBe(true);
  });
});
