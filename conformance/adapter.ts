/**
 * The conformance adapter: the spec's actions (spec/DHSched.tla) taken by the real implementation, and the
 * implementation's whole state read back as the spec's variables.
 *
 * One adapter is one behaviour from the initial state: a fresh cell on a real Redis with auditing on, one
 * DispatchCore per Dispatch replica (holding at most one plan: dop[d]), one Infer-Controller per worker
 * that runs no loop of its own (`autonomous: false`: the adapter takes each of its steps), the CPU
 * reference runtime, an in-process MediaSink, and one clock that every controller and replica reads.
 *
 *   action                 implementation
 *   BeginCreate(d, s, w)   DispatchCore.planCreate                    (dop[d] := the plan)
 *   BeginMove(d, s, w)     DispatchCore.planMove (readGen)            (dop[d] := the plan)
 *   Commit(d)              DispatchCore.commitPlan (admitCommit)      (dop[d] := idle)
 *   Abandon(d)             the plan is dropped: a replica that died never commits it
 *   Close(s)               DispatchCore.closeLive (closeSession)
 *   Drain(w)               steps.drain (the spec's Drain moves nothing; DrainWorker's moves are Commits)
 *   Undrain(w)             DispatchCore.undrainWorker                 (undrain)
 *   PushText(s, r)         DispatchCore.pushText, request id `r<r>`   (appendInput)
 *   Claim(w, s, e)         the (s, e) entries taken from inbox[w]: InferController.takeWork of w's work
 *                          stream entries of it (claimStep), or else startRuntime (a delivery of the assignment again)
 *   Reconstruct(w, s, e)   InferController.reconstructStep            (readRelease, open, restore)
 *   ReleaseInput(w, s, e)  InferController.releaseStep                (releaseBatch of one, process, publish)
 *   ReleaseBatch(w, B)     InferController.batchStep of B's (s, e)    (releaseBatch, process, publish)
 *   Fence(w, s, e)         InferController.fenceStep                  (readGen)
 *   Teardown(w, s, e)      InferController.teardownStep               (close, teardown)
 *   Emit(w, s, e)          InferController.emitStep, then w's frames of (s, e) in flight reach the sink
 *   Crash(w)               the controller is dropped, nothing torn down (its runtimes and frames are lost)
 *   LeaseExpire(w)         the clock moves past w's expiry after every other live lease is renewed
 *                          (InferController.heartbeat; steps.renewLease for a crashed worker's lease)
 *   Register(w)            crashed: a new controller's start (registerWorker); up: its heartbeat, refused,
 *                          stops every runtime and registers again (the production relapse)
 *   Redeliver(w, s, e)     a second delivery of (s, e) to w in flight: an entry of inbox[w]
 *
 *   variable     read back from
 *   gen          readGen                       log        the log's request ids r<n> as n
 *   released     readRelease                   tokens     readWorker's tokens
 *   lease        readWorker's live at the clock inbox      w's work stream's assignments not taken,
 *   draining     readWorker's draining                     and second deliveries in flight
 *   replica      the store as it was at the start (StoreMode "single": no replica is modelled)
 *   up           whether w has a controller    rt         InferController.runtimeTable
 *   dop          the replica's plan            sent       readAudit's commits
 *   sink         the MediaSink's newest epoch  rels       readAudit's releases; stale: the generation
 *   staleFrame   the sink accepted an older epoch than it had shown  was not current (its commits, closes)
 *   faults       the fault actions taken
 *
 * Bound of the model, not of the implementation: a Commit whose epoch would pass MaxEpoch ends without a
 * commit in the spec (`ne \in Epochs`). Where the guard and the admission hold (on the state read back
 * before the step, which is the spec's), only that bound stops it, and the adapter sends nothing; where
 * either fails, it sends the commit, and the comparison checks that the store refuses it.
 */
