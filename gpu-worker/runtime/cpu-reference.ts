/**
 * The CPU reference backend: real, deterministic work per input, standing in for the GPU models.
 *   text → speech   normalisation, letter-to-phoneme rules, durations by phoneme class
 *   → motion        phoneme → viseme, mouth openness, coarticulation smoothing
 *   → video         frame descriptions at 25 fps, head pose from a per-session oscillator
 *   → media         a 42-byte payload per frame (layout at `encodePayload`)
 * The session's state is its presentation clock and a rolling digest (SHA-256 chained over the released
 * inputs). `restore` rebuilds both from the log, so a runtime reconstructed on another worker renders the
 * very frames the old one would have rendered, except for the worker and epoch stamps.
 */
import { createHash } from 'node:crypto';
import {
  FRAME_MS,
  type FrameDescription,
  type HeadPose,
  type Input,
  type MediaFrame,
  type Phoneme,
  type PhonemeClass,
  type PhonemeTimeline,
  type PipelineStages,
  type RuntimeBackend,
  type RuntimeStamp,
  type SessionRuntime,
  VISEMES,
  type Viseme,
  type VisemeKey,
  type VisemeTrack,
} from './pipeline.js';

/** Where an input starts in its session: what `video` and `media` read of the session's state. */
export interface RenderContext {
  /** The generation rendering, and the input (seq 0 and no text: an idle frame). */
  stamp: RuntimeStamp;
  seq: number;
  text: string;
  /** The presentation time of the input's first frame. */
  ptsMs: number;
  /** The session digest once this input is applied. */
  digest: Buffer;
  /** The head oscillator's phases (radians), fixed per session. */
  phases: readonly [number, number, number];
}

const DIGIT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const PUNCTUATION = ',.!?;:';

/** Lower case a-z words and punctuation, single spaces: accents stripped, digits spelled out. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[0-9]/g, (d) => ` ${DIGIT_WORDS[Number(d)]} `)
    .replace(/[^a-z,.!?;:]+/g, ' ')
    .replace(/([,.!?;:])[,.!?;: ]*[,.!?;:]/g, '$1')
    .replace(/ ([,.!?;:])/g, '$1')
    .trim();
}

const PHONEMES: Record<string, { class: PhonemeClass; viseme: Viseme }> = {
  AA: { class: 'vowel', viseme: 'aa' },
  AE: { class: 'vowel', viseme: 'aa' },
  AH: { class: 'vowel', viseme: 'aa' },
  EH: { class: 'vowel', viseme: 'E' },
  IH: { class: 'vowel', viseme: 'I' },
  IY: { class: 'vowel', viseme: 'I' },
  UW: { class: 'vowel', viseme: 'U' },
  AW: { class: 'diphthong', viseme: 'aa' },
  EY: { class: 'diphthong', viseme: 'E' },
  OW: { class: 'diphthong', viseme: 'O' },
  P: { class: 'stop', viseme: 'PP' },
  B: { class: 'stop', viseme: 'PP' },
  T: { class: 'stop', viseme: 'DD' },
  D: { class: 'stop', viseme: 'DD' },
  K: { class: 'stop', viseme: 'kk' },
  G: { class: 'stop', viseme: 'kk' },
  F: { class: 'fricative', viseme: 'FF' },
  V: { class: 'fricative', viseme: 'FF' },
  TH: { class: 'fricative', viseme: 'TH' },
  S: { class: 'fricative', viseme: 'SS' },
  Z: { class: 'fricative', viseme: 'SS' },
  SH: { class: 'fricative', viseme: 'CH' },
  CH: { class: 'fricative', viseme: 'CH' },
  JH: { class: 'fricative', viseme: 'CH' },
  HH: { class: 'fricative', viseme: 'kk' },
  M: { class: 'nasal', viseme: 'PP' },
  N: { class: 'nasal', viseme: 'nn' },
  NG: { class: 'nasal', viseme: 'nn' },
  L: { class: 'liquid', viseme: 'DD' },
  R: { class: 'liquid', viseme: 'RR' },
  W: { class: 'liquid', viseme: 'U' },
  Y: { class: 'liquid', viseme: 'I' },
  /** A short pause (, ; :) and a long one (. ! ?). */
  SP: { class: 'pause', viseme: 'sil' },
  LP: { class: 'pause', viseme: 'sil' },
};

