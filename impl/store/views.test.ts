/** The steps Dispatch and the Infer-Controller run around the protocol: load, placement, streams, baselines. */
import { describe, expect, it } from 'vitest';
import { TTL, inCell, refusal } from '../test-support/cell.js';
import { useStore } from '../test-support/redis.js';
import { cellKeys } from './keys.js';
import * as steps from './steps.js';

const f = useStore();
const T0 = 1_700_000_000_000;
const at = () => inCell(f.store, f.cell);

/** w1 and w2 registered (capacity 2), s1 and s2 created on w1. */
async function twoSessionsOnW1() {
  const c = at();
  await c.register('w1', 2, T0);
  await c.register('w2', 2, T0);
  await c.create('s1', 'w1', T0);
  await c.create('s2', 'w1', T0);
  return c;
}

describe('placed sets', () => {
  const placed = async (worker: string) =>
    (await steps.readPlaced(f.store, { cell: f.cell, worker })).map((p) => [p.session, p.generation.epoch]);

  it('follow the generation through create, move and close', async () => {
    const c = await twoSessionsOnW1();
    expect(await placed('w1')).toEqual([
      ['s1', 1],
      ['s2', 1],
    ]);
    await c.move('s1', ['w1', 1], 'w2', T0);
    expect(await placed('w1')).toEqual([['s2', 1]]);
    expect(await placed('w2')).toEqual([['s1', 2]]);
    await c.close('s2');
    expect(await placed('w1')).toEqual([]);
  });

  it('are what a worker registering again takes back, whatever the rest of the cell holds', async () => {
    const c = at();
    await c.register('w1', 2, T0, 100);
    await c.register('w2', 2, T0);
    await c.create('s1', 'w1', T0);
    await c.create('s2', 'w1', T0);
    await c.create('s3', 'w2', T0);
    await c.move('s1', ['w1', 1], 'w2', T0);
    expect(await c.register('w1', 2, T0 + 200)).toMatchObject({ incarnation: 2, adopted: 1 });
    expect(await placed('w1')).toEqual([['s2', 2]]);
    expect(await c.gen('s3')).toEqual({ worker: 'w2', epoch: 1, phase: 'assigned' });
  });
});

describe('readGens', () => {
  it('reads, in order, what readGen reads and the log length of each session, null for one never created', async () => {
    const c = await twoSessionsOnW1();
    await c.claim('w1', 's2', 1);
    await c.append('s1', 'r1');
    await c.append('s1', 'r2');
    await c.move('s1', ['w1', 1], 'w2', T0);
    await c.close('s2');
    const sessions = ['s2', 'nobody', 's1'];
    const one = await Promise.all(
      sessions.map((session) => steps.readGen(f.store, { cell: f.cell, session })),
    );
    expect(one).toEqual([
      { worker: 'w1', epoch: 1, phase: 'closed' },
      null,
      { worker: 'w2', epoch: 2, phase: 'assigned' },
    ]);
    expect(await steps.readGens(f.store, { cell: f.cell, sessions })).toEqual([
      { generation: one[0], appended: 0 },
      { generation: null, appended: 0 },
      { generation: one[2], appended: 2 },
    ]);
  });

  it('refuses an empty batch and one past 1024 sessions', async () => {
    for (const sessions of [[], Array.from({ length: 1025 }, (_, k) => `s${k}`)]) {
      await expect(steps.readGens(f.store, { cell: f.cell, sessions })).rejects.toThrow(/readGens/);
    }
  });
});

describe('readLoadView', () => {
  it('gives every worker with its lease, tokens, placements, draining, address and published load', async () => {
    const c = at();
    const reg = await steps.registerWorker(f.store, {
      cell: f.cell,
      worker: 'w2',
      cap: 3,
      now: T0,
      ttlMs: 100,
      addr: '127.0.0.1:7002',
    });
    await c.register('w1', 2, T0);
    await c.create('s1', 'w2', T0);
    await c.drain('w1');
    await steps.publishLoad(f.store, {
      cell: f.cell,
      worker: 'w2',
      incarnation: reg.incarnation,
      runtimes: 1,
      queued: 4,
      now: T0 + 5,
    });
    const view = await steps.readLoadView(f.store, { cell: f.cell, now: T0 + 150 });
    expect(view).toEqual([
      {
        worker: 'w1',
        incarnation: 1,
        expiresAt: T0 + 10_000,
        live: true,
        cap: 2,
        tokens: 0,
        draining: true,
        placed: 0,
        addr: '',
        runtimes: 0,
        queued: 0,
        loadAt: 0,
      },
      {
        worker: 'w2',
        incarnation: 1,
        expiresAt: T0 + 100,
        live: false,
        cap: 3,
        tokens: 1,
        draining: false,
        placed: 1,
        addr: '127.0.0.1:7002',
        runtimes: 1,
        queued: 4,
        loadAt: T0 + 5,
      },
    ]);
  });

  it('refuses load from a superseded incarnation', async () => {
    const c = at();
    await c.register('w1', 2, T0, 100);
    await c.register('w1', 2, T0 + 200);
    const publish = steps.publishLoad(f.store, {
      cell: f.cell,
      worker: 'w1',
      incarnation: 1,
      runtimes: 0,
      queued: 0,
      now: T0 + 300,
    });
    expect(await refusal(publish)).toBe('STALE_INCARNATION');
  });
});

