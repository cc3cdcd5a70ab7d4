/**
 * Dispatch's request logic, free of any per-session state: every decision is one conditional store step
 * (admitCommit's guards decide creates and moves), so any replica serves any request and a replica killed
 * between two steps leaves nothing half done that a retry or another replica cannot finish.
 *
 * A create or a move is two steps of spec/DHSched.tla: BeginCreate / BeginMove (`planCreate`, `planMove`:
 * what was read, and the target) and Commit (`commitPlan`: one admitCommit guarded by that read). Ranking
 * picks the targets; CreateLive, Migrate, DrainWorker and recovery commit one plan per candidate until one
 * admits. A replica that dies between the two steps (Abandon) leaves only a plan that nobody commits.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { match } from 'ts-pattern';
import { admissionRefusals, migrations } from '../common/metrics.js';
import { RpcError, toStatus } from '../rpc/errors.js';
import type {
  DrainWorkerReply,
  ListSessionsReply,
  ListWorkersReply,
  PushTextReply,
  Session,
  UndrainWorkerReply,
} from '../rpc/proto.js';
import { Batcher, Expired } from '../common/batcher.js';
import { StoreCode, type StoreError, isStoreError, storeError } from '../store/codes.js';
import { MAX_APPEND_BATCH } from '../store/schema.js';
import * as steps from '../store/steps.js';
import type { PlacedSession, Store } from '../store/steps.js';
import type { LoadView } from './load-view.js';
import { type Loop, startLoop } from './loop.js';
import type { Notifier } from './notifier.js';
import { type Random, type Ranking, candidates, eligible } from './ranking.js';
import { RateLimiter } from './rate-limit.js';

export interface DispatchCoreOptions {
  store: Store;
  /** This replica's id, for logs. */
  id: string;
  ranking: Ranking;
  loadView: LoadView;
  notifier: Notifier;
  log: Logger;
  now?: () => number;
  /** Jitters the recovery loop and shuffles what a recovery pass moves. */
  random?: Random;
  /** Fault injection: runs right after each commit, before any worker is notified (tests kill here). */
  afterCommit?: () => void;
  /** Inputs a session may hold appended and not released before PushText refuses new ones (0: no limit). */
  maxQueued?: number;
  /** PushText calls a session may make per second on this replica, in bursts of twice that (0: no limit). */
  pushRate?: number;
}

/** PushText's default bound on a session's inputs not yet released. */
export const DEFAULT_MAX_QUEUED = 256;
/** PushText's default rate per session and replica. */
export const DEFAULT_PUSH_RATE = 50;

/** Cells whose append batchers are kept while idle. */
const APPEND_BATCHERS = 1024;

/** One push of an append batch. */
interface Push {
  session: string;
  requestId: string;
  text: string;
}

export type MoveReason = 'migrate' | 'drain' | 'recovery';

/** A generation's worker and epoch: what a move's source-epoch guard expects. */
export interface Owner {
  worker: string;
  epoch: number;
}

/**
 * A create or a move that has read what its commit is guarded by: dop[d] of spec/DHSched.tla. `from` is
 * the generation a move read (the source-epoch guard), null for a create (guard: no generation at all).
 */
export interface Plan {
  kind: 'create' | 'move';
  cell: string;
  session: string;
  from: Owner | null;
  target: string;
}

/** What committing a plan did: committed generation (target, epoch), CONFLICT, or the target refused. */
export type CommitOutcome =
  { kind: 'committed'; to: Owner } | { kind: 'conflict' } | { kind: 'refused'; refusal: StoreError };

type Admission = { admitted: Owner } | { conflict: true } | { refusal: StoreError | undefined };
type MoveResult =
  { kind: 'moved'; to: Owner } | { kind: 'conflict' } | { kind: 'refused'; refusal: StoreError | undefined };

export interface MoveReport {
  moved: Session[];
  /** Sessions whose generation changed first: another replica or a client moved or closed them. */
  conflicts: string[];
  /** Sessions no worker admitted. */
  notMoved: string[];
}

export interface RecoveryReport extends MoveReport {
  cell: string;
  /** The workers whose lease had expired with sessions still placed on them. */
  expired: string[];
}

/** Refusals of one candidate by admitCommit: the next candidate may still admit. */
const ADMISSION_REFUSALS = [StoreCode.FULL, StoreCode.NOT_LIVE, StoreCode.DRAINING, StoreCode.UNKNOWN_WORKER];

