/**
 * G.711 μ-law: 16-bit linear PCM ↔ 8-bit logarithmic samples (ITU-T G.711), how the avatar's speech
 * travels: half the bytes, speech quality as on a telephone line. The page decodes it (console.js).
 */
const BIAS = 0x84;
const CLIP = 32635;

export function encodeMuLaw(pcm: Int16Array): Buffer {
  const out = Buffer.alloc(pcm.length);
  for (let i = 0; i < pcm.length; i++) {
    let sample = pcm[i]!;
    const sign = sample < 0 ? 0x80 : 0;
    sample = Math.min(CLIP, Math.abs(sample)) + BIAS;
    let exponent = 7;
    for (let mask = 0x4000; (sample & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
    const mantissa = (sample >> (exponent + 3)) & 0x0f;
    out[i] = ~(sign | (exponent << 4) | mantissa) & 0xff;
  }
  return out;
}

export function decodeMuLaw(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const u = ~bytes[i]! & 0xff;
    const magnitude = ((((u & 0x0f) << 3) + BIAS) << ((u >> 4) & 0x07)) - BIAS;
    out[i] = u & 0x80 ? -magnitude : magnitude;
  }
  return out;
}
