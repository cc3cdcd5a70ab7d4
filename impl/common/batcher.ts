/**
 * Natural batching: a request made while a batch is in flight waits for the next batch, which takes every
 * request waiting by then (at most `maxItems`; with `keyOf`, one per key: a session's runtimes never share
 * a release batch); an idle batcher sends what one turn of the event loop asked for at the end of that
 * turn (setImmediate), so a burst taken in one turn goes as one batch. So batches grow with load and cost
 * nothing when there is none. A request whose deadline passes while it waits is answered `Expired` and
 * never runs.
 */
export interface BatcherOptions<T> {
  maxItems: number;
  /** Items of one key never share a batch; absent: any items may. */
  keyOf?: (item: T) => string;
  now?: () => number;
}

/** A request that waited past its deadline: it was not run. */
export class Expired extends Error {
  override readonly name = 'Expired';
  constructor(readonly waitedMs: number) {
    super(`the deadline passed after ${waitedMs} ms waiting for a batch: not run`);
  }
}

interface Waiting<T, R> {
  item: T;
  deadline: number;
  since: number;
  resolve: (r: R) => void;
  reject: (err: unknown) => void;
}

export class Batcher<T, R> {
  private queue: Waiting<T, R>[] = [];
  private running = false;
  private readonly now: () => number;

  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly options: BatcherOptions<T>,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** No batch runs and none waits. */
  get idle(): boolean {
    return !this.running && this.queue.length === 0;
  }

  /**
   * Resolves with the item's result once its batch has run; rejects if the batch failed, or with `Expired`
   * if `deadline` (ms since the epoch) passed before a batch took it.
   */
  submit(item: T, deadline = Infinity): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, deadline, since: this.now(), resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.pump());
      }
    });
  }

  private async pump(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.take();
      if (batch.length === 0) continue;
      try {
        const results = await this.run(batch.map((q) => q.item));
        batch.forEach((q, i) => q.resolve(results[i]!));
      } catch (err) {
        for (const q of batch) q.reject(err);
      }
    }
    this.running = false;
  }

  /** The next batch: the waiting requests in order, the expired ones answered and left out. */
  private take(): Waiting<T, R>[] {
    const now = this.now();
    const { maxItems, keyOf } = this.options;
    const keys = new Set<string>();
    const batch: Waiting<T, R>[] = [];
    const later: Waiting<T, R>[] = [];
    for (const q of this.queue) {
      if (q.deadline <= now) {
        q.reject(new Expired(now - q.since));
        continue;
      }
      const key = keyOf?.(q.item);
      if (batch.length < maxItems && (key === undefined || !keys.has(key))) {
        if (key !== undefined) keys.add(key);
        batch.push(q);
      } else later.push(q);
    }
    this.queue = later;
    return batch;
  }
}
