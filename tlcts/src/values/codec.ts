/**
 * A compact binary encoding of states (`Value[]`), for the queue of states to explore. States are
 * written one after another into a block: each value is a tag byte and its content, integers as
 * zigzag varints, strings by their UTF-16 code units (never by this process's intern ids, so that
 * another thread can decode them). A string met before in the block is written as a back
 * reference, so a block is read from its start, in order. Decoding gives values equal to the
 * originals, with the same fingerprint and printed form; lazy values are stored enumerated. A
 * variable's value whose fingerprint, or hashes under a symmetry, were computed carries them
 * (WITH_FINGERPRINT, WITH_LANES): a state's successors share most of its variables' values, which
 * are then not hashed again after decoding (carried for every set and function inside too, they
 * cost more to write and read than they save). A variable holding the very value it held in the
 * state written before in the block is written as Same, and read back as that same object: siblings
 * pushed one after another share most values, and sharing carries on to their successors, whose
 * hashes are then computed once.
 *
 * Sets and functions are written in the writer's order, which for strings is its intern order.
 * Threads that load the same model intern its literals alike, but strings made at run time may be
 * interned in another order by each: a reader told which strings its thread interned at load
 * re-sorts the sets and functions whose order depends on the others (see StateReader).
 */
import { EvalError } from './errors.js';
import {
  EMPTY_SET,
  EMPTY_TUPLE,
  Fcn,
  FcnValue,
  FiniteSet,
  IntervalSet,
  LazyFcn,
  ModelValue,
  Record,
  SetValue,
  Tuple,
  fcnFromPairs,
  intern,
  modelValue,
  setOf,
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
  /** A variable's value, the very value of the same variable in the state written before it in the block. */
  Same = 11,
}

/** Set on the tag of a variable's set or function followed by its fingerprint (two int32) before its content. */
const WITH_FINGERPRINT = 0x80;
/** Set on the tag of a variable's set or function followed by its hashes under a symmetry (a count and int32s). */
const WITH_LANES = 0x40;
const fpScratch = new Int32Array(2);
const fpScratchBytes = new Uint8Array(fpScratch.buffer);

/** The most strings a writer keeps slots for (and so keeps alive). */
const MAX_STRING_SLOTS = 1 << 16;

const scratch = new Float64Array(1);
const scratchBytes = new Uint8Array(scratch.buffer);

/** Writes states into a growable buffer, reused from block to block. */
export class StateWriter {
  bytes = new Uint8Array(1 << 16);
  length = 0;
  /**
   * Each string written, by a slot number kept from block to block (a map cleared for every block
   * would cost more where blocks are small: one state each); by slot, the block it was last
   * written in, and its back reference there.
   */
  private readonly slots = new Map<string, number>();
  /** Whether the value being written is a variable's (see WITH_FINGERPRINT). */
  private variable = false;
  /** The field names of the records written in this block, by back reference (shared by a literal's records). */
  private readonly fieldNames = new Map<readonly string[], number>();
  private readonly slotBlock: number[] = [];
  private readonly slotRef: number[] = [];
  private block = 0;
  /** Strings written in full in this block. */
  private refs = 0;
  /** The values of the state written last in this block (none at its start). */
  private readonly previous: Value[] = [];

  /** The bytes written so far (a view, valid until the next write). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  /** Starts a new block. */
  reset(): void {
    this.length = 0;
    this.block++;
    this.refs = 0;
    this.fieldNames.clear();
    this.previous.length = 0;
  }

