/**
 * Replays a conformance model's committed traces (traces/<Model>.json) on the implementation through the
 * adapter: each trace from a fresh cell (new cell id, new controllers, new media sink), every step taken,
 * then the implementation's whole state read back and compared with the spec's state the step leads to.
 * A mismatch, or a step the implementation cannot take, throws a ConformanceError naming the trace, the
 * step and its label, and each differing variable with what the spec has and what the implementation has.
 *
 *   npx tsx conformance/replay.ts [--model Core] [--from 0] [--to N]   (starts its own redis-server)
 * prints per model: traces, steps, edges executed and compared, time per step (action, read-back).
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Command } from 'commander';
import { Redis } from 'ioredis';
import { startRedis } from '../impl/ops/redis-server.js';
import { type Store, openStore } from '../impl/store/steps.js';
import { Adapter, type AdapterModel, StepRefused, adapterModel } from './adapter.js';
import { type Trace, traceEdges } from './cover.js';
import { type TracesFile, tracesPath } from './generate.js';
import {
  type ConformanceModel,
  type SpecState,
  type StateGraph,
  canonical,
  conformanceModels,
  modelConstants,
  stateGraph,
} from './graph.js';

export interface Replay {
  model: ConformanceModel;
  /** Where the traces come from, for messages. */
  source: string;
  graph: StateGraph;
  adapter: AdapterModel;
  traces: Trace[];
}

/** The model's state graph, its committed traces and what the adapter needs of its constants. */
export async function loadReplay(name: string): Promise<Replay> {
  const model = (await conformanceModels()).find((m) => m.name === name);
  if (!model) throw new Error(`no conformance model ${name} in conformance/models.json`);
  const file = JSON.parse(fs.readFileSync(tracesPath(model), 'utf8')) as TracesFile;
  return {
    model,
    source: `traces/${model.name}.json`,
    graph: stateGraph(model),
    adapter: adapterModel(modelConstants(model)),
    traces: file.traces,
  };
}

/** What a replay did: steps taken and compared, which edges, and where the time went (ms). */
export interface Tally {
  traces: number;
  steps: number;
  /** executed[i] = 1 once edge i of the graph has been taken and its target state compared. */
  executed: Uint8Array;
  /** When the tally began (performance.now()): the wall time of a replay is from there. */
  started: number;
  /** Steps in the traces replayed (more than `steps` when prefixes are shared). */
  traceSteps: number;
  /** Fresh cells opened (one per trace, or per prefix tree). */
  opens: number;
  /** Restores of a snapshot (prefix tree replay): one per branch taken after the first. */
  restores: number;
  /** Opening fresh cells, and restoring snapshots with the read-back that checks them. */
  setupMs: number;
  actionMs: number;
  observeMs: number;
}

export function newTally(r: Replay): Tally {
  return {
    started: performance.now(),
    traceSteps: 0,
    traces: 0,
    steps: 0,
    executed: new Uint8Array(r.graph.edges.length),
    opens: 0,
    restores: 0,
    setupMs: 0,
    actionMs: 0,
    observeMs: 0,
  };
}

export function executedEdges(t: Tally): number {
  return t.executed.reduce((n, x) => n + x, 0);
}

/** The implementation did not do what the spec does at a step. */
export class ConformanceError extends Error {
  override name = 'ConformanceError';
}

const compact = (v: unknown) => JSON.stringify(canonical(v));
const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** One line per differing variable (per differing key of a function or record): expected, then actual. */
export function diffStates(expected: SpecState, actual: SpecState): string[] {
  const lines: string[] = [];
  const names = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
  for (const v of names) {
    const ex = expected[v];
    const ac = actual[v];
    if (compact(ex) === compact(ac)) continue;
    if (isRecord(ex) && isRecord(ac)) {
      for (const k of [...new Set([...Object.keys(ex), ...Object.keys(ac)])]) {
        if (compact(ex[k]) !== compact(ac[k])) {
          lines.push(`${v}.${k}: expected ${compact(ex[k])}, actual ${compact(ac[k])}`);
        }
      }
    } else {
      lines.push(`${v}: expected ${compact(ex)}, actual ${compact(ac)}`);
    }
  }
  return lines;
}

/** The spec's states as canonical JSON text, computed once each. */
const expectedText = new WeakMap<StateGraph, (string | undefined)[]>();
function stateText(g: StateGraph, id: number): string {
  let texts = expectedText.get(g);
  if (!texts) expectedText.set(g, (texts = []));
  return (texts[id] ??= JSON.stringify(canonical(g.states[id])));
}

/** Where a step is: the model, a trace through it (the first of the replay), its step number and label. */
interface At {
  trace: number;
  step: number;
  label: string;
  /** The labels from the initial state up to and including this step. */
  path: readonly string[];
}

function where(r: Replay, at: At): string {
  const steps = r.traces[at.trace]?.steps.length ?? 0;
  return `${r.model.name} trace ${at.trace} (${r.source}), step ${at.step} of ${steps}: ${at.label}`;
}

