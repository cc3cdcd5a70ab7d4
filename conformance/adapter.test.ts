/**
 * The adapter and the replay harness themselves: a wrong implementation is caught at the step where it
 * goes wrong, with a readable diff; a step it cannot take is reported as such; snapshots come back to the
 * state they were taken in; and replaying trace by trace on fresh cells executes what the prefix tree does.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DispatchCore } from '../impl/dispatch/core.js';
import { useStore } from '../impl/test-support/redis.js';
import { type ControllerSnapshot, InferController } from '../gpu-worker/controller.js';
import { Adapter } from './adapter.js';
import { type Replay, ConformanceError, loadReplay, newTally, replayTraces } from './replay.js';

const f = useStore();
let recovery: Replay;
beforeAll(async () => {
  recovery = await loadReplay('Recovery');
});

/** Runs `body` with one method of a class replaced, then puts it back. */
async function patched<T extends object, K extends keyof T>(
  proto: T,
  name: K,
  value: T[K],
  body: () => Promise<void>,
): Promise<void> {
  const original = proto[name];
  proto[name] = value;
  try {
    await body();
  } finally {
    proto[name] = original;
  }
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ConformanceError);
    return (err as Error).message;
  }
  throw new Error('the replay passed; a ConformanceError was expected');
}

describe('the replay harness', () => {
  it('catches a controller that does not fence: names the trace, the step, its label and the variable', async () => {
    await patched(
      InferController.prototype,
      'fenceStep',
      async () => false,
      async () => {
        const message = await failure(replayTraces(recovery, f.store, 0, 200, newTally(recovery)));
        expect(message).toMatch(
          /^Recovery trace \d+ \(traces\/Recovery\.json\), step \d+ of \d+: Fence\(w\d, s1, \d\)/,
        );
        expect(message).toMatch(
          /\n {2}rt\.w\d: expected \[.*"ph":"stopping".*\], actual \[.*"ph":"(new|ready)".*\]/,
        );
        expect(message).toMatch(
          /\n {2}the steps so far: BeginCreate\(d1, s1, w\d\), .*Fence\(w\d, s1, \d\)$/,
        );
      },
    );
  });

  it('catches a store step that does the wrong thing (a move read from the wrong epoch)', async () => {
    const planMove = DispatchCore.prototype.planMove;
    await patched(
      DispatchCore.prototype,
      'planMove',
      async function (this: DispatchCore, cell: string, session: string, target: string) {
        const plan = await planMove.call(this, cell, session, target);
        return { ...plan, from: plan.from && { ...plan.from, epoch: plan.from.epoch + 1 } };
      },
      async () => {
        const message = await failure(replayTraces(recovery, f.store, 0, 200, newTally(recovery)));
        expect(message).toMatch(/step \d+ of \d+: BeginMove\(d1, s1, w\d\)/);
        expect(message).toMatch(
          /\n {2}dop\.d1: expected \{"e":1,"kind":"move",.*\}, actual \{"e":2,"kind":"move",.*\}/,
        );
      },
    );
  });

  it('reports a step the implementation cannot take, with why', async () => {
    await patched(
      InferController.prototype,
      'emitStep',
      () => undefined,
      async () => {
        const message = await failure(replayTraces(recovery, f.store, 0, 200, newTally(recovery)));
        expect(message).toMatch(
          /Emit\(w\d, s1, \d\): the implementation could not take it: runtime s1\/\d on w\d is not ready/,
        );
      },
    );
  });

  it('catches a restore that loses something, before the next step is taken', async () => {
    const resume = InferController.prototype.resume;
    await patched(
      InferController.prototype,
      'resume',
      function (this: InferController, snapshot: ControllerSnapshot) {
        return resume.call(this, { ...snapshot, runtimes: [] });
      },
      async () => {
        const message = await failure(replayTraces(recovery, f.store, 0, 200, newTally(recovery)));
        expect(message).toMatch(
          /step \d+ of \d+: .*, restored from a snapshot for trace \d+: the implementation's/,
        );
        expect(message).toMatch(/\n {2}rt\.w\d: expected \[\{.*\}\], actual \[\]/);
      },
    );
  });

  it('trace by trace on fresh cells executes what the prefix tree does, and both pass', async () => {
    const tree = newTally(recovery);
    const each = newTally(recovery);
    await replayTraces(recovery, f.store, 100, 160, tree, 'tree');
    await replayTraces(recovery, f.store, 100, 160, each, 'traces');
    expect(each.steps).toBe(recovery.traces.slice(100, 160).reduce((n, t) => n + t.steps.length, 0));
    expect(tree.steps).toBeLessThan(each.steps);
    expect(tree.restores).toBeGreaterThan(0);
    expect([...tree.executed]).toEqual([...each.executed]);
  });
});

describe('the adapter', () => {
  it('restores a snapshot: the store, the controllers and its own bookkeeping read back as they were', async () => {
    const adapter = await Adapter.open({ model: recovery.adapter, store: f.store, cell: f.cell });
    try {
      const step = (label: string) => {
        const edge = recovery.graph.edges.find((e) => e.label === label);
        if (!edge) throw new Error(`no edge ${label}`);
        return adapter.step(edge);
      };
      for (const label of [
        'BeginCreate(d1, s1, w1)',
        'Commit(d1)',
        'Claim(w1, s1, 1)',
        'Reconstruct(w1, s1, 1)',
        'Emit(w1, s1, 1)',
        'BeginMove(d1, s1, w2)',
      ]) {
        await step(label);
        await adapter.observe();
      }
      const before = await adapter.observe();
      const snap = await adapter.snapshot();
      for (const label of ['Commit(d1)', 'Crash(w1)', 'LeaseExpire(w1)', 'Claim(w2, s1, 2)']) {
        await step(label);
        await adapter.observe();
      }
      const after = await adapter.observe();
      expect(after).not.toEqual(before);
      expect(after).toMatchObject({
        up: { w1: false, w2: true },
        lease: { w1: 'expired', w2: 'live' },
        faults: 2,
      });
      await step('Register(w1)'); // a crashed worker comes back: a new controller registers
      expect(await adapter.observe()).toMatchObject({ up: { w1: true }, lease: { w1: 'live' } });

      await adapter.restore(snap);
      expect(await adapter.observe()).toEqual(before);
      await step('Emit(w1, s1, 1)'); // the restored runtime is ready, and renders
      expect((await adapter.observe())['sink']).toEqual({ s1: 1 });
    } finally {
      await adapter.dispose();
    }
  });
});
