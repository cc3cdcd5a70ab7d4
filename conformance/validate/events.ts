/**
 * A recorded trace as the validator's events (validate.ts): each trace entry becomes one event, made by
 * the handler of its kind, grouped below by the spec action it serves. An event is the action with its
 * parameters (the run's ids as model values) and checks of what the store recorded on the spec's states.
 * The handlers share one Context: the run's names and commit attempts, and what the entries before showed.
 */
import type { AdmissionRefusal, SeenGeneration, TraceEntry } from '../../impl/store/steps.js';
import { commitRefusal } from '../admission.js';
import { canonical } from '../graph.js';
import type { ActionName, Arg, RunConstants } from './spec.js';

/** The run's ids: each becomes a model value (the i-th session s<i>, the i-th worker w<i>). */
export interface RunInfo {
  sessions: readonly string[];
  workers: readonly string[];
  /** Every worker's capacity (the spec's Cap). */
  capacity: number;
}

/** A spec action with its parameters, or a stuttering step (a read: the state is unchanged). */
export interface Step {
  action?: { name: ActionName; args: Arg[] };
  /** What the trace recorded, on the spec's states before and after the step: why they disagree. */
  check?: (pre: Look, post: Look) => string | undefined;
}

export interface Event {
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
export interface Look {
  gen(s: string): { w: string; e: number; ph: string };
  rt(w: string): { s: string; e: number; cur: number; ph: string }[];
  released(s: string): { seq: number; w: string; e: number };
  log(s: string): number[];
  lease(w: string): string;
  tokens(w: string): unknown[];
  draining(): string[];
}

/** Canonical JSON text: equal values, equal text. */
export const show = (v: unknown) => JSON.stringify(canonical(v));
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

/**
 * Each commit attempt's operation, by its entry's index, where it begins (see validate.ts's module
 * comment) and the replica it holds; the operations begun at each entry; how many replicas there are.
 */
function operations(
  entries: readonly TraceEntry[],
  names: Names,
): { ops: Map<number, Op>; beginsAt: Map<number, Op[]>; dispatchers: number } {
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
  return { ops, beginsAt, dispatchers };
}

/** The teardowns after which the worker's next runtime step is to register again (entry indices). */
function teardownsBeforeRegister(entries: readonly TraceEntry[]): Set<number> {
  const beforeRegister = new Set<number>();
  const registering = new Set<string>();
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.kind === 'register') registering.add(entry.worker);
    else if (entry.kind === 'claim' || entry.kind === 'reconstruct' || entry.kind === 'release')
      registering.delete(entry.worker);
    else if (entry.kind === 'teardown' && registering.has(entry.worker)) beforeRegister.add(i);
  }
  return beforeRegister;
}

/** What the trace showed already of one runtime. */
interface RuntimeSeen {
  claimed: boolean;
  tornDown: boolean;
  released: Set<number>;
}

/** What the handlers share: the run's names and commit attempts, and what the entries so far showed. */
interface Context {
  readonly names: Names;
  /** Every worker's capacity. */
  readonly capacity: number;
  /** Each commit attempt's operation, by its entry's index. */
  readonly ops: ReadonlyMap<number, Op>;
  /** The teardowns after which the worker's next runtime step is to register again (entry indices). */
  readonly beforeRegister: ReadonlySet<number>;
  /** Request ids as the spec's request numbers: the seq of their first append. */
  readonly requests: Map<string, number>;
  /** The workers whose lease renewal was refused since they last registered. */
  readonly lapsed: Set<string>;
  /** What the trace showed already of each runtime (w/s/e). */
  readonly earlier: Map<string, RuntimeSeen>;
  /** The largest epoch and seq the entries so far need the model to hold. */
  maxEpoch: number;
  maxInputs: number;
}

type Kind = TraceEntry['kind'];
/** The trace entries of kind K. */
type EntryOf<K extends Kind> = TraceEntry & { kind: K };
/** The event of the i-th trace entry, of kind K. */
type Handler<K extends Kind> = (entry: EntryOf<K>, ctx: Context, i: number) => Event;

const newEvent = (entry: TraceEntry, text: string, shows: string[]): Event => ({
  entryId: entry.id,
  text,
  alternatives: [],
  shows,
});

