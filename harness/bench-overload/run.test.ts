/**
 * The overload benchmark at a tiny size on real processes: three times the knee, then half of it; the
 * history is checked (no input lost, no violation) and no live worker's lease lapses.
 */
import { describe, expect, it } from 'vitest';
import { runBenchOverload } from './run.js';

describe('bench-overload', () => {
  it('overloads, recovers, and loses nothing', async () => {
    const result = await runBenchOverload({
      sessions: 300,
      knee: 100,
      overloadSeconds: 2,
      recoverySeconds: 2,
      warmUpSeconds: 1,
      settleSeconds: 30,
    });
    expect(result.overload.offeredPerS).toBe(300);
    expect(result.overload.admitted.count).toBeGreaterThan(0);
    expect(result.recovery.offeredPerS).toBe(50);
    expect(result.recovery.p99PerSecond.length).toBeGreaterThanOrEqual(2);
    expect(result).toMatchObject({ leasesLapsed: 0, inputsLost: 0, sessionsNotSettled: 0, violations: 0 });
    for (const window of [result.overload, result.recovery])
      expect(window.hostKernelThreads.msPerS).toBeGreaterThanOrEqual(window.hostKernelThreads.busiestMsPerS);
  }, 120_000);
});