const DURATION_MS: Record<PhonemeClass, number> = {
  vowel: 120,
  diphthong: 160,
  stop: 60,
  fricative: 90,
  nasal: 70,
  liquid: 65,
  pause: 150,
};
const LONG_PAUSE_MS = 350;

/** Letter pairs read as one sound (or as a fixed pair), tried before single letters. */
const DIGRAPHS: Record<string, string[]> = {
  th: ['TH'],
  sh: ['SH'],
  ch: ['CH'],
  ph: ['F'],
  ng: ['NG'],
  ck: ['K'],
  qu: ['K', 'W'],
  ee: ['IY'],
  ea: ['IY'],
  oo: ['UW'],
  ou: ['AW'],
  ai: ['EY'],
  ay: ['EY'],
  oa: ['OW'],
};
const LETTERS: Record<string, string[]> = {
  a: ['AE'],
  b: ['B'],
  c: ['K'],
  d: ['D'],
  e: ['EH'],
  f: ['F'],
  g: ['G'],
  h: ['HH'],
  i: ['IH'],
  j: ['JH'],
  k: ['K'],
  l: ['L'],
  m: ['M'],
  n: ['N'],
  o: ['AA'],
  p: ['P'],
  q: ['K'],
  r: ['R'],
  s: ['S'],
  t: ['T'],
  u: ['AH'],
  v: ['V'],
  w: ['W'],
  x: ['K', 'S'],
  y: ['Y'],
  z: ['Z'],
};
const isVowelLetter = (c: string | undefined) => c !== undefined && 'aeiou'.includes(c);

/** The phoneme symbols of one word: digraphs first, doubled consonants once, a silent final e. */
export function wordToPhonemes(word: string): string[] {
  const silentE = word.length > 3 && word.endsWith('e') && !isVowelLetter(word[word.length - 2]);
  const letters = silentE ? word.slice(0, -1) : word;
  const out: string[] = [];
  for (let i = 0; i < letters.length;) {
    const pair = DIGRAPHS[letters.slice(i, i + 2)];
    if (pair) {
      out.push(...pair);
      i += 2;
      continue;
    }
    const c = letters[i]!;
    const doubled = c === letters[i - 1] && !isVowelLetter(c);
    if (!doubled) out.push(...(c === 'y' && i > 0 && i === letters.length - 1 ? ['IY'] : LETTERS[c]!));
    i += 1;
  }
  return out;
}

/** Stage 1, text → speech. */
function speech(text: string): PhonemeTimeline {
  const normalized = normalizeText(text);
  const phonemes: Phoneme[] = [];
  let t = 0;
  for (const token of normalized.match(/[a-z]+|[,.!?;:]/g) ?? []) {
    const symbols = PUNCTUATION.includes(token)
      ? [',;:'.includes(token) ? 'SP' : 'LP']
      : wordToPhonemes(token);
    for (const symbol of symbols) {
      const cls = PHONEMES[symbol]!.class;
      const durationMs = symbol === 'LP' ? LONG_PAUSE_MS : DURATION_MS[cls];
      phonemes.push({ symbol, class: cls, startMs: t, durationMs });
      t += durationMs;
    }
  }
  return { text: normalized, phonemes, durationMs: t };
}

const OPENNESS: Record<Viseme, number> = {
  sil: 0,
  PP: 0,
  FF: 0.15,
  TH: 0.2,
  DD: 0.25,
  kk: 0.3,
  CH: 0.3,
  SS: 0.15,
  nn: 0.2,
  RR: 0.3,
  aa: 0.9,
  E: 0.6,
  I: 0.45,
  O: 0.75,
  U: 0.5,
};

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places + 0; // + 0: no -0

