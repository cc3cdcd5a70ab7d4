/**
 * Typed unary calls with a deadline, over clients that proto-loader builds, cached per address; the push
 * stream (PushTextStream); retries with jittered backoff that stop at the caller's deadline.
 */
import { setTimeout as delay } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { bearer } from './auth.js';
import { type Tls, channelCredentials } from './tls.js';
import {
  type DispatchMethods,
  type MediaSinkUnaryMethods,
  type PushTextReply,
  type PushTextRequest,
  type PushTextStreamReply,
  type PushTextStreamRequest,
  type StreamedPush,
  PUSH_STREAM_WINDOW,
  type WorkerMethods,
  services,
} from './proto.js';
import { RETRY_AFTER } from './errors.js';

type Methods = Record<string, [unknown, unknown]>;

export interface Client<M extends Methods> {
  readonly addr: string;
  readonly raw: grpc.Client;
  call<K extends keyof M & string>(method: K, request: M[K][0], deadlineMs?: number): Promise<M[K][1]>;
  close(): void;
}

function typed<M extends Methods>(raw: grpc.Client, addr: string, defaultDeadlineMs: number): Client<M> {
  const methods = raw as unknown as Record<
    string,
    (
      req: unknown,
      opts: grpc.CallOptions,
      cb: (err: grpc.ServiceError | null, reply: unknown) => void,
    ) => void
  >;
  return {
    addr,
    raw,
    call(method, request, deadlineMs = defaultDeadlineMs) {
      return new Promise((resolve, reject) => {
        methods[method]!.call(raw, request, { deadline: Date.now() + deadlineMs }, (err, reply) =>
          err ? reject(err) : resolve(reply as M[typeof method][1]),
        );
      });
    },
    close: () => raw.close(),
  };
}

/**
 * Every channel: a keepalive ping every 10 s finds a dead peer within seconds instead of at the next
 * call; grpc-js's own retries are off, because callers retry themselves (`retrying`), only what is
 * idempotent and only within their deadline.
 */
const channelOptions = { 'grpc.keepalive_time_ms': 10_000, 'grpc.enable_retries': 0 };

/** A Dispatch client; with `apiKey`, every call carries it (see auth.ts). */
export function dispatchClient(addr: string, deadlineMs = 10_000, apiKey?: string): Client<DispatchMethods> {
  const options =
    apiKey === undefined ? channelOptions : { ...channelOptions, interceptors: [bearer(apiKey)] };
  const raw = new (services().Dispatch)(addr, grpc.credentials.createInsecure(), options);
  return typed(raw, addr, deadlineMs);
}

/** A Worker client; with `tls`, over mutual TLS (see tls.ts). */
export function workerClient(addr: string, deadlineMs = 2_000, tls?: Tls): Client<WorkerMethods> {
  const raw = new (services().Worker)(addr, channelCredentials(tls), channelOptions);
  return typed(raw, addr, deadlineMs);
}

export function mediaSinkClient(addr: string, deadlineMs = 5_000): Client<MediaSinkUnaryMethods> {
  const raw = new (services().MediaSink)(addr, grpc.credentials.createInsecure(), channelOptions);
  return typed(raw, addr, deadlineMs);
}

/** One client per address, made on first use; `closeAll` on shutdown. */
export class ClientPool<C extends { close(): void }> {
  private readonly clients = new Map<string, C>();
  constructor(private readonly make: (addr: string) => C) {}
  get(addr: string): C {
    let c = this.clients.get(addr);
    if (!c) this.clients.set(addr, (c = this.make(addr)));
    return c;
  }
  closeAll(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}

/**
 * A push refused on the stream: a ServiceError's shape, so callers read its code as a unary call's. It
 * has no stack: it is made in the stream's reply handler, whose frames say nothing of the push, and
 * capturing them was two fifths of a load client's CPU while it was being refused 10,000 times a second.
 */
export class PushRefused extends Error implements Partial<grpc.ServiceError> {
  override readonly name = 'PushRefused';
  constructor(
    readonly code: grpc.status,
    readonly details: string,
    /** The server's hint when it refused for overload, ms; 0: none. */
    readonly retryAfterMs: number,
  ) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`${code} ${grpc.status[code]}: ${details}`);
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** Pushes one stream message carries at most (each text is at most 16 KiB). */
const PUSHES_PER_MESSAGE = 128;

/**
 * Many sessions' pushes over one PushTextStream: `push` resolves with the push's own result. The pushes
 * made in one turn of the event loop go in one message. A push waits while PUSH_STREAM_WINDOW pushes are
 * in flight (the server reads no further ahead, see the proto) or while the stream's writes are
 * buffered. A stream that fails fails the pushes in flight; the next push opens a new one.
 */
export class PushStream {
  private stream: grpc.ClientDuplexStream<PushTextStreamRequest, PushTextStreamReply> | undefined;
  private readonly pending = new Map<
    number,
    { resolve: (r: PushTextReply) => void; reject: (e: Error) => void }
  >();
  private outgoing: StreamedPush[] = [];
  private nextTag = 1;
  private drained: Promise<void> | undefined;
  /** Waiting for a result to free a place in the window. */
  private waiters: (() => void)[] = [];

