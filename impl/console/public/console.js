// The DHSched console page: the cell's workers and sessions (polled from /api/state), buttons for the
// API, and the watched session's avatar over WebRTC (an idle picture until its frames arrive). Frames
// arrive an input at a time and play at 25 fps from a queue, each with its 40 ms of sound (G.711 μ-law).
// The viewer fences on the frames' generation stamp: once a frame of epoch e arrives, frames of older
// epochs, queued or late, are dropped, never shown.

const $ = (id) => document.getElementById(id);
const AVATAR_PAYLOAD_VERSION = 0xa2;
const SAMPLE_RATE = 22050;
const FRAME_MS = 40;

/**
 * What the page has shown, read by the browser test; queued: frames waiting for their turn; firstFrameMs:
 * per input said here, the time from its PushText call to its first frame on the page.
 */
const viewerLog = { shown: [], dropped: 0, queued: 0, firstFrameMs: [] };
const sentAt = new Map();
const firstFrameAt = new Map();
/** Keyed by session/seq. */
function measured(key) {
  if (sentAt.has(key) && firstFrameAt.has(key))
    viewerLog.firstFrameMs.push(firstFrameAt.get(key) - sentAt.get(key));
}
window.dhsched = viewerLog;

async function api(method, path, body) {
  const post = method === 'POST';
  const res = await fetch(path, {
    method,
    headers: post ? { 'content-type': 'application/json' } : {},
    body: post ? JSON.stringify(body ?? {}) : undefined,
  });
  const reply = await res.json();
  if (!res.ok) throw new Error(reply.error ?? `${res.status}`);
  return reply;
}

function report(err) {
  $('error').textContent = err ? String(err.message ?? err) : '';
}

/** The picture while no frame is drawn: a caption, over the outline of a face when a session is idle. */
function placeholder(caption, face) {
  const g = $('video').getContext('2d');
  g.fillStyle = '#1d2433';
  g.fillRect(0, 0, 320, 240);
  if (face) {
    g.strokeStyle = g.fillStyle = '#8a94ab';
    g.lineWidth = 3;
    g.beginPath();
    g.ellipse(160, 100, 50, 62, 0, 0, 2 * Math.PI);
    g.moveTo(145, 132);
    g.lineTo(175, 132);
    g.stroke();
    for (const x of [140, 180]) {
      g.beginPath();
      g.arc(x, 90, 5, 0, 2 * Math.PI);
      g.fill();
    }
  }
  g.fillStyle = '#e8ecf4';
  g.textAlign = 'center';
  g.fillText(caption, 160, face ? 200 : 120);
}

/** One binary message of the data channel: u32 header length, JSON header, the backend's payload. */
function decodeMessage(buffer) {
  const view = new DataView(buffer);
  const headerBytes = view.getUint32(0);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, headerBytes)));
  const payload = new Uint8Array(buffer, 4 + headerBytes);
  if (payload[0] !== AVATAR_PAYLOAD_VERSION) return { header, jpeg: null, pcm: null };
  const p = new DataView(buffer, 4 + headerBytes);
  const jpegBytes = p.getUint32(1);
  const audioBytes = p.getUint32(5 + jpegBytes);
  const jpeg = payload.slice(5, 5 + jpegBytes);
  const pcm = decodeMuLaw(payload.subarray(9 + jpegBytes, 9 + jpegBytes + audioBytes));
  return { header, jpeg, pcm };
}

/** G.711 μ-law bytes → linear samples in [-1, 1) (gpu-worker/runtime/mulaw.ts encodes them). */
function decodeMuLaw(bytes) {
  const out = new Float32Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const u = ~bytes[i] & 0xff;
    const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 0x07)) - 0x84;
    out[i] = (u & 0x80 ? -magnitude : magnitude) / 32768;
  }
  return out;
}

class Viewer {
  constructor(session) {
    this.session = session;
    this.newestEpoch = 0;
    this.queue = [];
    this.audio = null;
    this.audioAt = 0;
    this.timer = setInterval(() => this.tick(), FRAME_MS);
  }

  async connect() {
    this.pc = new RTCPeerConnection();
    const channel = this.pc.createDataChannel('media');
    channel.binaryType = 'arraybuffer';
    channel.onmessage = (e) => this.receive(decodeMessage(e.data));
    await this.pc.setLocalDescription(await this.pc.createOffer());
    await new Promise((resolve) => {
      if (this.pc.iceGatheringState === 'complete') return resolve();
      this.pc.addEventListener('icegatheringstatechange', () => {
        if (this.pc.iceGatheringState === 'complete') resolve();
      });
    });
    const { sdp } = await api('POST', '/api/rtc', {
      session: this.session,
      sdp: this.pc.localDescription.sdp,
    });
    await this.pc.setRemoteDescription({ type: 'answer', sdp });
  }

  close() {
    clearInterval(this.timer);
    this.pc?.close();
  }

