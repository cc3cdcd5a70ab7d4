/**
 * The gRPC services of proto/dhsched.proto, loaded at run time (no generated code), and the TypeScript
 * shapes of their messages as proto-loader gives them: camelCase fields, uint64 as number, defaults filled.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export const protoPath = path.join(
  path.dirname(fileURLToPath(import.meta.url)).replace(/[/\\]dist[/\\]impl[/\\]rpc$/, '/impl/rpc'),
  '..',
  '..',
  'proto',
  'dhsched.proto',
);

interface Package {
  Dispatch: grpc.ServiceClientConstructor;
  Worker: grpc.ServiceClientConstructor;
  MediaSink: grpc.ServiceClientConstructor;
}

let loaded: Package | undefined;

export function services(): Package {
  if (!loaded) {
    const def = protoLoader.loadSync(protoPath, {
      keepCase: false,
      longs: Number,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    const root = grpc.loadPackageDefinition(def) as unknown as { dhsched: { v1: Package } };
    loaded = root.dhsched.v1;
  }
  return loaded;
}

export interface SessionRef {
  cell: string;
  session: string;
}
export interface CreateLiveRequest {
  cell: string;
  session: string;
}
export interface Session {
  cell: string;
  session: string;
  worker: string;
  epoch: number;
  phase: 'assigned' | 'claimed' | 'closed';
  releasedSeq: number;
  created: boolean;
  moved: boolean;
}
export interface PushTextRequest {
  cell: string;
  session: string;
  requestId: string;
  text: string;
}
export interface PushTextReply {
  seq: number;
  duplicate: boolean;
}
/** Pushes a PushTextStream has in flight at most: the server reads no further ahead of its replies. */
export const PUSH_STREAM_WINDOW = 1024;
export interface StreamedPush {
  tag: number;
  /** null when the message left it out (proto-loader's default for a message field). */
  push: PushTextRequest | null;
  timeoutMs: number;
}
export interface PushTextStreamRequest {
  pushes: StreamedPush[];
}
export interface StreamedPushResult {
  tag: number;
  code: number;
  message: string;
  seq: number;
  duplicate: boolean;
  retryAfterMs: number;
}
export interface PushTextStreamReply {
  results: StreamedPushResult[];
}
export interface MigrateRequest {
  cell: string;
  session: string;
  target: string;
  fromEpoch: number;
}
export interface DrainWorkerRequest {
  cell: string;
  worker: string;
}
export interface DrainWorkerReply {
  moved: Session[];
  notMoved: string[];
}
export interface UndrainWorkerRequest {
  cell: string;
  worker: string;
}
export interface UndrainWorkerReply {
  undrained: boolean;
}
export interface ListSessionsRequest {
  cell: string;
  cursor: string;
  limit: number;
}
export interface ListSessionsReply {
  sessions: Session[];
  nextCursor: string;
}
export interface ListWorkersRequest {
  cell: string;
}
export interface WorkerInfo {
  worker: string;
  incarnation: number;
  live: boolean;
  leaseExpiresAtMs: number;
  capacity: number;
  tokens: number;
  draining: boolean;
  placed: number;
  addr: string;
  runtimes: number;
  queued: number;
}
export interface ListWorkersReply {
  workers: WorkerInfo[];
}

export interface Assignment {
  cell: string;
  session: string;
  epoch: number;
}
export type RuntimeState = 'running' | 'stopping' | 'stopped' | 'stale' | 'absent';
export interface RuntimeReply {
  state: RuntimeState;
  epoch: number;
  cursor: number;
}
export type HealthRequest = Record<string, never>;
export interface RuntimeInfo {
  session: string;
  epoch: number;
  state: string;
  cursor: number;
}
export interface HealthReply {
  cell: string;
  worker: string;
  incarnation: number;
  capacity: number;
  state: 'serving' | 'registering' | 'stopping';
  runtimes: RuntimeInfo[];
}

export interface Frame {
  cell: string;
  session: string;
  epoch: number;
  seq: number;
  index: number;
  ptsMs: number;
  worker: string;
  payload: Buffer;
}
export interface PublishReply {
  accepted: number;
  dropped: number;
}
export interface WatchRequest {
  cell: string;
  session: string;
}
export type StatsRequest = Record<string, never>;
export interface SessionMediaStats {
  cell: string;
  session: string;
  epoch: number;
  accepted: number;
  dropped: number;
  lastSeq: number;
}
export interface StatsReply {
  sessions: SessionMediaStats[];
}

/** The unary methods of each service, request and reply: what `serve` and `unary` are typed by. */
export type DispatchMethods = {
  createLive: [CreateLiveRequest, Session];
  pushText: [PushTextRequest, PushTextReply];
  closeLive: [SessionRef, Session];
  migrate: [MigrateRequest, Session];
  drainWorker: [DrainWorkerRequest, DrainWorkerReply];
  undrainWorker: [UndrainWorkerRequest, UndrainWorkerReply];
  getSession: [SessionRef, Session];
  listSessions: [ListSessionsRequest, ListSessionsReply];
  listWorkers: [ListWorkersRequest, ListWorkersReply];
};
export type WorkerMethods = {
  revoke: [Assignment, RuntimeReply];
  stop: [Assignment, RuntimeReply];
  health: [HealthRequest, HealthReply];
};
export type MediaSinkUnaryMethods = {
  stats: [StatsRequest, StatsReply];
};
