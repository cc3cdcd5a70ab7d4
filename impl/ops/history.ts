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

/** `appended`: per session, how many inputs were appended; each must have been released. */
export function checkHistory(
  audit: AuditEntry[],
  appended: ReadonlyMap<string, number> = new Map(),
): HistorySummary {
  const current = new Map<string, { worker: string; epoch: number }>();
  const released = new Map<string, number>();
  const violations: Violation[] = [];
  let commits = 0;
  let releases = 0;
  for (const a of audit) {
    if (a.kind === 'commit') {
      commits++;
      current.set(a.session, { worker: a.worker, epoch: a.epoch });
      continue;
    }
    if (a.kind === 'close') {
      current.delete(a.session);
      continue;
    }
    releases++;
    const gen = current.get(a.session);
    const by = `${a.worker}@${a.epoch}`;
    if (!gen || gen.worker !== a.worker || gen.epoch !== a.epoch) {
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
  return { commits, releases, violations };
}
