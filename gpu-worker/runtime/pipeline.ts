/**
 * The avatar runtime of one session generation, as the Infer-Controller drives it: a pipeline of stages
 * text → speech → facial motion → video → media, each with a typed output, behind two interfaces a backend
 * implements (the CPU reference in cpu-reference.ts; a GPU backend the same way).
 *
 * A runtime holds the session's state (its presentation clock, whatever its models condition on). It never
 * gets that state from another worker: `restore` rebuilds it from the store's input log up to the release
 * cursor (source-independent reconstruction), so a session moved to another worker continues the same
 * timeline as if it had never moved.
 */
import type { Input } from '../../impl/store/steps.js';

export type { Input };

/** 25 frames per second. */
export const FRAME_MS = 40;

/** The generation a runtime renders for, and the worker it runs on: stamped on every media frame. */
export interface RuntimeStamp {
  cell: string;
  session: string;
  epoch: number;
  worker: string;
}

export type PhonemeClass = 'vowel' | 'diphthong' | 'stop' | 'fricative' | 'nasal' | 'liquid' | 'pause';

/** Speech: what the text is said as, and when (ms from the start of the input). */
export interface Phoneme {
  symbol: string;
  class: PhonemeClass;
  startMs: number;
  durationMs: number;
}
export interface PhonemeTimeline {
  /** The normalised text the phonemes were read from. */
  text: string;
  phonemes: Phoneme[];
  durationMs: number;
}

/** The 15 mouth shapes of the Oculus viseme set; a viseme's index here is its id on the wire. */
export const VISEMES = [
  'sil',
  'PP',
  'FF',
  'TH',
  'DD',
  'kk',
  'CH',
  'SS',
  'nn',
  'RR',
  'aa',
  'E',
  'I',
  'O',
  'U',
] as const;
export type Viseme = (typeof VISEMES)[number];

/** Facial motion: one mouth shape per phoneme, its openness (0 closed .. 1 open) after coarticulation. */
export interface VisemeKey {
  viseme: Viseme;
  startMs: number;
  durationMs: number;
  openness: number;
}
export interface VisemeTrack {
  keys: VisemeKey[];
  durationMs: number;
}

/** Head orientation in degrees. */
export interface HeadPose {
  yaw: number;
  pitch: number;
  roll: number;
}

/** Video: what one frame shows, at its presentation time in the session. */
export interface FrameDescription {
  /** The frame's index within its input. */
  index: number;
  ptsMs: number;
  viseme: Viseme;
  mouthOpen: number;
  head: HeadPose;
}

/** Media: one encoded frame, stamped with its generation (the sink fences on `epoch`). */
export interface MediaFrame extends RuntimeStamp {
  /** The input it renders; an idle frame, the last input rendered or restored (0 before any). */
  seq: number;
  index: number;
  ptsMs: number;
  payload: Buffer;
}

/**
 * The stages a backend chains for each input, each output feeding the next. `video` and `media` also read
 * the session's state (the clock where the input starts, the state the frames carry), passed as `at`.
 */
export interface PipelineStages<At> {
  speech(text: string): PhonemeTimeline | Promise<PhonemeTimeline>;
  motion(speech: PhonemeTimeline): VisemeTrack | Promise<VisemeTrack>;
  video(motion: VisemeTrack, at: At): FrameDescription[] | Promise<FrameDescription[]>;
  media(frames: FrameDescription[], at: At): Buffer[] | Promise<Buffer[]>;
}

/** The runtime of one generation (session, epoch) on one worker. Inputs arrive one at a time, in seq order. */
export interface SessionRuntime {
  /** The seq of the last input it has rendered or restored (0 before any). */
  readonly cursor: number;
  /** Rebuilds the session's state from its released inputs 1..n, in order; called once, before `process`. */
  restore(history: readonly Input[]): Promise<void>;
  /** Renders input cursor + 1 and advances the state. */
  process(input: Input): Promise<MediaFrame[]>;
  /**
   * The frame it shows now, between inputs: the state after input `cursor`, at the current presentation
   * time (index 0, seq = cursor). Deterministic, and it changes nothing: a runtime restored from the same
   * inputs shows the same idle frame.
   */
  idleFrame(): MediaFrame;
  /** Frees what the runtime holds (GPU memory, RTC connection); nothing is rendered after it resolves. */
  close(): Promise<void>;
}

export interface RuntimeBackend {
  readonly name: string;
  open(stamp: RuntimeStamp): SessionRuntime;
}