const noSession = (cell: string, session: string) =>
  new RpcError(grpc.status.NOT_FOUND, `no session ${session} in cell ${cell}`);
const closedSession = (cell: string, session: string) =>
  new RpcError(grpc.status.FAILED_PRECONDITION, `session ${session} of cell ${cell} is closed`);

/** A worker step's result; UNKNOWN_WORKER in the client's words (NOT_FOUND). */
async function knownWorker<T>(cell: string, worker: string, step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (err) {
    if (isStoreError(err, StoreCode.UNKNOWN_WORKER))
      throw new RpcError(grpc.status.NOT_FOUND, `no worker ${worker} in cell ${cell}`);
    throw err;
  }
}

/** NO_SESSION and CLOSED in the client's words; any other error unchanged. */
function sessionRefusal(err: unknown, cell: string, session: string): unknown {
  if (isStoreError(err, StoreCode.NO_SESSION)) return noSession(cell, session);
  if (isStoreError(err, StoreCode.CLOSED)) return closedSession(cell, session);
  return err;
}

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export class DispatchCore {
  readonly id: string;
  private readonly store: Store;
  private readonly ranking: Ranking;
  private readonly loadView: LoadView;
  private readonly notifier: Notifier;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly random: Random;
  private readonly afterCommit: () => void;
  private readonly maxQueued: number;
  private readonly pushRate: number;
  private readonly pushes: RateLimiter;
  private readonly appends = new Map<string, Batcher<Push, steps.AppendOutcome>>();
  private recovery: Loop | undefined;

  constructor(o: DispatchCoreOptions) {
    this.id = o.id;
    this.store = o.store;
    this.ranking = o.ranking;
    this.loadView = o.loadView;
    this.notifier = o.notifier;
    this.log = o.log;
    this.now = o.now ?? Date.now;
    this.random = o.random ?? Math.random;
    this.afterCommit = o.afterCommit ?? (() => {});
    this.maxQueued = o.maxQueued ?? DEFAULT_MAX_QUEUED;
    this.pushRate = o.pushRate ?? DEFAULT_PUSH_RATE;
    // wall-clock time: a rate is the clients', not the protocol clock's (tests move that one at will)
    this.pushes = new RateLimiter(this.pushRate, 2 * this.pushRate);
  }

  /** Places a new session on the best-ranked worker that admits it; a retry returns it with created = false. */
  async createLive(cell: string, session: string): Promise<Session> {
    const offers = await this.candidatesFor(cell);
    const admission = await this.admit(offers.map((target) => this.planCreate(cell, session, target)));
    if ('admitted' in admission) {
      const { worker, epoch } = admission.admitted;
      return { cell, session, worker, epoch, phase: 'assigned', releasedSeq: 0, created: true, moved: false };
    }
    // CONFLICT, or no worker admitted it: either way a retry finds the session it created before.
    const existing = await this.readSession(cell, session);
    if (existing === null) {
      throw new RpcError(grpc.status.RESOURCE_EXHAUSTED, `no worker with room in cell ${cell}`);
    }
    if (existing.phase === 'closed') throw closedSession(cell, session);
    return existing;
  }

  /**
   * Appends to the session's input log, once per request id; the owner reads it on its work stream. The
   * pushes of a cell made while its append batch is in flight go together in its next one (appendBatch);
   * one still waiting at `deadline` (ms since the epoch) is not appended: DEADLINE_EXCEEDED.
   */
  async pushText(
    cell: string,
    session: string,
    requestId: string,
    text: string,
    deadline = Infinity,
  ): Promise<PushTextReply> {
    if (!this.pushes.take(`${cell}/${session}`)) {
      const why = `session ${session} sends more than ${this.pushRate} PushText calls a second; retry later`;
      throw new RpcError(grpc.status.RESOURCE_EXHAUSTED, why);
    }
    let got: steps.AppendOutcome;
    try {
      got = await this.appendsOf(cell).submit({ session, requestId, text }, deadline);
    } catch (err) {
      if (err instanceof Expired) throw new RpcError(grpc.status.DEADLINE_EXCEEDED, err.message);
      throw err;
    }
    if (got.ok) return { seq: got.seq, duplicate: got.duplicate };
    if (got.code === StoreCode.QUEUE_FULL) {
      const why = `session ${session} has ${this.maxQueued} inputs not yet released; retry later`;
      throw new RpcError(grpc.status.RESOURCE_EXHAUSTED, why);
    }
    throw sessionRefusal(storeError(got.code, 'appendInput'), cell, session);
  }

  /** The append batcher of a cell (a batch is one store step: one cell's hash tag). */
  private appendsOf(cell: string): Batcher<Push, steps.AppendOutcome> {
    let batcher = this.appends.get(cell);
    if (!batcher) {
      // a client may name any cell: past a bound, the idle batchers of other cells are let go
      if (this.appends.size >= APPEND_BATCHERS) {
        for (const [c, b] of this.appends) if (b.idle) this.appends.delete(c);
      }
      batcher = new Batcher(
        (inputs) => steps.appendBatch(this.store, { cell, maxQueued: this.maxQueued, inputs }),
        { maxItems: MAX_APPEND_BATCH },
      );
      this.appends.set(cell, batcher);
    }
    return batcher;
  }

  /** Closes the session and tells its owner to stop; closing a closed session returns it unchanged. */
  async closeLive(cell: string, session: string): Promise<Session> {
    try {
      await steps.closeSession(this.store, { cell, session });
    } catch (err) {
      if (!isStoreError(err, StoreCode.CLOSED)) throw sessionRefusal(err, cell, session);
    }
    // a closed generation never changes again: this read is the one the close left
    const closed = await this.getSession(cell, session);
    this.notifier.notify(cell, closed.worker, 'stop', { cell, session, epoch: closed.epoch });
    return closed;
  }

  /**
   * Moves the session to `target`, or to the best-ranked other worker, guarded by the epoch read (or
   * `fromEpoch`, the one the caller saw). A retry of a move that landed returns the session as it is,
   * `moved` false: so does any call whose session is already past `fromEpoch` (to `target`, if named).
   */
  async migrate(cell: string, session: string, target?: string, fromEpoch?: number): Promise<Session> {
    // the read the move is planned on (BeginMove), traced as such
    const current = await this.getSession(cell, session, 'plan');
    if (current.phase === 'closed') throw closedSession(cell, session);
    if (fromEpoch !== undefined && fromEpoch !== current.epoch) {
      if (current.epoch > fromEpoch && (target === undefined || target === current.worker)) return current;
      throw new RpcError(
        grpc.status.ABORTED,
        `session ${session} is at epoch ${current.epoch}, not ${fromEpoch}: it moved concurrently`,
      );
    }
    if (target === current.worker) {
      throw new RpcError(
        grpc.status.FAILED_PRECONDITION,
        `session ${session} is already on worker ${target}`,
      );
    }
    const result = await this.move(cell, session, current, 'migrate', target);
    return match(result)
      .with({ kind: 'moved' }, ({ to }): Session => ({ ...current, ...to, phase: 'assigned', moved: true }))
      .with({ kind: 'conflict' }, () => {
        throw new RpcError(grpc.status.ABORTED, `session ${session} moved concurrently: read it and retry`);
      })
      .with({ kind: 'refused' }, ({ refusal }) => {
        throw target !== undefined && refusal !== undefined
          ? new RpcError(
              toStatus(refusal).code,
              `worker ${target} cannot take session ${session}: ${StoreCode[refusal.code]}`,
            )
          : new RpcError(grpc.status.RESOURCE_EXHAUSTED, `no other worker with room in cell ${cell}`);
      })
      .exhaustive();
  }

  /** Stops new placements on the worker, then moves each of its sessions to the best-ranked others. */
  async drainWorker(cell: string, worker: string): Promise<DrainWorkerReply> {
    await knownWorker(cell, worker, steps.drain(this.store, { cell, worker }));
    const placed = await steps.readPlaced(this.store, { cell, worker, tracedAs: 'plan' });
    const { moved, notMoved } = await this.moveAll(cell, placed, 'drain');
    return { moved, notMoved };
  }

  /** Undrain(w): the worker takes placements again; its sessions moved away stay where they are. */
  async undrainWorker(cell: string, worker: string): Promise<UndrainWorkerReply> {
    const { ended } = await knownWorker(cell, worker, steps.undrain(this.store, { cell, worker }));
    return { undrained: ended };
  }

  /** BeginCreate(d, s, w): a create of the session on `target`; its commit is guarded by "no generation". */
  planCreate(cell: string, session: string, target: string): Plan {
    return { kind: 'create', cell, session, from: null, target };
  }

  /** BeginMove(d, s, w): reads gen[s]; a move to `target` guarded by the source epoch read. */
  async planMove(cell: string, session: string, target: string): Promise<Plan> {
    const gen = await steps.readGen(this.store, { cell, session, tracedAs: 'plan' });
    if (gen === null) throw noSession(cell, session);
    if (gen.phase === 'closed') throw closedSession(cell, session);
    return this.movePlan(cell, session, gen, target);
  }

  /**
   * Commit(d): one admitCommit of the plan on its target, guarded by what the plan read. CONFLICT (the
   * generation is not the one read) and the target's refusals (FULL, NOT_LIVE, DRAINING, UNKNOWN_WORKER)
   * end the operation and are returned; other errors are thrown. Workers are not notified here.
   */
  async commitPlan(plan: Plan): Promise<CommitOutcome> {
    const { cell, session, target } = plan;
    try {
      const { epoch } = await steps.admitCommit(this.store, {
        cell,
        session,
        target,
        expected: plan.from,
        now: this.now(),
      });
      this.afterCommit();
      this.loadView.recordAdmission(cell, target);
      return { kind: 'committed', to: { worker: target, epoch } };
    } catch (err) {
      if (isStoreError(err, StoreCode.CONFLICT)) return { kind: 'conflict' };
      if (!isStoreError(err, ...ADMISSION_REFUSALS)) throw err;
      admissionRefusals.inc({ code: StoreCode[err.code] });
      return { kind: 'refused', refusal: err };
    }
  }

  /** The session as the store has it; `tracedAs` 'plan': the read a move is planned on (BeginMove). */
  async getSession(cell: string, session: string, tracedAs?: 'plan'): Promise<Session> {
    const found = await this.readSession(cell, session, tracedAs);
    if (found === null) throw noSession(cell, session);
    return found;
  }

  /** One page of the cell's live sessions; `cursor` '0' starts, and ends the last page. */
  async listSessions(cell: string, cursor: string, limit: number): Promise<ListSessionsReply> {
    const page = await steps.readSessions(this.store, { cell, cursor, count: limit });
    const sessions = await Promise.all(
      page.sessions.map(async ({ session, generation }): Promise<Session> => ({
        cell,
        session,
        ...generation,
        releasedSeq: await this.releasedSeq(cell, session),
        created: false,
        moved: false,
      })),
    );
    return { sessions, nextCursor: page.cursor };
  }

  /** The cell's workers as the store has them now. */
  async listWorkers(cell: string): Promise<ListWorkersReply> {
    const view = await this.loadView.fresh(cell);
    return {
      workers: view.map((w) => ({
        worker: w.worker,
        incarnation: w.incarnation,
        live: w.live,
        leaseExpiresAtMs: w.expiresAt,
        capacity: w.cap,
        tokens: w.tokens,
        draining: w.draining,
        placed: w.placed,
        addr: w.addr,
        runtimes: w.runtimes,
        queued: w.queued,
      })),
    };
  }

  /**
   * Recovery: moves every session still placed on a worker whose lease has expired, each guarded by the
   * epoch read with it. Replicas may run it at once: per session one commit wins, the others CONFLICT.
   */
  async recoverOnce(cell: string): Promise<RecoveryReport> {
    const view = await this.loadView.fresh(cell);
    const expired = view.filter((w) => !w.live && w.placed > 0).map((w) => w.worker);
    const placed = await Promise.all(
      expired.map((worker) => steps.readPlaced(this.store, { cell, worker, tracedAs: 'plan' })),
    );
    // replicas recovering at once start at different sessions, so that fewer of their commits collide
    const report = {
      cell,
      expired,
      ...(await this.moveAll(cell, shuffled(placed.flat(), this.random), 'recovery')),
    };
    if (expired.length > 0) {
      const { moved, conflicts, notMoved } = report;
      this.log.info(
        { cell, expired, moved: moved.length, conflicts: conflicts.length, notMoved },
        'recovery pass',
      );
    }
    return report;
  }

  /** Runs recoverOnce over every served cell every intervalMs (jittered ±50%) until `stop`. */
  startRecovery(intervalMs: number): void {
    const pass = async () => {
      for (const cell of this.loadView.cells()) {
        await this.recoverOnce(cell).catch((err: unknown) => this.log.warn({ err, cell }, 'recovery failed'));
      }
    };
    this.recovery ??= startLoop('recovery', pass, () => intervalMs * (0.5 + this.random()), this.log);
  }

  /** Stops the recovery loop, waiting for the pass in flight. */
  async stop(): Promise<void> {
    await this.recovery?.stop();
    this.recovery = undefined;
  }

  /** The workers to offer a session to; when the cached view shows none with room, a fresh one decides. */
  private async candidatesFor(cell: string, exclude?: string): Promise<string[]> {
    const others = new Set(exclude === undefined ? [] : [exclude]);
    const cached = await this.loadView.view(cell);
    const view = eligible(cached, others).length > 0 ? cached : await this.loadView.fresh(cell);
    return candidates(view, this.ranking, others);
  }

  /** A move of the session from the generation read to `target`. */
  private movePlan(cell: string, session: string, from: Owner, target: string): Plan {
    return { kind: 'move', cell, session, from: { worker: from.worker, epoch: from.epoch }, target };
  }

  /** Commits the plans (one per candidate, best first) in turn until one admits or one CONFLICTs. */
  private async admit(plans: readonly Plan[]): Promise<Admission> {
    let refusal: StoreError | undefined;
    for (const plan of plans) {
      const outcome = await this.commitPlan(plan);
      if (outcome.kind === 'committed') return { admitted: outcome.to };
      if (outcome.kind === 'conflict') return { conflict: true };
      refusal = outcome.refusal;
    }
    return { refusal };
  }

  /** One move guarded by the source's epoch; on success the target starts and the source is revoked. */
  private async move(
    cell: string,
    session: string,
    from: Owner,
    reason: MoveReason,
    target?: string,
  ): Promise<MoveResult> {
    const offers = target !== undefined ? [target] : await this.candidatesFor(cell, from.worker);
    let admission: Admission;
    try {
      admission = await this.admit(offers.map((to) => this.movePlan(cell, session, from, to)));
    } catch (err) {
      migrations.inc({ reason, result: 'error' });
      throw err;
    }
    const result: MoveResult =
      'admitted' in admission
        ? { kind: 'moved', to: admission.admitted }
        : 'conflict' in admission
          ? { kind: 'conflict' }
          : { kind: 'refused', refusal: admission.refusal };
    migrations.inc({ reason, result: result.kind });
    if (result.kind === 'moved')
      this.notifier.notify(cell, from.worker, 'revoke', { cell, session, epoch: from.epoch });
    return result;
  }

  /** Moves sessions one by one, each from the generation read with it. */
  private async moveAll(
    cell: string,
    placed: readonly PlacedSession[],
    reason: MoveReason,
  ): Promise<MoveReport> {
    const report: MoveReport = { moved: [], conflicts: [], notMoved: [] };
    for (const { session, generation } of placed) {
      // admission does not depend on the session, and the sources (draining or expired) are never
      // candidates: once no worker admitted one session, none would admit the next
      if (report.notMoved.length > 0) {
        report.notMoved.push(session);
        continue;
      }
      const [result, releasedSeq] = await Promise.all([
        this.move(cell, session, generation, reason),
        this.releasedSeq(cell, session),
      ]);
      match(result)
        .with({ kind: 'moved' }, ({ to }) =>
          report.moved.push({
            cell,
            session,
            ...to,
            phase: 'assigned',
            releasedSeq,
            created: false,
            moved: true,
          }),
        )
        .with({ kind: 'conflict' }, () => report.conflicts.push(session))
        .with({ kind: 'refused' }, () => report.notMoved.push(session))
        .exhaustive();
    }
    return report;
  }

  /** The session's generation and release cursor (read side by side), or null when it has none. */
  private async readSession(cell: string, session: string, tracedAs?: 'plan'): Promise<Session | null> {
    const [generation, releasedSeq] = await Promise.all([
      steps.readGen(this.store, { cell, session, tracedAs }),
      this.releasedSeq(cell, session),
    ]);
    return generation && { cell, session, ...generation, releasedSeq, created: false, moved: false };
  }

  /** The release cursor alone: fromSeq past any seq returns no log entries. */
  private async releasedSeq(cell: string, session: string): Promise<number> {
    return (await steps.readRelease(this.store, { cell, session, fromSeq: Number.MAX_SAFE_INTEGER })).seq;
  }
}
