/**
 * DispatchCore against a real store: workers are registered with steps.registerWorker (no address, no
 * process) and driven with the store steps; time is a test clock. Notifications are recorded.
 */
import * as grpc from '@grpc/grpc-js';
import { beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../common/log.js';
import { admissionRefusals } from '../common/metrics.js';
import { toStatus } from '../rpc/errors.js';
import type { WorkerMethods } from '../rpc/proto.js';
import { StoreCode } from '../store/codes.js';
import { cellKeys } from '../store/keys.js';
import * as steps from '../store/steps.js';
import type { Store } from '../store/steps.js';
import { inCell } from '../test-support/cell.js';
import { loggedRequests, useStore } from '../test-support/redis.js';
import { DispatchCore } from './core.js';
import { LoadView } from './load-view.js';
import type { NotifyMethod, Notifier } from './notifier.js';
import { leastLoaded, seededRandom } from './ranking.js';

const f = useStore();
const T0 = 1_700_000_000_000;
const LONG = 600_000;
let clock = T0;
beforeEach(() => {
  clock = T0;
});
const at = () => inCell(f.store, f.cell);

/** A call the replica would make: method, worker, request. */
type Note = { [K in NotifyMethod]: [K, string, WorkerMethods[K][0]] }[NotifyMethod];

/** A replica on its own connection; what it would tell workers is kept in `notes`. */
function replica(store: Store = f.store, seed = 1) {
  const notes: Note[] = [];
  const notifier: Notifier = {
    notify: (_cell, worker, method, request) => void notes.push([method, worker, request] as Note),
    close: () => {},
  };
  const now = () => clock;
  const loadView = new LoadView({ store, cells: [f.cell], refreshMs: LONG, log: silentLogger, now });
  const core = new DispatchCore({
    store,
    id: `d${seed}`,
    ranking: leastLoaded,
    loadView,
    notifier,
    log: silentLogger,
    now,
    random: seededRandom(seed),
  });
  return { core, loadView, notes };
}

/** The gRPC status name an RPC would be answered with. */
async function status(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return grpc.status[toStatus(err).code];
  }
  throw new Error('the call succeeded; a refusal was expected');
}

async function registerAll(workers: Record<string, number>, ttlMs = LONG) {
  for (const [w, cap] of Object.entries(workers)) await at().register(w, cap, clock, ttlMs);
}

const fullRefusals = async () =>
  (await admissionRefusals.get()).values.find((v) => v.labels.code === 'FULL')?.value ?? 0;

describe('createLive', () => {
  it('places on the best-ranked worker, whose work stream has the assignment, and is idempotent', async () => {
    await registerAll({ w1: 2, w2: 2, w3: 2 });
    await at().create('x', 'w1', clock);
    const { core, notes } = replica();
    const s1 = await core.createLive(f.cell, 's1');
    expect(s1).toEqual({
      cell: f.cell,
      session: 's1',
      worker: 'w2',
      epoch: 1,
      phase: 'assigned',
      releasedSeq: 0,
      created: true,
      moved: false,
    });
    expect(notes).toEqual([]);
    const stream = await f.redis.xrange(cellKeys(f.cell).stream('w2'), '-', '+');
    expect(stream.map(([, fields]) => fields)).toEqual([['s', 's1', 'e', '1']]);
    expect(await core.createLive(f.cell, 's1')).toEqual({ ...s1, created: false });
    expect((await core.createLive(f.cell, 's2')).worker).toBe('w3');
    await core.closeLive(f.cell, 's1');
    expect(await status(core.createLive(f.cell, 's1'))).toBe('FAILED_PRECONDITION');
  });

  it('falls through FULL to the next candidate when the view is stale, and then gives up', async () => {
    await registerAll({ w1: 1, w2: 1 });
    const { core, loadView } = replica();
    await loadView.refreshAll();
    await at().create('x', 'w1', clock); // w1 fills up after the view was read
    const before = await fullRefusals();
    expect((await core.createLive(f.cell, 's1')).worker).toBe('w2');
    expect(await fullRefusals()).toBe(before + 1);
    const refused = core.createLive(f.cell, 's2');
    expect(await status(refused)).toBe('RESOURCE_EXHAUSTED');
    await expect(refused).rejects.toThrow(`no worker with room in cell ${f.cell}`);
    // a retry of a create that landed is still answered in a full cell
    expect(await core.createLive(f.cell, 's1')).toMatchObject({ worker: 'w2', created: false });
  });

  it('sees a worker registered after the view was read once the view shows no room', async () => {
    await registerAll({ w1: 1 });
    const { core, loadView } = replica();
    await loadView.refreshAll();
    await core.createLive(f.cell, 's1');
    await registerAll({ w2: 1 });
    expect((await core.createLive(f.cell, 's2')).worker).toBe('w2');
  });

  it('never overshoots capacity when two replicas create at once', async () => {
    await registerAll({ w1: 3, w2: 2, w3: 1 });
    const replicas = [replica(f.connect(), 1).core, replica(f.connect(), 2).core];
    const results = await Promise.allSettled(
      Array.from({ length: 16 }, (_, k) => replicas[k % 2]!.createLive(f.cell, `s${k}`)),
    );
    const created = results.filter((r) => r.status === 'fulfilled');
    expect(created).toHaveLength(6);
    for (const r of results) {
      if (r.status === 'rejected') expect(grpc.status[toStatus(r.reason).code]).toBe('RESOURCE_EXHAUSTED');
    }
    for (const [w, cap] of [
      ['w1', 3],
      ['w2', 2],
      ['w3', 1],
    ] as const) {
      expect((await at().worker(w, clock)).tokens).toHaveLength(cap);
    }
  });
});

