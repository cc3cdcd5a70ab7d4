import { describe, expect, it } from 'vitest';
import { blankAlgorithmComments } from '../src/syntax/algorithm-comments.js';

describe('PlusCal comments blanked before tree-sitter parses', () => {
  it('blanks the inside of comments holding an algorithm, keeping length, newlines and tabs', () => {
    const source = '(* --algorithm A {\n\tskip; } *)\nx == 1 (* note *)\n';
    const blanked = blankAlgorithmComments(source);
    expect(blanked).toHaveLength(source.length);
    expect(blanked).toBe('(*                \n\t        *)\nx == 1 (* note *)\n');
  });

  it('takes nested comments whole, and no comment in strings or after \\*', () => {
    const nested = '(* (* inner *) --fair algorithm B { skip; } *) y';
    expect(blankAlgorithmComments(nested)).toBe(`(*${' '.repeat(nested.length - 6)}*) y`);
    const quoted = 'S == "(* --algorithm" \\* (* --algorithm\nT == 1';
    expect(blankAlgorithmComments(quoted)).toBe(quoted);
  });
});
