/**
 * Writes the traces of every conformance model (conformance/models.json) to conformance/traces/<Model>.json:
 * edge-covering traces of the model's state graph (cover.ts), each a start state and one out-edge index
 * per step, plus the figures a reader checks them by. `--check` writes nothing and fails if a committed
 * file differs from what the spec gives now (CI runs it through conformance/traces.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { type Trace, coverEdges } from './cover.js';
import { type ConformanceModel, conformanceDir, conformanceModels, stateGraph } from './graph.js';

export const tracesDir = path.join(conformanceDir, 'traces');

export interface TracesFile {
  model: string;
  /** The spec and model files, relative to conformance/. */
  spec: string;
  cfg: string;
  states: number;
  edges: number;
  steps: number;
  traces: Trace[];
}

export function tracesFile(model: ConformanceModel, g = stateGraph(model)): string {
  const traces = coverEdges(g);
  const file: TracesFile = {
    model: model.name,
    spec: path.relative(conformanceDir, model.tla),
    cfg: path.relative(conformanceDir, model.cfg),
    states: g.states.length,
    edges: g.edges.length,
    steps: traces.reduce((n, t) => n + t.steps.length, 0),
    traces,
  };
  // one trace per line: diffs stay readable
  const { traces: _t, ...head } = file;
  const lines = traces.map((t) => `    ${JSON.stringify(t)}`);
  return `${JSON.stringify(head, null, 2).replace(/\n}$/, ',\n  "traces": [\n')}${lines.join(',\n')}\n  ]\n}\n`;
}

export function tracesPath(model: ConformanceModel): string {
  return path.join(tracesDir, `${model.name}.json`);
}

async function main(): Promise<number> {
  const cli = new Command('generate')
    .option('--check', 'fail if a committed file is stale; write nothing')
    .parse();
  const check = cli.opts<{ check?: boolean }>().check ?? false;
  let stale = 0;
  for (const model of await conformanceModels()) {
    const text = tracesFile(model);
    const file = tracesPath(model);
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    if (current === text) {
      console.log(`${model.name}: up to date`);
    } else if (check) {
      console.log(
        `${model.name}: STALE (${path.relative(process.cwd(), file)}); run ./scripts/conformance-generate`,
      );
      stale++;
    } else {
      fs.mkdirSync(tracesDir, { recursive: true });
      fs.writeFileSync(file, text);
      console.log(`${model.name}: written ${path.relative(process.cwd(), file)}`);
    }
  }
  return stale > 0 ? 1 : 0;
}

if (process.argv[1] && /generate\.[jt]s$/.test(process.argv[1])) process.exitCode = await main();