/** Stage 2, speech → facial motion: each key's openness is blended with its neighbours' (coarticulation). */
function motion(timeline: PhonemeTimeline): VisemeTrack {
  const targets = timeline.phonemes.map((p) => OPENNESS[PHONEMES[p.symbol]!.viseme]);
  const keys = timeline.phonemes.map((p, i): VisemeKey => ({
    viseme: PHONEMES[p.symbol]!.viseme,
    startMs: p.startMs,
    durationMs: p.durationMs,
    openness: round(0.25 * (targets[i - 1] ?? 0) + 0.5 * targets[i]! + 0.25 * (targets[i + 1] ?? 0), 3),
  }));
  return { keys, durationMs: timeline.durationMs };
}

/** How many 40 ms frames an input of this duration renders (the clock advances by as many). */
export function frameCount(durationMs: number): number {
  return Math.ceil(durationMs / FRAME_MS);
}

/** The head's slow idle motion: three incommensurate sines per session; the chin dips as the mouth opens. */
function headPose(phases: RenderContext['phases'], ptsMs: number, mouthOpen: number): HeadPose {
  const wave = (periodMs: number, phase: number) => Math.sin((2 * Math.PI * ptsMs) / periodMs + phase);
  return {
    yaw: round(3 * wave(4100, phases[0]), 2),
    pitch: round(1.5 * wave(2900, phases[1]) - 2 * mouthOpen, 2),
    roll: round(wave(6700, phases[2]), 2),
  };
}

/** Stage 3, facial motion → video: each frame samples the track at its centre. */
function video(track: VisemeTrack, at: RenderContext): FrameDescription[] {
  const frames: FrameDescription[] = [];
  let k = 0;
  for (let index = 0; index < frameCount(track.durationMs); index++) {
    const t = index * FRAME_MS + FRAME_MS / 2;
    while (k < track.keys.length - 1 && track.keys[k]!.startMs + track.keys[k]!.durationMs <= t) k++;
    const key = track.keys[k]!;
    const along = Math.min(1, Math.max(0, (t - key.startMs) / key.durationMs));
    const next = track.keys[k + 1]?.openness ?? 0;
    const mouthOpen = round(key.openness + (next - key.openness) * along, 3);
    const ptsMs = at.ptsMs + index * FRAME_MS;
    frames.push({ index, ptsMs, viseme: key.viseme, mouthOpen, head: headPose(at.phases, ptsMs, mouthOpen) });
  }
  return frames;
}

export const PAYLOAD_VERSION = 1;
export const PAYLOAD_BYTES = 42;

/**
 * Payload layout (big-endian): u8 version (1), u8 viseme id (index in VISEMES),
 * u16 mouth openness ‰, i16 yaw, i16 pitch, i16 roll (centidegrees), 32 bytes of session digest.
 */
function encodePayload(frame: FrameDescription, digest: Buffer): Buffer {
  const b = Buffer.alloc(PAYLOAD_BYTES);
  b.writeUInt8(PAYLOAD_VERSION, 0);
  b.writeUInt8(VISEMES.indexOf(frame.viseme), 1);
  b.writeUInt16BE(Math.round(frame.mouthOpen * 1000), 2);
  b.writeInt16BE(Math.round(frame.head.yaw * 100), 4);
  b.writeInt16BE(Math.round(frame.head.pitch * 100), 6);
  b.writeInt16BE(Math.round(frame.head.roll * 100), 8);
  digest.copy(b, 10);
  return b;
}

export interface DecodedPayload {
  viseme: Viseme;
  mouthOpen: number;
  head: HeadPose;
  /** Hex SHA-256 of the session once the frame's input is applied. */
  digest: string;
}

/** Reads a payload of this backend (a watcher's view of a frame). */
export function decodePayload(b: Buffer): DecodedPayload {
  const viseme = VISEMES[b.readUInt8(1)];
  if (b.length !== PAYLOAD_BYTES || b.readUInt8(0) !== PAYLOAD_VERSION || viseme === undefined) {
    throw new Error(`not a cpu-reference payload v${PAYLOAD_VERSION} (${b.length} bytes)`);
  }
  return {
    viseme,
    mouthOpen: b.readUInt16BE(2) / 1000,
    head: { yaw: b.readInt16BE(4) / 100, pitch: b.readInt16BE(6) / 100, roll: b.readInt16BE(8) / 100 },
    digest: b.subarray(10).toString('hex'),
  };
}

