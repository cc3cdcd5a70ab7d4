/** Each store step against a real Redis: its success, and every refusal it can return. */
import { describe, expect, it } from 'vitest';
import { TTL, inCell, refusal } from '../test-support/cell.js';
import { loggedRequests, readLog, useStore } from '../test-support/redis.js';
import { StoreCode } from './codes.js';
import { cellKeys } from './keys.js';
import { MAX_TEXT_BYTES } from './schema.js';
import { queueCall, readReply } from './scripts.js';
import * as steps from './steps.js';

const f = useStore();
const T0 = 1_700_000_000_000;
const at = () => inCell(f.store, f.cell);
const keys = () => cellKeys(f.cell);
const cellKeyNames = async () => (await f.redis.keys(`${keys().prefix}*`)).sort();
/** The session's log as the store keeps it. */
const logOf = (session: string) => readLog(f.redis, f.cell, session);
/** released[s] as the store keeps it, beside gen[s]: seq, w, e, and where its batch began. */
const released = (session: string) => f.redis.hmget(keys().gen(session), 'rseq', 'rw', 're', 'rfrom');

/** w1 (and w2) registered at T0; s1 created on w1 at epoch 1. */
async function withSession(cap = 2) {
  const c = at();
  await c.register('w1', cap, T0);
  await c.register('w2', cap, T0);
  expect(await c.create('s1', 'w1', T0)).toBe(1);
  return c;
}

describe('registerWorker', () => {
  it('registers a new worker as incarnation 1 with a live lease and its capacity', async () => {
    const c = at();
    expect(await c.register('w1', 3, T0)).toEqual({ incarnation: 1, expiresAt: T0 + TTL, adopted: 0 });
    expect(await c.worker('w1', T0)).toEqual({
      worker: 'w1',
      incarnation: 1,
      addr: '',
      expiresAt: T0 + TTL,
      live: true,
      cap: 3,
      draining: false,
      tokens: [],
    });
  });

  it('refuses while the lease is live (LEASE_LIVE)', async () => {
    const c = at();
    await c.register('w1', 1, T0);
    expect(await refusal(c.register('w1', 1, T0 + TTL - 1))).toBe('LEASE_LIVE');
  });

  it('after expiry, takes back each live session placed on it as generation (w, e + 1, assigned)', async () => {
    const c = await withSession(3);
    await c.create('s2', 'w1', T0);
    expect(await c.claim('w1', 's2', 1)).toBe('claimed');
    await c.append('s2', 'r1');
    await c.create('s3', 'w1', T0);
    await c.close('s3');
    const later = T0 + TTL;
    expect(await c.register('w1', 3, later)).toEqual({ incarnation: 2, expiresAt: later + TTL, adopted: 2 });
    for (const s of ['s1', 's2'])
      expect(await c.gen(s)).toEqual({ worker: 'w1', epoch: 2, phase: 'assigned' });
    expect(await c.gen('s3')).toMatchObject({ epoch: 1, phase: 'closed' });
    const tokens = (await c.worker('w1', later)).tokens.map((t) => `${t.session}@${t.epoch}`);
    expect(tokens.sort()).toEqual(['s1@2', 's2@2']);
    const work = await f.redis.xrange(keys().stream('w1'), '-', '+');
    expect(work.map(([, fields]) => fields).sort()).toEqual([
      ['s', 's1', 'e', '2'],
      ['s', 's2', 'e', '2'],
    ]);
    // the old generation lost its authority; a recovery move guarded by it loses the race
    expect(await refusal(c.release('w1', 's2', 1, 1))).toBe('LOST_AUTHORITY');
    expect(await refusal(c.move('s1', ['w1', 1], 'w2', later))).toBe('CONFLICT');
    expect(await c.claim('w1', 's2', 2)).toBe('claimed');
    expect(await c.release('w1', 's2', 2, 1)).toMatchObject({ requestId: 'r1' });
  });

  it('after expiry, starts a new incarnation: tokens and stream cleared, no longer draining', async () => {
    const c = await withSession();
    await c.close('s1'); // closed: no longer placed, but its token stays until teardown
    await c.drain('w1');
    expect((await c.worker('w1', T0)).tokens).toEqual([{ session: 's1', epoch: 1 }]);
    expect(await c.register('w1', 4, T0 + TTL)).toEqual({
      incarnation: 2,
      expiresAt: T0 + 2 * TTL,
      adopted: 0,
    });
    expect(await c.worker('w1', T0 + TTL)).toMatchObject({
      incarnation: 2,
      cap: 4,
      draining: false,
      tokens: [],
    });
    expect(await f.redis.exists(keys().stream('w1'))).toBe(0);
  });
});

