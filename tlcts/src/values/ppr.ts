/**
 * TLC's pretty printer for values in traces (`Values.ppr`, `tlc2/pprint`): a value's printed form is
 * re-parsed and, where it is wider than the line, broken into one element per line
 * (docs/tlc-semantics.md §4.1). Parsing works on the text, as TLC's does, quirks included: a string
 * ends at its first `"` even when escaped, a name ends at its first character that is not a letter
 * or digit, and text that does not parse as a whole prints unchanged.
 */

type Kind = 'constant' | 'set' | 'seq' | 'fcn' | 'rcd' | 'subset';

interface Node {
  kind: Kind;
  /** The node's text in the printed value. */
  text: string;
  /** Elements of a set, sequence or SUBSET; [argument, value] pairs of a function or record. */
  elems: Node[];
  pairs: [Node, Node][];
}

class Unparsable extends Error {}

const isDigit = (c: string) => /^\p{Nd}$/u.test(c);
const isLetterOrDigit = (c: string) => /^[\p{L}\p{Nd}]$/u.test(c);
/** Java's Character.isWhitespace. */
const isWhitespace = (c: string) =>
  /^(?:[\t\n\v\f\r\x1c-\x1f]|(?![\xa0\u2007\u202f])[\p{Zs}\p{Zl}\p{Zp}])$/u.test(c);

class Parser {
  constructor(private readonly s: string) {}

  private at(i: number): string {
    if (i >= this.s.length) throw new Unparsable();
    return this.s[i]!;
  }

  private skip(i: number): number {
    while (isWhitespace(this.at(i))) i++;
    return i;
  }

  private node(kind: Kind, from: number, to: number, elems: Node[] = [], pairs: [Node, Node][] = []): Node {
    return { kind, text: this.s.slice(from, to), elems, pairs };
  }

  /** The value starting at i (after whitespace), and the index just past it. */
  parse(i: number): [Node, number] {
    i = this.skip(i);
    switch (this.at(i)) {
      case '{':
        return this.list('set', i, 1, '}', ',', false);
      case '<':
        return this.list('seq', i, 2, '>', ',', false);
      case '[':
        return this.list('rcd', i, 1, ']', ',', '|->');
      case '(':
        return this.list('fcn', i, 1, ')', '@@', ':>');
    }
    if (this.s.startsWith('SUBSET', i)) {
      const [elem, end] = this.parse(i + 6);
      return [this.node('subset', i, end, [elem]), end];
    }
    return this.constant(i);
  }

  /**
   * A delimited list; `div` is the token inside each pair of a function or record. Elements need not
   * be separated (a missing separator is skipped over); a sequence's closing `>>` is recognised by
   * its first `>`.
   */
  private list(
    kind: Kind,
    from: number,
    openLen: number,
    close: string,
    sep: string,
    div: string | false,
  ): [Node, number] {
    const elems: Node[] = [];
    const pairs: [Node, Node][] = [];
    let i = this.skip(from + openLen);
    while (this.at(i) !== close) {
      let end: number;
      if (div) {
        const [arg, argEnd] = this.parse(i);
        const d = this.skip(argEnd);
        if (!this.s.startsWith(div, d)) throw new Unparsable();
        const [val, valEnd] = this.parse(d + div.length);
        pairs.push([arg, val]);
        end = valEnd;
      } else {
        const [elem, elemEnd] = this.parse(i);
        elems.push(elem);
        end = elemEnd;
      }
      i = this.skip(end);
      if (this.s.startsWith(sep, i)) i += sep.length;
      i = this.skip(i);
    }
    const end = i + openLen;
    return [this.node(kind, from, end, elems, pairs), end];
  }

  /** A string, an interval `i..j`, a (negative) integer, a boolean or a model value. */
  private constant(from: number): [Node, number] {
    const c = this.at(from);
    let i = from + 1;
    if (c === '"') {
      while (this.at(i) !== '"') i++;
      return [this.node('constant', from, i + 1), i + 1];
    }
    if (isDigit(c)) {
      const interval = this.interval(from);
      if (interval) return interval;
    }
    if (c === '-' || isLetterOrDigit(c)) {
      const part = c === '-' ? isDigit : isLetterOrDigit;
      if (c === '-') this.at(i); // TLC's parser needs a character after a '-'
      while (i < this.s.length && part(this.s[i]!)) i++;
      return [this.node('constant', from, i), i];
    }
    throw new Unparsable();
  }

  private interval(from: number): [Node, number] | undefined {
    const s = this.s;
    let i = from;
    while (i < s.length && isDigit(s[i]!)) i++;
    if (!s.startsWith('..', i) || i + 2 >= s.length || !isDigit(s[i + 2]!)) return undefined;
    i += 2;
    while (i < s.length && isDigit(s[i]!)) i++;
    return [this.node('constant', from, i), i];
  }
}

interface Layout {
  open: string;
  close: string;
  pad: string;
  sep: string;
  /** For functions and records: the token between argument and value, and the extra indentation of a value put on its own line. */
  div?: string;
  divPad?: string;
}

const LAYOUT: { [k in Exclude<Kind, 'constant'>]: Layout } = {
  set: { open: '{ ', close: ' }', pad: '  ', sep: ',' },
  seq: { open: '<< ', close: ' >>', pad: '   ', sep: ',' },
  fcn: { open: '( ', close: ' )', pad: '  ', sep: ' @@', div: ' :>', divPad: '    ' },
  rcd: { open: '[ ', close: ' ]', pad: '  ', sep: ',', div: ' |->', divPad: '    ' },
  subset: { open: 'SUBSET ', close: ' ', pad: ' ', sep: ',' },
};

/**
 * The node within `width` columns, keeping the last `trailer` columns of its last line free for what
 * follows it; `indent` starts each of its further lines.
 */
function format(n: Node, width: number, trailer: number, indent: string): string {
  if (n.text.length <= width - trailer || n.kind === 'constant') return n.text;
  const l = LAYOUT[n.kind];
  const w = width - Math.max(l.open.length, l.pad.length);
  const t = trailer + l.close.length;
  const ind = indent + l.pad;
  const next = l.sep + '\n' + ind;
  let body = '';
  if (l.div === undefined) {
    n.elems.forEach((e, k) => {
      const last = k === n.elems.length - 1;
      body += last ? format(e, w, t, ind) : format(e, w, l.sep.length, ind) + next;
    });
  } else {
    const div = l.div;
    const divPad = l.divPad!;
    n.pairs.forEach(([arg, val], k) => {
      const last = k === n.pairs.length - 1;
      // A pair that is not last may use the columns kept free for the closer, but must fit its separator.
      const room = last ? w - t : w - l.sep.length;
      const valTrailer = last ? t : l.sep.length;
      if (arg.text.length + div.length + 1 + val.text.length <= room) body += `${arg.text}${div} ${val.text}`;
      else {
        const head = arg.text.length + div.length <= w ? arg.text : format(arg, w, t + div.length, ind);
        body += `${head}${div}\n${ind}${divPad}${format(val, w - divPad.length, valTrailer, ind + divPad)}`;
      }
      if (!last) body += next;
    });
  }
  return l.open + body + l.close;
}

/** A printed value as TLC shows it in a trace: unchanged if it fits in 80 columns, else broken over lines. */
export function ppr(value: string, width = 80): string {
  try {
    const [tree, end] = new Parser(value).parse(0);
    if (end < value.length) return value;
    return format(tree, width, 0, '');
  } catch (err) {
    if (err instanceof Unparsable) return value;
    throw err;
  }
}
