import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cpuReference, cpuStages, decodePayload, normalizeText, wordToPhonemes } from './cpu-reference.js';
import { FRAME_MS, type Input, type MediaFrame, type RuntimeStamp } from './pipeline.js';

const stamp: RuntimeStamp = { cell: 'c1', session: 's1', epoch: 1, worker: 'w1' };
const inputs = (texts: string[]): Input[] =>
  texts.map((text, i) => ({ seq: i + 1, requestId: `r${i + 1}`, text }));

async function render(s: RuntimeStamp, history: Input[], rest: Input[]): Promise<MediaFrame[]> {
  const runtime = cpuReference.open(s);
  await runtime.restore(history);
  const frames: MediaFrame[] = [];
  for (const input of rest) frames.push(...(await runtime.process(input)));
  await runtime.close();
  return frames;
}

const unstamped = (frames: MediaFrame[]) => frames.map(({ worker: _w, epoch: _e, ...rest }) => rest);

describe('the stages', () => {
  it('normalise text: accents, case, digits, separators, punctuation runs', () => {
    expect(normalizeText('  Héllo,  WORLD -- 42 times!!  ')).toBe('hello, world four two times!');
    expect(normalizeText("don't stop . . . now")).toBe('dont stop. now');
    expect(normalizeText('日本')).toBe('');
  });

  it('read letters as phonemes: digraphs, doubled consonants, silent e, final y', () => {
    expect(wordToPhonemes('sheep')).toEqual(['SH', 'IY', 'P']);
    expect(wordToPhonemes('chat')).toEqual(['CH', 'AE', 'T']);
    expect(wordToPhonemes('the')).toEqual(['TH', 'EH']);
    expect(wordToPhonemes('moon')).toEqual(['M', 'UW', 'N']);
    expect(wordToPhonemes('hello')).toEqual(['HH', 'EH', 'L', 'AA']);
    expect(wordToPhonemes('make')).toEqual(['M', 'AE', 'K']);
    expect(wordToPhonemes('happy')).toEqual(['HH', 'AE', 'P', 'IY']);
    expect(wordToPhonemes('box')).toEqual(['B', 'AA', 'K', 'S']);
  });

  it('time phonemes by class: vowels longer than consonants, pauses at punctuation', async () => {
    const speech = await cpuStages.speech('Pa, pa.');
    expect(speech.phonemes.map((p) => [p.symbol, p.durationMs])).toEqual([
      ['P', 60],
      ['AE', 120],
      ['SP', 150],
      ['P', 60],
      ['AE', 120],
      ['LP', 350],
    ]);
    expect(speech.phonemes.map((p) => p.startMs)).toEqual([0, 60, 180, 330, 390, 510]);
    expect(speech.durationMs).toBe(860);
  });

  it('blend mouth openness with the neighbours (coarticulation)', async () => {
    const track = await cpuStages.motion(await cpuStages.speech('ma'));
    expect(track.keys.map((k) => k.viseme)).toEqual(['PP', 'aa']);
    // PP: 0.25 * 0 + 0.5 * 0 + 0.25 * 0.9; aa: 0.25 * 0 + 0.5 * 0.9 + 0.25 * 0
    expect(track.keys.map((k) => k.openness)).toEqual([0.225, 0.45]);
  });

  it('describe frames at 25 fps from the session clock, and encode them', async () => {
    const phases = [0, 0, 0] as const;
    const at = { stamp, seq: 1, text: 'Pa, pa.', ptsMs: 4000, digest: Buffer.alloc(32, 7), phases };
    const track = await cpuStages.motion(await cpuStages.speech('Pa, pa.'));
    const frames = await cpuStages.video(track, at);
    expect(frames).toHaveLength(Math.ceil(860 / FRAME_MS));
    expect(frames.map((f) => f.ptsMs)).toEqual(frames.map((_, i) => 4000 + i * FRAME_MS));
    expect(frames[0]!.viseme).toBe('PP');
    const payloads = await cpuStages.media(frames, at);
    const decoded = decodePayload(payloads[3]!);
    expect(decoded).toEqual({
      viseme: frames[3]!.viseme,
      mouthOpen: frames[3]!.mouthOpen,
      head: frames[3]!.head,
      digest: '07'.repeat(32),
    });
  });
});

