/**
 * One typed function per store step. Each validates its input, builds KEYS and ARGV (`build`, usable on
 * its own with a pipeline), runs the step's Lua script, and turns a refusal into a StoreError. With
 * `waitReplicas` > 0 a mutating step is acknowledged only once that many replicas have it (Redis WAIT,
 * sent in the same round trip): the spec's StoreMode "wait".
 */
import { z } from 'zod';
import { StoreCode, storeError } from './codes.js';
import { cellKeys } from './keys.js';
import {
  AckStreamInput,
  AdmitCommitInput,
  ConfigureCellInput,
  AppendInputInput,
  GenerationInput,
  Protocol,
  PublishLoadInput,
  ReadGenInput,
  ReadGensInput,
  ReadLoadViewInput,
  ReadPlacedInput,
  ReadReleaseInput,
  ReadSessionsInput,
  ReadWorkerInput,
  RegisterWorkerInput,
  ReleaseInputInput,
  RenewLeaseInput,
  RuntimeStepInput,
  SessionInput,
  WorkerInput,
} from './schema.js';
import {
  type RedisClient,
  type ScriptCall,
  defineScripts,
  queueCall,
  readReply,
  runCall,
} from './scripts.js';
import { issuesText } from '../common/issues.js';

export interface StoreOptions {
  /** Replicas that must acknowledge each mutating step (Redis WAIT); 0 acknowledges at once. */
  waitReplicas?: number;
  /** How long WAIT waits for them. */
  waitTimeoutMs?: number;
  /** 'dhsched', or an unsafe baseline for comparisons (claim and releaseInput check less). */
  protocol?: Protocol;
}

export interface Store {
  readonly redis: RedisClient;
  readonly waitReplicas: number;
  readonly waitTimeoutMs: number;
  readonly protocol: Protocol;
}

export function openStore(redis: RedisClient, options: StoreOptions = {}): Store {
  const o = z
    .object({
      waitReplicas: z.number().int().nonnegative().default(0),
      waitTimeoutMs: z.number().int().positive().default(1000),
      protocol: Protocol.default('dhsched'),
    })
    .parse(options);
  defineScripts(redis);
  return { redis, ...o };
}

export type Phase = 'assigned' | 'claimed' | 'closed';
export interface Generation {
  worker: string;
  epoch: number;
  phase: Phase;
}
export interface Input {
  seq: number;
  requestId: string;
  text: string;
}
export interface Release {
  /** The release cursor: the highest seq released, 0 before any. */
  seq: number;
  /** The generation that released it; null before any release. */
  by: { worker: string; epoch: number } | null;
  /** Inputs fromSeq + 1 .. seq, in order. */
  entries: Input[];
  /** The log's length: inputs appended so far, released or not. */
  appended: number;
}
export interface WorkerState {
  worker: string;
  incarnation: number;
  /** Its RPC endpoint, '' when it serves none. */
  addr: string;
  expiresAt: number;
  live: boolean;
  cap: number;
  draining: boolean;
  /** The generations holding a capacity token on the worker. */
  tokens: { session: string; epoch: number }[];
}

export type RegisterWorkerArgs = z.input<typeof RegisterWorkerInput>;
export type RenewLeaseArgs = z.input<typeof RenewLeaseInput>;
export type AdmitCommitArgs = z.input<typeof AdmitCommitInput>;
export type GenerationArgs = z.input<typeof GenerationInput>;
export type RuntimeStepArgs = z.input<typeof RuntimeStepInput>;
export type ReleaseInputArgs = z.input<typeof ReleaseInputInput>;
export type AppendInputArgs = z.input<typeof AppendInputInput>;
export type SessionArgs = z.input<typeof SessionInput>;
export type ReadReleaseArgs = z.input<typeof ReadReleaseInput>;
export type WorkerArgs = z.input<typeof WorkerInput>;
export type ReadWorkerArgs = z.input<typeof ReadWorkerInput>;
export type PublishLoadArgs = z.input<typeof PublishLoadInput>;
export type AckStreamArgs = z.input<typeof AckStreamInput>;
export type ReadSessionsArgs = z.input<typeof ReadSessionsInput>;
export type ReadLoadViewArgs = z.input<typeof ReadLoadViewInput>;
export type ReadPlacedArgs = z.input<typeof ReadPlacedInput>;
export type ReadGenArgs = z.input<typeof ReadGenInput>;
export type ReadGensArgs = z.input<typeof ReadGensInput>;

