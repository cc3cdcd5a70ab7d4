/**
 * Trace validation: is a recorded run of the real system a behaviour of spec/DHSched.tla?
 *
 * The trace is the cell's audit stream with tracing on (impl/store: every store step of a spec action
 * appends one entry in its own script, so the stream is the store's linear order). Each entry becomes one
 * event: the spec action it is, its parameters (real ids mapped to the model values of a model sized to
 * the run, spec.ts), and what it recorded, checked on the spec's state before and after. The validator
 * keeps every spec state the events so far can have led to (deduplicated by fingerprint) and takes each
 * event from each of them, with the checker's evaluator; an event is accepted when some state takes it.
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
import type { AdmissionRefusal, SeenGeneration, TraceEntry } from '../../impl/store/steps.js';
import { commitRefusal } from '../admission.js';
import { canonical } from '../graph.js';
import { type ActionName, type Arg, type RunConstants, SpecModel, type State } from './spec.js';

/** The run's ids: each becomes a model value (the i-th session s<i>, the i-th worker w<i>). */
export interface RunInfo {
  sessions: readonly string[];
  workers: readonly string[];
  /** Every worker's capacity (the spec's Cap). */
  capacity: number;
}

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

/** A spec action with its parameters, or a stuttering step (a read: the state is unchanged). */
interface Step {
  action?: { name: ActionName; args: Arg[] };
  /** What the trace recorded, on the spec's states before and after the step: why they disagree. */
  check?: (pre: Look, post: Look) => string | undefined;
}

interface Event {
  entryId: string;
  text: string;
  /** Each way the spec can take the event: a sequence of steps. */
  alternatives: Step[][];
  /**
   * Ways tried only when no alternative is taken with up to MAX_HIDDEN hidden steps: explanations that
   * would otherwise win by needing fewer hidden steps now and lose the behaviour that goes on.
   */
  fallback?: Step[][];
  /** Why the spec cannot take it at all (the trace itself shows it), instead of alternatives. */
  impossible?: string;
  /** The spec variables to show for a rejection. */
  shows: string[];
}

/** Plain views of a state's variables (graph.ts's canonical JSON). */
interface Look {
  gen(s: string): { w: string; e: number; ph: string };
  rt(w: string): { s: string; e: number; cur: number; ph: string }[];
  released(s: string): { seq: number; w: string; e: number };
  log(s: string): number[];
  lease(w: string): string;
  tokens(w: string): unknown[];
  draining(): string[];
}

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

/** Canonical JSON text: equal values, equal text. */
const show = (v: unknown) => JSON.stringify(canonical(v));
const LIVE = new Set(['assigned', 'claimed']);

/** The real ids as model values. */
class Names {
  private readonly toModel = new Map<string, string>();
  constructor(run: RunInfo) {
    run.sessions.forEach((s, i) => this.toModel.set(`s:${s}`, `s${i + 1}`));
    run.workers.forEach((w, i) => this.toModel.set(`w:${w}`, `w${i + 1}`));
  }
  session(id: string): string {
    return this.get('s', id, 'session');
  }
  worker(id: string): string {
    return this.get('w', id, 'worker');
  }
  private get(kind: string, id: string, what: string): string {
    const name = this.toModel.get(`${kind}:${id}`);
    if (!name) throw new Error(`the trace names ${what} ${id}, which is not one of the run's`);
    return name;
  }
}

/** Whether gen[s] is the generation a traced read saw (null: none). */
function sawGen(m: Look, s: string, seen: ModelGen | null): string | undefined {
  const g = m.gen(s);
  const same = seen === null ? g.ph === 'none' : g.w === seen.w && g.e === seen.e && g.ph === seen.ph;
  return same ? undefined : `gen[${s}] is ${show(g)}, the read saw ${seen ? show(seen) : 'none'}`;
}

interface ModelGen {
  w: string;
  e: number;
  ph: string;
}

const runtimeOf = (m: Look, w: string, s: string, e: number) => m.rt(w).find((r) => r.s === s && r.e === e);

/** A commit attempt: Commit(d) of the operation that BeginCreate or BeginMove began on replica d. */
interface Op {
  session: string;
  target: string;
  /** The move's source generation; null for a create. */
  from: { w: string; e: number } | null;
  /** The epoch it committed, or null when refused. */
  committed: number | null;
  /** Why it was refused, or null when it committed. */
  refusal: AdmissionRefusal | null;
  /** The event it is begun in: a plan read (move), the session's first commit or itself (create). */
  begin: number;
  d?: string;
}

