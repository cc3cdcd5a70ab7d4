import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it, expect } from 'vitest';
import { parseCfg } from '../src/cfg/parse.js';
import { CfgError, type ModelConfig } from '../src/cfg/types.js';
import { corpusDir } from './support/corpus.js';

const parse = (text: string): ModelConfig => parseCfg(text, 'M.cfg');

/** The CfgError that parsing `text` throws. */
function parseError(text: string): CfgError {
  try {
    parse(text);
  } catch (e) {
    if (e instanceof CfgError) return e;
    throw e;
  }
  throw new Error(`expected a CfgError for ${JSON.stringify(text)}`);
}

describe('parseCfg: keywords', () => {
  it('gives empty lists and no optional fields for an empty file', () => {
    expect(parse('')).toEqual({
      file: 'M.cfg',
      constants: [],
      invariants: [],
      properties: [],
      constraints: [],
      actionConstraints: [],
      postconditions: [],
      possible: [],
    });
  });

  it('reads every single-name keyword', () => {
    const c = parse(
      [
        'SPECIFICATION Spec',
        'INIT Init',
        'NEXT Next',
        'SYMMETRY Sym',
        'VIEW View',
        'ALIAS Alias',
        'POSTCONDITION Post',
        'POSTCONDITIONS Post2 Post3',
      ].join('\n'),
    );
    expect(c.specification).toBe('Spec');
    expect(c.init).toBe('Init');
    expect(c.next).toBe('Next');
    expect(c.symmetry).toBe('Sym');
    expect(c.view).toBe('View');
    expect(c.alias).toBe('Alias');
    expect(c.postconditions).toEqual(['Post', 'Post2', 'Post3']);
    expect(c.checkDeadlock).toBeUndefined();
  });

  it('reads CHECK_DEADLOCK TRUE and FALSE', () => {
    expect(parse('CHECK_DEADLOCK TRUE').checkDeadlock).toBe(true);
    expect(parse('CHECK_DEADLOCK FALSE').checkDeadlock).toBe(false);
  });

  it('reads the singular and plural forms of every list keyword', () => {
    const c = parse(
      [
        'INVARIANT I1',
        'INVARIANTS I2 I3',
        'PROPERTY P1',
        'PROPERTIES P2',
        'P3',
        'CONSTRAINT C1',
        'CONSTRAINTS C2 C3',
        'ACTION_CONSTRAINT A1',
        'ACTION_CONSTRAINTS A2',
        '  A3',
      ].join('\n'),
    );
    expect(c.invariants).toEqual(['I1', 'I2', 'I3']);
    expect(c.properties).toEqual(['P1', 'P2', 'P3']);
    expect(c.constraints).toEqual(['C1', 'C2', 'C3']);
    expect(c.actionConstraints).toEqual(['A1', 'A2', 'A3']);
  });

  it('accumulates repeated list sections in file order', () => {
    const c = parse('INVARIANT A\nINIT Init\nINVARIANTS B C\nNEXT Next\nINVARIANT D');
    expect(c.invariants).toEqual(['A', 'B', 'C', 'D']);
    const k = parse('CONSTANT N = 1\nINIT Init\nCONSTANTS M = 2');
    expect(k.constants.map((x) => x.name)).toEqual(['N', 'M']);
  });

  it('accepts an empty section, as TLC does', () => {
    const c = parse('CONSTANTS\nINVARIANTS\nINIT Init');
    expect(c.constants).toEqual([]);
    expect(c.invariants).toEqual([]);
    expect(c.init).toBe('Init');
  });

  it('allows several sections on one line', () => {
    const c = parse('INIT Init NEXT Next INVARIANT TypeOK CONSTANT N = 3');
    expect(c.init).toBe('Init');
    expect(c.next).toBe('Next');
    expect(c.invariants).toEqual(['TypeOK']);
    expect(c.constants).toHaveLength(1);
  });
});