/** Compares the implementation's state (canonical, as the adapter builds it) with spec state `state`. */
function check(r: Replay, actual: SpecState, state: number, at: At): void {
  if (JSON.stringify(actual) === stateText(r.graph, state)) return;
  const lines = diffStates(r.graph.states[state]!, actual);
  if (lines.length === 0) return; // the same values, keys in another order
  throw new ConformanceError(
    [
      `${where(r, at)}: the implementation's state is not the spec's`,
      ...lines.map((l) => `  ${l}`),
      `  the steps so far: ${at.path.join(', ') || '(none)'}`,
    ].join('\n'),
  );
}

/** Takes the step on the adapter and compares the state it leads to. */
async function takeStep(r: Replay, adapter: Adapter, edgeIndex: number, at: At, tally: Tally): Promise<void> {
  const edge = r.graph.edges[edgeIndex]!;
  let t = performance.now();
  try {
    await adapter.step(edge);
    await adapter.refuseDisabled(r.graph.states[edge.to]!);
  } catch (err) {
    const why =
      err instanceof StepRefused
        ? err.message
        : err instanceof Error
          ? (err.stack ?? err.message)
          : String(err);
    throw new ConformanceError(
      `${where(r, at)}: the implementation could not take it: ${why}\n  the steps so far: ${at.path.join(', ')}`,
    );
  }
  let now = performance.now();
  tally.actionMs += now - t;
  t = now;
  check(r, await adapter.observe(), edge.to, at);
  now = performance.now();
  tally.observeMs += now - t;
  tally.executed[edgeIndex] = 1;
  tally.steps++;
}

const cellOf = (r: Replay, trace: number) => `${r.model.name}.${trace}`;

/**
 * Replays trace `index` alone on a fresh cell of the store; compares after the start and every step.
 * `atEnd` sees the adapter after the last step, before its cell is removed.
 */
export async function replayTrace(
  r: Replay,
  store: Store,
  index: number,
  tally: Tally,
  atEnd?: (adapter: Adapter) => Promise<void>,
): Promise<void> {
  const trace = r.traces[index];
  if (!trace) throw new Error(`${r.model.name} has no trace ${index}`);
  const g = r.graph;
  const t = performance.now();
  const adapter = await Adapter.open({ model: r.adapter, store, cell: cellOf(r, index) });
  tally.opens++;
  try {
    check(r, await adapter.observe(), trace.start, {
      trace: index,
      step: 0,
      label: 'the initial state',
      path: [],
    });
    tally.setupMs += performance.now() - t;
    const path: string[] = [];
    for (const [k, edgeIndex] of edgesOf(r, index).entries()) {
      path.push(g.edges[edgeIndex]!.label);
      await takeStep(r, adapter, edgeIndex, { trace: index, step: k + 1, label: path.at(-1)!, path }, tally);
    }
    tally.traces++;
    tally.traceSteps += trace.steps.length;
    await atEnd?.(adapter);
  } finally {
    await adapter.dispose();
  }
}

/** A node of the traces' prefix tree: a state reached by a sequence of steps, and the steps on from it. */
interface Node {
  state: number;
  /** The edge that leads here (undefined at a root). */
  edge: number | undefined;
  /** The first trace through it, and the step it is there. */
  trace: number;
  step: number;
  children: Map<number, Node>;
}

