/**
 * Json (CommunityModules; its overrides now ship with TLC as tlc2.module.Json), as those overrides
 * behave: records become objects, tuples arrays, finite sets arrays of their elements in TLC's
 * order, model values their names, and a function becomes an array when its domain is 1..n (or
 * 0..n-1), an object otherwise (keys as TLC prints them, strings unquoted). ToJsonObject writes a
 * tuple as an object keyed "0", "1", ... as TLC does. Reading takes objects to records, arrays to
 * tuples; numbers must be integers in TLC's 32-bit range; null is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  FcnValue,
  ModelValue,
  Record as Rcd,
  SetValue,
  Tuple,
  intern,
  recordOf,
  show,
  type ExplicitFcn,
  type Value,
} from '../values/value.js';
import type { BuiltinModule } from './builtin.js';
import {
  argCastError,
  asTuple,
  defineModule,
  isEnumerable,
  javaClass,
  javaOverrideError,
  valuesOf,
} from './core.js';

const JSON_CLASS = 'tlc2.module.Json';
const THROWS = ' throws java.io.IOException';
const TO_JSON = (m: string) =>
  `public static tlc2.value.impl.StringValue ${JSON_CLASS}.${m}(tlc2.value.IValue)${THROWS}`;
const READ = (m: string) =>
  `public static tlc2.value.IValue ${JSON_CLASS}.${m}(tlc2.value.impl.StringValue)${THROWS}`;
const WRITE = (m: string) =>
  `public static synchronized tlc2.value.impl.BoolValue ${JSON_CLASS}.${m}(tlc2.value.impl.StringValue,tlc2.value.impl.Value)${THROWS}`;

/** An IOException of an override, reported as TLC reports a failed Java method. */
class Unconvertible extends Error {}

function unsupported(v: Value): Unconvertible {
  return new Unconvertible(`Cannot convert value: unsupported value type tlc2.value.impl.${javaClass(v)}`);
}

/** TLC's isValidSequence: integer keys where the i-th (from 0) is i + 1 or i. */
function isSequenceLike(f: ExplicitFcn): boolean {
  for (let i = 0; i < f.size(); i++) {
    const k = f.keyAt(i);
    if (typeof k !== 'number' || (k !== i + 1 && k !== i)) return false;
  }
  return true;
}

const text = (s: string): string => JSON.stringify(s);

function array(vals: readonly Value[]): string {
  return `[${vals.map(node).join(',')}]`;
}

function object(f: ExplicitFcn, key: (k: Value, i: number) => string): string {
  const parts: string[] = [];
  for (let i = 0; i < f.size(); i++) parts.push(`${text(key(f.keyAt(i), i))}:${node(f.valAt(i))}`);
  return `{${parts.join(',')}}`;
}

/** A function that is not a tuple or record: an array when sequence-like, else an object. */
function fcnNode(f: ExplicitFcn): string {
  return isSequenceLike(f) ? array(valuesOf(f)) : object(f, (k) => (typeof k === 'string' ? k : show(k)));
}

function setNode(s: SetValue): string {
  if (!isEnumerable(s) || !s.isFinite()) throw unsupported(s);
  return array(s.normalized().elems);
}

/** TLC's getNode: any value as JSON. */
function node(v: Value): string {
  switch (typeof v) {
    case 'boolean':
    case 'number':
      return String(v);
    case 'string':
      return text(v);
  }
  if (v instanceof ModelValue) return text(v.name);
  if (v instanceof SetValue) return setNode(v);
  const f = v.materialize();
  if (f instanceof Rcd) return object(f, (k) => k as string);
  if (f instanceof Tuple) return array(f.elems);
  return fcnNode(f);
}

function arrayNode(v: Value): string {
  if (v instanceof SetValue) return setNode(v);
  if (!(v instanceof FcnValue)) throw unsupported(v);
  const f = v.materialize();
  if (f instanceof Rcd) throw unsupported(v);
  return f instanceof Tuple ? array(f.elems) : fcnNode(f);
}

function objectNode(v: Value): string {
  if (!(v instanceof FcnValue)) throw unsupported(v);
  const f = v.materialize();
  if (f instanceof Rcd) return object(f, (k) => k as string);
  if (f instanceof Tuple) return object(f, (_, i) => String(i));
  return fcnNode(f);
}

/** Runs an override's body: its IOExceptions become TLC's report of a failed Java method. */
function override<T>(signature: string, body: () => T): T {
  try {
    return body();
  } catch (e) {
    if (e instanceof Unconvertible) throw javaOverrideError(signature, e.message);
    throw e;
  }
}

/** A file's message as Java's FileNotFoundException words it. */
function ioMessage(file: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const reason =
    code === 'ENOENT'
      ? 'No such file or directory'
      : code === 'EACCES'
        ? 'Permission denied'
        : code === 'EISDIR'
          ? 'Is a directory'
          : (e as Error).message;
  return `${file} (${reason})`;
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Unconvertible(ioMessage(file, e));
  }
}