describe('LiveKit agents #4884: a burst was admitted past capacity from a 0.5 s-stale load figure', () => {
  it('a burst ranked on views read before it fills every worker to its capacity and no further', async () => {
    await registerAll({ w1: 3, w2: 3 });
    const replicas = [replica(f.connect(), 1), replica(f.connect(), 2)];
    // both views say every worker is empty, and neither refreshes during the burst
    for (const r of replicas) await r.loadView.refreshAll();
    const before = await fullRefusals();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, k) => replicas[k % 2]!.core.createLive(f.cell, `s${k}`)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(6);
    for (const r of results) {
      if (r.status === 'rejected') expect(grpc.status[toStatus(r.reason).code]).toBe('RESOURCE_EXHAUSTED');
    }
    expect(await fullRefusals()).toBeGreaterThan(before); // the stale views offered full workers
    for (const w of ['w1', 'w2']) expect((await at().worker(w, clock)).tokens).toHaveLength(3);
  });
});

describe('two-phase operations: a plan (BeginCreate, BeginMove), then its commit (Commit)', () => {
  it('commits a plan once, guarded by what it read; the outcome is returned, never thrown', async () => {
    await registerAll({ w1: 1, w2: 1, w3: 1 });
    const { core, notes } = replica();
    const create = core.planCreate(f.cell, 's1', 'w1');
    expect(create).toEqual({ kind: 'create', cell: f.cell, session: 's1', from: null, target: 'w1' });
    expect(await core.commitPlan(create)).toEqual({ kind: 'committed', to: { worker: 'w1', epoch: 1 } });
    expect(await core.commitPlan(create)).toEqual({ kind: 'conflict' }); // a create finds a generation
    expect(notes).toEqual([]); // the plan's commit tells nobody: its caller does

    // two moves read the same generation: one commits, the other's source-epoch guard fails
    const [a, b] = await Promise.all([core.planMove(f.cell, 's1', 'w2'), core.planMove(f.cell, 's1', 'w3')]);
    expect(a).toEqual({
      kind: 'move',
      cell: f.cell,
      session: 's1',
      from: { worker: 'w1', epoch: 1 },
      target: 'w2',
    });
    expect(await core.commitPlan(a)).toEqual({ kind: 'committed', to: { worker: 'w2', epoch: 2 } });
    expect(await core.commitPlan(b)).toEqual({ kind: 'conflict' });

    // a refusal of the target ends the operation; nothing changes
    await at().create('x', 'w3', clock);
    const full = await core.commitPlan(await core.planMove(f.cell, 's1', 'w3'));
    expect(full.kind === 'refused' && StoreCode[full.refusal.code]).toBe('FULL');
    await at().drain('w1');
    const draining = await core.commitPlan(await core.planMove(f.cell, 's1', 'w1'));
    expect(draining.kind === 'refused' && StoreCode[draining.refusal.code]).toBe('DRAINING');
    expect(await at().gen('s1')).toEqual({ worker: 'w2', epoch: 2, phase: 'assigned' });

    expect(await status(core.planMove(f.cell, 'nope', 'w1'))).toBe('NOT_FOUND');
    await core.closeLive(f.cell, 's1');
    expect(await status(core.planMove(f.cell, 's1', 'w1'))).toBe('FAILED_PRECONDITION');
  });
});