describe('renewLease', () => {
  it('extends a live lease', async () => {
    const c = at();
    await c.register('w1', 1, T0);
    expect(await c.renew('w1', 1, T0 + 5, 20_000)).toEqual({ expiresAt: T0 + 20_005 });
    expect((await c.worker('w1', T0 + TTL + 1)).live).toBe(true);
  });

  it('refuses an unknown worker, a superseded incarnation, and an expired lease', async () => {
    const c = at();
    expect(await refusal(c.renew('w1', 1, T0))).toBe('UNKNOWN_WORKER');
    await c.register('w1', 1, T0);
    expect(await refusal(c.renew('w1', 1, T0 + TTL))).toBe('NOT_LIVE'); // expiry is exclusive
    await c.register('w1', 1, T0 + TTL);
    expect(await refusal(c.renew('w1', 1, T0 + TTL + 1))).toBe('STALE_INCARNATION');
    expect(await c.renew('w1', 2, T0 + TTL + 1)).toEqual({ expiresAt: T0 + 2 * TTL + 1 });
  });

  it('a lapse it found stays: a step still carrying an earlier time finds the lease expired', async () => {
    const c = at();
    await c.register('w1', 1, T0);
    expect(await refusal(c.renew('w1', 1, T0 + TTL + 1))).toBe('NOT_LIVE');
    // e.g. a commit that read the clock before Redis restarted, and runs once it is back
    expect((await c.worker('w1', T0 + 1)).live).toBe(false);
    expect(await refusal(c.create('s1', 'w1', T0 + 1))).toBe('NOT_LIVE');
    expect(await refusal(c.renew('w1', 1, T0 + 1))).toBe('NOT_LIVE');
    await c.register('w1', 1, T0 + 1);
    expect((await c.worker('w1', T0 + 2)).live).toBe(true);
  });

  it('a lapse a commit found stays too: a commit or renewal carrying an earlier time finds it expired', async () => {
    const c = at();
    await c.register('w1', 1, T0);
    // a Dispatch replica whose clock is ahead, or which read it later, finds the lease expired first
    expect(await refusal(c.create('s1', 'w1', T0 + TTL + 1))).toBe('NOT_LIVE');
    expect(await refusal(c.create('s2', 'w1', T0 + 1))).toBe('NOT_LIVE');
    expect(await refusal(c.renew('w1', 1, T0 + 1))).toBe('NOT_LIVE');
  });
});

