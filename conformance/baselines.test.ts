import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHistory } from '../harness/history.js';
import { type RedisServer, startRedis } from '../impl/ops/redis-server.js';
import { openStore, readAudit } from '../impl/store/steps.js';
import type { Adapter } from './adapter.js';
import { baselineModels, counterexample, inDHSched } from './baselines.js';
import { type Replay, newTally, replayTrace } from './replay.js';

let server: RedisServer;
let redis: Redis;
beforeAll(async () => {
  server = await startRedis();
  redis = new Redis({ host: server.host, port: server.port, maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  await redis.quit();
  await server.stop();
});

/** Replays the path on a store in the model's mode; the history checker's violations of the run's audit. */
async function replay(r: Replay): Promise<string[]> {
  let kinds: string[] = [];
  const atEnd = async (a: Adapter) => {
    const audit = await readAudit(a.store, { cell: a.cell });
    kinds = checkHistory(audit).violations.map((v) => v.kind);
  };
  await replayTrace(r, openStore(redis, { protocol: r.adapter.protocol }), 0, newTally(r), atEnd);
  return kinds;
}

const baselines = baselineModels();

describe('baseline counterexamples on the implementation', () => {
  it('covers the three unsafe baselines', () => {
    expect(baselines.map((m) => m.name).sort()).toEqual(['AssignmentTime', 'ClaimOnly', 'WorkerIdOnly']);
  });

  describe.each(baselines)('$name', (model) => {
    const baseline = counterexample(model);
    const dhsched = inDHSched(baseline);
    const stale = baseline.graph.edges.at(-1)!;
    // the first step whose effect on the runtimes or the releases differs: where DHSched says no
    const differs = (k: number, v: string) =>
      JSON.stringify(baseline.graph.states[k + 1]![v]) !== JSON.stringify(dhsched.graph.states[k + 1]![v]);
    const refused = dhsched.graph.edges.find((_, k) => differs(k, 'rt') || differs(k, 'rels'));

    it(`in its own mode the real code releases stale (${stale.label}), state for state`, async () => {
      expect(stale.action).toBe('ReleaseInput');
      expect(await replay(baseline)).toContain('stale-release');
    });

    it(`in DHSched mode the same steps conform to DHSched: ${refused?.label ?? 'no step'} is refused`, async () => {
      expect(refused, 'a step DHSched refuses').toBeDefined();
      expect(['Claim', 'ReleaseInput']).toContain(refused!.action);
      const rels = dhsched.graph.states.at(-1)!['rels'] as Record<string, { stale: boolean }[]>;
      expect(
        Object.values(rels)
          .flat()
          .filter((r) => r.stale),
      ).toEqual([]);
      expect(await replay(dhsched)).toEqual([]);
    });
  });
});