describe('pushText and closeLive', () => {
  it('appends once per request id, on the owner’s work stream too', async () => {
    await registerAll({ w1: 2 });
    const { core, notes } = replica();
    await core.createLive(f.cell, 's1');
    expect(await core.pushText(f.cell, 's1', 'r1', 'hello')).toEqual({ seq: 1, duplicate: false });
    expect(await core.pushText(f.cell, 's1', 'r2', 'world')).toEqual({ seq: 2, duplicate: false });
    expect(await core.pushText(f.cell, 's1', 'r1', 'hello')).toEqual({ seq: 1, duplicate: true });
    expect(await loggedRequests(f.redis, f.cell, 's1')).toEqual(['r1', 'r2']);
    expect(notes).toEqual([]);
    const stream = await f.redis.xrange(cellKeys(f.cell).stream('w1'), '-', '+');
    expect(stream.map(([, fields]) => fields).slice(1)).toEqual([
      ['a', 's1 1'],
      ['a', 's1 2'],
    ]);
    // the owner claims and releases input 1: the session reports its cursor
    await at().claim('w1', 's1', 1);
    await at().release('w1', 's1', 1, 1);
    expect(await core.getSession(f.cell, 's1')).toMatchObject({ phase: 'claimed', releasedSeq: 1 });
    expect(await status(core.pushText(f.cell, 'nope', 'r1', 'x'))).toBe('NOT_FOUND');
    await core.closeLive(f.cell, 's1');
    expect(await status(core.pushText(f.cell, 's1', 'r3', 'x'))).toBe('FAILED_PRECONDITION');
  });

  it('closes once; closing again returns the session unchanged', async () => {
    await registerAll({ w1: 2 });
    const { core, notes } = replica();
    await core.createLive(f.cell, 's1');
    const closed = await core.closeLive(f.cell, 's1');
    expect(closed).toMatchObject({ worker: 'w1', epoch: 1, phase: 'closed', created: false });
    expect(await core.closeLive(f.cell, 's1')).toEqual(closed);
    expect(await core.getSession(f.cell, 's1')).toEqual(closed);
    expect(notes.filter(([m]) => m === 'stop')).toHaveLength(2);
    expect((await core.listSessions(f.cell, '0', 100)).sessions).toEqual([]);
    expect(await status(core.closeLive(f.cell, 'nope'))).toBe('NOT_FOUND');
  });
});