/** One worker of a load view: what ranking, admission hints, ListWorkers and recovery read. */
export interface WorkerView {
  worker: string;
  incarnation: number;
  expiresAt: number;
  live: boolean;
  cap: number;
  /** Capacity tokens held: generations occupying a slot, stale ones tearing down included. */
  tokens: number;
  draining: boolean;
  /** Live sessions whose generation names the worker. */
  placed: number;
  addr: string;
  /** Published, advisory: runtimes running and inputs waiting, and when (ms, 0 if never). */
  runtimes: number;
  queued: number;
  loadAt: number;
}
export interface PlacedSession {
  session: string;
  generation: Generation;
}

const Int = z.number().int();
const Str = z.string();
const Bit = z.union([z.literal(0), z.literal(1)]);

function call<T>(
  step: ScriptCall<T>['step'],
  keys: string[],
  args: (string | number)[],
  reply: z.ZodType<T>,
) {
  return { step, keys, args, parse: (r: unknown) => reply.parse(r) } satisfies ScriptCall<T>;
}

function validate<S extends z.ZodTypeAny>(schema: S, input: unknown, step: string): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) {
    const detail = issuesText(r.error, 'input');
    throw storeError(StoreCode.INVALID_INPUT, step, detail);
  }
  return r.data;
}