  /** A state: its number of variables, then their values (Same where the previous state holds the very value). */
  state(s: readonly Value[]): void {
    this.varint(s.length);
    const previous = this.previous;
    const follows = previous.length === s.length;
    for (let i = 0; i < s.length; i++) {
      const v = s[i]!;
      if (follows && previous[i] === v) this.byte(Tag.Same);
      else {
        this.variable = true;
        this.value(v);
        previous[i] = v;
      }
    }
    if (!follows) previous.length = s.length;
    this.variable = false;
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

  /** Bytes as they are (a state another writer encoded, say). */
  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
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
      this.tag(Tag.Tuple, v);
      return this.values(v.elems);
    }
    if (v instanceof Record) {
      this.tag(Tag.Record, v);
      this.names(v.names);
      for (let i = 0; i < v.vals.length; i++) this.value(v.vals[i]!);
      return;
    }
    if (v instanceof FiniteSet) {
      this.tag(Tag.Set, v);
      return this.values(v.elems);
    }
    if (v instanceof Fcn) {
      this.tag(Tag.Fcn, v);
      return this.pairs(v.keys, v.vals);
    }
    if (v instanceof ModelValue) {
      this.byte(Tag.Model);
      return this.string(v.name);
    }
    if (v instanceof IntervalSet) {
      this.tag(Tag.Interval, v);
      this.number(v.lo);
      return this.number(v.hi);
    }
    // Lazy sets and functions are stored enumerated.
    if (v instanceof SetValue) {
      if (!v.isFinite())
        throw new EvalError(`Attempted to store the infinite set ${v.describe()} in a state on the queue.`);
      return this.value(enumerated(v, v.normalized()));
    }
    if (v instanceof LazyFcn && !v.dom.isFinite()) {
      throw new EvalError(
        `Attempted to store a function with the infinite domain ${v.dom.describe()} in a state on the queue.`,
      );
    }
    return this.value(enumerated(v, v.materialize()));
  }

  /** A set's or function's tag, with its fingerprint when it is known. */
  private tag(tag: Tag, v: SetValue | FcnValue): void {
    if (!this.variable) return this.byte(tag);
    this.variable = false;
    const fp = v.knownFingerprint();
    const lanes = v.lanes;
    this.byte(tag | (fp ? WITH_FINGERPRINT : 0) | (lanes ? WITH_LANES : 0));
    if (fp) {
      this.room(8);
      fpScratch[0] = fp[0];
      fpScratch[1] = fp[1];
      this.bytes.set(fpScratchBytes, this.length);
      this.length += 8;
    }
    if (lanes) {
      this.varint(lanes.length);
      this.raw(new Uint8Array(lanes.buffer, lanes.byteOffset, lanes.byteLength));
    }
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

  /** A back reference (odd), or the count (even) and strings of record field names new to the block. */
  private names(names: readonly string[]): void {
    const ref = this.fieldNames.get(names);
    if (ref !== undefined) return this.varint(ref * 2 + 1);
    this.fieldNames.set(names, this.fieldNames.size);
    this.varint(names.length * 2);
    for (let i = 0; i < names.length; i++) this.string(names[i]!);
  }

  /** A back reference (odd), or the length (even) and code units of a string new to the block. */
  private string(s: string): void {
    let slot = this.slots.get(s);
    if (slot === undefined) {
      // Past the bound (strings made at run time), slots start over: a string is then written anew.
      if (this.slots.size === MAX_STRING_SLOTS) {
        this.slots.clear();
        this.slotBlock.length = 0;
        this.slotRef.length = 0;
      }
      slot = this.slots.size;
      this.slots.set(s, slot);
      this.slotBlock.push(-1);
      this.slotRef.push(0);
    }
    if (this.slotBlock[slot] === this.block) return this.varint(this.slotRef[slot]! * 2 + 1);
    this.slotBlock[slot] = this.block;
    this.slotRef[slot] = this.refs++;
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

/** A lazy value's enumerated form, given the lazy value's fingerprint and hashes if it has them. */
function enumerated<T extends SetValue | FcnValue>(lazy: SetValue | FcnValue, form: T): T {
  const fp = lazy.knownFingerprint();
  if (fp && !form.knownFingerprint()) form.restoreFingerprint(fp);
  form.lanes ??= lazy.lanes;
  return form;
}

/** Reads a block that a StateWriter wrote, from its start. */
export class StateReader {
  pos = 0;
  private readonly strings: string[] = [];
  /** Whether each string of `strings` was made at run time (only with loadStrings). */
  private readonly madeAtRunTime: boolean[] = [];
  /** Whether the value being read holds a string made at run time. */
  private runTime = false;
  /** Record field names read in this block, and whether each list holds a string made at run time. */
  private readonly fieldNames: string[][] = [];
  private readonly fieldNamesRunTime: boolean[] = [];
  /** The model value named by each string slot, once read as one (one lookup by name per block). */
  private readonly models: (ModelValue | undefined)[] = [];
  /** The slot of the string read last. */
  private slot = 0;
  /** The state read last (see Tag.Same). */
  private previous: Value[] = [];

  /**
   * With loadStrings, the number of strings this thread interned while loading the model: the
   * strings beyond were made at run time, and the writer's thread may order them otherwise, so a
   * set or function whose order depends on one is sorted again.
   */
  constructor(
    readonly bytes: Uint8Array,
    private readonly loadStrings?: number,
  ) {}

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  state(): Value[] {
    const n = this.varint();
    const previous = this.previous;
    const s: Value[] = [];
    for (let i = 0; i < n; i++) {
      if (this.bytes[this.pos] !== Tag.Same) s.push(this.value());
      else if (previous.length === n) {
        this.pos++;
        s.push(previous[i]!);
      } else throw new Error(`Corrupt encoded state: no previous state for the value at byte ${this.pos}.`);
    }
    return (this.previous = s);
  }

  /** The next n bytes (a view). */
  take(n: number): Uint8Array {
    this.pos += n;
    return this.bytes.subarray(this.pos - n, this.pos);
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
    const head = this.bytes[this.pos++]!;
    if (head < WITH_LANES) return this.content(head as Tag);
    let fp: [number, number] | undefined;
    if (head & WITH_FINGERPRINT) {
      fpScratchBytes.set(this.bytes.subarray(this.pos, this.pos + 8));
      this.pos += 8;
      fp = [fpScratch[0]!, fpScratch[1]!];
    }
    let lanes: Int32Array | undefined;
    if (head & WITH_LANES) {
      lanes = new Int32Array(this.varint());
      new Uint8Array(lanes.buffer).set(this.take(lanes.byteLength));
    }
    const v = this.content((head & ~(WITH_FINGERPRINT | WITH_LANES)) as Tag) as SetValue | FcnValue;
    if (fp) v.restoreFingerprint(fp);
    if (lanes) v.lanes = lanes;
    return v;
  }

  private content(tag: Tag): Value {
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
      case Tag.Model: {
        const name = this.string();
        return (this.models[this.slot] ??= modelValue(name));
      }
      case Tag.Set: {
        const outer = this.runTime;
        this.runTime = false;
        const elems = this.values(this.varint());
        const set = elems.length === 0 ? EMPTY_SET : this.runTime ? setOf(elems) : new FiniteSet(elems);
        this.runTime ||= outer;
        return set;
      }
      case Tag.Interval: {
        const lo = this.value() as number;
        return new IntervalSet(lo, this.value() as number);
      }
      case Tag.Tuple: {
        const elems = this.values(this.varint());
        return elems.length === 0 ? EMPTY_TUPLE : new Tuple(elems);
      }
      case Tag.Record: {
        const outer = this.runTime;
        this.runTime = false;
        const names = this.names();
        const resort = this.runTime;
        const vals = this.values(names.length);
        this.runTime ||= outer;
        if (resort) return fcnFromPairs(names.map((k, i) => [k, vals[i]!]));
        return new Record(names, vals);
      }
      case Tag.Fcn: {
        const outer = this.runTime;
        this.runTime = false;
        const n = this.varint();
        const keys = this.values(n);
        const resort = this.runTime;
        const vals = this.values(n);
        this.runTime ||= outer;
        if (resort) return fcnFromPairs(keys.map((k, i) => [k, vals[i]!]));
        return new Fcn(keys, vals);
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

  /** A record's field names, as StateWriter#names wrote them. */
  private names(): string[] {
    const head = this.varint();
    if (head & 1) {
      if (this.fieldNamesRunTime[head >>> 1]) this.runTime = true;
      return this.fieldNames[head >>> 1]!;
    }
    const outer = this.runTime;
    this.runTime = false;
    const names = new Array<string>(head >>> 1);
    for (let i = 0; i < names.length; i++) names[i] = this.string();
    this.fieldNames.push(names);
    this.fieldNamesRunTime.push(this.runTime);
    this.runTime ||= outer;
    return names;
  }

  private string(): string {
    const head = this.varint();
    if (head & 1) {
      this.slot = head >>> 1;
      if (this.madeAtRunTime[this.slot]) this.runTime = true;
      return this.strings[this.slot]!;
    }
    const n = head >>> 1;
    this.slot = this.strings.length;
    const s = n <= MAX_SHARED_LENGTH ? this.sharedString(n) : this.longString(n);
    this.strings.push(s);
    if (this.loadStrings !== undefined) {
      const made = intern(s) >= this.loadStrings;
      this.madeAtRunTime.push(made);
      if (made) this.runTime = true;
    }
    return s;
  }

  /** A short string of n code units: the string decoded before in this thread, if it is that one. */
  private sharedString(n: number): string {
    let h = n;
    for (let i = 0; i < n; i++) {
      const c = this.varint();
      UNITS[i] = c;
      h = Math.imul(h ^ c, 0x01000193);
    }
    const slot = (h ^ (h >>> 15)) & (SHARED_SLOTS - 1);
    const known = shared[slot];
    if (known !== undefined && known.length === n) {
      let i = 0;
      while (i < n && known.charCodeAt(i) === UNITS[i]) i++;
      if (i === n) return known;
    }
    const s = String.fromCharCode.apply(null, UNITS.subarray(0, n) as unknown as number[]);
    shared[slot] = s;
    return s;
  }

  private longString(n: number): string {
    let s = '';
    for (let i = 0; i < n; i += CHARS_AT_ONCE) {
      const part: number[] = [];
      for (let j = i; j < n && j < i + CHARS_AT_ONCE; j++) part.push(this.varint());
      s += String.fromCharCode(...part);
    }
    return s;
  }
}

/** Code units turned into a string by one call (a bound on the arguments of String.fromCharCode). */
const CHARS_AT_ONCE = 4096;

// Strings decoded in this thread, by a hash of their code units: one string decoded again and again
// (one-state blocks repeat them) is then one object, whose hash the maps it is looked up in keep.
const MAX_SHARED_LENGTH = 64;
const SHARED_SLOTS = 1 << 12;
const shared: (string | undefined)[] = new Array(SHARED_SLOTS);
const UNITS = new Uint16Array(MAX_SHARED_LENGTH);

const single = new StateWriter();

/** One state as bytes (a block of its own). */
export function encodeState(s: readonly Value[]): Uint8Array {
  single.reset();
  single.state(s);
  return single.view().slice();
}

/** One state written by encodeState; loadStrings as for StateReader. */
export function decodeState(bytes: Uint8Array, loadStrings?: number): Value[] {
  return new StateReader(bytes, loadStrings).state();
}
