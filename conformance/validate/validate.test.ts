/**
 * Trace validation: randomized real runs (processes over gRPC, a few of them here; the full count is
 * ./scripts/faults) are behaviours of the spec, every event accepted; and the validator is not
 * vacuous: a trace recorded by the store's own scripts is accepted whole, and each corruption of it that
 * breaks the protocol is rejected at the corrupted event.
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import * as steps from '../../impl/store/steps.js';
import type { TraceEntry } from '../../impl/store/steps.js';
import { TTL, inCell, refusal } from '../../impl/test-support/cell.js';
import { newCell, useStore } from '../../impl/test-support/redis.js';
import { judge, loadRecorded } from './recorded.js';
import { type Scenario, runScenario, scenarios } from './runs.js';
import { type RunInfo, describeRejection, validateTrace } from './validate.js';

describe('real runs', () => {
  let n = 0;
  /** Runs the scenario: every recorded step is accepted by the spec, and the history checker finds nothing. */
  const judged = async (scenario: Scenario) => {
    const r = await runScenario(scenario, `ci${++n}`);
    const v = r.verdict;
    if (v.rejection) throw new Error(`${describeRejection(v.rejection)}\nlogs: ${r.logDir}`);
    expect(v.events).toBeGreaterThan(0);
    expect(v.accepted).toBe(v.events);
    expect(r.history.violations, `logs: ${r.logDir}`).toEqual([]);
    return r;
  };

  it('randomized ones are behaviours of the spec, with nothing for the history checker', async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (s) => void (await judged(s))),
      { numRuns: 3, endOnFailure: true },
    );
  }, 300_000);

  // the CI share of ./scripts/faults: one run with each fault of the Redis links, of Redis and of the clock
  for (const op of [
    'partition-worker',
    'delay-worker',
    'skew-worker',
    'pause-dispatcher',
    'redis-restart',
    'redis-failover',
  ]) {
    it(`one with ${op} is too`, async () => {
      const [scenario] = fc.sample(
        scenarios.filter((s) => s.faults.some((f) => f.fault.op === op)),
        { seed: 1, numRuns: 1 },
      );
      const r = await judged(scenario!);
      expect(r.scenario.faults.map((f) => f.fault.op)).toContain(op);
    }, 120_000);
  }

  it('one of the claim-only baseline is rejected: its moved-away runtime releases again', async () => {
    const scenario: Scenario = {
      workers: 2,
      dispatchers: 1,
      capacity: 2,
      sessions: 1,
      clients: [
        [
          { op: 'create', s: 1 },
          { op: 'push', s: 1, n: 2, retry: false },
          { op: 'wait', ms: 300 },
          { op: 'migrate', s: 1, to: null },
          { op: 'push', s: 1, n: 3, retry: false },
          // the old runtime is never fenced; its worker's sweep (every 150 ms) finds the input in the
          // log (the wait leaves it many sweeps on a loaded machine)
          { op: 'wait', ms: 4000 },
        ],
      ],
      faults: [],
    };
    const r = await runScenario(scenario, 'baseline', { protocol: 'claim_only' });
    const rejection = r.verdict.rejection;
    // the moved-away runtime's first step after the move: a release (stale), or its ask for input not
    // appended yet; the history checker finds its stale releases
    expect(rejection?.event).toMatch(/^ReleaseInput\(w\d, s1, 1\) of input \d/);
    expect(r.history.violations.filter((v) => v.kind === 'stale-release').length).toBeGreaterThan(0);
    // the run is recorded beside its logs and judged again from there the same way
    const again = judge(loadRecorded(`${r.logDir}/run.json`));
    expect(again.verdict.rejection).toEqual(rejection);
    expect(again.history.violations).toEqual(r.history.violations);
    fs.rmSync(r.logDir, { recursive: true, force: true });
  }, 120_000);
});

