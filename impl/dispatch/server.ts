/**
 * The Dispatch gRPC service: every request validated (a bad one is INVALID_ARGUMENT and writes nothing),
 * then handed to DispatchCore. `startDispatchServer` assembles a whole replica in-process: load view,
 * notifier, core, recovery loop and gRPC server.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { silentLogger } from '../common/log.js';
import { type ApiKeys, Authenticator } from '../rpc/auth.js';
import { Admission, type AdmissionOptions } from '../rpc/admission.js';
import { toStatus } from '../rpc/errors.js';
import {
  type DispatchMethods,
  PUSH_STREAM_WINDOW,
  type PushTextStreamReply,
  type PushTextStreamRequest,
  type StreamedPush,
  type StreamedPushResult,
  services,
} from '../rpc/proto.js';
import { rpcRefusals } from '../common/metrics.js';
import type { Tls } from '../rpc/tls.js';
import { type Schemas, deadlineOf, listen, overload, shutdown, unaryService } from '../rpc/server.js';
import { Id, RequestId, Text } from '../store/schema.js';
import type { Store } from '../store/steps.js';
import { DispatchCore } from './core.js';
import { LoadView } from './load-view.js';
import { WorkerNotifier } from './notifier.js';
import { type Random, type Ranking, leastLoaded } from './ranking.js';

const undecodable = Symbol('undecodable');

/**
 * The service as proto-loader defines it, except that a request that is not a valid protobuf message
 * reaches the handler as a marker, so that it is refused as INVALID_ARGUMENT (grpc-js answers INTERNAL).
 */
function leniently(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  return Object.fromEntries(
    Object.entries(service).map(([name, method]) => [
      name,
      {
        ...method,
        requestDeserialize: (bytes: Buffer) => {
          try {
            return method.requestDeserialize(bytes);
          } catch (err) {
            return { [undecodable]: err instanceof Error ? err.message : String(err) };
          }
        },
      },
    ]),
  );
}

/** The request's schema, preceded by the check that it decoded at all. */
function request<T extends z.ZodTypeAny>(schema: T) {
  return z
    .unknown()
    .superRefine((r, ctx) => {
      if (typeof r === 'object' && r !== null && undecodable in r) {
        ctx.addIssue({ code: 'custom', message: `not a valid protobuf message (${String(r[undecodable])})` });
      }
    })
    .pipe(schema);
}

/** An empty cell is the default one. */
const Cell = z
  .string()
  .transform((c) => c || 'default')
  .pipe(Id);
/** Empty: the best-ranked worker. */
const Target = z
  .string()
  .refine((t) => t === '' || Id.safeParse(t).success, 'a target is empty or 1-64 of [A-Za-z0-9_.-]');
/** 0: whatever epoch is current. */
const FromEpoch = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER, 'an epoch is below 2^53');
const SessionRef = z.object({ cell: Cell, session: Id });
/** PushText's text: at most 16 KiB, and something to say (a runtime says nothing for white space). */
export const SpokenText = Text.refine((t) => t.trim() !== '', 'text is empty or only white space');

export const schemas: Schemas<DispatchMethods> = {
  createLive: request(SessionRef),
  pushText: request(SessionRef.extend({ requestId: RequestId, text: SpokenText })),
  closeLive: request(SessionRef),
  migrate: request(SessionRef.extend({ target: Target, fromEpoch: FromEpoch })),
  drainWorker: request(z.object({ cell: Cell, worker: Id })),
  undrainWorker: request(z.object({ cell: Cell, worker: Id })),
  getSession: request(SessionRef),
  listSessions: request(
    z.object({
      cell: Cell,
      cursor: z
        .string()
        .regex(/^[0-9]*$/, 'a cursor is a number')
        .transform((c) => c || '0'),
      limit: z
        .number()
        .int()
        .min(0)
        .max(1000, 'a limit is 1..1000 (0: 100)')
        .transform((l) => l || 100),
    }),
  ),
  listWorkers: request(z.object({ cell: Cell })),
};

/**
 * Admission in two lanes, each with its own limit: pushes (PushText, unary and streamed), which are many
 * and short, and the control calls (CreateLive, Migrate, reads, ...), which take longer; so a flood of one
 * neither shrinks the other's limit nor takes its slots.
 */
export interface AdmissionLanes {
  pushes: Admission;
  control: Admission;
}

