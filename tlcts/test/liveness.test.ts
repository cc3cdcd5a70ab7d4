/**
 * Temporal properties, checked as TLC checks them (docs/tlc-semantics.md §7). Each model under
 * test/specs/Live* and RefuseLive says in its .cfg header what TLC's algorithm gives, derived by
 * hand: the verdict, the branches of the normal form, the lasso. Every counterexample is also
 * checked to be one: it satisfies the fairness of the specification and violates the property.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCheck, type RunOutcome } from '../src/check/run.js';
import type { CheckResult } from '../src/check/result.js';
import { holdsOnLasso } from '../src/live/lasso.js';
import { tlcJson } from '../src/output/format.js';
import { corpusDir } from './support/corpus.js';
import { figures } from './support/figures.js';

const specs = path.join(path.dirname(fileURLToPath(import.meta.url)), 'specs');

function check(folder: string, cfg: string, tla = folder, fp?: number): RunOutcome & { lines: string[] } {
  const lines: string[] = [];
  const outcome = runCheck({
    tlaFile: path.join(specs, folder, `${tla}.tla`),
    cfgFile: path.join(specs, folder, `${cfg}.cfg`),
    out: (l) => lines.push(l),
    ...(fp === undefined ? {} : { fp }),
  });
  return { ...outcome, lines };
}

/** The states of a trace as TLC's JSON shows them, variable by variable. */
function states(r: CheckResult): unknown[] {
  return r.trace!.map((t) => t.state.map(tlcJson));
}

/** The lasso satisfies the fairness of the spec and violates the properties it is said to violate. */
function expectCounterexample({ result, model }: RunOutcome): void {
  const live = model!.liveness!;
  const s = result.trace!.map((t) => t.state);
  const loop = result.lasso!.loop;
  expect(live.fairness.every((f) => holdsOnLasso(f, s, loop))).toBe(true);
  const violated = live.properties.filter((p) => !holdsOnLasso(p.formula, s, loop)).map((p) => p.name);
  expect(violated.join(', ')).toBe(result.violated);
}

interface Figures {
  verdict: CheckResult['verdict'];
  exitCode: number;
  distinct: number;
  generated: number;
  depth: number;
  violated?: string;
}

function expectFigures(r: CheckResult, f: Figures): void {
  expect({ ...figures(r), ...(f.violated === undefined ? {} : { violated: r.violated }) }).toEqual(f);
}

const SUCCESS = { verdict: 'success', exitCode: 0 } as const;
const VIOLATED = { verdict: 'property violated', exitCode: 13 } as const;

const branches = (lines: string[]) =>
  lines.find((l) => l.startsWith('Implied-temporal checking'))?.match(/has (\d+) branches/)?.[1];

describe('temporal operators (LiveCounter: 0 -> 1 -> 2 -> 3 -> 0)', () => {
  it('<>P, []<>P, P ~> Q, []<><<A>>_v, [](P => <>Q), <>[]P \\/ []<>Q, []<>ENABLED A hold under WF', () => {
    const { result, lines } = check('LiveCounter', 'LiveCounter_Fair');
    expectFigures(result, { ...SUCCESS, distinct: 4, generated: 5, depth: 4 });
    expect(branches(lines)).toBe('4');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^Checking 4 branches of temporal properties for the complete state space with 16 total distinct states at \(/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^Finished checking temporal properties in \d\ds at /),
    );
    // TLC prints the final progress line before the temporal check.
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^Progress\(4\) at .*: 5 states generated, 4 distinct states found, 0 states left on queue\.$/,
      ),
    );
  });

  it('<>P without fairness: the deepest state stutters (0, 1, 2 + stuttering), with TLC warning', () => {
    const outcome = check('LiveCounter', 'LiveCounter_NoFair');
    const { result, lines } = outcome;
    expectFigures(result, { ...VIOLATED, distinct: 4, generated: 5, depth: 4, violated: 'Reaches3' });
    expect(states(result)).toEqual([[0], [1], [2]]);
    expect(result.lasso).toEqual({ loop: 2 });
    expectCounterexample(outcome);
    const text = lines.join('\n');
    expect(text).toContain(
      'Error: Temporal property Reaches3 was violated.\n\nError: The following behavior constitutes a counter-example:\n\nState 1: <Initial predicate>\nx = 0\n',
    );
    expect(text).toContain(
      'x = 2\n\nState 4: Stuttering\nWarning: The stuttering counterexample above may be caused by the absence of a fairness constraint in the behavior specification Spec defined at line 16, col 1 to line 16, col 26 of module LiveCounter.',
    );
  });

  it('names every property the counterexample violates', () => {
    const outcome = check('LiveCounter', 'LiveCounter_Two');
    expect(branches(outcome.lines)).toBe('2');
    expect(outcome.result.message).toBe('Temporal properties Reaches3 and Often0 were violated.');
    expectCounterexample(outcome);
  });

  it('<>[]P under WF: a cycle, back to state 1 by Reset', () => {
    const outcome = check('LiveCounter', 'LiveCounter_Settles');
    const { result, lines } = outcome;
    expect(states(result)).toEqual([[0], [1], [2], [3]]);
    expect(result.lasso?.loop).toBe(0);
    expect(result.lasso?.action?.name).toBe('Reset');
    expectCounterexample(outcome);
    expect(lines.join('\n')).toContain(
      'x = 3\n\nBack to state 1: <Reset line 13, col 10 to line 13, col 24 of module LiveCounter>\n',
    );
  });

  it('[]P with P a state predicate is an invariant', () => {
    const { result, lines } = check('LiveCounter', 'LiveCounter_Below3');
    expectFigures(result, {
      verdict: 'invariant violated',
      exitCode: 12,
      distinct: 4,
      generated: 4,
      depth: 4,
      violated: 'Below3',
    });
    expect(result.trace).toHaveLength(4);
    expect(branches(lines)).toBeUndefined();
  });
});