/** The runtime an entry names, as model values; the model's epochs go up to its epoch. */
function runtime(
  ctx: Context,
  e: { worker: string; session: string; epoch: number },
): [string, string, number] {
  ctx.maxEpoch = Math.max(ctx.maxEpoch, e.epoch);
  return [ctx.names.worker(e.worker), ctx.names.session(e.session), e.epoch];
}

/** The generation a read saw, as model values; the model's epochs go up to its epoch. */
function modelGen(ctx: Context, seen: SeenGeneration): ModelGen | null {
  if (!seen) return null;
  ctx.maxEpoch = Math.max(ctx.maxEpoch, seen.epoch);
  return { w: ctx.names.worker(seen.worker), e: seen.epoch, ph: seen.phase };
}

function earlierOf(ctx: Context, w: string, s: string, e: number): RuntimeSeen {
  const key = `${w}/${s}/${e}`;
  let seen = ctx.earlier.get(key);
  if (!seen) ctx.earlier.set(key, (seen = { claimed: false, tornDown: false, released: new Set() }));
  return seen;
}

// BeginMove(d, s, w): the read of gen it makes

const beginMove: Handler<'plan'> = (entry, ctx, i) => {
  const s = ctx.names.session(entry.session);
  const seen = modelGen(ctx, entry.seen);
  const ev = newEvent(entry, `read of gen[${s}] for a move: ${seen ? show(seen) : 'none'}`, ['gen', 'dop']);
  const moves = [...ctx.ops.values()].filter((op) => op.begin === i && op.from !== null);
  ev.alternatives = [
    [
      { check: (pre) => sawGen(pre, s, seen) },
      ...moves.map((op) => ({
        action: { name: 'BeginMove' as const, args: [op.d!, s, op.target] },
      })),
    ],
  ];
  return ev;
};

// Commit(d): committed or refused

const commit: Handler<'commit' | 'refused'> = (entry, ctx, i) => {
  const op = ctx.ops.get(i)!;
  const s = op.session;
  ctx.maxEpoch = Math.max(ctx.maxEpoch, (op.from?.e ?? 0) + 1);
  const what = op.from ? `a move of ${s} from ${op.from.w}@${op.from.e}` : `a create of ${s}`;
  const ev = newEvent(
    entry,
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
          (op.refusal ? refusedFor(op, pre, ctx.capacity) : undefined) ?? committed(pre, post),
      },
    ],
  ];
  return ev;
};

// Close(s)

const close: Handler<'close'> = (entry, ctx) => {
  const s = ctx.names.session(entry.session);
  const w = ctx.names.worker(entry.worker);
  const ev = newEvent(entry, `Close(${s}) of ${w}@${entry.epoch}`, ['gen']);
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
};

// Drain(w), Undrain(w)

const drain: Handler<'drain'> = (entry, ctx) => {
  const w = ctx.names.worker(entry.worker);
  const ev = newEvent(entry, `Drain(${w})${entry.started ? '' : ': already draining'}`, ['draining']);
  ev.alternatives = entry.started
    ? [[{ action: { name: 'Drain', args: [w] } }]]
    : [[{ check: (pre) => (pre.draining().includes(w) ? undefined : `${w} is not draining`) }]];
  return ev;
};

const undrain: Handler<'undrain'> = (entry, ctx) => {
  const w = ctx.names.worker(entry.worker);
  const ev = newEvent(entry, `Undrain(${w})${entry.ended ? '' : ': not draining'}`, ['draining']);
  ev.alternatives = entry.ended
    ? [[{ action: { name: 'Undrain', args: [w] } }]]
    : [[{ check: (pre) => (pre.draining().includes(w) ? `${w} is draining` : undefined) }]];
  return ev;
};

// PushText(s, r), and an append or a close refused (a stutter)

