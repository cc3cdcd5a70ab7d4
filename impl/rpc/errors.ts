/** How a refusal becomes a gRPC status: one table, used by every service. */
import * as grpc from '@grpc/grpc-js';
import { ZodError } from 'zod';
import { StoreCode, StoreError } from '../store/codes.js';
import { issuesText } from '../common/issues.js';

const statusOf: Record<StoreCode, grpc.status> = {
  [StoreCode.CONFLICT]: grpc.status.ABORTED,
  [StoreCode.FULL]: grpc.status.RESOURCE_EXHAUSTED,
  [StoreCode.NOT_LIVE]: grpc.status.UNAVAILABLE,
  [StoreCode.DRAINING]: grpc.status.FAILED_PRECONDITION,
  [StoreCode.NO_SESSION]: grpc.status.NOT_FOUND,
  [StoreCode.CLOSED]: grpc.status.FAILED_PRECONDITION,
  [StoreCode.LOST_AUTHORITY]: grpc.status.PERMISSION_DENIED,
  [StoreCode.NO_INPUT]: grpc.status.NOT_FOUND,
  [StoreCode.LEASE_LIVE]: grpc.status.FAILED_PRECONDITION,
  [StoreCode.STALE_INCARNATION]: grpc.status.FAILED_PRECONDITION,
  [StoreCode.UNKNOWN_WORKER]: grpc.status.NOT_FOUND,
  [StoreCode.QUEUE_FULL]: grpc.status.RESOURCE_EXHAUSTED,
  [StoreCode.INVALID_INPUT]: grpc.status.INVALID_ARGUMENT,
  [StoreCode.NOT_DURABLE]: grpc.status.UNAVAILABLE,
};

/** The trailer naming how long a client refused for overload should wait before it retries, ms. */
export const RETRY_AFTER = 'retry-after-ms';

/** A refusal the caller should see as it is, with a gRPC status of its own choosing. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
  }
}

/** The gRPC status and message an error is answered with; anything unexpected is INTERNAL. */
export function toStatus(err: unknown): { code: grpc.status; details: string } {
  if (err instanceof RpcError) return { code: err.code, details: err.message };
  if (err instanceof StoreError) return { code: statusOf[err.code], details: err.message };
  if (err instanceof ZodError) {
    const details = issuesText(err, 'request');
    return { code: grpc.status.INVALID_ARGUMENT, details: `invalid request: ${details}` };
  }
  return { code: grpc.status.INTERNAL, details: err instanceof Error ? err.message : String(err) };
}

/** The gRPC status of an error a client received, or undefined for anything else. */
export function grpcCode(err: unknown): grpc.status | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' && err instanceof Error && 'details' in err ? code : undefined;
}
