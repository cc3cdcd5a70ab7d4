/**
 * A compact binary encoding of states (`Value[]`), for the queue of states to explore. States are
 * written one after another into a block: each value is a tag byte and its content, integers as
 * zigzag varints, strings by their UTF-16 code units (never by this process's intern ids, so that
 * another thread can decode them). A string met before in the block is written as a back
 * reference, so a block is read from its start, in order. Decoding gives values equal to the
 * originals, with the same fingerprint and printed form; lazy values are stored enumerated.
 */
import { EvalError } from './errors.js';
import {
  EMPTY_SET,
  EMPTY_TUPLE,
  Fcn,
  FiniteSet,
  IntervalSet,
  LazyFcn,
  ModelValue,
  Record,
  SetValue,
  Tuple,
  modelValue,
  type Value,
} from './value.js';

const enum Tag {
  False = 0,
  True = 1,
  /** A 32-bit integer, as a zigzag varint. */
  Int = 2,
  /** Any other number, as a float64. */
  Num = 3,
  Str = 4,
  Model = 5,
  Set = 6,
  Interval = 7,
  Tuple = 8,
  Record = 9,
  Fcn = 10,
}

const scratch = new Float64Array(1);
const scratchBytes = new Uint8Array(scratch.buffer);

/** Writes states into a growable buffer, reused from block to block. */
export class StateWriter {
  bytes = new Uint8Array(1 << 16);
  length = 0;
  /** The strings written in this block, by their back reference. */
  private readonly strings = new Map<string, number>();

  /** The bytes written so far (a view, valid until the next write). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  /** Starts a new block. */
  reset(): void {
    this.length = 0;
    this.strings.clear();
  }

  /** A state: its number of variables, then their values. */
  state(s: readonly Value[]): void {
    this.values(s);
  }

  /** An unsigned 32-bit integer, 7 bits a byte. */
  varint(n: number): void {
    this.room(5);
    const b = this.bytes;
    let x = n >>> 0;
    while (x >= 0x80) {
      b[this.length++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    b[this.length++] = x;
  }

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let cap = this.bytes.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.view());
    this.bytes = next;
  }

  private byte(b: number): void {
    this.room(1);
    this.bytes[this.length++] = b;
  }

  private value(v: Value): void {
    switch (typeof v) {
      case 'boolean':
        return this.byte(v ? Tag.True : Tag.False);
      case 'number':
        return this.number(v);
      case 'string':
        this.byte(Tag.Str);
        return this.string(v);
    }
    // The common values first: an instanceof test that fails walks the prototype chain.
    if (v instanceof Tuple) {
      this.byte(Tag.Tuple);
      return this.values(v.elems);
    }
    if (v instanceof Record) {
      this.byte(Tag.Record);
      return this.pairs(v.names, v.vals);
    }
    if (v instanceof FiniteSet) {
      this.byte(Tag.Set);
      return this.values(v.elems);
    }
    if (v instanceof Fcn) {
      this.byte(Tag.Fcn);
      return this.pairs(v.keys, v.vals);
    }
    if (v instanceof ModelValue) {
      this.byte(Tag.Model);
      return this.string(v.name);
    }
    if (v instanceof IntervalSet) {
      this.byte(Tag.Interval);
      this.number(v.lo);
      return this.number(v.hi);
    }
    // Lazy sets and functions are stored enumerated.
    if (v instanceof SetValue) {
      if (!v.isFinite())
        throw new EvalError(`Attempted to store the infinite set ${v.describe()} in a state on the queue.`);
      return this.value(v.normalized());
    }
    if (v instanceof LazyFcn && !v.dom.isFinite()) {
      throw new EvalError(
        `Attempted to store a function with the infinite domain ${v.dom.describe()} in a state on the queue.`,
      );
    }
    return this.value(v.materialize());
  }

  private number(v: number): void {
    if ((v | 0) === v) {
      this.byte(Tag.Int);
      this.varint((v << 1) ^ (v >> 31));
    } else {
      this.byte(Tag.Num);
      this.room(8);
      scratch[0] = v;
      this.bytes.set(scratchBytes, this.length);
      this.length += 8;
    }
  }