describe('readSessions', () => {
  it('pages through every live session once', async () => {
    const c = at();
    await c.register('w1', 50, T0);
    for (let i = 0; i < 30; i++) await c.create(`s${i}`, 'w1', T0);
    await c.close('s7');
    const seen: string[] = [];
    let cursor = '0';
    do {
      const page = await steps.readSessions(f.store, { cell: f.cell, cursor, count: 7 });
      seen.push(...page.sessions.map((p) => p.session));
      cursor = page.cursor;
    } while (cursor !== '0');
    expect(new Set(seen).size).toBe(29);
    expect(seen).not.toContain('s7');
  });
});

describe('the work stream', () => {
  it('carries assignments and new inputs for the owner, and is trimmed by acknowledgement', async () => {
    const c = at();
    await c.register('w1', 2, T0);
    await c.create('s1', 'w1', T0);
    await c.append('s1', 'r1');
    await c.append('s1', 'r1'); // a retry announces nothing
    await c.append('s1', 'r2');
    const key = cellKeys(f.cell).stream('w1');
    const entries = await f.redis.xrange(key, '-', '+');
    expect(entries.map(([, fields]) => fields)).toEqual([
      ['s', 's1', 'e', '1'],
      ['a', 's1 1'],
      ['a', 's1 2'],
    ]);
    const { trimmed } = await steps.ackStream(f.store, { cell: f.cell, worker: 'w1', id: entries[2]![0] });
    expect(trimmed).toBe(2);
    expect(await f.redis.xlen(key)).toBe(1);
  });
});

describe('baseline protocols (unsafe, for comparisons)', () => {
  const moved = async (protocol: steps.StoreOptions['protocol']) => {
    const store = f.connect({ protocol });
    const c = inCell(store, f.cell);
    await c.register('w1', 2, T0);
    await c.register('w2', 2, T0);
    await c.create('s1', 'w1', T0);
    await c.claim('w1', 's1', 1);
    await c.append('s1', 'r1');
    await c.append('s1', 'r2');
    await c.release('w1', 's1', 1, 1);
    await c.move('s1', ['w1', 1], 'w2', T0);
    await c.claim('w2', 's1', 2);
    await c.release('w2', 's1', 2, 2);
    return c;
  };

  it('dhsched refuses the old runtime after a move', async () => {
    const c = await moved('dhsched');
    expect(await refusal(c.release('w1', 's1', 1, 2))).toBe('LOST_AUTHORITY');
  });

  for (const protocol of ['assignment_time', 'claim_only'] as const) {
    it(`${protocol} lets the old runtime release again: a dual release`, async () => {
      const c = await moved(protocol);
      expect((await c.release('w1', 's1', 1, 2)).requestId).toBe('r2');
      expect((await c.released('s1')).by).toEqual({ worker: 'w1', epoch: 1 });
    });
  }

  it('workerid_only lets w1’s old runtime pass after s goes w1 → w2 → w1', async () => {
    const c = await moved('workerid_only');
    await c.move('s1', ['w2', 2], 'w1', T0);
    await c.claim('w1', 's1', 3);
    await c.append('s1', 'r3');
    expect((await c.release('w1', 's1', 1, 3)).requestId).toBe('r3');
    expect((await c.released('s1')).by).toEqual({ worker: 'w1', epoch: 1 });
  });

  it('assignment_time claims nothing in the store', async () => {
    const store = f.connect({ protocol: 'assignment_time' });
    const c = inCell(store, f.cell);
    await c.register('w1', 2, T0);
    await c.create('s1', 'w1', T0);
    expect(await c.claim('w1', 's1', 1)).toBe('claimed');
    expect(await c.gen('s1')).toEqual({ worker: 'w1', epoch: 1, phase: 'assigned' });
  });
});

