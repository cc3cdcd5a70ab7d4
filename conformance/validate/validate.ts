/**
 * Trace validation: is a recorded run of the real system a behaviour of spec/DHSched.tla?
 *
 * The trace is the cell's audit stream with tracing on (impl/store: every store step of a spec action
 * appends one entry in its own script, so the stream is the store's linear order). Each entry becomes one
 * event (events.ts): the spec action it is, its parameters (real ids mapped to the model values of a model
 * sized to the run, spec.ts), and what it recorded, checked on the spec's state before and after. The
 * validator keeps every spec state the events so far can have led to (deduplicated by fingerprint) and
 * takes each event from each of them, with the checker's evaluator; an event is accepted when some state
 * takes it.
 *
 * Steps the store does not see are inserted where an event needs them, as few as possible (at most
 * MAX_HIDDEN before one event): LeaseExpire (a lease runs out with time), Fence (the worker's periodic
 * sweep reads gen without a trace entry), Redeliver (an assignment reaching a worker twice, by RPC and by
 * stream). Emit, Crash and Abandon are never needed: the media sink is not observed (sink and staleFrame
 * keep their initial values), Register clears a crashed worker's runtimes, and an operation that never
 * commits is never begun. BeginCreate reads nothing, so it is placed as late as it can be: before its
 * commit attempt, or before the session's first commit for an attempt that came later (it then finds a
 * generation and fails). BeginMove is placed at the latest traced read of gen that saw what its commit
 * is guarded by; each begun operation holds a Dispatch replica of the model until its commit.
 */
import type { TraceEntry } from '../../impl/store/steps.js';
import { type Look, type RunInfo, type Step, buildEvents, show } from './events.js';
import { type ActionName, type Arg, type RunConstants, SpecModel, type State } from './spec.js';

export type { RunInfo };

export interface Rejection {
  /** The event's position among the run's events (0-based) and its first trace entry. */
  index: number;
  entryId: string;
  event: string;
  /** Why no candidate took it, one line per distinct reason. */
  reasons: string[];
  /** The variables the event touches, in each candidate state (at most 4 shown). */
  candidates: string[];
}

export interface Verdict {
  events: number;
  /** Events accepted before the first rejection (all of them when there is none). */
  accepted: number;
  /** Hidden steps the accepted behaviour needed. */
  hidden: number;
  /** The most spec states kept at once. */
  widest: number;
  rejection?: Rejection;
}

/** Hidden steps tried before one event, at most. */
export const MAX_HIDDEN = 3;

function look(m: SpecModel, state: State): Look {
  const at = (v: string, k: string) => (m.value(state, v) as Record<string, unknown>)[k];
  return {
    gen: (s) => at('gen', s) as ReturnType<Look['gen']>,
    rt: (w) => at('rt', w) as ReturnType<Look['rt']>,
    released: (s) => at('released', s) as ReturnType<Look['released']>,
    log: (s) => at('log', s) as number[],
    lease: (w) => at('lease', w) as string,
    tokens: (w) => at('tokens', w) as unknown[],
    draining: () => m.value(state, 'draining') as string[],
  };
}

/** The hidden steps that can be inserted before an event (see the module comment). */
function hiddenSteps(c: RunConstants): { name: ActionName; args: Arg[] }[] {
  const out: { name: ActionName; args: Arg[] }[] = c.workers.map((w) => ({ name: 'LeaseExpire', args: [w] }));
  for (const w of c.workers)
    for (const s of c.sessions)
      for (let e = 1; e <= c.maxEpoch; e++) {
        out.push({ name: 'Fence', args: [w, s, e] }, { name: 'Redeliver', args: [w, s, e] });
      }
  return out;
}

/** Validates a run's trace: the share of its events the spec accepts, and the first one it does not. */
export function validateTrace(entries: readonly TraceEntry[], run: RunInfo): Verdict {
  const { events, bounds } = buildEvents(entries, run);
  const constants: RunConstants = { ...bounds, maxFaults: MAX_HIDDEN * Math.max(1, events.length) };
  const m = new SpecModel(constants);
  const hidden = hiddenSteps(constants);
  let candidates = dedupe(m, m.initial());
  let hiddenTaken = 0;
  let widest = candidates.length;
  for (let i = 0; i < events.length; i++) {
    const ev = events[i]!;
    const reasons = new Set<string>();
    if (ev.impossible) reasons.add(ev.impossible);
    // the states reached from the candidates by `depth` hidden steps, made when first needed
    const frontiers = [candidates];
    const frontier = (depth: number): State[] => {
      while (frontiers.length <= depth) {
        const f = frontiers.at(-1)!;
        frontiers.push(
          dedupe(
            m,
            f.flatMap((s) => hidden.flatMap((h) => m.successors(s, h.name, h.args))),
          ),
        );
      }
      return frontiers[depth]!;
    };
    let taken: State[] = [];
    for (const ways of ev.impossible ? [] : [ev.alternatives, ev.fallback ?? []]) {
      for (let depth = 0; depth <= MAX_HIDDEN && ways.length > 0 && taken.length === 0; depth++) {
        taken = dedupe(
          m,
          frontier(depth).flatMap((s) => ways.flatMap((alt) => takeAll(m, s, alt, reasons))),
        );
        if (taken.length > 0) hiddenTaken += depth;
      }
    }
    if (taken.length === 0) {
      return {
        events: events.length,
        accepted: i,
        hidden: hiddenTaken,
        widest,
        rejection: {
          index: i,
          entryId: ev.entryId,
          event: ev.text,
          reasons: [...reasons],
          candidates: candidates
            .slice(0, 4)
            .map((s) => ev.shows.map((v) => `${v} = ${show(m.value(s, v))}`).join('\n    ')),
        },
      };
    }
    candidates = taken;
    widest = Math.max(widest, candidates.length);
  }
  return { events: events.length, accepted: events.length, hidden: hiddenTaken, widest };
}

/** The states after taking the steps from s in turn; what failed goes to `reasons`. */
function takeAll(m: SpecModel, s: State, steps: Step[], reasons: Set<string>): State[] {
  let states = [s];
  for (const step of steps) {
    const next: State[] = [];
    for (const pre of states) {
      const posts = step.action ? m.successors(pre, step.action.name, step.action.args) : [pre];
      if (posts.length === 0 && step.action) {
        reasons.add(`${step.action.name}(${step.action.args.join(', ')}) is not enabled`);
      }
      for (const post of posts) {
        const why = step.check?.(look(m, pre), look(m, post));
        if (why === undefined) next.push(post);
        else reasons.add(why);
      }
    }
    states = next;
  }
  return states;
}

function dedupe(m: SpecModel, states: State[]): State[] {
  const byKey = new Map<string, State>();
  for (const s of states) byKey.set(m.key(s), s);
  return [...byKey.values()];
}

/** A rejection as lines of text. */
export function describeRejection(r: Rejection): string {
  return [
    `event ${r.index} (trace entry ${r.entryId}): ${r.event}`,
    ...r.reasons.slice(0, 8).map((x) => `  ${x}`),
    ...(r.reasons.length > 8 ? [`  (and ${r.reasons.length - 8} more reasons)`] : []),
    ...r.candidates.map((c, i) => `  candidate ${i + 1}:\n    ${c}`),
  ].join('\n');
}
