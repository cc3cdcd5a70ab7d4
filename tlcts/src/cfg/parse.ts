/**
 * Parser for TLC model configuration files (.cfg), following TLC's tlc2.tool.impl.ModelConfig:
 * a sequence of keyword sections; list sections (INVARIANT, PROPERTY, CONSTRAINT, ACTION_CONSTRAINT,
 * CONSTANT, POSTCONDITION, _POSSIBLE) run until the next keyword and accumulate over repeated sections;
 * single-name keywords (SPECIFICATION, INIT, NEXT, SYMMETRY, VIEW, ALIAS, CHECK_DEADLOCK) may appear once.
 */
import path from 'node:path';
import { CfgError, type CfgConstant, type CfgLocation, type CfgValue, type ModelConfig } from './types.js';

const KEYWORDS = new Set([
  'CONSTANT',
  'CONSTANTS',
  'INIT',
  'NEXT',
  'SPECIFICATION',
  'INVARIANT',
  'INVARIANTS',
  'PROPERTY',
  'PROPERTIES',
  'CONSTRAINT',
  'CONSTRAINTS',
  'ACTION_CONSTRAINT',
  'ACTION_CONSTRAINTS',
  'SYMMETRY',
  'VIEW',
  'ALIAS',
  'POSTCONDITION',
  'POSTCONDITIONS',
  '_POSSIBLE',
  'CHECK_DEADLOCK',
]);

/** TLC stores integers as 32-bit Java ints. */
const MAX_INT = 2 ** 31 - 1;

type Token =
  | { kind: 'ident'; text: string; loc: CfgLocation }
  | { kind: 'keyword'; text: string; loc: CfgLocation }
  | { kind: 'number'; text: string; loc: CfgLocation }
  | { kind: 'string'; text: string; value: string; loc: CfgLocation }
  | { kind: 'punct'; text: string; loc: CfgLocation }
  | { kind: 'eof'; text: ''; loc: CfgLocation };

/** Two-character symbols first, so that `==` is one token. `<<`, `>>` and `-` exist only to be rejected clearly. */
const PUNCTS = ['<-', '<<', '>>', '==', '=', '-', '!', '{', '}', '[', ']', '(', ')', ','];

const STRING_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', n: '\n', t: '\t', r: '\r', f: '\f' };

/** Yields the tokens of `text` lazily, so that errors come in file order; the last is 'eof'. */
function* tokenize(text: string, file: string): Generator<Token, void, undefined> {
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const here = (): CfgLocation => ({ line, column: i - lineStart + 1 });
  const fail: (message: string, loc?: CfgLocation) => never = (message, loc = here()) => {
    throw new CfgError(message, file, loc);
  };
  /** Advances past one character, keeping track of lines. */
  const step = (): void => {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
    i++;
  };

  if (text.charCodeAt(0) === 0xfeff) i = lineStart = 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\f') {
      step();
    } else if (text.startsWith('\\*', i)) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (text.startsWith('(*', i)) {
      const open = here();
      let depth = 0;
      while (i < text.length) {
        if (text.startsWith('(*', i)) {
          depth++;
          i += 2;
        } else if (text.startsWith('*)', i)) {
          depth--;
          i += 2;
          if (depth === 0) break;
        } else {
          step();
        }
      }
      if (depth > 0) fail('unterminated comment: "(*" has no matching "*)"', open);
    } else if (c === '"') {
      const loc = here();
      const start = i;
      let value = '';
      i++;
      for (;;) {
        const d = text[i];
        if (d === undefined || d === '\n' || d === '\r') fail('unterminated string literal', loc);
        i++;
        if (d === '"') break;
        if (d === '\\') {
          const e = text[i] ?? '';
          const unescaped = STRING_ESCAPES[e];
          if (unescaped === undefined) fail(`invalid escape sequence "\\${e}" in string literal`);
          value += unescaped;
          i++;
        } else {
          value += d;
        }
      }
      yield { kind: 'string', text: text.slice(start, i), value, loc };
    } else if (/[A-Za-z0-9_]/.test(c)) {
      const loc = here();
      const start = i;
      while (i < text.length && /[A-Za-z0-9_]/.test(text[i]!)) i++;
      const word = text.slice(start, i);
      if (/^[0-9]+$/.test(word)) yield { kind: 'number', text: word, loc };
      else if (!/[A-Za-z]/.test(word)) fail(`invalid name "${word}": a name needs at least one letter`, loc);
      else yield { kind: KEYWORDS.has(word) ? 'keyword' : 'ident', text: word, loc };
    } else {
      const punct = PUNCTS.find((p) => text.startsWith(p, i));
      if (punct === undefined) fail(`unexpected character "${c}"`);
      const loc = here();
      i += punct.length;
      yield { kind: 'punct', text: punct, loc };
    }
  }
  yield { kind: 'eof', text: '', loc: here() };
}

function describe(t: Token): string {
  switch (t.kind) {
    case 'eof':
      return 'end of file';
    case 'keyword':
      return `keyword ${t.text}`;
    case 'string':
      return `string ${t.text}`;
    default:
      return `"${t.text}"`;
  }
}

