import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeMuLaw, encodeMuLaw } from './mulaw.js';

describe('G.711 μ-law', () => {
  it('encodes the reference points of the standard', () => {
    expect([...encodeMuLaw(Int16Array.from([0, -1, 32767, -32768, 1000]))]).toEqual([
      0xff, 0x7f, 0x80, 0x00, 0xce,
    ]);
  });

  it('round-trips every sample within the step of its segment (at most 1/16 of its size, plus the bias)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -32768, max: 32767 }), (x) => {
        const [y] = decodeMuLaw(encodeMuLaw(Int16Array.from([x])));
        expect(Math.abs(y! - Math.max(-32635, Math.min(32635, x)))).toBeLessThanOrEqual(
          Math.abs(x) / 16 + 132,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('decoding then encoding gives back the same byte', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const again = encodeMuLaw(decodeMuLaw(all));
    // 0x7f and 0xff both mean zero; every other byte comes back as itself
    expect([...again].filter((b, i) => b !== i && !(i === 0x7f && b === 0xff))).toEqual([]);
  });
});
