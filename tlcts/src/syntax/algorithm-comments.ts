/**
 * PlusCal algorithms live in comments, which SANY skips whole. tree-sitter's TLA+ grammar parses
 * them, and refuses a module over PlusCal it does not know; so their text is blanked before it
 * parses (same length, newlines and tabs kept: every position and column stays as it was).
 */

/** source with the inside of each block comment holding an algorithm blanked. */
export function blankAlgorithmComments(source: string): string {
  if (!/--(fair\s+)?algorithm/.test(source)) return source;
  let out = '';
  let copied = 0;
  for (const [start, end] of blockComments(source)) {
    const body = source.slice(start + 2, end - 2);
    if (!/--(fair\s+)?algorithm/.test(body)) continue;
    out += source.slice(copied, start + 2) + body.replace(/[^\n\r\t]/g, ' ');
    copied = end - 2;
  }
  return out + source.slice(copied);
}

/** The spans [start, end) of the outermost block comments `(* ... *)` (nested ones inside), as SANY's lexer sees them. */
function* blockComments(source: string): Generator<[number, number]> {
  let i = 0;
  while (i < source.length) {
    const two = source.slice(i, i + 2);
    if (two === '\\*') {
      const eol = source.indexOf('\n', i);
      i = eol < 0 ? source.length : eol + 1;
    } else if (source[i] === '"') {
      i++;
      while (i < source.length && source[i] !== '"' && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
      i++;
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
      if (depth === 0) yield [start, i];
    } else i++;
  }
}