/** The control lane's defaults: its calls take several store steps, so its queue bound is wider. */
const CONTROL_ADMISSION: AdmissionOptions = { targetMs: 50 };

function admissionLanes(o: { pushes?: AdmissionOptions; control?: AdmissionOptions } = {}): AdmissionLanes {
  return { pushes: new Admission(o.pushes), control: new Admission({ ...CONTROL_ADMISSION, ...o.control }) };
}

/** The service; with `auth`, a call needs an API key of a tenant that owns the request's cell. */
export function dispatchService(
  core: DispatchCore,
  log: Logger,
  auth?: Authenticator,
  lanes?: AdmissionLanes,
): grpc.UntypedServiceImplementation {
  const guard =
    auth && ((metadata: grpc.Metadata, request: { cell: string }) => void auth.check(metadata, request.cell));
  return {
    ...unaryService<DispatchMethods>(
      'Dispatch',
      schemas,
      {
        createLive: (r) => core.createLive(r.cell, r.session),
        pushText: (r, { deadline }) => core.pushText(r.cell, r.session, r.requestId, r.text, deadline),
        closeLive: (r) => core.closeLive(r.cell, r.session),
        migrate: (r) => core.migrate(r.cell, r.session, r.target || undefined, r.fromEpoch || undefined),
        drainWorker: (r) => core.drainWorker(r.cell, r.worker),
        undrainWorker: (r) => core.undrainWorker(r.cell, r.worker),
        getSession: (r) => core.getSession(r.cell, r.session),
        listSessions: (r) => core.listSessions(r.cell, r.cursor, r.limit),
        listWorkers: (r) => core.listWorkers(r.cell),
      },
      log,
      { guard, admission: lanes && ((method) => (method === 'pushText' ? lanes.pushes : lanes.control)) },
    ),
    pushTextStream: pushTextStream(core, log, guard, lanes?.pushes),
  };
}

/**
 * PushTextStream: each push of a message one PushText, answered by its own result (code 0 or the status
 * the unary call would end with); the results ready together go in one reply. At most PUSH_STREAM_WINDOW
 * pushes are read ahead of their results, and none while the client does not read its replies: then the
 * stream stops reading and its HTTP/2 window fills.
 */
function pushTextStream(
  core: DispatchCore,
  log: Logger,
  guard: ((metadata: grpc.Metadata, request: { cell: string }) => void) | undefined,
  admission: Admission | undefined,
) {
  const refusals = rpcRefusals.labels({
    service: 'Dispatch',
    method: 'pushTextStream',
    reason: 'overloaded',
  });
  return (call: grpc.ServerDuplexStream<PushTextStreamRequest, PushTextStreamReply>) => {
    const streamDeadline = deadlineOf(call);
    let outstanding = 0;
    let writable = true;
    let ended = false;
    let ready: Partial<StreamedPushResult>[] = [];
    /** Pushes refused for overload since the last reply, counted once per reply. */
    let overloadedSinceFlush = 0;
    const flow = () => {
      if (outstanding < PUSH_STREAM_WINDOW && writable) call.resume();
      else call.pause();
      if (ended && outstanding === 0 && ready.length === 0) call.end();
    };
    const flush = () => {
      const results = ready as StreamedPushResult[];
      ready = [];
      if (overloadedSinceFlush > 0) refusals.inc(overloadedSinceFlush);
      overloadedSinceFlush = 0;
      if (call.cancelled || call.writableEnded) return;
      if (!call.write({ results })) {
        writable = false;
        call.once('drain', () => {
          writable = true;
          flow();
        });
      }
      flow();
    };
    const answer = (result: Partial<StreamedPushResult> & { tag: number }) => {
      outstanding--;
      if (ready.push(result) === 1) setImmediate(flush);
    };
    const refuse = (tag: number, err: unknown) => {
      const { code, details } = toStatus(err);
      if (code === grpc.status.INTERNAL) log.error({ err }, 'push failed');
      answer({ tag, code, message: details });
    };
    const take = (p: StreamedPush) => {
      outstanding++;
      const tag = typeof p.tag === 'number' ? p.tag : 0;
      if (admission && !admission.tryAcquire()) {
        overloadedSinceFlush++;
        const { code, details, retryAfterMs } = overload(admission);
        return answer({ tag, code, message: details, retryAfterMs });
      }
      const started = performance.now();
      const settle = () => admission?.done(performance.now() - started);
      const deadline = Math.min(streamDeadline, p.timeoutMs > 0 ? Date.now() + p.timeoutMs : Infinity);
      const parsed = schemas.pushText.safeParse(p.push ?? {});
      if (!parsed.success) {
        settle();
        return refuse(tag, parsed.error);
      }
      const r = parsed.data;
      try {
        guard?.(call.metadata, r);
      } catch (err) {
        settle();
        return refuse(tag, err);
      }
      core.pushText(r.cell, r.session, r.requestId, r.text, deadline).then(
        ({ seq, duplicate }) => {
          settle();
          answer({ tag, code: grpc.status.OK, seq, duplicate });
        },
        (err: unknown) => {
          settle();
          refuse(tag, err);
        },
      );
    };
    call.on('data', (m: PushTextStreamRequest) => {
      if (undecodable in m) {
        outstanding++;
        refuse(0, schemas.pushText.safeParse(m).error);
      } else for (const p of m.pushes) take(p);
      flow();
    });
    call.on('end', () => {
      ended = true;
      flow();
    });
    call.on('error', (err) => log.debug({ err }, 'push stream failed'));
  };
}

