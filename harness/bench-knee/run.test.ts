/**
 * The knee sweep at a tiny size on real processes: every step measured on both ingresses, each push's
 * release found in the audit stream (the end-to-end latency), the host's kernel threads reported.
 */
import { describe, expect, it } from 'vitest';
import { runBenchKnee } from './run.js';

describe('bench-knee', () => {
  it('sweeps both ingresses: rates, latency, CPU, end to end and the knee', async () => {
    const result = await runBenchKnee({
      sessions: 300,
      rates: [100, 200],
      stepSeconds: 2,
      warmUpSeconds: 1,
      idleSeconds: 1,
      stopAtFailure: false,
      // a loaded test machine's tail is no finding here: the knee is the highest step that passed
      targetP99Ms: 5000,
      settleSeconds: 30,
    });
    expect(result.steps.map((s) => [s.ingress, s.offeredPerS])).toEqual([
      ['stream', 100],
      ['stream', 200],
      ['unary', 100],
      ['unary', 200],
    ]);
    for (const s of result.steps) {
      expect(s.passed).toBe(true);
      expect(s.count).toBeGreaterThan(s.offeredPerS);
      expect(s.refusals + s.notSent).toBe(0);
      // every push's release is in the audit stream, read back from its release batches' entries
      expect(s.endToEnd).toMatchObject({ count: s.count, sessionsNotReleased: 0 });
      expect(s.p99Ms).toBeGreaterThan(0);
      expect(s.cpuMsPerRequest.all).toBeGreaterThan(0);
      expect(s.hostKernelThreads.msPerS).toBeGreaterThanOrEqual(s.hostKernelThreads.busiestMsPerS);
    }
    expect(result.knee).toEqual({
      stream: expect.objectContaining({ perSecond: 200 }),
      unary: expect.objectContaining({ perSecond: 200 }),
    });
  }, 120_000);
});