describe('migrate', () => {
  it('is guarded by the epoch the caller saw; a retry of a move that landed returns it, not moved', async () => {
    await registerAll({ w1: 2, w2: 2, w3: 2 });
    const { core, notes } = replica();
    await core.createLive(f.cell, 's1');
    notes.length = 0;
    const moved = await core.migrate(f.cell, 's1', undefined, 1);
    expect(moved).toMatchObject({ worker: 'w2', epoch: 2, phase: 'assigned', created: false, moved: true });
    expect(notes).toEqual([['revoke', 'w1', { cell: f.cell, session: 's1', epoch: 1 }]]);
    const retried = { worker: 'w2', epoch: 2, moved: false };
    expect(await core.migrate(f.cell, 's1', undefined, 1)).toMatchObject(retried);
    expect(await core.migrate(f.cell, 's1', 'w2', 1)).toMatchObject(retried);
    expect(notes).toHaveLength(1);
    expect(await status(core.migrate(f.cell, 's1', 'w3', 1))).toBe('ABORTED');
    expect(await status(core.migrate(f.cell, 's1', undefined, 7))).toBe('ABORTED');
    expect((await at().gen('s1'))?.epoch).toBe(2);
  });

  it('checks the named target', async () => {
    await registerAll({ w1: 2, w2: 2, w3: 1 });
    const { core } = replica();
    await core.createLive(f.cell, 's1');
    await at().create('x', 'w3', clock);
    expect(await status(core.migrate(f.cell, 's1', 'w1'))).toBe('FAILED_PRECONDITION');
    expect(await status(core.migrate(f.cell, 's1', 'w9'))).toBe('NOT_FOUND');
    const full = core.migrate(f.cell, 's1', 'w3');
    expect(await status(full)).toBe('RESOURCE_EXHAUSTED');
    await expect(full).rejects.toThrow('worker w3 cannot take session s1: FULL');
    expect(await core.migrate(f.cell, 's1', 'w2')).toMatchObject({ worker: 'w2', epoch: 2 });
    // back to w1, whose epoch-1 runtime still holds a slot: tokens are per generation
    expect(await core.migrate(f.cell, 's1', 'w1', 2)).toMatchObject({ worker: 'w1', epoch: 3 });
    expect(await status(core.migrate(f.cell, 'nope'))).toBe('NOT_FOUND');
    await core.closeLive(f.cell, 's1');
    expect(await status(core.migrate(f.cell, 's1'))).toBe('FAILED_PRECONDITION');
  });

  it('moves a session once when two replicas move it from the same epoch at once', async () => {
    await registerAll({ w1: 2, w2: 2, w3: 2 });
    const [a, b] = [replica(f.connect(), 1).core, replica(f.connect(), 2).core];
    await a.createLive(f.cell, 's1');
    const results = await Promise.allSettled([
      a.migrate(f.cell, 's1', 'w2', 1),
      b.migrate(f.cell, 's1', 'w3', 1),
    ]);
    const gen = await at().gen('s1');
    expect(gen?.epoch).toBe(2);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(won[0]!.value).toMatchObject({ worker: gen?.worker, epoch: 2 });
    const lost = results.find((r) => r.status === 'rejected')!;
    expect(grpc.status[toStatus(lost.reason).code]).toBe('ABORTED');
  });
});

describe('drainWorker', () => {
  it('stops placements on the worker and moves its sessions where there is room', async () => {
    await registerAll({ w1: 3, w2: 1, w3: 1 });
    for (const s of ['s1', 's2', 's3']) await at().create(s, 'w1', clock);
    const { core } = replica();
    const first = await core.drainWorker(f.cell, 'w1');
    expect(first.moved.map((s) => [s.session, s.worker, s.epoch])).toEqual([
      ['s1', 'w2', 2],
      ['s2', 'w3', 2],
    ]);
    expect(first.notMoved).toEqual(['s3']);
    expect((await at().worker('w1', clock)).draining).toBe(true);
    expect(await status(core.createLive(f.cell, 's4'))).toBe('RESOURCE_EXHAUSTED');
    await registerAll({ w4: 2 });
    const second = await core.drainWorker(f.cell, 'w1');
    expect(second).toMatchObject({ moved: [{ session: 's3', worker: 'w4', epoch: 2 }], notMoved: [] });
    expect(await status(core.drainWorker(f.cell, 'w9'))).toBe('NOT_FOUND');
  });
});