  constructor(private readonly client: Client<DispatchMethods>) {}

  /** Pushes still waiting for their result. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** One PushText; `timeoutMs` bounds how long it may wait at the server before it runs (0: no bound). */
  async push(request: PushTextRequest, timeoutMs = 0): Promise<PushTextReply> {
    // most pushes find room: they go without waiting a turn of the microtask queue
    if (!this.takesAnother) await this.ready();
    const tag = this.nextTag++;
    const result = new Promise<PushTextReply>((resolve, reject) =>
      this.pending.set(tag, { resolve, reject }),
    );
    if (this.outgoing.push({ tag, push: request, timeoutMs }) === 1) setImmediate(() => this.flush());
    return result;
  }

  /** Resolves once the stream takes another push (at once, unless its window is full). */
  async ready(): Promise<void> {
    while (!this.takesAnother) {
      if (this.drained) await this.drained;
      else await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** Not drained, and its window has room. */
  private get takesAnother(): boolean {
    return !this.drained && this.pending.size < PUSH_STREAM_WINDOW;
  }

  /** Ends the stream once every push in flight has its result. */
  close(): void {
    this.stream?.end();
    this.stream = undefined;
  }

  private flush(): void {
    const stream = this.open();
    let written = true;
    // one message stays far below gRPC's 4 MiB message limit: PUSHES_PER_MESSAGE texts of 16 KiB at most
    for (let i = 0; i < this.outgoing.length; i += PUSHES_PER_MESSAGE) {
      written = stream.write({ pushes: this.outgoing.slice(i, i + PUSHES_PER_MESSAGE) });
    }
    this.outgoing = [];
    if (!written && !this.drained) {
      this.drained = new Promise((resolve) =>
        stream.once('drain', () => {
          this.drained = undefined;
          resolve();
        }),
      );
    }
  }

  private open(): grpc.ClientDuplexStream<PushTextStreamRequest, PushTextStreamReply> {
    if (this.stream) return this.stream;
    const raw = this.client.raw as unknown as {
      pushTextStream(): grpc.ClientDuplexStream<PushTextStreamRequest, PushTextStreamReply>;
    };
    const stream = raw.pushTextStream();
    stream.on('data', (reply: PushTextStreamReply) => {
      for (const r of reply.results) {
        const waiting = this.pending.get(r.tag);
        if (!waiting) continue;
        this.pending.delete(r.tag);
        this.waiters.shift()?.();
        if (r.code === grpc.status.OK) waiting.resolve({ seq: r.seq, duplicate: r.duplicate });
        else waiting.reject(new PushRefused(r.code, r.message, r.retryAfterMs));
      }
    });
    const fail = (err: Error) => {
      if (this.stream === stream) this.stream = undefined;
      for (const w of this.pending.values()) w.reject(err);
      this.pending.clear();
      this.drained = undefined;
      for (const wake of this.waiters.splice(0)) wake();
    };
    stream.on('error', fail);
    stream.on('end', () => fail(new Error('the push stream ended with pushes in flight')));
    this.stream = stream;
    return stream;
  }
}

/** Codes worth a retry of an idempotent call: the server was away, overloaded or a call timed out. */
const RETRYABLE = new Set([
  grpc.status.UNAVAILABLE,
  grpc.status.RESOURCE_EXHAUSTED,
  grpc.status.DEADLINE_EXCEEDED,
]);

export interface RetryOptions {
  /** Ms since the epoch: no attempt starts after it, and no wait runs past it. */
  deadline: number;
  baseMs?: number;
  maxMs?: number;
  random?: () => number;
}

/** The retry-after hint an error carries (a refused push, or a unary call's trailer), ms; 0: none. */
function retryAfterOf(err: unknown): number {
  if (err instanceof PushRefused) return err.retryAfterMs;
  const value = (err as { metadata?: grpc.Metadata } | null)?.metadata?.get(RETRY_AFTER)[0];
  const ms = Number(value);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/**
 * Runs an idempotent call until it succeeds, retrying what RETRYABLE names after a full-jitter backoff
 * (random in [0, min(maxMs, baseMs × 2^attempt)]), or after the server's retry-after hint plus up to as
 * much again, so refused clients do not come back in step; gives up with the last error at `deadline`.
 */
export async function retrying<T>(call: (attempt: number) => Promise<T>, o: RetryOptions): Promise<T> {
  const random = o.random ?? Math.random;
  const base = o.baseMs ?? 10;
  const max = o.maxMs ?? 1000;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call(attempt);
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (typeof code !== 'number' || !RETRYABLE.has(code)) throw err;
      const hint = retryAfterOf(err);
      const waitMs = hint > 0 ? hint * (1 + random()) : random() * Math.min(max, base * 2 ** attempt);
      if (Date.now() + waitMs >= o.deadline) throw err;
      await delay(waitMs);
    }
  }
}
