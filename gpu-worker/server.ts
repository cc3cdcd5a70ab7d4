/**
 * The Worker service of proto/dhsched.proto over an Infer-Controller. Every call is a hint: the controller
 * acts only on what the store confirms. Requests are validated (a malformed one is INVALID_ARGUMENT); a
 * cell other than the worker's is NOT_FOUND.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { RpcError } from '../impl/rpc/errors.js';
import type { WorkerMethods } from '../impl/rpc/proto.js';
import { unaryService } from '../impl/rpc/server.js';
import { Epoch, Id } from '../impl/store/schema.js';
import type { InferController } from './controller.js';

const AssignmentRequest = z.object({ cell: Id, session: Id, epoch: Epoch });

export function workerService(controller: InferController, log: Logger): grpc.UntypedServiceImplementation {
  const inCell = <R extends { cell: string }>(request: R): R => {
    if (request.cell !== controller.cell) {
      throw new RpcError(
        grpc.status.NOT_FOUND,
        `worker ${controller.worker} serves cell ${controller.cell}, not ${request.cell}`,
      );
    }
    return request;
  };
  return unaryService<WorkerMethods>(
    'Worker',
    {
      revoke: AssignmentRequest,
      stop: AssignmentRequest,
      health: z.object({}),
    },
    {
      revoke: async (r) => controller.revoke(inCell(r).session, r.epoch),
      stop: async (r) => controller.stopRuntime(inCell(r).session, r.epoch),
      health: async () => controller.snapshot(),
    },
    log,
  );
}
