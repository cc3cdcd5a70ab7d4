/**
 * The Infer-Controller on a real Redis: claim from the work stream, in-order exactly-once release, moves
 * with source-independent reconstruction, fencing (sweep, Revoke, Stop, a refused release), a lost lease
 * and re-registration, and a lost Redis connection.
 */
import type { Redis } from 'ioredis';
import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { inCell, refusal } from '../impl/test-support/cell.js';
import { useStore } from '../impl/test-support/redis.js';
import { cellKeys } from '../impl/store/keys.js';
import * as steps from '../impl/store/steps.js';
import { cpuReference } from './runtime/cpu-reference.js';
import { nullRuntime } from './runtime/null.js';
import type { Input, MediaFrame, RuntimeBackend } from './runtime/pipeline.js';
import {
  appendUnannounced,
  moveUnannounced,
  staleRejectionsOf,
  useWorkers,
  waitFor,
} from './test-support.js';

const f = useStore();
const makeWorker = useWorkers(f);
const at = () => inCell(f.store, f.cell);
const now = () => Date.now();

const unstamped = (frames: MediaFrame[]) => frames.map(({ worker: _w, epoch: _e, ...rest }) => rest);

/** The frames one runtime that never moved renders for `seq` after inputs 1..seq - 1. */
async function unmovedFrames(session: string, texts: string[], seq: number): Promise<MediaFrame[]> {
  const inputs: Input[] = texts.map((text, i) => ({ seq: i + 1, requestId: `r${i + 1}`, text }));
  const runtime = cpuReference.open({ cell: f.cell, session, epoch: 1, worker: 'w1' });
  await runtime.restore(inputs.slice(0, seq - 1));
  return runtime.process(inputs[seq - 1]!);
}

