/**
 * Natural batching: a request made while a batch is in flight waits for the next batch, which takes every
 * request waiting by then, one per key (a session's runtimes never share a batch) and at most `maxItems`;
 * an idle batcher sends a request at once. So batches grow with load and cost nothing when there is none.
 */
export class Batcher<T, R> {
  private queue: { item: T; resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  private running = false;

  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly keyOf: (item: T) => string,
    private readonly maxItems: number,
  ) {}

  /** Resolves with the item's result once its batch has run; rejects if the batch failed. */
  submit(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) void this.pump();
    });
  }

  private async pump(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      const keys = new Set<string>();
      const batch: typeof this.queue = [];
      const later: typeof this.queue = [];
      for (const q of this.queue) {
        const key = this.keyOf(q.item);
        if (batch.length < this.maxItems && !keys.has(key)) {
          keys.add(key);
          batch.push(q);
        } else later.push(q);
      }
      this.queue = later;
      try {
        const results = await this.run(batch.map((q) => q.item));
        batch.forEach((q, i) => q.resolve(results[i]!));
      } catch (err) {
        for (const q of batch) q.reject(err);
      }
    }
    this.running = false;
  }
}
