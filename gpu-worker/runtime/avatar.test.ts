import { type Image, createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { HEIGHT, SAMPLES_PER_FRAME, WIDTH, avatar, decodeAvatarPayload } from './avatar.js';
import { cpuReference, decodePayload } from './cpu-reference.js';
import { SAMPLE_RATE, synthesize, synthesizeFitted } from './espeak.js';
import type { Input, MediaFrame, RuntimeStamp } from './pipeline.js';

const stamp: RuntimeStamp = { cell: 'c1', session: 's1', epoch: 1, worker: 'w1' };
const input = (seq: number, text: string): Input => ({ seq, requestId: `r${seq}`, text });
const rms = (pcm: Int16Array) => Math.sqrt(pcm.reduce((a, x) => a + x * x, 0) / Math.max(1, pcm.length));

async function rendered(backend: typeof avatar, s: RuntimeStamp, history: Input[], next: Input) {
  const runtime = backend.open(s);
  await runtime.restore(history);
  const frames = await runtime.process(next);
  const idle = runtime.idleFrame();
  await runtime.close();
  return { frames, idle };
}

async function pixels(jpeg: Buffer): Promise<{ image: Image; at(x: number, y: number): number[] }> {
  const image = await loadImage(jpeg);
  const g = createCanvas(image.width, image.height).getContext('2d');
  g.drawImage(image, 0, 0);
  const data = g.getImageData(0, 0, image.width, image.height).data;
  return {
    image,
    at: (x, y) => [
      ...data.subarray(
        4 * (Math.round(y) * image.width + Math.round(x)),
        4 * (Math.round(y) * image.width + Math.round(x)) + 3,
      ),
    ],
  };
}

describe('espeak-ng speech', () => {
  it('speaks text as audible samples, longer for longer text, nothing for no text', async () => {
    const short = await synthesize('hello');
    const long = await synthesize('hello there, how are you today?');
    expect(short.length / SAMPLE_RATE).toBeGreaterThan(0.2);
    expect(long.length).toBeGreaterThan(2 * short.length);
    expect(rms(long)).toBeGreaterThan(500);
    expect(await synthesize('')).toHaveLength(0);
  });

  it('fits speech to a duration, the same samples every time', async () => {
    const fitted = await synthesizeFitted('hello there, how are you today?', 1000);
    expect(fitted).toHaveLength(SAMPLE_RATE);
    expect(rms(fitted)).toBeGreaterThan(500);
    expect(await synthesizeFitted('hello there, how are you today?', 1000)).toEqual(fitted);
  });
});

describe('the avatar backend', () => {
  it('renders each frame of the reference clock as a 320×240 picture and 40 ms of the speech', async () => {
    const text = 'Hello, I am your avatar.';
    const { frames } = await rendered(avatar, stamp, [], input(1, text));
    const reference = (await rendered(cpuReference, stamp, [], input(1, text))).frames;
    expect(frames.map((f) => [f.seq, f.index, f.ptsMs])).toEqual(
      reference.map((f) => [f.seq, f.index, f.ptsMs]),
    );
    const decoded = frames.map((f) => decodeAvatarPayload(f.payload));
    for (const d of decoded) expect(d.pcm).toHaveLength(SAMPLES_PER_FRAME);
    const speech = Int16Array.from(decoded.flatMap((d) => [...d.pcm]));
    expect(rms(speech)).toBeGreaterThan(500);
    expect(decoded[0]!.digest).toBe(decodePayload(reference[0]!.payload).digest);
    const { image } = await pixels(decoded[0]!.jpeg);
    expect([image.width, image.height]).toEqual([WIDTH, HEIGHT]);
  });

  it('draws the mouth open as the visemes open it', async () => {
    const text = 'Ah, ah, ah.';
    const { frames, idle } = await rendered(avatar, stamp, [], input(1, text));
    const poses = (await rendered(cpuReference, stamp, [], input(1, text))).frames.map((f) =>
      decodePayload(f.payload),
    );
    const widest = poses.reduce((best, p, i) => (p.mouthOpen > poses[best]!.mouthOpen ? i : best), 0);
    const pose = poses[widest]!;
    expect(pose.mouthOpen).toBeGreaterThan(0.4);
    // the mouth's centre, 3 px below it: inside the open mouth, on the skin of the closed one
    const x = WIDTH / 2 + pose.head.yaw * 3;
    const y = HEIGHT / 2 + 6 + pose.head.pitch * 3 + 42 + 3;
    const [r, g] = (await pixels(decodeAvatarPayload(frames[widest]!.payload).jpeg)).at(x, y);
    expect(r! - g!).toBeGreaterThan(40);
    expect(g).toBeLessThan(100);
    const idlePose = decodePayload(
      (await rendered(cpuReference, stamp, [], input(1, text))).idle.payload,
    ).head;
    const [ir, ig] = (await pixels(decodeAvatarPayload(idle.payload).jpeg)).at(
      WIDTH / 2 + idlePose.yaw * 3,
      HEIGHT / 2 + 6 + idlePose.pitch * 3 + 42 + 3,
    );
    expect(ir).toBeGreaterThan(200);
    expect(ig).toBeGreaterThan(150);
  });

  it('renders the same media after a move: restored from the log, only the drawn stamp differs', async () => {
    const history = [input(1, 'first line.'), input(2, 'second line.')];
    const next = input(3, 'third line.');
    const straight = avatar.open(stamp);
    await straight.restore([]);
    for (const i of history) await straight.process(i);
    const expected: MediaFrame[] = await straight.process(next);
    const same = await rendered(avatar, stamp, history, next);
    expect(same.frames.map((f) => f.payload)).toEqual(expected.map((f) => f.payload));
    const moved = await rendered(avatar, { ...stamp, epoch: 2, worker: 'w2' }, history, next);
    const a = decodeAvatarPayload(moved.frames[0]!.payload);
    const b = decodeAvatarPayload(expected[0]!.payload);
    expect(a.pcm).toEqual(b.pcm);
    expect(a.digest).toBe(b.digest);
    expect(a.jpeg.equals(b.jpeg)).toBe(false);
  });

  it('refuses a payload that is not its own', () => {
    expect(() => decodeAvatarPayload(Buffer.alloc(42))).toThrow(/not an avatar payload/);
    const { payload } = avatar.open(stamp).idleFrame();
    expect(() => decodeAvatarPayload(payload.subarray(0, payload.length - 1))).toThrow(
      /not an avatar payload/,
    );
  });
});
