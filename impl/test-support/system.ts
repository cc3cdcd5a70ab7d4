/**
 * A whole DHSched system as real processes for one suite (launchSystem), with the cell audited, plus
 * the clients and polling helpers the system tests use.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { type System, type SystemOptions, launchSystem } from '../ops/launch.js';
import { type Client, dispatchClient, workerClient } from '../rpc/client.js';
import type { DispatchMethods, Session, WorkerMethods } from '../rpc/proto.js';
import { type AuditEntry, type Store, configureCell, openStore, readAudit } from '../store/steps.js';

export const CELL = 'default';

export interface SystemFixture {
  readonly system: System;
  readonly store: Store;
  /** A client of the i-th Dispatch replica. */
  dispatch(i?: number): Client<DispatchMethods>;
  worker(id: string): Client<WorkerMethods>;
  audit(): Promise<AuditEntry[]>;
}

export function useSystem(options: SystemOptions = {}): SystemFixture {
  let system: System | undefined;
  let redis: Redis | undefined;
  let store: Store | undefined;
  const clients: { close(): void }[] = [];
  const need = <T>(x: T | undefined): T => {
    if (x === undefined) throw new Error('useSystem: used outside a test');
    return x;
  };
  beforeAll(async () => {
    system = await launchSystem({ cell: CELL, ...options });
    redis = new Redis(system.redisUrl, { maxRetriesPerRequest: 1 });
    store = openStore(redis);
    await configureCell(store, { cell: CELL, audit: true });
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.close();
    await redis?.quit();
    await system?.stop();
  }, 60_000);
  const keep = <C extends { close(): void }>(c: C) => (clients.push(c), c);
  return {
    get system() {
      return need(system);
    },
    get store() {
      return need(store);
    },
    dispatch: (i = 0) => keep(dispatchClient(need(system).dispatchers[i]!.addr)),
    worker: (id) => keep(workerClient(need(system).workers.find((w) => w.id === id)!.addr)),
    audit: () => readAudit(need(store), { cell: CELL }),
  };
}

/** Polls `probe` until it returns a value that is not undefined/false; fails with `what` after the timeout. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until every session has released `n` inputs; returns their final state. */
export function allReleased(d: Client<DispatchMethods>, sessions: string[], n: number, timeoutMs = 30_000) {
  return eventually(
    `${sessions.length} sessions to release ${n} inputs each`,
    async () => {
      const got: Session[] = await Promise.all(
        sessions.map((session) => d.call('getSession', { cell: CELL, session })),
      );
      return got.every((s) => s.releasedSeq === n && s.phase === 'claimed') && got;
    },
    timeoutMs,
  );
}

/** The sum of a metric's samples whose labels include `labels`, read from a process's /metrics. */
export async function metricSum(metricsPort: number, name: string, labels: Record<string, string> = {}) {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(?:\{(.*)\})? ([0-9.e+-]+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const has = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => has[k] === v)) sum += Number(m[3]);
  }
  return sum;
}
