/**
 * The stories of spec/README.md, played on the store: the hazards the baselines allow are refused here,
 * and the races, capacity, retries and recovery of docs/protocol.md behave as the spec's actions.
 */
import { describe, expect, it } from 'vitest';
import { TTL, inCell, refusal } from '../test-support/cell.js';
import { useStore } from '../test-support/redis.js';
import { StoreCode } from './codes.js';
import { cellKeys } from './keys.js';
import * as steps from './steps.js';

const f = useStore();
const T0 = 1_700_000_000_000;
const at = () => inCell(f.store, f.cell);

describe('the baselines’ hazards are refused', () => {
  it('assignment-time: a delayed assignment of a superseded epoch does not start (claim is stale)', async () => {
    const c = at();
    await c.register('w1', 1, T0);
    await c.register('w2', 1, T0);
    await c.create('s1', 'w1', T0);
    await c.move('s1', ['w1', 1], 'w2', T0);
    await c.append('s1', 'r1');
    expect(await c.claim('w1', 's1', 1)).toBe('stale');
    expect(await refusal(c.release('w1', 's1', 1, 1))).toBe('LOST_AUTHORITY');
    expect((await c.worker('w1', T0)).tokens).toEqual([]);
  });

  it('claim-only: a runtime superseded after its claim is refused at its next input', async () => {
    const c = at();
    await c.register('w1', 1, T0);
    await c.register('w2', 1, T0);
    await c.create('s1', 'w1', T0);
    expect(await c.claim('w1', 's1', 1)).toBe('claimed');
    await c.move('s1', ['w1', 1], 'w2', T0);
    await c.append('s1', 'r1');
    expect(await refusal(c.release('w1', 's1', 1, 1))).toBe('LOST_AUTHORITY');
    // the new owner rebuilds from the store, not from w1, and releases input 1
    expect(await c.claim('w2', 's1', 2)).toBe('claimed');
    expect((await c.released('s1')).seq).toBe(0);
    expect(await c.release('w2', 's1', 2, 1)).toMatchObject({ seq: 1, requestId: 'r1' });
    expect(await c.teardown('w1', 's1', 1)).toBe(true);
  });

  it('WorkerID-only: w1 -> w2 -> w1 leaves the old epoch-1 runtime on w1 without authority', async () => {
    const c = at();
    await c.register('w1', 2, T0);
    await c.register('w2', 2, T0);
    await c.create('s1', 'w1', T0);
    await c.claim('w1', 's1', 1); // the epoch-1 runtime runs on w1
    await c.move('s1', ['w1', 1], 'w2', T0);
    await c.move('s1', ['w2', 2], 'w1', T0);
    expect(await c.claim('w1', 's1', 3)).toBe('claimed');
    await c.append('s1', 'r1');
    expect(await refusal(c.release('w1', 's1', 1, 1))).toBe('LOST_AUTHORITY');
    expect(await c.claim('w1', 's1', 1)).toBe('stale'); // a late delivery of epoch 1
    expect(await c.release('w1', 's1', 3, 1)).toMatchObject({ seq: 1 });
    expect(await c.released('s1')).toMatchObject({ seq: 1, by: { worker: 'w1', epoch: 3 } });
  });
});

describe('capacity tokens are per generation', () => {
  it('a session back on w1 while its old runtime tears down holds two slots there', async () => {
    const c = at();
    await c.register('w1', 1, T0);
    await c.register('w2', 1, T0);
    await c.create('s1', 'w1', T0);
    await c.claim('w1', 's1', 1);
    await c.move('s1', ['w1', 1], 'w2', T0);
    await c.claim('w2', 's1', 2);
    // the epoch-1 runtime still holds w1's only slot
    expect(await refusal(c.move('s1', ['w2', 2], 'w1', T0))).toBe('FULL');
    expect(await c.teardown('w1', 's1', 1)).toBe(true);
    expect(await c.move('s1', ['w2', 2], 'w1', T0)).toBe(3);
  });

  it('admits up to cap, then FULL; a teardown frees a slot', async () => {
    const c = at();
    await c.register('w1', 3, T0);
    for (const s of ['s1', 's2', 's3']) await c.create(s, 'w1', T0);
    expect(await refusal(c.create('s4', 'w1', T0))).toBe('FULL');
    expect((await c.worker('w1', T0)).tokens).toHaveLength(3);
    await c.close('s2');
    expect(await refusal(c.create('s4', 'w1', T0))).toBe('FULL'); // closed, not yet torn down
    await c.teardown('w1', 's2', 1);
    expect(await c.create('s4', 'w1', T0)).toBe(1);
  });
});