describe('parseCfg: CONSTANTS', () => {
  it('reads integers, strings, booleans and model values', () => {
    const c = parse('CONSTANTS\n  N = 3\n  Name = "str"\n  B = TRUE\n  F = FALSE\n  X = foo\n  Zero = 0');
    expect(c.constants).toEqual([
      { kind: 'value', name: 'N', value: { kind: 'int', value: 3 }, loc: { line: 2, column: 3 } },
      { kind: 'value', name: 'Name', value: { kind: 'string', value: 'str' }, loc: { line: 3, column: 3 } },
      { kind: 'value', name: 'B', value: { kind: 'bool', value: true }, loc: { line: 4, column: 3 } },
      { kind: 'value', name: 'F', value: { kind: 'bool', value: false }, loc: { line: 5, column: 3 } },
      { kind: 'value', name: 'X', value: { kind: 'modelValue', name: 'foo' }, loc: { line: 6, column: 3 } },
      { kind: 'value', name: 'Zero', value: { kind: 'int', value: 0 }, loc: { line: 7, column: 3 } },
    ]);
  });

  it('binds `M = M` to a model value of the same name', () => {
    expect(parse('CONSTANT M = M').constants[0]).toEqual({
      kind: 'value',
      name: 'M',
      value: { kind: 'modelValue', name: 'M' },
      loc: { line: 1, column: 10 },
    });
  });

  it('reads sets of model values, empty sets and nested sets', () => {
    const c = parse('CONSTANTS Procs = {p1, p2, p3}  E = {}  S = {{1, 2}, {}, {"a", TRUE}}');
    const values = c.constants.map((k) => (k.kind === 'value' ? k.value : undefined));
    expect(values).toEqual([
      {
        kind: 'set',
        elements: [
          { kind: 'modelValue', name: 'p1' },
          { kind: 'modelValue', name: 'p2' },
          { kind: 'modelValue', name: 'p3' },
        ],
      },
      { kind: 'set', elements: [] },
      {
        kind: 'set',
        elements: [
          {
            kind: 'set',
            elements: [
              { kind: 'int', value: 1 },
              { kind: 'int', value: 2 },
            ],
          },
          { kind: 'set', elements: [] },
          {
            kind: 'set',
            elements: [
              { kind: 'string', value: 'a' },
              { kind: 'bool', value: true },
            ],
          },
        ],
      },
    ]);
  });

  it('reads substitutions, module substitutions and instance paths', () => {
    const c = parse('CONSTANTS\n  Lo <- DefaultLo\n  C <- [Mod] Def\n  Inst!Op <- MyOp');
    expect(c.constants).toEqual([
      { kind: 'substitution', name: 'Lo', by: 'DefaultLo', loc: { line: 2, column: 3 } },
      { kind: 'moduleSubstitution', name: 'C', module: 'Mod', by: 'Def', loc: { line: 3, column: 3 } },
      { kind: 'substitution', name: 'Inst!Op', by: 'MyOp', loc: { line: 4, column: 3 } },
    ]);
  });

  it('reads operator values at given arguments and module-specific values', () => {
    const c = parse('CONSTANTS\n  Op(1, a) = "x"\n  K = [Mod] 5\n  F(2) = [Mod] {}');
    expect(c.constants).toEqual([
      {
        kind: 'operatorValue',
        name: 'Op',
        args: [
          { kind: 'int', value: 1 },
          { kind: 'modelValue', name: 'a' },
        ],
        value: { kind: 'string', value: 'x' },
        loc: { line: 2, column: 3 },
      },
      {
        kind: 'moduleValue',
        name: 'K',
        module: 'Mod',
        args: [],
        value: { kind: 'int', value: 5 },
        loc: { line: 3, column: 3 },
      },
      {
        kind: 'moduleValue',
        name: 'F',
        module: 'Mod',
        args: [{ kind: 'int', value: 2 }],
        value: { kind: 'set', elements: [] },
        loc: { line: 4, column: 3 },
      },
    ]);
  });

  it('reads several entries on one line and entries without spaces', () => {
    const c = parse('CONSTANTS N=3 M<-Def S={a,b}');
    expect(c.constants.map((k) => k.kind)).toEqual(['value', 'substitution', 'value']);
  });

  it('unescapes TLA+ string escapes and keeps comment markers inside strings', () => {
    const c = parse(String.raw`CONSTANT S = "a\"b\\c\nd \\* (* not a comment"`);
    const k = c.constants[0];
    expect(k?.kind === 'value' && k.value).toEqual({
      kind: 'string',
      value: 'a"b\\c\nd \\* (* not a comment',
    });
  });

  it('accepts the largest 32-bit integer', () => {
    const k = parse('CONSTANT N = 2147483647').constants[0];
    expect(k?.kind === 'value' && k.value).toEqual({ kind: 'int', value: 2147483647 });
  });
});

describe('parseCfg: comments and layout', () => {
  it('skips line comments, block comments and nested block comments', () => {
    const c = parse(
      [
        '\\* a line comment INIT Wrong',
        '(* a block',
        '   comment (* nested INIT Wrong *) still comment *)',
        'INIT Init \\* trailing',
        'INVARIANTS A (* between *) B',
        '\\* C is commented out: C',
        '  D',
      ].join('\n'),
    );
    expect(c.init).toBe('Init');
    expect(c.invariants).toEqual(['A', 'B', 'D']);
  });

  it('handles CRLF line endings, tabs and a byte-order mark', () => {
    const c = parse('\uFEFFINIT Init\r\nINVARIANT\tA\r\n\tB\r\n');
    expect(c.init).toBe('Init');
    expect(c.invariants).toEqual(['A', 'B']);
  });

  it('counts lines across comments for locations', () => {
    const c = parse('(* one\ntwo\nthree *) CONSTANT\n\n    N = 1');
    expect(c.constants[0]?.loc).toEqual({ line: 5, column: 5 });
  });
});