/** KEYS and ARGV of each step, from validated input. */
export const build = {
  registerWorker(i: z.output<typeof RegisterWorkerInput>) {
    const k = cellKeys(i.cell);
    return call(
      'registerWorker',
      [
        k.lease(i.worker),
        k.cap(i.worker),
        k.tokens(i.worker),
        k.stream(i.worker),
        k.draining,
        k.placed(i.worker),
        k.workers,
        k.load(i.worker),
      ],
      [i.worker, i.cap, i.now, i.ttlMs, i.addr, k.prefix],
      z.tuple([Int.positive(), Int.nonnegative()]),
    );
  },
  renewLease(i: z.output<typeof RenewLeaseInput>) {
    const k = cellKeys(i.cell);
    return call('renewLease', [k.lease(i.worker)], [i.incarnation, i.now, i.ttlMs, k.prefix, i.worker], Int);
  },
  admitCommit(i: z.output<typeof AdmitCommitInput>) {
    const k = cellKeys(i.cell);
    const w = i.target;
    return call(
      'admitCommit',
      [
        k.gen(i.session),
        k.tokens(w),
        k.cap(w),
        k.lease(w),
        k.stream(w),
        k.draining,
        k.sessions,
        k.placed(w),
        k.placed(i.expected?.worker ?? w),
        k.config,
        k.audit,
      ],
      [i.session, w, i.expected?.worker ?? '', i.expected?.epoch ?? 0, i.now],
      Int.positive(),
    );
  },
  claim(i: z.output<typeof RuntimeStepInput>, protocol: Protocol) {
    const k = cellKeys(i.cell);
    return call(
      'claim',
      [k.gen(i.session), k.tokens(i.worker), k.lease(i.worker)],
      [i.session, i.worker, i.epoch, protocol, k.prefix, i.incarnation],
      Bit,
    );
  },
  releaseInput(i: z.output<typeof ReleaseInputInput>, protocol: Protocol) {
    const k = cellKeys(i.cell);
    return call(
      'releaseInput',
      [k.gen(i.session), k.rel(i.session), k.log(i.session), k.text(i.session), k.config, k.audit],
      [i.worker, i.epoch, i.seq, protocol, i.session, i.incarnation],
      z.tuple([Str, Str, Int.positive()]),
    );
  },
  appendInput(i: z.output<typeof AppendInputInput>) {
    const k = cellKeys(i.cell);
    return call(
      'appendInput',
      [k.gen(i.session), k.log(i.session), k.req(i.session), k.text(i.session), k.rel(i.session)],
      [i.requestId, i.text, k.streamPrefix, i.session, k.prefix, i.maxQueued ?? 0],
      z.tuple([Int.positive(), Bit, Str, Int.positive()]),
    );
  },
  teardown(i: z.output<typeof GenerationInput>) {
    const k = cellKeys(i.cell);
    return call('teardown', [k.tokens(i.worker)], [i.session, i.epoch, i.worker, k.prefix], Bit);
  },
  closeSession(i: z.output<typeof SessionInput>) {
    const k = cellKeys(i.cell);
    return call(
      'closeSession',
      [k.gen(i.session), k.sessions, k.config, k.audit],
      [i.session, k.placedPrefix],
      Int.positive(),
    );
  },
  drain(i: z.output<typeof WorkerInput>) {
    const k = cellKeys(i.cell);
    return call('drain', [k.lease(i.worker), k.draining], [i.worker, k.prefix], Bit);
  },
  undrain(i: z.output<typeof WorkerInput>) {
    const k = cellKeys(i.cell);
    return call('undrain', [k.lease(i.worker), k.draining], [i.worker, k.prefix], Bit);
  },
  readGen(i: z.output<typeof ReadGenInput>) {
    const k = cellKeys(i.cell);
    const by = i.tracedAs;
    return call(
      'readGen',
      [k.gen(i.session)],
      by === undefined
        ? ['', i.session, '', '', 0]
        : by === 'plan'
          ? [k.prefix, i.session, 'plan', '', 0]
          : [k.prefix, i.session, 'fence', by.worker, by.epoch],
      z.tuple([Str, Int.positive(), z.enum(['assigned', 'claimed', 'closed'])]),
    );
  },
  readGens(i: z.output<typeof ReadGensInput>) {
    const k = cellKeys(i.cell);
    return call(
      'readGens',
      [k.config],
      [k.genPrefix, ...i.sessions],
      // readGens checks each triple (a union here would try, and fail, Str on every number)
      z.array(z.unknown()).length(i.sessions.length * 3),
    );
  },
  readRelease(i: z.output<typeof ReadReleaseInput>) {
    const k = cellKeys(i.cell);
    return call(
      'readRelease',
      [k.rel(i.session), k.log(i.session), k.text(i.session)],
      [i.fromSeq, i.tracedAs ? k.prefix : '', i.session, i.tracedAs?.worker ?? '', i.tracedAs?.epoch ?? 0],
      z.tuple([Int.nonnegative(), Str, Int.nonnegative(), z.array(Str), z.array(Str), Int.nonnegative()]),
    );
  },
  readWorker(i: z.output<typeof ReadWorkerInput>) {
    const k = cellKeys(i.cell);
    return call(
      'readWorker',
      [k.lease(i.worker), k.cap(i.worker), k.tokens(i.worker), k.draining],
      [i.worker, i.now],
      z.tuple([Int.positive(), Int, Bit, Int.positive(), Bit, z.array(Str), Str]),
    );
  },
  publishLoad(i: z.output<typeof PublishLoadInput>) {
    const k = cellKeys(i.cell);
    return call(
      'publishLoad',
      [k.lease(i.worker), k.load(i.worker)],
      [i.incarnation, i.runtimes, i.queued, i.now],
      z.literal(1),
    );
  },
  ackStream(i: z.output<typeof AckStreamInput>) {
    const k = cellKeys(i.cell);
    return call('ackStream', [k.stream(i.worker)], [i.id], Int.nonnegative());
  },
  readLoadView(i: z.output<typeof ReadLoadViewInput>) {
    const k = cellKeys(i.cell);
    return call(
      'readLoadView',
      [k.workers],
      [k.prefix, i.now],
      z.array(z.tuple([Str, Int, Int, Bit, Int, Int, Bit, Int, Str, Int, Int, Int])),
    );
  },
  readPlaced(i: z.output<typeof ReadPlacedInput>) {
    const k = cellKeys(i.cell);
    return call(
      'readPlaced',
      [k.placed(i.worker)],
      [k.genPrefix, i.tracedAs ? k.prefix : ''],
      z.array(z.union([Str, Int])),
    );
  },
  configureCell(i: z.output<typeof ConfigureCellInput>) {
    return call('configureCell', [cellKeys(i.cell).config], [i.audit ? 1 : 0, i.trace ? 1 : 0], z.literal(1));
  },
  readSessions(i: z.output<typeof ReadSessionsInput>) {
    const k = cellKeys(i.cell);
    return call(
      'readSessions',
      [k.sessions],
      [i.cursor, i.count, k.genPrefix],
      z.tuple([Str, z.array(z.union([Str, Int]))]),
    );
  },
};