describe('admitCommit', () => {
  it('creates: gen (w, 1, assigned), a token, an assignment on the stream, a live session', async () => {
    const c = await withSession();
    expect(await c.gen('s1')).toEqual({ worker: 'w1', epoch: 1, phase: 'assigned' });
    expect((await c.worker('w1', T0)).tokens).toEqual([{ session: 's1', epoch: 1 }]);
    const entries = await f.redis.xrange(keys().stream('w1'), '-', '+');
    expect(entries.map(([, fields]) => fields)).toEqual([['s', 's1', 'e', '1']]);
    expect(await f.redis.smembers(keys().sessions)).toEqual(['s1']);
  });

  it('moves from the generation read to epoch e + 1 on the target', async () => {
    const c = await withSession();
    await c.claim('w1', 's1', 1);
    expect(await c.move('s1', ['w1', 1], 'w2', T0)).toBe(2);
    expect(await c.gen('s1')).toEqual({ worker: 'w2', epoch: 2, phase: 'assigned' });
    expect((await c.worker('w2', T0)).tokens).toEqual([{ session: 's1', epoch: 2 }]);
    // the source keeps its token until its runtime tears down
    expect((await c.worker('w1', T0)).tokens).toEqual([{ session: 's1', epoch: 1 }]);
  });

  it('refuses a create of an existing or closed session (CONFLICT)', async () => {
    const c = await withSession();
    expect(await refusal(c.create('s1', 'w2', T0))).toBe('CONFLICT');
    await c.close('s1');
    expect(await refusal(c.create('s1', 'w2', T0))).toBe('CONFLICT');
  });

  it('refuses a move whose source generation is not current (CONFLICT)', async () => {
    const c = await withSession();
    expect(await refusal(c.move('s1', ['w1', 2], 'w2', T0))).toBe('CONFLICT');
    expect(await refusal(c.move('s1', ['w2', 1], 'w1', T0))).toBe('CONFLICT');
    expect(await refusal(c.move('s9', ['w1', 1], 'w2', T0))).toBe('CONFLICT');
    await c.close('s1');
    expect(await refusal(c.move('s1', ['w1', 1], 'w2', T0))).toBe('CONFLICT');
  });

  it('checks the guard before admission: a move that lost the race is a CONFLICT even on a full target', async () => {
    const c = await withSession(1);
    expect(await c.create('s2', 'w2', T0)).toBe(1);
    expect(await refusal(c.move('s1', ['w1', 1], 'w2', T0))).toBe('FULL');
    expect(await refusal(c.move('s1', ['w1', 2], 'w2', T0))).toBe('CONFLICT');
  });

  it('refuses an unregistered, expired, draining or full target', async () => {
    const c = await withSession(1);
    expect(await refusal(c.create('s2', 'w9', T0))).toBe('UNKNOWN_WORKER');
    expect(await refusal(c.create('s2', 'w1', T0))).toBe('FULL');
    await c.drain('w2');
    expect(await refusal(c.create('s2', 'w2', T0))).toBe('DRAINING');
    // the lease is checked before draining
    expect(await refusal(c.create('s2', 'w2', T0 + TTL))).toBe('NOT_LIVE');
    expect(await c.gen('s2')).toBeNull();
  });

  it('rejects invalid input before touching Redis (INVALID_INPUT)', async () => {
    const c = await withSession();
    const before = await cellKeyNames();
    expect(await refusal(c.move('s1', ['w1', 1], 'w1', T0))).toBe('INVALID_INPUT');
    expect(await refusal(c.create('s:2', 'w1', T0))).toBe('INVALID_INPUT');
    expect(await refusal(c.create('s{2}', 'w1', T0))).toBe('INVALID_INPUT');
    expect(await refusal(c.create('s2', 'w|1', T0))).toBe('INVALID_INPUT');
    expect(await refusal(c.move('s1', ['w1', 0], 'w2', T0))).toBe('INVALID_INPUT');
    expect(await refusal(c.move('s1', ['w1', 1.5], 'w2', T0))).toBe('INVALID_INPUT');
    expect(await refusal(c.create('s2', 'w1', -1))).toBe('INVALID_INPUT');
    const untyped = { cell: f.cell, session: 's2', target: 'w1', expected: null, now: '1' } as unknown;
    expect(await refusal(steps.admitCommit(f.store, untyped as steps.AdmitCommitArgs))).toBe('INVALID_INPUT');
    expect(await cellKeyNames()).toEqual(before);
  });
});

/**
 * w1's first incarnation lost its lease; its session moved to w2; w1 registered again (incarnation 2)
 * and was given s2 (w1, 1): the first process may still be running beside the second.
 */
async function secondIncarnation() {
  const c = await withSession();
  await c.move('s1', ['w1', 1], 'w2', T0);
  expect((await c.register('w1', 2, T0 + TTL)).incarnation).toBe(2);
  await c.create('s2', 'w1', T0 + TTL);
  return c;
}

