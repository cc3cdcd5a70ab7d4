/** The committed conformance traces are what the spec gives now, and together cover every edge. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { coverage } from './cover.js';
import { type TracesFile, tracesFile, tracesPath } from './generate.js';
import { conformanceModels, stateGraph } from './graph.js';

describe('conformance traces', async () => {
  for (const model of await conformanceModels()) {
    it(`${model.name}: committed traces are current and cover every state and edge`, () => {
      const g = stateGraph(model);
      const committed = fs.readFileSync(tracesPath(model), 'utf8');
      expect(committed, 'stale: run ./scripts/conformance-generate').toBe(tracesFile(model, g));
      const c = coverage(g, (JSON.parse(committed) as TracesFile).traces);
      expect(c.edges.covered).toBe(c.edges.total);
      expect(c.states.covered).toBe(c.states.total);
    });
  }
});
