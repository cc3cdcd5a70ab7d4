import { describe, expect, it } from 'vitest';
import type { AuditEntry, TraceEntry } from '../impl/store/steps.js';
import { checkHistory } from './history.js';

let n = 0;
const commit = (session: string, worker: string, epoch: number, from = ''): AuditEntry => ({
  id: `${++n}-0`,
  kind: 'commit',
  session,
  worker,
  epoch,
  from,
});
const release = (session: string, worker: string, epoch: number, seq: number): AuditEntry => ({
  id: `${++n}-0`,
  kind: 'release',
  session,
  worker,
  epoch,
  seq,
});

describe('checkHistory', () => {
  it('accepts releases in order by the current generation, across a move', () => {
    const h = [
      commit('s', 'w1', 1),
      release('s', 'w1', 1, 1),
      commit('s', 'w2', 2, 'w1'),
      release('s', 'w2', 2, 2),
    ];
    expect(checkHistory(h, new Map([['s', 2]]))).toEqual({ commits: 2, releases: 2, violations: [] });
  });

  it('finds a release after the close stale', () => {
    const close: AuditEntry = { id: `${++n}-0`, kind: 'close', session: 's', worker: 'w1', epoch: 1 };
    const h = [commit('s', 'w1', 1), close, release('s', 'w1', 1, 1)];
    expect(checkHistory(h).violations.map((v) => v.kind)).toEqual(['stale-release']);
  });

  it('names each violation: stale, dual, gap, unreleased', () => {
    const h = [
      commit('s', 'w1', 1),
      release('s', 'w1', 1, 1),
      commit('s', 'w2', 2, 'w1'),
      release('s', 'w1', 1, 2), // stale
      release('s', 'w2', 2, 2), // dual
      release('s', 'w2', 2, 4), // gap
    ];
    const kinds = checkHistory(h, new Map([['s', 5]])).violations.map((v) => [v.kind, v.seq]);
    expect(kinds).toEqual([
      ['stale-release', 2],
      ['dual-release', 2],
      ['gap', 4],
      ['unreleased', 5],
    ]);
  });
});

describe('checkHistory with capacities: overshoot', () => {
  type NoId<T> = T extends unknown ? Omit<T, 'id'> : never;
  const step = (e: NoId<TraceEntry>) => ({ id: `${++n}-0`, ...e }) as TraceEntry;
  const gen = (session: string, worker: string, epoch: number) => ({ session, worker, epoch });
  const teardown = (s: string, w: string, e: number) => step({ kind: 'teardown', ...gen(s, w, e) });
  const close = (s: string, w: string, e: number) => step({ kind: 'close', ...gen(s, w, e) });
  const staleClaim = (s: string, w: string, e: number) =>
    step({ kind: 'claim', ...gen(s, w, e), outcome: 'stale' });
  const register = (worker: string) => step({ kind: 'register', worker, incarnation: 2 });
  const cap1 = new Map([['w1', 1]]);
  const overshot = (h: TraceEntry[], caps = cap1) =>
    checkHistory(h, new Map(), caps)
      .violations.filter((v) => v.kind === 'overshoot')
      .map((v) => [v.worker, v.session, v.seq]);

  it('flags a worker holding more tokens than its capacity', () => {
    expect(overshot([commit('a', 'w1', 1), commit('b', 'w1', 1)])).toEqual([['w1', 'b', 2]]);
  });

  it('counts one token per generation: a session back on its worker holds two', () => {
    const h = [commit('a', 'w1', 1), commit('a', 'w2', 2, 'w1'), commit('a', 'w1', 3, 'w2')];
    expect(overshot(h)).toEqual([['w1', 'a', 2]]);
  });

  it('accepts tokens freed by a teardown, a stale claim or a registration', () => {
    expect(overshot([commit('a', 'w1', 1), teardown('a', 'w1', 1), commit('b', 'w1', 1)])).toEqual([]);
    const moved = [commit('a', 'w1', 1), commit('a', 'w2', 2, 'w1'), staleClaim('a', 'w1', 1)];
    expect(overshot([...moved, commit('b', 'w1', 1)])).toEqual([]);
    expect(overshot([commit('a', 'w1', 1), register('w1'), commit('b', 'w1', 1)])).toEqual([]);
  });

  it('frees nothing on a close, or on a teardown of a token not held', () => {
    expect(overshot([commit('a', 'w1', 1), close('a', 'w1', 1), commit('b', 'w1', 1)])).toEqual([
      ['w1', 'b', 2],
    ]);
    expect(overshot([commit('a', 'w1', 1), teardown('a', 'w1', 2), commit('b', 'w1', 1)])).toEqual([
      ['w1', 'b', 2],
    ]);
  });

  it('judges only the workers given a capacity, and only when capacities are given', () => {
    const h = [commit('a', 'w2', 1), commit('b', 'w2', 1)];
    expect(overshot(h)).toEqual([]);
    expect(overshot(h, new Map([['w2', 2]]))).toEqual([]);
    expect(checkHistory([commit('a', 'w1', 1), commit('b', 'w1', 1)]).violations).toEqual([]);
  });
});
