/**
 * The CPU avatar backend: the reference clock's speech timing, visemes and head motion (cpu-reference.ts),
 * rendered as a face drawn with @napi-rs/canvas (JPEG, 320×240) and the input's speech synthesised by
 * espeak-ng, fitted to the input's duration and cut into one 40 ms slice per frame (G.711 μ-law). Every picture shows
 * its generation (session, epoch, worker) and input seq, so a viewer sees who renders.
 */
import { type SKRSContext2D, createCanvas } from '@napi-rs/canvas';
import { type MediaStage, type RenderContext, referenceClockBackend } from './cpu-reference.js';
import { FRAME_MS, type FrameDescription, type Viseme } from './pipeline.js';
import { SAMPLE_RATE, synthesizeFitted } from './espeak.js';
import { decodeMuLaw, encodeMuLaw } from './mulaw.js';

export const WIDTH = 320;
export const HEIGHT = 240;
const JPEG_QUALITY = 80;
export const SAMPLES_PER_FRAME = (SAMPLE_RATE * FRAME_MS) / 1000;
export const AVATAR_PAYLOAD_VERSION = 0xa2;

/** How wide the lips are drawn for each mouth shape (1: at rest). */
const LIP_WIDTH: Record<Viseme, number> = {
  sil: 1,
  PP: 1,
  FF: 1.05,
  TH: 1,
  DD: 1,
  kk: 1,
  CH: 0.85,
  SS: 1.1,
  nn: 1,
  RR: 0.8,
  aa: 1.05,
  E: 1.2,
  I: 1.15,
  O: 0.75,
  U: 0.65,
};

/** Draws one frame: the head turned and tilted by its pose, eyes blinking every 4 s, the mouth's shape. */
function drawFace(g: SKRSContext2D, frame: FrameDescription, at: RenderContext): void {
  g.fillStyle = '#1d2433';
  g.fillRect(0, 0, WIDTH, HEIGHT);
  g.save();
  g.translate(WIDTH / 2 + frame.head.yaw * 3, HEIGHT / 2 + 6 + frame.head.pitch * 3);
  g.rotate((frame.head.roll * Math.PI) / 180);
  g.fillStyle = '#f1c27d';
  g.beginPath();
  g.ellipse(0, 0, 72, 92, 0, 0, 2 * Math.PI);
  g.fill();
  const blink = frame.ptsMs % 4000 < 120;
  g.fillStyle = '#2b2b2b';
  for (const x of [-28, 28]) {
    g.beginPath();
    g.ellipse(x, -22, 9, blink ? 1.5 : 7, 0, 0, 2 * Math.PI);
    g.fill();
  }
  const width = 26 * LIP_WIDTH[frame.viseme];
  const open = 2 + 22 * frame.mouthOpen;
  g.fillStyle = '#7a1f2b';
  g.beginPath();
  g.ellipse(0, 42, width, open / 2, 0, 0, 2 * Math.PI);
  g.fill();
  g.strokeStyle = '#b5534f';
  g.lineWidth = 3;
  g.stroke();
  g.restore();
  g.fillStyle = '#e8ecf4';
  g.font = '13px sans-serif';
  const { session, epoch, worker } = at.stamp;
  g.fillText(`${session} · epoch ${epoch} · ${worker}`, 8, 18);
  g.fillText(`seq ${at.seq} · ${(frame.ptsMs / 1000).toFixed(2)} s`, 8, HEIGHT - 10);
}

/** u8 version 0xa2, u32 JPEG bytes, the JPEG, u32 audio bytes, the audio (G.711 μ-law), 32 bytes of digest. */
function encodePayload(jpeg: Buffer, pcm: Int16Array, digest: Buffer): Buffer {
  const audio = encodeMuLaw(pcm);
  const b = Buffer.alloc(1 + 4 + jpeg.length + 4 + audio.length + 32);
  let at = b.writeUInt8(AVATAR_PAYLOAD_VERSION, 0);
  at = b.writeUInt32BE(jpeg.length, at);
  at += jpeg.copy(b, at);
  at = b.writeUInt32BE(audio.length, at);
  at += audio.copy(b, at);
  digest.copy(b, at);
  return b;
}

export interface AvatarPayload {
  /** The picture, JPEG. */
  jpeg: Buffer;
  /** 40 ms of sound, decoded: mono s16 at SAMPLE_RATE. */
  pcm: Int16Array;
  /** Hex SHA-256 of the session once the frame's input is applied. */
  digest: string;
}

/** Reads a payload of this backend (a viewer's side of a frame). */
export function decodeAvatarPayload(b: Buffer): AvatarPayload {
  const bad = () => new Error(`not an avatar payload (${b.length} bytes)`);
  if (b.length < 41 || b.readUInt8(0) !== AVATAR_PAYLOAD_VERSION) throw bad();
  const jpegBytes = b.readUInt32BE(1);
  const pcmAt = 5 + jpegBytes;
  if (pcmAt + 4 > b.length) throw bad();
  const audioBytes = b.readUInt32BE(pcmAt);
  if (pcmAt + 4 + audioBytes + 32 !== b.length) throw bad();
  return {
    jpeg: Buffer.from(b.subarray(5, pcmAt)),
    pcm: decodeMuLaw(b.subarray(pcmAt + 4, pcmAt + 4 + audioBytes)),
    digest: b.subarray(pcmAt + 4 + audioBytes).toString('hex'),
  };
}

/** One canvas for every picture of the process: each is drawn over it whole and encoded at once. */
const canvas = createCanvas(WIDTH, HEIGHT);

function picture(frame: FrameDescription, at: RenderContext): Buffer {
  drawFace(canvas.getContext('2d'), frame, at);
  return canvas.encodeSync('jpeg', JPEG_QUALITY);
}

/** Media: each frame's picture and its slice of the input's speech. */
const render: MediaStage = async (frames, at) => {
  const speech = await synthesizeFitted(at.text, frames.length * FRAME_MS);
  return frames.map((f, i) =>
    encodePayload(
      picture(f, at),
      speech.subarray(i * SAMPLES_PER_FRAME, (i + 1) * SAMPLES_PER_FRAME),
      at.digest,
    ),
  );
};

const SILENCE = new Int16Array(SAMPLES_PER_FRAME);

export const avatar = referenceClockBackend('avatar', render, (frame, at) =>
  encodePayload(picture(frame, at), SILENCE, at.digest),
);
