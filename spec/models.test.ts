import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../tlcts/src/check/run.js';
import { tlcTraceJson } from '../tlcts/src/output/format.js';
import { loadManifest, specDir, traceFile } from './manifest.js';

const models = loadManifest();

describe('spec/models.json', () => {
  it('lists every model configuration in spec/', () => {
    const cfgs = fs.readdirSync(specDir).filter((f) => f.endsWith('.cfg'));
    expect(models.map((m) => m.cfg).sort()).toEqual(cfgs.sort());
  });
});

describe('DHSched models with the project checker', () => {
  for (const m of models.filter((x) => x.size === 'small')) {
    it(`${m.name}: ${m.expect === 'pass' ? 'every property holds' : `violates ${m.expect}`}`, () => {
      const { result, model } = runCheck({
        tlaFile: path.join(specDir, m.tla),
        cfgFile: path.join(specDir, m.cfg),
      });
      if (m.expect === 'pass' && m.liveness) {
        // The safety part is checked exhaustively; liveness waits for the temporal checker (TLC checks it).
        expect(result.verdict).toBe('properties not checked');
        expect(result.unchecked).toEqual(m.liveness);
      } else if (m.expect === 'pass') {
        expect(result.verdict).toBe('success');
      } else {
        expect(result.violated).toBe(m.expect);
        const committed = fs.readFileSync(traceFile(m), 'utf8');
        expect(tlcTraceJson(model!.vars, result.trace!)).toBe(committed);
      }
    });
  }
});
