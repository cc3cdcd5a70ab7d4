/**
 * The tokens of SANY's lexer (tla2sany/parser/tla+.jj, JavaCC 4.0): what SANY's parser sees, with
 * JavaCC's positions, and SANY's lexical errors (TokenMgrError) where no token fits.
 */

/** Token kinds; operators are grouped by the class SANY's grammar asks for. */
export type Kind =
  | 'EOF'
  | 'BEGIN_MODULE'
  | 'SEPARATOR'
  | 'END_MODULE'
  | 'IDENTIFIER'
  | 'NUMBER'
  | 'STRING'
  | 'PROOF_STEP'
  | 'DEFBREAK'
  /** Infix operators, `/\` and `\/` (AND, OR), `\in` (IN), `=` (EQUALS) and `-` (MINUS). */
  | 'INFIX'
  | 'AND'
  | 'OR'
  | 'IN'
  | 'EQUALS'
  | 'MINUS'
  /** Prefix operators (`~`, `<>`, ENABLED, ...), `[]` (CASESEP), `-.` (NEGATIVE), postfix (`'`, `^+`, ...). */
  | 'PREFIX'
  | 'CASESEP'
  | 'NEGATIVE'
  | 'POSTFIX'
  | Keyword
  | Punctuation;

const KEYWORDS = {
  ACTION: 'ACTION',
  ACTIONS: 'ACTION',
  ASSUME: 'ASSUME',
  ASSUMPTION: 'ASSUMPTION',
  AXIOM: 'ASSUMPTION',
  CASE: 'CASE',
  CHOOSE: 'CHOOSE',
  CONSTANT: 'CONSTANT',
  CONSTANTS: 'CONSTANT',
  ELSE: 'ELSE',
  EXCEPT: 'EXCEPT',
  EXTENDS: 'EXTENDS',
  IF: 'IF',
  INSTANCE: 'INSTANCE',
  LET: 'LET',
  IN: 'LETIN',
  LOCAL: 'LOCAL',
  MODULE: 'MODULE',
  NEW: 'NEW',
  OTHER: 'OTHER',
  PROPOSITION: 'PROPOSITION',
  LEMMA: 'PROPOSITION',
  COROLLARY: 'PROPOSITION',
  THEN: 'THEN',
  BY: 'BY',
  ONLY: 'ONLY',
  DEFINE: 'DEFINE',
  DEF: 'DF',
  DEFS: 'DF',
  THEOREM: 'THEOREM',
  USE: 'USE',
  HIDE: 'HIDE',
  HAVE: 'HAVE',
  OBVIOUS: 'OBVIOUS',
  OMITTED: 'OMITTED',
  LAMBDA: 'LAMBDA',
  TAKE: 'TAKE',
  PROOF: 'PROOF',
  PROVE: 'PROVE',
  QED: 'QED',
  RECURSIVE: 'RECURSIVE',
  STATE: 'STATE',
  TEMPORAL: 'TEMPORAL',
  TEMPORALS: 'TEMPORAL',
  PICK: 'PICK',
  WITNESS: 'WITNESS',
  SUFFICES: 'SUFFICES',
  VARIABLE: 'VARIABLE',
  VARIABLES: 'VARIABLE',
  WITH: 'WITH',
} as const;
type Keyword = (typeof KEYWORDS)[keyof typeof KEYWORDS] | 'EXISTS' | 'FORALL' | 'T_EXISTS' | 'T_FORALL';
type Keyword2 = Keyword | 'WF' | 'SF' | 'BOXASSUME' | 'BOXPROVE';

type Punctuation =
  | 'COMMA'
  | 'COLON'
  | 'COLONCOLON'
  | 'DOT'
  | 'US'
  | 'DEF'
  | 'LBR'
  | 'RBR'
  | 'LSB'
  | 'ARSB'
  | 'RSB'
  | 'LWB'
  | 'RWB'
  | 'LBC'
  | 'RBC'
  | 'LAB'
  | 'ARAB'
  | 'RAB'
  | 'BANG'
  | 'ARROW'
  | 'SUBSTITUTE'
  | 'MAPTO'
  | 'WF'
  | 'SF'
  | 'BOXASSUME'
  | 'BOXPROVE';

