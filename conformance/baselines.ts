/**
 * The unsafe baselines' counterexamples on the real implementation. Each baseline model of spec/
 * (AssignmentTime, ClaimOnly, WorkerIdOnly: Protocol other than "dhsched", no seeded bug) fails
 * NoStaleRelease; the embedded checker gives its counterexample, a path of labelled steps. That path is
 * replayed through the adapter twice:
 *   - on a store in the baseline's mode, compared with the baseline's states after every step: the real
 *     code performs the stale release the spec predicts;
 *   - on a store in DHSched mode, compared with DHSched's states reached by the same steps (the same labels
 *     followed in the state graph of the model with Protocol = "dhsched"): the stale step is refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { runCheck } from '../tlcts/src/check/run.js';
import { adapterModel } from './adapter.js';
import {
  type ConformanceModel,
  type Edge,
  type SpecState,
  type StateGraph,
  conformanceDir,
  edgeOf,
  modelConstants,
  stateGraph,
  stateOf,
} from './graph.js';
import type { Replay } from './replay.js';

const specRoot = path.join(conformanceDir, '..', 'spec');

const SpecModels = z.object({
  models: z.array(
    z.object({
      name: z.string(),
      tla: z.string(),
      cfg: z.string(),
      protocol: z.string(),
      expect: z.string(),
    }),
  ),
});

/** spec/'s baseline models: a Protocol other than DHSched's, no seeded bug, and a stale release to find. */
export function baselineModels(): ConformanceModel[] {
  const file = SpecModels.parse(JSON.parse(fs.readFileSync(path.join(specRoot, 'models.json'), 'utf8')));
  return file.models
    .filter((m) => m.protocol !== 'dhsched' && m.expect === 'NoStaleRelease')
    .map((m) => ({ name: m.name, tla: path.join(specRoot, m.tla), cfg: path.join(specRoot, m.cfg) }))
    .filter((m) => modelConstants(m)['Bug'] === 'none');
}

/** A path as a replayable model: its states in order, one edge from each to the next, one trace. */
function pathReplay(model: ConformanceModel, source: string, states: SpecState[], edges: Edge[]): Replay {
  const graph: StateGraph = {
    vars: Object.keys(states[0]!),
    states,
    initial: [0],
    edges,
    out: states.map((_, i) => (i < edges.length ? [i] : [])),
  };
  return {
    model,
    source,
    graph,
    adapter: adapterModel(modelConstants(model)),
    traces: [{ start: 0, steps: edges.map(() => 0) }],
  };
}

/** The checker's counterexample of a baseline model, as a one-trace replay in the baseline's mode. */
export function counterexample(model: ConformanceModel): Replay {
  const { result, model: loaded } = runCheck({ tlaFile: model.tla, cfgFile: model.cfg });
  if (result.verdict !== 'invariant violated' || result.violated !== 'NoStaleRelease' || !result.trace) {
    throw new Error(`${model.name}: expected NoStaleRelease to be violated, got ${result.verdict}`);
  }
  const states = result.trace.map((t) => stateOf(loaded!.vars, t.state));
  const edges = result.trace.slice(1).map((t, i) => edgeOf(i, i + 1, t.action!));
  return pathReplay(model, `the counterexample of spec/${path.basename(model.cfg)}`, states, edges);
}

/**
 * The same steps, by label, taken by DHSched (the model with Protocol = "dhsched" instead), up to the
 * first one DHSched does not enable.
 */
export function inDHSched(baseline: Replay): Replay {
  const cfg = fs
    .readFileSync(baseline.model.cfg, 'utf8')
    .replace(/^(\s*Protocol\s*=\s*)"[a-z_]+"/m, '$1"dhsched"');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-baseline-'));
  const model: ConformanceModel = {
    name: `${baseline.model.name}InDHSched`,
    tla: baseline.model.tla,
    cfg: path.join(dir, `${baseline.model.name}InDHSched.cfg`),
  };
  try {
    fs.writeFileSync(model.cfg, cfg);
    const g = stateGraph(model);
    const first = JSON.stringify(baseline.graph.states[0]);
    let at = g.initial.find((i) => JSON.stringify(g.states[i]) === first);
    if (at === undefined) throw new Error(`${model.name}: no initial state is the baseline's`);
    const states = [g.states[at]!];
    const edges: Edge[] = [];
    for (const [k, step] of baseline.graph.edges.entries()) {
      const e: Edge | undefined = g.out[at]!.map((i) => g.edges[i]!).find((x) => x.label === step.label);
      if (!e) break; // an earlier refusal disabled it (a runtime never started cannot reconstruct)
      edges.push({ ...e, from: k, to: k + 1 });
      states.push(g.states[e.to]!);
      at = e.to;
    }
    return pathReplay(
      model,
      `the counterexample of spec/${path.basename(baseline.model.cfg)}`,
      states,
      edges,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