describe('races between Dispatch replicas', () => {
  it('two replicas moving from the same source epoch: exactly one commits, the other gets CONFLICT', async () => {
    const c = at();
    for (const w of ['w1', 'w2', 'w3']) await c.register(w, 4, T0);
    await c.create('s1', 'w1', T0);
    const replicas = [f.connect(), f.connect()];
    for (let round = 1; round <= 20; round++) {
      const gen = (await c.gen('s1'))!;
      const targets = ['w1', 'w2', 'w3'].filter((w) => w !== gen.worker);
      const results = await Promise.allSettled(
        replicas.map((store, k) =>
          steps.admitCommit(store, {
            cell: f.cell,
            session: 's1',
            target: targets[k]!,
            expected: { worker: gen.worker, epoch: gen.epoch },
            now: T0,
          }),
        ),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(lost?.reason).toMatchObject({ code: StoreCode.CONFLICT });
      const next = (await c.gen('s1'))!;
      expect(next.epoch).toBe(gen.epoch + 1);
      expect(targets[results.indexOf(won[0]!)]).toBe(next.worker);
      await c.teardown(gen.worker, 's1', gen.epoch);
    }
  });

  it('two replicas creating the same session: one wins', async () => {
    const c = at();
    await c.register('w1', 4, T0);
    await c.register('w2', 4, T0);
    const results = await Promise.allSettled(
      ['w1', 'w2'].map((target) =>
        steps.admitCommit(f.connect(), { cell: f.cell, session: 's1', target, expected: null, now: T0 }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const tokens = [...(await c.worker('w1', T0)).tokens, ...(await c.worker('w2', T0)).tokens];
    expect(tokens).toEqual([{ session: 's1', epoch: 1 }]);
  });
});

describe('recovery and re-registration', () => {
  it('an expired worker’s sessions go to recovery’s target or back to its next incarnation, whichever commits first', async () => {
    const c = at();
    const { incarnation } = await c.register('w1', 2, T0);
    await c.register('w2', 2, T0);
    for (const s of ['s1', 's2']) {
      await c.create(s, 'w1', T0);
      await c.claim('w1', s, 1);
      await c.append(s, `${s}-r1`);
      await c.release('w1', s, 1, 1);
    }
    const later = T0 + TTL; // w1 stopped renewing (SIGSTOP); w2 did
    await c.renew('w2', 1, later - 1);
    expect(await refusal(c.create('s3', 'w1', later))).toBe('NOT_LIVE');

    // recovery: a move whose source is not consulted
    expect(await c.move('s1', ['w1', 1], 'w2', later)).toBe(2);

    // w1 wakes up: its lease cannot be renewed and its runtimes are refused
    expect(await refusal(c.renew('w1', incarnation, later + 1))).toBe('NOT_LIVE');
    await c.append('s1', 's1-r2');
    expect(await refusal(c.release('w1', 's1', 1, 2))).toBe('LOST_AUTHORITY');

    // it registers again and takes back s2, which recovery had not moved: recovery's move loses
    expect(await c.register('w1', 2, later + 1)).toEqual({
      incarnation: 2,
      expiresAt: later + 1 + TTL,
      adopted: 1,
    });
    expect(await c.worker('w1', later + 1)).toMatchObject({
      live: true,
      tokens: [{ session: 's2', epoch: 2 }],
    });
    expect(await refusal(c.move('s2', ['w1', 1], 'w2', later + 1))).toBe('CONFLICT');
    expect(await refusal(c.renew('w1', incarnation, later + 2))).toBe('STALE_INCARNATION');

    // the new owner rebuilds from the store and continues in order
    await c.claim('w2', 's1', 2);
    expect(await c.released('s1')).toMatchObject({ seq: 1, by: { worker: 'w1', epoch: 1 } });
    expect(await c.release('w2', 's1', 2, 2)).toMatchObject({ seq: 2, requestId: 's1-r2' });
  });

  it('a commit survives the Dispatch replica: the assignment waits on the target’s stream', async () => {
    const c = at();
    await c.register('w1', 2, T0);
    await c.create('s1', 'w1', T0); // ... and the replica dies before it notifies w1
    const [[, fields]] = (await f.redis.xrange(cellKeys(f.cell).stream('w1'), '-', '+')) as [
      [string, string[]],
    ];
    expect(fields).toEqual(['s', 's1', 'e', '1']);
    expect(await c.claim('w1', 's1', 1)).toBe('claimed');
  });

  it('a draining worker takes no new placements, and its sessions move away', async () => {
    const c = at();
    await c.register('w1', 2, T0);
    await c.register('w2', 2, T0);
    await c.create('s1', 'w1', T0);
    await c.drain('w1');
    expect(await refusal(c.create('s2', 'w1', T0))).toBe('DRAINING');
    expect(await c.move('s1', ['w1', 1], 'w2', T0)).toBe(2);
  });
});

describe('inputs', () => {
  it('a retried PushText is appended once and released once, in order', async () => {
    const c = at();
    await c.register('w1', 1, T0);
    await c.create('s1', 'w1', T0);
    await c.claim('w1', 's1', 1);
    const sent = ['r1', 'r2', 'r1', 'r3', 'r2', 'r3'];
    const seqs = await Promise.all(sent.map((r) => c.append('s1', r)));
    expect(seqs.map((x) => x.seq)).toEqual([1, 2, 1, 3, 2, 3]);
    expect(seqs.map((x) => x.duplicate)).toEqual([false, false, true, false, true, true]);
    const released = [];
    for (let seq = 1; seq <= 3; seq++) released.push((await c.release('w1', 's1', 1, seq)).requestId);
    expect(released).toEqual(['r1', 'r2', 'r3']);
    expect(await refusal(c.release('w1', 's1', 1, 4))).toBe('NO_INPUT');
  });

  it('after close, every step on the session fails and its owner tears down', async () => {
    const c = at();
    await c.register('w1', 1, T0);
    await c.register('w2', 1, T0);
    await c.create('s1', 'w1', T0);
    await c.claim('w1', 's1', 1);
    await c.append('s1', 'r1');
    expect(await c.close('s1')).toBe(1);
    expect(await refusal(c.append('s1', 'r2'))).toBe('CLOSED');
    expect(await refusal(c.release('w1', 's1', 1, 1))).toBe('LOST_AUTHORITY');
    expect(await refusal(c.move('s1', ['w1', 1], 'w2', T0))).toBe('CONFLICT');
    expect(await c.teardown('w1', 's1', 1)).toBe(true);
    expect(await c.register('w1', 1, T0 + TTL)).toMatchObject({ incarnation: 2 });
  });
});
