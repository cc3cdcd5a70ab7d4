/**
 * IOUtils (CommunityModules), the part without side effects beyond reading and writing files and
 * reading the environment: IOEnv, atoi, zeroPadN, and Serialize/Deserialize with the "TXT" format,
 * as TLC's overrides behave (they answer [exitValue, stdout, stderr] and report file errors there).
 * Running processes (IOExec, IOEnvExec, IOExecTemplate, IOEnvExecTemplate), Java object
 * serialization (IOSerialize, IODeserialize) and other Serialize formats are refused by name.
 */
import fs from 'node:fs';
import { EvalError } from '../values/errors.js';
import { intern, recordOf, Record as Rcd, show, type Value } from '../values/value.js';
import type { Ctx } from '../eval/runtime.js';
import type { Builtin, BuiltinHost, BuiltinModule } from './builtin.js';
import { asTuple, defineModule, oneArgError } from './core.js';
import { arith, select } from './ops.js';

/** [exitValue |-> code, stdout |-> out, stderr |-> err], the answer of TLC's IO overrides. */
function outcome(code: number, out: string, err: string): Value {
  return recordOf([
    { name: 'exitValue', value: code },
    { name: 'stdout', value: out },
    { name: 'stderr', value: err },
  ]);
}

/** The answer of an override that failed: exit value 1, TLC's message in stderr. */
function failed(err: string): Value {
  return outcome(1, '', err);
}

/** The environment as a record, names interned in the order the process lists them. */
function environment(): Value {
  const vars = Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined);
  for (const [name] of vars) intern(name);
  return recordOf(vars.map(([name, value]) => ({ name, value })));
}

/** atoi: Java's Integer.parseInt. */
function atoi(v: Value): number {
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) {
    const n = Number(v);
    if (n >= -2147483648 && n <= 2147483647) return n | 0;
  }
  throw oneArgError('atoi', 'string', v);
}

/** zeroPadN(n, width) == ToString(n) with "0"s in front up to width characters. */
function zeroPadN(n: Value, width: Value, host: BuiltinHost, c: Ctx): string {
  const s = show(n);
  const pad = arith('-', width, s.length, host, c) as number;
  return '0'.repeat(Math.max(0, pad)) + s;
}

/** Node's encoding for a Java charset name that both support. */
const CHARSETS: ReadonlyMap<string, BufferEncoding> = new Map([
  ['UTF-8', 'utf8'],
  ['UTF8', 'utf8'],
  ['ISO-8859-1', 'latin1'],
  ['US-ASCII', 'ascii'],
  ['UTF-16LE', 'utf16le'],
]);

