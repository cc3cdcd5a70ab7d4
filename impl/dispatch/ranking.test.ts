/** Rankings order the eligible workers of a load view; `candidates` picks them and falls back. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WorkerView } from '../store/steps.js';
import { candidates, compareLoad, leastLoaded, powerOfTwo, seededRandom } from './ranking.js';

function worker(id: string, over: Partial<WorkerView> = {}): WorkerView {
  return {
    worker: id,
    incarnation: 1,
    expiresAt: 0,
    live: true,
    cap: 4,
    tokens: 0,
    draining: false,
    placed: 0,
    addr: '',
    runtimes: 0,
    queued: 0,
    loadAt: 0,
    ...over,
  };
}

const none = new Set<string>();

const View = fc
  .uniqueArray(
    fc.record({
      worker: fc.stringMatching(/^w[0-9]{1,2}$/),
      live: fc.boolean(),
      draining: fc.boolean(),
      cap: fc.integer({ min: 1, max: 8 }),
      tokens: fc.integer({ min: 0, max: 9 }),
      runtimes: fc.nat(10),
      queued: fc.nat(10),
    }),
    { selector: (w) => w.worker, maxLength: 12 },
  )
  .map((ws) => ws.map((w) => worker(w.worker, w)));

const eligible = (view: WorkerView[]) => view.filter((w) => w.live && !w.draining && w.tokens < w.cap);
const ids = (view: WorkerView[]) => view.map((w) => w.worker);

describe('least-loaded', () => {
  it('orders by tokens per slot, then published runtimes + queued, then id', () => {
    const view = [
      worker('w1', { tokens: 2, cap: 4 }),
      worker('w2', { tokens: 1, cap: 4, runtimes: 3 }),
      worker('w3', { tokens: 1, cap: 4, queued: 1 }),
      worker('w4', { tokens: 1, cap: 2 }),
      worker('w0', { tokens: 1, cap: 4, queued: 1 }),
    ];
    expect(ids(leastLoaded(view))).toEqual(['w0', 'w3', 'w2', 'w1', 'w4']);
  });

  it('returns a sorted permutation of the eligible workers', () => {
    fc.assert(
      fc.property(View, (view) => {
        const ranked = candidates(view, leastLoaded, none);
        const open = eligible(view);
        if (open.length === 0) return;
        expect([...ranked].sort()).toEqual(ids(open).sort());
        const byId = new Map(view.map((w) => [w.worker, w]));
        for (let k = 1; k < ranked.length; k++) {
          expect(compareLoad(byId.get(ranked[k - 1]!)!, byId.get(ranked[k]!)!)).toBeLessThan(0);
        }
      }),
    );
  });
});

describe('candidates', () => {
  it('skips dead, draining, full and excluded workers', () => {
    const view = [
      worker('dead', { live: false }),
      worker('draining', { draining: true }),
      worker('full', { tokens: 4 }),
      worker('source'),
      worker('ok'),
    ];
    expect(candidates(view, leastLoaded, new Set(['source']))).toEqual(['ok']);
  });

  it('offers the live, non-draining workers the view shows full when it shows none with room', () => {
    const view = [
      worker('dead', { live: false }),
      worker('draining', { draining: true, tokens: 4 }),
      worker('w2', { tokens: 4, queued: 3 }),
      worker('w1', { tokens: 5, cap: 5 }),
    ];
    expect(candidates(view, leastLoaded, none)).toEqual(['w1', 'w2']);
    expect(candidates([worker('dead', { live: false })], leastLoaded, none)).toEqual([]);
  });

  it('never offers an excluded worker, nor one that is dead or draining', () => {
    fc.assert(
      fc.property(View, fc.nat(12), (view, k) => {
        const excluded = view[k]?.worker ?? 'none';
        const offered = new Set(candidates(view, powerOfTwo(seededRandom(k)), new Set([excluded])));
        expect(offered.has(excluded)).toBe(false);
        for (const w of view) if (!w.live || w.draining) expect(offered.has(w.worker)).toBe(false);
      }),
    );
  });
});

describe('p2c', () => {
  it('puts the better of two random eligible workers first, then the rest least-loaded', () => {
    fc.assert(
      fc.property(View, fc.integer({ min: 0, max: 2 ** 32 - 1 }), (view, seed) => {
        const open = eligible(view);
        const ranked = powerOfTwo(seededRandom(seed))(open);
        expect(ids(ranked).sort()).toEqual(ids(open).sort());
        if (ranked.length < 2) return;
        expect(compareLoad(ranked[0]!, ranked[1]!)).toBeLessThan(0);
        expect(ranked.slice(2)).toEqual(leastLoaded(ranked.slice(2)));
      }),
    );
  });

  it('is deterministic for a seed', () => {
    fc.assert(
      fc.property(View, fc.integer({ min: 0, max: 2 ** 32 - 1 }), (view, seed) => {
        const ranking = () => powerOfTwo(seededRandom(seed));
        expect(candidates(view, ranking(), none)).toEqual(candidates(view, ranking(), none));
      }),
    );
  });

  it('spreads first choices over the workers where least-loaded always picks one', () => {
    const view = ['w1', 'w2', 'w3', 'w4'].map((id) => worker(id));
    const p2c = powerOfTwo(seededRandom(7));
    const firsts = new Set(Array.from({ length: 50 }, () => candidates(view, p2c, none)[0]));
    expect(firsts.size).toBeGreaterThan(1);
    expect(new Set(Array.from({ length: 50 }, () => candidates(view, leastLoaded, none)[0]))).toEqual(
      new Set(['w1']),
    );
  });
});