/** Stage 4, video → media: every frame of the input carries the digest once the input is applied. */
function media(frames: FrameDescription[], at: RenderContext): Buffer[] {
  return frames.map((f) => encodePayload(f, at.digest));
}

export const cpuStages: PipelineStages<RenderContext> = { speech, motion, video, media };

/** The stage that differs between backends on this clock: frame descriptions → media payloads. */
export type MediaStage = PipelineStages<RenderContext>['media'];

/** The digest once input (seq, text) is applied: SHA-256(previous ‖ seq as u64 ‖ text). */
function chain(previous: Buffer, input: Input): Buffer {
  const seq = Buffer.alloc(8);
  seq.writeBigUInt64BE(BigInt(input.seq));
  return createHash('sha256').update(previous).update(seq).update(input.text, 'utf8').digest();
}

/**
 * A runtime on the reference clock: speech, motion and video of the CPU reference, and `render` for media
 * (the reference's 42-byte payloads, or rendered pictures and sound).
 */
class ReferenceClockRuntime implements SessionRuntime {
  private seq = 0;
  private ptsMs = 0;
  private digest: Buffer;
  private readonly phases: RenderContext['phases'];
  private closed = false;

  constructor(
    private readonly stamp: RuntimeStamp,
    private readonly render: MediaStage,
    /** The idle frame's payload (synchronous: the controller shows it between inputs). */
    private readonly idle: (frame: FrameDescription, at: RenderContext) => Buffer,
  ) {
    const seed = createHash('sha256').update(`${stamp.cell}/${stamp.session}`).digest();
    this.digest = createHash('sha256').update('dhsched-session').update(seed).digest();
    const phase = (k: number) => (seed.readUInt16BE(2 * k) / 65536) * 2 * Math.PI;
    this.phases = [phase(0), phase(1), phase(2)];
  }

  get cursor(): number {
    return this.seq;
  }

  async restore(history: readonly Input[]): Promise<void> {
    for (const input of history) {
      this.expect(input);
      this.advance(input, frameCount(speech(input.text).durationMs));
    }
  }

  async process(input: Input): Promise<MediaFrame[]> {
    this.expect(input);
    const at = this.context(input.seq, input.text, chain(this.digest, input));
    const frames = video(motion(speech(input.text)), at);
    const payloads = await this.render(frames, at);
    this.advance(input, frames.length);
    return frames.map((f, i) => ({
      ...this.stamp,
      seq: input.seq,
      index: f.index,
      ptsMs: f.ptsMs,
      payload: payloads[i]!,
    }));
  }

  idleFrame(): MediaFrame {
    if (this.closed) throw new Error(`runtime ${this.stamp.session}/${this.stamp.epoch} is closed`);
    const frame: FrameDescription = {
      index: 0,
      ptsMs: this.ptsMs,
      viseme: 'sil',
      mouthOpen: 0,
      head: headPose(this.phases, this.ptsMs, 0),
    };
    return {
      ...this.stamp,
      seq: this.seq,
      index: 0,
      ptsMs: this.ptsMs,
      payload: this.idle(frame, this.context(this.seq, '', this.digest)),
    };
  }

  private context(seq: number, text: string, digest: Buffer): RenderContext {
    return { stamp: this.stamp, seq, text, ptsMs: this.ptsMs, digest, phases: this.phases };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private expect(input: Input): void {
    if (this.closed) throw new Error(`runtime ${this.stamp.session}/${this.stamp.epoch} is closed`);
    if (input.seq !== this.seq + 1) throw new Error(`input ${input.seq} out of order after ${this.seq}`);
  }

  private advance(input: Input, frames: number): void {
    this.seq = input.seq;
    this.ptsMs += frames * FRAME_MS;
    this.digest = chain(this.digest, input);
  }
}

/** Opens runtimes on the reference clock that render media with `render` (and `idle` between inputs). */
export function referenceClockBackend(
  name: string,
  render: MediaStage,
  idle: (frame: FrameDescription, at: RenderContext) => Buffer,
): RuntimeBackend {
  return { name, open: (stamp) => new ReferenceClockRuntime(stamp, render, idle) };
}

export const cpuReference = referenceClockBackend('cpu-reference', media, (frame, at) =>
  encodePayload(frame, at.digest),
);
