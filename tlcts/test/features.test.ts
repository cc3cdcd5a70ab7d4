import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../src/check/run.js';
import { figures } from './support/figures.js';

const spec = (name: string, cfg = name) => ({
  tlaFile: path.join(import.meta.dirname, 'specs', name, `${name}.tla`),
  cfgFile: path.join(import.meta.dirname, 'specs', name, `${cfg}.cfg`),
});

describe('TLC features', () => {
  it('TLCExt: AssertError, TLCGetOrDefault, TLCGetAndSet and AssertEq behave as in TLC', () => {
    const lines: string[] = [];
    const { result } = runCheck({ ...spec('TLCExtOps'), out: (l) => lines.push(l) });
    expect(result.verdict).toBe('success');
    expect(result.distinctStates).toBe(3);
    expect(lines.some((l) => l.includes('Assertion failed'))).toBe(false);
  });

  it("TLCExt's Trace: the behaviour to the state, in Next, in invariants and in an ALIAS", () => {
    // Figures by hand in TraceOp.tla.
    const { result } = runCheck({ ...spec('TraceOp'), checkDeadlock: false });
    expect(figures(result)).toEqual({ verdict: 'success', exitCode: 0, distinct: 8, generated: 8, depth: 4 });
    const lines: string[] = [];
    const alias = runCheck({ ...spec('TraceOp', 'TraceOp_Alias'), out: (l) => lines.push(l) }).result;
    expect(alias.verdict).toBe('invariant violated');
    const shown = lines.join('\n').match(/\/\\ steps = \d+\n\/\\ x = \d+/g);
    expect(shown).toEqual([
      '/\\ steps = 1\n/\\ x = 10',
      '/\\ steps = 2\n/\\ x = 11',
      '/\\ steps = 3\n/\\ x = 12',
      '/\\ steps = 4\n/\\ x = 13',
    ]);
  });

  it('POSTCONDITION: checked at the end with the final counters and CounterExample; a failure exits 10', () => {
    // Figures by hand in Postcondition.tla.
    const run = (cfg: string) => {
      const lines: string[] = [];
      const { result } = runCheck({
        ...spec('Postcondition', cfg),
        checkDeadlock: false,
        out: (l) => lines.push(l),
      });
      return { result, text: lines.join('\n') };
    };
    const ok = run('Postcondition');
    expect(figures(ok.result)).toEqual({
      verdict: 'success',
      exitCode: 0,
      distinct: 4,
      generated: 4,
      depth: 4,
    });
    expect(ok.text).not.toContain('Error');
    // The first failing one, in the configuration's order, after which TLC still prints its success lines.
    const wrong = run('Postcondition_Wrong');
    expect(wrong.result.exitCode).toBe(10);
    expect(wrong.text).toMatch(
      /Error: Postcondition Wrong at line 12, col 10 to line 12, col 31 of module Postcondition is false.\nModel checking completed. No error has been found./,
    );
    expect(wrong.text).not.toContain('Failing');
    const failing = run('Postcondition_Failing');
    expect(failing.result.exitCode).toBe(10);
    expect(failing.text).toContain('Error: Evaluating postcondition Failing at line 13, col 12');
    // After a violation: evaluated on its behaviour, the violation's exit status kept.
    const violation = run('Postcondition_Violation');
    expect(violation.result.exitCode).toBe(12);
    expect(violation.text).toMatch(/x = 2\n\n<<"behaviour", <<0, 1, 2>>>>\n3 states generated/);
  });

  it('computes a module-level constant definition once for the run (a random draw, a Print)', () => {
    const lines: string[] = [];
    const { result } = runCheck({ ...spec('ConstOnce'), out: (l) => lines.push(l) });
    expect(figures(result)).toEqual({ verdict: 'success', exitCode: 0, distinct: 1, generated: 2, depth: 1 });
    expect(lines.filter((l) => l.includes('computed once'))).toEqual(['"computed once"  3']);
  });

  it('ALIAS: trace states are shown as the alias record, primed variables from the successor', () => {
    const lines: string[] = [];
    const { result } = runCheck({ ...spec('Alias'), out: (l) => lines.push(l) });
    expect(result.verdict).toBe('invariant violated');
    const text = lines.join('\n');
    expect(text).toContain(
      'State 2: <Next line 6, col 9 to line 6, col 18 of module Alias>\n/\\ nextX = 2\n/\\ double = 2\n/\\ x = 1',
    );
  });

  it('takes SPECIFICATION from an instantiated module, overrides Nat everywhere, unfolds nested instances', () => {
    const { result, model } = runCheck(spec('SpecInBase'));
    // Prop is Mid's L!Reaches, <>(x = N), which holds under the instance's WF_x(Next); as in TLC,
    // it is named after the innermost definition it comes from.
    expect(model?.liveness?.properties.map((p) => p.name)).toEqual(['L!Reaches']);
    expect(result).toMatchObject({
      verdict: 'success',
      distinctStates: 4,
      generatedStates: 4,
      depth: 4,
    });
  });

  it('loads TLAPS and ignores proofs', () => {
    const { result } = runCheck(spec('WithProofs'));
    expect(result).toMatchObject({ verdict: 'success', distinctStates: 4, generatedStates: 4, depth: 4 });
  });

  it('decides membership in a filtered SUBSET SUBSET without enumerating it', () => {
    const { result } = runCheck(spec('LazyFilter'));
    expect(result).toMatchObject({ verdict: 'success', distinctStates: 6, generatedStates: 6, depth: 6 });
  });

  it('applies a module-scoped cfg override (Limit <- [Inner] SmallLimit) inside that module', () => {
    const { result } = runCheck(spec('ModuleOverride'));
    expect(result).toMatchObject({ verdict: 'success', distinctStates: 3, generatedStates: 3, depth: 3 });
  });

  it('applies a module-scoped cfg value (Limit = [Inner] 4) inside that module only', () => {
    const { result } = runCheck(spec('ModuleValue'));
    expect(result).toMatchObject({ verdict: 'success', distinctStates: 5, generatedStates: 5, depth: 5 });
  });

  it('refuses a definition of a name already imported, as SANY does', () => {
    const { result } = runCheck(spec('Redefined'));
    expect(result.exitCode).toBe(150);
    expect(result.message).toBe(
      "Multiply-defined symbol 'Append' in module Redefined at line 7, col 1: it is already defined or imported.",
    );
  });

  it("refuses _POSSIBLE (TLC's possibility conditions) by name", () => {
    const { result } = runCheck(spec('Alias', 'Possible'));
    expect({ code: result.exitCode, message: result.message }).toEqual({
      code: 151,
      message: expect.stringMatching(
        /^unsupported: _POSSIBLE \(TLC's possibility conditions\) in .*Possible\.cfg$/,
      ),
    });
  });

  it('refuses configuration forms it does not implement, by name and line', () => {
    const { result } = runCheck(spec('Alias', 'OperatorValue'));
    expect(result.exitCode).toBe(151);
    expect(result.message).toMatch(
      /^unsupported: a module-scoped operator defined by values \(Op\(\.\.\.\) = \[Alias\] \.\.\.\) at line 4 of/,
    );
  });
});
