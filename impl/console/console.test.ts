/**
 * The console end to end in real Chromium (Debian's, through playwright-core): a system of real processes
 * with three avatar workers, supervised as `dhsched up` does, the console beside it. In order: actions
 * that need a session or a valid id say why before anything is sent; on one session: create it, watched
 * at once, and hear it speak over WebRTC; migrate it and see the epoch change with no older frame shown;
 * keep a stale runtime alive across a move and see the sink fence its frames; drain its owner from its
 * button and undo the drain; kill the owner, see it shown dead and then back as a new incarnation; hand
 * the page a late stale frame; measure PushText to first frame; close it; send bad requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessHandle } from '../ops/processes.js';
import { avatar } from '../../gpu-worker/runtime/avatar.js';
import { type ConsoleHarness, type Shown, type WithLog, openConsole } from './harness.js';
import { frameMessage } from './rtc.js';

/**
 * A killed worker is started again this long after: past its lease (3 s) and a recovery pass, so that
 * its session is recovered on another worker before it registers again.
 */
const RESTART_MS = 5000;

let h: ConsoleHarness;
beforeAll(async () => {
  h = await openConsole({ workers: 3, restartWorkersAfterMs: RESTART_MS });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const shown = (): Promise<Shown[]> => h.page.evaluate(() => (globalThis as unknown as WithLog).dhsched.shown);

/** A cell of s1's row in the sessions table (2: owner, 3: epoch, 5: released seq). */
const s1Cell = (n: number) => h.page.textContent(`#sessions tr[data-session="s1"] td:nth-child(${n})`);

const WORKER_COLUMNS = { incarnation: 2, lease: 3, process: 4, load: 5, runtimes: 6 } as const;
/** The selector of a cell of the worker's row in the workers table. */
const workerCell = (worker: string, column: keyof typeof WORKER_COLUMNS) =>
  `#workers tr[data-worker="${worker}"] td:nth-child(${WORKER_COLUMNS[column]})`;
const workerButton = (worker: string, label: 'Drain' | 'Undrain' | 'Kill') =>
  h.page.locator(`#workers tr[data-worker="${worker}"] button:text-is("${label}")`);
const error = () => h.page.textContent('#error');
/** What the test reads of the page's DOM (the project's types have no DOM library). */
type Validated = { validity: { valid: boolean } };
type Canvas = { getContext(kind: '2d'): { getImageData(...box: number[]): { data: Uint8ClampedArray } } };

const post = (path: string, body: string, type = 'application/json') =>
  fetch(new URL(path, h.console.url), { method: 'POST', headers: { 'content-type': type }, body });

/** Presses a button of s1's owner in the workers table; resolves once s1 has moved to another worker. */
async function pressOnOwner(label: 'Drain' | 'Kill'): Promise<{ owner: string; next: number }> {
  const owner = (await s1Cell(2))!;
  const next = Number(await s1Cell(3)) + 1;
  await workerButton(owner, label).click();
  await h.page.waitForSelector(`#sessions tr[data-session="s1"] td:nth-child(3):text("${next}")`, {
    timeout: 30_000,
  });
  expect(await s1Cell(2)).not.toBe(owner);
  return { owner, next };
}

describe('the console', () => {
  it('says why an action needs a session, and refuses a bad session id as the server would', async () => {
    await h.page.click('#migrate');
    expect(await error()).toBe('create or pick a session first');
    await h.page.$eval('#error', (e) => (e.textContent = ''));
    await h.page.click('#close');
    expect(await error()).toBe('create or pick a session first');
    await h.page.fill('#session-id', 'bad id!');
    await h.page.click('#create');
    const server = (await (await post('/api/sessions', '{"session":"bad id!"}')).json()) as { error: string };
    expect(await error()).toBe(server.error);
    expect(await h.page.$eval('#session-id', (e) => (e as unknown as Validated).validity.valid)).toBe(false);
    await h.page.fill('#session-id', 's1.a-b_2');
    expect(await h.page.$eval('#session-id', (e) => (e as unknown as Validated).validity.valid)).toBe(true);
    expect(await h.page.$$('#sessions tbody tr')).toHaveLength(0);
  });

  it('creates a session, watched at once with an idle picture, and the avatar speaks over WebRTC', async () => {
    await h.page.fill('#session-id', 's1');
    await h.page.click('#create');
    await h.page.waitForSelector('#sessions tr[data-session="s1"]');
    await expect.poll(() => h.page.textContent('#now-showing')).toMatch(/^s1 · epoch 1 on w\d · idle$/);
    // the face's outline: pixels off the background colour (#1d2433)
    const drawn = await h.page.$eval('#video', (c) => {
      const { data } = (c as unknown as Canvas).getContext('2d').getImageData(0, 0, 320, 240);
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] !== 0x1d || data[i + 2] !== 0x33) n++;
      return n;
    });
    expect(drawn).toBeGreaterThan(500);
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

  it('drains the owner from its button: the session moves away under a new epoch; Undrain undoes the drain', async () => {
    const { owner } = await pressOnOwner('Drain');
    expect(await h.page.textContent(workerCell(owner, 'lease'))).toMatch(/draining/);
    await expect(workerButton(owner, 'Drain').count()).resolves.toBe(0);
    await workerButton(owner, 'Undrain').click();
    await expect.poll(() => h.page.textContent(workerCell(owner, 'lease'))).not.toMatch(/draining/);
    await expect(workerButton(owner, 'Drain').isEnabled()).resolves.toBe(true);
    // the session stays where the drain moved it; a second undrain changes nothing
    expect(await s1Cell(2)).not.toBe(owner);
    expect(await (await post(`/api/workers/${owner}/undrain`, '{}')).json()).toEqual({ undrained: false });
  }, 60_000);

  /** The worker killed below, as it was before. */
  let killed: { id: string; incarnation: number; process: ProcessHandle };

  it('kills the owner from its button: shown dead, its buttons disabled; the session is recovered on the other worker, under a new epoch', async () => {
    const id = (await s1Cell(2))!;
    killed = {
      id,
      incarnation: Number(await h.page.textContent(workerCell(id, 'incarnation'))),
      process: h.system.worker(id)!,
    };
    const { next } = await pressOnOwner('Kill');
    await h.page.waitForSelector(`${workerCell(id, 'lease')}:text("lapsed")`);
    expect(await h.page.getAttribute(`#workers tr[data-worker="${id}"]`, 'class')).toBe('dead');
    expect(await h.page.textContent(workerCell(id, 'process'))).toBe('gone (SIGKILL)');
    expect(await h.page.textContent(workerCell(id, 'load'))).toBe('—');
    expect(await h.page.textContent(workerCell(id, 'runtimes'))).toBe('—');
    await expect(workerButton(id, 'Kill').isDisabled()).resolves.toBe(true);
    await expect(workerButton(id, 'Drain').isDisabled()).resolves.toBe(true);
    expect(await h.page.textContent('#events')).toMatch(new RegExp(`${id}'s process ended \\(SIGKILL\\)`));
    const kill = await post(`/api/workers/${id}/kill`, '{}');
    expect([kill.status, ((await kill.json()) as { error: string }).error]).toEqual([
      409,
      `${id}'s process already ended (SIGKILL): nothing to kill`,
    ]);
    const drain = await post(`/api/workers/${id}/drain`, '{}');
    expect(drain.status).toBe(409);
    expect(((await drain.json()) as { error: string }).error).toMatch(/lease lapsed/);
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

  it('starts the killed worker again: it registers as a new incarnation and is shown live', async () => {
    const { id, incarnation, process } = killed;
    await h.page.waitForSelector(`${workerCell(id, 'incarnation')}:text("${incarnation + 1}")`, {
      timeout: RESTART_MS + 30_000,
    });
    await h.page.waitForSelector(`${workerCell(id, 'lease')}:text-matches("^live")`);
    const restarted = h.system.worker(id)!;
    expect(restarted).not.toBe(process);
    expect(await h.page.textContent(workerCell(id, 'process'))).toBe(`pid ${restarted.child.pid}`);
    expect(await h.page.getAttribute(`#workers tr[data-worker="${id}"]`, 'class')).toBeNull();
    await expect(workerButton(id, 'Kill').isEnabled()).resolves.toBe(true);
    await expect(workerButton(id, 'Drain').isEnabled()).resolves.toBe(true);
    expect(await h.page.textContent('#events')).toContain(
      `${id} registered again: incarnation ${incarnation} → ${incarnation + 1}`,
    );
  }, 60_000);

  it('measures PushText to first frame on the page', async () => {
    const ms = await h.page.evaluate(() => (globalThis as unknown as WithLog).dhsched.firstFrameMs);
    expect(ms.length).toBeGreaterThanOrEqual(2);
    for (const m of ms) expect(m).toBeGreaterThan(0);
  });

  it('closes the watched session: no session watched, and Migrate says why', async () => {
    await h.page.click('#close');
    await h.page.waitForSelector('#sessions tr[data-session="s1"]', { state: 'detached' });
    expect(await h.page.textContent('#now-showing')).toBe('no session watched');
    await h.page.click('#migrate');
    expect(await error()).toBe('create or pick a session first');
  });

  it('serves its icon', async () => {
    for (const path of ['/favicon.svg', '/favicon.ico']) {
      const res = await fetch(new URL(path, h.console.url));
      expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
      expect(await res.text()).toMatch(/^<svg /);
    }
    expect(await h.page.getAttribute('link[rel="icon"]', 'href')).toBe('/favicon.svg');
  });

  it('refuses bad requests with a clear error, and a POST that is not JSON (another origin’s form)', async () => {
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