describe('recovery', () => {
  it('moves every session of an expired worker, each guarded by its own epoch', async () => {
    await registerAll({ w1: 4 }, 1_000);
    await registerAll({ w2: 4, w3: 4 });
    const c = at();
    for (const s of ['s1', 's2', 's3']) await c.create(s, 'w1', clock);
    await c.move('s3', ['w1', 1], 'w2', clock);
    await c.move('s3', ['w2', 2], 'w1', clock); // s3 is at epoch 3 on w1
    const { core, notes } = replica();
    expect((await core.recoverOnce(f.cell)).moved).toEqual([]); // w1 is still live
    clock += 1_001;
    const report = await core.recoverOnce(f.cell);
    expect(report).toMatchObject({ cell: f.cell, expired: ['w1'], conflicts: [], notMoved: [] });
    const epochs = Object.fromEntries(report.moved.map((s) => [s.session, s.epoch]));
    expect(epochs).toEqual({ s1: 2, s2: 2, s3: 4 });
    for (const s of report.moved)
      expect(await c.gen(s.session)).toMatchObject({ worker: s.worker, epoch: s.epoch });
    expect(notes.flatMap(([m, w, r]) => (m === 'revoke' ? [[w, r.session, r.epoch]] : [])).sort()).toEqual([
      ['w1', 's1', 1],
      ['w1', 's2', 1],
      ['w1', 's3', 3],
    ]);
    expect(await core.recoverOnce(f.cell)).toMatchObject({ expired: [], moved: [] });
    // emptied, the worker can come back as a new incarnation
    expect((await c.register('w1', 4, clock)).incarnation).toBe(2);
  });

  it('moves each session exactly once when two replicas recover at once', async () => {
    await registerAll({ w1: 12 }, 1_000);
    await registerAll({ w2: 8, w3: 8 });
    const sessions = Array.from({ length: 12 }, (_, k) => `s${k}`);
    for (const s of sessions) await at().create(s, 'w1', clock);
    clock += 1_001;
    const [a, b] = [replica(f.connect(), 1).core, replica(f.connect(), 2).core];
    const reports = await Promise.all([a.recoverOnce(f.cell), b.recoverOnce(f.cell)]);
    const moved = reports.flatMap((r) => r.moved.map((s) => s.session));
    expect([...moved].sort()).toEqual([...sessions].sort());
    for (const [mine, theirs] of [reports, [...reports].reverse()]) {
      for (const s of mine!.conflicts) expect(theirs!.moved.map((m) => m.session)).toContain(s);
      expect(mine!.notMoved).toEqual([]);
    }
    for (const s of sessions) expect((await at().gen(s))?.epoch).toBe(2);
  });

  it('reports what no worker has room for, and the background loop moves it later', async () => {
    await registerAll({ w1: 3 }, 1_000);
    await registerAll({ w2: 1 });
    for (const s of ['s1', 's2', 's3']) await at().create(s, 'w1', clock);
    clock += 1_001;
    const { core } = replica();
    const report = await core.recoverOnce(f.cell);
    expect(report.moved).toHaveLength(1);
    expect(report.notMoved).toHaveLength(2);
    await registerAll({ w3: 2 });
    core.startRecovery(20);
    try {
      await eventually(
        async () => (await steps.readPlaced(f.store, { cell: f.cell, worker: 'w1' })).length === 0,
      );
    } finally {
      await core.stop();
    }
    expect((await at().worker('w3', clock)).tokens).toHaveLength(2);
  });
});

describe('reads', () => {
  it('lists sessions page by page and workers as the store has them', async () => {
    await registerAll({ w1: 4, w2: 4 });
    const { core } = replica();
    const sessions = Array.from({ length: 7 }, (_, k) => `s${k}`);
    for (const s of sessions) await core.createLive(f.cell, s);
    const seen = new Set<string>();
    let cursor = '0';
    do {
      const page = await core.listSessions(f.cell, cursor, 2);
      for (const s of page.sessions) {
        expect(s).toMatchObject({ cell: f.cell, epoch: 1, phase: 'assigned', releasedSeq: 0 });
        seen.add(s.session);
      }
      cursor = page.nextCursor;
    } while (cursor !== '0');
    expect([...seen].sort()).toEqual(sessions);
    const { workers } = await core.listWorkers(f.cell);
    expect(workers.map((w) => [w.worker, w.live, w.capacity, w.tokens, w.placed])).toEqual([
      ['w1', true, 4, 4, 4],
      ['w2', true, 4, 3, 3],
    ]);
    expect(await status(core.getSession(f.cell, 'nope'))).toBe('NOT_FOUND');
  });
});

/** Polls until `done` holds, for up to 10 s. */
async function eventually(done: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 10_000; !(await done());) {
    if (Date.now() > deadline) throw new Error('condition not reached in 10 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}
