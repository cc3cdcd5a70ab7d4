/**
 * Speech synthesis by eSpeak NG (Debian's espeak-ng, GPL-3.0-or-later, run as a separate process and
 * not linked): text → mono 16-bit PCM at 22,050 Hz. Deterministic: the same text and rate give the
 * same samples on every worker.
 */
import { spawn } from 'node:child_process';

export const ESPEAK_NG = process.env['ESPEAK_NG'] ?? 'espeak-ng';
export const SAMPLE_RATE = 22_050;
const WAV_HEADER_BYTES = 44;
/** espeak-ng's own default rate, in words per minute, and the range it accepts. */
const DEFAULT_WPM = 175;
const MIN_WPM = 80;
const MAX_WPM = 450;

/** The samples of `text` spoken at `wpm` (none for text with nothing to say). */
export function synthesize(text: string, wpm = DEFAULT_WPM): Promise<Int16Array> {
  return new Promise((resolve, reject) => {
    const child = spawn(ESPEAK_NG, ['-v', 'en-us', '-s', String(Math.round(wpm)), '--stdout', '--stdin'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', (err) =>
      reject(
        new Error(`${ESPEAK_NG} could not be run (${err.message}): install espeak-ng, or set $ESPEAK_NG`),
      ),
    );
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`${ESPEAK_NG} exited with ${code}: ${stderr.trim()}`));
      // streamed to stdout, the header's lengths are placeholders: the samples are what follows it
      const wav = Buffer.concat(out);
      const pcm = wav.subarray(Math.min(WAV_HEADER_BYTES, wav.length));
      const samples = new Int16Array(pcm.length >> 1);
      for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(2 * i);
      resolve(samples);
    });
    child.stdin.end(text);
  });
}

/**
 * `text` spoken to last `durationMs`: spoken once at the default rate, again at the rate that fits when it
 * is more than 5 % off, then padded with silence or cut to exactly that many samples.
 */
export async function synthesizeFitted(text: string, durationMs: number): Promise<Int16Array> {
  const want = Math.round((durationMs * SAMPLE_RATE) / 1000);
  let samples = await synthesize(text);
  if (samples.length > 0 && Math.abs(samples.length - want) > 0.05 * want) {
    const wpm = Math.min(MAX_WPM, Math.max(MIN_WPM, (DEFAULT_WPM * samples.length) / want));
    samples = await synthesize(text, wpm);
  }
  const fitted = new Int16Array(want);
  fitted.set(samples.subarray(0, want));
  return fitted;
}