import { silentLogger } from '../impl/common/log.js';
import { isStale, releasesInContext } from '../harness/history.js';
import { DispatchCore, type Plan } from '../impl/dispatch/core.js';
import { LoadView } from '../impl/dispatch/load-view.js';
import type { Notifier } from '../impl/dispatch/notifier.js';
import { leastLoaded } from '../impl/dispatch/ranking.js';
import { StoreCode } from '../impl/store/codes.js';
import { Protocol } from '../impl/store/schema.js';
import { cellKeys } from '../impl/store/keys.js';
import { loadScriptShas, queueEvalsha, readReply } from '../impl/store/scripts.js';
import * as steps from '../impl/store/steps.js';
import { type ControllerSnapshot, InferController, workEntry } from '../gpu-worker/controller.js';
import { MediaSink } from '../gpu-worker/media/sink.js';
import { cpuReference, decodePayload } from '../gpu-worker/runtime/cpu-reference.js';
import type { Input, MediaFrame } from '../gpu-worker/runtime/pipeline.js';
import { commitRefusal } from './admission.js';
import { type Edge, type SpecState, setOf } from './graph.js';

/** The model's constants the adapter needs (from its .cfg). */
export interface AdapterModel {
  /** The store's protocol: the spec's Protocol. */
  protocol: Protocol;
  sessions: string[];
  workers: string[];
  dispatchers: string[];
  /** The model value naming no worker. */
  noWorker: string;
  cap: number;
  maxEpoch: number;
}

/** What the adapter can run: DHSched or one of its unsafe baselines (the store's `protocol`), unbroken, on one store. */
export function adapterModel(constants: Record<string, unknown>): AdapterModel {
  const need = (name: string, want: unknown) => {
    if (constants[name] !== want) {
      throw new Error(
        `the adapter runs ${name} = ${JSON.stringify(want)} only, not ${JSON.stringify(constants[name])}`,
      );
    }
  };
  const protocol = Protocol.safeParse(constants['Protocol']);
  if (!protocol.success) {
    throw new Error(`the adapter runs no Protocol ${JSON.stringify(constants['Protocol'])}`);
  }
  need('Bug', 'none');
  need('StoreMode', 'single');
  const names = (name: string) => (constants[name] as unknown[]).map(String);
  return {
    protocol: protocol.data,
    sessions: names('Sessions'),
    workers: names('Workers'),
    dispatchers: names('Dispatchers'),
    noWorker: String(constants['NoWorker']),
    cap: Number(constants['Cap']),
    maxEpoch: Number(constants['MaxEpoch']),
  };
}

/** The lease TTL every worker registers with, and where the clock starts. */
export const TTL_MS = 10_000;
export const CLOCK_START = 1_000_000;

export interface AdapterOptions {
  model: AdapterModel;
  store: steps.Store;
  cell: string;
}

const nobody: Notifier = { notify: () => undefined, close: () => undefined };
const pair = (s: string, e: number) => `${s}|${e}`;

/** Thrown when the implementation cannot take a step the spec takes. */
export class StepRefused extends Error {}

/**
 * Everything of an adapter between two steps, to come back to it (prefix sharing, replay.ts): the cell's
 * keys (Redis DUMP), each up worker's controller, each replica's plan, the adapter's own bookkeeping
 * (clock, inboxes, frames in flight), and the sink's newest epoch per session.
 */
export interface AdapterSnapshot {
  clock: number;
  keys: [string, Buffer | null][];
  controllers: [string, ControllerSnapshot][];
  plans: [string, Plan | undefined][];
  taken: [string, string[]][];
  pending: [string, string[]][];
  inFlight: [string, MediaFrame[]][];
  sink: [string, number][];
  staleFrames: string[];
  faults: number;
}