describe('the validator', () => {
  const f = useStore();
  const run: RunInfo = { sessions: ['s1'], workers: ['w1', 'w2'], capacity: 2 };
  let trace: TraceEntry[] = [];

  /** A behaviour driven through the store's scripts: create, inputs, a move, a stale release refused, a close, a lapse. */
  beforeAll(async () => {
    const { store } = f;
    const cell = newCell();
    const c = inCell(store, cell);
    const T0 = 1_700_000_000_000;
    await c.register('w1', 2, T0);
    await c.register('w2', 2, T0);
    await steps.configureCell(store, { cell, audit: true, trace: true });
    await c.create('s1', 'w1', T0);
    await c.claim('w1', 's1', 1);
    await steps.readRelease(store, { cell, session: 's1', tracedAs: { worker: 'w1', epoch: 1 } });
    await c.append('s1', 'r1');
    await c.append('s1', 'r2');
    await c.append('s1', 'r1');
    await c.release('w1', 's1', 1, 1);
    await c.release('w1', 's1', 1, 2);
    await steps.readGen(store, { cell, session: 's1', tracedAs: 'plan' });
    await c.move('s1', ['w1', 1], 'w2', T0);
    expect(await refusal(c.release('w1', 's1', 1, 3))).toBe('LOST_AUTHORITY');
    await c.teardown('w1', 's1', 1);
    await c.claim('w2', 's1', 2);
    await steps.readRelease(store, { cell, session: 's1', tracedAs: { worker: 'w2', epoch: 2 } });
    await c.append('s1', 'r3');
    await c.release('w2', 's1', 2, 3);
    await c.close('s1');
    expect(await refusal(c.renew('w1', 1, T0 + TTL))).toBe('NOT_LIVE');
    await c.register('w1', 2, T0 + TTL);
    trace = await steps.readTrace(store, { cell });
  });

  const at = (kind: TraceEntry['kind'], pick: (e: TraceEntry) => boolean = () => true) => {
    const i = trace.findIndex((e) => e.kind === kind && pick(e));
    if (i < 0) throw new Error(`the trace has no ${kind} entry`);
    return i;
  };
  const withEntry = (i: number, change: Partial<TraceEntry>) =>
    trace.map((e, k) => (k === i ? ({ ...e, ...change } as TraceEntry) : e));
  const rejectedAt = (corrupted: TraceEntry[], id: string) => {
    const v = validateTrace(corrupted, run);
    expect(v.rejection?.entryId, v.rejection && describeRejection(v.rejection)).toBe(id);
    expect(v.accepted).toBeLessThan(v.events);
    return v.rejection!;
  };

  /** A fresh cell, traced from after w1 and w2 registered (capacity 2) at T0. */
  const tracedCell = async () => {
    const cell = newCell();
    const c = inCell(f.store, cell);
    const T0 = 1_700_000_000_000;
    await c.register('w1', 2, T0);
    await c.register('w2', 2, T0);
    await steps.configureCell(f.store, { cell, audit: true, trace: true });
    return { cell, c, T0 };
  };
  /** The cell's trace, every event of it accepted. */
  const acceptedWhole = async (cell: string, info: RunInfo = run) => {
    const recorded = await steps.readTrace(f.store, { cell });
    const v = validateTrace(recorded, info);
    expect(v.rejection && describeRejection(v.rejection)).toBeUndefined();
    expect(v.accepted).toBe(recorded.length);
    return recorded;
  };

  it('accepts the store’s own trace, with the hidden step it needs (LeaseExpire before the lapse)', () => {
    const v = validateTrace(trace, run);
    expect(v.rejection && describeRejection(v.rejection)).toBeUndefined();
    expect(v.accepted).toBe(v.events);
    expect(v.events).toBe(trace.length);
    expect(v.hidden).toBe(1);
  });

  it('accepts a registration that takes its session back under the next epoch, and no other', async () => {
    const { cell, c, T0 } = await tracedCell();
    await c.create('s1', 'w1', T0);
    await c.claim('w1', 's1', 1);
    expect(await refusal(c.renew('w1', 1, T0 + TTL))).toBe('NOT_LIVE');
    expect(await c.register('w1', 2, T0 + TTL)).toMatchObject({ adopted: 1 });
    const lapsed = await acceptedWhole(cell);
    const back = lapsed.findIndex((e) => e.kind === 'commit' && e.from === 'w1');
    expect(lapsed[back - 1]?.kind).toBe('register');
    const skipped = lapsed.map((e, k) => (k === back ? ({ ...e, epoch: 3 } as TraceEntry) : e));
    expect(validateTrace(skipped, run).rejection?.entryId).toBe(lapsed[back]!.id);
  });

  it('accepts a lapse one replica found and another, with an earlier clock, then finds too', async () => {
    const { cell, c, T0 } = await tracedCell();
    expect(await refusal(c.create('s1', 'w2', T0 + TTL))).toBe('NOT_LIVE');
    // the spec's lease does not come back without Register(w2): neither does the store's
    expect(await refusal(c.create('s1', 'w2', T0 + 1))).toBe('NOT_LIVE');
    await c.create('s1', 'w1', T0 + 1);
    expect(await acceptedWhole(cell)).toHaveLength(3);
  });

  it('accepts fenced runtimes torn down before a registration, and a commit to that worker between', async () => {
    const { cell, c, T0 } = await tracedCell();
    for (const s of ['s1', 's2']) {
      await c.create(s, 'w1', T0);
      await c.claim('w1', s, 1);
      await steps.readGen(f.store, { cell, session: s, tracedAs: 'plan' });
      await c.move(s, ['w1', 1], 'w2', T0);
    }
    // w1's sweep fences both runtimes (untraced reads) and tears them down; then w1 is killed
    await c.teardown('w1', 's1', 1);
    await c.teardown('w1', 's2', 1);
    await steps.readGen(f.store, { cell, session: 's1', tracedAs: 'plan' });
    await c.move('s1', ['w2', 2], 'w1', T0 + 1); // its lease is still live
    expect(await c.register('w1', 2, T0 + TTL)).toMatchObject({ adopted: 1 });
    await acceptedWhole(cell, { ...run, sessions: ['s1', 's2'] });
  });

  it('accepts a release retried after its reply was lost, refused because the session moved meanwhile', async () => {
    const { cell, c, T0 } = await tracedCell();
    await c.create('s1', 'w1', T0);
    await c.claim('w1', 's1', 1);
    await steps.readRelease(f.store, { cell, session: 's1', tracedAs: { worker: 'w1', epoch: 1 } });
    await c.append('s1', 'r1');
    await c.release('w1', 's1', 1, 1); // its reply lost: Redis restarted under it
    await steps.readGen(f.store, { cell, session: 's1', tracedAs: 'plan' });
    await c.move('s1', ['w1', 1], 'w2', T0);
    expect(await refusal(c.release('w1', 's1', 1, 1))).toBe('LOST_AUTHORITY');
    await acceptedWhole(cell);
  });

  it('accepts a claim retried after its reply was lost, found stale because the session closed meanwhile', async () => {
    const { cell, c, T0 } = await tracedCell();
    await c.create('s1', 'w1', T0);
    expect(await c.claim('w1', 's1', 1)).toBe('claimed'); // its reply lost: a failover
    await c.close('s1');
    expect(await c.claim('w1', 's1', 1)).toBe('stale');
    expect((await c.worker('w1', T0)).tokens).toEqual([]);
    await acceptedWhole(cell);
  });

  it('accepts one append batch of several sessions (a run of PushText steps), and their releases', async () => {
    const { cell, c, T0 } = await tracedCell();
    const info: RunInfo = { sessions: ['s1', 's2'], workers: ['w1', 'w2'], capacity: 2 };
    await c.create('s1', 'w1', T0);
    await c.create('s2', 'w2', T0);
    const push = (session: string, requestId: string) => ({
      session,
      requestId,
      text: `${session} ${requestId}`,
    });
    const batch = [push('s1', 'r1'), push('s2', 'r1'), push('s1', 'r2'), push('s1', 'r1')];
    const got = await steps.appendBatch(f.store, { cell, inputs: batch });
    expect(got.map((r) => (r.ok ? r.seq : r.code))).toEqual([1, 1, 2, 1]);
    await c.claim('w1', 's1', 1);
    await steps.readRelease(f.store, { cell, session: 's1', tracedAs: { worker: 'w1', epoch: 1 } });
    await c.release('w1', 's1', 1, 1);
    await c.release('w1', 's1', 1, 2);
    const recorded = await acceptedWhole(cell, info);
    expect(recorded.filter((e) => e.kind === 'append').map((e) => `${e.session} ${e.requestId}`)).toEqual([
      's1 r1',
      's2 r1',
      's1 r2',
      's1 r1',
    ]);
  });

  it('accepts a drain undone, and a placement on that worker after it; rejects one before it', async () => {
    const { cell, c, T0 } = await tracedCell();
    await c.drain('w2');
    expect(await refusal(c.create('s1', 'w2', T0))).toBe('DRAINING');
    expect(await c.undrain('w2')).toBe(true);
    expect(await c.undrain('w2')).toBe(false);
    await c.create('s1', 'w2', T0);
    const undone = await acceptedWhole(cell);
    expect(undone.map((e) => e.kind)).toEqual(['drain', 'refused', 'undrain', 'undrain', 'commit']);
    // the store said w2 was undrained before it drained: no behaviour of the spec
    const early = undone.findIndex((e) => e.kind === 'undrain');
    const reordered = [undone[early]!, ...undone.filter((_, k) => k !== early)];
    expect(validateTrace(reordered, run).rejection?.entryId).toBe(undone[early]!.id);
  });

  it('rejects a release by a stale generation', () => {
    const i = at('release', (e) => e.kind === 'release' && e.seq === 3);
    const r = rejectedAt(withEntry(i, { worker: 'w1', epoch: 1 }), trace[i]!.id);
    expect(r.reasons.join('\n')).toMatch(/ReleaseInput\(w1, s1, 1\)|released\[s1\]/);
  });

  it('rejects releases out of order', () => {
    const first = at('release');
    const swapped = [...trace];
    [swapped[first], swapped[first + 1]] = [swapped[first + 1]!, swapped[first]!];
    rejectedAt(swapped, trace[first + 1]!.id);
  });

  it('rejects a release after the close', () => {
    const i = at('release', (e) => e.kind === 'release' && e.seq === 3);
    const close = at('close');
    const late = [
      ...trace.slice(0, i),
      ...trace.slice(i + 1, close + 1),
      trace[i]!,
      ...trace.slice(close + 1),
    ];
    rejectedAt(late, trace[i]!.id);
  });

  it('rejects a retried request appended again', () => {
    const i = at('append', (e) => e.kind === 'append' && e.duplicate);
    rejectedAt(withEntry(i, { seq: 3, duplicate: false }), trace[i]!.id);
  });

  it('rejects a move whose guard no traced read saw', () => {
    const plan = at('plan');
    const r = rejectedAt(
      trace.filter((_, k) => k !== plan),
      trace[at('commit', (e) => e.kind === 'commit' && e.from !== '')]!.id,
    );
    expect(r.reasons.join('\n')).toMatch(/no traced read/);
  });

  it('rejects a runtime reconstructed from a cursor other than the store’s', () => {
    const i = at('reconstruct', (e) => e.kind === 'reconstruct' && e.worker === 'w2');
    rejectedAt(withEntry(i, { seq: 0 }), trace[i]!.id);
  });

  it('accepts a release sent between the worker’s fence read and its answer, refused', () => {
    const lost = at('lost');
    const fence: TraceEntry = {
      id: '0-2',
      kind: 'fence',
      session: 's1',
      worker: 'w1',
      epoch: 1,
      seen: { worker: 'w2', epoch: 2, phase: 'assigned' },
    };
    const fencedFirst = [...trace.slice(0, lost), fence, ...trace.slice(lost)];
    const v = validateTrace(fencedFirst, run);
    expect(v.rejection && describeRejection(v.rejection)).toBeUndefined();
    // but not one of another input than the runtime's next
    rejectedAt(
      fencedFirst.map((e) => (e.id === trace[lost]!.id ? ({ ...e, seq: 5 } as TraceEntry) : e)),
      trace[lost]!.id,
    );
  });

  it('rejects a teardown of a runtime still current, unless its lease lapsed', () => {
    const claim = at('claim', (e) => e.kind === 'claim' && e.worker === 'w2');
    const teardown: TraceEntry = { id: '0-1', kind: 'teardown', session: 's1', worker: 'w2', epoch: 2 };
    rejectedAt([...trace.slice(0, claim + 1), teardown, ...trace.slice(claim + 1)], '0-1');
  });

  it('rejects a commit refused where the spec admits it, and a claim found stale while current', () => {
    const move = at('commit', (e) => e.kind === 'commit' && e.from !== '');
    const entry = trace[move]!;
    if (entry.kind !== 'commit') throw new Error('not a commit');
    const refusal = (code: 'FULL' | 'NOT_LIVE' | 'CONFLICT'): TraceEntry => ({
      id: entry.id,
      kind: 'refused',
      session: entry.session,
      worker: entry.worker,
      from: entry.from,
      epoch: entry.epoch - 1,
      code,
    });
    for (const code of ['FULL', 'CONFLICT'] as const) {
      rejectedAt(
        trace.map((e, k) => (k === move ? refusal(code) : e)),
        entry.id,
      );
    }
    // a lease may have run out unseen (LeaseExpire): what follows shows it did not
    const notLive = validateTrace(
      trace.map((e, k) => (k === move ? refusal('NOT_LIVE') : e)),
      run,
    );
    expect(notLive.rejection?.index).toBeGreaterThan(move);
    const claim = at('claim', (e) => e.kind === 'claim' && e.worker === 'w2');
    rejectedAt(withEntry(claim, { outcome: 'stale' }), trace[claim]!.id);
  });

  it('names an id that is not the run’s', () => {
    expect(() => validateTrace(trace, { ...run, workers: ['w1'] })).toThrow(
      /worker w2, which is not one of the run's/,
    );
  });
});
