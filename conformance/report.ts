/**
 * Coverage of the committed conformance traces over each model's state graph: states, edges, and edges
 * per action. The last line is `edges covered: X of Y` over every conformance model.
 */
import fs from 'node:fs';
import { coverage } from './cover.js';
import { type TracesFile, tracesPath } from './generate.js';
import { conformanceModels, stateGraph } from './graph.js';

let covered = 0;
let total = 0;
for (const model of await conformanceModels()) {
  const g = stateGraph(model);
  const file = JSON.parse(fs.readFileSync(tracesPath(model), 'utf8')) as TracesFile;
  const c = coverage(g, file.traces);
  console.log(`${model.name} (${file.cfg}): ${c.traces} traces, ${c.steps} steps`);
  console.log(`  states covered: ${c.states.covered} of ${c.states.total}`);
  console.log(`  edges covered: ${c.edges.covered} of ${c.edges.total}`);
  for (const [action, a] of Object.entries(c.byAction).sort()) {
    console.log(`    ${action.padEnd(14)} ${String(a.covered).padStart(6)} of ${a.total}`);
  }
  covered += c.edges.covered;
  total += c.edges.total;
}
console.log(`edges covered: ${covered} of ${total}`);
