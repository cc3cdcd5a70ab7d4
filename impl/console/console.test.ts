/**
 * The console end to end in real Chromium (Debian's, through playwright-core): a system of real processes
 * with three avatar workers, the console beside it. In order, on one session: create it and hear it speak
 * over WebRTC; migrate it and see the epoch change with no older frame shown; keep a stale runtime alive
 * across a move and see the sink fence its frames; drain and kill its owner from the buttons; hand the
 * page a late stale frame; measure PushText to first frame; send bad requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { avatar } from '../../gpu-worker/runtime/avatar.js';
import { type ConsoleHarness, type Shown, type WithLog, openConsole } from './harness.js';
import { frameMessage } from './rtc.js';

let h: ConsoleHarness;
beforeAll(async () => {
  h = await openConsole({ workers: 3 });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const shown = (): Promise<Shown[]> => h.page.evaluate(() => (globalThis as unknown as WithLog).dhsched.shown);

/** A cell of s1's row in the sessions table (2: owner, 3: epoch, 5: released seq). */
const s1Cell = (n: number) => h.page.textContent(`#sessions tr[data-session="s1"] td:nth-child(${n})`);

/** Presses a button of s1's owner in the workers table; resolves once s1 has moved to another worker. */
async function pressOnOwner(label: 'Drain' | 'Kill'): Promise<{ owner: string; next: number }> {
  const owner = (await s1Cell(2))!;
  const next = Number(await s1Cell(3)) + 1;
  await h.page.click(`#workers tr[data-worker="${owner}"] button:text("${label}")`);
  await h.page.waitForSelector(`#sessions tr[data-session="s1"] td:nth-child(3):text("${next}")`, {
    timeout: 30_000,
  });
  expect(await s1Cell(2)).not.toBe(owner);
  return { owner, next };
}