/** Runs a step in one round trip. */
async function send<T>(store: Store, c: ScriptCall<T>): Promise<T> {
  return readReply(c, await runCall(store.redis, c));
}

/** Runs a mutating step; with waitReplicas > 0, WAIT rides in the same round trip. */
async function write<T>(store: Store, c: ScriptCall<T>): Promise<T> {
  if (store.waitReplicas === 0) return send(store, c);
  const p = store.redis.pipeline();
  queueCall(p, c);
  p.wait(store.waitReplicas, store.waitTimeoutMs);
  const [[scriptErr, reply], [waitErr, acked]] = (await p.exec()) as [
    [Error | null, unknown],
    [Error | null, unknown],
  ];
  if (scriptErr) throw scriptErr;
  const result = readReply(c, reply);
  if (waitErr) throw waitErr;
  if (typeof acked !== 'number' || acked < store.waitReplicas) {
    throw storeError(StoreCode.NOT_DURABLE, c.step, `${String(acked)} of ${store.waitReplicas} replicas`);
  }
  return result;
}

/**
 * Register(w): a new incarnation of the worker, which takes back the sessions still placed on it as
 * new generations; returns the incarnation, when its lease expires and how many sessions it took back.
 */
export async function registerWorker(
  store: Store,
  args: RegisterWorkerArgs,
): Promise<{ incarnation: number; expiresAt: number; adopted: number }> {
  const i = validate(RegisterWorkerInput, args, 'registerWorker');
  const [incarnation, adopted] = await write(store, build.registerWorker(i));
  return { incarnation, expiresAt: i.now + i.ttlMs, adopted };
}

/** Keeps one incarnation's lease live; returns the new expiry. */
export async function renewLease(store: Store, args: RenewLeaseArgs): Promise<{ expiresAt: number }> {
  const i = validate(RenewLeaseInput, args, 'renewLease');
  return { expiresAt: await write(store, build.renewLease(i)) };
}

/** Commit(d): admit on the target and commit the next generation; returns its epoch. */
export async function admitCommit(store: Store, args: AdmitCommitArgs): Promise<{ epoch: number }> {
  const i = validate(AdmitCommitInput, args, 'admitCommit');
  return { epoch: await write(store, build.admitCommit(i)) };
}

/** Claim(w, s, e): 'claimed' starts the runtime; 'stale' means its token was freed and nothing starts. */
export async function claim(store: Store, args: RuntimeStepArgs): Promise<'claimed' | 'stale'> {
  const i = validate(RuntimeStepInput, args, 'claim');
  return (await write(store, build.claim(i, store.protocol))) === 1 ? 'claimed' : 'stale';
}

/**
 * ReleaseInput(w, s, e): revalidate and release input seq; LOST_AUTHORITY means stop the runtime.
 * `appended` is the log's length: more than seq means the next input is already waiting.
 */
export async function releaseInput(
  store: Store,
  args: ReleaseInputArgs,
): Promise<Input & { appended: number }> {
  const i = validate(ReleaseInputInput, args, 'releaseInput');
  const [requestId, text, appended] = await write(store, build.releaseInput(i, store.protocol));
  return { seq: i.seq, requestId, text, appended };
}

/**
 * PushText(s, r): append once per request id; a retry returns the first seq. Names the owner, whose work
 * stream has the entry. A new input is refused QUEUE_FULL while `maxQueued` inputs are not released.
 */
export async function appendInput(
  store: Store,
  args: AppendInputArgs,
): Promise<{ seq: number; duplicate: boolean; owner: { worker: string; epoch: number } }> {
  const i = validate(AppendInputInput, args, 'appendInput');
  const [seq, duplicate, worker, epoch] = await write(store, build.appendInput(i));
  return { seq, duplicate: duplicate === 1, owner: { worker, epoch } };
}

