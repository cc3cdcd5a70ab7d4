/**
 * The text tree-sitter parses for a module's source, where its grammar and SANY read the same text
 * differently:
 * - PlusCal algorithms live in comments, which SANY skips whole; tree-sitter's grammar parses them
 *   and refuses a module over PlusCal it does not know, so such comments' insides are blanked;
 * - SANY counts a tab to the next multiple of 8 (JavaCC's `SimpleCharStream`), junction lists
 *   (`/\` and `\/` aligned by column) included; tree-sitter counts it as one column, so tabs
 *   outside strings become the spaces SANY counts.
 * Lines keep their numbers and every token its column as SANY counts it.
 */

const ALGORITHM = /--(fair\s+)?algorithm/;

export function treeSitterText(source: string): string {
  if (!source.includes('\t') && !ALGORITHM.test(source)) return source;
  const strings: [number, number][] = [];
  const blanked: [number, number][] = [];
  for (const [kind, start, end] of spans(source)) {
    if (kind === 'string') strings.push([start, end]);
    else if (ALGORITHM.test(source.slice(start + 2, end - 2))) blanked.push([start + 2, end - 2]);
  }
  const out: string[] = [];
  let column = 0;
  let s = 0;
  let b = 0;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    while (s < strings.length && strings[s]![1] <= i) s++;
    while (b < blanked.length && blanked[b]![1] <= i) b++;
    if (ch === '\n') {
      out.push(ch);
      column = 0;
    } else if (ch === '\t') {
      const next = column + 8 - (column % 8);
      const inString = s < strings.length && strings[s]![0] <= i;
      out.push(inString ? ch : ' '.repeat(next - column));
      column = next;
    } else {
      const blank = b < blanked.length && blanked[b]![0] <= i && ch !== '\r';
      out.push(blank ? ' ' : ch);
      column++;
    }
  }
  return out.join('');
}

/** The string literals and outermost block comments `(* ... *)` (nested ones inside) of source, as SANY's lexer sees them. */
function* spans(source: string): Generator<['string' | 'comment', number, number]> {
  let i = 0;
  while (i < source.length) {
    const two = source.slice(i, i + 2);
    if (two === '\\*') {
      const eol = source.indexOf('\n', i);
      i = eol < 0 ? source.length : eol + 1;
    } else if (source[i] === '"') {
      const start = i++;
      while (i < source.length && source[i] !== '"' && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
      i++;
      yield ['string', start, Math.min(i, source.length)];
    } else if (two === '(*') {
      const start = i;
      let depth = 0;
      do {
        const here = source.slice(i, i + 2);
        if (here === '(*') {
          depth++;
          i += 2;
        } else if (here === '*)') {
          depth--;
          i += 2;
        } else i++;
      } while (depth > 0 && i < source.length);
      if (depth === 0) yield ['comment', start, i];
    } else i++;
  }
}