/** The edges trace `i` of the replay takes. */
function edgesOf(r: Replay, i: number): number[] {
  try {
    return traceEdges(r.graph, r.traces[i]!);
  } catch (err) {
    throw new Error(`${r.model.name} trace ${i}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The prefix tree of traces [from, to): one root per initial state. */
function prefixTree(r: Replay, from: number, to: number): Node[] {
  const g = r.graph;
  const roots = new Map<number, Node>();
  for (let i = from; i < to; i++) {
    const trace = r.traces[i]!;
    let node: Node | undefined = roots.get(trace.start);
    if (!node) {
      node = { state: trace.start, edge: undefined, trace: i, step: 0, children: new Map() };
      roots.set(trace.start, node);
    }
    for (const [k, edge] of edgesOf(r, i).entries()) {
      let child: Node | undefined = node.children.get(edge);
      if (!child) {
        child = { state: g.edges[edge]!.to, edge, trace: i, step: k + 1, children: new Map() };
        node.children.set(edge, child);
      }
      node = child;
    }
  }
  return [...roots.values()];
}

/**
 * Replays traces [from, to) as their prefix tree, depth first: a step shared by several traces is taken
 * once. Where the tree branches the adapter is snapshotted (the cell's keys, the controllers, the adapter's
 * bookkeeping), and restored before each further branch; the restored state is read back and compared with
 * the spec's first, so a restore that missed something fails like a step would.
 */
export async function replayPrefixTree(
  r: Replay,
  store: Store,
  from: number,
  to: number,
  tally: Tally,
): Promise<void> {
  const end = Math.min(to, r.traces.length);
  const g = r.graph;
  for (const root of prefixTree(r, from, end)) {
    let t = performance.now();
    const adapter = await Adapter.open({ model: r.adapter, store, cell: cellOf(r, root.trace) });
    tally.opens++;
    try {
      const rootAt = { trace: root.trace, step: 0, label: 'the initial state', path: [] };
      check(r, await adapter.observe(), root.state, rootAt);
      tally.setupMs += performance.now() - t;
      const path: string[] = [];
      const visit = async (node: Node): Promise<void> => {
        const children = [...node.children.values()];
        const snap = children.length > 1 ? await adapter.snapshot() : undefined;
        for (const [k, child] of children.entries()) {
          if (k > 0) {
            t = performance.now();
            await adapter.restore(snap!);
            const last = path.at(-1) ?? 'the initial state';
            const label = `${last}, restored from a snapshot for trace ${child.trace}`;
            check(r, await adapter.observe(), node.state, {
              trace: child.trace,
              step: node.step,
              label,
              path,
            });
            tally.restores++;
            tally.setupMs += performance.now() - t;
          }
          path.push(g.edges[child.edge!]!.label);
          await takeStep(
            r,
            adapter,
            child.edge!,
            { trace: child.trace, step: child.step, label: path.at(-1)!, path },
            tally,
          );
          await visit(child);
          path.pop();
        }
      };
      await visit(root);
    } finally {
      await adapter.dispose();
    }
  }
  tally.traces += end - from;
  for (let i = from; i < end; i++) tally.traceSteps += r.traces[i]!.steps.length;
}

/** Traces per prefix tree: per generated test. */
export const CHUNK = 200;

/** Replays traces [from, to): as a prefix tree (default), or each trace on its own fresh cell. */
export async function replayTraces(
  r: Replay,
  store: Store,
  from: number,
  to: number,
  tally: Tally,
  mode: 'tree' | 'traces' = 'tree',
): Promise<void> {
  if (mode === 'tree') return replayPrefixTree(r, store, from, to, tally);
  for (let i = from; i < Math.min(to, r.traces.length); i++) await replayTrace(r, store, i, tally);
}

/**
 * The figures of a replay, one line: what was executed and compared, the wall time since the tally
 * began, and where the time of each step went (summed over chunks replayed at once, so more than wall).
 */
export function summary(r: Replay, t: Tally): string {
  const wall = performance.now() - t.started;
  const per = (x: number, n: number) => (n > 0 ? (x / n).toFixed(3) : '-');
  return (
    `${r.model.name}: ${t.traces} traces (${t.traceSteps} steps) replayed as ${t.steps} steps, ` +
    `${executedEdges(t)} of ${r.graph.edges.length} edges executed and compared; wall ${(wall / 1000).toFixed(1)} s ` +
    `(${per(wall, t.steps)} ms per step); per step, in its lane: action ${per(t.actionMs, t.steps)} ms, ` +
    `read-back and compare ${per(t.observeMs, t.steps)} ms; ${t.opens} fresh cells and ${t.restores} ` +
    `restores, ${per(t.setupMs, t.opens + t.restores)} ms each with their read-back`
  );
}

async function main(): Promise<number> {
  const cli = new Command('replay')
    .option('--model <name>', 'one conformance model (default: all)')
    .option('--from <n>', 'first trace', '0')
    .option('--to <n>', 'after the last trace (default: all)')
    .option('--chunk <n>', 'traces per prefix tree (as the generated tests replay them)', String(CHUNK))
    .option('--each', 'replay each trace on its own fresh cell, no prefix sharing')
    .option('--lanes <n>', 'chunks replayed at once', '1')
    .parse();
  const o = cli.opts<{
    model?: string;
    from: string;
    to?: string;
    chunk: string;
    each?: boolean;
    lanes: string;
  }>();
  const server = await startRedis();
  const redis = new Redis({
    host: server.host,
    port: server.port,
    maxRetriesPerRequest: 1,
    enableAutoPipelining: process.env['DHSCHED_AUTOPIPE'] === '1',
  });
  const store = openStore(redis);
  let failed = 0;
  try {
    for (const m of await conformanceModels()) {
      if (o.model !== undefined && m.name !== o.model) continue;
      const t0 = performance.now();
      const r = await loadReplay(m.name);
      console.log(
        `${m.name}: state graph and traces loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
      const tally = newTally(r);
      try {
        const to = o.to === undefined ? r.traces.length : Number(o.to);
        let next = Number(o.from);
        const lane = async () => {
          while (next < to) {
            const from = next;
            next += Number(o.chunk);
            await replayTraces(
              r,
              store,
              from,
              Math.min(to, from + Number(o.chunk)),
              tally,
              o.each ? 'traces' : 'tree',
            );
          }
        };
        await Promise.all(Array.from({ length: Number(o.lanes) }, lane));
      } catch (err) {
        failed++;
        console.error(err instanceof Error ? err.message : err);
      }
      console.log(summary(r, tally));
    }
  } finally {
    await redis.quit();
    await server.stop();
  }
  return failed > 0 ? 1 : 0;
}

if (process.argv[1] && /replay\.[jt]s$/.test(process.argv[1])) process.exitCode = await main();