describe('fairness', () => {
  it('WF: a fair behaviour may never take an action that is only enabled now and then', () => {
    const outcome = check('LiveFair', 'LiveFair_WF');
    expectFigures(outcome.result, { ...VIOLATED, distinct: 4, generated: 6, depth: 4, violated: 'GoesOn' });
    expect(states(outcome.result)).toEqual([
      [0, 0],
      [1, 0],
    ]);
    expect(outcome.result.lasso).toMatchObject({ loop: 0, action: { name: 'Flip' } });
    expectCounterexample(outcome);
  });

  it('SF: the action is taken; one branch with two error models', () => {
    const { result, lines } = check('LiveFair', 'LiveFair_SF');
    expectFigures(result, { ...SUCCESS, distinct: 4, generated: 6, depth: 4 });
    expect(branches(lines)).toBe('1');
  });

  it('\\A p \\in S : WF_v(A(p)), P(p) ~> Q(p) per process, parameterized operators and LET', () => {
    const { result, lines } = check('LiveProcs', 'LiveProcs');
    expectFigures(result, { ...SUCCESS, distinct: 4, generated: 9, depth: 3 });
    expect(branches(lines)).toBe('5');
    expect(lines).toContainEqual(expect.stringMatching(/with 20 total distinct states/));
  });

  it('\\E p \\in S : <>P(p) without fairness on the action that makes it true', () => {
    const outcome = check('LiveProcs', 'LiveProcs_Works');
    expectFigures(outcome.result, {
      ...VIOLATED,
      distinct: 4,
      generated: 9,
      depth: 3,
      violated: 'SomeoneWorks',
    });
    expect(outcome.result.trace).toHaveLength(1);
    expect(outcome.result.lasso).toEqual({ loop: 0 });
    expectCounterexample(outcome);
    // The specification has fairness: no warning about stuttering.
    expect(outcome.lines.some((l) => l.startsWith('Warning'))).toBe(false);
  });

  it('every seed (-fp) orders successors differently and still gives a counterexample', () => {
    const lassos = new Set<string>();
    for (let fp = 0; fp < 6; fp++) {
      const outcome = check('LiveProcs', 'LiveProcs_Turns', 'LiveProcs', fp);
      expect(outcome.result.violated).toBe('AllIdleOften');
      expectCounterexample(outcome);
      lassos.add(JSON.stringify([states(outcome.result), outcome.result.lasso?.loop]));
    }
    expect(lassos.size).toBeGreaterThan(1);
  });
});

describe('refinement: PROPERTY Abs!Spec checks its init, its step relation and its fairness', () => {
  it('holds when the concrete specification is fair', () => {
    expectFigures(check('LiveRefine', 'LiveRefine').result, {
      ...SUCCESS,
      distinct: 4,
      generated: 5,
      depth: 4,
    });
  });

  it('fails on the abstract fairness otherwise, named by its location (a conjunct of ASpec)', () => {
    const outcome = check('LiveRefine', 'LiveRefine_NoFair');
    expectFigures(outcome.result, {
      ...VIOLATED,
      distinct: 4,
      generated: 5,
      depth: 4,
      violated: 'line 9, col 34 to line 9, col 44 of module LiveAbstract',
    });
    expect(states(outcome.result)).toEqual([
      [0, 0],
      [1, 0],
    ]);
    expect(outcome.result.lasso).toEqual({ loop: 1 });
    expectCounterexample(outcome);
  });
});

