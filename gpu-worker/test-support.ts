/**
 * Helpers for the gpu-worker tests: in-process controllers on the suite's store, recording what they do,
 * and waiting for a condition without fixed sleeps (the tests must hold on a loaded machine).
 */
import { afterEach } from 'vitest';
import { silentLogger } from '../impl/common/log.js';
import { staleRejections } from '../impl/common/metrics.js';
import { cellKeys } from '../impl/store/keys.js';
import { queueCall, type ScriptCall } from '../impl/store/scripts.js';
import * as steps from '../impl/store/steps.js';
import type { StoreFixture } from '../impl/test-support/redis.js';
import { type ControllerEvents, type ControllerOptions, InferController } from './controller.js';
import { cpuReference } from './runtime/cpu-reference.js';
import type { MediaFrame } from './runtime/pipeline.js';

/** Polls `condition` until it holds; fails after `timeoutMs`, naming `what`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what = 'the condition',
  timeoutMs = 15_000,
): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await condition());) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Recorded = { [K in keyof ControllerEvents]: ControllerEvents[K][0][] };

export interface TestWorker extends Recorded {
  readonly controller: InferController;
  /** Every frame its runtimes published. */
  readonly frames: MediaFrame[];
}

/**
 * Makes in-process workers on the fixture's store and cell (not started), each stopped after its test.
 * Defaults: capacity 4, lease TTL 5 s, sweep every 100 ms.
 */
export function useWorkers(
  f: StoreFixture,
): (worker: string, options?: Partial<ControllerOptions>) => TestWorker {
  const made: InferController[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((c) => c.stop()));
  });
  return (worker, options = {}) => {
    const frames: MediaFrame[] = [];
    const controller = new InferController({
      store: f.store,
      cell: f.cell,
      worker,
      capacity: 4,
      addr: '',
      leaseTtlMs: 5000,
      sweepMs: 100,
      backend: cpuReference,
      publisher: { publish: (fs) => void frames.push(...fs), close: async () => undefined },
      log: silentLogger,
      ...options,
    });
    made.push(controller);
    const recorded: Recorded = { registered: [], claimed: [], released: [], stopped: [] };
    controller.events.on('registered', (e) => recorded.registered.push(e));
    controller.events.on('claimed', (e) => recorded.claimed.push(e));
    controller.events.on('released', (e) => recorded.released.push(e));
    controller.events.on('stopped', (e) => recorded.stopped.push(e));
    return { controller, frames, ...recorded };
  };
}

/** Stale rejections counted for `worker` (this process's registry): of one step, or of every step. */
export async function staleRejectionsOf(worker: string, step?: string): Promise<number> {
  const values = (await staleRejections.get()).values.filter(
    (v) => v.labels.worker === worker && (step === undefined || v.labels.step === step),
  );
  return values.reduce((n, v) => n + v.value, 0);
}

/** Runs `call` and trims w1's work stream in one MULTI: w1 never reads the entry it wrote, as when it is lost in a failover. */
async function unannounced(f: StoreFixture, call: ScriptCall<unknown>): Promise<void> {
  const m = f.redis.multi();
  queueCall(m, call);
  m.xtrim(cellKeys(f.cell).stream('w1'), 'MAXLEN', 0);
  const replies = (await m.exec())!;
  const failed = replies.find(([err]) => err);
  if (failed) throw failed[0];
}

/** s1 moves from w1 (epoch 1) to w2, unannounced to w1: only a Revoke (or the sweep) tells it. */
export function moveUnannounced(f: StoreFixture): Promise<void> {
  return unannounced(
    f,
    steps.admitCommit.build({
      cell: f.cell,
      session: 's1',
      target: 'w2',
      expected: { worker: 'w1', epoch: 1 },
      now: Date.now(),
    }),
  );
}

/** An input appended to `session` unannounced: only the sweep's read of the log tells its owner. */
export function appendUnannounced(f: StoreFixture, requestId: string, session = 's1'): Promise<void> {
  return unannounced(
    f,
    steps.appendBatch.build({
      cell: f.cell,
      inputs: [{ session, requestId, text: `said ${requestId}` }],
    }),
  );
}
