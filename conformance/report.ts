/**
 * Coverage of each conformance model's state graph: states, edges, and edges per action, ending with the
 * line `edges covered: X of Y` over every model. By default, what the committed traces cover; with
 * `--replay`, what a replay of them on the implementation (a private redis-server, as the generated tests
 * replay them) executed and compared.
 *   node dist/conformance/report.js [--replay] [--lanes N]
 */
import fs from 'node:fs';
import { integer, option, program as cliProgram, runScript } from '../impl/cli/flags.js';
import { Redis } from 'ioredis';
import { startRedis } from '../impl/ops/redis-server.js';
import { openStore } from '../impl/store/steps.js';
import { type Coverage, coverage, edgeCoverage } from './cover.js';
import { type TracesFile, tracesPath } from './generate.js';
import { conformanceModels, stateGraph } from './graph.js';
import { CHUNK, type Replay, loadReplay, newTally, replayTraces, summary } from './replay.js';

const program = cliProgram(
  'conformance-report',
  'coverage of the conformance traces: states, edges, per action',
)
  .option('--replay', 'replay the traces on the implementation and report what was executed and compared')
  .addOption(option('--lanes <n>', 'chunks of traces replayed at once (--replay)', integer(1)).default(3));

/** Replays every trace of the model; what the replay executed and compared. */
async function replayed(r: Replay, redis: Redis, lanes: number): Promise<Coverage> {
  const store = openStore(redis);
  const tally = newTally(r);
  let next = 0;
  const lane = async () => {
    while (next < r.traces.length) {
      const from = next;
      next += CHUNK;
      await replayTraces(r, store, from, Math.min(r.traces.length, from + CHUNK), tally);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  console.log(summary(r, tally));
  const executed = new Set([...tally.executed.keys()].filter((i) => tally.executed[i] === 1));
  const starts = new Set(r.traces.map((t) => t.start));
  return edgeCoverage(r.graph, executed, starts, { steps: tally.steps, traces: tally.traces });
}

async function main(): Promise<number> {
  const o = program.parse().opts<{ replay?: boolean; lanes: number }>();
  const server = o.replay ? await startRedis() : undefined;
  const redis = server && new Redis({ host: server.host, port: server.port, maxRetriesPerRequest: 1 });
  let covered = 0;
  let total = 0;
  try {
    for (const model of await conformanceModels()) {
      const file = JSON.parse(fs.readFileSync(tracesPath(model), 'utf8')) as TracesFile;
      const c = redis
        ? await replayed(await loadReplay(model.name), redis, o.lanes)
        : coverage(stateGraph(model), file.traces);
      const what = redis ? 'executed and compared' : 'covered';
      console.log(`${model.name} (${file.cfg}): ${c.traces} traces, ${c.steps} steps`);
      console.log(`  states ${what}: ${c.states.covered} of ${c.states.total}`);
      console.log(`  edges ${what}: ${c.edges.covered} of ${c.edges.total}`);
      for (const [action, a] of Object.entries(c.byAction).sort()) {
        console.log(`    ${action.padEnd(14)} ${String(a.covered).padStart(6)} of ${a.total}`);
      }
      covered += c.edges.covered;
      total += c.edges.total;
    }
  } finally {
    await redis?.quit();
    await server?.stop();
  }
  console.log(`edges covered: ${covered} of ${total}`);
  return 0;
}

runScript('conformance-report', main);
