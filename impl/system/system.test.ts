/**
 * The acceptance scenarios of the Redis-backed DHSched, on real processes: a private Redis, a media
 * sink, Dispatch replicas and Workers, each its own Node process, driven over gRPC. Every scenario
 * ends with the history check on the cell's audit stream: each input released exactly once, in order,
 * by the generation current at the time.
 */
import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../harness/history.js';
import { CELL, allReleased, eventually, metricSum, useSystem } from '../test-support/system.js';
import { mediaSinkClient } from '../rpc/client.js';
import type { Client } from '../rpc/client.js';
import type { DispatchMethods } from '../rpc/proto.js';

const fast = { leaseTtlMs: 1500, recoveryMs: 200, refreshMs: 100, sweepMs: 200 };

async function createAndPush(d: Client<DispatchMethods>, sessions: string[], from: number, to: number) {
  for (const session of sessions) {
    for (let i = from; i <= to; i++) {
      await d.call('pushText', {
        cell: CELL,
        session,
        requestId: `${session}-r${i}`,
        text: `input ${i} of ${session}`,
      });
    }
  }
}

function expectCleanHistory(audit: Parameters<typeof checkHistory>[0], appended: Record<string, number>) {
  const h = checkHistory(audit, new Map(Object.entries(appended)));
  expect(h.violations).toEqual([]);
  return h;
}

describe('create, push, close', () => {
  const f = useSystem({ dispatchers: 2, workers: 2, capacity: 4, ...fast });

  it('places sessions, releases every input in order, renders media, and frees the slots on close', async () => {
    const sessions = ['a1', 'a2', 'a3', 'a4'];
    for (const [k, session] of sessions.entries()) {
      const s = await f.dispatch(k % 2).call('createLive', { cell: CELL, session });
      expect(s).toMatchObject({ session, epoch: 1, created: true });
    }
    // a retried create changes nothing
    expect(await f.dispatch(1).call('createLive', { cell: CELL, session: 'a1' })).toMatchObject({
      epoch: 1,
      created: false,
    });
    await createAndPush(f.dispatch(0), sessions, 1, 5);
    await createAndPush(f.dispatch(1), ['a1'], 5, 5); // a retried push appends nothing
    await allReleased(f.dispatch(), sessions, 5);
    const sink = mediaSinkClient(f.system.sink.addr);
    const media = await eventually('media for every input at the sink', async () => {
      const { sessions: got } = await sink.call('stats', {});
      return sessions.every((s) => got.some((m) => m.session === s && m.lastSeq === 5)) && got;
    });
    sink.close();
    for (const m of media) expect(m).toMatchObject({ epoch: 1, dropped: 0 });
    const workers = (await f.dispatch().call('listWorkers', { cell: CELL })).workers;
    expect(workers.map((w) => w.tokens).reduce((a, b) => a + b)).toBe(4);

    for (const session of sessions) await f.dispatch(1).call('closeLive', { cell: CELL, session });
    expect(await f.dispatch(0).call('getSession', { cell: CELL, session: 'a1' })).toMatchObject({
      phase: 'closed',
    });
    await eventually('every slot freed after close', async () => {
      const ws = (await f.dispatch().call('listWorkers', { cell: CELL })).workers;
      return ws.every((w) => w.tokens === 0);
    });
    expectCleanHistory(await f.audit(), { a1: 5, a2: 5, a3: 5, a4: 5 });
  });
});

describe('migration with inputs in flight', () => {
  const f = useSystem({ dispatchers: 2, workers: 3, capacity: 4, ...fast });

  it('moves a session three times while a client pushes; every input is released once, in order', async () => {
    await f.dispatch(0).call('createLive', { cell: CELL, session: 'm1' });
    const pushing = createAndPush(f.dispatch(1), ['m1'], 1, 40);
    for (let k = 0; k < 3; k++) {
      await new Promise((r) => setTimeout(r, 60));
      const before = await f.dispatch(0).call('getSession', { cell: CELL, session: 'm1' });
      const after = await f.dispatch(k % 2).call('migrate', {
        cell: CELL,
        session: 'm1',
        target: '',
        fromEpoch: before.epoch,
      });
      expect(after.epoch).toBe(before.epoch + 1);
      expect(after.worker).not.toBe(before.worker);
    }
    await pushing;
    const [s] = await allReleased(f.dispatch(), ['m1'], 40);
    expect(s!.epoch).toBe(4);
    const h = expectCleanHistory(await f.audit(), { m1: 40 });
    expect(h.commits).toBe(4);
  });
});