/** Teardown(w, s, e): free the stopped runtime's token; false if it was already free. */
export async function teardown(store: Store, args: GenerationArgs): Promise<{ freed: boolean }> {
  const i = validate(GenerationInput, args, 'teardown');
  return { freed: (await write(store, build.teardown(i))) === 1 };
}

/** Close(s): returns the epoch of the generation closed. */
export async function closeSession(store: Store, args: SessionArgs): Promise<{ epoch: number }> {
  const i = validate(SessionInput, args, 'closeSession');
  return { epoch: await write(store, build.closeSession(i)) };
}

/** Drain(w): no new placements on w until it registers again or is undrained; false if it already was. */
export async function drain(store: Store, args: WorkerArgs): Promise<{ started: boolean }> {
  const i = validate(WorkerInput, args, 'drain');
  return { started: (await write(store, build.drain(i))) === 1 };
}

/** Undrain(w): w takes placements again; false if it was not draining. */
export async function undrain(store: Store, args: WorkerArgs): Promise<{ ended: boolean }> {
  const i = validate(WorkerInput, args, 'undrain');
  return { ended: (await write(store, build.undrain(i))) === 1 };
}

/** gen[s], or null when the session has none. */
export async function readGen(store: Store, args: ReadGenArgs): Promise<Generation | null> {
  const i = validate(ReadGenInput, args, 'readGen');
  const c = build.readGen(i);
  const reply = await runCall(store.redis, c);
  if (reply === StoreCode.NO_SESSION) return null;
  const [worker, epoch, phase] = readReply(c, reply);
  return { worker, epoch, phase };
}

/** One session's reply to readGens: phase '' (with '' and 0) when it has no generation. */
const GenerationTriple = z.tuple([Str, Int.nonnegative(), z.enum(['', 'assigned', 'claimed', 'closed'])]);

/** gen[s] of each session, in order (null: no generation): the sweep's Fence reads, in one step. */
export async function readGens(store: Store, args: ReadGensArgs): Promise<(Generation | null)[]> {
  const i = validate(ReadGensInput, args, 'readGens');
  const flat = await send(store, build.readGens(i));
  return i.sessions.map((_, k) => {
    const [worker, epoch, phase] = GenerationTriple.parse(flat.slice(3 * k, 3 * k + 3));
    return phase === '' ? null : { worker, epoch, phase };
  });
}

/** Reconstruct: the release cursor and the inputs up to it. */
export async function readRelease(store: Store, args: ReadReleaseArgs): Promise<Release> {
  const i = validate(ReadReleaseInput, args, 'readRelease');
  const [seq, worker, epoch, ids, texts, appended] = await send(store, build.readRelease(i));
  return {
    seq,
    appended,
    by: worker === '' ? null : { worker, epoch },
    entries: ids.map((requestId, k) => ({ seq: i.fromSeq + k + 1, requestId, text: texts[k]! })),
  };
}

/** The worker as the store has it at `now`. */
export async function readWorker(store: Store, args: ReadWorkerArgs): Promise<WorkerState> {
  const i = validate(ReadWorkerInput, args, 'readWorker');
  const [incarnation, expiresAt, live, cap, draining, tokens, addr] = await send(store, build.readWorker(i));
  return {
    worker: i.worker,
    incarnation,
    addr,
    expiresAt,
    live: live === 1,
    cap,
    draining: draining === 1,
    tokens: tokens.map((t) => {
      const bar = t.lastIndexOf('|');
      return { session: t.slice(0, bar), epoch: Number(t.slice(bar + 1)) };
    }),
  };
}

/** Publishes the worker's load figures (advisory: ranking reads them, admission never does). */
export async function publishLoad(store: Store, args: PublishLoadArgs): Promise<void> {
  await send(store, build.publishLoad(validate(PublishLoadInput, args, 'publishLoad')));
}

