/** Errors and refusals as TLC and SANY report them: wording, and TLC's exit codes. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheck } from '../src/check/run.js';
import { corpusDir } from './support/corpus.js';
import { show } from '../src/values/value.js';

const root = path.resolve(import.meta.dirname, '../..');
const corpus = corpusDir();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tlcts-errors-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function tlcts(...args: string[]): { code: number; out: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'tlcts/bin/tlcts.js'), ...args], {
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

/** Writes module `name` (and its configuration) to a fresh folder; returns the module's path. */
const MISSING_INIT =
  'The configuration file did not specify the initial state predicate.\nCan also be caused by trying to run TLC on a specification from\na module imported with a parameterized INSTANCE statement.';

function writeSpec(name: string, tla: string, cfg = 'INIT Init\nNEXT Next\n'): string {
  const dir = fs.mkdtempSync(path.join(tmp, `${name}-`));
  fs.writeFileSync(path.join(dir, `${name}.cfg`), cfg);
  const file = path.join(dir, `${name}.tla`);
  fs.writeFileSync(file, tla);
  return file;
}

/** tlcts's run of a module written by writeSpec: its result, and every line it printed. */
function check(tlaFile: string): { result: ReturnType<typeof runCheck>['result']; text: string } {
  const lines: string[] = [];
  const { result } = runCheck({
    tlaFile,
    cfgFile: tlaFile.replace(/\.tla$/, '.cfg'),
    out: (l) => lines.push(l),
  });
  return { result, text: lines.join('\n') };
}

/** The first line of a corpus log (TLC's output) that starts with `prefix`. */
function tlcLine(cfg: string, prefix: string): string {
  const log = fs.readFileSync(path.join(corpus, cfg.replace(/\.cfg$/, '.tlc.log')), 'utf8');
  const line = log.split('\n').find((l) => l.startsWith(prefix));
  if (line === undefined) throw new Error(`no line of ${cfg}'s log starts with ${prefix}`);
  return line;
}

const COUNTER = `---- MODULE Counter ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Grows == [][x' > x]_x
Named == Grows /\\ [](x < 5)
Inline == [](x < 5) /\\ [][x' > x]_x
====
`;

describe('a violated property is named as TLC names it (SpecProcessor#processConfigProps)', () => {
  it('an action property defined on its own: by its definition', () => {
    const { result } = check(writeSpec('Counter', COUNTER, 'INIT Init\nNEXT Next\nPROPERTY Grows\n'));
    expect(result.exitCode).toBe(13);
    expect(result.message).toBe('Action property Grows is violated.');
  });

  it('a conjunct that names a definition: by that definition', () => {
    const { result } = check(writeSpec('Counter', COUNTER, 'INIT Init\nNEXT Next\nPROPERTY Named\n'));
    expect(result.message).toBe('Action property Grows is violated.');
    expect(result.violated).toBe('Named');
  });

  it('an inline conjunct: by its location', () => {
    const { result } = check(writeSpec('Counter', COUNTER, 'INIT Init\nNEXT Next\nPROPERTY Inline\n'));
    expect(result.message).toBe(
      'Action property line 8, col 24 to line 8, col 35 of module Counter is violated.',
    );
  });

  it("the [][A]_v conjunct of an instanced module's Spec: by its location, as in the corpus logs", () => {
    for (const [tla, cfg] of [
      ['Clock/Clock.tla', 'Clock/Clock_Bad.cfg'],
      ['StackQueue/TwoStacks.tla', 'StackQueue/TwoStacks_Bug.cfg'],
    ] as const) {
      const { result } = runCheck({ tlaFile: path.join(corpus, tla), cfgFile: path.join(corpus, cfg) });
      expect(`Error: ${result.message}`).toBe(tlcLine(cfg, 'Error: Action property'));
    }
  });
});

