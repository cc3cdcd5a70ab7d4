/** Simulation (`-simulate`): seeded random behaviours of bounded length, checked against the invariants. */
import { TlaError } from '../errors.js';
import { EvalError } from '../values/errors.js';
import type { Value } from '../values/value.js';
import { ROOT_FRAME } from '../eval/runtime.js';
import { loadModel, type Model } from './model.js';
import { makeHost, reportLoadFailure } from './run.js';
import { actionLabel } from './explore.js';
import type { TraceState } from './result.js';
import { formatTrace } from '../output/format.js';

export interface SimulateOptions {
  tlaFile: string;
  cfgFile: string;
  out: (line: string) => void;
  depth: number;
  seed: number;
  behaviours: number;
}

/** mulberry32: a small, well-mixed seeded generator. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function successors(m: Model, s: Value[]): TraceState[] {
  const n = m.vars.length;
  const t: Value[] = new Array(n);
  const out: TraceState[] = [];
  m.labelledNext()({ s, t, f: ROOT_FRAME }, () => {
    const succ = t.slice();
    if (m.constraints.every((c) => c(succ)) && m.actionConstraints.every((c) => c(s, succ))) {
      out.push({ state: succ, action: actionLabel(m.compiler, s, succ) });
    }
  });
  return out;
}

function initialStates(m: Model): Value[][] {
  const partial: Value[] = new Array(m.vars.length);
  const out: Value[][] = [];
  m.init({ s: partial, t: null, f: ROOT_FRAME }, () => {
    const s = partial.slice();
    if (m.constraints.every((c) => c(s))) out.push(s);
  });
  return out;
}

/** Returns TLC's exit code: 0, or the code of the first violation found. */
export function simulate(opts: SimulateOptions): number {
  const { out } = opts;
  const start = Date.now();
  let m: Model;
  try {
    m = loadModel({ tlaFile: opts.tlaFile, cfgFile: opts.cfgFile, host: makeHost(out, () => ({})) });
  } catch (err) {
    if (!(err instanceof TlaError)) throw err;
    return reportLoadFailure(err, start, out).exitCode;
  }
  out(`Running Random Simulation with seed ${opts.seed}.`);
  const random = rng(opts.seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
  const fail = (message: string, trace: TraceState[], code: number) => {
    out(`Error: ${message}`);
    out('Error: The behavior up to this point is:');
    out(formatTrace(m.vars, trace));
    out(`The seed that reproduces this run: -seed ${opts.seed}`);
    return code;
  };
  let steps = 0;
  try {
    const inits = initialStates(m);
    if (inits.length === 0) throw new TlaError('No initial state satisfies the initial predicate.', 75);
    for (let b = 0; b < opts.behaviours; b++) {
      const trace: TraceState[] = [{ state: pick(inits) }];
      for (;;) {
        const cur = trace[trace.length - 1]!;
        const bad = m.invariants.find((inv) => !inv.check(cur.state));
        if (bad) return fail(`Invariant ${bad.name} is violated.`, trace, 12);
        if (trace.length >= opts.depth) break;
        const next = successors(m, cur.state);
        if (next.length === 0) {
          if (m.checkDeadlock) return fail('Deadlock reached.', trace, 11);
          break;
        }
        const step = pick(next);
        const badAction = m.impliedActions.find((p) => !p.check(cur.state, step.state));
        trace.push(step);
        steps++;
        if (badAction) return fail(`Action property ${badAction.loc} is violated.`, trace, 13);
      }
    }
  } catch (err) {
    if (err instanceof EvalError || err instanceof TlaError) {
      out(`Error: ${err.message}`);
      return err.exitCode;
    }
    throw err;
  }
  out(
    `Simulation finished: ${opts.behaviours} behaviours, ${steps} steps, no error found (seed ${opts.seed}).`,
  );
  return 0;
}
