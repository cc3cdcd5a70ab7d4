/**
 * Traces that together cover every edge of a state graph, each starting in an initial state. A walk
 * takes an uncovered out-edge whenever it can; when it cannot, it goes by a shortest path to the nearest
 * state that has one; a trace ends at `maxSteps` steps, or where nothing uncovered is reachable, and the
 * next starts again from an initial state. Deterministic: the same graph gives the same traces.
 */
import type { StateGraph } from './graph.js';

/** A trace: its initial state and, per step, the index of the edge taken among the current state's out-edges. */
export interface Trace {
  start: number;
  steps: number[];
}

export function coverEdges(g: StateGraph, maxSteps = 400): Trace[] {
  const covered = new Uint8Array(g.edges.length);
  let remaining = g.edges.length;
  /** next[u]: the first position of out[u] that may still be uncovered. */
  const next = new Int32Array(g.states.length);
  const firstUncovered = (u: number): number => {
    const list = g.out[u]!;
    while (next[u]! < list.length && covered[list[next[u]!]!]) next[u]!++;
    return next[u]! < list.length ? next[u]! : -1;
  };
  /** Positions (in out-lists) of a shortest path from u to a state with an uncovered out-edge. */
  const pathToUncovered = (u: number): number[] | undefined => {
    if (firstUncovered(u) >= 0) return [];
    const via = new Int32Array(g.states.length).fill(-1);
    const viaPos = new Int32Array(g.states.length);
    via[u] = u;
    const queue = [u];
    for (let head = 0; head < queue.length; head++) {
      const x = queue[head]!;
      const list = g.out[x]!;
      for (let pos = 0; pos < list.length; pos++) {
        const y = g.edges[list[pos]!]!.to;
        if (via[y] !== -1) continue;
        via[y] = x;
        viaPos[y] = pos;
        if (firstUncovered(y) >= 0) {
          const path: number[] = [];
          for (let z = y; z !== u; z = via[z]!) path.push(viaPos[z]!);
          return path.reverse();
        }
        queue.push(y);
      }
    }
    return undefined;
  };

  const traces: Trace[] = [];
  const startTrace = (): { trace: Trace; at: number } | undefined => {
    for (const start of g.initial) {
      const path = pathToUncovered(start);
      if (!path) continue;
      const trace: Trace = { start, steps: [] };
      let at = start;
      for (const pos of path) {
        covered[g.out[at]![pos]!] || remaining--;
        covered[g.out[at]![pos]!] = 1;
        trace.steps.push(pos);
        at = g.edges[g.out[at]![pos]!]!.to;
      }
      return { trace, at };
    }
    return undefined;
  };

  while (remaining > 0) {
    const begun = startTrace();
    if (!begun) throw new Error(`${remaining} edges are unreachable from the initial states`);
    let { trace, at } = begun;
    while (remaining > 0 && trace.steps.length < maxSteps) {
      let pos = firstUncovered(at);
      if (pos < 0) {
        const path = pathToUncovered(at);
        if (!path || path.length === 0) break;
        pos = path[0]!;
      }
      const e = g.out[at]![pos]!;
      if (!covered[e]) {
        covered[e] = 1;
        remaining--;
      }
      trace.steps.push(pos);
      at = g.edges[e]!.to;
    }
    traces.push(trace);
  }
  return traces;
}

/** The edges (indices into g.edges) a trace takes; throws if a step names no out-edge of its state. */
export function traceEdges(g: StateGraph, trace: Trace): number[] {
  if (!g.initial.includes(trace.start)) throw new Error(`state ${trace.start} is not initial`);
  const out: number[] = [];
  let at = trace.start;
  for (const [k, pos] of trace.steps.entries()) {
    const e = g.out[at]?.[pos];
    if (e === undefined) throw new Error(`step ${k + 1}: state ${at} has no out-edge ${pos}`);
    out.push(e);
    at = g.edges[e]!.to;
  }
  return out;
}

export interface Coverage {
  states: { covered: number; total: number };
  edges: { covered: number; total: number };
  steps: number;
  traces: number;
  byAction: Record<string, { covered: number; total: number }>;
}

/** What the traces cover of the graph: states, edges and edges per action. */
export function coverage(g: StateGraph, traces: Trace[]): Coverage {
  const seenEdges = new Set<number>();
  let steps = 0;
  for (const t of traces) {
    for (const e of traceEdges(g, t)) {
      seenEdges.add(e);
      steps++;
    }
  }
  return edgeCoverage(g, seenEdges, new Set(traces.map((t) => t.start)), { steps, traces: traces.length });
}

/** What a set of edges (indices) covers of the graph, with the initial states they start from. */
export function edgeCoverage(
  g: StateGraph,
  edges: ReadonlySet<number>,
  starts: ReadonlySet<number>,
  counts: { steps: number; traces: number },
): Coverage {
  const seenStates = new Set(starts);
  for (const i of edges) seenStates.add(g.edges[i]!.to);
  const byAction: Coverage['byAction'] = {};
  g.edges.forEach((e, i) => {
    const a = (byAction[e.action] ??= { covered: 0, total: 0 });
    a.total++;
    if (edges.has(i)) a.covered++;
  });
  return {
    states: { covered: seenStates.size, total: g.states.length },
    edges: { covered: edges.size, total: g.edges.length },
    ...counts,
    byAction,
  };
}
