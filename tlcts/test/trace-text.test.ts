import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../src/check/run.js';
import { corpusDir, loadCorpus } from './support/corpus.js';

/**
 * The printed error trace, byte for byte against TLC's log: from the first state after
 * `Error: The behavior up to this point is:` (or the state after `While working on the initial
 * state:` / `... is violated by the initial state:`) through the blank line that ends the last state.
 * What follows it is not compared: the nested-expressions block after evaluation errors (we don't
 * print it) and `CounterExample written`.
 */
function traceBlock(text: string): string | undefined {
  const lines = text.split('\n');
  const header = lines.findIndex(
    (l) =>
      l === 'Error: The behavior up to this point is:' ||
      l === 'While working on the initial state:' ||
      l.endsWith(' is violated by the initial state:'),
  );
  if (header < 0) return undefined;
  let end = header + 1;
  do {
    while (end < lines.length && lines[end] !== '') end++;
    end++;
  } while (end < lines.length && /^State \d+: </.test(lines[end]!));
  return lines.slice(header + 1, end).join('\n');
}

const dir = corpusDir();
const tlcLog = (cfg: string) => fs.readFileSync(path.join(dir, cfg.replace(/\.cfg$/, '.tlc.log')), 'utf8');
const withTrace = loadCorpus().filter(
  (e) => e.propertyKind !== 'temporal' && traceBlock(tlcLog(e.cfg)) !== undefined,
);

const ours = new Map<string, string | undefined>();
function ourBlock(e: (typeof withTrace)[number]): string | undefined {
  if (!ours.has(e.model)) {
    const lines: string[] = [];
    runCheck({ tlaFile: path.join(dir, e.tla), cfgFile: path.join(dir, e.cfg), out: (l) => lines.push(l) });
    ours.set(e.model, traceBlock(lines.join('\n')));
  }
  return ours.get(e.model);
}

describe('error traces as TLC prints them', () => {
  it('covers the corpus models with a trace', () => {
    expect(withTrace.length).toBeGreaterThanOrEqual(24);
  });
  for (const e of withTrace) {
    it(e.model, () => {
      expect(ourBlock(e)).toBe(traceBlock(tlcLog(e.cfg)));
    });
  }
});
