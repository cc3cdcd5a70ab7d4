/**
 * Language features against figures derived independently of tlcts.
 *
 * Each model under test/specs/<Folder> is checked with runCheck and compared with the verdict,
 * exit code, distinct/generated states and depth that TLC must report. The figures were derived
 * by hand from TLC's rules (docs/tlc-semantics.md) or by a throwaway Python breadth-first search of
 * the same state machine; each .tla/.cfg header says which and how.
 *
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../src/check/run.js';
import type { CheckResult } from '../src/check/result.js';
import { figures } from './support/figures.js';

const specs = path.join(path.dirname(fileURLToPath(import.meta.url)), 'specs');

function check(
  folder: string,
  cfg: string,
  opts: { tla?: string; checkDeadlock?: boolean } = {},
): CheckResult {
  const tla = opts.tla ?? folder;
  return runCheck({
    tlaFile: path.join(specs, folder, `${tla}.tla`),
    cfgFile: path.join(specs, folder, `${cfg}.cfg`),
    ...(opts.checkDeadlock === undefined ? {} : { checkDeadlock: opts.checkDeadlock }),
  }).result;
}

interface Expected {
  verdict: 'success' | 'deadlock' | 'invariant violated' | 'evaluation error';
  exitCode: number;
  distinct: number;
  generated: number;
  depth: number;
  violated?: string;
  traceLength?: number;
  queue?: number;
  message?: RegExp;
}

function expectFigures(r: CheckResult, e: Expected): void {
  expect(figures(r)).toEqual({
    verdict: e.verdict,
    exitCode: e.exitCode,
    distinct: e.distinct,
    generated: e.generated,
    depth: e.depth,
  });
  if (e.violated !== undefined) expect(r.violated).toBe(e.violated);
  if (e.traceLength !== undefined) expect(r.trace?.length).toBe(e.traceLength);
  if (e.queue !== undefined) expect(r.statesLeftOnQueue).toBe(e.queue);
  if (e.message !== undefined) expect(r.message).toMatch(e.message);
}

/** The figures as the tlcts command prints them. */
function expectCliFigures(folder: string, cfg: string, e: Expected): void {
  const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '../bin/tlcts.js');
  const r = spawnSync(
    process.execPath,
    [bin, path.join(specs, folder, `${folder}.tla`), '-config', path.join(specs, folder, `${cfg}.cfg`)],
    {
      encoding: 'utf8',
    },
  );
  const figures =
    /(\d+) states generated, (\d+) distinct states found.*\nThe depth of the complete state graph search is (\d+)\./.exec(
      r.stdout,
    );
  expect({ exitCode: r.status, figures: figures?.slice(1).map(Number) }).toEqual({
    exitCode: e.exitCode,
    figures: [e.generated, e.distinct, e.depth],
  });
}

const ok = (distinct: number, generated: number, depth: number): Expected => ({
  verdict: 'success',
  exitCode: 0,
  distinct,
  generated,
  depth,
});

const evaluationError = (exitCode: number, figures: [number, number, number], message: RegExp): Expected => ({
  verdict: 'evaluation error',
  exitCode,
  distinct: figures[0],
  generated: figures[1],
  depth: figures[2],
  message,
});

interface Case {
  folder: string;
  cfg?: string;
  tla?: string;
  checkDeadlock?: boolean;
  what: string;
  expected: Expected;
  /** Run through the tlcts command (a worker thread with a large stack) rather than in-process. */
  viaCli?: boolean;
}