export class Adapter {
  readonly model: AdapterModel;
  readonly cell: string;
  readonly store: steps.Store;
  private clock = CLOCK_START;
  private readonly controllers = new Map<string, InferController>();
  private readonly dispatch = new Map<string, { core: DispatchCore; plan: Plan | undefined }>();
  /** Per worker: ids of work stream entries taken (by Claim), since its last registration. */
  private readonly taken = new Map<string, Set<string>>();
  /** Per worker: second deliveries in flight, as "s|e". */
  private readonly pending = new Map<string, Set<string>>();
  /** Per worker: frames published and not yet at the sink. */
  private readonly inFlight = new Map<string, MediaFrame[]>();
  private sink = new MediaSink(silentLogger);
  private readonly staleFrames = new Set<string>();
  /** The digest of a session after a history of inputs (by request ids), computed once. */
  private readonly digests = new Map<string, string>();
  private faults = 0;
  private replica: unknown;
  /** Each worker's work stream as the last read-back saw it; null once a step may have changed it. */
  private streams: Map<string, [string, string[]][]> | null = null;
  /** The last read-back; null once a step may have changed the state. */
  private observed: SpecState | null = null;

  private constructor(o: AdapterOptions) {
    this.model = o.model;
    this.store = o.store;
    this.cell = o.cell;
    const now = () => this.clock;
    for (const d of o.model.dispatchers) {
      const loadView = new LoadView({
        store: o.store,
        cells: [o.cell],
        refreshMs: 60_000,
        log: silentLogger,
        now,
      });
      const core = new DispatchCore({
        store: o.store,
        id: d,
        ranking: leastLoaded,
        loadView,
        notifier: nobody,
        log: silentLogger,
        now,
        // the spec bounds neither a session's queue nor its rate; replays push far faster than a client
        maxQueued: 0,
        pushRate: 0,
      });
      this.dispatch.set(d, { core, plan: undefined });
    }
  }

  /** The initial state: a cell with auditing on, every worker registered and up. */
  static async open(o: AdapterOptions): Promise<Adapter> {
    if (o.store.protocol !== o.model.protocol) {
      throw new Error(`the model's Protocol is ${o.model.protocol}, the store's ${o.store.protocol}`);
    }
    const a = new Adapter(o);
    await steps.configureCell(o.store, { cell: o.cell, audit: true });
    for (const w of o.model.workers) await a.startWorker(w);
    const s = await a.observe();
    a.replica = ['gen', 'log', 'released', 'tokens', 'lease', 'inbox', 'draining'].map((v) => s[v]);
    a.observed = null; // read without the replica
    return a;
  }

