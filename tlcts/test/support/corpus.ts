/** The TLC conformance corpus (tlcts/test/tlc-corpus): its expected figures and a comparison with ours. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCheck } from '../../src/check/run.js';
import type { CheckResult } from '../../src/check/result.js';
import type { OutDegreeSummary } from '../../src/check/outdegree.js';
import { tlcJson, tlcTraceJson } from '../../src/output/format.js';

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
  lasso?: { kind: 'stuttering' | 'back to state'; state?: number };
  traceFile?: string;
  tlcSeconds: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** The corpus folder: specs with what real TLC reported for them (see its README). */
export function corpusDir(): string {
  return path.resolve(here, '../tlc-corpus');
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

/** A lasso as a few words: `3 + stuttering`, `6, back to 3`. */
function lassoText(length: number, loopTo: number | 'stuttering'): string {
  return loopTo === 'stuttering' ? `${length} + stuttering` : `${length}, back to ${loopTo}`;
}

function lassoShape(r: CheckResult): string | undefined {
  if (!r.trace || !r.lasso) return undefined;
  return lassoText(r.trace.length, r.lasso.action ? r.lasso.loop + 1 : 'stuttering');
}

/** The figures of TLC's "average outdegree" line in its log (printed on success), if any. */
function tlcOutDegree(logFile: string): OutDegreeSummary | undefined {
  if (!fs.existsSync(logFile)) return undefined;
  const m =
    /The average outdegree of the complete state graph is (\d+) \(minimum is (\d+), the maximum (\d+) and the 95th percentile is (\d+)\)/.exec(
      fs.readFileSync(logFile, 'utf8'),
    );
  if (!m) return undefined;
  const [mean, min, max, p95] = m.slice(1).map(Number) as [number, number, number, number];
  return { mean, min, max, p95 };
}

/** Seeds (-fp) that shuffle the successors of every state; 0 keeps the order they were generated in. */
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/**
 * Runs our checker on one corpus model and compares it with TLC's figures and trace.
 *
 * Compared for every model: verdict, exit code, the violated invariant or property, distinct and
 * generated states, states left on queue, depth. Safety counterexamples: their length, every state
 * and every action name. Temporal counterexamples (lassos): TLC keeps a state's successors in the
 * order of their fingerprints, so which lasso it reports depends on the fingerprint seed (the corpus
 * used -fp 0). The lasso's shape (its length, and where it loops back) is compared when tlcts finds
 * the same shape with its successors shuffled by every seed of SEEDS (-fp), and its states and
 * actions when those are the same too; what depends on the order is listed as not compared.
 */
export function compareWithTlc(e: Expected): Comparison {
  const dir = corpusDir();
  const run = (fp?: number) =>
    runCheck({
      tlaFile: path.join(dir, e.tla),
      cfgFile: path.join(dir, e.cfg),
      ...(fp === undefined ? {} : { fp }),
    });
  const { result, model } = run();
  const mismatches: string[] = [];
  const notCompared: string[] = [];
  const same = (what: string, ours: unknown, theirs: unknown) => {
    if (ours !== theirs)
      mismatches.push(`${what}: ours ${JSON.stringify(ours)}, TLC ${JSON.stringify(theirs)}`);
  };
  same('verdict', result.verdict, e.verdict);
  same('exit code', result.exitCode, e.exitCode);
  if (e.violated) same('violated', result.violated, e.violated);
  same('distinct states', result.distinctStates, e.distinctStates);
  same('depth', result.depth, e.depth);
  same('states generated', result.generatedStates, e.generatedStates);
  if (e.statesLeftOnQueue !== undefined)
    same('states left on queue', result.statesLeftOnQueue, e.statesLeftOnQueue);
  const outDegree = tlcOutDegree(path.join(dir, e.cfg.replace(/\.cfg$/, '.tlc.log')));
  if (outDegree) same('out-degree line', JSON.stringify(result.outDegree), JSON.stringify(outDegree));
  let compareStates = e.traceLength !== undefined;
  if (e.lasso && e.traceLength !== undefined) {
    const theirs = lassoText(e.traceLength, e.lasso.kind === 'stuttering' ? 'stuttering' : e.lasso.state!);
    const states = (r: CheckResult) => JSON.stringify(r.trace?.map((t) => t.state.map(tlcJson)));
    const others = SEEDS.map((fp) => run(fp).result);
    const shapes = others.map(lassoShape);
    const ours = lassoShape(result);
    const sameShape = shapes.every((x) => x === ours);
    const ourStates = states(result);
    compareStates = others.every((r) => states(r) === ourStates);
    if (sameShape) same('lasso', ours, theirs);
    else
      notCompared.push(
        `the lasso: it depends on the order of successors (ours ${ours}; ${shapes.join('; ')} with -fp ${SEEDS.join(', ')}; TLC ${theirs})`,
      );
    if (!compareStates && sameShape)
      notCompared.push("the lasso's states: they depend on the order of successors");
  } else if (compareStates) same('trace length', result.trace?.length, e.traceLength);
  if (e.traceFile && compareStates && result.trace && model) {
    // Our -dumpTrace json against TLC's: every state, and every action's name (a lasso's last
    // action goes back to where its loop starts).
    type Dump = {
      counterexample: {
        state: [number, Record<string, unknown>][];
        action: [unknown, { name: string }, unknown][];
      };
    };
    const tlc = JSON.parse(fs.readFileSync(path.join(dir, e.traceFile), 'utf8')) as Dump;
    const ours = JSON.parse(tlcTraceJson(model.vars, result.trace, result.lasso)) as Dump;
    tlc.counterexample.state.forEach(([i, st], k) => {
      const mine = ours.counterexample.state[k]?.[1];
      if (mine && JSON.stringify(mine) !== JSON.stringify(st))
        mismatches.push(`trace state ${i}: ours ${JSON.stringify(mine)}, TLC ${JSON.stringify(st)}`);
    });
    tlc.counterexample.action.forEach(([, a], k) => {
      const mine = ours.counterexample.action[k]?.[1];
      if (mine && mine.name !== a.name)
        mismatches.push(`trace action ${k + 1}: ours ${mine.name}, TLC ${a.name}`);
    });
  }
  return { result, mismatches, notCompared };
}