/** Trims the worker's work stream before entry `id`, which it has handled. */
export async function ackStream(store: Store, args: AckStreamArgs): Promise<{ trimmed: number }> {
  return { trimmed: await send(store, build.ackStream(validate(AckStreamInput, args, 'ackStream'))) };
}

/** Every worker of the cell at `now`, sorted by id: the load view. */
export async function readLoadView(store: Store, args: ReadLoadViewArgs): Promise<WorkerView[]> {
  const rows = await send(store, build.readLoadView(validate(ReadLoadViewInput, args, 'readLoadView')));
  return rows.map(
    ([
      worker,
      incarnation,
      expiresAt,
      live,
      cap,
      tokens,
      draining,
      placed,
      addr,
      runtimes,
      queued,
      loadAt,
    ]) => ({
      worker,
      incarnation,
      expiresAt,
      live: live === 1,
      cap,
      tokens,
      draining: draining === 1,
      placed,
      addr,
      runtimes,
      queued,
      loadAt,
    }),
  );
}

const GenerationRow = z.tuple([Str, Str, Int.positive(), z.enum(['assigned', 'claimed', 'closed'])]);

function placedSessions(flat: (string | number)[]): PlacedSession[] {
  const out: PlacedSession[] = [];
  for (let k = 0; k < flat.length; k += 4) {
    const [session, worker, epoch, phase] = GenerationRow.parse(flat.slice(k, k + 4));
    out.push({ session, generation: { worker, epoch, phase } });
  }
  return out;
}

/** The live sessions placed on the worker, with their generations, sorted by session id. */
export async function readPlaced(store: Store, args: ReadPlacedArgs): Promise<PlacedSession[]> {
  return placedSessions(await send(store, build.readPlaced(validate(ReadPlacedInput, args, 'readPlaced'))));
}

/** One page of the cell's live sessions; `cursor` is '0' on the last page. */
export async function readSessions(
  store: Store,
  args: ReadSessionsArgs,
): Promise<{ cursor: string; sessions: PlacedSession[] }> {
  const [cursor, flat] = await send(
    store,
    build.readSessions(validate(ReadSessionsInput, args, 'readSessions')),
  );
  return { cursor, sessions: placedSessions(flat) };
}

export type ConfigureCellArgs = z.input<typeof ConfigureCellInput>;

/** Sets the cell's configuration: whether commits, closes and releases are audited, and every step traced. */
export async function configureCell(store: Store, args: ConfigureCellArgs): Promise<void> {
  await write(store, build.configureCell(validate(ConfigureCellInput, args, 'configureCell')));
}

/** An audited step: a commit of generation (w, e) (from '' for a create), a close, or a release of input q by (w, e). */
export type AuditEntry =
  | { id: string; kind: 'commit'; session: string; worker: string; epoch: number; from: string }
  | { id: string; kind: 'close'; session: string; worker: string; epoch: number }
  | { id: string; kind: 'release'; session: string; worker: string; epoch: number; seq: number };

/** gen[s] as a traced read saw it; null when the session had no generation. */
export type SeenGeneration = Generation | null;

/**
 * A traced step (configureCell's trace), besides the audited ones: each one store step of a spec action,
 * written by the script itself, so the stream is the order in which the store ran them.
 */