describe('the audit stream', () => {
  it('records commits, closes and releases in store order once the cell turns auditing on, and nothing before', async () => {
    const c = at();
    await c.register('w1', 2, T0);
    await c.register('w2', 2, T0);
    await c.create('s0', 'w1', T0);
    await steps.configureCell(f.store, { cell: f.cell, audit: true });
    await c.create('s1', 'w1', T0);
    await c.claim('w1', 's1', 1);
    await c.append('s1', 'r1');
    await c.release('w1', 's1', 1, 1);
    await c.move('s1', ['w1', 1], 'w2', T0);
    await c.close('s1');
    const audit = await steps.readAudit(f.store, { cell: f.cell });
    expect(audit.map(({ id: _id, ...rest }) => rest)).toEqual([
      { kind: 'commit', session: 's1', worker: 'w1', epoch: 1, from: '' },
      { kind: 'release', session: 's1', worker: 'w1', epoch: 1, seq: 1 },
      { kind: 'commit', session: 's1', worker: 'w2', epoch: 2, from: 'w1' },
      { kind: 'close', session: 's1', worker: 'w2', epoch: 2 },
    ]);
    expect(await steps.readAudit(f.store, { cell: f.cell, afterId: audit[1]!.id })).toHaveLength(2);
  });

  it('with tracing on, records every step of a spec action, refusals and the reads callers name too', async () => {
    const c = at();
    await c.register('w1', 2, T0);
    await c.register('w2', 2, T0);
    expect(await refusal(c.append('s9', 'r0'))).toBe('NO_SESSION'); // not traced yet
    await steps.configureCell(f.store, { cell: f.cell, audit: true, trace: true });
    const { cell } = f;
    await c.create('s1', 'w1', T0);
    await c.claim('w1', 's1', 1);
    await steps.readRelease(f.store, { cell, session: 's1', tracedAs: { worker: 'w1', epoch: 1 } });
    await c.released('s1'); // an untraced read
    await c.append('s1', 'r1');
    await c.append('s1', 'r1');
    await c.release('w1', 's1', 1, 1);
    expect(await refusal(c.release('w1', 's1', 1, 2))).toBe('NO_INPUT');
    await steps.readGen(f.store, { cell, session: 's1', tracedAs: 'plan' });
    await c.move('s1', ['w1', 1], 'w2', T0);
    expect(await refusal(c.move('s1', ['w1', 1], 'w2', T0))).toBe('CONFLICT');
    expect(await refusal(c.release('w1', 's1', 1, 2))).toBe('LOST_AUTHORITY');
    await steps.readGen(f.store, { cell, session: 's1', tracedAs: { worker: 'w1', epoch: 1 } });
    await c.teardown('w1', 's1', 1);
    expect(await c.claim('w1', 's1', 1)).toBe('stale');
    await steps.readPlaced(f.store, { cell, worker: 'w2', tracedAs: 'plan' });
    await c.drain('w2');
    expect(await refusal(c.create('s2', 'w2', T0))).toBe('DRAINING');
    await c.close('s1');
    expect(await refusal(c.append('s1', 'r2'))).toBe('CLOSED');
    expect(await refusal(c.renew('w1', 1, T0 + TTL))).toBe('NOT_LIVE');
    expect(await refusal(c.create('s2', 'w1', T0 + TTL))).toBe('NOT_LIVE');
    await c.register('w1', 2, T0 + TTL);
    const trace = (await steps.readTrace(f.store, { cell })).map(({ id: _id, ...rest }) => rest);
    const s1w1 = { session: 's1', worker: 'w1', epoch: 1 };
    const seen = (worker: string, epoch: number) => ({ worker, epoch, phase: 'assigned' as const });
    expect(trace).toEqual([
      { kind: 'commit', session: 's1', worker: 'w1', epoch: 1, from: '' },
      { kind: 'claim', ...s1w1, outcome: 'claimed' },
      { kind: 'reconstruct', ...s1w1, seq: 0 },
      { kind: 'append', session: 's1', requestId: 'r1', seq: 1, duplicate: false },
      { kind: 'append', session: 's1', requestId: 'r1', seq: 1, duplicate: true },
      { kind: 'release', ...s1w1, seq: 1 },
      { kind: 'noinput', ...s1w1, seq: 2 },
      { kind: 'plan', session: 's1', seen: { ...seen('w1', 1), phase: 'claimed' } },
      { kind: 'commit', session: 's1', worker: 'w2', epoch: 2, from: 'w1' },
      { kind: 'refused', session: 's1', worker: 'w2', from: 'w1', epoch: 1, code: 'CONFLICT' },
      { kind: 'lost', ...s1w1, seq: 2 },
      { kind: 'fence', ...s1w1, seen: seen('w2', 2) },
      { kind: 'teardown', ...s1w1 },
      { kind: 'claim', ...s1w1, outcome: 'stale' },
      { kind: 'plan', session: 's1', seen: seen('w2', 2) },
      { kind: 'drain', worker: 'w2', started: true },
      { kind: 'refused', session: 's2', worker: 'w2', from: '', epoch: 0, code: 'DRAINING' },
      { kind: 'close', session: 's1', worker: 'w2', epoch: 2 },
      { kind: 'notlive', step: 'append', session: 's1', phase: 'closed' },
      { kind: 'lapse', worker: 'w1' },
      { kind: 'refused', session: 's2', worker: 'w1', from: '', epoch: 0, code: 'NOT_LIVE' },
      { kind: 'register', worker: 'w1', incarnation: 2 },
    ]);
    // the history alone, as without tracing
    expect((await steps.readAudit(f.store, { cell })).map((a) => a.kind)).toEqual([
      'commit',
      'release',
      'commit',
      'close',
    ]);
  });

  it('refuses tracing without auditing', async () => {
    expect(await refusal(steps.configureCell(f.store, { cell: f.cell, audit: false, trace: true }))).toBe(
      'INVALID_INPUT',
    );
  });
});