describe('parseCfg: errors', () => {
  it('throws CfgError with file, location and a "file:line:column:" message', () => {
    const e = parseError('INIT Init\nCONSTANTS\n  Lo = -6');
    expect(e).toBeInstanceOf(CfgError);
    expect(e.file).toBe('M.cfg');
    expect(e.loc).toEqual({ line: 3, column: 8 });
    expect(e.message).toMatch(/^M\.cfg:3:8: negative integers are not allowed/);
  });

  it('rejects negative integers anywhere, including without spaces and in sets', () => {
    expect(parseError('CONSTANT Lo=-6').message).toMatch(/1:13: negative integers are not allowed/);
    expect(parseError('CONSTANT S = {1, -2}').message).toMatch(/1:18: negative integers are not allowed/);
  });

  it('rejects tuples, which TLC does not accept in a .cfg', () => {
    expect(parseError('CONSTANT T = <<1, 2>>').message).toMatch(/1:14: tuples are not allowed/);
  });

  it('rejects commas between names, with a hint', () => {
    const e = parseError('INVARIANTS TypeOK, Safe');
    expect(e.loc).toEqual({ line: 1, column: 18 });
    expect(e.message).toContain('expected an invariant name or a keyword, found ","');
    expect(e.message).toContain('not commas');
    expect(parseError('PROPERTY P, Q').message).toContain('expected a property name or a keyword');
  });

  it('rejects anything that is not a keyword at the top level', () => {
    expect(parseError('FOO Bar').message).toMatch(
      /^M\.cfg:1:1: expected a keyword \(CONSTANT, .*\), found "FOO"/,
    );
    expect(parseError('init Init').message).toContain('found "init"');
    expect(parseError('INIT Init\n  = 3').message).toMatch(/2:3: expected a keyword .* found "="/);
    expect(parseError('TYPE_CONSTRAINT T').message).toContain('found "TYPE_CONSTRAINT"');
  });

  it('rejects a single-name keyword given twice', () => {
    expect(parseError('INIT A\nNEXT N\nINIT B').message).toMatch(
      /^M\.cfg:3:1: INIT given twice \(first at line 1, column 1\)/,
    );
    expect(parseError('SPECIFICATION S SPECIFICATION T').message).toContain('SPECIFICATION given twice');
    expect(parseError('CHECK_DEADLOCK TRUE\nCHECK_DEADLOCK FALSE').message).toMatch(
      /2:1: CHECK_DEADLOCK given twice/,
    );
  });

  it('rejects a missing or misplaced name after a single-name keyword', () => {
    expect(parseError('INIT').message).toMatch(
      /1:5: expected an operator name after INIT, found end of file/,
    );
    expect(parseError('INIT NEXT Next').message).toMatch(
      /1:6: expected an operator name after INIT, found keyword NEXT/,
    );
    expect(parseError('VIEW 3').message).toContain('expected an operator name after VIEW, found "3"');
  });

  it('rejects CHECK_DEADLOCK without TRUE or FALSE', () => {
    expect(parseError('CHECK_DEADLOCK yes').message).toMatch(
      /1:16: expected TRUE or FALSE after CHECK_DEADLOCK/,
    );
    expect(parseError('CHECK_DEADLOCK').message).toContain('found end of file');
  });

  it('rejects malformed constant entries', () => {
    expect(parseError('CONSTANT N == 3').message).toMatch(
      /1:12: expected "=" or "<-" after constant N, found "=="/,
    );
    expect(parseError('CONSTANT N 3').message).toContain('expected "=" or "<-" after constant N, found "3"');
    expect(parseError('CONSTANT 3 = 3').message).toContain(
      'expected a constant name or a keyword, found "3"',
    );
    expect(parseError('CONSTANT N =').message).toMatch(/1:13: expected a value .* found end of file/);
    expect(parseError('CONSTANT N =\nINIT Init').message).toMatch(
      /2:1: expected a value .* found keyword INIT/,
    );
    expect(parseError('CONSTANT C <-').message).toContain('expected a definition name after "C <-"');
    expect(parseError('CONSTANT C <- [Mod Def').message).toContain(
      'expected "]" after module name Mod, found "Def"',
    );
    expect(parseError('CONSTANT C <- [Mod] 3').message).toContain(
      'expected a definition name after "<- [Mod]"',
    );
    expect(parseError('CONSTANT Op() = 1').message).toContain('expected a value');
    expect(parseError('CONSTANT Op(1 = 1').message).toContain('expected ")" to close the arguments of Op');
    expect(parseError('CONSTANT A! <- B').message).toContain('expected a name after "A!"');
  });

  it('rejects malformed sets', () => {
    expect(parseError('CONSTANT S = {1, 2').message).toMatch(
      /1:19: expected "," or "}" in a set, found end of file/,
    );
    expect(parseError('CONSTANT S = {1 2}').message).toContain('expected "," or "}" in a set, found "2"');
    expect(parseError('CONSTANT S = {1,}').message).toContain('expected a value');
  });

  it('rejects integers beyond 32 bits', () => {
    expect(parseError('CONSTANT N = 2147483648').message).toContain('integer 2147483648 is too large');
  });

  it('reports lexical errors at their location', () => {
    expect(parseError('CONSTANT S = "abc\nINIT Init').message).toMatch(/1:14: unterminated string literal/);
    expect(parseError('INIT Init\n(* open (* nested *)').message).toMatch(/2:1: unterminated comment/);
    expect(parseError('CONSTANT S = "a\\qb"').message).toMatch(/invalid escape sequence "\\q"/);
    expect(parseError('CONSTANT R = 1.5').message).toMatch(/1:15: unexpected character "\."/);
    expect(parseError('INIT Init\nNEXT Next;').message).toMatch(/2:10: unexpected character ";"/);
    expect(parseError('CONSTANT X = __').message).toContain('invalid name "__"');
  });

  it('reports the first error in file order', () => {
    expect(parseError('FOO\nINIT Init;').message).toMatch(/^M\.cfg:1:1: /);
  });
});

function cfgFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.cfg'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

describe('parseCfg: the TLC corpus', () => {
  const dir = corpusDir();
  const read = (path: string): ModelConfig => parseCfg(readFileSync(join(dir, path), 'utf8'), path);

  it('parses every .cfg of the corpus', () => {
    const files = cfgFiles(dir);
    expect(files.length).toBeGreaterThanOrEqual(68);
    for (const f of files) {
      const c = parseCfg(readFileSync(f, 'utf8'), relative(dir, f));
      expect(c.specification !== undefined || (c.init !== undefined && c.next !== undefined), f).toBe(true);
    }
  });

  it('reads Arith.cfg', () => {
    const c = read('Arith/Arith.cfg');
    expect(c.constants).toEqual([
      { kind: 'substitution', name: 'Lo', by: 'DefaultLo', loc: { line: 3, column: 5 } },
      { kind: 'value', name: 'Hi', value: { kind: 'int', value: 6 }, loc: { line: 4, column: 5 } },
      { kind: 'value', name: 'MaxDiv', value: { kind: 'int', value: 4 }, loc: { line: 5, column: 5 } },
    ]);
    expect(c.init).toBe('Init');
    expect(c.next).toBe('Next');
    expect(c.invariants).toEqual(['TypeOK', 'DivMod', 'Powers', 'Intervals', 'Negation']);
  });

  it('reads model-value sets, SYMMETRY and CHECK_DEADLOCK (TwoPhase.cfg)', () => {
    const c = read('TwoPhase/TwoPhase.cfg');
    expect(c.constants[0]).toMatchObject({
      kind: 'value',
      name: 'RM',
      value: {
        kind: 'set',
        elements: [
          { kind: 'modelValue', name: 'r1' },
          { kind: 'modelValue', name: 'r2' },
          { kind: 'modelValue', name: 'r3' },
        ],
      },
    });
    expect(c.symmetry).toBe('Symm');
    expect(c.specification).toBe('Spec');
    expect(c.checkDeadlock).toBe(false);
  });

  it('reads VIEW and ACTION_CONSTRAINT (Odometer.cfg)', () => {
    const c = read('Odometer/Odometer.cfg');
    expect(c.view).toBe('View');
    expect(c.actionConstraints).toEqual(['NoTwoLongMoves']);
    expect(c.invariants).toEqual(['TypeOK', 'Consistent']);
  });

  it('reads strings, booleans and `M = M` (Assumptions.cfg, Philosophers.cfg)', () => {
    const a = read('Assumptions/Assumptions.cfg');
    expect(a.constants.slice(2).map((k) => k.kind === 'value' && k.value)).toEqual([
      { kind: 'string', value: 'dispenser' },
      { kind: 'bool', value: false },
    ]);
    const p = read('Philosophers/Philosophers.cfg');
    expect(p.constants[1]).toMatchObject({
      kind: 'value',
      name: 'Free',
      value: { kind: 'modelValue', name: 'Free' },
    });
  });

  it('reads several properties (Clock_Refines.cfg)', () => {
    expect(read('Clock/Clock_Refines.cfg').properties).toEqual([
      'RefinesHours',
      'SomeMidnight',
      'Midnight',
      'KeepsTicking',
      'NoonLeadsToOne',
    ]);
  });
});
