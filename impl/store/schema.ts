/** The inputs of every store step, validated at the TypeScript boundary before anything reaches Redis. */
import { z } from 'zod';

/** Cell, session and worker ids: no `{`, `}`, `:` or `|`, which keys and tokens use as separators. */
export const ID_RULE = {
  pattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
  message: 'an id is 1-64 of [A-Za-z0-9_.-]',
};
export const Id = z.string().regex(ID_RULE.pattern, ID_RULE.message);
export const RequestId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, 'a request id is 1-128 of [A-Za-z0-9_.:-]');
export const MAX_TEXT_BYTES = 16 * 1024;
export const Text = z
  .string()
  .refine((t) => Buffer.byteLength(t, 'utf8') <= MAX_TEXT_BYTES, `text is at most ${MAX_TEXT_BYTES} bytes`);
const PositiveInt = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const Epoch = PositiveInt;
export const Seq = PositiveInt;
/** Milliseconds since the epoch; production passes Date.now(), tests a controllable clock. */
export const Now = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
export const TtlMs = z
  .number()
  .int()
  .positive()
  .max(24 * 3600 * 1000);
/** Runtimes one worker may host at most. */
export const MAX_CAPACITY = 1_000_000;
export const Capacity = z.number().int().positive().max(MAX_CAPACITY);

/** DHSched, or one of the three unsafe baselines of the spec's constant Protocol (comparisons only). */
export const Protocol = z.enum(['dhsched', 'assignment_time', 'claim_only', 'workerid_only']);
export type Protocol = z.infer<typeof Protocol>;
/** A worker's RPC endpoint, host:port; empty when it serves no RPC (tests driving the store alone). */
export const Addr = z
  .string()
  .regex(/^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):[0-9]{1,5}$|^$/, 'an address is host:port');
/** A stream entry id, as Redis writes it. */
export const StreamId = z.string().regex(/^[0-9]+-[0-9]+$/, 'a stream id is <ms>-<n>');

const inCell = { cell: Id };

export const RegisterWorkerInput = z.object({
  ...inCell,
  worker: Id,
  cap: Capacity,
  now: Now,
  ttlMs: TtlMs,
  addr: Addr.default(''),
});
export const PublishLoadInput = z.object({
  ...inCell,
  worker: Id,
  incarnation: z.number().int().positive(),
  runtimes: z.number().int().nonnegative(),
  queued: z.number().int().nonnegative(),
  now: Now,
});
export const AckStreamInput = z.object({ ...inCell, worker: Id, id: StreamId });
export const ReadSessionsInput = z.object({
  ...inCell,
  cursor: z
    .string()
    .regex(/^[0-9]+$/, 'a cursor is a number')
    .default('0'),
  count: z.number().int().positive().max(10_000).default(100),
});
export const RenewLeaseInput = z.object({
  ...inCell,
  worker: Id,
  incarnation: PositiveInt,
  now: Now,
  ttlMs: TtlMs,
});
export const AdmitCommitInput = z
  .object({
    ...inCell,
    session: Id,
    target: Id,
    /** What the caller read: null for a create, the source generation for a move. */
    expected: z.object({ worker: Id, epoch: Epoch }).nullable(),
    now: Now,
  })
  .refine((i) => i.expected?.worker !== i.target, 'a move targets another worker');
export const GenerationInput = z.object({ ...inCell, worker: Id, session: Id, epoch: Epoch });
/** A runtime's step: its generation and the incarnation of the worker process that claimed it. */
export const RuntimeStepInput = GenerationInput.extend({ incarnation: PositiveInt });
export const ReleaseInputInput = RuntimeStepInput.extend({ seq: Seq });
/** Inputs one runtime may take in one batch, and runtimes one batch may hold, at most. */
export const MAX_BATCH_INPUTS = 256;
export const MAX_BATCH_RUNTIMES = 1024;
/** A batch of worker w: each runtime (s, e) with the cursor it is at (`from`), at most `max` inputs each. */
export const ReleaseBatchInput = z.object({
  ...inCell,
  worker: Id,
  max: z.number().int().positive().max(MAX_BATCH_INPUTS),
  runtimes: z
    .array(
      z.object({
        session: Id,
        epoch: Epoch,
        incarnation: PositiveInt,
        from: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
      }),
    )
    .min(1)
    .max(MAX_BATCH_RUNTIMES),
});
/** Inputs a session may hold appended and not released; 0: no limit. */
export const MaxQueued = z.number().int().nonnegative().max(1_000_000);
export const AppendInputInput = z.object({
  ...inCell,
  session: Id,
  requestId: RequestId,
  text: Text,
  maxQueued: MaxQueued.optional(),
});
/** Inputs one append batch may hold at most. */
export const MAX_APPEND_BATCH = 1024;
/** A batch of appends in one cell, each as AppendInputInput has it, under one queue bound. */
export const AppendBatchInput = z.object({
  ...inCell,
  maxQueued: MaxQueued.optional(),
  inputs: z
    .array(z.object({ session: Id, requestId: RequestId, text: Text }))
    .min(1)
    .max(MAX_APPEND_BATCH),
});
export const SessionInput = z.object({ ...inCell, session: Id });
/** A runtime, the generation (worker, epoch) it runs: the reader of a traced Fence or Reconstruct. */
const RuntimeReader = z.object({ worker: Id, epoch: Epoch });
/**
 * Which spec step a read is, for the cell's trace (configureCell's trace): 'plan', a Dispatch read that
 * moves are planned on (BeginMove); a runtime's read of its generation (Fence). Absent: not traced.
 */
export const ReadGenInput = SessionInput.extend({
  tracedAs: z.union([z.literal('plan'), RuntimeReader]).optional(),
});
/** The sweep's batch: the sessions whose generations one script reads. */
export const ReadGensInput = z.object({ ...inCell, sessions: z.array(Id).min(1).max(1024) });
export const ReadReleaseInput = SessionInput.extend({
  fromSeq: z.number().int().nonnegative().default(0),
  /** For the cell's trace: the runtime that reconstructs from this read (Reconstruct). */
  tracedAs: RuntimeReader.optional(),
});
export const WorkerInput = z.object({ ...inCell, worker: Id });
export const ReadPlacedInput = WorkerInput.extend({ tracedAs: z.literal('plan').optional() });
export const ReadWorkerInput = WorkerInput.extend({ now: Now });
export const ConfigureCellInput = z
  .object({ ...inCell, audit: z.boolean(), trace: z.boolean().default(false) })
  .refine((i) => i.audit || !i.trace, 'a traced cell is audited too: trace needs audit');
export const ReadLoadViewInput = z.object({ ...inCell, now: Now });
