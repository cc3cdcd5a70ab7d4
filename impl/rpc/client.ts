/** Typed unary calls with a deadline, over clients that proto-loader builds, cached per address. */
import * as grpc from '@grpc/grpc-js';
import { bearer } from './auth.js';
import { type Tls, channelCredentials } from './tls.js';
import { type DispatchMethods, type MediaSinkUnaryMethods, type WorkerMethods, services } from './proto.js';

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
