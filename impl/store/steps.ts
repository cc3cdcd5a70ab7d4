/**
 * One typed function per store step, each from one declaration (`step`): it validates its input, builds
 * KEYS and ARGV (`<step>.build`, usable on its own with a pipeline), runs the step's Lua script, and turns
 * a refusal into a StoreError. With `waitReplicas` > 0 a mutating step is acknowledged only once that
 * many replicas have it (Redis WAIT, sent in the same round trip): the spec's StoreMode "wait".
 */
import { z } from 'zod';
import { StoreCode, storeError } from './codes.js';
import { type CellKeys, cellKeys } from './keys.js';
import {
  AckStreamInput,
  AdmitCommitInput,
  ConfigureCellInput,
  AppendBatchInput,
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
  ReleaseBatchInput,
  ReleaseInputInput,
  RenewLeaseInput,
  RuntimeStepInput,
  SessionInput,
  WorkerInput,
} from './schema.js';
import {
  type RedisClient,
  type ScriptCall,
  type Step,
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
const Positive = Int.positive();
const NonNegative = Int.nonnegative();
const PhaseOf = z.enum(['assigned', 'claimed', 'closed']);

function validate<S extends z.ZodTypeAny>(schema: S, input: unknown, step: string): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) {
    const detail = issuesText(r.error, 'input');
    throw storeError(StoreCode.INVALID_INPUT, step, detail);
  }
  return r.data;
}

/** Every step's input names its cell: the cell's keys come from it. */
type CellInput = z.ZodType<{ cell: string }, unknown>;

/**
 * One store step, declared once: the script it runs (lua/<name>-<keys>.lua), its input, the KEYS and ARGV
 * built from the validated input, the reply's schema and what the caller gets. `writes`: a mutating step,
 * acknowledged after WAIT when the store waits for replicas.
 */
interface StepDeclaration<S extends CellInput, R, T> {
  name: Step;
  input: S;
  writes: boolean;
  keys(i: z.output<S>, k: CellKeys): string[];
  args(i: z.output<S>, k: CellKeys, protocol: Protocol): (string | number)[];
  reply: z.ZodType<R, unknown>;
  result(reply: R, i: z.output<S>): T;
  /** A refusal that is an answer (readGen's NO_SESSION: no generation), and what it answers. */
  answers?: { code: StoreCode; result: T };
  /** A batch's reply that refuses every item wrote nothing: it is the answer even if WAIT falls short. */
  wroteNothing?(reply: R): boolean;
}

/** A declared step: run it with `step(store, args)`; `build` gives its KEYS and ARGV alone (for a pipeline). */
export interface StoreStep<S extends CellInput, R, T> {
  (store: Store, args: z.input<S>): Promise<T>;
  readonly stepName: Step;
  build(args: z.input<S>, protocol?: Protocol): ScriptCall<R>;
}

/** Every declared step, in declaration order (the scripts must be exactly these). */
export const declaredSteps: StoreStep<CellInput, unknown, unknown>[] = [];

function step<S extends CellInput, R, T>(d: StepDeclaration<S, R, T>): StoreStep<S, R, T> {
  const parse = (reply: unknown) => d.reply.parse(reply);
  const callOf = (i: z.output<S>, protocol: Protocol): ScriptCall<R> => {
    const k = cellKeys(i.cell);
    return { step: d.name, keys: d.keys(i, k), args: d.args(i, k, protocol), parse };
  };
  const run = async (store: Store, args: z.input<S>): Promise<T> => {
    const i = validate(d.input, args, d.name);
    const c = callOf(i, store.protocol);
    if (d.answers) {
      const raw = await runCall(store.redis, c);
      if (raw === d.answers.code) return d.answers.result;
      return d.result(readReply(c, raw), i);
    }
    return d.result(await (d.writes ? write(store, c, d.wroteNothing) : send(store, c)), i);
  };
  const declared = Object.assign(run, {
    stepName: d.name,
    build: (args: z.input<S>, protocol: Protocol = 'dhsched') =>
      callOf(validate(d.input, args, d.name), protocol),
  });
  declaredSteps.push(declared as unknown as StoreStep<CellInput, unknown, unknown>);
  return declared;
}