describe('the command line, as TLC takes it (TLC#handleParameters)', () => {
  const clock = [
    path.join(corpus, 'Clock/Clock.tla'),
    '-config',
    path.join(corpus, 'Clock/Clock_NoFair.cfg'),
  ];

  it('-nowarning suppresses every warning; without it the first says how', () => {
    const warned = tlcts(...clock);
    expect(warned.code).toBe(13);
    expect(warned.out).toContain(
      `${tlcLine('Clock/Clock_NoFair.cfg', 'Warning: ')}\n(Use the -nowarning option to disable this warning.)\n`,
    );
    const quiet = tlcts(...clock, '-nowarning');
    expect(quiet.code).toBe(13);
    expect(quiet.out).not.toContain('Warning');
    expect(quiet.out).toContain('State 4: Stuttering');
  });

  it('prints its version with -version or --version', () => {
    const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
    for (const flag of ['-version', '--version'])
      expect(tlcts(flag)).toEqual({ code: 0, out: `tlcts ${version}\n` });
  });

  it('refuses an unknown option by name, a missing or bad value, and a missing module, with exit 1', () => {
    const usage = 'Usage: tlcts [-help] [-option] SPEC.tla\n';
    expect(tlcts('-frobnicate', ...clock)).toEqual({
      code: 1,
      out: `Error: unrecognized option: -frobnicate\n${usage}`,
    });
    expect(tlcts(...clock, '-workers')).toEqual({
      code: 1,
      out: `Error: expect an integer or 'auto' for -workers option.\n${usage}`,
    });
    expect(tlcts(...clock, '-depth', 'ten')).toEqual({
      code: 1,
      out: `Error: An integer for trace length required. But encountered ten\n${usage}`,
    });
    expect(tlcts('-deadlock')).toEqual({ code: 1, out: `Error: Missing input TLA+ module.\n${usage}` });
  });
});

/** SANY's lines after a module it could not parse, as TLC prints them (spec: the module's own). */
const couldNotParse = (module: string, spec = module) =>
  `\n\nFatal errors while parsing TLA+ spec in file ${spec}\n\ntla2sany.semantic.AbortException\n*** Errors: 1\n\nIn module ${module}\n\nCould not parse module ${module} from file ${spec}.tla\n\n`;

/** A module TLC refuses in SANY's phase: exit 150, SANY's report, then TLC's three lines. */
function expectSanyRefusal(tlaFile: string, report: string): void {
  const lines: string[] = [];
  const { result } = runCheck({
    tlaFile,
    cfgFile: tlaFile.replace(/\.tla$/, '.cfg'),
    out: (l) => lines.push(l),
  });
  expect(result.exitCode).toBe(150);
  expect(lines[0]).toBe(report);
  expect(lines.slice(1).map((l) => l.replace(/\(.*\)$/, '(…)').replace(/ \d\ds /, ' 00s '))).toEqual([
    'Starting... (…)',
    'Error: Parsing or semantic analysis failed.',
    'Finished in 00s at (…)',
  ]);
}