/** Operators and punctuation by their spelling (the SPEC-mode TOKEN sections of tla+.jj). */
const SYMBOLS: ReadonlyMap<string, Kind> = new Map<string, Kind>([
  ...(
    [
      [',', 'COMMA'],
      [':', 'COLON'],
      ['::', 'COLONCOLON'],
      ['∷', 'COLONCOLON'],
      ['.', 'DOT'],
      ['_', 'US'],
      ['==', 'DEF'],
      ['≜', 'DEF'],
      ['(', 'LBR'],
      [')', 'RBR'],
      ['[', 'LSB'],
      [']_', 'ARSB'],
      [']', 'RSB'],
      ['{|', 'LWB'],
      ['|}', 'RWB'],
      ['{', 'LBC'],
      ['}', 'RBC'],
      ['<<', 'LAB'],
      ['⟨', 'LAB'],
      ['>>_', 'ARAB'],
      ['⟩_', 'ARAB'],
      ['>>', 'RAB'],
      ['⟩', 'RAB'],
      ['!', 'BANG'],
      ['->', 'ARROW'],
      ['→', 'ARROW'],
      ['<-', 'SUBSTITUTE'],
      ['←', 'SUBSTITUTE'],
      ['|->', 'MAPTO'],
      ['↦', 'MAPTO'],
      ['WF_', 'WF'],
      ['SF_', 'SF'],
      ['[]ASSUME', 'BOXASSUME'],
      ['[]PROVE', 'BOXPROVE'],
      ['\\E', 'EXISTS'],
      ['\\exists', 'EXISTS'],
      ['∃', 'EXISTS'],
      ['\\A', 'FORALL'],
      ['\\forall', 'FORALL'],
      ['∀', 'FORALL'],
      ['\\EE', 'T_EXISTS'],
      ['\\AA', 'T_FORALL'],
      ["'", 'POSTFIX'],
      ['^+', 'POSTFIX'],
      ['⁺', 'POSTFIX'],
      ['^*', 'POSTFIX'],
      ['^#', 'POSTFIX'],
      ['-.', 'NEGATIVE'],
      ['\\lnot', 'PREFIX'],
      ['¬', 'PREFIX'],
      ['\\neg', 'PREFIX'],
      ['~', 'PREFIX'],
      ['[]', 'CASESEP'],
      ['□', 'CASESEP'],
      ['<>', 'PREFIX'],
      ['◇', 'PREFIX'],
      ['/\\', 'AND'],
      ['∧', 'AND'],
      ['\\/', 'OR'],
      ['∨', 'OR'],
      ['\\in', 'IN'],
      ['∈', 'IN'],
      ['=', 'EQUALS'],
      ['-', 'MINUS'],
    ] as const
  ).map(([s, k]) => [s, k] as const),
  ...[
    '//',
    '/=',
    '/',
    '\\approx',
    '\\asymp',
    '\\bigcirc',
    '\\bullet',
    '\\cap',
    '\\cdot',
    '\\circ',
    '\\cong',
    '\\cup',
    '\\div',
    '\\doteq',
    '\\equiv',
    '\\geq',
    '\\gg',
    '\\intersect',
    '\\union',
    '\\land',
    '\\leq',
    '\\ll',
    '\\lor',
    '\\o',
    '\\odot',
    '\\ominus',
    '\\oplus',
    '\\oslash',
    '\\otimes',
    '\\prec',
    '\\preceq',
    '\\propto',
    '\\sim',
    '\\simeq',
    '\\sqcap',
    '\\sqcup',
    '\\sqsubset',
    '\\sqsupset',
    '\\sqsubseteq',
    '\\sqsupseteq',
    '\\star',
    '\\subset',
    '\\subseteq',
    '\\succ',
    '\\succeq',
    '\\supset',
    '\\supseteq',
    '\\uplus',
    '\\wr',
    '\\',
    '~>',
    '=>',
    '=<',
    '=|',
    '##',
    '#',
    '^^',
    '^',
    '--',
    '-|',
    '-+->',
    '**',
    '*',
    '++',
    '+',
    '<=>',
    '<:',
    '<=',
    '<',
    '>=',
    '>',
    '...',
    '..',
    '||',
    '|',
    '|-',
    '|=',
    '&&',
    '&',
    '$$',
    '$',
    '??',
    '%%',
    '%',
    '@@',
    '!!',
    ':>',
    ':=',
    '::=',
    '(+)',
    '(-)',
    '(.)',
    '(/)',
    '(\\X)',
    '\\notin',
    '\\times',
    '\\X',
    ...'≈≔≍◯⩴●∩⋅∘≅∪÷≐‥…≡‼≥≫⇔⇒⫤↝≤≪⊣≠∉⊙⊖⊕⊘⊗⇸≺⪯∝⁇⊨⊢∼≃⊓⊔⊏⊑⊐⊒⋆⊂⊆≻⪰⊃⊇×⊎‖≀',
  ].map((s) => [s, 'INFIX'] as const),
]);

