/**
 * What the generated conformance tests (<Model>.conformance.test.ts, written by generate.ts) run: a private
 * redis-server for the file, the model's state graph and traces, and per test one chunk of CHUNK traces
 * replayed as a prefix tree (replay.ts). The chunks run a few at a time (vitest's maxConcurrency), each on
 * cells of its own. The last test checks that the replay executed and compared every
 * edge of the graph; the figures (steps, time per step) are printed once the file is done.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../impl/ops/redis-server.js';
import { type Store, openStore } from '../impl/store/steps.js';
import {
  CHUNK,
  type Replay,
  type Tally,
  executedEdges,
  loadReplay,
  newTally,
  replayTraces,
  summary,
} from './replay.js';

/** The model's tests: one per chunk of traces, then the check that every edge was executed and compared. */
export function conformanceSuite(model: string, traces: number): void {
  describe(`${model} conformance`, () => {
    const replay = useReplay(model, traces);
    for (let from = 0; from < traces; from += CHUNK) {
      const to = Math.min(traces, from + CHUNK);
      it.concurrent(`traces ${from}-${to - 1}`, () => replay.traces(from, to));
    }
    it('executed and compared every edge', () => replay.everyEdge());
  });
}

interface ReplaySuite {
  /** Replays traces [from, to) of the model; throws a ConformanceError at the first difference. */
  traces(from: number, to: number): Promise<void>;
  /** Every edge of the model's graph was executed and compared by the chunks replayed before. */
  everyEdge(): void;
}

function useReplay(model: string, traces: number): ReplaySuite {
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