const pushText: Handler<'append'> = (entry, ctx) => {
  const s = ctx.names.session(entry.session);
  ctx.maxInputs = Math.max(ctx.maxInputs, entry.seq);
  const key = `${s} ${entry.requestId}`;
  const known = ctx.requests.get(key);
  if (known === undefined && !entry.duplicate) ctx.requests.set(key, entry.seq);
  const r = known ?? entry.seq;
  const ev = newEvent(
    entry,
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
};

const notLive: Handler<'notlive'> = (entry, ctx) => {
  const s = ctx.names.session(entry.session);
  const ev = newEvent(entry, `${entry.step} of ${s} refused: its phase is ${entry.phase}`, ['gen']);
  ev.alternatives = [
    [
      {
        check: (pre) => (pre.gen(s).ph === entry.phase ? undefined : `gen[${s}] is ${show(pre.gen(s))}`),
      },
    ],
  ];
  return ev;
};

// Claim(w, s, e)

const claim: Handler<'claim'> = (entry, ctx) => {
  const [w, s, e] = runtime(ctx, entry);
  const ev = newEvent(entry, `Claim(${w}, ${s}, ${e}): ${entry.outcome}`, ['gen', 'rt', 'inbox', 'tokens']);
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
  const seen = earlierOf(ctx, w, s, e);
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
};

// Reconstruct(w, s, e)

const reconstruct: Handler<'reconstruct'> = (entry, ctx) => {
  const [w, s, e] = runtime(ctx, entry);
  const ev = newEvent(entry, `Reconstruct(${w}, ${s}, ${e}) from cursor ${entry.seq}`, ['released', 'rt']);
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
};

// ReleaseInput(w, s, e): released, refused (lost authority), or nothing at seq yet

const releaseInput: Handler<'release'> = (entry, ctx) => {
  const [w, s, e] = runtime(ctx, entry);
  ctx.maxInputs = Math.max(ctx.maxInputs, entry.seq);
  earlierOf(ctx, w, s, e).released.add(entry.seq);
  const ev = newEvent(entry, `ReleaseInput(${w}, ${s}, ${e}) of input ${entry.seq}`, [
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
};

const releaseLost: Handler<'lost'> = (entry, ctx) => {
  const [w, s, e] = runtime(ctx, entry);
  const ev = newEvent(entry, `ReleaseInput(${w}, ${s}, ${e}) of input ${entry.seq} refused`, [
    'gen',
    'released',
    'log',
    'rt',
  ]);
  // or a retry: the runtime released this input before, its reply lost (Redis restarted under
  // it), and the store answers a retry only while the runtime still holds authority
  const retry = earlierOf(ctx, w, s, e).released.has(entry.seq);
  const attempted = (pre: Look) => {
    const r = runtimeOf(pre, w, s, e);
    return r?.cur === entry.seq - 1 || (retry && r?.cur === entry.seq)
      ? undefined
      : `the spec's runtime is ${show(r)}, it asked for input ${entry.seq}`;
  };
  const stopped = (post: Look) =>
    runtimeOf(post, w, s, e)?.ph === 'stopping' ? undefined : `the spec's runtime (${s}, ${e}) does not stop`;
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
          if (r?.ph !== 'stopping') return `the spec's runtime (${s}, ${e}) is ${show(r)}, not stopping`;
          const cursor = pre.released(s);
          const authority =
            sawGen(pre, s, { w, e, ph: 'claimed' }) === undefined &&
            (cursor.seq === entry.seq - 1 || (retry && show(cursor) === show({ e, seq: entry.seq, w })));
          return attempted(pre) ?? (authority ? `${w}@${e} still holds ${s}'s authority` : undefined);
        },
      },
    ],
  ];
  return ev;
};

const releaseNotAppended: Handler<'noinput'> = (entry, ctx) => {
  const [w, s, e] = runtime(ctx, entry);
  const ev = newEvent(entry, `ReleaseInput(${w}, ${s}, ${e}) of input ${entry.seq}: not appended yet`, [
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
          if (pre.released(s).seq !== entry.seq - 1) return `released[${s}] is ${show(pre.released(s))}`;
          if (pre.log(s).length >= entry.seq) return `log[${s}] already holds ${pre.log(s).length} inputs`;
          return sawGen(pre, s, { w, e, ph: 'claimed' });
        },
      },
    ],
  ];
  return ev;
};

// Fence(w, s, e): its read of gen