  receive(frame) {
    const { epoch } = frame.header;
    if (epoch < this.newestEpoch) {
      viewerLog.dropped++;
      return;
    }
    if (epoch > this.newestEpoch) {
      const stale = this.queue.length;
      this.queue = this.queue.filter((f) => f.header.epoch >= epoch);
      viewerLog.dropped += stale - this.queue.length;
      this.newestEpoch = epoch;
    }
    this.queue.push(frame);
    viewerLog.queued = this.queue.length;
  }

  /** Every 40 ms: the next frame, drawn, and its sound. */
  tick() {
    const frame = this.queue.shift();
    viewerLog.queued = this.queue.length;
    if (!frame) return;
    const { header, jpeg, pcm } = frame;
    const key = `${header.session}/${header.seq}`;
    if (header.index === 0 && !firstFrameAt.has(key)) {
      firstFrameAt.set(key, performance.now());
      measured(key);
    }
    if (pcm) this.play(pcm);
    this.show(header, jpeg).catch(report);
  }

  async show(header, jpeg) {
    const g = $('video').getContext('2d');
    if (jpeg) {
      const picture = await createImageBitmap(new Blob([jpeg], { type: 'image/jpeg' }));
      g.drawImage(picture, 0, 0);
    } else {
      placeholder('this runtime renders no pictures', false);
    }
    const { epoch, seq, index, worker, ptsMs } = header;
    viewerLog.shown.push({ epoch, seq, index, worker, ptsMs });
    $('now-showing').textContent =
      `${header.session} · epoch ${header.epoch} on ${header.worker} · input ${header.seq}, frame ${header.index}`;
    $('viewer-stats').textContent =
      `${viewerLog.shown.length} frames shown · ${viewerLog.dropped} stale dropped`;
  }

  play(pcm) {
    if (!this.audio) this.audio = new AudioContext({ sampleRate: SAMPLE_RATE });
    if (this.audio.state !== 'running') return;
    const buffer = this.audio.createBuffer(1, pcm.length, SAMPLE_RATE);
    buffer.copyToChannel(pcm, 0);
    const source = this.audio.createBufferSource();
    source.buffer = buffer;
    source.connect(this.audio.destination);
    // back to back with the slice before, a little ahead of the clock: no gaps between frames
    this.audioAt = Math.max(this.audioAt, this.audio.currentTime + 0.05);
    source.start(this.audioAt);
    this.audioAt += buffer.duration;
  }
}

let viewer = null;
/** A data channel message handed to the viewer as if it had arrived (the browser test's late frames). */
viewerLog.offer = (buffer) => viewer?.receive(decodeMessage(buffer));
let selected = null;
let previous = null;

/** Watches session `s` (a row of /api/state, or CreateLive's reply): idle until its frames arrive. */
async function watch(s) {
  if (viewer?.session === s.session) return;
  viewer?.close();
  selected = s.session;
  viewer = new Viewer(s.session);
  placeholder('idle: the avatar shows when it speaks', true);
  $('now-showing').textContent = `${s.session} · epoch ${s.epoch} on ${s.worker} · idle`;
  $('viewer-stats').textContent = '';
  await viewer.connect();
}

function unwatch() {
  viewer?.close();
  viewer = null;
  selected = null;
  placeholder('', false);
  $('now-showing').textContent = 'no session watched';
  $('viewer-stats').textContent = '';
}

/** The watched session; null, said on the page, when there is none for the action. */
function watched() {
  if (!selected) report(new Error('create or pick a session first'));
  return selected;
}

function event(text) {
  const li = document.createElement('li');
  li.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  $('events').prepend(li);
}

/**
 * Events from what changed between two polls: moves, new epochs, lapsed leases, ended processes, new
 * incarnations, fenced media.
 */
function diff(before, after) {
  const old = new Map(before.sessions.map((s) => [s.session, s]));
  for (const s of after.sessions) {
    const o = old.get(s.session);
    if (!o) event(`${s.session} created on ${s.worker} (epoch ${s.epoch})`);
    else if (o.epoch !== s.epoch)
      event(`${s.session} moved ${o.worker} → ${s.worker} (epoch ${o.epoch} → ${s.epoch})`);
    else if (o.phase !== s.phase) event(`${s.session} ${s.phase}`);
  }
  const was = new Map(before.workers.map((w) => [w.worker, w]));
  for (const w of after.workers) {
    const o = was.get(w.worker);
    if (!o) continue;
    if (o.live && !w.live) event(`${w.worker}'s lease lapsed`);
    if (o.process?.ended === null && ended(w) !== null) event(`${w.worker}'s process ended (${ended(w)})`);
    if (w.incarnation > o.incarnation)
      event(`${w.worker} registered again: incarnation ${o.incarnation} → ${w.incarnation}`);
  }
  const dropped = new Map(before.media.map((m) => [m.session, m.dropped]));
  for (const m of after.media) {
    const fenced = m.dropped - (dropped.get(m.session) ?? 0);
    if (fenced > 0) event(`${fenced} stale frames of ${m.session} fenced at the sink`);
  }
}

