/** The store steps bound to one cell, with short positional arguments, for tests. */
import { StoreCode, isStoreError } from '../store/codes.js';
import { cellKeys } from '../store/keys.js';
import * as steps from '../store/steps.js';
import type { Store } from '../store/steps.js';

export const TTL = 10_000;

export function inCell(store: Store, cell: string) {
  /** The worker's registered incarnation; 1 for one never registered. */
  const registered = async (worker: string) =>
    Number((await store.redis.hget(cellKeys(cell).lease(worker), 'incarnation')) ?? 1);
  return {
    register: (worker: string, cap: number, now: number, ttlMs = TTL) =>
      steps.registerWorker(store, { cell, worker, cap, now, ttlMs }),
    renew: (worker: string, incarnation: number, now: number, ttlMs = TTL) =>
      steps.renewLease(store, { cell, worker, incarnation, now, ttlMs }),
    create: async (session: string, target: string, now: number) =>
      (await steps.admitCommit(store, { cell, session, target, expected: null, now })).epoch,
    move: async (session: string, from: [string, number], target: string, now: number) =>
      (
        await steps.admitCommit(store, {
          cell,
          session,
          target,
          expected: { worker: from[0], epoch: from[1] },
          now,
        })
      ).epoch,
    /** By `incarnation`, or else the worker's registered one. */
    claim: async (worker: string, session: string, epoch: number, incarnation?: number) =>
      steps.claim(store, {
        cell,
        worker,
        session,
        epoch,
        incarnation: incarnation ?? (await registered(worker)),
      }),
    release: async (worker: string, session: string, epoch: number, seq: number, incarnation?: number) =>
      steps.releaseInput(store, {
        cell,
        worker,
        session,
        epoch,
        seq,
        incarnation: incarnation ?? (await registered(worker)),
      }),
    /** ReleaseBatch(worker, S): each runtime [session, epoch, from], by the worker's registered incarnation. */
    batch: async (worker: string, runtimes: [string, number, number][], max = 256) => {
      const incarnation = await registered(worker);
      return steps.releaseBatch(store, {
        cell,
        worker,
        max,
        runtimes: runtimes.map(([session, epoch, from]) => ({ session, epoch, incarnation, from })),
      });
    },
    append: (session: string, requestId: string, text = `text of ${requestId}`) =>
      steps.appendInput(store, { cell, session, requestId, text }),
    teardown: async (worker: string, session: string, epoch: number) =>
      (await steps.teardown(store, { cell, worker, session, epoch })).freed,
    close: async (session: string) => (await steps.closeSession(store, { cell, session })).epoch,
    drain: async (worker: string) => (await steps.drain(store, { cell, worker })).started,
    undrain: async (worker: string) => (await steps.undrain(store, { cell, worker })).ended,
    gen: (session: string) => steps.readGen(store, { cell, session }),
    released: (session: string, fromSeq = 0) => steps.readRelease(store, { cell, session, fromSeq }),
    worker: (worker: string, now: number) => steps.readWorker(store, { cell, worker, now }),
  };
}

/** The name of the StoreCode a step was refused with; fails if it succeeded or threw something else. */
export async function refusal(p: Promise<unknown>): Promise<keyof typeof StoreCode> {
  try {
    await p;
  } catch (err) {
    if (isStoreError(err)) return StoreCode[err.code] as keyof typeof StoreCode;
    throw err;
  }
  throw new Error('the step succeeded; a refusal was expected');
}