type SingleKey = 'specification' | 'init' | 'next' | 'symmetry' | 'view' | 'alias';
type ListKey =
  'invariants' | 'properties' | 'constraints' | 'actionConstraints' | 'postconditions' | 'possible';

const SINGLE: Record<string, SingleKey> = {
  SPECIFICATION: 'specification',
  INIT: 'init',
  NEXT: 'next',
  SYMMETRY: 'symmetry',
  VIEW: 'view',
  ALIAS: 'alias',
};

const LISTS: Record<string, { key: ListKey; what: string }> = {
  INVARIANT: { key: 'invariants', what: 'an invariant name' },
  INVARIANTS: { key: 'invariants', what: 'an invariant name' },
  PROPERTY: { key: 'properties', what: 'a property name' },
  PROPERTIES: { key: 'properties', what: 'a property name' },
  CONSTRAINT: { key: 'constraints', what: 'a constraint name' },
  CONSTRAINTS: { key: 'constraints', what: 'a constraint name' },
  ACTION_CONSTRAINT: { key: 'actionConstraints', what: 'an action constraint name' },
  ACTION_CONSTRAINTS: { key: 'actionConstraints', what: 'an action constraint name' },
  POSTCONDITION: { key: 'postconditions', what: 'a postcondition name' },
  POSTCONDITIONS: { key: 'postconditions', what: 'a postcondition name' },
  _POSSIBLE: { key: 'possible', what: 'a predicate name' },
};

class Parser {
  private current: Token;
  /** Where each single-name keyword was first given, to report a repetition. */
  private readonly seen = new Map<string, CfgLocation>();

  constructor(
    private readonly tokens: Generator<Token, void, undefined>,
    private readonly file: string,
  ) {
    this.current = this.pull();
  }

  parse(): ModelConfig {
    const config: ModelConfig = {
      file: this.file,
      constants: [],
      invariants: [],
      properties: [],
      constraints: [],
      actionConstraints: [],
      postconditions: [],
      possible: [],
    };
    for (let t = this.peek(); t.kind !== 'eof'; t = this.peek()) {
      if (t.kind !== 'keyword') {
        this.fail(`expected a keyword (${[...KEYWORDS].join(', ')}), found ${describe(t)}`, t);
      }
      this.next();
      const single = SINGLE[t.text];
      const list = LISTS[t.text];
      if (single !== undefined) {
        this.once(t);
        config[single] = this.name(`an operator name after ${t.text}`);
      } else if (list !== undefined) {
        config[list.key].push(...this.names(list.what));
      } else if (t.text === 'CHECK_DEADLOCK') {
        this.once(t);
        config.checkDeadlock = this.checkDeadlock();
      } else {
        this.constants(config.constants);
      }
    }
    return config;
  }

  private pull(): Token {
    const r = this.tokens.next();
    if (r.done) throw new Error('cfg tokenizer ended without an eof token');
    return r.value;
  }

  private peek(): Token {
    return this.current;
  }

  /** Consumes and returns the current token; at the end it keeps returning 'eof'. */
  private next(): Token {
    const t = this.current;
    if (t.kind !== 'eof') this.current = this.pull();
    return t;
  }

  private fail(message: string, t: Token): never {
    throw new CfgError(message, this.file, t.loc);
  }

  private isPunct(text: string): boolean {
    const t = this.peek();
    return t.kind === 'punct' && t.text === text;
  }

  private expectPunct(text: string, context: string): void {
    const t = this.next();
    if (t.kind !== 'punct' || t.text !== text)
      this.fail(`expected "${text}" ${context}, found ${describe(t)}`, t);
  }

  /** TLC rejects a single-name keyword given twice (INIT, NEXT, ..., CHECK_DEADLOCK). */
  private once(keyword: Token): void {
    const first = this.seen.get(keyword.text);
    if (first !== undefined) {
      this.fail(`${keyword.text} given twice (first at line ${first.line}, column ${first.column})`, keyword);
    }
    this.seen.set(keyword.text, keyword.loc);
  }

  private name(what: string): string {
    const t = this.next();
    if (t.kind !== 'ident') this.fail(`expected ${what}, found ${describe(t)}`, t);
    return t.text;
  }

  /** Names up to the next keyword or the end; TLC separates them by whitespace only. */
  private names(what: string): string[] {
    const out: string[] = [];
    for (let t = this.peek(); t.kind !== 'keyword' && t.kind !== 'eof'; t = this.peek()) {
      if (t.kind !== 'ident') {
        const hint = t.text === ',' ? ' (names are separated by whitespace, not commas)' : '';
        this.fail(`expected ${what} or a keyword, found ${describe(t)}${hint}`, t);
      }
      out.push(t.text);
      this.next();
    }
    return out;
  }