describe('a session runtime', () => {
  it('renders each input from where the last one ended, every frame stamped', async () => {
    const frames = await render(stamp, [], inputs(['Hello there.', 'How are you?']));
    const first = frames.filter((f) => f.seq === 1);
    const second = frames.filter((f) => f.seq === 2);
    expect(first.length).toBeGreaterThan(10);
    expect(first.map((f) => f.index)).toEqual(first.map((_, i) => i));
    expect(second[0]!.ptsMs).toBe(first.at(-1)!.ptsMs + FRAME_MS);
    expect(
      frames.every((f) => f.cell === 'c1' && f.session === 's1' && f.epoch === 1 && f.worker === 'w1'),
    ).toBe(true);
    // the digest carried by the frames rolls over the inputs
    expect(decodePayload(first[0]!.payload).digest).not.toBe(decodePayload(second[0]!.payload).digest);
  });

  it('takes inputs in seq order only, and nothing once closed', async () => {
    const runtime = cpuReference.open(stamp);
    await expect(runtime.process({ seq: 2, requestId: 'r2', text: 'x' })).rejects.toThrow(/out of order/);
    await expect(runtime.restore(inputs(['a', 'b']).slice(1))).rejects.toThrow(/out of order/);
    await runtime.close();
    await expect(runtime.process({ seq: 1, requestId: 'r1', text: 'x' })).rejects.toThrow(/closed/);
  });

  it('restored from a prefix, renders the rest as if it had never moved; the same input, the same frames', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        async (texts, cut) => {
          const all = inputs(texts);
          const k = cut % (all.length + 1);
          const moved = await render({ ...stamp, epoch: 2, worker: 'w2' }, all.slice(0, k), all.slice(k));
          const stayed = (await render(stamp, [], all)).filter((f) => f.seq > k);
          expect(unstamped(moved)).toEqual(unstamped(stayed));
          expect(await render(stamp, [], all)).toEqual(await render(stamp, [], all));
        },
      ),
      { numRuns: 100, seed: Number(process.env['DHSCHED_SEED'] ?? 20240601) },
    );
  });

  it('shows an idle frame between inputs: the current state, before any input too; it changes nothing', async () => {
    const runtime = cpuReference.open(stamp);
    const first = runtime.idleFrame();
    expect(first).toMatchObject({ ...stamp, seq: 0, index: 0, ptsMs: 0 });
    expect(decodePayload(first.payload)).toMatchObject({ viseme: 'sil', mouthOpen: 0 });
    expect(runtime.idleFrame()).toEqual(first);
    const [one] = inputs(['Hello there.']);
    const frames = await runtime.process(one!);
    const idle = runtime.idleFrame();
    expect(idle).toMatchObject({ seq: 1, index: 0, ptsMs: frames.at(-1)!.ptsMs + FRAME_MS });
    expect(decodePayload(idle.payload).digest).toBe(decodePayload(frames[0]!.payload).digest);
    // a runtime restored from the same inputs elsewhere shows the same frame, but for its stamp
    const moved = cpuReference.open({ ...stamp, epoch: 2, worker: 'w2' });
    await moved.restore([one!]);
    expect(unstamped([moved.idleFrame()])).toEqual(unstamped([idle]));
    await runtime.close();
    expect(() => runtime.idleFrame()).toThrow(/closed/);
  });

  it('differs between sessions (oscillator and digest are per session)', async () => {
    const [a, b] = await Promise.all([
      render(stamp, [], inputs(['same words'])),
      render({ ...stamp, session: 's2' }, [], inputs(['same words'])),
    ]);
    expect(a.map((f) => f.payload.toString('hex'))).not.toEqual(b.map((f) => f.payload.toString('hex')));
  });
});
