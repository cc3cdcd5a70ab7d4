/**
 * Many ownership runs (run.ts) and their table: per protocol, the runs, the violations of each
 * kind (and in how many runs), the first seed that shows each kind, and runs that failed to run. A lane
 * is one private redis-server with many runs in flight on it (they wait on Redis, not on the CPU);
 * scripts/bench-ownership.ts runs one lane per core, each in a worker thread (lane.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { ConnectionPool } from './connections.js';
import { startRedis } from '../../impl/ops/redis-server.js';
import type { ViolationKind } from '../history.js';
import { type Fault, KINDS, type ProtocolName, type RunEnv, type RunResult, ownershipRun } from './run.js';

const FAULTS: readonly Fault[] = ['crash', 'pause', 'partition'];

export interface ProtocolTally {
  runs: number;
  /** Violations of each kind, over every run. */
  violations: Record<ViolationKind, number>;
  /** Runs with at least one violation of the kind. */
  runsWith: Record<ViolationKind, number>;
  /** The smallest seed whose run shows the kind, null if none does. */
  firstFailingSeed: Record<ViolationKind, number | null>;
  /** Actions and faults of the schedules, and releases refused for lost authority, over every run. */
  actions: number;
  faults: Record<Fault, number>;
  lostAuthority: number;
  /** Runs that could not be run to the end (a harness or component failure), and the first of them. */
  errors: number;
  firstError: { seed: number; message: string } | null;
}

export type Tally = Partial<Record<ProtocolName, ProtocolTally>>;

const perKind = <T>(value: T): Record<ViolationKind, T> =>
  Object.fromEntries(KINDS.map((k) => [k, value])) as Record<ViolationKind, T>;

function tallyOf(tally: Tally, protocol: ProtocolName): ProtocolTally {
  return (tally[protocol] ??= {
    runs: 0,
    actions: 0,
    faults: { crash: 0, pause: 0, partition: 0 },
    lostAuthority: 0,
    violations: perKind(0),
    runsWith: perKind(0),
    firstFailingSeed: perKind(null),
    errors: 0,
    firstError: null,
  });
}

const earlier = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

export function addRun(tally: Tally, r: RunResult): void {
  const t = tallyOf(tally, r.protocol);
  t.runs++;
  t.actions += r.actions;
  t.lostAuthority += r.lostAuthority;
  for (const f of FAULTS) t.faults[f] += r.faults[f];
  for (const kind of new Set(r.violations.map((v) => v.kind))) {
    t.violations[kind] += r.violations.filter((v) => v.kind === kind).length;
    t.runsWith[kind]++;
    t.firstFailingSeed[kind] = earlier(t.firstFailingSeed[kind], r.seed);
  }
}

export function addError(tally: Tally, protocol: ProtocolName, seed: number, err: unknown): void {
  const t = tallyOf(tally, protocol);
  t.runs++;
  t.errors++;
  if (t.firstError === null || seed < t.firstError.seed) {
    t.firstError = { seed, message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
}

/** Adds the counts of `more` to `into`. */
export function mergeTally(into: Tally, more: Tally): void {
  for (const [protocol, m] of Object.entries(more) as [ProtocolName, ProtocolTally][]) {
    const t = tallyOf(into, protocol);
    t.runs += m.runs;
    t.actions += m.actions;
    t.lostAuthority += m.lostAuthority;
    for (const f of FAULTS) t.faults[f] += m.faults[f];
    t.errors += m.errors;
    if (m.firstError && (t.firstError === null || m.firstError.seed < t.firstError.seed)) {
      t.firstError = m.firstError;
    }
    for (const k of KINDS) {
      t.violations[k] += m.violations[k];
      t.runsWith[k] += m.runsWith[k];
      t.firstFailingSeed[k] = earlier(t.firstFailingSeed[k], m.firstFailingSeed[k]);
    }
  }
}

/** Stale execution: a release by a generation that was not the current one, or a second release. */
export const staleExecution = (t: ProtocolTally): boolean =>
  t.runsWith['stale-release'] + t.runsWith['dual-release'] > 0;

export interface LaneJob {
  protocols: readonly ProtocolName[];
  /** Seeds first .. first + runs - 1 of each protocol; this lane takes every `lanes`-th from `lane`. */
  first: number;
  runs: number;
  /** The baselines run only the first `baselineRuns` of those seeds (default: all). */
  baselineRuns?: number;
  lane: number;
  lanes: number;
  /** Runs in flight at once. */
  concurrency: number;
}

/** A private redis-server with the connections of a lane's runs; `close` stops it. */
export async function openLane(): Promise<{ env: RunEnv; close(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-ownership-'));
  const socket = path.join(dir, 'redis.sock');
  const server = await startRedis(['--unixsocket', socket, '--unixsocketperm', '700']);
  // Dispatch of every run shares this connection: commands of one tick go out in one write
  const redis = new Redis({ path: socket, maxRetriesPerRequest: 1, enableAutoPipelining: true });
  const connections = new ConnectionPool(socket);
  return {
    env: { redis, connections },
    async close() {
      connections.close();
      redis.disconnect();
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs the lane's share of the job on a private redis-server; `progress` gets each run's result (or
 * failure) as it ends. Resolves to the lane's tally.
 */
export async function runLane(
  job: LaneJob,
  progress: (protocol: ProtocolName, seed: number, r: RunResult | { error: unknown }) => void = () => {},
): Promise<Tally> {
  const lane = await openLane();
  const work: [ProtocolName, number][] = [];
  const baselineRuns = job.baselineRuns ?? job.runs;
  for (let k = job.lane; k < job.runs; k += job.lanes) {
    for (const p of job.protocols) if (p === 'dhsched' || k < baselineRuns) work.push([p, job.first + k]);
  }
  const tally: Tally = {};
  let next = 0;
  const inFlight = async () => {
    for (let i = next++; i < work.length; i = next++) {
      const [protocol, seed] = work[i]!;
      try {
        const r = await ownershipRun(lane.env, protocol, seed);
        addRun(tally, r);
        progress(protocol, seed, r);
      } catch (error) {
        addError(tally, protocol, seed, error);
        progress(protocol, seed, { error });
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: job.concurrency }, inFlight));
  } finally {
    await lane.close();
  }
  return tally;
}
