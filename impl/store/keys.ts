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
  /**
   * Hash of the session's generation, w, e, ph (assigned | claimed | closed) and i (the claiming
   * incarnation), and of its release cursor beside it, so that a release reads both at once: rseq, rw,
   * re (the generation that moved it) and rfrom (where the batch that moved it began).
   */
  gen(session: string): string;
  /** List of (request id, text) pairs in append order: input seq at positions 2 seq - 1 and 2 seq (1-based). */
  log(session: string): string;
  /** Hash requestId -> seq: makes appends idempotent. */
  req(session: string): string;
  /** Set of "<session>|<epoch>": one capacity token per generation placed on the worker. */
  tokens(worker: string): string;
  /** String: the worker's capacity. */
  cap(worker: string): string;
  /** Hash expiresAt (ms), incarnation, addr (the worker's RPC endpoint). */
  lease(worker: string): string;
  /**
   * Stream of work for the worker: assignments (fields s, e), superseded generations (s, x), and appended
   * inputs (a: "s seq s seq ...", the last seq each session of one append batch got).
   */
  stream(worker: string): string;
  /** Set of the live sessions whose generation names the worker. */
  placed(worker: string): string;
  /** Hash of the figures the worker publishes (advisory): runtimes, queued, at. */
  load(worker: string): string;
  /** Set of every worker that ever registered in the cell. */
  readonly workers: string;
  /** Hash of the cell's settings: audit (1 or 0). */
  readonly config: string;
  /**
   * Stream of audited steps when config.audit = 1: commits (k, s, w, e, from), closes (k, s, w, e), and
   * one entry per release batch (k = releases, w, a = "s e first last ..."); older streams hold one
   * entry per release (k = release, s, w, e, q).
   */
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
