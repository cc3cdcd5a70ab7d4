import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../store/steps.js';
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
