/**
 * The history checker: reads a cell's audit stream (commits and releases in the order the store ran
 * them) and reports every release that breaks the safety properties of spec/DHSched.tla:
 * NoDualRelease, NoStaleRelease and InOrder, and, given what was appended, inputs never released.
 * Given the workers' capacities and the cell's trace (configureCell's trace), it also replays the
 * capacity tokens and reports every point where a worker held more than its capacity
 * (NoCapacityOvershoot).
 */
import type { AuditEntry, TraceEntry } from '../impl/store/steps.js';

export const violationKinds = ['dual-release', 'stale-release', 'gap', 'unreleased', 'overshoot'] as const;
export type ViolationKind = (typeof violationKinds)[number];

export interface Violation {
  kind: ViolationKind;
  session: string;
  /** The input's seq; for an overshoot, how many tokens (or runtimes) the worker held. */
  seq: number;
  detail: string;
  /** The worker of an overshoot. */
  worker?: string;
}

export interface HistorySummary {
  commits: number;
  releases: number;
  violations: Violation[];
}

type Release = Extract<AuditEntry, { kind: 'release' }>;
type Owner = { worker: string; epoch: number };

/** Each release of the history with the generation current when the store ran it (none once closed). */
export function releasesInContext(
  audit: readonly TraceEntry[],
): { release: Release; current: Owner | undefined }[] {
  const current = new Map<string, Owner>();
  const out: { release: Release; current: Owner | undefined }[] = [];
  for (const a of audit) {
    if (a.kind === 'commit') current.set(a.session, { worker: a.worker, epoch: a.epoch });
    else if (a.kind === 'close') current.delete(a.session);
    else if (a.kind === 'release') out.push({ release: a, current: current.get(a.session) });
  }
  return out;
}

/** A release by a generation other than the current one (NoStaleRelease). */
export const isStale = (r: Release, current: Owner | undefined): boolean =>
  !current || current.worker !== r.worker || current.epoch !== r.epoch;

/**
 * NoCapacityOvershoot over a trace, replaying tokens[w] as the Lua scripts change it: a commit adds
 * token (s, e) to its worker (admitCommit), a stale claim and a teardown remove it if held (claim,
 * teardown), a registration clears the worker's tokens (registerWorker). A close frees nothing: the
 * owner's teardown does. Workers without a capacity in `capacities` are not judged. An audit stream
 * without tracing has no teardowns, so only a trace can be judged.
 */
export function overshoots(
  entries: readonly TraceEntry[],
  capacities: ReadonlyMap<string, number>,
): Violation[] {
  const tokens = new Map<string, Set<string>>();
  const held = (w: string) => {
    let set = tokens.get(w);
    if (!set) tokens.set(w, (set = new Set()));
    return set;
  };
  const out: Violation[] = [];
  for (const t of entries) {
    if (t.kind === 'commit') {
      const set = held(t.worker).add(`${t.session}|${t.epoch}`);
      const cap = capacities.get(t.worker);
      if (cap !== undefined && set.size > cap) {
        const detail = `${t.worker} holds ${set.size} tokens, capacity ${cap}, after ${t.session}@${t.epoch}`;
        out.push({ kind: 'overshoot', session: t.session, seq: set.size, worker: t.worker, detail });
      }
    } else if (t.kind === 'teardown' || (t.kind === 'claim' && t.outcome === 'stale')) {
      held(t.worker).delete(`${t.session}|${t.epoch}`);
    } else if (t.kind === 'register') {
      held(t.worker).clear();
    }
  }
  return out;
}

/**
 * `entries`: the cell's audit stream, or its trace. `appended`: per session, how many inputs were
 * appended; each must have been released. `capacities`: per worker, its capacity; given, the trace's
 * tokens are judged too (`overshoots`).
 */
export function checkHistory(
  entries: readonly TraceEntry[],
  appended: ReadonlyMap<string, number> = new Map(),
  capacities?: ReadonlyMap<string, number>,
): HistorySummary {
  const released = new Map<string, number>();
  const violations: Violation[] = [];
  const judged = releasesInContext(entries);
  for (const { release: a, current: gen } of judged) {
    const by = `${a.worker}@${a.epoch}`;
    if (isStale(a, gen)) {
      const now = gen ? `${gen.worker}@${gen.epoch}` : 'none';
      violations.push({
        kind: 'stale-release',
        session: a.session,
        seq: a.seq,
        detail: `by ${by}, current ${now}`,
      });
    }
    const last = released.get(a.session) ?? 0;
    if (a.seq <= last) {
      violations.push({ kind: 'dual-release', session: a.session, seq: a.seq, detail: `again by ${by}` });
    } else if (a.seq !== last + 1) {
      violations.push({ kind: 'gap', session: a.session, seq: a.seq, detail: `after ${last}, by ${by}` });
    }
    released.set(a.session, Math.max(last, a.seq));
  }
  for (const [session, n] of appended) {
    const last = released.get(session) ?? 0;
    for (let seq = last + 1; seq <= n; seq++) {
      violations.push({ kind: 'unreleased', session, seq, detail: `released up to ${last} of ${n}` });
    }
  }
  if (capacities) violations.push(...overshoots(entries, capacities));
  const commits = entries.filter((a) => a.kind === 'commit').length;
  return { commits, releases: judged.length, violations };
}
