/**
 * The committed conformance traces and their replay tests are what the spec gives now, and the traces
 * together cover every edge.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { coverage } from './cover.js';
import { type TracesFile, generatedFiles, tracesPath } from './generate.js';
import { conformanceModels, stateGraph } from './graph.js';

describe('conformance traces', async () => {
  for (const model of await conformanceModels()) {
    it(`${model.name}: committed traces and replay tests are current; the traces cover every state and edge`, () => {
      const g = stateGraph(model);
      for (const [file, text] of generatedFiles(model, g)) {
        const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '(missing)';
        expect(committed, `${file} is stale: run ./scripts/conformance-generate`).toBe(text);
      }
      const committed = fs.readFileSync(tracesPath(model), 'utf8');
      const c = coverage(g, (JSON.parse(committed) as TracesFile).traces);
      expect(c.edges.covered).toBe(c.edges.total);
      expect(c.states.covered).toBe(c.states.total);
    });
  }
});