describe('claim', () => {
  it('claims the generation assigned to this worker', async () => {
    const c = await withSession();
    expect(await c.claim('w1', 's1', 1)).toBe('claimed');
    expect(await c.gen('s1')).toEqual({ worker: 'w1', epoch: 1, phase: 'claimed' });
  });

  it('finds a superseded generation stale and frees its token', async () => {
    const c = await withSession();
    await c.move('s1', ['w1', 1], 'w2', T0);
    expect(await c.claim('w1', 's1', 1)).toBe('stale');
    expect((await c.worker('w1', T0)).tokens).toEqual([]);
    expect(await c.gen('s1')).toEqual({ worker: 'w2', epoch: 2, phase: 'assigned' });
  });

  it('claims again on a retry, keeping the token: a lost reply must not free a live slot', async () => {
    const c = await withSession();
    expect(await c.claim('w1', 's1', 1)).toBe('claimed');
    expect(await c.claim('w1', 's1', 1)).toBe('claimed');
    expect((await c.worker('w1', T0)).tokens).toEqual([{ session: 's1', epoch: 1 }]);
    expect(await c.gen('s1')).toEqual({ worker: 'w1', epoch: 1, phase: 'claimed' });
  });

  it('refuses a superseded incarnation of the worker and leaves the token (STALE_INCARNATION)', async () => {
    const c = await secondIncarnation();
    expect(await refusal(c.claim('w1', 's2', 1, 1))).toBe('STALE_INCARNATION');
    expect((await c.worker('w1', T0 + TTL)).tokens).toEqual([{ session: 's2', epoch: 1 }]);
    expect(await c.claim('w1', 's2', 1, 2)).toBe('claimed');
    // the old process's retry is no retry of this claim
    expect(await refusal(c.claim('w1', 's2', 1, 1))).toBe('STALE_INCARNATION');
    expect(await c.gen('s2')).toEqual({ worker: 'w1', epoch: 1, phase: 'claimed' });
  });

  it('finds stale a generation of another worker, closed, or never committed', async () => {
    const c = await withSession();
    await c.claim('w1', 's1', 1);
    expect(await c.claim('w2', 's1', 1)).toBe('stale');
    expect(await c.claim('w1', 's9', 1)).toBe('stale');
    await c.close('s1');
    expect(await c.gen('s1')).toEqual({ worker: 'w1', epoch: 1, phase: 'closed' });
  });
});

describe('releaseInput', () => {
  async function claimed() {
    const c = await withSession();
    await c.claim('w1', 's1', 1);
    await c.append('s1', 'r1', 'hello');
    await c.append('s1', 'r2', 'world');
    return c;
  }

  it('releases inputs in order to the current claimed generation and moves the cursor', async () => {
    const c = await claimed();
    expect(await c.release('w1', 's1', 1, 1)).toEqual({
      seq: 1,
      requestId: 'r1',
      text: 'hello',
      appended: 2,
    });
    expect(await c.release('w1', 's1', 1, 2)).toEqual({
      seq: 2,
      requestId: 'r2',
      text: 'world',
      appended: 2,
    });
    expect(await released('s1')).toEqual(['2', 'w1', '1', '1']);
  });

  it('refuses a release out of order (LOST_AUTHORITY)', async () => {
    const c = await claimed();
    expect(await refusal(c.release('w1', 's1', 1, 2))).toBe('LOST_AUTHORITY');
    await c.release('w1', 's1', 1, 1);
    await c.release('w1', 's1', 1, 2);
    expect(await refusal(c.release('w1', 's1', 1, 1))).toBe('LOST_AUTHORITY');
  });

  it('answers a retry of the last release with its input again, releasing nothing twice', async () => {
    const c = await claimed();
    await steps.configureCell(f.store, { cell: f.cell, audit: true });
    const first = await c.release('w1', 's1', 1, 1);
    expect(await c.release('w1', 's1', 1, 1)).toEqual(first);
    expect(await released('s1')).toEqual(['1', 'w1', '1', '0']);
    const releases = (await steps.readAudit(f.store, { cell: f.cell })).filter((a) => a.kind === 'release');
    expect(releases.map((a) => a.kind === 'release' && a.seq)).toEqual([1]);
    // only to the generation that released it, and only while it is current
    await c.move('s1', ['w1', 1], 'w2', T0);
    expect(await refusal(c.release('w1', 's1', 1, 1))).toBe('LOST_AUTHORITY');
  });

  it('refuses a release by another incarnation of the worker than the one that claimed (LOST_AUTHORITY)', async () => {
    const c = await secondIncarnation();
    await c.claim('w1', 's2', 1, 2);
    await c.append('s2', 'r1');
    expect(await refusal(c.release('w1', 's2', 1, 1, 1))).toBe('LOST_AUTHORITY');
    expect((await c.release('w1', 's2', 1, 1, 2)).requestId).toBe('r1');
  });

  it('refuses any generation but the current claimed one (LOST_AUTHORITY)', async () => {
    const c = await withSession();
    await c.append('s1', 'r1');
    expect(await refusal(c.release('w1', 's1', 1, 1))).toBe('LOST_AUTHORITY'); // assigned, not claimed
    await c.claim('w1', 's1', 1);
    expect(await refusal(c.release('w1', 's1', 2, 1))).toBe('LOST_AUTHORITY');
    expect(await refusal(c.release('w2', 's1', 1, 1))).toBe('LOST_AUTHORITY');
    expect(await refusal(c.release('w1', 's9', 1, 1))).toBe('LOST_AUTHORITY');
    await c.close('s1');
    expect(await refusal(c.release('w1', 's1', 1, 1))).toBe('LOST_AUTHORITY');
    expect((await c.released('s1')).seq).toBe(0);
  });

  it('reports NO_INPUT when the generation is current but nothing is appended at seq', async () => {
    const c = await claimed();
    await c.release('w1', 's1', 1, 1);
    await c.release('w1', 's1', 1, 2);
    expect(await refusal(c.release('w1', 's1', 1, 3))).toBe('NO_INPUT');
    expect((await c.released('s1')).seq).toBe(2);
  });
});

