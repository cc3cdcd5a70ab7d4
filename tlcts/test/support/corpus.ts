/** The TLC conformance corpus (../shared/tlc-corpus): its expected figures and a comparison with ours. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCheck } from '../../src/check/run.js';
import type { CheckResult } from '../../src/check/explore.js';
import { tlcJson } from '../../src/output/format.js';

export interface Expected {
  model: string;
  tla: string;
  cfg: string;
  verdict: string;
  violated?: string;
  propertyKind?: 'temporal' | 'action';
  exitCode: number;
  distinctStates: number | null;
  generatedStates: number | null;
  statesLeftOnQueue?: number | null;
  depth: number | null;
  traceLength?: number;
  traceFile?: string;
  tlcSeconds: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** The corpus folder: $TLC_CORPUS, or shared/tlc-corpus beside or inside the repository. */
export function corpusDir(): string {
  const candidates = [
    process.env.TLC_CORPUS,
    path.resolve(here, '../../../../shared/tlc-corpus'),
    path.resolve(here, '../../../shared/tlc-corpus'),
  ].filter((p): p is string => !!p);
  const found = candidates.find((p) => fs.existsSync(path.join(p, 'expected.json')));
  if (!found) throw new Error(`TLC corpus not found (looked in ${candidates.join(', ')}); set TLC_CORPUS.`);
  return found;
}

export function loadCorpus(): Expected[] {
  return JSON.parse(fs.readFileSync(path.join(corpusDir(), 'expected.json'), 'utf8')) as Expected[];
}

export interface Comparison {
  result: CheckResult;
  /** Differences from TLC's figures; empty when everything compared agrees. */
  mismatches: string[];
  /** What was not compared, and why. */
  notCompared: string[];
}

/** Runs our checker on one corpus model and compares it with TLC's figures and trace. */
export function compareWithTlc(e: Expected): Comparison {
  const dir = corpusDir();
  const { result } = runCheck({ tlaFile: path.join(dir, e.tla), cfgFile: path.join(dir, e.cfg) });
  const mismatches: string[] = [];
  const notCompared: string[] = [];
  const same = (what: string, ours: unknown, theirs: unknown) => {
    if (ours !== theirs)
      mismatches.push(`${what}: ours ${JSON.stringify(ours)}, TLC ${JSON.stringify(theirs)}`);
  };
  const temporalOnly = result.verdict === 'properties not checked';
  if (temporalOnly) {
    notCompared.push(
      `verdict and exit code: temporal properties ${result.unchecked.join(', ')} are not checked yet`,
    );
    if (e.verdict !== 'success' && e.propertyKind !== 'temporal') same('verdict', result.verdict, e.verdict);
  } else {
    same('verdict', result.verdict, e.verdict);
    same('exit code', result.exitCode, e.exitCode);
    if (e.violated && result.violated !== undefined) same('violated', result.violated, e.violated);
  }
  same('distinct states', result.distinctStates, e.distinctStates);
  same('depth', result.depth, e.depth);
  same('states generated', result.generatedStates, e.generatedStates);
  if (e.statesLeftOnQueue !== undefined)
    same('states left on queue', result.statesLeftOnQueue, e.statesLeftOnQueue);
  if (e.traceLength !== undefined && !temporalOnly && e.propertyKind !== 'temporal') {
    same('trace length', result.trace?.length, e.traceLength);
  }
  if (e.traceFile && !temporalOnly && e.propertyKind !== 'temporal' && result.trace) {
    const tlc = JSON.parse(fs.readFileSync(path.join(dir, e.traceFile), 'utf8')) as {
      counterexample: {
        state: [number, Record<string, unknown>][];
        action: [unknown, { name: string; context?: Record<string, unknown> }, unknown][];
      };
      vars: string[];
    };
    const vars = tlc.vars;
    tlc.counterexample.state.forEach(([i, st], k) => {
      const ours = result.trace![k];
      if (!ours) return;
      for (const v of vars) {
        const idx = vars.indexOf(v);
        const mine = JSON.stringify(tlcJson(ours.state[idx]!));
        if (mine !== JSON.stringify(st[v]))
          mismatches.push(`trace state ${i}, ${v}: ours ${mine}, TLC ${JSON.stringify(st[v])}`);
      }
    });
    tlc.counterexample.action.forEach(([, a], k) => {
      const ours = result.trace![k + 1]?.action;
      if (ours && ours.name !== a.name)
        mismatches.push(`trace step ${k + 2} action: ours ${ours.name}, TLC ${a.name}`);
    });
  }
  return { result, mismatches, notCompared };
}
