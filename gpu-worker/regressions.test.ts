/**
 * Known failures of the systems DHSched replaces, each as a test on the real Infer-Controller and store:
 * two processes of one worker both running a session (LiveKit agents #4753), a stale owner's cleanup
 * touching the new owner's state (Temporal #12016), a worker shut down without a drain coming back over its
 * capacity, a lost reply stranding a session, and no false fencing of a live, healthy owner. The rest are in impl/dispatch/core.test.ts (#4884), impl/store/durability.test.ts
 * (Redis failover) and impl/system/system.test.ts (#1472).
 */
import { describe, expect, it } from 'vitest';
import * as steps from '../impl/store/steps.js';
import { inCell, refusal } from '../impl/test-support/cell.js';
import { readLog, useStore } from '../impl/test-support/redis.js';
import { staleRejectionsOf, useWorkers, waitFor } from './test-support.js';

const f = useStore();
const makeWorker = useWorkers(f);
const at = () => inCell(f.store, f.cell);
const now = () => Date.now();

describe('LiveKit agents #4753: two workers ran one voice job and both spoke', () => {
  it('a process of w1 that lost its lease, still running beside the one registered since, claims and releases nothing', async () => {
    const c = at();
    // the first process stops renewing (a long pause, a stuck event loop) but keeps running
    const old = makeWorker('w1', { leaseTtlMs: 1000, heartbeatMs: 600_000, sweepMs: 600_000 });
    await old.controller.start();
    await c.register('w2', 4, now(), 600_000);
    await c.create('s1', 'w1', now());
    await waitFor(() => old.claimed.length === 1, 'the first process claims s1');
    await waitFor(async () => !(await c.worker('w1', now())).live, 'the first lease lapses');
    await c.move('s1', ['w1', 1], 'w2', now()); // recovery

    // a supervisor starts w1 again: the second process registers as incarnation 2
    const fresh = makeWorker('w1');
    await fresh.controller.start();
    expect(fresh.registered).toEqual([{ incarnation: 2 }]);
    await c.create('s2', 'w1', now()); // both processes read w1's work stream
    expect((await old.controller.startRuntime('s2', 1)).state).toBe('absent');
    for (let i = 1; i <= 3; i++) await c.append('s2', `r${i}`);
    await waitFor(() => fresh.released.length === 3, 'the registered process releases 1-3');
    old.controller.deliver('s2', 3);

    expect(fresh.released).toEqual([1, 2, 3].map((seq) => ({ session: 's2', epoch: 1, seq })));
    expect(old.claimed).toEqual([{ session: 's1', epoch: 1 }]);
    expect(old.released).toEqual([]);
    expect(old.frames.filter((fr) => fr.session === 's2')).toEqual([]);
    // told by the store that it is superseded, the old process stops what it had and tries to register
    await waitFor(() => old.controller.state === 'registering', 'the old process gives up its lease');
    expect(old.controller.snapshot().runtimes).toEqual([]);
    expect((await c.worker('w1', now())).tokens).toEqual([{ session: 's2', epoch: 1 }]);
  });
});

describe('a worker shut down without a drain', () => {
  it('keeps its tokens, so nothing more is placed on it, and comes back within its capacity', async () => {
    const c = at();
    const first = makeWorker('w1', { capacity: 1, leaseTtlMs: 800 });
    await first.controller.start();
    await c.create('s1', 'w1', now());
    await waitFor(() => first.claimed.length === 1, 'w1 claims s1');
    await first.controller.stop();
    // its lease is still live and s1 still placed on it: a token freed now would admit s2 as well
    expect((await c.worker('w1', now())).tokens).toEqual([{ session: 's1', epoch: 1 }]);
    expect(await refusal(c.create('s2', 'w1', now()))).toBe('FULL');

    await waitFor(async () => !(await c.worker('w1', now())).live, 'the lease lapses');
    const again = makeWorker('w1', { capacity: 1 });
    await again.controller.start();
    await waitFor(() => again.claimed.length === 1, 'the new process takes s1 back');
    expect(again.claimed).toEqual([{ session: 's1', epoch: 2 }]);
    expect((await c.worker('w1', now())).tokens).toEqual([{ session: 's1', epoch: 2 }]);
  });
});