  /** A count and the values. */
  private values(vs: readonly Value[]): void {
    this.varint(vs.length);
    for (let i = 0; i < vs.length; i++) this.value(vs[i]!);
  }

  /** A function: its size, its keys, then its values. */
  private pairs(keys: readonly Value[], vals: readonly Value[]): void {
    this.values(keys);
    for (let i = 0; i < vals.length; i++) this.value(vals[i]!);
  }

  /** A back reference (odd), or the length (even) and code units of a string new to the block. */
  private string(s: string): void {
    const ref = this.strings.get(s);
    if (ref !== undefined) return this.varint(ref * 2 + 1);
    this.strings.set(s, this.strings.size);
    const n = s.length;
    this.varint(n * 2);
    this.room(3 * n);
    const b = this.bytes;
    for (let i = 0; i < n; i++) {
      let c = s.charCodeAt(i);
      while (c >= 0x80) {
        b[this.length++] = (c & 0x7f) | 0x80;
        c >>>= 7;
      }
      b[this.length++] = c;
    }
  }
}

/** Reads a block that a StateWriter wrote, from its start. */
export class StateReader {
  pos = 0;
  private readonly strings: string[] = [];

  constructor(readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  state(): Value[] {
    return this.values(this.varint());
  }

  varint(): number {
    const b = this.bytes;
    let x = 0;
    let shift = 0;
    for (;;) {
      const byte = b[this.pos++]!;
      x |= (byte & 0x7f) << shift;
      if (byte < 0x80) return x >>> 0;
      shift += 7;
    }
  }

  private value(): Value {
    const tag = this.bytes[this.pos++]! as Tag;
    switch (tag) {
      case Tag.False:
        return false;
      case Tag.True:
        return true;
      case Tag.Int: {
        const z = this.varint();
        return (z >>> 1) ^ -(z & 1);
      }
      case Tag.Num:
        scratchBytes.set(this.bytes.subarray(this.pos, this.pos + 8));
        this.pos += 8;
        return scratch[0]!;
      case Tag.Str:
        return this.string();
      case Tag.Model:
        return modelValue(this.string());
      case Tag.Set: {
        const elems = this.values(this.varint());
        return elems.length === 0 ? EMPTY_SET : new FiniteSet(elems);
      }
      case Tag.Interval: {
        const lo = this.value() as number;
        return new IntervalSet(lo, this.value() as number);
      }
      case Tag.Tuple: {
        const elems = this.values(this.varint());
        return elems.length === 0 ? EMPTY_TUPLE : new Tuple(elems);
      }
      case Tag.Record:
      case Tag.Fcn: {
        const n = this.varint();
        const keys = this.values(n);
        const vals = this.values(n);
        return tag === Tag.Record ? new Record(keys as string[], vals) : new Fcn(keys, vals);
      }
      default:
        throw new Error(`Corrupt encoded state: tag ${tag} at byte ${this.pos - 1}.`);
    }
  }

  private values(n: number): Value[] {
    const out: Value[] = [];
    for (let i = 0; i < n; i++) out.push(this.value());
    return out;
  }

  private string(): string {
    const head = this.varint();
    if (head & 1) return this.strings[head >>> 1]!;
    const n = head >>> 1;
    let s = '';
    for (let i = 0; i < n; i += CHARS_AT_ONCE) {
      const part: number[] = [];
      for (let j = i; j < n && j < i + CHARS_AT_ONCE; j++) part.push(this.varint());
      s += String.fromCharCode(...part);
    }
    this.strings.push(s);
    return s;
  }
}

/** Code units turned into a string by one call (a bound on the arguments of String.fromCharCode). */
const CHARS_AT_ONCE = 4096;

/** One state as bytes (a block of its own). */
export function encodeState(s: readonly Value[]): Uint8Array {
  const w = new StateWriter();
  w.state(s);
  return w.view().slice();
}

export function decodeState(bytes: Uint8Array): Value[] {
  return new StateReader(bytes).state();
}