/** Runs a step in one round trip. */
async function send<T>(store: Store, c: ScriptCall<T>): Promise<T> {
  return readReply(c, await runCall(store.redis, c));
}

/** Runs a mutating step; with waitReplicas > 0, WAIT rides in the same round trip. */
async function write<T>(store: Store, c: ScriptCall<T>, wroteNothing?: (reply: T) => boolean): Promise<T> {
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
  if (wroteNothing?.(result)) return result;
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
export const registerWorker = step({
  name: 'registerWorker',
  input: RegisterWorkerInput,
  writes: true,
  keys: (i, k) => [
    k.lease(i.worker),
    k.cap(i.worker),
    k.tokens(i.worker),
    k.stream(i.worker),
    k.draining,
    k.placed(i.worker),
    k.workers,
    k.load(i.worker),
  ],
  args: (i, k) => [i.worker, i.cap, i.now, i.ttlMs, i.addr, k.prefix],
  reply: z.tuple([Positive, NonNegative]),
  result: ([incarnation, adopted], i) => ({ incarnation, expiresAt: i.now + i.ttlMs, adopted }),
});

/** Keeps one incarnation's lease live; returns the new expiry. */
export const renewLease = step({
  name: 'renewLease',
  input: RenewLeaseInput,
  writes: true,
  keys: (i, k) => [k.lease(i.worker)],
  args: (i, k) => [i.incarnation, i.now, i.ttlMs, k.prefix, i.worker],
  reply: Int,
  result: (expiresAt) => ({ expiresAt }),
});

/** Commit(d): admit on the target and commit the next generation; returns its epoch. */
export const admitCommit = step({
  name: 'admitCommit',
  input: AdmitCommitInput,
  writes: true,
  keys: (i, k) => [
    k.gen(i.session),
    k.tokens(i.target),
    k.cap(i.target),
    k.lease(i.target),
    k.stream(i.target),
    k.draining,
    k.sessions,
    k.placed(i.target),
    k.placed(i.expected?.worker ?? i.target),
    k.config,
    k.audit,
    k.stream(i.expected?.worker ?? i.target),
  ],
  args: (i) => [i.session, i.target, i.expected?.worker ?? '', i.expected?.epoch ?? 0, i.now],
  reply: Positive,
  result: (epoch) => ({ epoch }),
});

/** Claim(w, s, e): 'claimed' starts the runtime; 'stale' means its token was freed and nothing starts. */
export const claim = step({
  name: 'claim',
  input: RuntimeStepInput,
  writes: true,
  keys: (i, k) => [k.gen(i.session), k.tokens(i.worker), k.lease(i.worker)],
  args: (i, k, protocol) => [i.session, i.worker, i.epoch, protocol, k.prefix, i.incarnation],
  reply: Bit,
  result: (claimed): 'claimed' | 'stale' => (claimed === 1 ? 'claimed' : 'stale'),
});

/** What one runtime of a batch got: its inputs, a refusal (it lost authority), or none yet appended. */
export type BatchRelease =
  | { outcome: 'released'; inputs: Input[]; appended: number }
  | { outcome: 'lost' }
  | { outcome: 'noinput'; appended: number };

/** Inputs as a range of the log holds them: request id, text, request id, text, ... */
const LogRange = z.array(Str).refine((r) => r.length % 2 === 0, 'a log range holds (request id, text) pairs');

/** Inputs from + 1, from + 2, ... of a log range. */
export function inputsOf(range: readonly string[], from: number): Input[] {
  const inputs: Input[] = [];
  for (let k = 0; k + 1 < range.length; k += 2) {
    inputs.push({ seq: from + k / 2 + 1, requestId: range[k]!, text: range[k + 1]! });
  }
  return inputs;
}

/**
 * Per runtime, flat: code, appended, n, then n (request id, text) pairs (a nested reply costs Redis more
 * to build); read as [code, appended, log range] per runtime.
 */
const BatchReply = z.array(z.union([Int, Str])).transform((flat, ctx) => {
  const rows: [code: number, appended: number, range: string[]][] = [];
  for (let k = 0; k < flat.length;) {
    const [code, appended, n] = flat.slice(k, k + 3);
    const range = flat.slice(k + 3, k + 3 + 2 * Number(n));
    const wellFormed =
      typeof code === 'number' &&
      typeof appended === 'number' &&
      appended >= 0 &&
      typeof n === 'number' &&
      n >= 0 &&
      range.length === 2 * n &&
      range.every((x) => typeof x === 'string');
    if (!wellFormed) {
      ctx.addIssue({ code: 'custom', message: `a release reply's runtime at ${k} is malformed` });
      return z.NEVER;
    }
    rows.push([code, appended, range as string[]]);
    k += 3 + range.length;
  }
  return rows;
});

/**
 * ReleaseBatch(w, S): each runtime (s, e) of the batch releases the inputs after its cursor `from`, at
 * most `max`, each revalidated against its own generation; 'lost' means stop that runtime. `appended` is
 * the log's length (at most `max` + 1 past `from`: enough to tell that more is already waiting).
 */
export const releaseBatch = step({
  name: 'releaseBatch',
  input: ReleaseBatchInput,
  writes: true,
  keys: (_i, k) => [k.config, k.audit],
  args: (i, k, protocol) => [
    k.prefix,
    i.worker,
    protocol,
    i.max,
    ...i.runtimes.flatMap((r) => [r.session, r.epoch, r.incarnation, r.from]),
  ],
  reply: BatchReply,
  wroteNothing: (replies) => replies.every(([code]) => code < 0),
  result: (replies, i): BatchRelease[] =>
    replies.map(([code, appended, range], k) => {
      if (code === StoreCode.LOST_AUTHORITY) return { outcome: 'lost' };
      if (code === StoreCode.NO_INPUT) return { outcome: 'noinput', appended };
      return { outcome: 'released', inputs: inputsOf(range, i.runtimes[k]!.from), appended };
    }),
});

/**
 * ReleaseInput(w, s, e): a batch of one runtime and one input: revalidate and release input seq;
 * LOST_AUTHORITY means stop the runtime, NO_INPUT that nothing is appended at seq yet. `appended` more
 * than seq means the next input is already waiting.
 */
export async function releaseInput(
  store: Store,
  args: z.input<typeof ReleaseInputInput>,
): Promise<Input & { appended: number }> {
  const i = validate(ReleaseInputInput, args, 'releaseInput');
  const runtime = { session: i.session, epoch: i.epoch, incarnation: i.incarnation, from: i.seq - 1 };
  const [got] = await releaseBatch(store, { cell: i.cell, worker: i.worker, max: 1, runtimes: [runtime] });
  if (got!.outcome === 'lost') throw storeError(StoreCode.LOST_AUTHORITY, 'releaseInput');
  if (got!.outcome === 'noinput') throw storeError(StoreCode.NO_INPUT, 'releaseInput');
  return { ...got!.inputs[0]!, appended: got!.appended };
}

/** One input's outcome in a batch: appended (or found already appended), or refused with its code. */
export type AppendOutcome =
  { ok: true; seq: number; duplicate: boolean } | { ok: false; code: AppendRefusal };

type AppendRefusal = StoreCode.NO_SESSION | StoreCode.CLOSED | StoreCode.QUEUE_FULL;
const APPEND_REFUSALS: readonly number[] = [StoreCode.NO_SESSION, StoreCode.CLOSED, StoreCode.QUEUE_FULL];

/** Two integers per input: (seq, 1 if a duplicate else 0), or (refusal code, 0). */
const AppendReply = z
  .array(Int)
  .refine((r) => r.length % 2 === 0, 'an append reply holds two integers per input')
  .refine(
    (r) => r.every((x, k) => (k % 2 === 1 ? x === 0 || x === 1 : x > 0 || APPEND_REFUSALS.includes(x))),
    'an append reply holds (seq, 0 or 1) or (a refusal code, 0) per input',
  );

/**
 * PushText(s, r) once per input, back to back in one store step: each appended once per request id (a
 * retry gets the first seq), the owner told on its work stream; one refused (NO_SESSION, CLOSED, or
 * QUEUE_FULL while `maxQueued` inputs are not released) leaves the others to go on.
 */
export const appendBatch = step({
  name: 'appendBatch',
  input: AppendBatchInput,
  writes: true,
  keys: (_i, k) => [k.config, k.audit],
  args: (i, k) => [
    k.prefix,
    k.streamPrefix,
    i.maxQueued ?? 0,
    ...i.inputs.flatMap((p) => [p.session, p.requestId, p.text]),
  ],
  reply: AppendReply,
  wroteNothing: (reply) => reply.every((x, k) => k % 2 === 1 || x < 0),
  result: (reply): AppendOutcome[] => {
    const outcomes: AppendOutcome[] = [];
    for (let k = 0; k < reply.length; k += 2) {
      const first = reply[k]!;
      outcomes.push(
        first < 0
          ? { ok: false, code: first as AppendRefusal }
          : { ok: true, seq: first, duplicate: reply[k + 1] === 1 },
      );
    }
    return outcomes;
  },
});

/**
 * PushText(s, r): a batch of one input; a refusal is the StoreError it names. A retry returns the first
 * seq. The owner's work stream has the entry.
 */
export async function appendInput(
  store: Store,
  args: AppendInputArgs,
): Promise<{ seq: number; duplicate: boolean }> {
  const { cell, maxQueued, ...input } = validate(AppendInputInput, args, 'appendInput');
  const [got] = await appendBatch(store, { cell, maxQueued, inputs: [input] });
  if (!got!.ok) throw storeError(got!.code, 'appendInput');
  return { seq: got!.seq, duplicate: got!.duplicate };
}

/** Teardown(w, s, e): free the stopped runtime's token; false if it was already free. */
export const teardown = step({
  name: 'teardown',
  input: GenerationInput,
  writes: true,
  keys: (i, k) => [k.tokens(i.worker)],
  args: (i, k) => [i.session, i.epoch, i.worker, k.prefix],
  reply: Bit,
  result: (freed) => ({ freed: freed === 1 }),
});

/** Close(s): returns the epoch of the generation closed. */
export const closeSession = step({
  name: 'closeSession',
  input: SessionInput,
  writes: true,
  keys: (i, k) => [k.gen(i.session), k.sessions, k.config, k.audit],
  args: (i, k) => [i.session, k.placedPrefix, k.streamPrefix],
  reply: Positive,
  result: (epoch) => ({ epoch }),
});

/** Drain(w): no new placements on w until it registers again or is undrained; false if it already was. */
export const drain = step({
  name: 'drain',
  input: WorkerInput,
  writes: true,
  keys: (i, k) => [k.lease(i.worker), k.draining],
  args: (i, k) => [i.worker, k.prefix],
  reply: Bit,
  result: (started) => ({ started: started === 1 }),
});

/** Undrain(w): w takes placements again; false if it was not draining. */
export const undrain = step({
  name: 'undrain',
  input: WorkerInput,
  writes: true,
  keys: (i, k) => [k.lease(i.worker), k.draining],
  args: (i, k) => [i.worker, k.prefix],
  reply: Bit,
  result: (ended) => ({ ended: ended === 1 }),
});

/** gen[s], or null when the session has none. */
export const readGen = step({
  name: 'readGen',
  input: ReadGenInput,
  writes: false,
  keys: (i, k) => [k.gen(i.session)],
  args: (i, k) => {
    const by = i.tracedAs;
    if (by === undefined) return ['', i.session, '', '', 0];
    return by === 'plan'
      ? [k.prefix, i.session, 'plan', '', 0]
      : [k.prefix, i.session, 'fence', by.worker, by.epoch];
  },
  reply: z.tuple([Str, Positive, PhaseOf]),
  result: ([worker, epoch, phase]): Generation | null => ({ worker, epoch, phase }),
  answers: { code: StoreCode.NO_SESSION, result: null },
});

/** One session's reply to readGens: phase '' (with '' and 0) when it has no generation; then its log's length. */
const GenerationAndLength = z.tuple([
  Str,
  NonNegative,
  z.enum(['', 'assigned', 'claimed', 'closed']),
  NonNegative,
]);

/** What the sweep reads of a session: gen[s] (null: none) and how many inputs its log holds. */
export interface SweptSession {
  generation: Generation | null;
  appended: number;
}

/** gen[s] and the log's length of each session, in order: the sweep's Fence reads and missed-hint check, in one step. */
export const readGens = step({
  name: 'readGens',
  input: ReadGensInput,
  writes: false,
  keys: (_i, k) => [k.config],
  args: (i, k) => [k.prefix, ...i.sessions],
  // each quadruple is checked on its own (a union here would try, and fail, Str on every number)
  reply: z.array(z.unknown()),
  result: (flat, i): SweptSession[] =>
    i.sessions.map((_, k) => {
      const [worker, epoch, phase, appended] = GenerationAndLength.parse(flat.slice(4 * k, 4 * k + 4));
      return { generation: phase === '' ? null : { worker, epoch, phase }, appended };
    }),
});

/** Reconstruct: the release cursor and the inputs up to it. */
export const readRelease = step({
  name: 'readRelease',
  input: ReadReleaseInput,
  writes: false,
  keys: (i, k) => [k.gen(i.session), k.log(i.session)],
  args: (i, k) => [
    i.fromSeq,
    i.tracedAs ? k.prefix : '',
    i.session,
    i.tracedAs?.worker ?? '',
    i.tracedAs?.epoch ?? 0,
  ],
  reply: z.tuple([NonNegative, Str, NonNegative, LogRange, NonNegative]),
  result: ([seq, worker, epoch, range, appended], i): Release => ({
    seq,
    appended,
    by: worker === '' ? null : { worker, epoch },
    entries: inputsOf(range, i.fromSeq),
  }),
});

/** The worker as the store has it at `now`. */
export const readWorker = step({
  name: 'readWorker',
  input: ReadWorkerInput,
  writes: false,
  keys: (i, k) => [k.lease(i.worker), k.cap(i.worker), k.tokens(i.worker), k.draining],
  args: (i) => [i.worker, i.now],
  reply: z.tuple([Positive, Int, Bit, Positive, Bit, z.array(Str), Str]),
  result: ([incarnation, expiresAt, live, cap, draining, tokens, addr], i): WorkerState => ({
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
  }),
});

/** Publishes the worker's load figures (advisory: ranking reads them, admission never does). */
export const publishLoad = step({
  name: 'publishLoad',
  input: PublishLoadInput,
  writes: false,
  keys: (i, k) => [k.lease(i.worker), k.load(i.worker)],
  args: (i) => [i.incarnation, i.runtimes, i.queued, i.now],
  reply: z.literal(1),
  result: (): void => undefined,
});

/** Trims the worker's work stream before entry `id`, which it has handled. */
export const ackStream = step({
  name: 'ackStream',
  input: AckStreamInput,
  writes: false,
  keys: (i, k) => [k.stream(i.worker)],
  args: (i) => [i.id],
  reply: NonNegative,
  result: (trimmed) => ({ trimmed }),
});

/** Every worker of the cell at `now`, sorted by id: the load view. */
export const readLoadView = step({
  name: 'readLoadView',
  input: ReadLoadViewInput,
  writes: false,
  keys: (_i, k) => [k.workers],
  args: (i, k) => [k.prefix, i.now],
  reply: z.array(z.tuple([Str, Int, Int, Bit, Int, Int, Bit, Int, Str, Int, Int, Int])),
  result: (rows): WorkerView[] =>
    rows.map(
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
    ),
});

const GenerationRow = z.tuple([Str, Str, Positive, PhaseOf]);

function placedSessions(flat: (string | number)[]): PlacedSession[] {
  const out: PlacedSession[] = [];
  for (let k = 0; k < flat.length; k += 4) {
    const [session, worker, epoch, phase] = GenerationRow.parse(flat.slice(k, k + 4));
    out.push({ session, generation: { worker, epoch, phase } });
  }
  return out;
}

/** The live sessions placed on the worker, with their generations, sorted by session id. */
export const readPlaced = step({
  name: 'readPlaced',
  input: ReadPlacedInput,
  writes: false,
  keys: (i, k) => [k.placed(i.worker)],
  args: (i, k) => [k.genPrefix, i.tracedAs ? k.prefix : ''],
  reply: z.array(z.union([Str, Int])),
  result: placedSessions,
});

/** One page of the cell's live sessions; `cursor` is '0' on the last page. */
export const readSessions = step({
  name: 'readSessions',
  input: ReadSessionsInput,
  writes: false,
  keys: (_i, k) => [k.sessions],
  args: (i, k) => [i.cursor, i.count, k.genPrefix],
  reply: z.tuple([Str, z.array(z.union([Str, Int]))]),
  result: ([cursor, flat]) => ({ cursor, sessions: placedSessions(flat) }),
});

export type ConfigureCellArgs = z.input<typeof ConfigureCellInput>;

/** Sets the cell's configuration: whether commits, closes and releases are audited, and every step traced. */
export const configureCell = step({
  name: 'configureCell',
  input: ConfigureCellInput,
  writes: true,
  keys: (_i, k) => [k.config],
  args: (i) => [i.audit ? 1 : 0, i.trace ? 1 : 0],
  reply: z.literal(1),
  result: (): void => undefined,
});

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
  z.object({ k: z.literal('releases'), w: Str, a: Str }),
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
  const fields: Record<string, string | undefined> = {};
  for (let k = 0; k < flat.length; k += 2) {
    // a field named __proto__ would set the object's prototype: none of the store's entries has one
    if (flat[k] !== '__proto__') fields[flat[k]!] = flat[k + 1];
  }
  return fields;
}