describe('parse errors as SANY reports them (TLAplusParser#msgStackToString), exit 150', () => {
  const header = (name: string) => `---- MODULE ${name} ----\nEXTENDS Naturals\nVARIABLE x\n`;

  it('a module without its ==== ends at <EOF>: the last character of the file', () => {
    const file = writeSpec('NoEnd', `${header('NoEnd')}Init == x = 0\nNext == x' = x + 1\n`);
    expectSanyRefusal(
      file,
      '***Parse Error***\nWas expecting "==== or more Module body"\n' +
        'Encountered "<EOF>" at line 5, column 19 and token "1" \n\n' +
        'Residual stack trace follows:\nModule definition starting at line 1, column 1.\n' +
        couldNotParse('NoEnd'),
    );
  });

  it('an unclosed ( meets the DEFBREAK SANY puts before the next definition', () => {
    const file = writeSpec('Paren', `${header('Paren')}Init == (x = 0\nNext == x' = x + 1\n====\n`);
    expectSanyRefusal(
      file,
      '***Parse Error***\nEncountered "Beginning of definition" at line 5, column 1 and token "0" \n\n' +
        'Residual stack trace follows:\n' +
        'ExtendableExpr starting at line 4, column 9.\n' +
        'Expression starting at line 4, column 9.\n' +
        'Definition starting at line 4, column 1.\n' +
        'Module body starting at line 3, column 1.\n' +
        'Module definition starting at line 1, column 1.\n' +
        couldNotParse('Paren'),
    );
  });

  it('a second EXTENDS is where the module body should end', () => {
    const file = writeSpec('Twice', `${header('Twice')}EXTENDS TLC\nInit == x = 0\nNext == x' = x\n====\n`);
    expectSanyRefusal(
      file,
      '***Parse Error***\nWas expecting "==== or more Module body"\n' +
        'Encountered "EXTENDS" at line 4, column 1 and token "x" \n\n' +
        'Residual stack trace follows:\nModule definition starting at line 1, column 1.\n' +
        couldNotParse('Twice'),
    );
  });

  it('a dangling /\\ has no expression: the innermost five productions are shown', () => {
    const file = writeSpec(
      'Dangling',
      `${header('Dangling')}Init == /\\ x = 0\n        /\\\nNext == x' = x\n====\n`,
    );
    expectSanyRefusal(
      file,
      '***Parse Error***\nEncountered "Beginning of definition" at line 6, column 1 and token "/\\\\" \n\n' +
        'Residual stack trace follows:\n' +
        'Expression starting at line 6, column 1.\n' +
        'Junction Item starting at line 5, column 9.\n' +
        'AND-OR Junction starting at line 4, column 9.\n' +
        'ExtendableExpr starting at line 4, column 9.\n' +
        'Expression starting at line 4, column 9.\n' +
        couldNotParse('Dangling'),
    );
  });

  it('a part of a junction item left of its bullet (JuncItem#checkIndentation)', () => {
    const file = writeSpec(
      'Indent',
      "---- MODULE Indent ----\nVARIABLE x, y\nNext ==\n/\\ x' = 1\n/\\ LET a == 1\nb == 2 + 3\n       IN y' = a + b\n====\n",
    );
    expectSanyRefusal(
      file,
      '***Parse Error***\n' +
        'Item at line 6, col 1 to line 6, col 10 of module Indent is not properly indented inside conjunction or  disjunction list item at line 5, col 1 to line 7, col 20 of module Indent\n\n' +
        'Residual stack trace follows:\n' +
        'AND-OR Junction starting at line 4, column 1.\n' +
        'ExtendableExpr starting at line 4, column 1.\n' +
        'Expression starting at line 4, column 1.\n' +
        'Definition starting at line 3, column 1.\n' +
        'Module body starting at line 2, column 1.\n' +
        couldNotParse('Indent'),
    );
  });

  it('lexical errors (TokenMgrError): a character no token starts with, an unended string or comment', () => {
    const cases = [
      [
        'Semicolon',
        'Init == x = 0 ; 1\n====\n',
        'Lexical error at line 4, column 15.  Encountered: ";" (59), after : ""',
      ],
      [
        'Unended',
        'Init == x = "abc\n====\n',
        'Lexical error at line 4, column 17.  Encountered: "\\n" (10), after : "\\"abc"',
      ],
      [
        'Comment',
        '(* open\nInit == x = 0\n====\n',
        'Lexical {error: EOF reached, possibly open comment starting around line 4',
      ],
    ] as const;
    for (const [name, body, message] of cases) {
      expectSanyRefusal(writeSpec(name, `${header(name)}${body}`), message + couldNotParse(name));
    }
  });

  it('a file without a module header: SANY looks for ---- MODULE up to <EOF>', () => {
    const file = writeSpec('Headless', 'Init == TRUE\n');
    expectSanyRefusal(
      file,
      '***Parse Error***\nWas expecting "---- MODULE (beginning of module)"\n' +
        'Encountered "<EOF>" at line 1, column 13 and token "" \n\n' +
        'Residual stack trace follows:\n' +
        'Begin module starting at line 1, column 13.\n' +
        'Module definition starting at line 1, column 13.\n' +
        couldNotParse('Headless'),
    );
  });

  it('an error in a module the root extends names that module and its file', () => {
    const root = writeSpec('Root', '---- MODULE Root ----\nEXTENDS Lib\nInit == TRUE\nNext == TRUE\n====\n');
    const dir = path.dirname(root);
    fs.writeFileSync(path.join(dir, 'Lib.tla'), '---- MODULE Lib ----\nF == (1\n====\n');
    expectSanyRefusal(
      root,
      '***Parse Error***\nEncountered "====" at line 3, column 1 and token "1" \n\n' +
        'Residual stack trace follows:\n' +
        'ExtendableExpr starting at line 2, column 6.\n' +
        'Expression starting at line 2, column 6.\n' +
        'Definition starting at line 2, column 1.\n' +
        'Module body starting at line 2, column 1.\n' +
        'Module definition starting at line 1, column 1.\n' +
        '\n\nFatal errors while parsing TLA+ spec in file Root\n\ntla2sany.semantic.AbortException\n*** Errors: 1\n\nIn module Lib\n\nCould not parse module Lib from file Lib.tla\n\n',
    );
  });

  it('a module that cannot be found, and a file named otherwise than its module', () => {
    const missing = writeSpec('Needs', '---- MODULE Needs ----\nEXTENDS Nowhere\n====\n');
    const cannotFind =
      'In module Needs\n\nCannot find source file for module Nowhere imported in module Needs.';
    expectSanyRefusal(
      missing,
      `\nFatal errors while parsing TLA+ spec in file Needs\n\n${cannotFind}\n*** Errors: 1\n\n${cannotFind}\n\n`,
    );
    const misnamed = writeSpec('Misnamed', '---- MODULE Other ----\n====\n');
    const mismatch =
      "Unknown location\n\nFile name 'Misnamed' does not match the name 'Other' of the top level module it contains.";
    expectSanyRefusal(
      misnamed,
      `\nFatal errors while parsing TLA+ spec in file Misnamed\n\n${mismatch}\n*** Errors: 1\n\n${mismatch}\n\n`,
    );
  });

  it('an unknown operator is a semantic error of SANY, at the name', () => {
    const file = writeSpec('Unknown', `${header('Unknown')}Init == x = 0\nNext == x' = Foo(x)\n====\n`);
    expectSanyRefusal(
      file,
      "Semantic errors:\n\n*** Errors: 1\n\nline 5, col 14 to line 5, col 16 of module Unknown\n\nUnknown operator: `Foo'.\n\n\n",
    );
  });

  it("on the command line: SANY's lines, TLC's closing lines and exit 150, never a stack trace", () => {
    const file = writeSpec('Cli', `${header('Cli')}Init == (x = 0\n====\n`);
    const { code, out } = tlcts(file);
    expect(code).toBe(150);
    expect(out).toContain('***Parse Error***\nEncountered "====" at line 5, column 1 and token "0" \n');
    expect(out).toMatch(
      /Could not parse module Cli from file Cli\.tla\n\n\nStarting\.\.\. \(.*\)\nError: Parsing or semantic analysis failed\.\nFinished in/,
    );
    expect(out).not.toMatch(/\n\s+at /);
    const simulated = tlcts(file, '-simulate');
    expect(simulated.code).toBe(150);
    expect(simulated.out).toContain('Error: Parsing or semantic analysis failed.\n');
    expect(simulated.out).not.toMatch(/\n\s+at /);
  });

  it('reads string literals with every escape TLA+ has, an escaped backslash before a letter included', () => {
    // the module: S == <<"d\\e", "q\"t", "a\nb\tc">>, and Init checks S[2] is q"t
    const body =
      'S == <<"d\\\\e", "q\\"t", "a\\nb\\tc">>\nInit == x = 0 /\\ S[2] = "q\\"t" /\\ S[1] # S[3]\n';
    const file = writeSpec('Strs', `${header('Strs')}${body}Next == UNCHANGED x\n====\n`);
    const { code, out } = tlcts(file);
    expect(out).not.toMatch(/\n\s+at /);
    expect(code).toBe(0);
    expect(out).toContain('1 distinct state');
  });
});