  /** Takes the edge's action. */
  async step(edge: Pick<Edge, 'action' | 'params' | 'label'>): Promise<void> {
    const p = edge.params as Record<string, string | number>;
    const d = String(p['d']);
    const s = String(p['s']);
    const w = String(p['w']);
    const e = Number(p['e']);
    const streams = this.streams;
    const observed = this.observed ?? (await this.observe());
    this.streams = null;
    this.observed = null;
    switch (edge.action) {
      case 'BeginCreate':
        this.dispatcher(d).plan = this.dispatcher(d).core.planCreate(this.cell, s, w);
        return;
      case 'BeginMove':
        this.dispatcher(d).plan = await this.dispatcher(d).core.planMove(this.cell, s, w);
        return;
      case 'Commit': {
        const r = this.dispatcher(d);
        const plan = r.plan;
        if (!plan) throw new StepRefused(`${d} has no operation to commit`);
        r.plan = undefined;
        const beyondBound = (plan.from?.epoch ?? 0) + 1 > this.model.maxEpoch;
        if (beyondBound && this.wouldCommit(plan, observed)) return; // only the model's bound stops it
        await r.core.commitPlan(plan);
        return;
      }
      case 'Abandon':
        this.dispatcher(d).plan = undefined;
        this.faults++;
        return;
      case 'Close':
        await this.anyReplica().closeLive(this.cell, s);
        return;
      case 'Drain':
        await steps.drain(this.store, { cell: this.cell, worker: w });
        return;
      case 'Undrain':
        await this.anyReplica().undrainWorker(this.cell, w);
        return;
      case 'PushText': {
        const r = Number(p['r']);
        await this.anyReplica().pushText(this.cell, s, `r${r}`, `Input ${r} of ${s}, said once.`);
        return;
      }
      case 'Claim': {
        const taken = this.takeFromInbox(w, s, e, streams?.get(w) ?? (await this.readStream(w)));
        // the production path, the work stream's entries, or else a delivery again (startRuntime)
        if (taken.length > 0) await this.controller(w).takeWork(taken);
        else await this.controller(w).startRuntime(s, e);
        return;
      }
      case 'Reconstruct':
        await this.controller(w).reconstructStep(s, e);
        return;
      case 'ReleaseInput':
        await this.controller(w).releaseStep(s, e);
        return;
      case 'ReleaseBatch': {
        const runtimes = (p['B'] as unknown as [string, number][]).map(([session, epoch]) => ({
          session,
          epoch,
        }));
        await this.controller(w).batchStep(runtimes);
        return;
      }
      case 'Fence':
        await this.controller(w).fenceStep(s, e);
        return;
      case 'Teardown':
        await this.controller(w).teardownStep(s, e);
        return;
      case 'Emit': {
        const controller = this.controller(w);
        const frame = controller.emitStep(s, e);
        if (!frame) throw new StepRefused(`runtime ${s}/${e} on ${w} is not ready`);
        // the frame a ready runtime shows now is the state after its cursor's input (rt[w]'s cur)
        const shows = frame.seq;
        const cur = controller.runtimeTable().find((r) => r.s === s && r.e === e)!.cur;
        if (shows !== cur) {
          throw new StepRefused(`runtime ${s}/${e} on ${w} shows input ${shows}, its cursor is ${cur}`);
        }
        await this.deliverFrames(w, s, e);
        return;
      }
      case 'Crash':
        this.controller(w);
        this.controllers.delete(w);
        this.inFlight.delete(w);
        this.faults++;
        return;
      case 'LeaseExpire':
        await this.expireLease(w);
        this.faults++;
        return;
      case 'Register':
        await this.register(w);
        return;
      case 'Redeliver':
        this.pendingOf(w).add(pair(s, e));
        this.faults++;
        return;
      default:
        throw new StepRefused(`the adapter does not take ${edge.action}`);
    }
  }

  /**
   * Requests the spec does not enable in `spec` (the state a step led to) are refused, and the read-back
   * that follows checks they changed nothing: a PushText to a session that is not live (never created,
   * or closed).
   */
  async refuseDisabled(spec: SpecState): Promise<void> {
    const gen = spec['gen'] as Record<string, { ph: string }>;
    const live = (s: string) => gen[s]!.ph === 'assigned' || gen[s]!.ph === 'claimed';
    for (const s of this.model.sessions) {
      const ph = gen[s]!.ph;
      if (live(s)) continue;
      const accepted = await succeeds(
        this.anyReplica().pushText(this.cell, s, 'r0', 'Not for this session.'),
      );
      if (accepted)
        throw new StepRefused(`a PushText to ${s} (phase ${ph}) was accepted; the spec enables none`);
    }
  }