describe('a worker killed with SIGKILL (LiveKit agents #1472: nothing re-dispatched after a worker died)', () => {
  const f = useSystem({ dispatchers: 2, workers: 3, capacity: 4, ...fast });

  it('has its sessions recovered elsewhere by the replicas, one commit per session, inputs exactly once', async () => {
    const sessions = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
    for (const session of sessions) await f.dispatch(0).call('createLive', { cell: CELL, session });
    await createAndPush(f.dispatch(0), sessions, 1, 3);
    const placed = await allReleased(f.dispatch(), sessions, 3);
    const victim = placed[0]!.worker;
    const onVictim = placed.filter((s) => s.worker === victim).map((s) => s.session);
    f.system.workers.find((w) => w.id === victim)!.signal('SIGKILL');

    await createAndPush(f.dispatch(1), sessions, 4, 6);
    const after = await allReleased(f.dispatch(), sessions, 6);
    for (const s of after) {
      expect(s.worker).not.toBe(victim);
      expect(s.epoch).toBe(onVictim.includes(s.session) ? 2 : 1);
    }
    const h = expectCleanHistory(await f.audit(), Object.fromEntries(sessions.map((s) => [s, 6])));
    // two replicas ran recovery: exactly one commit per recovered session; a loser saw CONFLICT
    expect(h.commits).toBe(sessions.length + onVictim.length);
    const recovered = { reason: 'recovery', result: 'moved' };
    const wins = await Promise.all(
      f.system.dispatchers.map((d) => metricSum(d.metricsPort, 'dhsched_migrations_total', recovered)),
    );
    expect(wins.reduce((a, b) => a + b)).toBe(onVictim.length);
  });
});

describe('a worker paused with SIGSTOP past its lease', () => {
  const f = useSystem({ dispatchers: 1, workers: 2, capacity: 4, ...fast });

  it('loses its sessions to recovery; after SIGCONT its stale runtimes are refused and stopped', async () => {
    const sessions = ['p1', 'p2', 'p3'];
    for (const session of sessions) await f.dispatch().call('createLive', { cell: CELL, session });
    await createAndPush(f.dispatch(), sessions, 1, 2);
    const placed = await allReleased(f.dispatch(), sessions, 2);
    const paused = placed[0]!.worker;
    const handle = f.system.workers.find((w) => w.id === paused)!;
    const stale = placed.filter((s) => s.worker === paused);
    handle.signal('SIGSTOP');
    await createAndPush(f.dispatch(), sessions, 3, 4);
    await allReleased(f.dispatch(), sessions, 4);
    handle.signal('SIGCONT');

    const health = await eventually(
      'the paused worker to stop its stale runtimes and register again',
      async () => {
        const h = await f.worker(paused).call('health', {});
        const staleLeft = h.runtimes.filter((r) =>
          stale.some((s) => s.session === r.session && s.epoch === r.epoch),
        );
        return staleLeft.length === 0 && h.incarnation >= 2 && h;
      },
    );
    expect(health.state).toBe('serving');
    // each stale runtime was stopped on the store's word: lease refused, release refused, or gen moved on
    let stopped = 0;
    for (const reason of ['lease_lost', 'lost_authority', 'fenced']) {
      stopped += await metricSum(handle.metricsPort, 'dhsched_runtimes_stopped_total', {
        worker: paused,
        reason,
      });
    }
    expect(stopped).toBeGreaterThanOrEqual(stale.length);
    await createAndPush(f.dispatch(), sessions, 5, 5);
    await allReleased(f.dispatch(), sessions, 5);
    expectCleanHistory(await f.audit(), { p1: 5, p2: 5, p3: 5 });
  });
});

describe('a Dispatch replica killed between commit and notify', () => {
  const f = useSystem({ dispatchers: 1, workers: 2, capacity: 4, ...fast });

  it('leaves a committed session that its worker starts from the work stream anyway', async () => {
    const doomed = await f.system.addDispatcher('d-doomed', ['--fault', 'crash-after-commit']);
    const c = f.dispatch(1);
    await expect(c.call('createLive', { cell: CELL, session: 'c1' })).rejects.toThrow();
    await doomed.exited;
    const s = await eventually('the session to be claimed', async () => {
      const got = await f.dispatch(0).call('getSession', { cell: CELL, session: 'c1' });
      return got.phase === 'claimed' && got;
    });
    expect(s.epoch).toBe(1);
    await createAndPush(f.dispatch(0), ['c1'], 1, 3);
    await allReleased(f.dispatch(0), ['c1'], 3);
    expectCleanHistory(await f.audit(), { c1: 3 });
  });
});

describe('the claim-only baseline (unsafe, for comparisons)', () => {
  const f = useSystem({
    dispatchers: 1,
    workers: 2,
    capacity: 4,
    ...fast,
    protocol: 'claim_only',
    // the moved-away runtime hears of no new input; its worker's sweep (every 200 ms) finds it in the log
  });

  it('lets the moved-away runtime keep releasing: the history checker sees stale releases', async () => {
    await f.dispatch().call('createLive', { cell: CELL, session: 'b1' });
    await createAndPush(f.dispatch(), ['b1'], 1, 2);
    await allReleased(f.dispatch(), ['b1'], 2);
    const before = await f.dispatch().call('getSession', { cell: CELL, session: 'b1' });
    await f.dispatch().call('migrate', { cell: CELL, session: 'b1', target: '', fromEpoch: before.epoch });
    await createAndPush(f.dispatch(), ['b1'], 3, 6);
    const violations = await eventually('the old runtime to release again', async () => {
      const v = checkHistory(await f.audit()).violations;
      return v.length > 0 && v;
    });
    expect(violations.map((v) => v.kind)).toContain('stale-release');
  });
});
