/**
 * The history checker: reads a cell's audit stream (commits and releases in the order the store ran
 * them) and reports every release that breaks the safety properties of spec/DHSched.tla:
 * NoDualRelease, NoStaleRelease and InOrder, and, given what was appended, inputs never released.
 */
import type { AuditEntry } from '../store/steps.js';

export type ViolationKind = 'dual-release' | 'stale-release' | 'gap' | 'unreleased';

export interface Violation {
  kind: ViolationKind;
  session: string;
  seq: number;
  detail: string;
}

export interface HistorySummary {
  commits: number;
  releases: number;
  violations: Violation[];
}

type Release = Extract<AuditEntry, { kind: 'release' }>;
type Owner = { worker: string; epoch: number };

/** Each release of the history with the generation current when the store ran it (none once closed). */
export function releasesInContext(audit: AuditEntry[]): { release: Release; current: Owner | undefined }[] {
  const current = new Map<string, Owner>();
  const out: { release: Release; current: Owner | undefined }[] = [];
  for (const a of audit) {
    if (a.kind === 'commit') current.set(a.session, { worker: a.worker, epoch: a.epoch });
    else if (a.kind === 'close') current.delete(a.session);
    else out.push({ release: a, current: current.get(a.session) });
  }
  return out;
}

/** A release by a generation other than the current one (NoStaleRelease). */
export const isStale = (r: Release, current: Owner | undefined): boolean =>
  !current || current.worker !== r.worker || current.epoch !== r.epoch;

/** `appended`: per session, how many inputs were appended; each must have been released. */
export function checkHistory(
  audit: AuditEntry[],
  appended: ReadonlyMap<string, number> = new Map(),
): HistorySummary {
  const released = new Map<string, number>();
  const violations: Violation[] = [];
  const judged = releasesInContext(audit);
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
  const commits = audit.filter((a) => a.kind === 'commit').length;
  return { commits, releases: judged.length, violations };
}
