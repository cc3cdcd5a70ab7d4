/** The floor at a tiny size: both stages answer every message, and the store stage costs more. */
import { describe, expect, it } from 'vitest';
import { runFloor } from './run.js';

describe('bench-floor', () => {
  it('measures the echo and the store stage, alternated', async () => {
    const result = await runFloor({ rate: 500, seconds: 1, warmUpSeconds: 0.2, runs: 1 });
    expect(result.runs.map((r) => r.stage)).toEqual(['echo', 'store']);
    for (const r of result.runs) {
      expect(r.count).toBeGreaterThan(400);
      expect(r.achievedPerS).toBeGreaterThan(400);
      expect(r.p50Ms).toBeGreaterThan(0);
      expect(r.p99Ms).toBeGreaterThanOrEqual(r.p50Ms);
    }
    expect(result.byStage['store']!.p50MsMedian).toBeGreaterThan(result.byStage['echo']!.p50MsMedian);
  }, 60_000);
});
