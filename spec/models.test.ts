import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../tlcts/src/check/run.js';
import { tlcTraceJson } from '../tlcts/src/output/format.js';
import { loadManifest, specDir, traceFile, type SpecModel } from './manifest.js';

const models = loadManifest();

describe('spec/models.json', () => {
  it('lists every model configuration in spec/', () => {
    const cfgs = fs.readdirSync(specDir).filter((f) => f.endsWith('.cfg'));
    expect(models.map((m) => m.cfg).sort()).toEqual(cfgs.sort());
  });
});

/** TLC's figures for a model, from ../shared/tlc-reference, where they have been measured. */
function tlcReference(m: SpecModel): Record<string, unknown> | undefined {
  const file = path.join(specDir, '../../shared/tlc-reference', m.cfg.replace(/\.cfg$/, '.json'));
  return fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>)
    : undefined;
}

describe('DHSched models with the project checker', () => {
  for (const m of models.filter((x) => x.size === 'small')) {
    it(`${m.name}: ${m.expect === 'pass' ? 'every property holds' : `violates ${m.expect}`}`, () => {
      const { result, model } = runCheck({
        tlaFile: path.join(specDir, m.tla),
        cfgFile: path.join(specDir, m.cfg),
      });
      if (m.expect === 'pass') {
        expect(result.verdict).toBe('success');
        // A liveness model really checks its temporal properties, under the spec's fairness.
        expect(model!.liveness?.properties.map((p) => p.name) ?? []).toEqual(m.liveness ?? []);
      } else {
        expect(result.violated).toBe(m.expect);
        const committed = fs.readFileSync(traceFile(m), 'utf8');
        expect(tlcTraceJson(model!.vars, result.trace!, result.lasso)).toBe(committed);
      }
      const tlc = tlcReference(m);
      if (tlc) {
        const ours = {
          verdict: result.verdict,
          exitCode: result.exitCode,
          distinctStates: result.distinctStates,
          generatedStates: result.generatedStates,
          depth: result.depth,
        };
        expect(ours).toEqual(Object.fromEntries(Object.keys(ours).map((k) => [k, tlc[k]])));
      }
    });
  }
});
