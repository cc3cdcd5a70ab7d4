/**
 * What the benchmark measures around a window of requests, without touching the request path: CPU time
 * and RSS of each process from /proc (Linux), and Redis's own figures from INFO (commandstats: calls per
 * command, scripts' inner commands included; memory; CPU). MONITOR would see each command but costs more
 * than the load it watches at this scale; INFO deltas over a window are what remains.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { type RedisClient, scripts } from '../../impl/store/scripts.js';

const TICKS_PER_S = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU seconds (user + system) the process has used, and its resident memory in bytes. */
export function procStat(pid: number): { cpuS: number; rssBytes: number } {
  // /proc/<pid>/stat: fields after the command's closing parenthesis; utime and stime are 14 and 15
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuS = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuS, rssBytes: Number(rss?.[1] ?? 0) * 1024 };
}

/**
 * CPU seconds of each kernel thread (a child of kthreadd, pid 2), keyed `name/pid`: the host's own work,
 * which takes a core from the system while it runs. On this project's 2-core VM, DAMON's kdamond runs
 * every ~0.55 s for tens of ms (more under load), and a push in flight then waits.
 */
export function kernelThreads(): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // it exited meanwhile
    }
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    // fields[1]: the parent's pid
    if (entry !== '2' && fields[1] !== '2') continue;
    const name = stat.slice(stat.indexOf('(') + 1, close);
    out.set(`${name}/${entry}`, (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S);
  }
  return out;
}

/** The `name:value` lines of an INFO section as numbers where they are numbers. */
function infoFields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) out.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return out;
}

export interface RedisStats {
  /** Calls per command (lower case), every call counted, those inside scripts too. */
  calls: Map<string, number>;
  usedMemoryBytes: number;
  rssBytes: number;
  cpuS: number;
  pid: number;
}

export async function redisStats(redis: RedisClient): Promise<RedisStats> {
  const info = infoFields(String(await redis.info('everything')));
  const calls = new Map<string, number>();
  for (const [k, v] of info) {
    if (!k.startsWith('cmdstat_')) continue;
    calls.set(k.slice('cmdstat_'.length), Number(/calls=(\d+)/.exec(v)?.[1] ?? 0));
  }
  const num = (k: string) => Number(info.get(k) ?? 0);
  return {
    calls,
    usedMemoryBytes: num('used_memory'),
    rssBytes: num('used_memory_rss'),
    cpuS: num('used_cpu_user') + num('used_cpu_sys'),
    pid: num('process_id'),
  };
}

/** One reading of every process of the system: the figures a window's deltas are taken from. */
export interface Snapshot {
  atMs: number;
  redis: RedisStats;
  /** CPU seconds and RSS by process group (workers, dispatchers, sink) and of the bench itself. */
  groups: Record<string, { cpuS: number; rssBytes: number }>;
  /** CPU seconds of each of the host's kernel threads. */
  kernel: Map<string, number>;
}

export async function snapshot(
  redis: RedisClient,
  groups: Record<string, readonly number[]>,
): Promise<Snapshot> {
  const out: Snapshot['groups'] = {};
  for (const [name, pids] of Object.entries(groups)) {
    const stats = pids.map(procStat);
    out[name] = {
      cpuS: stats.reduce((a, s) => a + s.cpuS, 0),
      rssBytes: stats.reduce((a, s) => a + s.rssBytes, 0),
    };
  }
  const self = process.cpuUsage();
  out['bench'] = { cpuS: (self.user + self.system) / 1e6, rssBytes: process.memoryUsage().rss };
  return { atMs: performance.now(), redis: await redisStats(redis), groups: out, kernel: kernelThreads() };
}

const r2 = (x: number) => Math.round(x * 100) / 100;

/** Command calls and CPU seconds between two snapshots. */
export interface Delta {
  seconds: number;
  calls: Map<string, number>;
  cpuS: Record<string, number>;
  /** The kernel threads' CPU ms per second, all of them and the busiest one. */
  kernel: { msPerS: number; busiest: string; busiestMsPerS: number };
}

export function delta(a: Snapshot, b: Snapshot): Delta {
  const calls = new Map<string, number>();
  for (const [cmd, n] of b.redis.calls) {
    const d = n - (a.redis.calls.get(cmd) ?? 0);
    if (d > 0) calls.set(cmd, d);
  }
  const cpuS: Record<string, number> = { redis: b.redis.cpuS - a.redis.cpuS };
  for (const [name, g] of Object.entries(b.groups)) cpuS[name] = g.cpuS - (a.groups[name]?.cpuS ?? 0);
  const seconds = (b.atMs - a.atMs) / 1000;
  const kernel = { msPerS: 0, busiest: '', busiestMsPerS: 0 };
  for (const [thread, s] of b.kernel) {
    const msPerS = ((s - (a.kernel.get(thread) ?? s)) * 1000) / seconds;
    kernel.msPerS += msPerS;
    if (msPerS > kernel.busiestMsPerS) Object.assign(kernel, { busiest: thread, busiestMsPerS: msPerS });
  }
  kernel.msPerS = r2(kernel.msPerS);
  kernel.busiestMsPerS = r2(kernel.busiestMsPerS);
  return { seconds, calls, cpuS, kernel };
}

/**
 * Per request over a window (`allIn`: everything over the window), and net of the background (lease renewals, load publishing and refresh,
 * sweeps) measured over an idle window and scaled to this one's length: Redis command calls (all, and
 * scripts alone, i.e. store steps run) and CPU milliseconds by process group.
 */
