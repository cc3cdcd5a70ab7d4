/**
 * The scale benchmark at a tiny size on real processes: the result has the shape scripts/bench-scale.ts
 * writes to bench/scale.json, its latencies are real measurements, and the migration storm left a
 * history the checker finds sound under DHSched.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Latencies } from './latency.js';
import { DEFAULT_VARIANTS, PAPER, runBenchScale } from './run.js';

const Summary = z.object({
  count: z.number().int().positive(),
  p50Ms: z.number().positive(),
  p99Ms: z.number().positive(),
  p999Ms: z.number().positive(),
  maxMs: z.number().positive(),
  cdf: z.array(z.tuple([z.number().min(0).max(100), z.number().positive()])).min(100),
});
const Cost = z.object({
  requests: z.number().int().positive(),
  redisCommands: z.number().positive(),
  redisScripts: z.number().positive(),
  cpuMs: z.object({ system: z.number().positive() }).passthrough(),
});
const Calls = Summary.extend({ ok: z.number().int().positive(), perSecond: z.number().positive() });
const History = z.object({
  commits: z.number().int().positive(),
  releases: z.number().int().positive(),
  violations: z.number().int(),
  violationsByKind: z.record(z.string(), z.number()),
  sessionsNotSettled: z.literal(0),
});
const Result = z.object({
  paperCreateLiveP99Ms: z.literal(98.3),
  paperPushTextP99Ms: z.literal(16.5),
  paperSessions: z.literal(49_987),
  paperMigrations: z.literal(9927),
  headline: z.object({
    sessions: z.literal(200),
    violations: z.literal(0),
    capacityOvershoots: z.literal(0),
  }),
  levels: z
    .array(
      z.object({
        sessions: z.number(),
        createLive: Calls.extend({ cost: Cost }),
        pushText: Calls.extend({ cost: Cost }),
        memory: z.object({ bytesPerSession: z.number().positive(), redisUsedMiB: z.number().positive() }),
      }),
    )
    .length(1),
  storm: z.object({
    migrations: z.number().int().min(200),
    migrate: Calls,
    pushTextDuring: Calls,
    drains: z.array(z.object({ worker: z.literal('spare1'), error: z.undefined().optional() })).length(1),
    capacity: z.object({ samples: z.number().positive(), tokenOvershoots: z.literal(0) }),
    history: History,
  }),
  comparison: z
    .array(z.object({ name: z.string(), createLive: Calls, pushText: Calls, history: History }))
    .length(2),
});

describe('bench-scale', () => {
  it('percentiles are nearest-rank over the samples', () => {
    const l = new Latencies();
    for (let i = 1000; i >= 1; i--) l.add(i);
    const s = l.summary();
    expect([s.count, s.p50Ms, s.p99Ms, s.p999Ms, s.maxMs]).toEqual([1000, 500, 990, 999, 1000]);
    expect(s.cdf[0]).toEqual([0, 1]);
  });

  it('measures 200 sessions, 200 migrations and a drain on 2 workers and 2 dispatchers', async () => {
    const result = await runBenchScale({
      sessions: [200],
      workers: 2,
      dispatchers: 2,
      createRate: 200,
      pushRate: 100,
      pushSeconds: 2,
      idleSeconds: 1,
      migrations: 200,
      migrationRate: 100,
      drains: 1,
      compareSessions: 100,
      compareMigrations: 50,
      variants: DEFAULT_VARIANTS.filter((v) => v.name === 'dhsched-trace' || v.name === 'workerid-only'),
      settleSeconds: 60,
      // traced: the history check also replays the capacity tokens
      trace: true,
    });
    const r = Result.parse(result);
    expect(r.storm.history.violations).toBe(0);
    expect(r.storm.history.commits).toBeGreaterThanOrEqual(200 + 200);
    expect(r.comparison.find((c) => c.name === 'dhsched-trace')!.history.violations).toBe(0);
    expect(result).toMatchObject(PAPER);
    // compact: percentiles, not every sample
    expect(JSON.stringify(result).length).toBeLessThan(200_000);
  }, 300_000);
});