/** One runtime of a release batch's audit entry: s, e, and the inputs first .. last it released. */
const ReleasedRun = z
  .object({ s: Str.min(1), e: Num, first: Num, last: Num })
  .refine(({ first, last }) => 0 < first && first <= last, 'inputs first .. last, 0 < first <= last');

/**
 * An audit stream entry as XRANGE returns it, read as the steps it records: one, or a release batch's
 * releases, one per input, in the order the batch released them.
 */
export function traceEntries(id: string, flat: string[]): TraceEntry[] {
  const malformed = (why: string) =>
    new Error(`audit stream entry ${id} (${flat.join(' ')}) is malformed: ${why}`);
  const parsed = TraceFields.safeParse(streamFields(flat));
  if (!parsed.success) throw malformed(issuesText(parsed.error, 'entry'));
  const f = parsed.data;
  if (f.k !== 'releases') return [stepOf(id, f)];
  // a lists "s e first last" per runtime
  const words = f.a.split(' ');
  if (words.length % 4 !== 0) throw malformed('a is not "s e first last" per runtime');
  const releases: TraceEntry[] = [];
  for (let k = 0; k < words.length; k += 4) {
    const [s, e, first, last] = words.slice(k, k + 4);
    const run = ReleasedRun.safeParse({ s, e, first, last });
    if (!run.success) throw malformed(`a's runtime ${k / 4 + 1}: ${issuesText(run.error, 'it')}`);
    for (let seq = run.data.first; seq <= run.data.last; seq++)
      releases.push({ id, kind: 'release', session: run.data.s, worker: f.w, epoch: run.data.e, seq });
  }
  return releases;
}

function stepOf(id: string, f: Exclude<z.output<typeof TraceFields>, { k: 'releases' }>): TraceEntry {
  const runtime = (r: { s: string; w: string; e: number }) => ({ session: r.s, worker: r.w, epoch: r.e });
  switch (f.k) {
    case 'commit':
      return { id, kind: 'commit', session: f.s, worker: f.w, epoch: f.e, from: f.from };
    case 'close':
      return { id, kind: 'close', session: f.s, worker: f.w, epoch: f.e };
    // 'release': one input, as streams written before release batches had one entry each hold it
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
  return (await readTraceRows(store, args)).flatMap(([id, flat]) => traceEntries(id, flat));
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
  return rows.flatMap(([id, flat]) => traceEntries(id, flat)).filter(isAudited);
}

/** The history in the cell's audit stream after `afterId`: its commits, closes and releases, in order. */
export async function readAudit(
  store: Store,
  args: { cell: string; afterId?: string },
): Promise<AuditEntry[]> {
  return (await readTrace(store, args)).filter(isAudited);
}
