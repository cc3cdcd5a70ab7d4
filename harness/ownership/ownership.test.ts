import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS, PROTOCOLS, type ProtocolName, type RunEnv, ownershipRun } from './run.js';
import { openLane, runLane, staleExecution } from './bench.js';
import { crash, heal, partition } from './connections.js';

const BASELINES = (Object.keys(PROTOCOLS) as ProtocolName[]).filter((p) => p !== 'dhsched');

describe('randomized ownership runs (the CI share of scripts/bench-ownership)', () => {
  it('DHSched shows no violation of any kind; every baseline executes stale somewhere', async () => {
    const tally = await runLane({
      protocols: Object.keys(PROTOCOLS) as ProtocolName[],
      first: 1,
      runs: 40,
      lane: 0,
      lanes: 1,
      concurrency: 16,
    });
    const dhsched = tally.dhsched!;
    expect(dhsched.firstError).toBeNull();
    expect(dhsched.runs).toBe(40);
    expect(Object.fromEntries(KINDS.map((k) => [k, dhsched.violations[k]]))).toEqual(
      Object.fromEntries(KINDS.map((k) => [k, 0])),
    );
    // the runs reach the windows that matter: stale runtimes try to release and are refused
    expect(dhsched.lostAuthority).toBeGreaterThan(0);
    for (const p of BASELINES) {
      expect(tally[p]!.firstError, p).toBeNull();
      expect(staleExecution(tally[p]!), `${p} executes stale`).toBe(true);
    }
  });

  describe('a run', () => {
    let lane: { env: RunEnv; close(): Promise<void> };
    beforeAll(async () => {
      lane = await openLane();
    });
    afterAll(async () => {
      await lane.close();
    });

    it('is reproducible from its seed: the same schedule finds the same violations', async () => {
      // workerid-only seed 10: an old runtime releases after its session came back to its worker
      const first = await ownershipRun(lane.env, 'workerid-only', 10);
      const again = await ownershipRun(lane.env, 'workerid-only', 10);
      expect(first.violations.map((v) => v.kind)).toContain('stale-release');
      expect(again).toEqual(first);
    });

    it('partitions a worker: what it sends is held, then arrives on heal, or never after a crash', async () => {
      const { redis } = lane.env;
      const worker = await lane.env.connections.take();
      partition(worker);
      const held = worker.set('own-test-held', '1');
      expect(await redis.get('own-test-held')).toBeNull();
      heal(worker);
      await held;
      expect(await redis.get('own-test-held')).toBe('1');
      partition(worker);
      const lost = worker.set('own-test-lost', '1');
      crash(worker);
      await expect(lost).rejects.toThrow();
      expect(await redis.get('own-test-lost')).toBeNull();
      await redis.del('own-test-held');
    });

    it('leaves nothing of its cell in Redis', async () => {
      await ownershipRun(lane.env, 'dhsched', 3);
      expect(await lane.env.redis.keys('*own-dhsched-3*')).toEqual([]);
    });
  });
});