/** The Java exception text TLC puts in stderr for a failed file operation. */
function javaException(file: string, e: unknown): string {
  switch ((e as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return `java.nio.file.NoSuchFileException: ${file}`;
    case 'EEXIST':
      return `java.nio.file.FileAlreadyExistsException: ${file}`;
    case 'EACCES':
      return `java.nio.file.AccessDeniedException: ${file}`;
    default:
      return `java.io.IOException: ${(e as Error).message}`;
  }
}

/** open(2) flags for Java's StandardOpenOptions; none means CREATE, TRUNCATE_EXISTING, WRITE. */
function openFlags(options: readonly string[]): number | string {
  const c = fs.constants;
  const flag: { [o: string]: number } = {
    WRITE: 0,
    APPEND: c.O_APPEND,
    TRUNCATE_EXISTING: c.O_TRUNC,
    CREATE: c.O_CREAT,
    CREATE_NEW: c.O_CREAT | c.O_EXCL,
  };
  if (options.length === 0) return c.O_WRONLY | c.O_CREAT | c.O_TRUNC;
  let flags = c.O_WRONLY;
  for (const o of options) {
    if (!(o in flag)) return `unsupported open option ${o} (tlcts supports ${Object.keys(flag).join(', ')})`;
    flags |= flag[o]!;
  }
  if (options.includes('APPEND') && options.includes('TRUNCATE_EXISTING')) {
    return 'java.lang.IllegalArgumentException: APPEND + TRUNCATE_EXISTING not allowed';
  }
  return flags;
}

/** The format of a Serialize/Deserialize options record; only "TXT" is supported. */
function textFormat(op: string, options: Value): Rcd | string {
  if (!(options instanceof Rcd))
    return `${op} error invalid parameters: the options ${show(options)} are not a record`;
  const format = select(options, 'format');
  if (format !== 'TXT') {
    throw new EvalError(
      `unsupported: ${op} with format ${show(format)} (tlcts implements the "TXT" format of IOUtils)`,
      255,
    );
  }
  return options;
}

function serialize(payload: Value, file: Value, options: Value): Value {
  const opts = textFormat('Serialize', options);
  if (typeof opts === 'string') return failed(opts);
  const invalid = (what: string) => failed(`Serialize error invalid parameters: ${what}`);
  const notWritten = (why: string) => failed(`Serialize error writting to the file: ${why}`);
  const charset = opts.get('charset');
  const openOptions = opts.get('openOptions');
  const names = openOptions === undefined ? null : asTuple(openOptions)?.elems;
  if (typeof payload !== 'string') return invalid(`the payload ${show(payload)} is not a string`);
  if (typeof file !== 'string') return invalid(`the file name ${show(file)} is not a string`);
  if (typeof charset !== 'string') return invalid('the charset is not a string');
  if (!names || !names.every((n) => typeof n === 'string'))
    return invalid('openOptions is not a sequence of strings');
  const encoding = CHARSETS.get(charset.toUpperCase());
  if (encoding === undefined) return notWritten(`unsupported charset ${charset}`);
  const flags = openFlags(names as string[]);
  if (typeof flags === 'string') return notWritten(flags);
  try {
    const fd = fs.openSync(file, flags, 0o666);
    try {
      fs.writeSync(fd, Buffer.from(payload, encoding));
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    return notWritten(javaException(file, e));
  }
  return outcome(0, 'Finish writting to the file with success!', '');
}

function deserialize(file: Value, options: Value): Value {
  const opts = textFormat('Deserialize', options);
  if (typeof opts === 'string') return failed(opts);
  const invalid = (what: string) => failed(`Deserialize error invalid parameters: ${what}`);
  const notRead = (why: string) => failed(`Deserialize error reading from the file: ${why}`);
  const charset = opts.get('charset');
  if (typeof file !== 'string') return invalid(`the file name ${show(file)} is not a string`);
  if (typeof charset !== 'string') return invalid('the charset is not a string');
  const encoding = CHARSETS.get(charset.toUpperCase());
  if (encoding === undefined) return notRead(`unsupported charset ${charset}`);
  try {
    const content = fs.readFileSync(file).toString(encoding);
    intern(content);
    return outcome(0, content, '');
  } catch (e) {
    return notRead(javaException(file, e));
  }
}

/** An operator this checker does not run, refused when evaluated. */
function refused(arity: number, name: string, what: string): Builtin {
  return {
    arity,
    fn: () => {
      throw new EvalError(`unsupported: ${name} (${what}) is not available in tlcts`, 255);
    },
  };
}

export const IOUTILS: BuiltinModule = defineModule('IOUtils', [], {
  IOEnv: { arity: 0, fn: environment },
  atoi: { arity: 1, fn: (a) => atoi(a[0] as Value) },
  zeroPadN: { arity: 2, fn: (a, h, c) => zeroPadN(a[0] as Value, a[1] as Value, h, c) },
  Serialize: { arity: 3, fn: (a) => serialize(a[0] as Value, a[1] as Value, a[2] as Value) },
  Deserialize: { arity: 2, fn: (a) => deserialize(a[0] as Value, a[1] as Value) },
  IOExec: refused(1, 'IOExec', 'running a process'),
  IOEnvExec: refused(2, 'IOEnvExec', 'running a process'),
  IOExecTemplate: refused(2, 'IOExecTemplate', 'running a process'),
  IOEnvExecTemplate: refused(3, 'IOEnvExecTemplate', 'running a process'),
  IOSerialize: refused(3, 'IOSerialize', "TLC's Java object serialization"),
  IODeserialize: refused(2, 'IODeserialize', "TLC's Java object serialization"),
});