describe('releaseBatch', () => {
  /** s1 and s2 claimed on w1 (two slots), two inputs each; s2 then moved to w2: w1's s2 runtime is stale. */
  async function twoOnW1() {
    const c = await withSession();
    await c.create('s2', 'w1', T0);
    for (const s of ['s1', 's2']) {
      await c.claim('w1', s, 1);
      await c.append(s, `${s}-a`);
      await c.append(s, `${s}-b`);
    }
    return c;
  }
  const texts = (r: steps.BatchRelease) => (r.outcome === 'released' ? r.inputs.map((i) => i.requestId) : []);

  it('releases every waiting input of each runtime in one step, each runtime against its own generation', async () => {
    const c = await twoOnW1();
    await steps.configureCell(f.store, { cell: f.cell, audit: true });
    await c.move('s2', ['w1', 1], 'w2', T0);
    const [s1, s2] = await c.batch('w1', [
      ['s1', 1, 0],
      ['s2', 1, 0],
    ]);
    expect(s1).toMatchObject({ outcome: 'released', appended: 2 });
    expect(texts(s1!)).toEqual(['s1-a', 's1-b']);
    expect(s2).toEqual({ outcome: 'lost' });
    expect(await c.released('s1')).toMatchObject({ seq: 2, by: { worker: 'w1', epoch: 1 } });
    expect(await c.released('s2')).toMatchObject({ seq: 0, by: null });
    const releases = (await steps.readAudit(f.store, { cell: f.cell })).filter((a) => a.kind === 'release');
    expect(releases.map((a) => a.kind === 'release' && [a.session, a.seq])).toEqual([
      ['s1', 1],
      ['s1', 2],
    ]);
  });

  it('audits the batch as one entry, read back as one release per input in the order released', async () => {
    const c = await twoOnW1();
    await steps.configureCell(f.store, { cell: f.cell, audit: true });
    await c.batch('w1', [
      ['s2', 1, 0],
      ['s1', 1, 0],
    ]);
    const rows = await f.redis.xrange(cellKeys(f.cell).audit, '-', '+');
    expect(rows.map(([, flat]) => flat)).toEqual([['k', 'releases', 'w', 'w1', 'a', 's2 1 1 2 s1 1 1 2']]);
    const releases = await steps.readAudit(f.store, { cell: f.cell });
    expect(releases.map((a) => a.kind === 'release' && [a.id, a.session, a.seq])).toEqual([
      [rows[0]![0], 's2', 1],
      [rows[0]![0], 's2', 2],
      [rows[0]![0], 's1', 1],
      [rows[0]![0], 's1', 2],
    ]);
  });

  it('takes at most `max` inputs of a runtime; nothing waiting is no input', async () => {
    const c = await twoOnW1();
    const [first] = await c.batch('w1', [['s1', 1, 0]], 1);
    expect(texts(first!)).toEqual(['s1-a']);
    const [rest, none] = await c.batch('w1', [
      ['s1', 1, 1],
      ['s2', 1, 2],
    ]);
    expect(texts(rest!)).toEqual(['s1-b']);
    expect(none).toEqual({ outcome: 'lost' }); // s2's cursor is 0, not 2
    const [empty] = await c.batch('w1', [['s1', 1, 2]]);
    expect(empty).toEqual({ outcome: 'noinput', appended: 2 });
  });

  it('answers a retry of a batch whose reply was lost with the same inputs, releasing nothing twice', async () => {
    const c = await twoOnW1();
    await steps.configureCell(f.store, { cell: f.cell, audit: true });
    const [first] = await c.batch('w1', [['s1', 1, 0]], 1);
    await c.append('s1', 's1-c');
    // the retry from the same cursor gets the lost input again, then the ones appended since
    const [again] = await c.batch('w1', [['s1', 1, 0]]);
    expect(texts(again!)).toEqual(['s1-a', 's1-b', 's1-c']);
    expect(texts(first!)).toEqual(['s1-a']);
    // a runtime asking from before the last batch's start would run inputs twice: refused
    expect(await c.batch('w1', [['s1', 1, 1]])).toEqual([{ outcome: 'lost' }]);
    const releases = (await steps.readAudit(f.store, { cell: f.cell })).filter((a) => a.kind === 'release');
    expect(releases.map((a) => a.kind === 'release' && a.seq)).toEqual([1, 2, 3]);
  });

  it('refuses a runtime of another incarnation, a closed session and a session of another worker', async () => {
    const c = await twoOnW1();
    const stale = await steps.releaseBatch(f.store, {
      cell: f.cell,
      worker: 'w1',
      max: 8,
      runtimes: [{ session: 's1', epoch: 1, incarnation: 7, from: 0 }],
    });
    expect(stale).toEqual([{ outcome: 'lost' }]);
    await c.close('s2');
    expect(await c.batch('w1', [['s2', 1, 0]])).toEqual([{ outcome: 'lost' }]);
    expect(await c.batch('w2', [['s1', 1, 0]])).toEqual([{ outcome: 'lost' }]);
    expect(await refusal(c.batch('w1', []))).toBe('INVALID_INPUT');
  });
});