function writeText(file: string, content: string): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  } catch (e) {
    throw new Unconvertible(ioMessage(file, e));
  }
}

// ---------------------------------------------------------------------------------------------------
// Reading JSON: a parser that keeps the integers and key order TLC reads

class JsonReader {
  private i = 0;
  constructor(private readonly src: string) {}

  document(): Value {
    const v = this.value();
    this.space();
    if (this.i < this.src.length) this.fail('end of input');
    return v;
  }

  private fail(expected: string): never {
    throw new Unconvertible(`Malformed JSON: expected ${expected} at offset ${this.i}`);
  }

  private space(): void {
    while (/\s/.test(this.src[this.i] ?? '')) this.i++;
  }

  private value(): Value {
    this.space();
    const ch = this.src[this.i];
    if (ch === '{') return this.object();
    if (ch === '[') return this.array();
    if (ch === '"') {
      const s = this.string();
      intern(s);
      return s;
    }
    const word = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(this.src.slice(this.i))?.[0];
    if (word === undefined) this.fail('a JSON value');
    this.i += word.length;
    if (word === 'true' || word === 'false') return word === 'true';
    const n = Number(word);
    if (word === 'null' || !/^-?\d+$/.test(word) || n < -2147483648 || n > 2147483647) {
      throw new Unconvertible(`Cannot convert value: unsupported JSON value ${word}`);
    }
    return n | 0;
  }

  private string(): string {
    const m = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(this.src.slice(this.i));
    if (m === null) this.fail('a string');
    this.i += m[0].length;
    return JSON.parse(m[0]) as string;
  }

  private array(): Tuple {
    this.i++;
    const elems: Value[] = [];
    this.space();
    if (this.src[this.i] === ']') {
      this.i++;
      return new Tuple(elems);
    }
    for (;;) {
      elems.push(this.value());
      this.space();
      const ch = this.src[this.i++];
      if (ch === ']') return new Tuple(elems);
      if (ch !== ',') this.fail("',' or ']'");
    }
  }

  private object(): Value {
    this.i++;
    const fields = new Map<string, Value>();
    this.space();
    if (this.src[this.i] === '}') {
      this.i++;
      return recordOf([]);
    }
    for (;;) {
      this.space();
      if (this.src[this.i] !== '"') this.fail('a key');
      const key = this.string();
      intern(key);
      this.space();
      if (this.src[this.i++] !== ':') this.fail("':'");
      fields.set(key, this.value());
      this.space();
      const ch = this.src[this.i++];
      if (ch === '}') return recordOf([...fields].map(([name, value]) => ({ name, value })));
      if (ch !== ',') this.fail("',' or '}'");
    }
  }
}

function fileArg(signature: string, v: Value): string {
  if (typeof v !== 'string') throw argCastError(signature, v, 'StringValue');
  return v;
}

/** The elements a serializer writes: TLC converts its argument with toTuple and fails on null. */
function tupleToWrite(signature: string, v: Value): readonly Value[] {
  const t = asTuple(v);
  if (t === null) throw javaOverrideError(signature, 'Cannot read field "elems" because "value" is null');
  return t.elems;
}

export const JSON_MODULE: BuiltinModule = defineModule('Json', [], {
  ToJson: { arity: 1, fn: (a) => override(TO_JSON('toJson'), () => node(a[0] as Value)) },
  ToJsonArray: { arity: 1, fn: (a) => override(TO_JSON('toJsonArray'), () => arrayNode(a[0] as Value)) },
  ToJsonObject: { arity: 1, fn: (a) => override(TO_JSON('toJsonObject'), () => objectNode(a[0] as Value)) },
  JsonDeserialize: {
    arity: 1,
    fn: (a) => {
      const sig = READ('deserialize');
      const file = fileArg(sig, a[0] as Value);
      return override(sig, () => new JsonReader(readText(file)).document());
    },
  },
  ndJsonDeserialize: {
    arity: 1,
    fn: (a) => {
      const sig = READ('ndDeserialize');
      const file = fileArg(sig, a[0] as Value);
      return override(sig, () => {
        const lines = readText(file)
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '');
        return new Tuple(lines.map((l) => new JsonReader(l).document()));
      });
    },
  },
  JsonSerialize: {
    arity: 2,
    fn: (a) => {
      const sig = WRITE('serialize');
      const file = fileArg(sig, a[0] as Value);
      const elems = tupleToWrite(sig, a[1] as Value);
      override(sig, () => writeText(file, `[\n${elems.map(node).join(',\n')}\n]\n`));
      return true;
    },
  },
  ndJsonSerialize: {
    arity: 2,
    fn: (a) => {
      const sig = WRITE('ndSerialize');
      const file = fileArg(sig, a[0] as Value);
      const elems = tupleToWrite(sig, a[1] as Value);
      override(sig, () => writeText(file, elems.map((e) => `${node(e)}\n`).join('')));
      return true;
    },
  },
});
