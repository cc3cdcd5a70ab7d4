/** The floor's one gRPC method (harness/bench-floor): a bidirectional stream of raw buffers. */
import { z } from 'zod';

export const FloorStage = z.enum(['echo', 'store']);
export type FloorStage = z.infer<typeof FloorStage>;

const raw = (b: Buffer) => b;

export const FLOOR_METHOD = {
  path: '/dhsched.floor.Floor/Push',
  requestStream: true,
  responseStream: true,
  requestSerialize: raw,
  requestDeserialize: raw,
  responseSerialize: raw,
  responseDeserialize: raw,
} as const;
