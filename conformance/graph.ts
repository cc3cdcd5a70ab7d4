/**
 * The reachable state graph of a conformance model, from the embedded checker: every distinct state as
 * plain JSON (numbers, strings, booleans, arrays for sequences and sets, objects for records and
 * functions), every labelled edge, and each state's out-edges in a fixed order (by label, then target),
 * so that a step can be named by its index there and the same spec always gives the same traces.
 *
 * Plain JSON is canonical: object keys sorted, set elements sorted by their JSON text without duplicates
 * (`canonical`, `setOf`), so that the adapter, which builds the implementation's state with the same two
 * functions, is compared with the spec's state by JSON text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseCfg } from '../tlcts/src/cfg/parse.js';
import type { CfgValue } from '../tlcts/src/cfg/types.js';
import type { StepLabel } from '../tlcts/src/check/result.js';
import { runCheck } from '../tlcts/src/check/run.js';
import { itfValue, labelText } from '../tlcts/src/output/format.js';
import type { Value } from '../tlcts/src/values/value.js';

export const conformanceDir = path
  .dirname(fileURLToPath(import.meta.url))
  .replace(/[/\\]dist[/\\]conformance$/, '/conformance');

const ModelsFile = z.object({
  spec: z.string(),
  models: z.array(z.object({ name: z.string().regex(/^[A-Za-z0-9_]+$/), cfg: z.string() })).min(1),
});

export interface ConformanceModel {
  name: string;
  tla: string;
  cfg: string;
}

export async function conformanceModels(): Promise<ConformanceModel[]> {
  const file = ModelsFile.parse(
    JSON.parse(fs.readFileSync(path.join(conformanceDir, 'models.json'), 'utf8')),
  );
  return file.models.map((m) => ({
    name: m.name,
    tla: path.join(conformanceDir, file.spec),
    cfg: path.join(conformanceDir, m.cfg),
  }));
}

export type SpecState = Record<string, unknown>;

export interface Edge {
  from: number;
  to: number;
  /** The action with its parameters, as TLC prints it: `Claim(w1, s1, 1)`. */
  label: string;
  action: string;
  params: Record<string, unknown>;
}

export interface StateGraph {
  vars: string[];
  /** Indexed by state id. */
  states: SpecState[];
  initial: number[];
  edges: Edge[];
  /** out[id]: indices into `edges`, ordered by label, then target id. */
  out: number[][];
}

/** Plain JSON with every object's keys sorted (arrays keep their order: a sequence's is its meaning). */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
  );
}

/** A set as plain JSON: its elements, canonical, sorted by their JSON text, each once. */
export function setOf(elements: Iterable<unknown>): unknown[] {
  const byText = new Map<string, unknown>();
  for (const e of elements) {
    const c = canonical(e);
    byText.set(JSON.stringify(c), c);
  }
  return [...byText.keys()].sort().map((k) => byText.get(k));
}

/** An ITF value as canonical plain JSON: sets become sorted arrays (`setOf`), model values their names. */
export function plain(itf: unknown): unknown {
  if (Array.isArray(itf)) return itf.map(plain);
  if (itf === null || typeof itf !== 'object') return itf;
  const o = itf as Record<string, unknown>;
  if ('#bigint' in o) return Number(o['#bigint']);
  if ('#unserializable' in o) return o['#unserializable'];
  if ('#set' in o) return setOf((o['#set'] as unknown[]).map(plain));
  if ('#map' in o) {
    const pairs = (o['#map'] as [unknown, unknown][]).map(([k, v]) => [plain(k), plain(v)] as const);
    return pairs.every(([k]) => typeof k === 'string') ? canonical(Object.fromEntries(pairs)) : pairs;
  }
  return canonical(Object.fromEntries(Object.entries(o).map(([k, v]) => [k, plain(v)])));
}

/** A constant of the model's .cfg as plain JSON: model values by name, sets as `setOf`. */
function cfgPlain(v: CfgValue): unknown {
  switch (v.kind) {
    case 'int':
    case 'string':
    case 'bool':
      return v.value;
    case 'modelValue':
      return v.name;
    case 'set':
      return setOf(v.elements.map(cfgPlain));
    case 'tuple':
      return v.elements.map(cfgPlain);
  }
}

/** The constants the model's .cfg assigns values to (`C = value`), as plain JSON. */
export function modelConstants(model: ConformanceModel): Record<string, unknown> {
  const config = parseCfg(fs.readFileSync(model.cfg, 'utf8'), model.cfg);
  return Object.fromEntries(
    config.constants.flatMap((c) => (c.kind === 'value' ? [[c.name, cfgPlain(c.value)]] : [])),
  );
}

/** A checker value as canonical plain JSON. */
export const toPlain = (v: Value) => plain(itfValue(v));

/** A checker state (its variables' values in `vars` order) as a spec state of plain JSON. */
export const stateOf = (vars: readonly string[], values: Value[]): SpecState =>
  Object.fromEntries(vars.map((v, i) => [v, toPlain(values[i]!)]));

/** The edge of a labelled step, its parameters as plain JSON. */
export function edgeOf(from: number, to: number, label: StepLabel): Edge {
  return {
    from,
    to,
    label: labelText(label),
    action: label.name,
    params: Object.fromEntries(label.params.map(([n, v]) => [n, toPlain(v)])),
  };
}

export function stateGraph(model: ConformanceModel): StateGraph {
  const raw: Value[][] = [];
  const initial: number[] = [];
  const edges: Edge[] = [];
  const seen = new Set<string>();
  const { result, model: loaded } = runCheck({
    tlaFile: model.tla,
    cfgFile: model.cfg,
    onState: (id, state, isInitial) => {
      raw[id] = state;
      if (isInitial) initial.push(id);
    },
    onEdge: (from, to, label) => {
      const text = labelText(label);
      const key = `${from} ${to} ${text}`;
      if (seen.has(key)) return;
      seen.add(key);
      edges.push(edgeOf(from, to, label));
    },
  });
  if (result.verdict !== 'success' || !loaded) {
    throw new Error(
      `${model.name}: the model checker ended with ${result.verdict}; a conformance model must pass`,
    );
  }
  const vars = [...loaded.vars];
  const states = raw.map((s) => stateOf(vars, s));
  const out: number[][] = states.map(() => []);
  edges.forEach((e, i) => out[e.from]!.push(i));
  for (const list of out) {
    list.sort((a, b) => {
      const ea = edges[a]!;
      const eb = edges[b]!;
      return ea.label < eb.label ? -1 : ea.label > eb.label ? 1 : ea.to - eb.to;
    });
  }
  return { vars, states, initial: initial.sort((a, b) => a - b), edges, out };
}