const cases: Case[] = [
  // Modules instantiated in a LET, and standard operators reached through an instance (B!Len(s)).
  {
    folder: 'LetInstance',
    what: "LET B == INSTANCE Bounded: its module loaded, B!Op and B!Len/B!< taking the caller's s",
    expected: ok(4, 4, 4),
  },
  {
    folder: 'LetInstance',
    cfg: 'LetInstance_Tight',
    what: 'the same model, an invariant through the instance violated at the 4th state',
    expected: {
      verdict: 'invariant violated',
      exitCode: 12,
      distinct: 4,
      generated: 4,
      depth: 4,
      violated: 'Tight',
      traceLength: 4,
    },
  },
  // Assignment as TLC decides it.
  {
    folder: 'ParamAssign',
    what: 'variables assigned through operator parameters in Init (Zero(x)) and Next (Set(x, e))',
    expected: ok(3, 4, 3),
  },
  {
    folder: 'ParamAssign',
    cfg: 'ParamAssign_Swap',
    what: 'Pair(x, y) in Init, a swap in Next',
    expected: ok(2, 3, 2),
  },
  {
    folder: 'ParamAssign',
    cfg: 'ParamAssign_Pick',
    what: "x' \\in S through a parameter",
    expected: ok(2, 5, 2),
  },
  {
    folder: 'ParamAssign',
    cfg: 'ParamAssign_Let',
    what: 'variables assigned through LET v == x',
    expected: ok(3, 4, 3),
  },
  {
    folder: 'TLCGetKeys',
    what: 'TLCGet("config"), ("stats"), ("duration") and the live counters ("generated", "diameter")',
    expected: ok(6, 6, 6),
  },
  {
    folder: 'LambdaSubst',
    what: 'INSTANCE ... WITH Op <- Inc and Op <- LAMBDA n : ... (an operator constant substituted)',
    expected: ok(4, 9, 3),
  },
  // Recursion and higher-order operators.
  {
    folder: 'RecFns',
    what: 'recursive functions and RECURSIVE operators (mutual recursion)',
    expected: ok(191, 326, 10),
  },
  {
    folder: 'RecFns',
    cfg: 'RecFns_Deadlock',
    what: 'the same model with deadlock checking',
    expected: {
      verdict: 'deadlock',
      exitCode: 11,
      distinct: 63,
      generated: 82,
      depth: 5,
      traceLength: 5,
      queue: 35,
    },
  },
  {
    folder: 'RecAction',
    what: 'a RECURSIVE operator used as the next-state action',
    expected: ok(12, 37, 5),
  },
  { folder: 'HigherOrder', what: 'operator parameters, LAMBDA, higher-order fold', expected: ok(38, 70, 9) },
  {
    folder: 'InfixOps',
    what: 'user-defined infix/postfix operators, duplicate initial states',
    expected: ok(5, 26, 2),
  },
  {
    folder: 'DeepRecursion',
    what: '3000-deep recursion computes or stops with a clear error',
    expected: ok(1, 2, 1),
    viaCli: true,
  },

  // Tuples, functions, records, sets.
  {
    folder: 'TupleBinders',
    what: 'tuple binders, {<<a, b>> \\in S \\X S : a < b}, f[a, b], \\E x, y',
    expected: ok(2168, 15405, 12),
  },
  {
    folder: 'TupleFcnDomain',
    what: '[<<a, b>> \\in A \\X B |-> e] has domain A \\X B',
    expected: ok(36, 85, 7),
  },
  { folder: 'ExceptNest', what: 'nested EXCEPT paths, @, repeated paths', expected: ok(10620, 48844, 17) },
  {
    folder: 'RecordsFcnSets',
    what: 'records, [a: S], [S -> T] and SUBSET as domains',
    expected: ok(128, 1104, 4),
  },
  {
    folder: 'ValueCanon',
    what: 'equal values from different constructions are one state',
    expected: ok(5, 29, 5),
  },
  {
    folder: 'QuantDomains',
    what: '\\E over UNION with repeated elements enumerates each element once',
    expected: ok(16, 193, 3),
  },
  { folder: 'ChooseDet', what: 'CHOOSE returns the least element in TLC order', expected: ok(14, 15, 14) },

  // Actions.
  { folder: 'CaseIf', what: 'CASE (first true arm) and IF in actions', expected: ok(49, 164, 14) },
  {
    folder: 'CaseIf',
    cfg: 'CaseIf_NoArm',
    what: 'a CASE with no true arm while computing next states',
    expected: {
      verdict: 'evaluation error',
      exitCode: 75,
      distinct: 2,
      generated: 2,
      depth: 2,
      message: /CASE/,
    },
  },
  // A constant first conjunct of a quantified action, tested once instead of for every binding.
  {
    folder: 'ConstGuard',
    what: 'a false constant guard: the quantified batch takes no step',
    expected: ok(4, 4, 4),
  },
  {
    folder: 'ConstGuard',
    cfg: 'ConstGuard_On',
    what: 'a true one: every binding steps',
    expected: ok(4, 36, 2),
  },
  {
    folder: 'ConstGuard',
    cfg: 'ConstGuard_NonBool',
    what: 'a guard that is no boolean, over a non-empty bound: the error of its first binding',
    expected: evaluationError(
      75,
      [1, 1, 1],
      /^A non-boolean expression \(1\) was used as a condition at line 32, col 11/,
    ),
  },
  {
    folder: 'ConstGuard',
    cfg: 'ConstGuard_Empty',
    what: 'the same guard over an empty bound: never tested',
    expected: ok(4, 4, 4),
  },
  {
    folder: 'ConstGuard',
    cfg: 'ConstGuard_Nat',
    what: 'a false guard over Nat: the bound is still enumerated, and cannot be',
    expected: evaluationError(75, [1, 1, 1], /^Attempted to enumerate the infinite set Nat/),
  },
  // Invariant conjuncts taken over from the predecessor when the step changed none of their variables:
  // each violated by the step that changes alone the variable it reads (b, c, d: the 10th, 13th, 15th
  // distinct state, two steps from Init).
  ...(
    [
      ['InvLet', 'b through a LET', 10, 11],
      ['InvParam', "c through an operator's parameter", 13, 16],
      ['InvHigher', 'd through a LAMBDA passed to an operator', 15, 21],
      ['InvSubst', 'b through an INSTANCE substitution', 10, 11],
      ['InvNamed', "c through a named instance's operator", 13, 16],
      ['InvRec', 'd through a recursive function and operator', 15, 21],
      ['InvChoose', 'b through CHOOSE', 10, 11],
    ] as const
  ).map(([inv, what, distinct, generated]): Case => ({
    folder: 'InvReads',
    cfg: `InvReads_${inv}`,
    what: `a conjunct reading ${what}`,
    expected: {
      verdict: 'invariant violated',
      exitCode: 12,
      distinct,
      generated,
      depth: 3,
      violated: inv,
      traceLength: 3,
    },
  })),
  { folder: 'LetActions', what: 'LET with operators inside Init and actions', expected: ok(10, 30, 4) },
  {
    folder: 'LetPrimed',
    what: 'LET values that depend on variables assigned after the LET is entered (Init and Next)',
    expected: ok(12, 78, 2),
  },
  {
    folder: 'LetPrimed',
    cfg: 'LetPrimed_Init',
    what: 'a LET value in Init that depends on later assignments',
    expected: ok(6, 12, 1),
  },
  {
    folder: 'LetPrimed',
    cfg: 'LetPrimed_Next',
    what: 'LET values in Next that depend on later primed assignments',
    expected: ok(7, 43, 2),
  },
  {
    folder: 'LetPrimed',
    cfg: 'LetPrimed_Shared',
    what: 'one LET reading primed variables shared by two disjuncts of Next',
    expected: ok(6, 13, 4),
  },
  {
    folder: 'LetPrimed',
    cfg: 'LetPrimed_Action',
    what: '0-ary LET definitions used as actions',
    expected: ok(3, 4, 3),
  },
  {
    folder: 'LetFcnCapture',
    what: 'LET-defined functions returned as values inside quantifiers',
    expected: ok(3, 7, 2),
  },
  {
    folder: 'Unchanged',
    what: 'UNCHANGED of nested tuples, definitions, expressions',
    expected: ok(76, 262, 8),
  },
  {
    folder: 'ActionParams',
    what: "x' = e, x' \\in S and UNCHANGED through operator parameters",
    expected: ok(12, 49, 5),
  },
  {
    folder: 'ActionParams',
    cfg: 'ActionParams_Alias',
    what: "a 0-ary definition yy == y as the target of yy = 0 and yy' = e",
    expected: ok(12, 49, 5),
  },
  { folder: 'EnabledForall', what: 'ENABLED in invariants, \\A inside actions', expected: ok(81, 220, 9) },
  {
    folder: 'EnabledForall',
    cfg: 'EnabledForall_Stuck',
    what: 'an ENABLED invariant that is violated',
    expected: {
      verdict: 'invariant violated',
      exitCode: 12,
      violated: 'AdvOrSkip',
      distinct: 39,
      generated: 94,
      depth: 7,
      traceLength: 7,
      queue: 13,
    },
  },
  { folder: 'Stutter', what: 'NEXT [A]_vars adds a stuttering successor per state', expected: ok(5, 13, 3) },
  {
    folder: 'Stutter',
    cfg: 'Stutter_Spec',
    what: 'SPECIFICATION Init /\\ [][A]_vars takes A alone',
    expected: { verdict: 'deadlock', exitCode: 11, distinct: 5, generated: 8, depth: 3, traceLength: 3 },
  },
  { folder: 'Stutter', cfg: 'Stutter_Angle', what: 'NEXT <<A \\/ Noop>>_vars', expected: ok(5, 8, 3) },
  {
    folder: 'PlusCalCount',
    what: 'a PlusCal translation (pc, Done, Terminating)',
    expected: ok(168, 259, 23),
  },
  {
    folder: 'PlusCalCount',
    cfg: 'PlusCalCount_Sym',
    what: 'the PlusCal translation with three processes under SYMMETRY',
    expected: ok(634, 1319, 34),
  },

  // Standard modules.
  { folder: 'StringsSeqs', what: 'strings and the Sequences module', expected: ok(2880, 8993, 16) },
  { folder: 'SetsBags', what: 'FiniteSets and Bags', expected: ok(20, 67, 6) },
  { folder: 'TLCMod', what: ':>, @@, Permutations, SortSeq, ToString', expected: ok(972, 5401, 10) },
  { folder: 'IntArith', what: 'negative numbers, \\div, %, prefix minus', expected: ok(43, 144, 7) },

  // Modules and configuration.
  {
    folder: 'Instances',
    what: 'INSTANCE WITH Op <- MyOp, EXTENDS inside an instance, LOCAL',
    expected: ok(8, 19, 5),
  },
  {
    folder: 'Instances',
    cfg: 'Instances_Unchanged',
    what: 'UNCHANGED of an instance definition (UNCHANGED C2!vars)',
    expected: ok(8, 19, 5),
  },
  {
    folder: 'Compose',
    checkDeadlock: false,
    what: 'action composition \\cdot in Next, ENABLED and action properties',
    expected: ok(4, 7, 4),
  },
  {
    folder: 'PlusCalComment',
    checkDeadlock: false,
    what: 'a PlusCal algorithm in a comment that tree-sitter would not parse',
    expected: ok(3, 3, 2),
  },
  {
    folder: 'PrimedNames',
    checkDeadlock: false,
    what: "assignments through a definition, a parameter and a LET definition standing for x'",
    expected: ok(5, 7, 3),
  },
  { folder: 'CfgOverride', what: 'Combine <- Sum and Width <- BigWidth in the cfg', expected: ok(6, 7, 6) },
  {
    folder: 'StandardModuleOverride',
    checkDeadlock: false,
    what: 'Nat <- [Naturals] Small, reaching Nat through Integers',
    expected: ok(3, 3, 3),
  },
  {
    folder: 'ParamInstanceStep',
    checkDeadlock: false,
    what: "a parameterized instance's property with its step written inline",
    expected: ok(3, 3, 3),
  },
  {
    folder: 'ParamInstanceStep',
    cfg: 'ParamInstanceStep_All',
    checkDeadlock: false,
    what: 'the property of a parameterized instance under \\A over a constant set',
    expected: ok(3, 3, 3),
  },
  {
    folder: 'LiveEvalError',
    what: "an evaluation error in a temporal property's predicates",
    expected: {
      ...evaluationError(255, [2, 2, 2], /^The variable b is used before it is assigned a value\.$/),
      queue: 1,
    },
  },
  { folder: 'OperatorTable', what: 'operators given by values in the cfg (F(0) = 1)', expected: ok(3, 4, 3) },
  {
    folder: 'OperatorTable',
    cfg: 'OperatorTable_Partial',
    what: 'an operator given by values applied where it has none',
    expected: evaluationError(
      75,
      [3, 3, 3],
      /^Attempted to apply operator:\n\{ <0, 1>, <1, 2>\}\nto arguments \(2\), which is undefined\.$/,
    ),
  },
  {
    folder: 'CyclicOverride',
    checkDeadlock: false,
    what: 'cfg overrides whose replacements use the names they replace (directly and through a definition)',
    expected: ok(3, 3, 3),
  },
  {
    folder: 'CfgOverride',
    cfg: 'CfgOverride_Max',
    what: 'Combine <- Max2 and Width = 2 in the cfg',
    expected: ok(15, 16, 15),
  },
  { folder: 'Constraints', what: 'CONSTRAINT and ACTION_CONSTRAINT', expected: ok(15, 49, 6) },
  {
    folder: 'Constraints',
    cfg: 'Constraints_Inv',
    what: 'an invariant violated by a state outside the CONSTRAINT',
    expected: {
      verdict: 'invariant violated',
      exitCode: 12,
      violated: 'Small',
      distinct: 15,
      generated: 45,
      depth: 6,
      traceLength: 6,
      queue: 1,
    },
  },
  {
    folder: 'Deadlock',
    what: 'deadlock detection with a CONSTRAINT',
    expected: { verdict: 'deadlock', exitCode: 11, distinct: 6, generated: 9, depth: 5, traceLength: 5 },
  },
  { folder: 'Deadlock', checkDeadlock: false, what: 'the same model with -deadlock', expected: ok(6, 9, 5) },
  { folder: 'Symmetry2', what: 'two symmetry sets (the group they generate)', expected: ok(21, 75, 7) },
  {
    folder: 'Symmetry2',
    cfg: 'Symmetry2_None',
    what: 'the same model without symmetry',
    expected: ok(64, 225, 7),
  },
  { folder: 'SymSeq', what: 'symmetry inside sequences and records', expected: ok(8, 16, 5) },
  { folder: 'SymSeq', cfg: 'SymSeq_None', what: 'the same model without symmetry', expected: ok(15, 29, 5) },
  { folder: 'ViewSym', what: 'VIEW', expected: ok(6, 14, 3) },
  {
    folder: 'ViewSym',
    cfg: 'ViewSym_Sym',
    what: 'VIEW together with SYMMETRY',
    expected: ok(3, 8, 3),
  },
];

