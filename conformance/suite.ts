/**
 * What the generated conformance tests (<Model>.conformance.test.ts, written by generate.ts) run: a private
 * redis-server for the file, the model's state graph and traces, and per test one chunk of traces
 * replayed as a prefix tree (replay.ts). The last test checks that the replay executed and compared every
 * edge of the graph; the figures (steps, time per step) are printed once the file is done.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect } from 'vitest';
import { type RedisServer, startRedis } from '../impl/ops/redis-server.js';
import { type Store, openStore } from '../impl/store/steps.js';
import {
  type Replay,
  type Tally,
  executedEdges,
  loadReplay,
  newTally,
  replayTraces,
  summary,
} from './replay.js';

export interface ReplaySuite {
  /** Replays traces [from, to) of the model; throws a ConformanceError at the first difference. */
  traces(from: number, to: number): Promise<void>;
  /** Every edge of the model's graph was executed and compared by the chunks replayed before. */
  everyEdge(): void;
}

export function useReplay(model: string, traces: number): ReplaySuite {
  let server: RedisServer | undefined;
  let redis: Redis | undefined;
  let store: Store | undefined;
  let replay: Replay | undefined;
  let tally: Tally | undefined;
  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis({ host: server.host, port: server.port, maxRetriesPerRequest: 1 });
    store = openStore(redis);
    replay = await loadReplay(model);
    tally = newTally(replay);
    if (replay.traces.length !== traces) {
      throw new Error(`traces/${model}.json has ${replay.traces.length} traces, not ${traces}: regenerate`);
    }
  });
  afterAll(async () => {
    if (replay && tally) console.log(summary(replay, tally));
    await redis?.quit();
    await server?.stop();
  });
  return {
    traces: (from, to) => replayTraces(replay!, store!, from, to, tally!),
    everyEdge() {
      expect(tally!.traces, 'traces replayed').toBe(traces);
      expect(executedEdges(tally!), 'edges executed and compared').toBe(replay!.graph.edges.length);
    },
  };
}