describe('a lost reply to a release', () => {
  it('does not strand the session: the retry gets the same input, released once, and the runtime goes on', async () => {
    const c = at();
    await steps.configureCell(f.store, { cell: f.cell, audit: true });
    const a = makeWorker('w1', { autonomous: false });
    await a.controller.start();
    await c.create('s1', 'w1', now());
    await a.controller.claimStep('s1', 1);
    await a.controller.reconstructStep('s1', 1);
    await c.append('s1', 'r1', 'Hello.');
    await c.append('s1', 'r2', 'Again.');
    // the store runs the runtime's release of input 1; its reply never arrives
    await c.release('w1', 's1', 1, 1, a.controller.snapshot().incarnation);

    expect(await a.controller.releaseStep('s1', 1)).toBe('released');
    expect(await a.controller.releaseStep('s1', 1)).toBe('released');
    expect(a.released).toEqual([1, 2].map((seq) => ({ session: 's1', epoch: 1, seq })));
    expect(a.frames.some((fr) => fr.seq === 1)).toBe(true);
    const audit = await steps.readAudit(f.store, { cell: f.cell });
    expect(audit.flatMap((e) => (e.kind === 'release' ? [e.seq] : []))).toEqual([1, 2]);
  });
});

describe('Temporal #12016: a stale owner’s background cleanup deleted the new owner’s work', () => {
  it('a fenced runtime’s teardown, on the very worker its session came back to, frees only its own slot', async () => {
    const c = at();
    const a = makeWorker('w1', { autonomous: false });
    await a.controller.start();
    await c.register('w2', 4, now(), 600_000);
    await c.create('s1', 'w1', now());
    await a.controller.claimStep('s1', 1);
    await a.controller.reconstructStep('s1', 1);
    await c.append('s1', 'r1');
    await a.controller.releaseStep('s1', 1);
    // s1 goes to w2 and back to w1 while the epoch-1 runtime still runs here
    await c.move('s1', ['w1', 1], 'w2', now());
    await c.move('s1', ['w2', 2], 'w1', now());
    await a.controller.claimStep('s1', 3);
    await a.controller.reconstructStep('s1', 3);
    await c.append('s1', 'r2');
    expect(await a.controller.releaseStep('s1', 3)).toBe('released');

    // the old runtime's cleanup: its fence, its teardown (the token it frees), its late release
    expect(await a.controller.fenceStep('s1', 1)).toBe(true);
    await a.controller.teardownStep('s1', 1);
    expect(await steps.teardown(f.store, { cell: f.cell, worker: 'w1', session: 's1', epoch: 1 })).toEqual({
      freed: false,
    });

    expect(a.controller.runtimeTable()).toEqual([{ s: 's1', e: 3, cur: 2, ph: 'ready' }]);
    expect((await c.worker('w1', now())).tokens).toEqual([{ session: 's1', epoch: 3 }]);
    expect(await c.gen('s1')).toEqual({ worker: 'w1', epoch: 3, phase: 'claimed' });
    expect(await c.released('s1')).toMatchObject({ seq: 2, by: { worker: 'w1', epoch: 3 } });
    expect(await readLog(f.redis, f.cell, 's1')).toHaveLength(2);
    await c.append('s1', 'r3');
    expect(await a.controller.releaseStep('s1', 3)).toBe('released');
  });
});

describe('no false fencing', () => {
  it('live, healthy owners under steady input for several lease periods are never fenced or refused', async () => {
    const c = at();
    const options = { leaseTtlMs: 1500, heartbeatMs: 250, sweepMs: 50 };
    const workers = [makeWorker('w1', options), makeWorker('w2', options)];
    await Promise.all(workers.map((w) => w.controller.start()));
    const before = await Promise.all(['w1', 'w2'].map((w) => staleRejectionsOf(w)));
    const sessions = ['s1', 's2', 's3', 's4'];
    for (const [k, s] of sessions.entries()) await c.create(s, k % 2 ? 'w2' : 'w1', now());
    const inputs = 20;
    for (let i = 1; i <= inputs; i++) {
      for (const s of sessions) await c.append(s, `r${i}`);
      await new Promise((r) => setTimeout(r, 150)); // 3 s in all: two lease periods, 60 sweeps
    }
    const released = () => workers.reduce((n, w) => n + w.released.length, 0);
    await waitFor(() => released() === inputs * sessions.length, 'every input released');

    for (const w of workers) {
      expect(w.stopped).toEqual([]);
      expect(w.registered).toEqual([{ incarnation: 1 }]);
      expect(w.released.every((r) => r.epoch === 1)).toBe(true);
    }
    expect(await Promise.all(['w1', 'w2'].map((w) => staleRejectionsOf(w)))).toEqual(before);
    for (const s of sessions) expect(await c.gen(s)).toMatchObject({ epoch: 1, phase: 'claimed' });
  });
});