  private checkDeadlock(): boolean {
    const t = this.next();
    if (t.kind === 'ident' && (t.text === 'TRUE' || t.text === 'FALSE')) return t.text === 'TRUE';
    return this.fail(`expected TRUE or FALSE after CHECK_DEADLOCK, found ${describe(t)}`, t);
  }

  /** Entries of a CONSTANT(S) section, up to the next keyword or the end. */
  private constants(out: CfgConstant[]): void {
    for (let t = this.peek(); t.kind !== 'keyword' && t.kind !== 'eof'; t = this.peek()) {
      const loc = t.loc;
      let name = this.name('a constant name or a keyword');
      while (this.isPunct('!')) {
        this.next();
        name += '!' + this.name(`a name after "${name}!"`);
      }
      if (this.isPunct('<-')) {
        this.next();
        if (this.isPunct('[')) {
          this.next();
          const module = this.name('a module name after "<- ["');
          this.expectPunct(']', `after module name ${module}`);
          const by = this.name(`a definition name after "<- [${module}]"`);
          out.push({ kind: 'moduleSubstitution', name, module, by, loc });
        } else {
          out.push({
            kind: 'substitution',
            name,
            by: this.name(`a definition name after "${name} <-"`),
            loc,
          });
        }
        continue;
      }
      const args: CfgValue[] = [];
      if (this.isPunct('(')) {
        this.next();
        args.push(this.value());
        while (this.isPunct(',')) {
          this.next();
          args.push(this.value());
        }
        this.expectPunct(')', `to close the arguments of ${name}`);
      }
      const op = this.peek();
      if (op.kind !== 'punct' || op.text !== '=') {
        this.fail(`expected "=" or "<-" after constant ${name}, found ${describe(op)}`, op);
      }
      this.next();
      if (this.isPunct('[')) {
        this.next();
        const module = this.name('a module name after "= ["');
        this.expectPunct(']', `after module name ${module}`);
        out.push({ kind: 'moduleValue', name, module, args, value: this.value(), loc });
      } else if (args.length > 0) {
        out.push({ kind: 'operatorValue', name, args, value: this.value(), loc });
      } else {
        out.push({ kind: 'value', name, value: this.value(), loc });
      }
    }
  }

  private value(): CfgValue {
    const t = this.next();
    switch (t.kind) {
      case 'number': {
        const value = Number(t.text);
        if (value > MAX_INT) this.fail(`integer ${t.text} is too large (TLC's limit is ${MAX_INT})`, t);
        return { kind: 'int', value };
      }
      case 'string':
        return { kind: 'string', value: t.value };
      case 'ident':
        if (t.text === 'TRUE' || t.text === 'FALSE') return { kind: 'bool', value: t.text === 'TRUE' };
        return { kind: 'modelValue', name: t.text };
      case 'punct':
        if (t.text === '{') return this.setRest();
        if (t.text === '-') {
          this.fail(
            'negative integers are not allowed in a .cfg file (TLC has no "-" in cfg values); ' +
              'define the value in the spec and use "C <- Def"',
            t,
          );
        }
        if (t.text === '<<') {
          this.fail(
            'tuples are not allowed in a .cfg file (TLC accepts only integers, strings, TRUE, FALSE, ' +
              'model values and sets); define the value in the spec and use "C <- Def"',
            t,
          );
        }
    }
    return this.fail(
      `expected a value (integer, string, TRUE, FALSE, model value or {set}), found ${describe(t)}`,
      t,
    );
  }

  /** The elements and closing brace of a set literal whose "{" has been read. */
  private setRest(): CfgValue {
    const elements: CfgValue[] = [];
    if (this.isPunct('}')) {
      this.next();
      return { kind: 'set', elements };
    }
    for (;;) {
      elements.push(this.value());
      const t = this.next();
      if (t.kind === 'punct' && t.text === '}') return { kind: 'set', elements };
      if (t.kind !== 'punct' || t.text !== ',')
        this.fail(`expected "," or "}" in a set, found ${describe(t)}`, t);
    }
  }
}

/**
 * Parses the text of a TLC model configuration file; `file` names it in error messages. A `.tla`
 * file holds its configuration in a block `---- CONFIG Name ----` ... `====`, Name being the file's
 * own (TLC's `MonolithSpecExtractor#config`); without one, the configuration is empty.
 */
export function parseCfg(text: string, file: string): ModelConfig {
  const source = file.endsWith('.tla') ? embeddedConfig(text, path.basename(file, '.tla')) : text;
  return new Parser(tokenize(source, file), file).parse();
}

/** The lines of the block `---- CONFIG name ----`, the others blanked (so lines keep their numbers). */
function embeddedConfig(text: string, name: string): string {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const header = new RegExp(`^-{4,}\\s*CONFIG\\s+${escaped}\\s*-{4,}\\s*$`);
  let inside: boolean | 'done' = false;
  return text
    .split('\n')
    .map((line) => {
      if (inside === true && /^={4,}/.test(line)) inside = 'done';
      else if (inside === false && header.test(line)) inside = true;
      else if (inside === true) return line;
      return '';
    })
    .join('\n');
}
