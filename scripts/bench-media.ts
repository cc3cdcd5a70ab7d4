/**
 * Media latency as a viewer sees it: on a real system (private Redis, 1 Dispatch replica, 2 avatar
 * Workers as processes) with the console and Debian's Chromium, says N lines one after another in the
 * page (each once the one before has played out) and reads, per line, the time from its PushText call
 * to its first frame drawn on the page (over WebRTC). Prints the figures; the last line is the result as one JSON object, also written to --out.
 * With --screenshot FILE it also saves the console, mid-speech, as a PNG.
 * Usage: node dist/scripts/bench-media.js [--lines N] [--out FILE] [--screenshot FILE]
 */
import fs from 'node:fs';
import os from 'node:os';
import { type WithLog, openConsole } from '../impl/console/harness.js';
import { fileName, integer, option, program as cliProgram, runScript } from '../impl/cli/flags.js';

const program = cliProgram(
  'bench-media',
  'PushText → first frame on a browser page, over WebRTC, on a real system',
)
  .addOption(option('--lines <n>', 'lines said', integer(1, 1000)).default(30))
  .addOption(option('--out <file>', 'where the JSON result goes', fileName).default('bench/media.json'))
  .addOption(option('--screenshot <file>', 'also save the console mid-speech (PNG)', fileName));

const LINES = [
  'Hello, I am your avatar.',
  'The weather is fine today.',
  'Moving between workers does not stop me.',
  'Every word I say is said once.',
];

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main(): Promise<number> {
  const flags = program.parse().opts<{ lines: number; out: string; screenshot?: string }>();
  const h = await openConsole({ cell: 'bench' });
  try {
    const { page } = h;
    await page.fill('#session-id', 'avatar');
    await page.click('#create');
    await page.waitForSelector('#sessions tr[data-session="avatar"]');
    for (let i = 1; i <= flags.lines; i++) {
      await h.say(LINES[(i - 1) % LINES.length]!);
      await page.waitForFunction(
        (n) => (globalThis as unknown as WithLog).dhsched.firstFrameMs.length >= n,
        i,
        { timeout: 30_000 },
      );
      if (i === 1 && flags.screenshot) {
        await page.waitForFunction(
          () => (globalThis as unknown as WithLog).dhsched.shown.filter((f) => f.seq === 1).length >= 12,
        );
        await page.screenshot({ path: flags.screenshot });
      }
      // the line is played out before the next is said: its first frame then waits behind nothing
      await page.waitForFunction(() => (globalThis as unknown as WithLog).dhsched.queued === 0, null, {
        timeout: 30_000,
      });
      await page.waitForTimeout(200);
    }
    const ms = await page.evaluate(() => (globalThis as unknown as WithLog).dhsched.firstFrameMs);
    const sorted = [...ms].sort((a, b) => a - b);
    const result = {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown cpu'}`,
      lines: ms.length,
      firstFrameMs: {
        p50: Math.round(percentile(sorted, 50)),
        p90: Math.round(percentile(sorted, 90)),
        min: Math.round(sorted[0]!),
        max: Math.round(sorted.at(-1)!),
      },
    };
    console.log(
      `PushText → first frame on the page, ${ms.length} lines: P50 ${result.firstFrameMs.p50} ms, P90 ${result.firstFrameMs.p90} ms`,
    );
    fs.writeFileSync(flags.out, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result));
    return 0;
  } finally {
    await h.close();
  }
}

runScript('bench-media', main);
