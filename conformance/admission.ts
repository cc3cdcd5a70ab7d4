/**
 * The spec's Commit(d) conditions, GuardHolds(op) /\ Admits(op.to), read on a spec state's values in the
 * order admitCommit checks them: what the store answers a commit in that state.
 */
import type { AdmissionRefusal } from '../impl/store/steps.js';

export interface CommitConditions {
  /** gen[s] of the operation's session. */
  gen: { w: string; e: number; ph: string };
  /** The generation the operation read: null for a create. */
  from: { w: string; e: number } | null;
  /** lease[to], to ∈ draining, |tokens[to]| and Cap. */
  lease: string;
  draining: boolean;
  tokens: number;
  cap: number;
}

/** The refusal a commit gets in that state, undefined if it commits (the model's MaxEpoch aside). */
export function commitRefusal(c: CommitConditions): Exclude<AdmissionRefusal, 'UNKNOWN_WORKER'> | undefined {
  const live = c.gen.ph === 'assigned' || c.gen.ph === 'claimed';
  const guard = c.from ? live && c.gen.w === c.from.w && c.gen.e === c.from.e : c.gen.ph === 'none';
  if (!guard) return 'CONFLICT';
  if (c.lease !== 'live') return 'NOT_LIVE';
  if (c.draining) return 'DRAINING';
  if (c.tokens >= c.cap) return 'FULL';
  return undefined;
}