  /** The implementation's state as the spec's variables, canonical plain JSON (graph.ts). */
  async observe(): Promise<SpecState> {
    const { sessions, workers, noWorker } = this.model;
    const k = cellKeys(this.cell);
    const cell = this.cell;
    const now = this.clock;
    const calls = {
      gen: sessions.map((session) => steps.readGen.build({ cell, session })),
      released: sessions.map((session) =>
        steps.readRelease.build({ cell, session, fromSeq: Number.MAX_SAFE_INTEGER }),
      ),
      worker: workers.map((worker) => steps.readWorker.build({ cell, worker, now })),
    };
    const shas = await loadScriptShas(this.store.redis);
    const p = this.store.redis.pipeline();
    for (const c of [...calls.gen, ...calls.released, ...calls.worker]) queueEvalsha(p, shas, c);
    for (const s of sessions) p.lrange(k.log(s), 0, -1);
    for (const w of workers) p.xrange(k.stream(w), '-', '+');
    p.xrange(k.audit, '-', '+');
    const replies = await p.exec();
    const reply = (i: number): unknown => {
      const [err, r] = replies![i]!;
      if (err) throw err;
      return r;
    };
    let i = 0;
    // records are built with their keys in canonical (sorted) order: the state's JSON text is canonical
    const gens = calls.gen.map((c) => {
      const r = reply(i++);
      if (r === StoreCode.NO_SESSION) return { e: 0, ph: 'none', w: noWorker };
      const [w, e, ph] = readReply(c, r);
      return { e, ph, w };
    });
    const released = calls.released.map((c) => {
      const [seq, w, e] = readReply(c, reply(i++));
      return { e, seq, w: w === '' ? noWorker : w };
    });
    const views = calls.worker.map((c) => readReply(c, reply(i++)));
    const logs = sessions.map(() =>
      steps.inputsOf(reply(i++) as string[], 0).map((input) => Number(input.requestId.slice(1))),
    );
    this.streams = new Map(workers.map((w) => [w, reply(i++) as [string, string[]][]]));
    const audit = steps.auditOf(reply(i++) as [string, string[]][]);
    const sent = new Map<string, [string, number][]>(workers.map((w) => [w, []]));
    for (const a of audit) if (a.kind === 'commit') sent.get(a.worker)?.push([a.session, a.epoch]);
    const rels = new Map<string, { e: number; seq: number; stale: boolean; w: string }[]>(
      sessions.map((s) => [s, []]),
    );
    for (const { release: r, current } of releasesInContext(audit)) {
      rels.get(r.session)?.push({ e: r.epoch, seq: r.seq, stale: isStale(r, current), w: r.worker });
    }
    const media = new Map(this.sink.stats().map((m) => [m.session, m.epoch]));
    const perSession = <T>(f: (s: string, i: number) => T) =>
      Object.fromEntries(sessions.map((s, j): [string, T] => [s, f(s, j)]).sort(byKey));
    const perWorker = <T>(f: (w: string, i: number) => T) =>
      Object.fromEntries(workers.map((w, j): [string, T] => [w, f(w, j)]).sort(byKey));
    const dop = Object.fromEntries(
      [...this.dispatch]
        .map(([d, { plan }]): [string, unknown] => [
          d,
          plan
            ? {
                e: plan.from?.epoch ?? 0,
                kind: plan.kind,
                s: plan.session,
                src: plan.from?.worker ?? noWorker,
                to: plan.target,
              }
            : { e: 0, kind: 'idle', s: noWorker, src: noWorker, to: noWorker },
        ])
        .sort(byKey),
    );
    const state: SpecState = {
      gen: perSession((_, j) => gens[j]),
      log: perSession((_, j) => logs[j]),
      released: perSession((_, j) => released[j]),
      tokens: perWorker((_, j) => setOf(views[j]![5].map(tokenPair))),
      lease: perWorker((_, j) => (views[j]![2] === 1 ? 'live' : 'expired')),
      inbox: perWorker((w) => setOf(this.inbox(w, this.streams!.get(w)!))),
      draining: setOf(workers.filter((_, j) => views[j]![4] === 1)),
      replica: this.replica,
      up: perWorker((w) => this.controllers.has(w)),
      rt: perWorker((w) =>
        setOf(
          (this.controllers.get(w)?.runtimeTable() ?? []).map((r) => ({
            cur: r.cur,
            e: r.e,
            ph: r.ph,
            s: r.s,
          })),
        ),
      ),
      dop,
      sent: perWorker((w) => setOf(sent.get(w)!)),
      sink: perSession((s) => media.get(s) ?? 0),
      rels: perSession((s) => rels.get(s)!),
      staleFrame: perSession((s) => this.staleFrames.has(s)),
      faults: this.faults,
    };
    if (state['replica'] === undefined) delete state['replica'];
    this.observed = Object.fromEntries(Object.entries(state).sort(byKey));
    return this.observed;
  }