/**
 * Whether the spec's state before a refused Commit(d) is what the store's refusal code says it saw, in the
 * order admitCommit checks: the guard on what was read (CONFLICT: it failed; any other code: it held),
 * then the target's lease, draining, and capacity.
 */
function refusedFor(op: Op, m: Look, cap: number): string | undefined {
  const g = m.gen(op.session);
  const w = op.target;
  const draining = m.draining().includes(w);
  const refusal = commitRefusal({
    gen: g,
    from: op.from,
    lease: m.lease(w),
    draining,
    tokens: m.tokens(w).length,
    cap,
  });
  // every worker of the run registered before its trace began: never UNKNOWN_WORKER
  return refusal === op.refusal
    ? undefined
    : `the store refused it ${op.refusal}; the spec has gen[${op.session}] = ${show(g)}, lease[${w}] ${m.lease(w)}, ` +
        `${draining ? '' : 'not '}draining, ${m.tokens(w).length} of ${cap} tokens`;
}

/** A commit of registerWorker: the worker taking back a session placed on it (a move to itself). */
const takenBack = (entry: TraceEntry): boolean => entry.kind === 'commit' && entry.from === entry.worker;

/** The trace's entries as events, and the constants of a model big enough for them. */
export function buildEvents(
  entries: readonly TraceEntry[],
  run: RunInfo,
): { events: Event[]; constants: RunConstants } {
  const names = new Names(run);
  // each commit attempt's operation: where it begins (see the module comment)
  const ops = new Map<number, Op>();
  const firstCommit = new Map<string, number>();
  entries.forEach((entry, i) => {
    if ((entry.kind !== 'commit' && entry.kind !== 'refused') || takenBack(entry)) return;
    const session = names.session(entry.session);
    const committed = entry.kind === 'commit';
    if (committed && !firstCommit.has(session)) firstCommit.set(session, i);
    // a commit names the epoch it made, a refusal the one read
    const read = committed ? entry.epoch - 1 : entry.epoch;
    ops.set(i, {
      session,
      target: names.worker(entry.worker),
      from: entry.from === '' ? null : { w: names.worker(entry.from), e: read },
      committed: committed ? entry.epoch : null,
      refusal: committed ? null : entry.code,
      begin: i,
    });
  });
  const lastPlan = new Map<string, number>();
  entries.forEach((entry, i) => {
    if (entry.kind === 'plan' && entry.seen && LIVE.has(entry.seen.phase)) {
      lastPlan.set(
        `${names.session(entry.session)} ${names.worker(entry.seen.worker)} ${entry.seen.epoch}`,
        i,
      );
    }
    const op = ops.get(i);
    if (!op) return;
    if (op.from === null) op.begin = Math.min(i, firstCommit.get(op.session) ?? i);
    else op.begin = lastPlan.get(`${op.session} ${op.from.w} ${op.from.e}`) ?? -1;
  });

  // replicas: each operation holds the lowest free one from its begin to its commit
  const beginsAt = new Map<number, Op[]>();
  for (const op of ops.values())
    if (op.begin >= 0) beginsAt.set(op.begin, [...(beginsAt.get(op.begin) ?? []), op]);
  const busy = new Set<string>();
  let dispatchers = 1;
  for (let i = 0; i < entries.length; i++) {
    for (const op of beginsAt.get(i) ?? []) {
      let k = 1;
      while (busy.has(`d${k}`)) k++;
      op.d = `d${k}`;
      busy.add(op.d);
      dispatchers = Math.max(dispatchers, k);
    }
    const op = ops.get(i);
    if (op?.d) busy.delete(op.d);
  }

  // request ids as the spec's request numbers: the seq of their first append
  const requests = new Map<string, number>();
  const lapsed = new Set<string>();
  /** What the trace showed already of each runtime (w/s/e). */
  const earlier = new Map<string, { claimed: boolean; tornDown: boolean; released: Set<number> }>();
  const earlierOf = (w: string, s: string, e: number) => {
    const key = `${w}/${s}/${e}`;
    let seen = earlier.get(key);
    if (!seen) earlier.set(key, (seen = { claimed: false, tornDown: false, released: new Set() }));
    return seen;
  };
  let maxEpoch = 1;
  let maxInputs = 0;
  // teardowns after which the worker's next runtime step is to register again (entry indices)
  const beforeRegister = new Set<number>();
  const registering = new Set<string>();
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.kind === 'register') registering.add(entry.worker);
    else if (entry.kind === 'claim' || entry.kind === 'reconstruct' || entry.kind === 'release')
      registering.delete(entry.worker);
    else if (entry.kind === 'teardown' && registering.has(entry.worker)) beforeRegister.add(i);
  }
  const events = entries.map((entry, i): Event => {
    const ev = eventOf(entry, i);
    // the creates begun here: before the event's own step
    const begins = (beginsAt.get(i) ?? [])
      .filter((op) => op.from === null)
      .map((op): Step => ({ action: { name: 'BeginCreate', args: [op.d!, op.session, op.target] } }));
    ev.alternatives = ev.alternatives.map((alt) => [...begins, ...alt]);
    ev.fallback = ev.fallback?.map((alt) => [...begins, ...alt]);
    return ev;
  });

  function eventOf(entry: TraceEntry, i: number): Event {
    const base = (text: string, shows: string[]): Event => ({
      entryId: entry.id,
      text,
      alternatives: [],
      shows,
    });
    switch (entry.kind) {
      case 'commit':
      case 'refused': {
        if (takenBack(entry)) {
          // part of the Register(w) traced just before it, in the same store step
          const [w, s, e] = runtime(entry);
          const want = show({ w, e, ph: 'assigned' });
          const ev = base(`Register(${w}) took ${s} back as epoch ${e}`, ['gen', 'tokens']);
          ev.alternatives = [
            [
              {
                check: (pre) =>
                  show(pre.gen(s)) === want ? undefined : `the spec has gen[${s}] = ${show(pre.gen(s))}`,
              },
            ],
          ];
          return ev;
        }
        const op = ops.get(i)!;
        const s = op.session;
        maxEpoch = Math.max(maxEpoch, (op.from?.e ?? 0) + 1);
        const what = op.from ? `a move of ${s} from ${op.from.w}@${op.from.e}` : `a create of ${s}`;
        const ev = base(
          `Commit of ${what} to ${op.target}: ${op.refusal ?? `committed epoch ${op.committed}`}`,
          ['gen', 'tokens', 'lease', 'draining'],
        );
        if (!op.d) {
          ev.impossible = `no traced read of gen[${s}] = ${op.from!.w}@${op.from!.e} before it: nothing it could be guarded by`;
          return ev;
        }
        const committed = (pre: Look, post: Look) => {
          const g = post.gen(s);
          if (op.refusal) return show(g) === show(pre.gen(s)) ? undefined : `the spec commits ${show(g)}`;
          const want = { w: op.target, e: op.committed, ph: 'assigned' };
          return show(g) === show(want)
            ? undefined
            : `the spec leaves gen[${s}] = ${show(g)}, the store committed ${show(want)}`;
        };
        ev.alternatives = [
          [
            {
              action: { name: 'Commit', args: [op.d] },
              check: (pre, post) =>
                (op.refusal ? refusedFor(op, pre, run.capacity) : undefined) ?? committed(pre, post),
            },
          ],
        ];
        return ev;
      }
      case 'plan': {
        const s = names.session(entry.session);
        const seen = modelGen(entry.seen);
        const ev = base(`read of gen[${s}] for a move: ${seen ? show(seen) : 'none'}`, ['gen', 'dop']);
        const moves = [...ops.values()].filter((op) => op.begin === i && op.from !== null);
        ev.alternatives = [
          [
            { check: (pre) => sawGen(pre, s, seen) },
            ...moves.map((op) => ({
              action: { name: 'BeginMove' as const, args: [op.d!, s, op.target] },
            })),
          ],
        ];
        return ev;
      }
      case 'claim': {
        const [w, s, e] = runtime(entry);
        const ev = base(`Claim(${w}, ${s}, ${e}): ${entry.outcome}`, ['gen', 'rt', 'inbox', 'tokens']);
        if (entry.outcome === 'again') {
          ev.alternatives = [
            [
              {
                check: (pre) =>
                  sawGen(pre, s, { w, e, ph: 'claimed' }) ??
                  (runtimeOf(pre, w, s, e) ? undefined : `${w} has no runtime (${s}, ${e}) claimed before`),
              },
            ],
          ];
          return ev;
        }
        const claimed = entry.outcome === 'claimed';
        const seen = earlierOf(w, s, e);
        const again = seen.claimed;
        if (claimed) seen.claimed = true;
        ev.alternatives = [
          [
            {
              action: { name: 'Claim', args: [w, s, e] },
              check: (_pre, post) =>
                !!runtimeOf(post, w, s, e) === claimed
                  ? undefined
                  : `the spec's claim is ${claimed ? 'stale' : 'claimed'}, the store's ${entry.outcome}`,
            },
          ],
        ];
        if (!claimed && again) {
          // a claim retried after its reply was lost (a failover), found stale because the session
          // closed or moved meanwhile: the runtime never started, and the store freed its token, as the
          // spec's runtime would stop (Fence) and tear down
          const teardown: Step = { action: { name: 'Teardown', args: [w, s, e] } };
          ev.alternatives.push([{ action: { name: 'Fence', args: [w, s, e] } }, teardown], [teardown]);
        }
        if (!claimed) {
          // an assignment read from the primary before a failover lost its commit: the store refuses it
          // and changes nothing, and the spec never had it (a stutter)
          ev.alternatives.push([
            {
              check: (pre) => {
                const g = pre.gen(s);
                return g.w === w && g.e === e ? `gen[${s}] is ${show(g)}: the claim is not stale` : undefined;
              },
            },
          ]);
        }
        return ev;
      }
      case 'reconstruct': {
        const [w, s, e] = runtime(entry);
        const ev = base(`Reconstruct(${w}, ${s}, ${e}) from cursor ${entry.seq}`, ['released', 'rt']);
        ev.alternatives = [
          [
            {
              action: { name: 'Reconstruct', args: [w, s, e] },
              check: (_pre, post) => {
                const r = runtimeOf(post, w, s, e);
                return r?.cur === entry.seq
                  ? undefined
                  : `the spec's runtime is ${show(r)}, the read saw cursor ${entry.seq}`;
              },
            },
          ],
          // the same read again, its first reply lost (Redis restarted under it): a stutter
          [
            {
              check: (pre) => {
                const r = runtimeOf(pre, w, s, e);
                return r?.ph === 'ready' && r.cur === entry.seq
                  ? undefined
                  : `the spec's runtime is ${show(r)}, not ready at cursor ${entry.seq}`;
              },
            },
          ],
        ];
        return ev;
      }
      case 'release': {
        const [w, s, e] = runtime(entry);
        maxInputs = Math.max(maxInputs, entry.seq);
        earlierOf(w, s, e).released.add(entry.seq);
        const ev = base(`ReleaseInput(${w}, ${s}, ${e}) of input ${entry.seq}`, [
          'gen',
          'released',
          'log',
          'rt',
        ]);
        ev.alternatives = [
          [
            {
              action: { name: 'ReleaseInput', args: [w, s, e] },
              check: (_pre, post) => {
                const r = post.released(s);
                const want = { e, seq: entry.seq, w };
                return show(r) === show(want)
                  ? undefined
                  : `the spec's released[${s}] is ${show(r)}, the store's ${show(want)}`;
              },
            },
          ],
        ];
        return ev;
      }
      case 'lost': {
        const [w, s, e] = runtime(entry);
        const ev = base(`ReleaseInput(${w}, ${s}, ${e}) of input ${entry.seq} refused`, [
          'gen',
          'released',
          'log',
          'rt',
        ]);
        // or a retry: the runtime released this input before, its reply lost (Redis restarted under
        // it), and the store answers a retry only while the runtime still holds authority
        const retry = earlierOf(w, s, e).released.has(entry.seq);
        const attempted = (pre: Look) => {
          const r = runtimeOf(pre, w, s, e);
          return r?.cur === entry.seq - 1 || (retry && r?.cur === entry.seq)
            ? undefined
            : `the spec's runtime is ${show(r)}, it asked for input ${entry.seq}`;
        };
        const stopped = (post: Look) =>
          runtimeOf(post, w, s, e)?.ph === 'stopping'
            ? undefined
            : `the spec's runtime (${s}, ${e}) does not stop`;
        // the spec's ReleaseInput needs the input appended; the store refuses on the generation first,
        // which is Fence's test
        ev.alternatives = [
          [
            {
              action: { name: 'ReleaseInput', args: [w, s, e] },
              check: (pre, post) => attempted(pre) ?? stopped(post),
            },
          ],
          [{ action: { name: 'Fence', args: [w, s, e] }, check: (pre) => attempted(pre) }],
          // sent after the worker's fence read and before its answer: the spec's runtime stopped at
          // that read (Fence is one step), and the store refuses this release for the same reason
          [
            {
              check: (pre) => {
                const r = runtimeOf(pre, w, s, e);
                if (r?.ph !== 'stopping')
                  return `the spec's runtime (${s}, ${e}) is ${show(r)}, not stopping`;
                const cursor = pre.released(s);
                const authority =
                  sawGen(pre, s, { w, e, ph: 'claimed' }) === undefined &&
                  (cursor.seq === entry.seq - 1 ||
                    (retry && show(cursor) === show({ e, seq: entry.seq, w })));
                return attempted(pre) ?? (authority ? `${w}@${e} still holds ${s}'s authority` : undefined);
              },
            },
          ],
        ];
        return ev;
      }
      case 'noinput': {
        const [w, s, e] = runtime(entry);
        const ev = base(`ReleaseInput(${w}, ${s}, ${e}) of input ${entry.seq}: not appended yet`, [
          'gen',
          'released',
          'log',
          'rt',
        ]);
        ev.alternatives = [
          [
            {
              check: (pre) => {
                const r = runtimeOf(pre, w, s, e);
                if (r?.ph !== 'ready' || r.cur !== entry.seq - 1)
                  return `the spec's runtime is ${show(r)}, it asked for input ${entry.seq}`;
                if (pre.released(s).seq !== entry.seq - 1)
                  return `released[${s}] is ${show(pre.released(s))}`;
                if (pre.log(s).length >= entry.seq)
                  return `log[${s}] already holds ${pre.log(s).length} inputs`;
                return sawGen(pre, s, { w, e, ph: 'claimed' });
              },
            },
          ],
        ];
        return ev;
      }
      case 'fence': {
        const [w, s, e] = runtime(entry);
        const seen = modelGen(entry.seen);
        const ev = base(`Fence(${w}, ${s}, ${e})'s read: gen[${s}] = ${seen ? show(seen) : 'none'}`, [
          'gen',
          'rt',
        ]);
        const exists = (m: Look) => (runtimeOf(m, w, s, e) ? undefined : `${w} has no runtime (${s}, ${e})`);
        if (seen?.w === w && seen.e === e && seen.ph === 'claimed') {
          ev.alternatives = [[{ check: (pre) => sawGen(pre, s, seen) ?? exists(pre) }]];
          return ev;
        }
        ev.alternatives = [
          [{ action: { name: 'Fence', args: [w, s, e] }, check: (pre) => sawGen(pre, s, seen) }],
          // a refused release stopped it since the worker looked
          [
            {
              check: (pre) =>
                sawGen(pre, s, seen) ??
                (runtimeOf(pre, w, s, e)?.ph === 'stopping'
                  ? undefined
                  : `the spec's runtime (${s}, ${e}) is not stopping`),
            },
          ],
        ];
        return ev;
      }
      case 'teardown': {
        const [w, s, e] = runtime(entry);
        const ev = base(`Teardown(${w}, ${s}, ${e})`, ['gen', 'rt', 'tokens', 'lease']);
        ev.alternatives = [[{ action: { name: 'Teardown', args: [w, s, e] } }]];
        const seen = earlierOf(w, s, e);
        if (seen.tornDown) {
          // the same teardown again, its first reply lost: it frees nothing more
          ev.alternatives.push([
            { check: (pre) => (runtimeOf(pre, w, s, e) ? `${w} still runs (${s}, ${e})` : undefined) },
          ]);
        }
        seen.tornDown = true;
        // after a lapsed lease the worker tears every runtime down before it registers again; the
        // spec's Register(w) frees those tokens at once, and none of them is read before it
        const beforeLapse: Step[] = [
          { check: (pre) => (pre.lease(w) === 'expired' ? undefined : `lease[${w}] is live`) },
        ];
        if (lapsed.has(w)) ev.alternatives.push(beforeLapse);
        // one before a registration with no lapse traced (lost on the worker's own clock while Redis
        // was away) only if no Fence explains it: else this lapse, needing no hidden step for the
        // next teardowns, would win over the fences and expire a lease the store kept live
        else if (beforeRegister.has(i)) ev.fallback = [beforeLapse];
        return ev;
      }
      case 'append': {
        const s = names.session(entry.session);
        maxInputs = Math.max(maxInputs, entry.seq);
        const key = `${s} ${entry.requestId}`;
        const known = requests.get(key);
        if (known === undefined && !entry.duplicate) requests.set(key, entry.seq);
        const r = known ?? entry.seq;
        const ev = base(
          `PushText(${s}, ${r}): request ${entry.requestId} at seq ${entry.seq}${entry.duplicate ? ', a duplicate' : ''}`,
          ['gen', 'log'],
        );
        if (known === undefined && entry.duplicate) {
          ev.impossible = `request ${entry.requestId} is a duplicate of an append the trace does not hold`;
          return ev;
        }
        ev.alternatives = [
          [
            {
              action: { name: 'PushText', args: [s, r] },
              check: (pre, post) => {
                const log = post.log(s);
                if (log[entry.seq - 1] !== r)
                  return `the spec's log[${s}] is ${show(log)}: request ${r} is not at seq ${entry.seq}`;
                const appended = log.length > pre.log(s).length;
                return appended === !entry.duplicate
                  ? undefined
                  : `the spec ${appended ? 'appends' : 'does not append'} it`;
              },
            },
          ],
        ];
        return ev;
      }
      case 'notlive': {
        const s = names.session(entry.session);
        const ev = base(`${entry.step} of ${s} refused: its phase is ${entry.phase}`, ['gen']);
        ev.alternatives = [
          [
            {
              check: (pre) =>
                pre.gen(s).ph === entry.phase ? undefined : `gen[${s}] is ${show(pre.gen(s))}`,
            },
          ],
        ];
        return ev;
      }
      case 'close': {
        const s = names.session(entry.session);
        const w = names.worker(entry.worker);
        const ev = base(`Close(${s}) of ${w}@${entry.epoch}`, ['gen']);
        ev.alternatives = [
          [
            {
              action: { name: 'Close', args: [s] },
              check: (pre) => {
                const g = pre.gen(s);
                return g.w === w && g.e === entry.epoch ? undefined : `the spec closes ${show(g)}`;
              },
            },
          ],
        ];
        return ev;
      }
      case 'drain': {
        const w = names.worker(entry.worker);
        const ev = base(`Drain(${w})${entry.started ? '' : ': already draining'}`, ['draining']);
        ev.alternatives = entry.started
          ? [[{ action: { name: 'Drain', args: [w] } }]]
          : [[{ check: (pre) => (pre.draining().includes(w) ? undefined : `${w} is not draining`) }]];
        return ev;
      }
      case 'undrain': {
        const w = names.worker(entry.worker);
        const ev = base(`Undrain(${w})${entry.ended ? '' : ': not draining'}`, ['draining']);
        ev.alternatives = entry.ended
          ? [[{ action: { name: 'Undrain', args: [w] } }]]
          : [[{ check: (pre) => (pre.draining().includes(w) ? `${w} is draining` : undefined) }]];
        return ev;
      }
      case 'register': {
        const w = names.worker(entry.worker);
        lapsed.delete(w);
        const ev = base(`Register(${w}): incarnation ${entry.incarnation}`, ['gen', 'lease', 'rt']);
        ev.alternatives = [[{ action: { name: 'Register', args: [w] } }]];
        return ev;
      }
      case 'lapse': {
        const w = names.worker(entry.worker);
        lapsed.add(w);
        const ev = base(`${w}'s lease renewal refused: expired`, ['lease']);
        ev.alternatives = [
          [{ check: (pre) => (pre.lease(w) === 'expired' ? undefined : `lease[${w}] is live`) }],
        ];
        return ev;
      }
    }
  }

  function runtime(e: { worker: string; session: string; epoch: number }): [string, string, number] {
    maxEpoch = Math.max(maxEpoch, e.epoch);
    return [names.worker(e.worker), names.session(e.session), e.epoch];
  }

  function modelGen(seen: SeenGeneration): ModelGen | null {
    if (!seen) return null;
    maxEpoch = Math.max(maxEpoch, seen.epoch);
    return { w: names.worker(seen.worker), e: seen.epoch, ph: seen.phase };
  }

  return {
    events,
    constants: {
      sessions: run.sessions.map((_, i) => `s${i + 1}`),
      workers: run.workers.map((_, i) => `w${i + 1}`),
      dispatchers: Array.from({ length: dispatchers }, (_, i) => `d${i + 1}`),
      cap: run.capacity,
      maxEpoch,
      maxInputs,
      maxFaults: MAX_HIDDEN * Math.max(1, events.length),
    },
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
  const { events, constants } = buildEvents(entries, run);
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