describe('claim and release', () => {
  it('claims from the work stream and releases each input once, in order; the fast path meets it', async () => {
    const c = at();
    const a = makeWorker('w1');
    await a.controller.start();
    expect(await c.create('s1', 'w1', now())).toBe(1);
    const fastPath = [a.controller.startRuntime('s1', 1), a.controller.startRuntime('s1', 1)];
    for (let i = 1; i <= 3; i++) await c.append('s1', `r${i}`, `input number ${i}.`);
    expect((await Promise.all(fastPath)).map((r) => r.state)).toEqual(['running', 'running']);
    await waitFor(() => a.released.length === 3, 'inputs 1-3');
    for (let i = 4; i <= 6; i++) await c.append('s1', `r${i}`, `input number ${i}.`);
    // released comes before the renders: input 6's frames mean every render has run
    await waitFor(() => a.released.length === 6 && a.frames.some((fr) => fr.seq === 6), 'inputs 4-6');

    expect(a.claimed).toEqual([{ session: 's1', epoch: 1 }]);
    expect(a.released).toEqual([1, 2, 3, 4, 5, 6].map((seq) => ({ session: 's1', epoch: 1, seq })));
    expect(await c.released('s1')).toMatchObject({ seq: 6, by: { worker: 'w1', epoch: 1 } });
    expect(await a.controller.startRuntime('s1', 1)).toEqual({ state: 'running', epoch: 1, cursor: 6 });
    expect(a.controller.snapshot()).toMatchObject({
      worker: 'w1',
      incarnation: 1,
      state: 'serving',
      runtimes: [{ session: 's1', epoch: 1, state: 'running', cursor: 6 }],
    });
    const pts = a.frames.map((fr) => fr.ptsMs);
    expect(pts).toEqual([...pts].sort((x, y) => x - y));
    expect(new Set(a.frames.map((fr) => fr.seq))).toEqual(new Set([1, 2, 3, 4, 5, 6]));
    // handled entries are trimmed from the stream
    await waitFor(async () => (await f.redis.xlen(cellKeys(f.cell).stream('w1'))) <= 1, 'the stream acked');
  });

  it('rebuilds a runtime that failed on an input from the store; the input stays released', async () => {
    const c = at();
    let faults = 0;
    const flaky: RuntimeBackend = {
      name: 'flaky',
      open(stamp) {
        const inner = cpuReference.open(stamp);
        return {
          get cursor() {
            return inner.cursor;
          },
          restore: (history) => inner.restore(history),
          process: async (input) => {
            if (input.text === 'boom' && faults++ === 0) throw new Error('device fault');
            return inner.process(input);
          },
          idleFrame: () => inner.idleFrame(),
          close: () => inner.close(),
        };
      },
    };
    const a = makeWorker('w1', { backend: flaky });
    await a.controller.start();
    const texts = ['first', 'boom', 'third'];
    await c.create('s1', 'w1', now());
    for (const [i, text] of texts.entries()) await c.append('s1', `r${i + 1}`, text);
    // released comes before the renders: the third input's frames mean every render has run
    await waitFor(() => a.released.length === 3 && a.frames.some((fr) => fr.seq === 3), 'inputs 1-3');

    expect(faults).toBe(1);
    expect(a.released.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(a.frames.some((fr) => fr.seq === 2)).toBe(false);
    const third = a.frames.filter((fr) => fr.seq === 3);
    expect(unstamped(third)).toEqual(unstamped(await unmovedFrames('s1', texts, 3)));
  });

  it('a late redelivery of a superseded generation starts nothing (its claim is stale)', async () => {
    const c = at();
    const a = makeWorker('w1', { sweepMs: 60_000 });
    await a.controller.start();
    await c.register('w2', 1, now());
    await c.create('s1', 'w1', now());
    await waitFor(() => a.claimed.length === 1, 'w1 claims');
    await c.move('s1', ['w1', 1], 'w2', now());
    expect((await a.controller.revoke('s1', 1)).state).toBe('stopped');
    const before = await staleRejectionsOf('w1', 'claim');

    expect(await a.controller.startRuntime('s1', 1)).toEqual({ state: 'stale', epoch: 1, cursor: 0 });
    expect(a.claimed).toHaveLength(1);
    expect(a.controller.snapshot().runtimes).toEqual([]);
    expect((await c.worker('w1', now())).tokens).toEqual([]);
    expect(await staleRejectionsOf('w1', 'claim')).toBe(before + 1);
  });
});

describe('moves and fencing', () => {
  it('a move: the new runtime reconstructs from the log and continues; the sweep fences the old one', async () => {
    const c = at();
    const a = makeWorker('w1');
    const b = makeWorker('w2');
    await Promise.all([a.controller.start(), b.controller.start()]);
    const texts = ['Good morning.', 'The weather is fine, thanks.', 'See you soon!'];
    await c.create('s1', 'w1', now());
    await c.append('s1', 'r1', texts[0]);
    await c.append('s1', 'r2', texts[1]);
    await waitFor(() => a.released.length === 2, 'w1 releases 1-2');

    expect(await c.move('s1', ['w1', 1], 'w2', now())).toBe(2);
    await c.append('s1', 'r3', texts[2]);
    await waitFor(
      () => b.released.length === 1 && b.frames.some((fr) => fr.seq === 3) && a.stopped.length === 1,
      'w2 releases and renders 3, w1 fenced',
    );

    expect(b.released).toEqual([{ session: 's1', epoch: 2, seq: 3 }]);
    expect(a.stopped).toEqual([{ session: 's1', epoch: 1, reason: 'fenced', cursor: 2 }]);
    expect(a.released.every((r) => r.seq <= 2)).toBe(true);
    expect((await c.worker('w1', now())).tokens).toEqual([]);
    expect((await c.worker('w2', now())).tokens).toEqual([{ session: 's1', epoch: 2 }]);
    // source-independent reconstruction: the frames of input 3 are those of a runtime that never moved
    const moved = b.frames.filter((fr) => fr.seq === 3);
    expect(moved.every((fr) => fr.worker === 'w2' && fr.epoch === 2)).toBe(true);
    expect(unstamped(moved)).toEqual(unstamped(await unmovedFrames('s1', texts, 3)));
    expect(moved[0]!.ptsMs).toBe(a.frames.at(-1)!.ptsMs + 40);
  });

  it('Revoke fences at once (no sweep); revoking the current generation changes nothing', async () => {
    const c = at();
    const a = makeWorker('w1', { sweepMs: 60_000 });
    const b = makeWorker('w2', { sweepMs: 60_000 });
    await Promise.all([a.controller.start(), b.controller.start()]);
    await c.create('s1', 'w1', now());
    await waitFor(() => a.claimed.length === 1, 'w1 claims');
    await moveUnannounced(f); // only the Revoke tells w1
    await waitFor(() => b.claimed.length === 1, 'w2 claims');

    expect(await a.controller.revoke('s1', 1)).toEqual({ state: 'stopped', epoch: 1, cursor: 0 });
    expect(await b.controller.revoke('s1', 2)).toEqual({ state: 'running', epoch: 2, cursor: 0 });
    expect((await c.worker('w1', now())).tokens).toEqual([]);
    expect(a.controller.snapshot().runtimes).toEqual([]);
  });

  it('a stale runtime’s release is refused by the store: it stops and frees its token', async () => {
    const c = at();
    const a = makeWorker('w1', { sweepMs: 60_000 });
    await a.controller.start();
    await c.register('w2', 1, now());
    await c.create('s1', 'w1', now());
    await waitFor(() => a.claimed.length === 1, 'w1 claims');
    await moveUnannounced(f); // its entry lost as in a failover: w1 is not told
    await c.append('s1', 'r1');
    const before = await staleRejectionsOf('w1', 'releaseInput');

    a.controller.deliver('s1', 1); // the kick a stale runtime may still get
    await waitFor(() => a.stopped.length === 1, 'w1 stops');

    expect(a.stopped).toEqual([{ session: 's1', epoch: 1, reason: 'lost_authority', cursor: 0 }]);
    expect(await staleRejectionsOf('w1', 'releaseInput')).toBe(before + 1);
    expect(a.released).toEqual([]);
    expect((await c.released('s1')).seq).toBe(0);
    expect((await c.worker('w1', now())).tokens).toEqual([]);
  });

  it('a move or a close fences the old runtime through the work stream: no RPC, no sweep', async () => {
    const c = at();
    const a = makeWorker('w1', { sweepMs: 60_000 });
    await a.controller.start();
    await c.register('w2', 2, now());
    await c.create('s1', 'w1', now());
    await c.create('s2', 'w1', now());
    await waitFor(() => a.claimed.length === 2, 'w1 claims both');
    await c.move('s1', ['w1', 1], 'w2', now());
    await c.close('s2');
    await waitFor(() => a.stopped.length === 2, 'w1 stops both');
    expect(a.stopped.map((x) => [x.session, x.reason]).sort()).toEqual([
      ['s1', 'fenced'],
      ['s2', 'fenced'],
    ]);
    expect((await c.worker('w1', now())).tokens).toEqual([]);
  });

  /** w1 runs s1 and has released input 1; input 2 is appended with its stream entry lost. */
  async function secondInputUnannounced(sweepMs: number) {
    const c = at();
    const a = makeWorker('w1', { sweepMs });
    await a.controller.start();
    await c.create('s1', 'w1', now());
    await c.append('s1', 'r1');
    await waitFor(() => a.released.length === 1, 'w1 releases 1');
    await appendUnannounced(f, 'r2');
    return { c, a };
  }

  it('an input whose stream entry was lost is found by the sweep and released (no timer per runtime)', async () => {
    const { a } = await secondInputUnannounced(100);
    await waitFor(() => a.released.length === 2, 'the sweep finds input 2');
    expect(a.released.map((e) => e.seq)).toEqual([1, 2]);
  });

  it('a sweep tick reads more runtimes than one of its reads holds: every one is found', async () => {
    const c = at();
    const sessions = Array.from({ length: 150 }, (_, i) => `s${i}`);
    const a = makeWorker('w1', { capacity: sessions.length, backend: nullRuntime, sweepMs: 300 });
    await a.controller.start();
    for (const s of sessions) await c.create(s, 'w1', now());
    await waitFor(() => a.claimed.length === sessions.length, 'w1 claims every session');
    for (const s of sessions) await appendUnannounced(f, `${s}-r1`, s);
    await waitFor(() => a.released.length === sessions.length, 'the sweep finds every input');
    expect(new Set(a.released.map((r) => r.session))).toEqual(new Set(sessions));
  });

  it('without a sweep, an input whose stream entry was lost waits for the next hint', async () => {
    const { c, a } = await secondInputUnannounced(60_000);
    await delay(300);
    expect(a.released).toHaveLength(1);
    await c.append('s1', 'r3'); // announced: the runtime asks, and gets 2 and 3
    await waitFor(() => a.released.length === 3, 'w1 releases 2 and 3');
    expect(a.released.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('Stop after Close stops the runtime', async () => {
    const c = at();
    const a = makeWorker('w1', { sweepMs: 60_000 });
    await a.controller.start();
    await c.create('s1', 'w1', now());
    await c.append('s1', 'r1');
    await waitFor(() => a.released.length === 1, 'w1 releases 1');
    await c.close('s1');
    expect(await a.controller.stopRuntime('s1', 1)).toEqual({ state: 'stopped', epoch: 1, cursor: 1 });
    expect(a.stopped).toEqual([{ session: 's1', epoch: 1, reason: 'fenced', cursor: 1 }]);
  });
});

describe('manual stepping (autonomous: false): one method per spec action, no loop of its own', () => {
  it('keeps a hint that came while its batch was in flight: the input it names still waits', async () => {
    const c = at();
    const a = makeWorker('w1', { autonomous: false });
    await a.controller.start();
    await c.create('s1', 'w1', now());
    await c.append('s1', 'r1');
    await a.controller.claimStep('s1', 1);
    await a.controller.reconstructStep('s1', 1);
    // the batch is sent; input 2 is appended after it ran, and its hint comes before the batch's reply
    const batch = a.controller.batchStep([{ session: 's1', epoch: 1 }]);
    const appended = c.append('s1', 'r2');
    a.controller.deliver('s1', 2);
    expect(await batch).toEqual(['released']);
    await appended;
    // the worker still knows input 2 waits (it publishes it as queued), so its runtime asks for it
    await a.controller.heartbeat();
    const view = await steps.readLoadView(f.store, { cell: f.cell, now: now() });
    expect(view.find((w) => w.worker === 'w1')).toMatchObject({ runtimes: 1, queued: 1 });
    expect(await a.controller.releaseStep('s1', 1)).toBe('released');
  });

  it('takes Claim, Reconstruct, ReleaseInput, Emit, Fence and Teardown only when told; rt[w] says where each runtime is', async () => {
    const c = at();
    const a = makeWorker('w1', { autonomous: false });
    await a.controller.start();
    await c.register('w2', 1, now());
    await c.create('s1', 'w1', now());
    await c.append('s1', 'r1', 'Hello there.');
    await new Promise((r) => setTimeout(r, 300));
    expect(a.claimed).toEqual([]); // no stream reader, no run loop
    expect(a.controller.runtimeTable()).toEqual([]);

    expect(await a.controller.claimStep('s1', 1)).toEqual({ state: 'running', epoch: 1, cursor: 0 });
    expect(a.controller.runtimeTable()).toEqual([{ s: 's1', e: 1, cur: 0, ph: 'new' }]);
    expect(a.controller.emitStep('s1', 1)).toBeUndefined(); // not ready yet
    await a.controller.reconstructStep('s1', 1);
    expect(a.controller.runtimeTable()).toEqual([{ s: 's1', e: 1, cur: 0, ph: 'ready' }]);
    const idle = a.controller.emitStep('s1', 1);
    expect(idle).toMatchObject({ session: 's1', epoch: 1, seq: 0, index: 0, ptsMs: 0 });
    expect(a.frames).toEqual([idle]);
    expect(await a.controller.releaseStep('s1', 1)).toBe('released');
    expect(await a.controller.releaseStep('s1', 1)).toBe('no_input');
    expect(a.controller.runtimeTable()).toEqual([{ s: 's1', e: 1, cur: 1, ph: 'ready' }]);
    expect(a.frames.filter((fr) => fr.seq === 1).length).toBeGreaterThan(1);
    expect(await a.controller.fenceStep('s1', 1)).toBe(false); // still current

    // a snapshot rebuilds the same controller: the runtime restored from the log renders the same
    const snap = a.controller.snapshotState();
    const b = makeWorker('w1', { autonomous: false });
    await b.controller.resume(snap);
    expect(b.controller.runtimeTable()).toEqual(a.controller.runtimeTable());
    expect(b.controller.snapshot()).toMatchObject({ incarnation: 1, state: 'serving' });
    expect(b.controller.emitStep('s1', 1)).toEqual(a.controller.emitStep('s1', 1));
    expect(b.frames).toEqual([a.frames.at(-1)]);

    await c.move('s1', ['w1', 1], 'w2', now());
    expect(await a.controller.fenceStep('s1', 1)).toBe(true);
    expect(a.controller.runtimeTable()).toEqual([{ s: 's1', e: 1, cur: 1, ph: 'stopping' }]);
    expect((await c.worker('w1', now())).tokens).toEqual([{ session: 's1', epoch: 1 }]);
    await a.controller.teardownStep('s1', 1);
    expect(a.controller.runtimeTable()).toEqual([]);
    expect((await c.worker('w1', now())).tokens).toEqual([]);
    expect(a.stopped).toEqual([{ session: 's1', epoch: 1, reason: 'fenced', cursor: 1 }]);
    // a stale claim frees the token and starts nothing
    expect(await a.controller.claimStep('s1', 1)).toEqual({ state: 'stale', epoch: 1, cursor: 0 });
  });

  it('ReleaseInput refused: the runtime stops and waits for its teardown', async () => {
    const c = at();
    const a = makeWorker('w1', { autonomous: false });
    await a.controller.start();
    await c.register('w2', 1, now());
    await c.create('s1', 'w1', now());
    await a.controller.claimStep('s1', 1);
    await a.controller.reconstructStep('s1', 1);
    await c.move('s1', ['w1', 1], 'w2', now());
    await c.append('s1', 'r1');
    expect(await a.controller.releaseStep('s1', 1)).toBe('stopped');
    expect(a.controller.runtimeTable()).toEqual([{ s: 's1', e: 1, cur: 0, ph: 'stopping' }]);
    await expect(a.controller.teardownStep('s1', 2)).rejects.toThrow(/no runtime s1\/2/);
    await a.controller.teardownStep('s1', 1);
    expect(a.stopped).toEqual([{ session: 's1', epoch: 1, reason: 'lost_authority', cursor: 0 }]);
  });
});

describe('the lease and the store connection', () => {
  it('a lost lease stops every runtime; incarnation 2 takes its session back under epoch 2 and goes on', async () => {
    const c = at();
    let skew = 0;
    const a = makeWorker('w1', { leaseTtlMs: 2000, now: () => Date.now() + skew });
    const b = makeWorker('w2');
    await Promise.all([a.controller.start(), b.controller.start()]);
    await c.create('s1', 'w1', now());
    await c.append('s1', 'r1');
    await waitFor(() => a.released.length === 1, 'w1 releases 1');

    skew = 60_000; // as if w1 had been paused far past its TTL: its next renewal is refused
    await waitFor(() => a.registered.length === 2, 'w1 registers again');
    expect(a.stopped).toEqual([{ session: 's1', epoch: 1, reason: 'lease_lost', cursor: 1 }]);
    expect(a.registered).toEqual([{ incarnation: 1 }, { incarnation: 2 }]);
    expect(await c.gen('s1')).toMatchObject({ worker: 'w1', epoch: 2 });
    // recovery, had it read epoch 1 before, loses the race
    expect(await refusal(c.move('s1', ['w1', 1], 'w2', now()))).toBe('CONFLICT');

    await c.append('s1', 'r2');
    await waitFor(() => a.released.length === 2, 'w1 releases 2 as epoch 2');
    expect(a.released).toEqual([
      { session: 's1', epoch: 1, seq: 1 },
      { session: 's1', epoch: 2, seq: 2 },
    ]);
    expect(b.released).toEqual([]);
    // incarnation 2 takes new work
    await c.create('s2', 'w1', now());
    await waitFor(() => a.claimed.length === 3, 'w1 claims s2');
    expect(a.claimed[2]).toEqual({ session: 's2', epoch: 1 });
  });

  it('survives losing its Redis connection: it retries and goes on where it was', async () => {
    const c = at();
    const store = f.connect();
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    const a = makeWorker('w1', { store, log });
    await a.controller.start();
    await c.create('s1', 'w1', now());
    await c.append('s1', 'r1');
    await waitFor(() => a.released.length === 1, 'w1 releases 1');

    (store.redis as Redis).disconnect();
    await c.append('s1', 'r2'); // its work stream (another connection) still kicks the runtime
    await waitFor(() => warnings.some((w) => w.includes('release batch failed')), 'a failed release');
    await (store.redis as Redis).connect();
    await waitFor(() => a.released.length === 2, 'w1 releases 2');
    expect(a.released.map((r) => r.seq)).toEqual([1, 2]);
    expect(a.controller.state).toBe('serving');
  });
});