describe('VIEW, SYMMETRY and constraints, as TLC treats them', () => {
  it('CONSTRAINT: liveness on the constrained graph, with TLC warning', () => {
    const { result, lines } = check('LiveBounded', 'LiveBounded');
    expectFigures(result, { ...SUCCESS, distinct: 4, generated: 5, depth: 4 });
    expect(lines[1]).toMatch(
      /^Warning: Declaring state or action constraints during liveness checking is dangerous/,
    );
    const outcome = check('LiveBounded', 'LiveBounded_NoFair');
    expect(states(outcome.result)).toEqual([[0], [1], [2], [3]]);
    expect(outcome.result.lasso).toEqual({ loop: 3 });
    expectCounterexample(outcome);
  });

  it('VIEW: the graph of the views, checked on the states generated', () => {
    const plain = check('LiveView', 'LiveView');
    expectFigures(plain.result, { ...VIOLATED, distinct: 6, generated: 13, depth: 4, violated: 'TOften1' });
    expectCounterexample(plain);
    const view = check('LiveView', 'LiveView_View');
    expectFigures(view.result, { ...VIOLATED, distinct: 3, generated: 7, depth: 3, violated: 'TOften1' });
    expect(states(view.result)).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
    ]);
    expect(view.result.lasso).toMatchObject({ loop: 0, action: { name: 'Next' } });
  });

  it('SYMMETRY: TLC warns and checks the graph of the orbits', () => {
    const { result, lines } = check('LiveProcs', 'LiveProcs_Sym');
    expectFigures(result, { ...VIOLATED, distinct: 3, generated: 7, depth: 3, violated: 'AllIdleOften' });
    expect(lines[1]).toBe(
      'Warning: Declaring symmetry during liveness checking is dangerous. It might cause TLC to miss violations of the stated liveness properties. Please check liveness without symmetry defined.\n(Use the -nowarning option to disable this warning.)',
    );
  });
});

describe('temporal formulas TLC cannot handle are refused by location', () => {
  const where = (line: number, col: number, endLine: number, endCol: number) =>
    `line ${line}, col ${col} to line ${endLine}, col ${endCol} of module RefuseLive`;
  const cases: [string, string][] = [
    // TLC names the state predicate under [] (`processConfigSpec`).
    ['SpecBox', `TLC cannot handle the temporal formula ${where(15, 22, 15, 28)}`],
    ['EventuallySteps', 'Temporal formulas containing actions must be of forms <>[]A or []<>A.'],
    ['BoxAction', 'Temporal formulas containing actions must be of forms <>[]A or []<>A.'],
    [
      'OverNat',
      `TLC cannot handle the temporal formula ${where(20, 12, 20, 35)}: its bound cannot be evaluated before the behaviour starts (Attempted to enumerate the infinite set Nat.).`,
    ],
    [
      'Unbounded',
      `TLC cannot handle the temporal formula ${where(21, 14, 21, 29)}: an unbounded quantifier over a temporal formula.`,
    ],
    [
      'Passed',
      `TLC cannot handle the temporal formula ${where(22, 16, 22, 16)}: a temporal formula passed as the argument F.`,
    ],
    ['Cases', `TLC cannot handle the temporal formula ${where(24, 10, 24, 54)}.`],
  ];
  for (const [cfg, message] of cases) {
    it(cfg, () => {
      const { result } = check('RefuseLive', `RefuseLive_${cfg}`);
      expect({ exitCode: result.exitCode, message: result.message }).toEqual({ exitCode: 255, message });
    });
  }

  it('SpecAction: an action conjunct of the specification is a configuration error (TLC_CANT_HANDLE_CONJUNCT, 151)', () => {
    const { result } = check('RefuseLive', 'RefuseLive_SpecAction');
    expect({ exitCode: result.exitCode, message: result.message }).toEqual({
      exitCode: 151,
      message: `TLC cannot handle this conjunct of the spec:\n${where(16, 23, 16, 29)}`,
    });
  });

  it('a bound that depends on variables', () => {
    const { result } = check('RefuseLive', 'RefuseLive_VarBound');
    expect(result.exitCode).toBe(255);
    expect(result.message).toMatch(
      new RegExp(
        `^TLC cannot handle the temporal formula ${where(25, 13, 25, 37)}: its bound cannot be evaluated before the behaviour starts`,
      ),
    );
  });

  it('<><<A>>_v', () => {
    const { result } = check('LiveCounter', 'LiveCounter_Eventually');
    expect(result.message).toBe('Temporal formulas containing actions must be of forms <>[]A or []<>A.');
  });
});

describe('corpus counterexamples under every order of successors', () => {
  // The corpus lassos that depend on the order TLC stores successors in: each seed gives one,
  // each a fair behaviour violating the property.
  const models: [string, string][] = [
    ['Peterson/Peterson.tla', 'Peterson/Peterson_Cycle.cfg'],
    ['AltBit/AltBit.tla', 'AltBit/AltBit_WF.cfg'],
    ['Semaphore/Semaphore.tla', 'Semaphore/Semaphore_WF.cfg'],
    ['ReadersWriters/ReadersWriters.tla', 'ReadersWriters/ReadersWriters_Pref.cfg'],
  ];
  for (const [tla, cfg] of models) {
    it(cfg, () => {
      for (let fp = 0; fp < 4; fp++) {
        const outcome = runCheck({
          tlaFile: path.join(corpusDir(), tla),
          cfgFile: path.join(corpusDir(), cfg),
          fp,
        });
        expect(outcome.result.exitCode).toBe(13);
        expectCounterexample(outcome);
      }
    });
  }
});