export function perRequest(window: Delta, idle: Delta, requests: number) {
  const scale = window.seconds / idle.seconds;
  const net = (n: number, idleN: number) => Math.max(0, n - idleN * scale) / requests;
  const byCommand: Record<string, number> = {};
  let commands = 0;
  for (const [cmd, n] of window.calls) {
    if (cmd === 'info') continue;
    const v = net(n, idle.calls.get(cmd) ?? 0);
    commands += v;
    if (v >= 0.005) byCommand[cmd] = r2(v);
  }
  const scripts = net(window.calls.get('evalsha') ?? 0, idle.calls.get('evalsha') ?? 0);
  const allCommands = [...window.calls].reduce((a, [cmd, n]) => a + (cmd === 'info' ? 0 : n), 0);
  const cpuMs: Record<string, number> = {};
  let systemCpu = 0;
  let allCpu = 0;
  for (const [name, s] of Object.entries(window.cpuS)) {
    // the bench's own CPU is the clients'; idle, it does nothing
    const v = (name === 'bench' ? s / requests : net(s, idle.cpuS[name] ?? 0)) * 1000;
    cpuMs[name] = Math.round(v * 1000) / 1000;
    if (name !== 'bench') systemCpu += v;
    if (name !== 'bench') allCpu += (s * 1000) / requests;
  }
  return {
    requests,
    redisCommands: r2(commands),
    redisScripts: r2(scripts),
    redisByCommand: byCommand,
    cpuMs: { system: Math.round(systemCpu * 1000) / 1000, ...cpuMs },
    /** The same with the background left in: everything the system did over the window, per request. */
    allIn: {
      redisCommands: r2(allCommands / requests),
      redisScripts: r2((window.calls.get('evalsha') ?? 0) / requests),
      systemCpuMs: Math.round(allCpu * 1000) / 1000,
    },
  };
}

const stepByHash = new Map(
  [...scripts().values()].map((s) => [createHash('sha1').update(s.lua).digest('hex'), s.step]),
);

/** Makes Redis log every command (a script counts as one) that runs longer than `thresholdUs`. */
export async function startSlowlog(redis: RedisClient, thresholdUs: number): Promise<void> {
  await redis.config('SET', 'slowlog-log-slower-than', String(thresholdUs));
  await redis.config('SET', 'slowlog-max-len', '10000');
  await redis.slowlog('RESET');
}

/**
 * The commands Redis logged as slow since the last call, by store step (EVALSHA's script) or command:
 * while one runs, every other client waits, so they are what a latency tail is made of. Resets the log.
 */
export async function takeSlowlog(redis: RedisClient) {
  const entries = (await redis.slowlog('GET', '-1')) as [number, number, number, string[]][];
  await redis.slowlog('RESET');
  const out: Record<string, { count: number; maxMs: number; totalMs: number }> = {};
  for (const [, , us, args] of entries) {
    const cmd = String(args[0]).toLowerCase();
    const name = cmd === 'evalsha' ? (stepByHash.get(String(args[1])) ?? 'evalsha:unknown') : cmd;
    const s = (out[name] ??= { count: 0, maxMs: 0, totalMs: 0 });
    s.count++;
    s.maxMs = Math.max(s.maxMs, us / 1000);
    s.totalMs = Math.round((s.totalMs + us / 1000) * 1000) / 1000;
  }
  return out;
}

/** How late a process's event loop ran what was due, over a window, ms: its P99 and its worst. */
export interface LoopDelay {
  p99Ms: number;
  maxMs: number;
}

/**
 * The period of the timer monitorEventLoopDelay measures with (prom-client's default precision): its
 * histogram holds the whole time between two ticks, so this much of each is the period, not delay.
 */
export const LOOP_DELAY_RESOLUTION_MS = 10;

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const lateMs = (tickNs: number) => r3(Math.max(0, tickNs / 1e6 - LOOP_DELAY_RESOLUTION_MS));

/**
 * A process's event-loop delay since its last scrape, from its /metrics (prom-client's default metrics
 * measure it with monitorEventLoopDelay and start over at each scrape). One unlabelled gauge per line.
 */
export async function scrapeLoopDelay(metricsPort: number): Promise<LoopDelay> {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  if (!res.ok) throw new Error(`/metrics on port ${metricsPort} answered ${res.status}`);
  const text = await res.text();
  const gaugeNs = (name: string) => {
    const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
    if (value === undefined) throw new Error(`/metrics on port ${metricsPort} has no ${name}`);
    return Number(value) * 1e9;
  };
  return {
    p99Ms: lateMs(gaugeNs('nodejs_eventloop_lag_p99_seconds')),
    maxMs: lateMs(gaugeNs('nodejs_eventloop_lag_max_seconds')),
  };
}

/** The same, of a histogram of this process's own ticks (monitorEventLoopDelay at the same resolution). */
export function ownLoopDelay(ticks: { percentile(p: number): number; max: number }): LoopDelay {
  return { p99Ms: lateMs(ticks.percentile(99)), maxMs: lateMs(ticks.max) };
}

/** The worst of several processes' delays. */
export function worstLoopDelay(delays: readonly LoopDelay[]): LoopDelay {
  return {
    p99Ms: Math.max(0, ...delays.map((d) => d.p99Ms)),
    maxMs: Math.max(0, ...delays.map((d) => d.maxMs)),
  };
}
