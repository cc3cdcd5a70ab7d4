/**
 * The store's status codes. The Lua scripts return them as negative integers (every script starts with
 * the Lua table `Code` built from this enum); a negative reply means the script wrote nothing. The
 * codes from -100 on are raised by the TypeScript wrappers, never by a script.
 */
export enum StoreCode {
  /** The generation is not the one the caller read (admitCommit's guard). */
  CONFLICT = -1,
  /** The target worker holds as many tokens as its capacity. */
  FULL = -2,
  /** The worker's lease has expired at `now`. */
  NOT_LIVE = -3,
  /** The target worker is draining: it takes no new placements. */
  DRAINING = -4,
  /** The session has no generation in this cell. */
  NO_SESSION = -5,
  /** The session is closed. */
  CLOSED = -6,
  /** The caller's generation is not current and claimed, or the release cursor is not at seq - 1. */
  LOST_AUTHORITY = -7,
  /** Nothing has been appended at this seq yet. */
  NO_INPUT = -8,
  /** registerWorker: the worker's lease is still live. */
  LEASE_LIVE = -9,
  /** renewLease: a newer incarnation of the worker has registered. */
  STALE_INCARNATION = -11,
  /** The worker has never registered in this cell. */
  UNKNOWN_WORKER = -12,
  /** appendInput: the session's inputs appended and not yet released reached the limit. */
  QUEUE_FULL = -13,
  /** An input failed validation; nothing was sent to the store. */
  INVALID_INPUT = -100,
  /** The step ran, but fewer replicas than `waitReplicas` acknowledged it within the timeout. */
  NOT_DURABLE = -101,
}

/** A refusal by the store, or by a wrapper before or after it. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreCode,
    message: string,
  ) {
    super(message);
  }
}

/** The one place a code becomes an error. */
export function storeError(code: StoreCode, step: string, detail?: string): StoreError {
  const name = StoreCode[code] ?? `code ${code}`;
  return new StoreError(code, `${step}: ${name}${detail ? ` (${detail})` : ''}`);
}

export function isStoreError(err: unknown, ...codes: StoreCode[]): err is StoreError {
  return err instanceof StoreError && (codes.length === 0 || codes.includes(err.code));
}

/** The Lua table that opens every script: `Code.FULL` is -2. Only the scripts' own codes. */
export function luaCodeTable(): string {
  const entries = Object.entries(StoreCode)
    .filter((e): e is [string, number] => typeof e[1] === 'number' && e[1] > StoreCode.INVALID_INPUT)
    .map(([k, v]) => `${k} = ${v}`);
  return [
    `local Code = { ${entries.join(', ')} }`,
    `setmetatable(Code, { __index = function(_, k) error('unknown status code ' .. tostring(k)) end })`,
  ].join('\n');
}