/** The longest spelling of SYMBOLS, to bound the prefix tried. */
const LONGEST_SYMBOL = Math.max(...[...SYMBOLS.keys()].map((s) => s.length));

const PREFIX_WORDS = new Set(['ENABLED', 'UNCHANGED', 'SUBSET', 'UNION', 'DOMAIN']);

/** Keywords a record field or module name may be (`TLAplusParser#isFieldNameToken`). */
export const FIELD_NAME_KEYWORDS: ReadonlySet<Kind> = new Set<Kind>([
  'ACTION',
  'ASSUME',
  'BOXASSUME',
  'ASSUMPTION',
  'CASE',
  'CHOOSE',
  'CONSTANT',
  'ELSE',
  'EXCEPT',
  'EXTENDS',
  'IF',
  'INSTANCE',
  'LET',
  'LETIN',
  'LOCAL',
  'MODULE',
  'NEW',
  'OTHER',
  'PROPOSITION',
  'SF',
  'STATE',
  'THEN',
  'BY',
  'ONLY',
  'DEFINE',
  'DF',
  'THEOREM',
  'USE',
  'HIDE',
  'HAVE',
  'OBVIOUS',
  'OMITTED',
  'LAMBDA',
  'TAKE',
  'PROOF',
  'PROVE',
  'BOXPROVE',
  'QED',
  'RECURSIVE',
  'TEMPORAL',
  'PICK',
  'WITNESS',
  'SUFFICES',
  'VARIABLE',
  'WF',
  'WITH',
  'US',
]);

export interface Token {
  kind: Kind;
  /** The text SANY shows for it (`Beginning of definition` for a DEFBREAK SANY inserts). */
  image: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  /** PREFIX tokens spelled as a word (ENABLED, ...) may be a record field's name. */
  fieldName?: boolean;
}

/** A TokenMgrError: the message SANY prints for it (`TLAplusParser#parse`). */
export class LexicalError {
  constructor(readonly message: string) {}
}

/** The tokens of the first module of `source`, ending with EOF. */
export interface Lexed {
  tokens: Token[];
  /** Where no token fits, the lexer stops: SANY reports this once its parser reads the last token. */
  error?: LexicalError;
}

/** JavaCC's line and column of each character (`SimpleCharStream#UpdateLineColumn`: tabs stop every 8). */
function positions(source: string): { line: Int32Array; col: Int32Array } {
  const line = new Int32Array(source.length);
  const col = new Int32Array(source.length);
  let l = 1;
  let c = 0;
  let afterLF = false;
  let afterCR = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    c++;
    if (afterLF) {
      afterLF = false;
      l += c = 1;
    } else if (afterCR) {
      afterCR = false;
      if (ch === '\n') afterLF = true;
      else l += c = 1;
    }
    if (ch === '\r') afterCR = true;
    else if (ch === '\n') afterLF = true;
    else if (ch === '\t') {
      c--;
      c += 8 - (c % 8);
    }
    line[i] = l;
    col[i] = c;
  }
  return { line, col };
}