  /** The spec's GuardHolds(op) /\ Admits(op.to) on a state of the spec's shape. */
  private wouldCommit(plan: Plan, state: SpecState): boolean {
    const at = <T>(v: string, k: string) => (state[v] as Record<string, T>)[k]!;
    const refusal = commitRefusal({
      gen: at<{ w: string; e: number; ph: string }>('gen', plan.session),
      from: plan.from && { w: plan.from.worker, e: plan.from.epoch },
      lease: at<string>('lease', plan.target),
      draining: (state['draining'] as string[]).includes(plan.target),
      tokens: at<unknown[]>('tokens', plan.target).length,
      cap: this.model.cap,
    });
    return refusal === undefined;
  }

  /** The adapter's whole state, to `restore` it later (only between steps). */
  async snapshot(): Promise<AdapterSnapshot> {
    const keys = this.keyNames();
    const p = this.store.redis.pipeline();
    for (const key of keys) p.dumpBuffer(key);
    const dumps = (await p.exec())!.map(([err, buf]) => {
      if (err) throw err;
      return buf as Buffer | null;
    });
    return {
      clock: this.clock,
      keys: keys.map((key, j) => [key, dumps[j]!]),
      controllers: [...this.controllers].map(([w, c]) => [w, c.snapshotState()]),
      plans: [...this.dispatch].map(([d, r]) => [d, r.plan]),
      taken: [...this.taken].map(([w, t]) => [w, [...t]]),
      pending: [...this.pending].map(([w, t]) => [w, [...t]]),
      inFlight: [...this.inFlight].map(([w, f]) => [w, [...f]]),
      sink: this.sink.stats().map((m) => [m.session, m.epoch]),
      staleFrames: [...this.staleFrames],
      faults: this.faults,
    };
  }

  /** Back to a snapshot of this adapter: the cell's keys restored, controllers rebuilt from theirs. */
  async restore(snap: AdapterSnapshot): Promise<void> {
    const p = this.store.redis.pipeline();
    p.del(...snap.keys.map(([key]) => key));
    for (const [key, dump] of snap.keys) if (dump) p.restore(key, 0, dump);
    for (const [err] of (await p.exec())!) if (err) throw err;
    this.clock = snap.clock;
    this.streams = null;
    this.observed = null;
    this.controllers.clear();
    this.inFlight.clear();
    for (const [w, c] of snap.controllers) {
      const controller = this.newController(w, [...(snap.inFlight.find(([x]) => x === w)?.[1] ?? [])]);
      await controller.resume(c);
      this.controllers.set(w, controller);
    }
    for (const [d, plan] of snap.plans) this.dispatch.get(d)!.plan = plan;
    this.taken.clear();
    for (const [w, t] of snap.taken) this.taken.set(w, new Set(t));
    this.pending.clear();
    for (const [w, t] of snap.pending) this.pending.set(w, new Set(t));
    this.sink = new MediaSink(silentLogger);
    for (const [session, epoch] of snap.sink) {
      // what the sink remembers of a session is its newest epoch: one frame of it restores that
      const frame = { cell: this.cell, session, epoch, seq: 0, index: 0, ptsMs: 0, worker: 'restore' };
      this.sink.offer({ ...frame, payload: Buffer.alloc(0) });
    }
    this.staleFrames.clear();
    for (const s of snap.staleFrames) this.staleFrames.add(s);
    this.faults = snap.faults;
  }

  /** Deletes every key of the cell. */
  async dispose(): Promise<void> {
    await this.store.redis.del(...this.keyNames());
  }

  /** Every key the cell can have (its sessions and workers are the model's). */
  private keyNames(): string[] {
    const k = cellKeys(this.cell);
    return [
      ...this.model.sessions.flatMap((s) => [k.gen(s), k.log(s), k.req(s)]),
      ...this.model.workers.flatMap((w) => [
        k.tokens(w),
        k.cap(w),
        k.lease(w),
        k.stream(w),
        k.placed(w),
        k.load(w),
      ]),
      k.workers,
      k.config,
      k.audit,
      k.draining,
      k.sessions,
    ];
  }

