import { describe, expect, it } from 'vitest';
import { treeSitterText } from '../src/syntax/tree-sitter-text.js';

describe('the text tree-sitter parses', () => {
  it('blanks the inside of comments holding an algorithm, keeping lines and columns', () => {
    const source = '(* --algorithm A {\n  skip; } *)\nx == 1 (* note *)\n';
    expect(treeSitterText(source)).toBe('(*                \n          *)\nx == 1 (* note *)\n');
  });

  it('takes nested comments whole, and no comment in strings or after \\*', () => {
    const nested = '(* (* inner *) --fair algorithm B { skip; } *) y';
    expect(treeSitterText(nested)).toBe(`(*${' '.repeat(nested.length - 6)}*) y`);
    const quoted = 'S == "(* --algorithm" \\* (* --algorithm\nT == 1';
    expect(treeSitterText(quoted)).toBe(quoted);
  });

  it('turns tabs outside strings into the spaces SANY counts (to the next multiple of 8)', () => {
    expect(treeSitterText('A ==\t/\\ x\n\t/\\ y\nS == "a\tb"\t1')).toBe(
      'A ==    /\\ x\n        /\\ y\nS == "a\tb"      1',
    );
  });
});
