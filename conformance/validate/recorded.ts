/**
 * A recorded run: what a real run's judgement needs (its ids, capacity, appended inputs and the cell's
 * trace as the audit stream held it), kept as JSON when a run is rejected or violates the history so it
 * can be judged again later (./scripts/trace-validate FILE) by a validator that has changed since.
 */
import fs from 'node:fs';
import { z } from 'zod';
import { type HistorySummary, checkHistory } from '../../harness/history.js';
import { type TraceEntry, traceEntries } from '../../impl/store/steps.js';
import { type RunInfo, type Verdict, validateTrace } from './validate.js';
import { issuesText } from '../../impl/common/issues.js';

const Id = z.string().min(1).max(200);
export const RecordedRun = z
  .object({
    seed: z.number().int().nonnegative().optional(),
    /** The scenario that ran (runs.ts), kept as it was drawn. */
    scenario: z.unknown().optional(),
    sessions: z.array(Id).min(1),
    workers: z.array(Id).min(1),
    capacity: z.number().int().positive(),
    /** Per session, the highest seq an append returned to a client. */
    appended: z.record(Id, z.number().int().nonnegative()),
    /** The audit stream's entries: [id, flat field list]. */
    stream: z.array(z.tuple([z.string(), z.array(z.string())])),
  })
  .strict();
export type RecordedRun = z.infer<typeof RecordedRun>;

export interface Judgement {
  trace: TraceEntry[];
  verdict: Verdict;
  history: HistorySummary;
}

/** The spec's verdict on the run's trace and the history checker's. */
export function judge(run: RecordedRun): Judgement {
  const trace = run.stream.flatMap(([id, flat]) => traceEntries(id, flat));
  const info: RunInfo = { sessions: run.sessions, workers: run.workers, capacity: run.capacity };
  return {
    trace,
    verdict: validateTrace(trace, info),
    history: checkHistory(
      trace,
      new Map(Object.entries(run.appended)),
      new Map(run.workers.map((w) => [w, run.capacity])),
    ),
  };
}

export function saveRecorded(file: string, run: RecordedRun): void {
  fs.writeFileSync(file, `${JSON.stringify(run)}\n`);
}

/** Reads a recorded run; a file that is not one is refused with what is wrong and where. */
export function loadRecorded(file: string): RecordedRun {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not a JSON file (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = RecordedRun.safeParse(json);
  if (!parsed.success) {
    const why = issuesText(parsed.error, 'file');
    throw new Error(`${file}: not a recorded run: ${why}`);
  }
  return parsed.data;
}