describe("TLC's exit codes and words for what it refuses (EC.ExitStatus#errorConstantToExitStatus)", () => {
  const counter = (name: string, defs: string) =>
    `---- MODULE ${name} ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = (x + 1) % 3\n${defs}\n====\n`;

  it('75: any error computing the initial states (replayed, TLC_NESTED_EXPRESSION); 255: a stack overflow in a step', () => {
    const spec = counter(
      'Errs',
      'LOCAL INSTANCE TLC\nRECURSIVE F(_)\nF(n) == F(n + 1)\nByZero == x = 1 \\div 0\nAsserting == x = 0 /\\ Assert(FALSE, "no")\nDeep == x = F(0)\nDeepStep == x\' = F(x)',
    );
    for (const init of ['ByZero', 'Asserting', 'Deep']) {
      const { result } = check(writeSpec('Errs', spec, `INIT ${init}\nNEXT Next\n`));
      expect({ init, code: result.exitCode }).toEqual({ init, code: 75 });
    }
    const { result } = check(writeSpec('Errs', spec, 'INIT Init\nNEXT DeepStep\n'));
    expect(result).toMatchObject({
      exitCode: 255,
      message:
        'This was a Java StackOverflowError. It was probably the result\nof an incorrect recursive function definition that caused TLC to enter\nan infinite loop when trying to compute the function or its application\nto an element in its putative domain.',
    });
  });

  describe('an invariant or action property that cannot be evaluated on a successor (ModelChecker#doNextEvalFailed)', () => {
    // x counts 0, 1, 2; f is defined on {0, 1} only, so evaluating f[x] fails at the third state.
    const failing = counter(
      'EvalFail',
      "f == [i \\in {0, 1} |-> i]\nInv == f[x] >= 0\nAct == [][f[x'] >= 0]_x",
    );
    const applying =
      'Attempted to apply function:\n(0 :> 0 @@ 1 :> 1)\nto argument 2, which is not in the domain of the function.';
    for (const [cfg, code, message] of [
      ['INIT Init\nNEXT Next\nINVARIANT Inv\n', 76, `Evaluating invariant Inv failed.\n${applying}`],
      ['INIT Init\nNEXT Next\nPROPERTY Act\n', 13, `Evaluating action property Act failed.\n${applying}`],
    ] as const) {
      it(`${code}: ${message.split('\n')[0]} (the behaviour up to the successor)`, () => {
        const { result } = check(writeSpec('EvalFail', failing, cfg));
        expect(result).toMatchObject({
          verdict: 'evaluation error',
          exitCode: code,
          message,
          distinctStates: 3,
          generatedStates: 3,
          depth: 3,
        });
        expect(result.trace?.map((t) => show(t.state[0]!))).toEqual(['0', '1', '2']);
      });
    }
    it('75: the same invariant failing on an initial state is an error of the initial states', () => {
      const { result } = check(
        writeSpec(
          'EvalFail',
          failing.replace('Init == x = 0', 'Init == x = 2'),
          'INIT Init\nNEXT Next\nINVARIANT Inv\n',
        ),
      );
      expect(result.exitCode).toBe(75);
    });
  });

  it('76: an INVARIANT that is not a state predicate, temporal or action (TLC_INVARIANT_VIOLATED_LEVEL)', () => {
    for (const inv of ['Live', 'Step']) {
      const { result, text } = check(
        writeSpec(
          'Level',
          counter('Level', "Live == <>(x = 2)\nStep == x' > x"),
          `INIT Init\nNEXT Next\nINVARIANT ${inv}\n`,
        ),
      );
      expect(result.exitCode).toBe(76);
      const message = `The invariant ${inv} is not a state predicate (one with no primes or temporal operators).`;
      expect(result.message).toBe(message);
      expect(text).toMatch(/^Starting\.\.\. \(.*\)\nError: /);
      expect(text).toContain(`\nError: ${message}\nFinished in `);
    }
  });

  it('75: EXTENDS Reals, whose / TLC cannot evaluate (Reals.tla\'s CHOOSE over the string "Reals")', () => {
    const tla = "---- MODULE Div ----\nEXTENDS Reals\nVARIABLE x\nInit == x = 1\nNext == x' = x / 2\n====\n";
    const { result } = check(writeSpec('Div', tla));
    expect(result.exitCode).toBe(75);
    expect(result.message).toBe(
      'Attempted to compute the value of an expression of form\nCHOOSE x \\in S: P, but S was not enumerable.\nline 17, col 10 to line 17, col 38 of module Reals',
    );
    // A specification that only extends it is checked as TLC checks it.
    const plain = check(
      writeSpec(
        'Plain',
        "---- MODULE Plain ----\nEXTENDS Reals\nVARIABLE x\nInit == x = 1\nNext == x' = x\n====\n",
      ),
    );
    expect(plain.result.exitCode).toBe(0);
  });

  it('75: an unbounded CHOOSE, when it is evaluated', () => {
    const { result } = check(writeSpec('Unbounded', counter('Unbounded', 'Some == CHOOSE y : y > x')));
    expect(result.exitCode).toBe(0);
    const used = check(
      writeSpec(
        'Used',
        "---- MODULE Used ----\nVARIABLE x\nInit == x = 0\nNext == x' = CHOOSE y : y # x\n====\n",
      ),
    );
    expect(used.result.exitCode).toBe(75);
    expect(used.result.message).toBe(
      'TLC attempted to evaluate an unbounded CHOOSE.\nMake sure that the expression is of form CHOOSE x \\in S: P(x).\nline 4, col 14 to line 4, col 29 of module Used',
    );
  });

  it('255: a temporal formula evaluated in a predicate (TLC_ENCOUNTERED_FORMULA_IN_PREDICATE); 75 in the initial predicate', () => {
    const inNext = check(
      writeSpec('InPred', counter('InPred', "Step == x' = x /\\ [](x < 3)"), 'INIT Init\nNEXT Step\n'),
    );
    expect(inNext.result.exitCode).toBe(255);
    expect(inNext.result.message).toBe(
      'TLC encountered a temporal formula ([]A) when evaluating a predicate or action.\nline 6, col 19 to line 6, col 27 of module InPred',
    );
    // an error computing the initial states is replayed and reported as TLC_NESTED_EXPRESSION
    const { result } = check(
      writeSpec('InPred', counter('InPred', 'Start == x = 0 /\\ [](x < 3)'), 'INIT Start\nNEXT Next\n'),
    );
    expect(result.exitCode).toBe(75);
    expect(result.message).toBe(
      'TLC encountered a temporal formula ([]A) when evaluating a predicate or action.\nline 6, col 19 to line 6, col 27 of module InPred',
    );
  });

  it('151 and 255: numbers TLC cannot handle, refused before it starts', () => {
    const real = check(writeSpec('Real', counter('Real', 'Half == 1.5')));
    expect(real.result.exitCode).toBe(151);
    expect(real.result.message).toBe(
      "TLC can't handle real numbers.\nline 6, col 9 to line 6, col 11 of module Real",
    );
    const big = check(writeSpec('Big', counter('Big', 'Huge == 2147483648')));
    expect(big.result.exitCode).toBe(255);
    expect(big.result.message).toBe(
      "TLC can't handle a number this big.\nline 6, col 9 to line 6, col 18 of module Big",
    );
  });

  it('151: what the configuration asks that the specification does not give (TLC_CONFIG_*)', () => {
    const cases = [
      ['NEXT Next\n', MISSING_INIT],
      ['INIT Init\nINVARIANT Small\n', 'The configuration file did not specify the next state predicate.'],
      [
        'INIT Init\nNEXT Next\nSPECIFICATION Spec\n',
        'The configuration file cannot specify both INIT/NEXT and SPECIFICATION fields.',
      ],
      [
        'INIT Init\nNEXT Next\nINVARIANT Nope\n',
        'The invariant Nope specified in the configuration file\nis not defined in the specification.',
      ],
      [
        'SPECIFICATION Half\n',
        'TLC cannot handle this conjunct of the spec:\nline 7, col 9 to line 7, col 18 of module Conf',
      ],
    ] as const;
    for (const [cfg, message] of cases) {
      const { result } = check(
        writeSpec(
          'Conf',
          counter('Conf', "Spec == Init /\\ [][Next]_x\nHalf == x' = x + 1\nSmall == x < 3"),
          cfg,
        ),
      );
      expect({ code: result.exitCode, message: result.message }).toEqual({ code: 151, message });
    }
  });

  it('151: a constant substituted by a definition that reads a variable (processConstantDefns)', () => {
    const spec =
      "---- MODULE Subst ----\nCONSTANT C\nVARIABLE x\nNow == x\nInit == x = C\nNext == x' = x\n====\n";
    const { result } = check(writeSpec('Subst', spec, 'CONSTANT C <- Now\nINIT Init\nNEXT Next\n'));
    expect({ code: result.exitCode, message: result.message }).toEqual({
      code: 151,
      message: 'The configuration file substitutes constant C with non-constant Now',
    });
  });

  describe("a model without INIT or NEXT, as TLC's SpecProcessor allows it", () => {
    // INIT may be missing only when nothing needs a state (no variable, invariant or property), NEXT
    // only when nothing checks a step (no invariant or property); without NEXT, the initial states
    // end the run: none is a success, some are TLC_STATES_AND_NO_NEXT_ACTION (75).
    const constants = (assume: string) =>
      `---- MODULE Consts ----\nEXTENDS Naturals\nCONSTANT N\nASSUME ${assume}\nASSUME \\A k \\in 1..N : k >= 1\n====\n`;
    it('constants and ASSUMEs only: the assumptions checked, 0 states, depth 0, exit 0', () => {
      // No state generated: depth 0 (`ModelChecker#printSummary`; TLC's CharacterTest asserts it).
      const { result, text } = check(writeSpec('Consts', constants('N > 2'), 'CONSTANT N = 5\n'));
      expect(result).toMatchObject({ verdict: 'success', exitCode: 0, distinctStates: 0, depth: 0 });
      expect(text).toContain('Finished computing initial states: 0 distinct states generated');
      expect(text).toContain('0 states generated, 0 distinct states found, 0 states left on queue.');
      expect(text).not.toContain('outdegree');
    });
    it('constants and ASSUMEs only: a false assumption is still exit 10', () => {
      const { result } = check(writeSpec('Consts', constants('N > 9'), 'CONSTANT N = 5\n'));
      expect(result).toMatchObject({ verdict: 'assumption false', exitCode: 10 });
    });
    it('a SPECIFICATION wrapped in a LET is one temporal formula to TLC, with no initial predicate (151)', () => {
      // processConfigSpec splits /\ and unfolds names, but does not go into a LET
      const spec = counter('LetSpec', 'Spec == LET I == Init IN I /\\ [][Next]_x');
      const { result } = check(writeSpec('LetSpec', spec, 'SPECIFICATION Spec\n'));
      expect(result).toMatchObject({ exitCode: 151, message: MISSING_INIT });
    });
    it('variables need INIT (151); INIT without NEXT and without checks ends after the initial states (75)', () => {
      const spec = counter('NoNext', 'Spec == Init\nLive == <>(x = 0)');
      expect(check(writeSpec('NoNext', spec, 'NEXT Next\n')).result).toMatchObject({
        exitCode: 151,
        message: MISSING_INIT,
      });
      for (const cfg of ['INIT Init\n', 'SPECIFICATION Spec\n']) {
        const { result, text } = check(writeSpec('NoNext', spec, cfg));
        expect(result).toMatchObject({
          exitCode: 75,
          message: 'No next state actions defined to generate successor states from.',
        });
        expect(text).toContain('Finished computing initial states: 1 distinct state generated');
      }
      // a state-level PROPERTY is checked on the initial states; a temporal one needs steps
      expect(check(writeSpec('NoNext', spec, 'INIT Init\nPROPERTY Spec\n')).result.exitCode).toBe(75);
      expect(check(writeSpec('NoNext', spec, 'INIT Init\nPROPERTY Live\n')).result).toMatchObject({
        exitCode: 151,
        message: 'The configuration file did not specify the next state predicate.',
      });
    });
  });

  it('255: a configuration file with a syntax error (ConfigFileException), before TLC starts', () => {
    const { result, text } = check(
      writeSpec('BadCfg', counter('BadCfg', ''), 'INIT Init\nNEXT Next\nCONSTANT = 1\n'),
    );
    expect(result.exitCode).toBe(255);
    expect(text).not.toContain('Starting...');
  });
});