export interface DispatchServerOptions {
  store: Store;
  /** The replica's id, for logs. */
  id?: string;
  /** host:port; port 0 takes a free one. */
  listen?: string;
  /** The cells served from the start (load view refreshes, recovery). */
  cells?: readonly string[];
  /** The load view's refresh period T. */
  refreshMs?: number;
  /** The recovery loop's period; 0 runs no recovery loop. */
  recoveryMs?: number;
  ranking?: Ranking;
  log?: Logger;
  now?: () => number;
  random?: Random;
  /** Fault injection, see DispatchCoreOptions.afterCommit. */
  afterCommit?: () => void;
  /** See DispatchCoreOptions.maxQueued. */
  maxQueued?: number;
  /** See DispatchCoreOptions.pushRate. */
  pushRate?: number;
  /** Tenants and their API keys; absent: every client may use every cell. */
  apiKeys?: ApiKeys;
  /** Mutual TLS to the workers; absent: plaintext. */
  workerTls?: Tls;
  /** Bounded admission of calls in two lanes (admissionLanes, rpc/admission.ts); false: none. */
  admission?: { pushes?: AdmissionOptions; control?: AdmissionOptions } | false;
}

export interface DispatchServer {
  /** The address it serves on. */
  readonly addr: string;
  readonly core: DispatchCore;
  /** Stops the loops and the server (calls in flight finish), and closes the worker clients. */
  stop(): Promise<void>;
}

/** A whole Dispatch replica, serving once the views of its cells are read; the caller owns the store. */
export async function startDispatchServer(o: DispatchServerOptions): Promise<DispatchServer> {
  const log = o.log ?? silentLogger;
  const loadView = new LoadView({
    store: o.store,
    cells: o.cells ?? ['default'],
    refreshMs: o.refreshMs ?? 200,
    log,
    now: o.now,
  });
  await loadView.refreshAll();
  loadView.start();
  const notifier = new WorkerNotifier({ loadView, log, tls: o.workerTls });
  const core = new DispatchCore({
    store: o.store,
    id: o.id ?? `dispatch-${process.pid}`,
    ranking: o.ranking ?? leastLoaded,
    loadView,
    notifier,
    log,
    now: o.now,
    random: o.random,
    afterCommit: o.afterCommit,
    maxQueued: o.maxQueued,
    pushRate: o.pushRate,
  });
  const recoveryMs = o.recoveryMs ?? 500;
  if (recoveryMs > 0) core.startRecovery(recoveryMs);
  const server = new grpc.Server();
  server.addService(
    leniently(services().Dispatch.service),
    dispatchService(
      core,
      log,
      o.apiKeys && new Authenticator(o.apiKeys),
      o.admission === false ? undefined : admissionLanes(o.admission),
    ),
  );
  const stopLoops = async () => {
    await core.stop();
    await loadView.stop();
  };
  let addr: string;
  try {
    addr = await listen(server, o.listen ?? '127.0.0.1:0');
  } catch (err) {
    await stopLoops();
    throw err;
  }
  return {
    addr,
    core,
    async stop() {
      await stopLoops();
      await shutdown(server);
      notifier.close();
    },
  };
}