  private dispatcher(d: string) {
    const r = this.dispatch.get(d);
    if (!r) throw new StepRefused(`no Dispatch replica ${d}`);
    return r;
  }

  private anyReplica(): DispatchCore {
    return this.dispatch.values().next().value!.core;
  }

  private controller(w: string): InferController {
    const c = this.controllers.get(w);
    if (!c) throw new StepRefused(`worker ${w} is not up`);
    return c;
  }

  private pendingOf(w: string): Set<string> {
    let p = this.pending.get(w);
    if (!p) this.pending.set(w, (p = new Set()));
    return p;
  }

  private takenOf(w: string): Set<string> {
    let t = this.taken.get(w);
    if (!t) this.taken.set(w, (t = new Set()));
    return t;
  }

  /** A new incarnation of the worker: a controller that takes no step by itself, registered. */
  private async startWorker(w: string): Promise<void> {
    const controller = this.newController(w, []);
    await controller.start();
    this.controllers.set(w, controller);
  }

  /** A controller of the worker that takes no step by itself; its frames go in flight to the sink. */
  private newController(w: string, frames: MediaFrame[]): InferController {
    this.inFlight.set(w, frames);
    return this.controllerOf(w, frames);
  }

  private controllerOf(w: string, frames: MediaFrame[]): InferController {
    return new InferController({
      store: this.store,
      cell: this.cell,
      worker: w,
      capacity: this.model.cap,
      addr: '',
      leaseTtlMs: TTL_MS,
      sweepMs: 60_000,
      backend: cpuReference,
      publisher: { publish: (fs) => void frames.push(...fs), close: async () => undefined },
      log: silentLogger,
      now: () => this.clock,
      autonomous: false,
    });
  }

  /** Register(w): the worker comes back as a new incarnation; its inbox starts empty. */
  private async register(w: string): Promise<void> {
    const old = this.controllers.get(w);
    if (old) {
      const before = old.snapshot().incarnation;
      // the production path: the heartbeat's renewal is refused, every runtime stops, it registers again
      await old.heartbeat();
      const after = old.snapshot();
      if (after.state !== 'serving' || after.incarnation <= before) {
        throw new StepRefused(
          `${w} did not register again (${after.state}, incarnation ${after.incarnation})`,
        );
      }
      this.inFlight.get(w)!.length = 0;
    } else {
      await this.startWorker(w);
    }
    this.takenOf(w).clear();
    this.pendingOf(w).clear();
  }

  /** LeaseExpire(w): only w's lease lapses; every other live one is renewed first, as its heartbeat does. */
  private async expireLease(w: string): Promise<void> {
    const c = this.clock;
    const view = (x: string) => steps.readWorker(this.store, { cell: this.cell, worker: x, now: this.clock });
    const expiresAt = (await view(w)).expiresAt;
    const others: string[] = [];
    for (const x of this.model.workers) if (x !== w && (await view(x)).live) others.push(x);
    const renewAll = async () => {
      for (const x of others) {
        const controller = this.controllers.get(x);
        if (controller) await controller.heartbeat();
        else {
          // a crashed worker whose lease has not run out yet: its last renewal stands for it
          const { incarnation } = await view(x);
          await steps.renewLease(this.store, {
            cell: this.cell,
            worker: x,
            incarnation,
            now: this.clock,
            ttlMs: TTL_MS,
          });
        }
      }
    };
    await renewAll();
    if (expiresAt >= c + TTL_MS) {
      this.clock = c + 1;
      await renewAll();
    }
    this.clock = expiresAt;
  }

  /** The worker's work stream. */
  private readStream(w: string): Promise<[string, string[]][]> {
    return this.store.redis.xrange(cellKeys(this.cell).stream(w), '-', '+');
  }

