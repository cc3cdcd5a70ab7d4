import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../tlcts/src/check/run.js';
import { tlcTraceJson } from '../tlcts/src/output/format.js';
import { loadManifest, specDir, traceFile, type SpecModel } from './manifest.js';
import { loadTlcReference, withoutLocations } from './tlc-reference.js';

const models = loadManifest();
const reference = loadTlcReference();

describe('spec/models.json', () => {
  it('lists every model configuration in spec/', () => {
    const cfgs = fs.readdirSync(specDir).filter((f) => f.endsWith('.cfg'));
    expect(models.map((m) => m.cfg).sort()).toEqual(cfgs.sort());
  });

  it("has TLC's figures for every model, but those added since TLC last ran", () => {
    const missing = models.filter((m) => !reference.figures.has(m.cfg)).map((m) => m.name);
    expect(missing).toEqual(models.filter((m) => m.tlcPending).map((m) => m.name));
    for (const cfg of reference.figures.keys()) expect(models.map((m) => m.cfg)).toContain(cfg);
  });
});

/** tlcts's run of one model, compared with what it must show and with what TLC reported. */
function check(m: SpecModel): void {
  const { result, model } = runCheck({
    tlaFile: path.join(specDir, m.tla),
    cfgFile: path.join(specDir, m.cfg),
  });
  const ours = tlcTraceJson(model!.vars, result.trace ?? [], result.lasso);
  if (m.expect === 'pass') {
    expect(result.verdict).toBe('success');
    // A liveness model really checks its temporal properties, under the spec's fairness.
    expect(model!.liveness?.properties.map((p) => p.name) ?? []).toEqual(m.liveness ?? []);
  } else {
    expect(result.violated).toBe(m.expect);
    expect(ours).toBe(fs.readFileSync(traceFile(m), 'utf8'));
  }
  const tlc = reference.figures.get(m.cfg);
  if (!tlc) return;
  expect({
    exitCode: result.exitCode,
    violated: result.message?.replace(/\.$/, '') ?? null,
    distinctStates: result.distinctStates,
    generatedStates: result.generatedStates,
    depth: result.depth,
  }).toEqual({
    exitCode: tlc.exitCode,
    violated: tlc.violated,
    distinctStates: tlc.distinctStates,
    generatedStates: tlc.generatedStates,
    depth: tlc.depth,
  });
  // TLC's counterexample: the same states, actions and parameters. Source locations are left out: they
  // move with every edit above an action, and TLC's figures are refreshed only from time to time.
  const theirs = reference.trace(m.cfg);
  expect(theirs === undefined).toBe(m.expect === 'pass');
  if (theirs !== undefined) expect(withoutLocations(JSON.parse(ours))).toEqual(withoutLocations(theirs));
}

describe('DHSched models with the project checker, against TLC', () => {
  for (const m of models.filter((x) => x.size === 'small')) {
    const what = m.expect === 'pass' ? 'every property holds' : `violates ${m.expect}`;
    it(`${m.name}: ${what}${m.tlcPending ? ' (TLC has not run it yet)' : ''}`, () => check(m));
  }
});
