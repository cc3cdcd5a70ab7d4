/**
 * The breadth-first queue of states to explore, in FIFO order, within a memory budget. Each state
 * is encoded (codec.ts) as it enters, into the block being written; a full block is kept in memory
 * while the blocks in memory fit the budget, and written to a spill file otherwise. States leave
 * decoded one at a time from the oldest block (a spill file is deleted once read back), or, when
 * no block is left, from the block being written, which is then swapped for an empty one.
 *
 * No state is kept decoded beyond the one being explored: encoding them all costs less than it
 * saves, as states then die young instead of being promoted to the old generation of the heap.
 *
 * The parallel search keeps states as bytes only (pushRaw/shiftRaw): each one encoded on its own,
 * by encodeState or a worker, and never decoded here. A queue is used one way or the other.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StateReader, StateWriter } from '../values/codec.js';
import type { Value } from '../values/value.js';

export interface QueuedState {
  id: number;
  level: number;
  s: Value[];
}

/** A state as pushRaw takes it and shiftRaw gives it. */
export interface RawQueuedState {
  id: number;
  level: number;
  /** The state, as encodeState writes it. */
  bytes: Uint8Array;
}

export interface QueueOptions {
  /** Bytes of full blocks held in memory; the blocks beyond go to spill files. */
  budget?: number;
  /** Bytes of a block, the unit kept in memory or spilled (default: a quarter of the budget). */
  blockBytes?: number;
  /** Where the spill directory is made (TLC's -metadir); by default os.tmpdir(). */
  dir?: string;
}

/** The default budget: an eighth of the machine's memory (3 GiB on 24 GiB). */
export const DEFAULT_QUEUE_BUDGET = Math.floor(os.totalmem() / 8);
const MIN_BLOCK_BYTES = 1 << 12;
const MAX_BLOCK_BYTES = 1 << 20;

/** A full block: its bytes in memory, or the path of its spill file. */
type Block = Uint8Array | string;

export class StateQueue {
  /** States in the queue. */
  size = 0;
  /** Spill files written, and their bytes. */
  spillFiles = 0;
  spillBytes = 0;
  /** Bytes of the full blocks held in memory. */
  private blockBytesInMemory = 0;
  private readonly blocks: Block[] = [];
  private writer = new StateWriter();
  /** The writer's other buffer: the block being read when that is a former writer's. */
  private spare = new StateWriter();
  private reader = new StateReader(new Uint8Array(0));
  private readonly budget: number;
  private readonly blockBytes: number;
  /** The spill directory, made at the first spill. */
  private dir: string | null = null;

  constructor(private readonly opts: QueueOptions = {}) {
    this.budget = opts.budget ?? DEFAULT_QUEUE_BUDGET;
    // Blocks of a quarter of the budget (4 KiB to 1 MiB) keep the bytes in memory near the budget:
    // the full blocks within it, and besides them the block being written and the one being read.
    this.blockBytes =
      opts.blockBytes ?? Math.min(MAX_BLOCK_BYTES, Math.max(MIN_BLOCK_BYTES, this.budget / 4));
  }

  /** Bytes of encoded states in memory: full blocks, the block being written and the one being read. */
  get memoryBytes(): number {
    return this.blockBytesInMemory + this.writer.length + this.reader.bytes.length;
  }

  /** The spill directory (null before the first spill; deleted by close). */
  get spillDir(): string | null {
    return this.dir;
  }

  push({ id, level, s }: QueuedState): void {
    const w = this.writer;
    w.varint(id);
    w.varint(level);
    w.state(s);
    this.added();
  }

  /** The oldest state, removed from the queue; undefined when the queue is empty. */
  shift(): QueuedState | undefined {
    const r = this.oldest();
    return r && { id: r.varint(), level: r.varint(), s: r.state() };
  }

  /** Adds a state already encoded (see RawQueuedState); its bytes are copied. */
  pushRaw({ id, level, bytes }: RawQueuedState): void {
    const w = this.writer;
    w.varint(id);
    w.varint(level);
    w.varint(bytes.length);
    w.raw(bytes);
    this.added();
  }

  /** The oldest state as pushRaw took it; its bytes are a view, valid until the next shiftRaw. */
  shiftRaw(): RawQueuedState | undefined {
    const r = this.oldest();
    return r && { id: r.varint(), level: r.varint(), bytes: r.take(r.varint()) };
  }

  /** Deletes the spill directory and whatever is left in it. */
  close(): void {
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** Counts in the state just written, and ends the block when it is full. */
  private added(): void {
    this.size++;
    if (this.writer.length >= this.blockBytes) this.seal();
  }

  /** The reader, at the oldest state, which it counts out of the queue; undefined when empty. */
  private oldest(): StateReader | undefined {
    if (this.size === 0) return undefined;
    if (this.reader.done) this.nextBlock();
    this.size--;
    return this.reader;
  }

  /** Reads on from the oldest full block, or else from the block being written. */
  private nextBlock(): void {
    const block = this.blocks.shift();
    let bytes: Uint8Array;
    if (block === undefined) {
      [this.spare, this.writer] = [this.writer, this.spare];
      this.writer.reset();
      bytes = this.spare.view();
    } else if (typeof block === 'string') {
      bytes = fs.readFileSync(block);
      fs.unlinkSync(block);
    } else {
      bytes = block;
      this.blockBytesInMemory -= block.length;
    }
    this.reader = new StateReader(bytes);
  }

  /** Ends the block being written: kept in memory within the budget, else in a spill file. */
  private seal(): void {
    const w = this.writer;
    if (this.blockBytesInMemory + w.length <= this.budget) {
      this.blocks.push(w.view().slice());
      this.blockBytesInMemory += w.length;
    } else {
      this.dir ??= this.makeDir();
      const file = path.join(this.dir, `${String(this.spillFiles++).padStart(8, '0')}.states`);
      fs.writeFileSync(file, w.view());
      this.spillBytes += w.length;
      this.blocks.push(file);
    }
    w.reset();
  }

  private makeDir(): string {
    const parent = this.opts.dir ?? os.tmpdir();
    fs.mkdirSync(parent, { recursive: true });
    return fs.mkdtempSync(path.join(parent, 'tlcts-queue-'));
  }
}
