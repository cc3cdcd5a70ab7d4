/**
 * Serving a service from typed async handlers: each request is validated with its zod schema (a bad one
 * is INVALID_ARGUMENT and reaches no handler), errors become statuses (errors.ts), every call is timed.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { rpcDuration } from '../common/metrics.js';
import { toStatus } from './errors.js';

type Methods = Record<string, [unknown, unknown]>;
export type Schemas<M extends Methods> = { [K in keyof M]: z.ZodType<M[K][0], z.ZodTypeDef, unknown> };
export type Handlers<M extends Methods> = { [K in keyof M]: (request: M[K][0]) => Promise<M[K][1]> };

/** Runs before a valid request's handler; throws the refusal of a caller that may not make it. */
export type Guard<M extends Methods> = (metadata: grpc.Metadata, request: M[keyof M][0]) => void;

export function unaryService<M extends Methods>(
  service: string,
  schemas: Schemas<M>,
  handlers: Handlers<M>,
  log: Logger,
  guard?: Guard<M>,
): grpc.UntypedServiceImplementation {
  const impl: grpc.UntypedServiceImplementation = {};
  for (const method of Object.keys(handlers) as (keyof M & string)[]) {
    impl[method] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const end = rpcDuration.startTimer({ service, method });
      const parsed = schemas[method].safeParse(call.request);
      const reply = parsed.success
        ? Promise.resolve(parsed.data).then((request) => {
            guard?.(call.metadata, request);
            return handlers[method](request);
          })
        : Promise.reject<M[typeof method][1]>(parsed.error);
      reply.then(
        (value) => {
          end({ code: 'OK' });
          callback(null, value);
        },
        (err: unknown) => {
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