export type TraceStep =
  /** Commit(d) refused: a move from (from, epoch), or a create (from '', epoch 0), to `worker`; why. */
  | {
      id: string;
      kind: 'refused';
      session: string;
      worker: string;
      from: string;
      epoch: number;
      code: AdmissionRefusal;
    }
  /** Claim(w, s, e): claimed, claimed again (a retry), or stale (token freed). */
  | { id: string; kind: 'claim'; session: string; worker: string; epoch: number; outcome: ClaimOutcome }
  /** Reconstruct(w, s, e)'s read: the release cursor `seq`. */
  | { id: string; kind: 'reconstruct'; session: string; worker: string; epoch: number; seq: number }
  /** ReleaseInput(w, s, e) of `seq` refused: lost authority (lost), or nothing appended there (noinput). */
  | { id: string; kind: 'lost' | 'noinput'; session: string; worker: string; epoch: number; seq: number }
  /** Fence(w, s, e)'s read of gen[s]. */
  | { id: string; kind: 'fence'; session: string; worker: string; epoch: number; seen: SeenGeneration }
  /** A Dispatch read of gen[s] that moves may be planned on (BeginMove). */
  | { id: string; kind: 'plan'; session: string; seen: SeenGeneration }
  /** Teardown(w, s, e). */
  | { id: string; kind: 'teardown'; session: string; worker: string; epoch: number }
  /** PushText(s, r): request `requestId` is input `seq`; duplicate: it was appended before. */
  | { id: string; kind: 'append'; session: string; requestId: string; seq: number; duplicate: boolean }
  /** An append or a close refused: the session had no generation (phase none) or was closed. */
  | { id: string; kind: 'notlive'; step: 'append' | 'close'; session: string; phase: 'none' | 'closed' }
  /** Drain(w); started false: it already was draining. */
  | { id: string; kind: 'drain'; worker: string; started: boolean }
  /** Undrain(w); ended false: it was not draining. */
  | { id: string; kind: 'undrain'; worker: string; ended: boolean }
  /** Register(w): incarnation `incarnation`. */
  | { id: string; kind: 'register'; worker: string; incarnation: number }
  /** The worker's lease renewal was refused: its lease had expired (it stops and registers again). */
  | { id: string; kind: 'lapse'; worker: string };

export type ClaimOutcome = 'claimed' | 'again' | 'stale';
/** Why admitCommit committed nothing. */
export type AdmissionRefusal = 'CONFLICT' | 'UNKNOWN_WORKER' | 'NOT_LIVE' | 'DRAINING' | 'FULL';
export type TraceEntry = AuditEntry | TraceStep;