const fence: Handler<'fence'> = (entry, ctx) => {
  const [w, s, e] = runtime(ctx, entry);
  const seen = modelGen(ctx, entry.seen);
  const ev = newEvent(entry, `Fence(${w}, ${s}, ${e})'s read: gen[${s}] = ${seen ? show(seen) : 'none'}`, [
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
};

// Teardown(w, s, e)

const teardown: Handler<'teardown'> = (entry, ctx, i) => {
  const [w, s, e] = runtime(ctx, entry);
  const ev = newEvent(entry, `Teardown(${w}, ${s}, ${e})`, ['gen', 'rt', 'tokens', 'lease']);
  ev.alternatives = [[{ action: { name: 'Teardown', args: [w, s, e] } }]];
  const seen = earlierOf(ctx, w, s, e);
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
  if (ctx.lapsed.has(w)) ev.alternatives.push(beforeLapse);
  // one before a registration with no lapse traced (lost on the worker's own clock while Redis
  // was away) only if no Fence explains it: else this lapse, needing no hidden step for the
  // next teardowns, would win over the fences and expire a lease the store kept live
  else if (ctx.beforeRegister.has(i)) ev.fallback = [beforeLapse];
  return ev;
};

// Register(w), the sessions it takes back, and the refused renewal of an expired lease

const register: Handler<'register'> = (entry, ctx) => {
  const w = ctx.names.worker(entry.worker);
  ctx.lapsed.delete(w);
  const ev = newEvent(entry, `Register(${w}): incarnation ${entry.incarnation}`, ['gen', 'lease', 'rt']);
  ev.alternatives = [[{ action: { name: 'Register', args: [w] } }]];
  return ev;
};

/** Part of the Register(w) traced just before it, in the same store step. */
const registerTookBack: Handler<'commit'> = (entry, ctx) => {
  const [w, s, e] = runtime(ctx, entry);
  const want = show({ w, e, ph: 'assigned' });
  const ev = newEvent(entry, `Register(${w}) took ${s} back as epoch ${e}`, ['gen', 'tokens']);
  ev.alternatives = [
    [
      {
        check: (pre) =>
          show(pre.gen(s)) === want ? undefined : `the spec has gen[${s}] = ${show(pre.gen(s))}`,
      },
    ],
  ];
  return ev;
};

const lapse: Handler<'lapse'> = (entry, ctx) => {
  const w = ctx.names.worker(entry.worker);
  ctx.lapsed.add(w);
  const ev = newEvent(entry, `${w}'s lease renewal refused: expired`, ['lease']);
  ev.alternatives = [[{ check: (pre) => (pre.lease(w) === 'expired' ? undefined : `lease[${w}] is live`) }]];
  return ev;
};

/** Each trace kind's handler: a kind without one is a type error. */
const handlers: { [K in Kind]: Handler<K> } = {
  plan: beginMove,
  commit: (entry, ctx, i) => (takenBack(entry) ? registerTookBack(entry, ctx, i) : commit(entry, ctx, i)),
  refused: commit,
  close,
  drain,
  undrain,
  append: pushText,
  notlive: notLive,
  claim,
  reconstruct,
  release: releaseInput,
  lost: releaseLost,
  noinput: releaseNotAppended,
  fence,
  teardown,
  register,
  lapse,
};

const eventOf = <K extends Kind>(entry: EntryOf<K>, ctx: Context, i: number): Event =>
  handlers[entry.kind](entry, ctx, i);

/** The trace's entries as events, and the bounds of a model big enough for them. */
export function buildEvents(
  entries: readonly TraceEntry[],
  run: RunInfo,
): { events: Event[]; bounds: Omit<RunConstants, 'maxFaults'> } {
  const names = new Names(run);
  const { ops, beginsAt, dispatchers } = operations(entries, names);
  const ctx: Context = {
    names,
    capacity: run.capacity,
    ops,
    beforeRegister: teardownsBeforeRegister(entries),
    requests: new Map(),
    lapsed: new Set(),
    earlier: new Map(),
    maxEpoch: 1,
    maxInputs: 0,
  };
  const events = entries.map((entry, i): Event => {
    const ev = eventOf(entry, ctx, i);
    // the creates begun here: before the event's own step
    const begins = (beginsAt.get(i) ?? [])
      .filter((op) => op.from === null)
      .map((op): Step => ({ action: { name: 'BeginCreate', args: [op.d!, op.session, op.target] } }));
    ev.alternatives = ev.alternatives.map((alt) => [...begins, ...alt]);
    ev.fallback = ev.fallback?.map((alt) => [...begins, ...alt]);
    return ev;
  });
  return {
    events,
    bounds: {
      sessions: run.sessions.map((_, i) => `s${i + 1}`),
      workers: run.workers.map((_, i) => `w${i + 1}`),
      dispatchers: Array.from({ length: dispatchers }, (_, i) => `d${i + 1}`),
      cap: run.capacity,
      maxEpoch: ctx.maxEpoch,
      maxInputs: ctx.maxInputs,
    },
  };
}
