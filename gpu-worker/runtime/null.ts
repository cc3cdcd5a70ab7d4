/**
 * The null backend: renders nothing, for control-plane benchmarks (scripts/bench-scale.ts) where a
 * worker hosts tens of thousands of sessions. Its state is the stamp, the cursor and whether it is
 * closed; it still checks that inputs arrive in seq order, once each, and never after `close`, so a
 * control-plane bug that would garble a real runtime's timeline still throws here. `process` returns
 * no frames; `idleFrame` is an empty frame stamped with the generation.
 */
import type { Input, MediaFrame, RuntimeBackend, RuntimeStamp, SessionRuntime } from './pipeline.js';

class NullSessionRuntime implements SessionRuntime {
  cursor = 0;
  private closed = false;

  constructor(private readonly stamp: RuntimeStamp) {}

  async restore(history: readonly Input[]): Promise<void> {
    for (const input of history) this.advance(input);
  }

  async process(input: Input): Promise<MediaFrame[]> {
    this.advance(input);
    return [];
  }

  idleFrame(): MediaFrame {
    this.expectOpen();
    return { ...this.stamp, seq: this.cursor, index: 0, ptsMs: 0, payload: Buffer.alloc(0) };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private expectOpen(): void {
    if (this.closed) throw new Error(`runtime ${this.stamp.session}/${this.stamp.epoch} is closed`);
  }

  private advance(input: Input): void {
    this.expectOpen();
    if (input.seq !== this.cursor + 1)
      throw new Error(`input ${input.seq} out of order after ${this.cursor}`);
    this.cursor = input.seq;
  }
}

export const nullRuntime: RuntimeBackend = {
  name: 'null',
  open: (stamp) => new NullSessionRuntime(stamp),
};