describe('language features: exact TLC figures', () => {
  for (const c of cases) {
    const cfg = c.cfg ?? c.folder;
    const name = `${c.folder}/${cfg}${c.checkDeadlock === false ? ' -deadlock' : ''}: ${c.what}`;
    const body = () => {
      if (c.viaCli) return expectCliFigures(c.folder, cfg, c.expected);
      const r = check(c.folder, cfg, {
        ...(c.tla ? { tla: c.tla } : {}),
        ...(c.checkDeadlock === undefined ? {} : { checkDeadlock: c.checkDeadlock }),
      });
      expectFigures(r, c.expected);
    };
    it(name, body);
  }
});

interface Refusal {
  folder: string;
  cfg?: string;
  what: string;
  message: RegExp;
}

const refusals: Refusal[] = [
  { folder: 'RefuseReals', what: 'real numbers', message: /^TLC can't handle real numbers\.\nline \d+/ },
  {
    folder: 'RefuseTemporalQuant',
    what: '\\EE in a property',
    message:
      /^TLC cannot handle the temporal formula line 14, col 11 to line 14, col 27 of module RefuseTemporalQuant: the temporal quantifier \\EE\.$/,
  },
  {
    folder: 'RefuseTemporalQuant',
    cfg: 'RefuseTemporalQuant_AA',
    what: '\\AA in a property',
    message:
      /^TLC cannot handle the temporal formula line 16, col 10 to line \d+, col \d+ of module RefuseTemporalQuant: the temporal quantifier \\AA\.$/,
  },
  {
    folder: 'RefuseChoose',
    what: 'unbounded CHOOSE',
    message: /^TLC attempted to evaluate an unbounded CHOOSE\.\n/,
  },
  {
    folder: 'RefuseStepOperatorArg',
    what: 'the prime passed as an operator argument',
    message: /^unsupported: the operator ' passed as an operator argument at line 15, col 22/,
  },
  {
    folder: 'RefuseSubexpr',
    what: 'a subexpression reference Both!1',
    message: /^unsupported: subexpression .* at line \d+/,
  },
];

describe('invariants with effects', () => {
  it('evaluates a conjunct that prints for every new state, whatever the step changed', () => {
    const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '../bin/tlcts.js');
    const dir = path.join(specs, 'InvReads');
    const r = spawnSync(
      process.execPath,
      [bin, path.join(dir, 'InvReads.tla'), '-config', path.join(dir, 'InvReads_InvPrint.cfg')],
      { encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    // PrintT(b) for each of the 81 states (the initial one included), b being 0, 1 or 2 in 27 each.
    const printed = r.stdout.split('\n').filter((l) => /^[012]$/.test(l));
    expect(printed).toHaveLength(81);
    expect(printed.filter((l) => l === '2')).toHaveLength(27);
    expect(r.stdout).toMatch(/217 states generated, 81 distinct states found, 0 states left on queue/);
  });
});

describe('constructs that must be refused', () => {
  for (const c of refusals) {
    const cfg = c.cfg ?? c.folder;
    const body = () => {
      const r = check(c.folder, cfg);
      expect(r.verdict).not.toBe('success');
      expect(r.exitCode).not.toBe(0);
      expect(r.message).toMatch(c.message);
    };
    const name = `${c.folder}/${cfg}: ${c.what}`;
    it(name, body);
  }
});