const Num = z.coerce.number().int();
const ADMISSION_REFUSALS: readonly AdmissionRefusal[] = [
  'CONFLICT',
  'UNKNOWN_WORKER',
  'NOT_LIVE',
  'DRAINING',
  'FULL',
];
/** A refusal code as admitCommit returns it, by its name in StoreCode. */
const AdmissionCode = Num.transform((c, ctx) => {
  const name = StoreCode[c] as AdmissionRefusal | undefined;
  if (name && ADMISSION_REFUSALS.includes(name)) return name;
  ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${c} is no refusal of admitCommit` });
  return z.NEVER;
});
const Seen = {
  gw: Str.optional(),
  ge: Num.optional(),
  gph: z.enum(['assigned', 'claimed', 'closed']).optional(),
};
const Runtime = { s: Str, w: Str, e: Num };
const TraceFields = z.discriminatedUnion('k', [
  z.object({ k: z.literal('commit'), s: Str, w: Str, e: Num, from: Str }),
  z.object({ k: z.literal('close'), s: Str, w: Str, e: Num }),
  z.object({ k: z.literal('release'), ...Runtime, q: Num }),
  z.object({ k: z.literal('refused'), s: Str, w: Str, from: Str, e: Num, code: AdmissionCode }),
  z.object({ k: z.literal('claim'), ...Runtime, ok: z.enum(['claimed', 'again', 'stale']) }),
  z.object({ k: z.literal('reconstruct'), ...Runtime, q: Num }),
  z.object({ k: z.literal('lost'), ...Runtime, q: Num }),
  z.object({ k: z.literal('noinput'), ...Runtime, q: Num }),
  z.object({ k: z.literal('fence'), ...Runtime, ...Seen }),
  z.object({ k: z.literal('plan'), s: Str, ...Seen }),
  z.object({ k: z.literal('teardown'), ...Runtime }),
  z.object({ k: z.literal('append'), s: Str, r: Str, q: Num, dup: z.enum(['0', '1']) }),
  z.object({
    k: z.literal('notlive'),
    step: z.enum(['append', 'close']),
    s: Str,
    ph: z.enum(['none', 'closed']),
  }),
  z.object({ k: z.literal('drain'), w: Str, started: z.enum(['0', '1']) }),
  z.object({ k: z.literal('undrain'), w: Str, ended: z.enum(['0', '1']) }),
  z.object({ k: z.literal('register'), w: Str, i: Num }),
  z.object({ k: z.literal('lapse'), w: Str }),
]);

function seenOf(f: { gw?: string; ge?: number; gph?: Phase }): SeenGeneration {
  if (f.gw === undefined || f.ge === undefined || f.gph === undefined) return null;
  return { worker: f.gw, epoch: f.ge, phase: f.gph };
}

/** A stream entry's flat field list, as XRANGE and XREAD return it, as an object. */
export function streamFields(flat: string[]): Record<string, string | undefined> {
  return Object.fromEntries(flat.flatMap((v, k) => (k % 2 ? [] : [[v, flat[k + 1]]])));
}

/** An audit stream entry as XRANGE returns it, read as the step it records. */
export function traceEntry(id: string, flat: string[]): TraceEntry {
  const fields = streamFields(flat);
  const parsed = TraceFields.safeParse(fields);
  if (!parsed.success) {
    const why = issuesText(parsed.error, 'entry');
    throw new Error(`audit stream entry ${id} (${flat.join(' ')}) is malformed: ${why}`);
  }
  const f = parsed.data;
  const runtime = (r: { s: string; w: string; e: number }) => ({ session: r.s, worker: r.w, epoch: r.e });
  switch (f.k) {
    case 'commit':
      return { id, kind: 'commit', session: f.s, worker: f.w, epoch: f.e, from: f.from };
    case 'close':
      return { id, kind: 'close', session: f.s, worker: f.w, epoch: f.e };
    case 'release':
    case 'reconstruct':
    case 'lost':
    case 'noinput':
      return { id, kind: f.k, ...runtime(f), seq: f.q };
    case 'refused':
      return { id, kind: 'refused', session: f.s, worker: f.w, from: f.from, epoch: f.e, code: f.code };
    case 'claim':
      return { id, kind: 'claim', ...runtime(f), outcome: f.ok };
    case 'fence':
      return { id, kind: 'fence', ...runtime(f), seen: seenOf(f) };
    case 'plan':
      return { id, kind: 'plan', session: f.s, seen: seenOf(f) };
    case 'teardown':
      return { id, kind: 'teardown', ...runtime(f) };
    case 'append':
      return { id, kind: 'append', session: f.s, requestId: f.r, seq: f.q, duplicate: f.dup === '1' };
    case 'notlive':
      return { id, kind: 'notlive', step: f.step, session: f.s, phase: f.ph };
    case 'drain':
      return { id, kind: 'drain', worker: f.w, started: f.started === '1' };
    case 'undrain':
      return { id, kind: 'undrain', worker: f.w, ended: f.ended === '1' };
    case 'register':
      return { id, kind: 'register', worker: f.w, incarnation: f.i };
    case 'lapse':
      return { id, kind: 'lapse', worker: f.w };
  }
}

/**
 * The cell's audit stream after entry `afterId` ('0' for all), in the order the store ran the steps:
 * with tracing on, every traced step; otherwise the audited commits, closes and releases.
 */
export async function readTrace(
  store: Store,
  args: { cell: string; afterId?: string },
): Promise<TraceEntry[]> {
  return (await readTraceRows(store, args)).map(([id, flat]) => traceEntry(id, flat));
}

/** readTrace's entries as the stream holds them (id, flat field list): what a recorded run keeps. */
export async function readTraceRows(
  store: Store,
  args: { cell: string; afterId?: string },
): Promise<[string, string[]][]> {
  const key = cellKeys(validate(SessionInput.pick({ cell: true }), args, 'readTrace').cell).audit;
  return store.redis.xrange(key, `(${args.afterId ?? '0'}`, '+');
}

const isAudited = (e: TraceEntry): e is AuditEntry =>
  e.kind === 'commit' || e.kind === 'close' || e.kind === 'release';

/** The commits, closes and releases of audit stream entries as XRANGE returns them. */
export function auditOf(rows: [id: string, fields: string[]][]): AuditEntry[] {
  return rows.map(([id, flat]) => traceEntry(id, flat)).filter(isAudited);
}

/** The history in the cell's audit stream after `afterId`: its commits, closes and releases, in order. */
export async function readAudit(
  store: Store,
  args: { cell: string; afterId?: string },
): Promise<AuditEntry[]> {
  return (await readTrace(store, args)).filter(isAudited);
}