describe('traceEntries', () => {
  it('reads a release entry of one input, as streams written before release batches hold them', () => {
    expect(steps.traceEntries('1-0', ['k', 'release', 's', 's1', 'w', 'w1', 'e', '2', 'q', '3'])).toEqual([
      { id: '1-0', kind: 'release', session: 's1', worker: 'w1', epoch: 2, seq: 3 },
    ]);
  });

  it('refuses a release batch entry that does not list s e first last per runtime, saying which', () => {
    const read = (a: string) => () => steps.traceEntries('1-0', ['k', 'releases', 'w', 'w1', 'a', a]);
    expect(read('s1 1 1')).toThrow(/entry 1-0 .* is malformed: a is not "s e first last" per runtime/);
    expect(read('s1 1 1 2 s2 1 3 2')).toThrow(/malformed: a's runtime 2: it: inputs first \.\. last/);
    expect(read('s1 x 1 2')).toThrow(/malformed: a's runtime 1: e: /);
  });
});

describe('appendInput', () => {
  it('appends at seq = length + 1', async () => {
    const c = await withSession();
    expect(await c.append('s1', 'r1')).toEqual({ seq: 1, duplicate: false });
    expect(await c.append('s1', 'r2')).toEqual({ seq: 2, duplicate: false });
    expect(await loggedRequests(f.redis, f.cell, 's1')).toEqual(['r1', 'r2']);
  });

  it('refuses a new input while maxQueued are not released (QUEUE_FULL), writing nothing; retries still answer', async () => {
    const c = await withSession();
    const push = (requestId: string) =>
      steps.appendInput(f.store, { cell: f.cell, session: 's1', requestId, text: requestId, maxQueued: 2 });
    await push('r1');
    await push('r2');
    const before = await cellKeyNames();
    const log = () => loggedRequests(f.redis, f.cell, 's1');
    expect(await refusal(push('r3'))).toBe('QUEUE_FULL');
    expect(await log()).toEqual(['r1', 'r2']);
    expect(await cellKeyNames()).toEqual(before);
    expect(await push('r2')).toMatchObject({ seq: 2, duplicate: true });
    await c.claim('w1', 's1', 1);
    await c.release('w1', 's1', 1, 1);
    expect(await push('r3')).toMatchObject({ seq: 3, duplicate: false });
    expect(await refusal(push('r4'))).toBe('QUEUE_FULL');
    expect(await log()).toEqual(['r1', 'r2', 'r3']);
  });

  it('is idempotent on the request id: a retry returns the first seq and appends nothing', async () => {
    const c = await withSession();
    await c.append('s1', 'r1', 'first');
    await c.append('s1', 'r2');
    expect(await c.append('s1', 'r1', 'retried')).toEqual({ seq: 1, duplicate: true });
    expect(await logOf('s1')).toEqual([
      { seq: 1, requestId: 'r1', text: 'first' },
      { seq: 2, requestId: 'r2', text: 'text of r2' },
    ]);
  });

  it('refuses an unknown (NO_SESSION) or closed (CLOSED) session', async () => {
    const c = await withSession();
    expect(await refusal(c.append('s9', 'r1'))).toBe('NO_SESSION');
    await c.close('s1');
    expect(await refusal(c.append('s1', 'r1'))).toBe('CLOSED');
    expect(await f.redis.exists(keys().log('s1'), keys().log('s9'))).toBe(0);
  });

  it('rejects oversized text and malformed request ids (INVALID_INPUT)', async () => {
    const c = await withSession();
    expect(await c.append('s1', 'big', 'é'.repeat(MAX_TEXT_BYTES / 2))).toEqual({
      seq: 1,
      duplicate: false,
    });
    expect(await refusal(c.append('s1', 'bigger', 'é'.repeat(MAX_TEXT_BYTES / 2) + 'x'))).toBe(
      'INVALID_INPUT',
    );
    expect(await refusal(c.append('s1', 'r 1'))).toBe('INVALID_INPUT');
    expect(await refusal(c.append('s1', ''))).toBe('INVALID_INPUT');
    expect(await refusal(c.append('s1', 'r'.repeat(129)))).toBe('INVALID_INPUT');
    expect(await logOf('s1')).toHaveLength(1);
  });
});

describe('teardown, closeSession, drain, undrain', () => {
  it('teardown frees the generation token once', async () => {
    const c = await withSession();
    expect(await c.teardown('w1', 's1', 1)).toBe(true);
    expect(await c.teardown('w1', 's1', 1)).toBe(false);
    expect((await c.worker('w1', T0)).tokens).toEqual([]);
  });

  it('closeSession closes a live session once; it leaves the live sessions', async () => {
    const c = await withSession();
    expect(await c.close('s1')).toBe(1);
    expect(await c.gen('s1')).toEqual({ worker: 'w1', epoch: 1, phase: 'closed' });
    expect(await f.redis.smembers(keys().sessions)).toEqual([]);
    expect(await refusal(c.close('s1'))).toBe('CLOSED');
    expect(await refusal(c.close('s9'))).toBe('NO_SESSION');
  });

  it('drain marks a registered worker draining, idempotently', async () => {
    const c = at();
    expect(await refusal(c.drain('w1'))).toBe('UNKNOWN_WORKER');
    await c.register('w1', 1, T0);
    expect(await c.drain('w1')).toBe(true);
    expect(await c.drain('w1')).toBe(false);
    expect((await c.worker('w1', T0)).draining).toBe(true);
  });

  it('undrain makes a drained worker take placements again, idempotently, and leaves other drains', async () => {
    const c = await withSession(1);
    expect(await refusal(c.undrain('w9'))).toBe('UNKNOWN_WORKER');
    expect(await c.undrain('w2')).toBe(false);
    await c.drain('w1');
    await c.drain('w2');
    expect(await refusal(c.create('s2', 'w2', T0))).toBe('DRAINING');
    expect(await c.undrain('w2')).toBe(true);
    expect(await c.undrain('w2')).toBe(false);
    expect((await c.worker('w1', T0)).draining).toBe(true);
    expect((await c.worker('w2', T0)).draining).toBe(false);
    expect(await c.create('s2', 'w2', T0)).toBe(1);
    // admission still decides: the lease, then capacity
    await c.undrain('w1');
    expect(await refusal(c.create('s3', 'w1', T0))).toBe('FULL');
    expect(await refusal(c.create('s3', 'w1', T0 + TTL))).toBe('NOT_LIVE');
    // the generation undrain found is untouched
    expect(await c.gen('s1')).toEqual({ worker: 'w1', epoch: 1, phase: 'assigned' });
  });
});

describe('reads', () => {
  it('readGen returns null for a session without a generation', async () => {
    expect(await at().gen('s1')).toBeNull();
  });

  it('readRelease returns the cursor, who moved it, and the inputs up to it', async () => {
    const c = await withSession();
    expect(await c.released('s1')).toEqual({ seq: 0, by: null, entries: [], appended: 0 });
    await c.claim('w1', 's1', 1);
    for (const r of ['r1', 'r2', 'r3']) await c.append('s1', r);
    await c.release('w1', 's1', 1, 1);
    await c.release('w1', 's1', 1, 2);
    expect(await c.released('s1')).toEqual({
      seq: 2,
      appended: 3,
      by: { worker: 'w1', epoch: 1 },
      entries: [
        { seq: 1, requestId: 'r1', text: 'text of r1' },
        { seq: 2, requestId: 'r2', text: 'text of r2' },
      ],
    });
    expect((await c.released('s1', 1)).entries).toEqual([{ seq: 2, requestId: 'r2', text: 'text of r2' }]);
    expect((await c.released('s1', 5)).entries).toEqual([]);
  });

  it('readWorker refuses an unknown worker and reports an expired lease', async () => {
    const c = at();
    expect(await refusal(c.worker('w1', T0))).toBe('UNKNOWN_WORKER');
    await c.register('w1', 1, T0);
    expect((await c.worker('w1', T0 + TTL)).live).toBe(false);
  });
});

describe('appendBatch', () => {
  it('appends each input in order, refusing some without stopping the others, and tells each owner once', async () => {
    const c = await withSession();
    expect(await c.create('s2', 'w2', T0)).toBe(1);
    await c.close('s2');
    expect(await c.create('s3', 'w2', T0)).toBe(1);
    expect(await c.create('s4', 'w1', T0)).toBe(1);
    await c.append('s1', 'r0');
    const stream = async (worker: string) =>
      (await f.redis.xrange(keys().stream(worker), '-', '+')).map(([, fields]) => fields.join(' '));
    const before = { w1: (await stream('w1')).length, w2: (await stream('w2')).length };
    const inputs = [
      ['s1', 'r1'],
      ['s2', 'r1'],
      ['s1', 'r0'],
      ['s9', 'r1'],
      ['s3', 'r1'],
      ['s1', 'r2'],
      ['s4', 'r1'],
    ].map(([session, requestId]) => ({
      session: session!,
      requestId: requestId!,
      text: `${session} ${requestId}`,
    }));
    expect(await steps.appendBatch(f.store, { cell: f.cell, maxQueued: 3, inputs })).toEqual([
      { ok: true, seq: 2, duplicate: false },
      { ok: false, code: StoreCode.CLOSED },
      { ok: true, seq: 1, duplicate: true },
      { ok: false, code: StoreCode.NO_SESSION },
      { ok: true, seq: 1, duplicate: false },
      { ok: true, seq: 3, duplicate: false },
      { ok: true, seq: 1, duplicate: false },
    ]);
    expect((await logOf('s1')).map((input) => input.text)).toEqual(['text of r0', 's1 r1', 's1 r2']);
    // one entry per owner, naming each of its sessions with the last seq the batch appended
    expect((await stream('w1')).slice(before.w1)).toEqual(['a s1 3 s4 1']);
    expect((await stream('w2')).slice(before.w2)).toEqual(['a s3 1']);
    const full = await steps.appendBatch(f.store, {
      cell: f.cell,
      maxQueued: 3,
      inputs: [{ session: 's1', requestId: 'r3', text: 'x' }],
    });
    expect(full).toEqual([{ ok: false, code: StoreCode.QUEUE_FULL }]);
    expect(await refusal(steps.appendBatch(f.store, { cell: f.cell, inputs: [] }))).toBe('INVALID_INPUT');
  });
});

describe('the runner', () => {
  it('queues built calls on a pipeline; readReply turns each reply into its result or refusal', async () => {
    const c = await withSession();
    const one = (session: string, requestId: string, text: string) =>
      steps.appendBatch.build({ cell: f.cell, inputs: [{ session, requestId, text }] });
    const calls = [one('s1', 'r1', 'a'), one('s9', 'r1', 'a'), one('s1', 'r2', 'b')];
    const gen = steps.readGen.build({ cell: f.cell, session: 's0' });
    const p = f.redis.pipeline();
    for (const call of [...calls, gen]) queueCall(p, call);
    const replies = (await p.exec())!.map(([err, reply]) => (err ? err : reply));
    expect(readReply(calls[0]!, replies[0])).toEqual([1, 0]);
    expect(readReply(calls[1]!, replies[1])).toEqual([StoreCode.NO_SESSION, 0]);
    expect(readReply(calls[2]!, replies[2])).toEqual([2, 0]);
    expect(() => readReply(gen, replies[3])).toThrow('readGen: NO_SESSION');
    expect((await c.released('s1')).seq).toBe(0);
  });
});