function cells(tr, values) {
  for (const v of values) {
    const td = document.createElement('td');
    if (v instanceof Node) td.append(v);
    else td.textContent = String(v);
    tr.append(td);
  }
}

/** A button; disabled, with the reason as its tooltip, when `disabledWhy` is given. */
function button(label, onClick, disabledWhy) {
  const b = document.createElement('button');
  b.textContent = label;
  b.onclick = () => onClick().then(() => report(null), report);
  b.disabled = Boolean(disabledWhy);
  if (disabledWhy) b.title = disabledWhy;
  return b;
}

/** How the worker's process here ended; null while it runs or when none was started here. */
const ended = (w) => w.process?.ended ?? null;

function render(state) {
  $('cell').textContent = `cell ${state.cell}`;
  const workers = $('workers').tBodies[0];
  workers.replaceChildren();
  for (const w of state.workers) {
    const tr = workers.insertRow();
    tr.dataset.worker = w.worker;
    const gone = ended(w) !== null;
    // a lapsed lease or a gone process: its load and runtimes are what it last published
    const dead = gone || !w.live;
    if (dead) tr.className = 'dead';
    const actions = document.createElement('span');
    actions.append(
      w.draining
        ? button('Undrain', () => api('POST', `/api/workers/${w.worker}/undrain`))
        : button(
            'Drain',
            () => api('POST', `/api/workers/${w.worker}/drain`),
            w.live ? null : 'its lease lapsed: registering again ends a drain',
          ),
      button(
        'Kill',
        () => api('POST', `/api/workers/${w.worker}/kill`),
        !w.process ? 'not started by this console' : gone ? 'its process is gone' : null,
      ),
    );
    const lease = w.live ? `live, ${Math.max(0, Number(w.leaseExpiresAtMs) - Date.now())} ms left` : 'lapsed';
    const processCell = !w.process
      ? 'not started here'
      : gone
        ? `gone (${ended(w)})`
        : `pid ${w.process.pid}`;
    cells(tr, [
      w.worker,
      w.incarnation,
      `${lease}${w.draining ? ', draining' : ''}`,
      processCell,
      dead ? '—' : `${w.tokens}/${w.capacity}`,
      dead ? '—' : w.runtimes,
      actions,
    ]);
  }
  const sessions = $('sessions').tBodies[0];
  sessions.replaceChildren();
  const media = new Map(state.media.map((m) => [m.session, m]));
  for (const s of state.sessions) {
    const tr = sessions.insertRow();
    tr.dataset.session = s.session;
    if (s.session === selected) tr.className = 'selected';
    tr.onclick = () => watch(s).catch(report);
    const m = media.get(s.session);
    cells(tr, [s.session, s.worker, s.epoch, s.phase, s.releasedSeq, m?.accepted ?? 0, m?.dropped ?? 0]);
  }
}

async function poll() {
  try {
    const state = await api('GET', '/api/state');
    if (previous) diff(previous, state);
    previous = state;
    render(state);
  } catch (err) {
    report(err);
  }
  setTimeout(poll, 500);
}

/** The session-id field checks the store's Id rule, as the server serves it, before anything is sent. */
async function checkSessionIds() {
  const { pattern, message } = await api('GET', '/api/id-rule');
  const rule = new RegExp(pattern);
  const field = $('session-id');
  const check = () =>
    field.setCustomValidity(field.value === '' || rule.test(field.value) ? '' : `session: ${message}`);
  field.addEventListener('input', check);
  field.addEventListener('invalid', () => report(new Error(field.validationMessage)));
  check();
}

$('create-form').onsubmit = (e) => {
  e.preventDefault();
  api('POST', '/api/sessions', { session: $('session-id').value })
    .then((created) => watch(created))
    .then(() => report(null), report);
};
$('text-form').onsubmit = (e) => {
  e.preventDefault();
  const session = watched();
  if (!session) return;
  viewer?.audio?.resume();
  const at = performance.now();
  api('POST', `/api/sessions/${session}/text`, { text: $('text').value })
    .then(({ seq }) => {
      sentAt.set(`${session}/${seq}`, at);
      measured(`${session}/${seq}`);
    })
    .then(() => report(null), report);
};
$('migrate').onclick = () => {
  const session = watched();
  if (session) api('POST', `/api/sessions/${session}/migrate`, {}).then(() => report(null), report);
};
$('close').onclick = () => {
  const session = watched();
  if (!session) return;
  api('POST', `/api/sessions/${session}/close`)
    .then(() => selected === session && unwatch())
    .then(() => report(null), report);
};
checkSessionIds().catch(report);
poll();
