/**
 * Every key of the store, built in one place. All keys of a cell share the hash tag `{<cell>}`, so every
 * step touches one Redis Cluster slot. Ids are validated (schema.ts) to a charset without `{`, `}`, `:`
 * and `|`, so no two (kind, id) pairs build the same key.
 */
export interface CellKeys {
  readonly cell: string;
  /** Every key of the cell starts with it (tests clean up by it). */
  readonly prefix: string;
  /** Prefix of gen keys, for the scripts that read the generations of a set of sessions. */
  readonly genPrefix: string;
  /** Prefix of placed keys, for closeSession, which learns the owner only from gen. */
  readonly placedPrefix: string;
  /** Prefix of stream keys, for appendBatch and closeSession, which learn the owner only from gen. */
  readonly streamPrefix: string;
  /** Prefix of the per-worker keys read by readLoadView: lease, cap, tokens, placed, load. */
  /** Hash w, e, ph (assigned | claimed | closed): the session's generation. */
  gen(session: string): string;
  /** List of request ids in append order; seq = position, 1-based. */
  log(session: string): string;
  /** Hash requestId -> seq: makes appends idempotent. */
  req(session: string): string;
  /** List of input texts, parallel to log: the text of seq is at position seq. */
  text(session: string): string;
  /** Hash seq, w, e: the release cursor and the generation that moved it. */
  rel(session: string): string;
  /** Set of "<session>|<epoch>": one capacity token per generation placed on the worker. */
  tokens(worker: string): string;
  /** String: the worker's capacity. */
  cap(worker: string): string;
  /** Hash expiresAt (ms), incarnation, addr (the worker's RPC endpoint). */
  lease(worker: string): string;
  /** Stream of work for the worker: assignments (fields s, e), appended inputs (s, q), superseded generations (s, x). */
  stream(worker: string): string;
  /** Set of the live sessions whose generation names the worker. */
  placed(worker: string): string;
  /** Hash of the figures the worker publishes (advisory): runtimes, queued, at. */
  load(worker: string): string;
  /** Set of every worker that ever registered in the cell. */
  readonly workers: string;
  /** Hash of the cell's settings: audit (1 or 0). */
  readonly config: string;
  /** Stream of audited steps when config.audit = 1: commits (k, s, w, e, from), closes (k, s, w, e), releases (k, s, w, e, q). */
  readonly audit: string;
  /** Set of draining workers. */
  readonly draining: string;
  /** Set of live sessions (assigned or claimed) of the cell. */
  readonly sessions: string;
}

const byCell = new Map<string, CellKeys>();
/** Cells whose keys are kept made; past it the cache starts over (a client may name any cell). */
const CACHED_CELLS = 1024;

/** The keys of a cell, made once per cell: every step call needs them. */
export function cellKeys(cell: string): CellKeys {
  let keys = byCell.get(cell);
  if (!keys) {
    if (byCell.size >= CACHED_CELLS) byCell.clear();
    byCell.set(cell, (keys = keysOf(cell)));
  }
  return keys;
}

function keysOf(cell: string): CellKeys {
  const prefix = `dh:{${cell}}:`;
  return {
    cell,
    prefix,
    genPrefix: `${prefix}gen:`,
    placedPrefix: `${prefix}placed:`,
    streamPrefix: `${prefix}stream:`,
    gen: (s) => `${prefix}gen:${s}`,
    log: (s) => `${prefix}log:${s}`,
    req: (s) => `${prefix}req:${s}`,
    text: (s) => `${prefix}text:${s}`,
    rel: (s) => `${prefix}rel:${s}`,
    tokens: (w) => `${prefix}tokens:${w}`,
    cap: (w) => `${prefix}cap:${w}`,
    lease: (w) => `${prefix}lease:${w}`,
    stream: (w) => `${prefix}stream:${w}`,
    placed: (w) => `${prefix}placed:${w}`,
    load: (w) => `${prefix}load:${w}`,
    workers: `${prefix}workers`,
    config: `${prefix}config`,
    audit: `${prefix}audit`,
    draining: `${prefix}draining`,
    sessions: `${prefix}sessions`,
  };
}

/** A capacity token: one per generation (session, epoch). */
export function tokenOf(session: string, epoch: number): string {
  return `${session}|${epoch}`;
}
