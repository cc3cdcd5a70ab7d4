import { describe, expect, it } from 'vitest';
import { compareWithTlc, loadCorpus } from './support/corpus.js';

/** Every corpus model: verdict, exit code, distinct/generated states, depth and trace against TLC's. */
describe('TLC corpus parity', () => {
  for (const e of loadCorpus()) {
    it(`${e.model}: ${e.verdict}`, () => {
      const { mismatches, notCompared } = compareWithTlc(e);
      if (notCompared.length > 0) console.log(`${e.model}: not compared: ${notCompared.join('; ')}`);
      expect(mismatches).toEqual([]);
    });
  }
});