describe('the console', () => {
  it('creates a session, and the avatar speaks over WebRTC', async () => {
    await h.page.fill('#session-id', 's1');
    await h.page.click('#create');
    await h.page.waitForSelector('#sessions tr[data-session="s1"]');
    await h.say('Hello, I am your avatar.');
    await h.page.waitForFunction(
      () => (globalThis as unknown as WithLog).dhsched.shown.filter((f) => f.seq === 1).length >= 20,
      null,
      { timeout: 30_000 },
    );
    const frames = await shown();
    expect(frames.filter((f) => f.seq === 1).every((f) => f.epoch === 1)).toBe(true);
    expect(await h.page.textContent('#now-showing')).toMatch(/s1 · epoch 1 on w\d/);
  }, 60_000);

  it('migrates: the new epoch takes over the picture and no older frame is shown after it', async () => {
    await h.page.click('#migrate');
    await h.page.waitForSelector('#sessions tr[data-session="s1"] td:nth-child(3):text("2")', {
      timeout: 30_000,
    });
    await h.say('Now I speak from another worker.');
    await h.page.waitForFunction(
      () =>
        (globalThis as unknown as WithLog).dhsched.shown.filter((f) => f.seq === 2 && f.epoch === 2).length >=
        20,
      null,
      { timeout: 30_000 },
    );
    const frames = await shown();
    const firstNew = frames.findIndex((f) => f.epoch === 2);
    expect(firstNew).toBeGreaterThan(0);
    expect(frames.slice(firstNew).every((f) => f.epoch === 2)).toBe(true);
    // input 1 is not said again by the new owner: it rebuilt its state from the log, and its pictures
    // continue the session's clock where the old owner's stopped
    expect(frames.slice(firstNew).some((f) => f.seq === 1 && f.index > 0)).toBe(false);
    expect(frames[firstNew]!.ptsMs).toBeGreaterThanOrEqual(frames[firstNew - 1]!.ptsMs);
    const said = frames.filter((f) => f.seq === 2 && f.epoch === 2).map((f) => f.ptsMs);
    expect(said).toEqual([...said].sort((a, b) => a - b));
    const workers = new Set(frames.map((f) => `${f.epoch}@${f.worker}`));
    expect(workers.size).toBe(2);
    expect(await h.page.textContent('#events')).toMatch(/s1 moved w\d → w\d \(epoch 1 → 2\)/);
  }, 60_000);

  it('drops a frame of an older epoch that reaches the page late (its own fence, behind the sink’s)', async () => {
    const stale = avatar.open({ cell: 'console', session: 's1', epoch: 1, worker: 'w9' }).idleFrame();
    const message = frameMessage(stale).toString('base64');
    const before = await h.page.evaluate(() => (globalThis as unknown as WithLog).dhsched.dropped);
    await h.page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      (globalThis as unknown as WithLog).dhsched.offer(bytes.buffer);
    }, message);
    expect(await h.page.evaluate(() => (globalThis as unknown as WithLog).dhsched.dropped)).toBe(before + 1);
    await h.page.waitForTimeout(200);
    expect((await shown()).some((f) => f.worker === 'w9')).toBe(false);
  });

  it('fences a stale runtime that stays alive: paused mid-speech, moved away, resumed, never seen', async () => {
    const state = async () =>
      (await (await fetch(new URL('/api/state', h.console.url))).json()) as {
        sessions: { session: string; worker: string; epoch: number; releasedSeq: number }[];
        media: { session: string; dropped: number }[];
      };
    const s1 = async () => (await state()).sessions.find((s) => s.session === 's1')!;
    const before = await s1();
    const dropped = async () => (await state()).media.find((m) => m.session === 's1')?.dropped ?? 0;
    const droppedBefore = await dropped();
    const owner = h.system.workers.filter((w) => w.id === before.worker).at(-1)!;
    // a long line: its runtime renders for a while after the store released it
    await h.say(
      Array.from({ length: 12 }, () => 'This is a long line that takes a while to render.').join(' '),
    );
    await expect.poll(async () => (await s1()).releasedSeq, { timeout: 10_000 }).toBe(before.releasedSeq + 1);
    owner.signal('SIGSTOP');
    try {
      await h.page.click('#migrate');
      await expect.poll(async () => (await s1()).epoch, { timeout: 30_000 }).toBe(before.epoch + 1);
      await h.say('The new owner speaks.');
      await h.page.waitForFunction(
        (e) => (globalThis as unknown as WithLog).dhsched.shown.some((f) => f.epoch === e),
        before.epoch + 1,
        { timeout: 30_000 },
      );
    } finally {
      owner.signal('SIGCONT');
    }
    // the old runtime, alive again, publishes the frames it rendered: the sink drops every one
    await expect.poll(dropped, { timeout: 30_000 }).toBeGreaterThan(droppedBefore);
    const frames = await shown();
    const firstNew = frames.findIndex((f) => f.epoch === before.epoch + 1);
    expect(frames.slice(firstNew).every((f) => f.epoch === before.epoch + 1)).toBe(true);
  }, 90_000);

  it('drains the owner from its button: the session moves away under a new epoch', async () => {
    const { owner } = await pressOnOwner('Drain');
    expect(await h.page.textContent(`#workers tr[data-worker="${owner}"] td:nth-child(2)`)).toMatch(
      /draining/,
    );
  }, 60_000);

  it('kills the owner from its button: the session is recovered on the other worker, under a new epoch', async () => {
    const { next } = await pressOnOwner('Kill');
    const seq = Number(await s1Cell(5)) + 1;
    await h.say('I came back on another worker.');
    await h.page.waitForFunction(
      ([e, q]) =>
        (globalThis as unknown as WithLog).dhsched.shown.filter((f) => f.epoch === e && f.seq === q).length >=
        10,
      [next, seq],
      { timeout: 30_000 },
    );
    const frames = await shown();
    const firstNew = frames.findIndex((f) => f.epoch === next);
    expect(frames.slice(firstNew).every((f) => f.epoch === next)).toBe(true);
  }, 60_000);

  it('measures PushText to first frame on the page', async () => {
    const ms = await h.page.evaluate(() => (globalThis as unknown as WithLog).dhsched.firstFrameMs);
    expect(ms.length).toBeGreaterThanOrEqual(2);
    for (const m of ms) expect(m).toBeGreaterThan(0);
  });

  it('refuses bad requests with a clear error, and a POST that is not JSON (another origin’s form)', async () => {
    const post = (path: string, body: string, type = 'application/json') =>
      fetch(new URL(path, h.console.url), { method: 'POST', headers: { 'content-type': type }, body });
    const bad = await post('/api/sessions', '{"session":"bad id!"}');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^session: /);
    expect((await post('/api/sessions', '{')).status).toBe(400);
    expect((await post('/api/sessions/nope/text', JSON.stringify({ text: 'hi' }))).status).toBe(404);
    expect((await post('/api/workers/w9/kill', '{}')).status).toBe(404);
    const alive = h.system.workers.find((w) => w.child.exitCode === null && w.child.signalCode === null)!;
    const form = await post(`/api/workers/${alive.id}/kill`, '{}', 'text/plain');
    expect(form.status).toBe(415);
    expect(alive.child.signalCode).toBeNull();
  });
});