/** JavaCC's `addEscapes` (`add_escapes`), as SANY's messages show text. */
export function escapeText(s: string): string {
  let out = '';
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    const named: Record<string, string> = {
      '\b': '\\b',
      '\t': '\\t',
      '\n': '\\n',
      '\f': '\\f',
      '\r': '\\r',
      '"': '\\"',
      "'": "\\'",
      '\\': '\\\\',
    };
    if (code === 0) continue;
    if (named[ch]) out += named[ch];
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}

const BEGIN_MODULE = /^----+ *MODULE/;
const WORD = /^[A-Za-z0-9_]+/;
const NUMBER_LITERAL = /^(\\[oO][0-7]+|\\[bB][01]+|\\[hH][0-9a-fA-F]+)/;
const STRING = /^"(?:[^"`\n\r\\]|`[^']*'|\\[ntrf\\"])*"/;
const PROOF_STEP = /^<(?:\d+|\+|\*)>(?:[A-Za-z0-9_]+\.*|\**\.*|-*\.*|\.+)?/;

/** The index after the `*)` that closes the `(*` at `start` (comments nest); undefined if none does. */
export function commentEnd(source: string, start: number): number | undefined {
  let depth = 0;
  for (let j = start; j < source.length;) {
    if (source.startsWith('(*', j)) {
      depth++;
      j += 2;
    } else if (source.startsWith('*)', j)) {
      j += 2;
      if (--depth === 0) return j;
    } else j++;
  }
  return undefined;
}

/** Where a string literal starting at `start` stops matching STRING_LITERAL (the length of the source at its end). */
function stringFailure(source: string, start: number): number {
  let j = start + 1;
  while (j < source.length) {
    const c = source[j]!;
    if (c === '\n' || c === '\r') return j;
    if (c === '\\') {
      if (!'ntrf\\"'.includes(source[j + 1] ?? '')) return j + 1;
      j += 2;
    } else if (c === '`') {
      const close = source.indexOf("'", j + 1);
      if (close < 0) return source.length;
      j = close + 1;
    } else j++;
  }
  return source.length;
}

export function lex(source: string): Lexed {
  const { line, col } = positions(source);
  const tokens: Token[] = [];
  const token = (kind: Kind, start: number, end: number, image = source.slice(start, end)): Token => ({
    kind,
    image,
    line: line[start]!,
    col: col[start]!,
    endLine: line[end - 1]!,
    endCol: col[end - 1]!,
  });
  const eof = (): Token => {
    const last = Math.max(source.length - 1, 0);
    return { kind: 'EOF', image: '<EOF>', line: line[last] ?? 1, col: col[last] ?? 0, endLine: 0, endCol: 0 };
  };
  // DEFAULT mode: everything before the first module's header is skipped.
  const header = /----+ *MODULE/.exec(source);
  if (!header) return { tokens: [eof()] };
  let i = header.index;
  let depth = 0;
  /** A lexical error at character `at`, after the partial token from `start` (TokenMgrError#LexicalError). */
  const lexicalError = (start: number, at: number): Lexed => {
    if (at >= source.length) {
      const last = source.length - 1;
      const newline = source[last] === '\n' || source[last] === '\r';
      const where = `line ${line[last]! + (newline ? 1 : 0)}, column ${newline ? 0 : col[last]! + 1}`;
      const message =
        line[start] !== line[last]
          ? `Lexical {error: EOF reached, possibly open comment starting around line ${line[start]}`
          : `Lexical error at ${where}.  Encountered: <EOF> after : "${escapeText(source.slice(start))}"`;
      return { tokens: [...tokens, eof()], error: new LexicalError(message) };
    }
    const ch = source[at]!;
    return {
      tokens: [...tokens, eof()],
      error: new LexicalError(
        `Lexical error at line ${line[at]}, column ${col[at]}.  Encountered: "${escapeText(ch)}" (${ch.charCodeAt(0)}), after : "${escapeText(source.slice(start, at))}"`,
      ),
    };
  };
  while (i < source.length) {
    const rest = source.slice(i, i + 200);
    const ch = source[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f') {
      i++;
      continue;
    }
    if (rest.startsWith('(*')) {
      const end = commentEnd(source, i);
      if (end === undefined) return lexicalError(i, source.length);
      i = end;
      continue;
    }
    if (rest.startsWith('\\*')) {
      const end = source.slice(i).search(/[\n\r]/);
      if (end < 0) return lexicalError(i, source.length);
      i += end + 1;
      continue;
    }
    const begin = BEGIN_MODULE.exec(rest);
    if (begin) {
      tokens.push(token('BEGIN_MODULE', i, i + begin[0].length));
      depth++;
      i += begin[0].length;
      continue;
    }
    const dashes = /^-{4,}/.exec(rest) ?? /^={4,}/.exec(rest);
    if (dashes) {
      const kind = dashes[0][0] === '-' ? 'SEPARATOR' : 'END_MODULE';
      tokens.push(token(kind, i, i + dashes[0].length));
      i += dashes[0].length;
      if (kind === 'END_MODULE' && --depth === 0) break;
      continue;
    }
    const str = STRING.exec(rest);
    if (str) {
      tokens.push(token('STRING', i, i + str[0].length));
      i += str[0].length;
      continue;
    }
    if (ch === '"') return lexicalError(i, stringFailure(source, i));
    const step = PROOF_STEP.exec(rest);
    if (step) {
      tokens.push(token('PROOF_STEP', i, i + step[0].length));
      i += step[0].length;
      continue;
    }
    const word = WORD.exec(rest);
    const number = NUMBER_LITERAL.exec(rest);
    let symbol: string | undefined;
    for (let n = Math.min(LONGEST_SYMBOL, rest.length); n > 0 && !symbol; n--)
      if (SYMBOLS.has(rest.slice(0, n))) symbol = rest.slice(0, n);
    if (number && number[0].length >= (symbol?.length ?? 0)) {
      tokens.push(token('NUMBER', i, i + number[0].length));
      i += number[0].length;
      continue;
    }
    const digits = /^\d+/.exec(rest);
    if (word && !/[A-Za-z]/.test(word[0]) && digits) {
      tokens.push(token('NUMBER', i, i + digits[0].length));
      i += digits[0].length;
      continue;
    }
    if (word && /[A-Za-z]/.test(word[0]) && !/^(WF|SF)_/.test(word[0])) {
      const w = word[0];
      const kind: Kind =
        (KEYWORDS as Record<string, Keyword2>)[w] ?? (PREFIX_WORDS.has(w) ? 'PREFIX' : 'IDENTIFIER');
      const t = token(kind, i, i + w.length);
      if (PREFIX_WORDS.has(w)) t.fieldName = true;
      tokens.push(t);
      i += w.length;
      continue;
    }
    if (symbol) {
      tokens.push(token(SYMBOLS.get(symbol)!, i, i + symbol.length));
      i += symbol.length;
      continue;
    }
    if (ch === '@' || ch === 'ℕ' || ch === 'ℤ' || ch === 'ℝ') {
      tokens.push(token('IDENTIFIER', i, i + 1));
      i++;
      continue;
    }
    // No token fits: JavaCC reads on while some token could still match, then fails on that character.
    let alive = 0;
    for (const s of SYMBOLS.keys()) {
      let n = 0;
      while (n < s.length && source[i + n] === s[n]) n++;
      if (n < s.length) alive = Math.max(alive, n);
    }
    return lexicalError(i, i + alive);
  }
  tokens.push(eof());
  return { tokens };
}
