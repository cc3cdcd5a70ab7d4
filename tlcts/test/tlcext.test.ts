import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../src/check/run.js';

const dir = path.join(import.meta.dirname, 'specs/TLCExtOps');

describe('TLCExt operators in a model', () => {
  it('AssertError, TLCGetOrDefault, TLCGetAndSet and AssertEq behave as in TLC', () => {
    const lines: string[] = [];
    const { result } = runCheck({ tlaFile: path.join(dir, 'TLCExtOps.tla'), cfgFile: path.join(dir, 'TLCExtOps.cfg'), out: (l) => lines.push(l) });
    expect(result.verdict).toBe('success');
    expect(result.distinctStates).toBe(3);
    expect(lines.some((l) => l.includes('Assertion failed'))).toBe(false);
  });
});
