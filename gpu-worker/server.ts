/**
 * The Worker service of proto/dhsched.proto over an Infer-Controller. Every call is a hint: the controller
 * acts only on what the store confirms. Requests are validated (a malformed one is INVALID_ARGUMENT); a
 * cell other than the worker's is NOT_FOUND; StartRuntime and Deliver while the worker is not serving
 * (registering again, stopping) are UNAVAILABLE.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { RpcError } from '../impl/rpc/errors.js';
import type { WorkerMethods } from '../impl/rpc/proto.js';
import { unaryService } from '../impl/rpc/server.js';
import { Epoch, Id, Seq } from '../impl/store/schema.js';
import type { InferController } from './controller.js';

const AssignmentRequest = z.object({ cell: Id, session: Id, epoch: Epoch });
const DeliverRequest = z.object({ cell: Id, session: Id, seq: Seq });

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
  const serving = <R extends { cell: string }>(request: R): R => {
    if (controller.state !== 'serving') {
      throw new RpcError(grpc.status.UNAVAILABLE, `worker ${controller.worker} is ${controller.state}`);
    }
    return inCell(request);
  };
  return unaryService<WorkerMethods>(
    'Worker',
    {
      startRuntime: AssignmentRequest,
      deliver: DeliverRequest,
      revoke: AssignmentRequest,
      stop: AssignmentRequest,
      health: z.object({}),
    },
    {
      startRuntime: async (r) => controller.startRuntime(serving(r).session, r.epoch),
      deliver: async (r) => controller.deliver(serving(r).session, r.seq),
      revoke: async (r) => controller.revoke(inCell(r).session, r.epoch),
      stop: async (r) => controller.stopRuntime(inCell(r).session, r.epoch),
      health: async () => controller.snapshot(),
    },
    log,
  );
}