  /** inbox[w]: the stream's assignments not taken since the last registration, and second deliveries in flight. */
  private inbox(w: string, rows: [string, string[]][]): [string, number][] {
    const taken = this.takenOf(w);
    return [
      ...assignments(rows)
        .filter(([id]) => !taken.has(id))
        .map(([, s, e]): [string, number] => [s, e]),
      ...[...this.pendingOf(w)].map(tokenPair),
    ];
  }

  /**
   * Claim takes (s, e) out of inbox[w]: every stream entry of it (returned, as read), and a second delivery of
   * it in flight.
   */
  private takeFromInbox(w: string, s: string, e: number, rows: [string, string[]][]): [string, string[]][] {
    const taken = this.takenOf(w);
    const ids = new Set<string>();
    for (const [id, rs, re] of assignments(rows)) {
      if (rs === s && re === e && !taken.has(id)) ids.add(id);
    }
    const inFlight = this.pendingOf(w).delete(pair(s, e));
    if (ids.size === 0 && !inFlight) throw new StepRefused(`(${s}, ${e}) is not in ${w}'s inbox`);
    for (const id of ids) taken.add(id);
    return rows.filter(([id]) => ids.has(id));
  }

  /**
   * Emit: w's frames of (s, e) in flight reach the sink, which fences them by epoch. Each shows the session
   * after exactly the log's inputs up to its seq, or the runtime was not rebuilt from the log.
   */
  private async deliverFrames(w: string, s: string, e: number): Promise<void> {
    const frames = this.inFlight.get(w)!;
    const mine = frames.filter((f) => f.session === s && f.epoch === e);
    const rest = frames.filter((f) => !(f.session === s && f.epoch === e));
    frames.length = 0;
    frames.push(...rest);
    const { entries } = await steps.readRelease(this.store, { cell: this.cell, session: s });
    for (const frame of mine) {
      const want = await this.digestAfter(s, entries.slice(0, frame.seq));
      const shows = decodePayload(frame.payload).digest;
      if (shows !== want) {
        throw new StepRefused(
          `a frame of ${s}/${e} at seq ${frame.seq} shows state ${shows.slice(0, 12)}…, not the log's ` +
            `inputs 1..${frame.seq} (${want.slice(0, 12)}…)`,
        );
      }
      const shown = this.sink.stats().find((m) => m.session === s)?.epoch ?? 0;
      const result = this.sink.offer(frame);
      if (result === 'invalid') throw new StepRefused(`the sink refused a frame of ${s}/${e} as invalid`);
      if (result === 'accepted' && frame.epoch < shown) this.staleFrames.add(s);
    }
  }

  /** The session digest a runtime restored from exactly these inputs shows. */
  private async digestAfter(session: string, history: Input[]): Promise<string> {
    const key = [session, ...history.map((i) => i.requestId)].join('|');
    let digest = this.digests.get(key);
    if (digest === undefined) {
      const runtime = cpuReference.open({ cell: this.cell, session, epoch: 0, worker: 'reference' });
      await runtime.restore(history);
      digest = decodePayload(runtime.idleFrame().payload).digest;
      await runtime.close();
      this.digests.set(key, digest);
    }
    return digest;
  }
}

const byKey = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** "s|e" (a capacity token, or a pending delivery) as the spec's <<s, e>>. */
function tokenPair(t: string): [string, number] {
  const bar = t.lastIndexOf('|');
  return [t.slice(0, bar), Number(t.slice(bar + 1))];
}

/**
 * The cell's audit stream (XRANGE rows) as steps.readAudit reads it; parsed here so that the read-back
 * stays one round trip.
 */
/** Whether the request was taken rather than refused. */
const succeeds = (request: Promise<unknown>): Promise<boolean> =>
  request.then(
    () => true,
    () => false,
  );

/** The assignment entries (fields s, e) of a work stream: [id, s, e]. */
function assignments(rows: [string, string[]][]): [string, string, number][] {
  return rows.flatMap(([id, fields]): [string, string, number][] => {
    const entry = workEntry(fields);
    return entry && 'e' in entry ? [[id, entry.s, entry.e]] : [];
  });
}
