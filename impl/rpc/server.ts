/**
 * Serving a service from typed async handlers: each request is validated with its zod schema (a bad one
 * is INVALID_ARGUMENT and reaches no handler), errors become statuses (errors.ts), every call is timed.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { rpcDuration, rpcRefusals } from '../common/metrics.js';
import type { Admission } from './admission.js';
import { RETRY_AFTER, RpcError, toStatus } from './errors.js';

type Methods = Record<string, [unknown, unknown]>;
export type Schemas<M extends Methods> = { [K in keyof M]: z.ZodType<M[K][0], unknown> };
/** What a handler knows of its call: when its deadline passes (ms since the epoch; Infinity: none). */
export interface CallContext {
  deadline: number;
}
export type Handlers<M extends Methods> = {
  [K in keyof M]: (request: M[K][0], context: CallContext) => Promise<M[K][1]>;
};

/** Runs before a valid request's handler; throws the refusal of a caller that may not make it. */
export type Guard<M extends Methods> = (metadata: grpc.Metadata, request: M[keyof M][0]) => void;

export interface ServiceOptions<M extends Methods> {
  guard?: Guard<M>;
  /**
   * The admission a method's calls go through (none: unbounded): it bounds the calls running at once;
   * past it a call is refused RESOURCE_EXHAUSTED with a retry-after.
   */
  admission?: (method: string) => Admission | undefined;
}

/** A call's deadline in ms since the epoch, Infinity when it has none. */
export function deadlineOf(call: { getDeadline(): grpc.Deadline }): number {
  const d = call.getDeadline();
  return d instanceof Date ? d.getTime() : d;
}

/** A call refused by admission: its status, and the hint of when to retry. */
export function overload(admission: Admission): { code: grpc.status; details: string; retryAfterMs: number } {
  const retryAfterMs = admission.retryAfterMs();
  return {
    code: grpc.status.RESOURCE_EXHAUSTED,
    details: `the server is at its limit of ${admission.limit} calls at once; retry after ${retryAfterMs} ms`,
    retryAfterMs,
  };
}

/** A unary call's answer to overload: at once, the hint in its trailers. */
function overloaded(admission: Admission): grpc.ServerErrorResponse {
  const { code, details, retryAfterMs } = overload(admission);
  const metadata = new grpc.Metadata();
  metadata.set(RETRY_AFTER, String(retryAfterMs));
  return { name: 'Overloaded', message: 'overloaded', code, details, metadata };
}

const expired = (method: string) =>
  new RpcError(grpc.status.DEADLINE_EXCEEDED, `${method}: the deadline passed before it ran`);

export function unaryService<M extends Methods>(
  service: string,
  schemas: Schemas<M>,
  handlers: Handlers<M>,
  log: Logger,
  o: ServiceOptions<M> = {},
): grpc.UntypedServiceImplementation {
  const impl: grpc.UntypedServiceImplementation = {};
  const { guard } = o;
  for (const method of Object.keys(handlers) as (keyof M & string)[]) {
    const admission = o.admission?.(method);
    const refusals = rpcRefusals.labels({ service, method, reason: 'overloaded' });
    impl[method] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      if (admission && !admission.tryAcquire()) {
        refusals.inc();
        callback(overloaded(admission));
        return;
      }
      const started = performance.now();
      const end = rpcDuration.startTimer({ service, method });
      const deadline = deadlineOf(call);
      const parsed = schemas[method].safeParse(call.request);
      const reply = !parsed.success
        ? Promise.reject<M[typeof method][1]>(parsed.error)
        : deadline <= Date.now()
          ? Promise.reject<M[typeof method][1]>(expired(method))
          : Promise.resolve(parsed.data).then((request) => {
              guard?.(call.metadata, request);
              return handlers[method](request, { deadline });
            });
      reply.then(
        (value) => {
          admission?.done(performance.now() - started);
          end({ code: 'OK' });
          callback(null, value);
        },
        (err: unknown) => {
          admission?.done(performance.now() - started);
          const { code, details } = toStatus(err);
          end({ code: grpc.status[code] });
          if (code === grpc.status.INTERNAL) log.error({ err, method }, 'request failed');
          else log.debug({ method, code: grpc.status[code], details }, 'request refused');
          callback({ code, details });
        },
      );
    };
  }
  return impl;
}

/** Binds the server to host:port (port 0: a free one) and returns the address it listens on. */
export function listen(
  server: grpc.Server,
  hostPort: string,
  credentials = grpc.ServerCredentials.createInsecure(),
): Promise<string> {
  const host = hostPort.slice(0, hostPort.lastIndexOf(':'));
  return new Promise((resolve, reject) => {
    server.bindAsync(hostPort, credentials, (err, port) => (err ? reject(err) : resolve(`${host}:${port}`)));
  });
}

/** Stops taking calls and waits for those in flight, up to `graceMs`, then cuts what remains. */
export function shutdown(server: grpc.Server, graceMs = 5000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
