import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { serveMetrics } from '../../impl/common/metrics.js';
import {
  LOOP_DELAY_RESOLUTION_MS,
  type Snapshot,
  delta,
  kernelThreads,
  ownLoopDelay,
  scrapeLoopDelay,
  worstLoopDelay,
} from './probes.js';

/** Keeps the event loop from running anything for `ms`. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('event-loop delay', () => {
  const served = serveMetrics('127.0.0.1', 0);
  afterAll(async () => (await served).close());

  it('reads a process’s delay from its /metrics, over the window since the last scrape', async () => {
    const { port } = await served;
    await scrapeLoopDelay(port);
    await delay(50);
    block(120);
    await delay(50);
    const blocked = await scrapeLoopDelay(port);
    expect(blocked.maxMs).toBeGreaterThan(80);
    await delay(300);
    const calm = await scrapeLoopDelay(port);
    expect(calm.maxMs).toBeLessThan(blocked.maxMs);
    expect(calm.p99Ms).toBeLessThanOrEqual(calm.maxMs);
  });

  it('counts only the lateness of a tick, not the timer’s own period', () => {
    const ms = 1e6;
    const ticks = {
      percentile: () => (LOOP_DELAY_RESOLUTION_MS + 2) * ms,
      max: (LOOP_DELAY_RESOLUTION_MS + 15) * ms,
    };
    expect(ownLoopDelay(ticks)).toEqual({ p99Ms: 2, maxMs: 15 });
    const early = {
      percentile: () => (LOOP_DELAY_RESOLUTION_MS - 1) * ms,
      max: LOOP_DELAY_RESOLUTION_MS * ms,
    };
    expect(ownLoopDelay(early)).toEqual({ p99Ms: 0, maxMs: 0 });
    expect(worstLoopDelay([ownLoopDelay(ticks), { p99Ms: 5, maxMs: 1 }])).toEqual({ p99Ms: 5, maxMs: 15 });
  });
});

describe('the host’s kernel threads', () => {
  it('reads kthreadd and its children by name/pid, and no user process', () => {
    const threads = kernelThreads();
    expect(threads.has('kthreadd/2')).toBe(true);
    expect(threads.size).toBeGreaterThan(1);
    expect([...threads.keys()].filter((k) => k.endsWith(`/${process.pid}`))).toEqual([]);
    for (const cpuS of threads.values()) expect(cpuS).toBeGreaterThanOrEqual(0);
  });

  it('a window’s CPU ms per second: all of them, and the busiest; one that appeared meanwhile counts from then', () => {
    const at = (atMs: number, kernel: [string, number][]): Snapshot => ({
      atMs,
      redis: { calls: new Map(), usedMemoryBytes: 0, rssBytes: 0, cpuS: 0, pid: 0 },
      groups: {},
      kernel: new Map(kernel),
    });
    const window = delta(
      at(0, [
        ['kdamond.0/83', 1],
        ['ksoftirqd/0/14', 0.5],
      ]),
      at(2000, [
        ['kdamond.0/83', 1.05],
        ['ksoftirqd/0/14', 0.51],
        ['kworker/1:0/99', 0.002],
      ]),
    );
    expect(window.kernel).toEqual({ msPerS: 30, busiest: 'kdamond.0/83', busiestMsPerS: 25 });
  });
});
