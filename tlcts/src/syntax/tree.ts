/**
 * A plain JS copy of a tree-sitter tree, taken in one cursor pass. Each accessor of the binding's
 * nodes (children, fields, text, positions) crosses into native code and allocates: converting a
 * spec through them cost more than parsing it. The binding's node objects are never made, so
 * `parserFor` spares the language their classes.
 */
import Parser from 'tree-sitter';

export interface Point {
  row: number;
  column: number;
}

/**
 * The source a tree was parsed from, with where its lines start (tree-sitter counts rows by '\n').
 * A point's column is SANY's (JavaCC's `SimpleCharStream`): a tab reaches the next multiple of 8.
 */
class Source {
  private readonly lineStarts: number[] = [0];
  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
  }
  point(index: number): Point {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    const start = this.lineStarts[lo]!;
    if (this.text.lastIndexOf('\t', index - 1) < start) return { row: lo, column: index - start };
    let column = 0;
    for (let i = start; i < index; i++)
      column = this.text[i] === '\t' ? column + 8 - (column % 8) : column + 1;
    return { row: lo, column };
  }
}

export class SyntaxNode {
  readonly children: SyntaxNode[] = [];
  /** Each child's field name, or null, by position. */
  private readonly fields: (string | null)[] = [];
  private named?: SyntaxNode[];
  /** Whether the node is, or holds, a syntax error or a token the parser supplied (missing). */
  hasError: boolean;
  constructor(
    private readonly source: Source,
    readonly type: string,
    readonly isNamed: boolean,
    readonly isMissing: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
  ) {
    this.hasError = type === 'ERROR' || isMissing;
  }
  get text(): string {
    return this.source.text.slice(this.startIndex, this.endIndex);
  }
  get startPosition(): Point {
    return this.source.point(this.startIndex);
  }
  get endPosition(): Point {
    return this.source.point(this.endIndex);
  }
  get namedChildren(): SyntaxNode[] {
    return (this.named ??= this.children.filter((c) => c.isNamed));
  }
  child(i: number): SyntaxNode | null {
    return this.children[i] ?? null;
  }
  childForFieldName(name: string): SyntaxNode | null {
    const i = this.fields.indexOf(name);
    return i < 0 ? null : this.children[i]!;
  }
  childrenForFieldName(name: string): SyntaxNode[] {
    return this.children.filter((_, i) => this.fields[i] === name);
  }
  /** Adds a child under a field name (or none). */
  add(child: SyntaxNode, field: string | null): void {
    this.children.push(child);
    this.fields.push(field);
    if (child.hasError) this.hasError = true;
  }
}

/** The copy of a tree parsed from `text`. */
export function copyTree(tree: Parser.Tree, text: string): SyntaxNode {
  const source = new Source(text);
  const cursor = tree.walk();
  const copy = (): SyntaxNode => {
    const node = new SyntaxNode(
      source,
      cursor.nodeType,
      cursor.nodeIsNamed,
      cursor.nodeIsMissing,
      cursor.startIndex,
      cursor.endIndex,
    );
    if (cursor.gotoFirstChild()) {
      do {
        const field = cursor.currentFieldName as string | null | undefined;
        node.add(copy(), field ?? null);
      } while (cursor.gotoNextSibling());
      cursor.gotoParent();
    }
    return node;
  };
  return copy();
}

/**
 * A parser of the language. The binding's setLanguage builds a JS class for each node type of a
 * language without `nodeSubclasses` (10-17 ms for TLA+'s, each run), adding field getters to its
 * base node class; copyTree makes one node, the root its cursor starts from, and uses no getter,
 * so every type (a 16-bit id) is given the base class.
 */
export function parserFor(language: unknown): Parser {
  const parser = new Parser();
  (language as { nodeSubclasses?: unknown[] }).nodeSubclasses ??= new Array(2 ** 16).fill(
    (Parser as unknown as { SyntaxNode: unknown }).SyntaxNode,
  );
  parser.setLanguage(language as Parser.Language);
  return parser;
}
