/**
 * SANY's report of a module it cannot parse. SANY's parser is JavaCC's (tla2sany/parser/tla+.jj):
 * this walks the same grammar over the same tokens (sany-lexer.ts), with SANY's DEFBREAK tokens
 * (`belchDEF`), its junction-list columns (`JunctionListContext`), its production names and its
 * `expecting` texts, and stops where SANY's parser stops, with SANY's message
 * (`TLAplusParser#msgStackToString`, `ParseExceptionExtended#getShortMessage`). It builds no tree.
 */
import { FIELD_NAME_KEYWORDS, LexicalError, escapeText, lex, type Kind, type Token } from './sany-lexer.js';

/** A ParseException: what SANY's parser prints for it. */
class ParseFailure {
  constructor(readonly message: string) {}
}

/** An error a production raises with its own text (a ParseException built from a message). */
class GrammarError {
  constructor(readonly text: string) {}
}

const OPEN_START = new Set<Kind>(['CASE', 'CHOOSE', 'EXISTS', 'FORALL', 'IF', 'LET', 'T_EXISTS', 'T_FORALL']);
const PAREN_START = new Set<Kind>(['LBR', 'LBC', 'LSB', 'LWB', 'LAB', 'WF', 'SF']);
const INFIX = new Set<Kind>(['INFIX', 'AND', 'OR', 'IN', 'EQUALS', 'MINUS']);
const PREFIX = new Set<Kind>(['PREFIX', 'CASESEP']);
const NE_PREFIX = new Set<Kind>(['PREFIX', 'CASESEP', 'NEGATIVE']);
/** Where belchDEF stops looking for the next `==`. */
const BELCH_STOP = new Set<Kind>(['EOF', 'THEOREM', 'PROPOSITION', 'ASSUMPTION', 'END_MODULE']);
/** Tokens that start a unit of a module body, where a skipped proof ends. */
const UNIT_START = new Set<Kind>([
  'SEPARATOR',
  'VARIABLE',
  'CONSTANT',
  'LOCAL',
  'DEFBREAK',
  'RECURSIVE',
  'INSTANCE',
  'ASSUME',
  'ASSUMPTION',
  'THEOREM',
  'PROPOSITION',
  'BEGIN_MODULE',
  'END_MODULE',
  'USE',
  'HIDE',
  'EOF',
]);

const isOp = (k: Kind) => INFIX.has(k) || PREFIX.has(k) || k === 'NEGATIVE' || k === 'POSTFIX';

/** The first tokens an Expression may start with (the first set JavaCC checks for `[Expression]`). */
function startsExpression(k: Kind): boolean {
  return (
    isOp(k) ||
    OPEN_START.has(k) ||
    PAREN_START.has(k) ||
    k === 'STRING' ||
    k === 'NUMBER' ||
    k === 'IDENTIFIER' ||
    k === 'PROOF_STEP'
  );
}

class Parser {
  private pos = 0;
  private expecting = '';
  /** The names of the productions being parsed and the tokens they start at (`pushMsg`). */
  private readonly frames: { name: string; at: Token; start: number }[] = [];
  /** The tokens each finished production spanned (from `start`, before `end`). */
  private readonly spans: { start: number; end: number }[] = [];
  /** The bullet columns and kinds of the junction lists being parsed (JunctionListContext). */
  private readonly junctions: { col: number; kind: Kind }[] = [];

  constructor(
    private readonly tokens: Token[],
    private readonly lexicalError: LexicalError | undefined,
    private readonly module: string,
  ) {}

  /** The k-th token not read yet; the lexer's error if SANY's lexer fails before it. */
  private peek(k = 1): Token {
    return this.token(this.pos + k - 1);
  }

  /** The token at index i (EOF past the end); the lexer's error if SANY's lexer fails before it. */
  private token(i: number): Token {
    if (i >= this.tokens.length - 1 && this.lexicalError) throw this.lexicalError;
    return this.tokens[Math.min(i, this.tokens.length - 1)]!;
  }

  private at(...kinds: Kind[]): boolean {
    return kinds.includes(this.peek().kind);
  }

  /** The last token read; SANY's first token before anything is read has no image. */
  private last(): Token | undefined {
    return this.tokens[this.pos - 1];
  }

  private fail(): never {
    const next = this.peek();
    const lines = ['***Parse Error***'];
    if (this.expecting !== '') lines.push(`Was expecting "${this.expecting}"`);
    lines.push(
      `Encountered "${next.image}" at line ${next.line}, column ${next.col} and token "${escapeText(this.last()?.image ?? '')}" `,
    );
    throw new ParseFailure(this.report(lines));
  }

  /** msgStackToString: the message, then the innermost five productions being parsed. */
  private report(lines: string[]): string {
    const frames = this.frames
      .slice(-5)
      .reverse()
      .map((f) => `${f.name} starting at line ${f.at.line}, column ${f.at.col}.`);
    return [...lines, '', 'Residual stack trace follows:', ...frames, ''].join('\n');
  }

  private consume(...kinds: Kind[]): Token {
    const t = this.peek();
    if (!kinds.includes(t.kind)) this.fail();
    this.pos++;
    return t;
  }

  /** Reads a name where a keyword that may be a field name (MODULE, ...) counts as an identifier. */
  private fieldName(): Token {
    const t = this.peek();
    if (FIELD_NAME_KEYWORDS.has(t.kind) || t.fieldName) {
      this.pos++;
      return t;
    }
    return this.consume('IDENTIFIER');
  }

  /** bpa: a production starts at the next token. */
  private begin(name: string): void {
    this.frames.push({ name, at: this.peek(), start: this.pos });
    this.expecting = '';
  }

  /** epa: the production ends. */
  private end(): void {
    this.spans.push({ start: this.frames.pop()!.start, end: this.pos });
    this.expecting = '';
  }

  private isAboveCurrent(t: Token): boolean {
    const top = this.junctions[this.junctions.length - 1];
    return !top || top.col < t.col;
  }

  /**
   * belchDEF: SANY finds the next `==` ahead (before the end of the module or a THEOREM) and puts a
   * DEFBREAK token before the left-hand side of its definition, which is how the grammar knows where a
   * definition starts.
   */
  private belchDEF(): void {
    // Tokens before `first` are read; SANY's backward walk cannot pass the last one read.
    const first = this.pos - 1;
    const kind = (j: number): Kind => (j < 0 ? 'EOF' : this.tokens[j]!.kind);
    for (let i = this.pos; !BELCH_STOP.has(this.token(i + 1).kind); i++) {
      if (kind(i) !== 'DEF') continue;
      let t = i - 1;
      if (kind(t) === 'RBR' || kind(t) === 'RSB') {
        let depth = 1;
        while (t > first) {
          t--;
          if ((kind(t) === 'LBR' || kind(t) === 'LSB') && depth === 1) break;
          if (kind(t) === 'LBR' || kind(t) === 'LSB') depth--;
          if (kind(t) === 'RBR' || kind(t) === 'RSB') depth++;
        }
        if (t <= first) return;
        if (kind(t - 1) === 'IDENTIFIER') t--;
      } else if (kind(t) === 'IDENTIFIER') {
        const identifier = t;
        if (
          t > first &&
          isOp(kind(t - 1)) &&
          kind(t - 1) !== 'POSTFIX' &&
          (!INFIX.has(kind(t - 1)) || (t - 2 > first && kind(t - 2) === 'IDENTIFIER'))
        ) {
          t--;
          if (kind(t - 1) === 'SUBSTITUTE') t = identifier;
          else if (INFIX.has(kind(t))) t--;
        }
      } else if (isOp(kind(t))) t--;
      if (t > first && kind(t - 1) !== 'DEFBREAK') {
        const before = this.tokens[t]!;
        this.tokens.splice(t, 0, { ...before, kind: 'DEFBREAK', image: 'Beginning of definition' });
      }
      return;
    }
  }

  compilationUnit(): void {
    this.belchDEF();
    this.moduleDefinition();
  }

  private moduleDefinition(): void {
    this.begin('Module definition');
    this.expecting = '---- MODULE';
    this.begin('Begin module');
    this.expecting = '---- MODULE (beginning of module)';
    this.consume('BEGIN_MODULE');
    this.expecting = 'Identifier';
    this.fieldName();
    this.expecting = '----';
    this.consume('SEPARATOR');
    this.end();
    this.expecting = 'EXTENDS clause or module body';
    this.begin('Extends');
    if (this.at('EXTENDS')) {
      this.pos++;
      this.nameList(() => this.fieldName(), 'comma or module body', false);
    }
    this.end();
    this.expecting = 'Module body';
    this.body();
    this.expecting = '==== or more Module body';
    this.consume('END_MODULE');
    this.end();
  }

  private body(): void {
    this.begin('Module body');
    this.expecting = 'LOCAL, INSTANCE, PROOF, ASSUMPTION, THEOREM, RECURSIVE, declaration, or definition';
    for (;;) {
      const t = this.peek();
      const local = t.kind === 'LOCAL';
      const second = this.peek(2).kind;
      if (t.kind === 'SEPARATOR') this.pos++;
      else if (t.kind === 'VARIABLE') this.variableDeclaration();
      else if (t.kind === 'CONSTANT') this.paramDeclaration();
      else if (t.kind === 'DEFBREAK' || (local && second === 'DEFBREAK')) this.definition();
      else if (t.kind === 'RECURSIVE') this.recursive();
      else if (t.kind === 'INSTANCE' || (local && second === 'INSTANCE')) this.instance();
      else if (t.kind === 'ASSUME' || t.kind === 'ASSUMPTION') this.assumption();
      else if (t.kind === 'THEOREM' || t.kind === 'PROPOSITION') this.theorem();
      else if (t.kind === 'BEGIN_MODULE') {
        this.moduleDefinition();
        this.belchDEF();
      } else if ((t.kind === 'USE' && second !== 'ONLY') || t.kind === 'HIDE') this.skipProof();
      else break;
    }
    this.end();
  }

  private variableDeclaration(): void {
    this.begin('variable declaration');
    this.pos++;
    this.nameList(() => this.consume('IDENTIFIER'), 'comma or module body', false);
    this.end();
  }

  /**
   * `a, b, ...` with SANY's texts: `Identifier` before each name, `after` after the first one (and
   * after each one if `again`).
   */
  private nameList(read: () => unknown, after: string, again: boolean): void {
    this.expecting = 'Identifier';
    read();
    this.expecting = after;
    while (this.at('COMMA')) {
      this.pos++;
      this.expecting = 'Identifier';
      read();
      if (again) this.expecting = after;
    }
  }

  private paramDeclaration(): void {
    this.begin('Parameter declaration');
    this.expecting = 'CONSTANT';
    this.begin('Parameter declaration item');
    this.consume('CONSTANT');
    this.end();
    this.declarationItems('');
    this.end();
  }

  private recursive(): void {
    this.begin('Recursive');
    this.expecting = 'RECURSIVE';
    this.consume('RECURSIVE');
    this.declarationItems("`,' or `)'");
    this.end();
  }

  /** The declared names of CONSTANT or RECURSIVE; `more` is what SANY expects after the second. */
  private declarationItems(more: '' | "`,' or `)'"): void {
    this.expecting = 'Identifier, operator or _';
    this.constantDeclarationItems();
    this.expecting = ',';
    while (this.at('COMMA')) {
      this.pos++;
      this.expecting = 'Identifier, operator or _';
      this.constantDeclarationItems();
      this.expecting = more;
    }
  }

  private constantDeclarationItems(): void {
    this.begin('Constant declaration items');
    this.expecting = 'Identifier, _ or prefix op';
    if (this.at('IDENTIFIER')) {
      this.pos++;
      this.expecting = '(, comma, or Module Body';
      if (this.at('LBR') && this.peek(2).kind === 'US') this.placeholders('comma or )');
    } else this.someFixDecl();
    this.end();
  }

  /** `(_, _, ...)` after a declared operator's name; `more` is what SANY expects after each `_`. */
  private placeholders(more: 'comma or )' | 'COMMA or )'): void {
    this.consume('LBR');
    this.expecting = '_';
    this.consume('US');
    this.expecting = more;
    while (this.at('COMMA')) {
      this.pos++;
      this.expecting = '_';
      this.consume('US');
      this.expecting = more;
    }
    this.consume('RBR');
  }

  /** `-. _`, `_ + _`, `_ '` (SomeFixDecl, and the same alternatives in ConstantDeclarationItems). */
  private someFixDecl(): void {
    if (NE_PREFIX.has(this.peek().kind)) {
      this.pos++;
      this.expecting = '_';
      this.consume('US');
      return;
    }
    this.consume('US');
    this.expecting = 'prefix or postfix operator';
    if (INFIX.has(this.peek().kind)) {
      this.infixOp();
      this.expecting = '_';
      this.consume('US');
    } else this.consume('POSTFIX');
  }

  private infixOp(): void {
    this.begin('Infix Op');
    if (!INFIX.has(this.peek().kind)) this.fail();
    this.pos++;
    this.end();
  }

  /** OperatorOrFunctionDefinition (a function, an operator, or `M == INSTANCE ...`). */
  private definition(): void {
    this.begin('Definition');
    this.expecting = 'LOCAL, Identifier or Operator Symbol';
    if (this.at('LOCAL')) this.pos++;
    this.consume('DEFBREAK');
    this.expecting = 'LOCAL, Identifier or Operator Symbol';
    const second = this.peek(2).kind;
    if (this.at('IDENTIFIER') && second === 'LSB') {
      this.pos++;
      this.expecting = '[';
      this.consume('LSB');
      this.expecting = 'Identifier';
      this.quantBound();
      this.expecting = 'COMMA or ]';
      while (this.at('COMMA')) {
        this.pos++;
        this.expecting = 'Identifier';
        this.quantBound();
      }
      this.consume('RSB');
      this.defBody('Expression');
    } else if (this.at('IDENTIFIER') && second === 'POSTFIX') {
      this.begin('Postfix LHS');
      this.pos += 2;
      this.end();
      this.defBody('Expression');
    } else if (this.at('IDENTIFIER') && INFIX.has(second)) {
      this.begin('Infix LHS');
      this.pos += 2;
      this.consume('IDENTIFIER');
      this.end();
      this.defBody('Expression');
    } else if (this.at('IDENTIFIER') && (second === 'LBR' || second === 'DEF')) {
      this.identLHS();
      this.defBody('Expression or Instance');
    } else {
      this.begin('Prefix LHS');
      if (!NE_PREFIX.has(this.peek().kind)) this.fail();
      this.pos++;
      this.expecting = 'Identifier';
      this.consume('IDENTIFIER');
      this.end();
      this.defBody('Expression');
    }
    this.end();
  }

  /** `== body` of a definition; `Expression or Instance` allows `M == INSTANCE ...`. */
  private defBody(expecting: 'Expression' | 'Expression or Instance'): void {
    this.expecting = '==';
    this.consume('DEF');
    this.belchDEF();
    this.expecting = expecting;
    if (expecting === 'Expression or Instance' && this.at('INSTANCE')) this.instantiation();
    else this.expression();
  }

  private identLHS(): void {
    this.begin('Identifier LHS');
    this.consume('IDENTIFIER');
    this.expecting = '( or ==';
    if (this.at('LBR')) {
      this.pos++;
      this.expecting = 'Identifier Declaration, prefix op, _ or )';
      this.paramDecl();
      this.expecting = 'COMMA or )';
      while (this.at('COMMA')) {
        this.pos++;
        this.expecting = 'Identifier Declaration, prefix op or _';
        this.paramDecl();
        this.expecting = 'COMMA or )';
      }
      this.consume('RBR');
    }
    this.end();
  }

  /** IdentDecl | SomeFixDecl: a parameter of a definition or LAMBDA. */
  private paramDecl(): void {
    if (this.at('IDENTIFIER')) {
      this.begin('Identifier Declation');
      this.pos++;
      this.expecting = '( or ...';
      if (this.at('LBR')) this.placeholders('COMMA or )');
      this.end();
    } else {
      this.begin('Op. Symbol Declaration');
      this.someFixDecl();
      this.end();
    }
  }

  private instance(): void {
    this.begin('Instance');
    this.expecting = 'LOCAL or instance';
    if (this.at('LOCAL')) this.pos++;
    this.instantiation();
    this.expecting = 'COMMA or Module Body';
    this.end();
  }

  private instantiation(): void {
    this.begin('NonLocalInstance');
    this.consume('INSTANCE');
    this.expecting = 'Module identifier';
    this.fieldName();
    this.expecting = 'WITH or another definition.';
    if (this.at('WITH')) {
      this.pos++;
      this.expecting = '';
      this.substitution();
      this.expecting = '';
      while (this.at('COMMA') && this.peek(3).kind === 'SUBSTITUTE') {
        this.pos++;
        this.expecting = '';
        this.substitution();
        this.expecting = '';
      }
    }
    this.end();
  }

  private substitution(): void {
    this.begin('Substitution');
    const t = this.peek();
    if (t.kind === 'IDENTIFIER' || NE_PREFIX.has(t.kind) || t.kind === 'POSTFIX') this.pos++;
    else if (INFIX.has(t.kind)) this.infixOp();
    else this.fail();
    this.expecting = '<-';
    this.consume('SUBSTITUTE');
    this.expecting = 'Expression or Op. Symbol';
    this.opOrExpr();
    this.end();
  }

  /** An operator argument or a substitution's right side: an operator symbol, a LAMBDA or an expression. */
  private opOrExpr(): void {
    const t = this.peek();
    const after = this.peek(2).kind;
    const closes: Kind[] = [
      'COMMA',
      'RBR',
      'DEFBREAK',
      'LOCAL',
      'INSTANCE',
      'THEOREM',
      'ASSUME',
      'END_MODULE',
      'SEPARATOR',
      'BEGIN_MODULE',
      'ASSUMPTION',
      'CONSTANT',
      'VARIABLE',
      'RECURSIVE',
    ];
    if ((NE_PREFIX.has(t.kind) || INFIX.has(t.kind) || t.kind === 'POSTFIX') && closes.includes(after)) {
      if (this.isAboveCurrent(t)) {
        if (INFIX.has(t.kind)) this.infixOp();
        else this.pos++;
        return;
      }
    }
    if (t.kind === 'LAMBDA' && this.isAboveCurrent(t)) this.lambda();
    else this.expression();
  }

  private lambda(): void {
    this.begin('Lambda');
    this.pos++;
    this.nameList(() => this.consume('IDENTIFIER'), "`,' or `:'", true);
    this.consume('COLON');
    this.expecting = 'Expression';
    this.expression();
    this.end();
  }

  private assumption(): void {
    this.begin('Assumption');
    this.expecting = 'ASSUM...';
    this.pos++;
    const named =
      (this.at('DEFBREAK') && this.peek(2).kind === 'IDENTIFIER') ||
      (this.at('IDENTIFIER') && this.peek(2).kind === 'DEF');
    if (named) {
      if (this.at('DEFBREAK')) this.pos++;
      this.consume('IDENTIFIER');
      this.expecting = '==';
      this.consume('DEF');
    }
    this.belchDEF();
    this.expecting = 'Expression';
    this.expression();
    this.end();
  }

  private theorem(): void {
    this.begin('Theorem');
    this.expecting = 'THEOREM, PROPOSITION';
    this.pos++;
    this.expecting = 'Identifier, Assume-Prove or Expression';
    if (this.at('IDENTIFIER') && this.peek(2).kind === 'DEF') {
      this.pos++;
      this.expecting = '==';
      this.consume('DEF');
    }
    this.belchDEF();
    if (this.at('ASSUME', 'BOXASSUME')) this.skipProof();
    else this.expression();
    if (this.at('BY', 'PROOF', 'OBVIOUS', 'OMITTED', 'PROOF_STEP')) this.skipProof();
    this.end();
  }

  /**
   * Proofs, ASSUME/PROVE and USE/HIDE are not checked: they are read up to the next token that begins
   * a line at column 1 and can start a unit of the module (a definition's DEFBREAK is put back there).
   */
  private skipProof(): void {
    let prevLine = this.peek().line;
    this.pos++;
    for (;;) {
      const t = this.peek();
      if (
        t.kind === 'EOF' ||
        (t.line !== prevLine &&
          t.col === 1 &&
          !this.at('BY', 'PROOF', 'QED', 'OBVIOUS', 'OMITTED', 'PROOF_STEP'))
      )
        break;
      prevLine = t.line;
      this.pos++;
    }
    if (!UNIT_START.has(this.peek().kind)) this.belchDEF();
  }

  private expression(): void {
    this.begin('Expression');
    this.prefixedOperand();
    this.end();
  }

  /** Prefix operators, then an operand: an open expression (IF, \E, ...) or an ExtendableExpr. */
  private prefixedOperand(): void {
    while ((PREFIX.has(this.peek().kind) || this.at('MINUS')) && this.isAboveCurrent(this.peek())) {
      if (this.at('MINUS')) this.infixOp();
      else this.pos++;
    }
    const t = this.peek();
    if (OPEN_START.has(t.kind) && this.isAboveCurrent(t)) this.openExpression();
    else if (this.isAboveCurrent(t)) this.extendableExpr();
    else this.fail();
  }

  private openExpression(): void {
    switch (this.peek().kind) {
      case 'EXISTS':
      case 'FORALL':
        return this.quantified();
      case 'T_EXISTS':
      case 'T_FORALL':
        return this.temporalQuantified();
      case 'IF':
        return this.ifThenElse();
      case 'CASE':
        return this.caseExpression();
      case 'LET':
        return this.letIn();
      default:
        return this.choose();
    }
  }

  private extendableExpr(): void {
    this.begin('ExtendableExpr');
    let label = this.operand();
    for (;;) {
      const t = this.peek();
      if (!this.isAboveCurrent(t)) break;
      if (t.kind === 'POSTFIX') this.pos++;
      else if (t.kind === 'DOT') {
        this.pos++;
        this.fieldName();
      } else if (t.kind === 'LSB') {
        this.expecting = 'function argument';
        this.bracketCases();
      } else break;
      label = false;
    }
    const t = this.peek();
    if (INFIX.has(t.kind) && this.isAboveCurrent(t)) {
      this.infixOp();
      this.prefixedOperand();
    } else if (t.kind === 'COLONCOLON' && this.isAboveCurrent(t)) {
      this.pos++;
      if (!label) throw new GrammarError(`\`::' at ${this.location(t, t)} does not follow a label.`);
      this.expression();
    }
    this.end();
  }

  /** The operand an ExtendableExpr starts with; whether it may be a label (a name, maybe with names as arguments). */
  private operand(): boolean {
    const t = this.peek();
    if (t.kind === 'AND' || t.kind === 'OR') {
      this.junctionList();
      return false;
    }
    if (PAREN_START.has(t.kind)) {
      this.parenthesesExpression();
      return false;
    }
    return this.primitive();
  }

  private primitive(): boolean {
    this.begin('Primitive expression');
    const t = this.peek();
    let label = false;
    if (t.kind === 'STRING') {
      this.begin('String');
      this.pos++;
      this.end();
    } else if (t.kind === 'NUMBER') this.number();
    else {
      if (t.kind === 'IDENTIFIER' || t.kind === 'PROOF_STEP' || t.kind === 'POSTFIX' || t.kind === 'NEGATIVE')
        this.pos++;
      else if (INFIX.has(t.kind)) this.infixOp();
      else this.fail();
      label = t.kind === 'IDENTIFIER';
      if (this.opArgsAhead()) label = this.opArgs() && label;
      while (this.at('BANG')) {
        this.bangExt();
        label = false;
      }
    }
    this.end();
    return label;
  }

  private number(): void {
    this.pos++;
    if (this.at('DOT') && this.peek(2).kind === 'NUMBER') this.pos += 2;
  }

  /** LOOKAHEAD(2) OpArgs: `(` followed by what can start an operator argument. */
  private opArgsAhead(): boolean {
    if (!this.at('LBR')) return false;
    const t = this.peek(2);
    return t.kind === 'LAMBDA' || (startsExpression(t.kind) && this.isAboveCurrent(t));
  }

  /** `(arg, ...)`; whether every argument is a plain name (so the application may be a label). */
  private opArgs(): boolean {
    this.begin('Optional Arguments');
    this.consume('LBR');
    let names = this.argument();
    while (this.at('COMMA')) {
      this.pos++;
      names = this.argument() && names;
    }
    this.consume('RBR');
    this.end();
    return names;
  }

  /** One operator argument (OpSuite); whether it is a plain name. */
  private argument(): boolean {
    const name = this.at('IDENTIFIER') && ['COMMA', 'RBR'].includes(this.peek(2).kind);
    this.opOrExpr();
    return name;
  }

  private bangExt(): void {
    this.begin('Bang Extension');
    this.consume('BANG');
    const t = this.peek();
    if ((t.kind === 'IDENTIFIER' && t.image !== '@') || NE_PREFIX.has(t.kind) || t.kind === 'POSTFIX') {
      this.pos++;
      if (this.opArgsAhead()) this.opArgs();
    } else if (INFIX.has(t.kind)) {
      this.infixOp();
      if (this.opArgsAhead()) this.opArgs();
    } else if (t.kind === 'LBR') this.opArgs();
    else {
      this.begin('StructOp');
      this.expecting = "`<<' , `>>' , `:' , `@' , or number";
      if (t.kind === 'NUMBER') this.number();
      else this.consume('LAB', 'RAB', 'COLON', 'IDENTIFIER');
      this.end();
    }
    this.end();
  }

  private junctionList(): void {
    const bullet = this.peek();
    this.junctions.push({ col: bullet.col, kind: bullet.kind });
    this.begin('AND-OR Junction');
    do this.junctionItem();
    while (this.at(bullet.kind) && this.peek().col === bullet.col);
    this.junctions.pop();
    this.end();
  }

  private junctionItem(): void {
    this.begin('Junction Item');
    const bullet = this.consume('AND', 'OR');
    const first = this.pos;
    const spans = this.spans.length;
    this.expression();
    this.end();
    // JuncItem's checkIndentation: the first part of the item (in the tree, before its parts) that is
    // not right of the bullet. Tokens of a nested list are right of its bullet, so right of this one.
    const bulletCol = this.junctions[this.junctions.length - 1]!.col;
    const bad = this.tokens.slice(first, this.pos).findIndex((t) => t.col <= bulletCol);
    if (bad < 0) return;
    const start = first + bad;
    const end = this.spans
      .slice(spans)
      .filter((p) => p.start === start && p.end <= this.pos)
      .reduce((e, p) => Math.max(e, p.end), start + 1);
    throw new GrammarError(
      `Item at ${this.location(this.tokens[start]!, this.tokens[end - 1]!)} is not properly indented inside conjunction or  disjunction list item at ${this.location(bullet, this.tokens[this.pos - 1]!)}`,
    );
  }

  /** SANY's location text of the tokens from `from` to `to`. */
  private location(from: Token, to: Token): string {
    return `line ${from.line}, col ${from.col} to line ${to.endLine}, col ${to.endCol} of module ${this.module}`;
  }

  private parenthesesExpression(): void {
    switch (this.peek().kind) {
      case 'LBR':
        this.pos++;
        this.expression();
        this.consume('RBR');
        return;
      case 'LBC':
        return this.braceCases();
      case 'LSB':
        return this.bracketCases();
      case 'LAB':
        return this.tupleOrAction();
      case 'WF':
      case 'SF':
        return this.fairness();
      default:
        this.fail();
    }
  }

  /** matchFcnConst: `x \in`, `x, y \in` or `<<...>> \in` ahead. */
  private boundAhead(): boolean {
    let k = 1;
    if (this.peek(k).kind === 'LAB') {
      let depth = 1;
      while (depth > 0) {
        const kind = this.peek(++k).kind;
        if (kind === 'LAB') depth++;
        if (kind === 'RAB') depth--;
        if (kind === 'EOF') return false;
      }
      return this.peek(k + 1).kind === 'IN';
    }
    if (this.peek(k).kind !== 'IDENTIFIER') return false;
    while (this.peek(k + 1).kind === 'COMMA') {
      if (this.peek(k + 2).kind !== 'IDENTIFIER') return false;
      k += 2;
    }
    return this.peek(k + 1).kind === 'IN';
  }

  private braceCases(): void {
    this.begin('Some { } form');
    this.consume('LBC');
    if (this.boundAhead()) {
      if (this.at('LAB')) this.identifierTuple();
      else this.pos++;
      this.expecting = '\\in';
      this.consume('IN');
      this.expression();
      this.expecting = "':', ',' or '}'";
      if (this.at('COLON')) {
        this.pos++;
        this.expression();
      } else this.expressions();
    } else if (startsExpression(this.peek().kind)) {
      this.expression();
      if (this.at('COLON')) {
        this.pos++;
        this.quantBounds();
      } else this.expressions();
    }
    this.consume('RBC');
    this.end();
  }

  /** `, e, e ...` (each after a comma). */
  private expressions(): void {
    while (this.at('COMMA')) {
      this.pos++;
      this.expression();
    }
  }

  private quantBounds(): void {
    this.quantBound();
    while (this.at('COMMA')) {
      this.pos++;
      this.quantBound();
    }
  }

  private bracketCases(): void {
    this.begin('Some [] Form');
    this.consume('LSB');
    const second = this.peek(2).kind;
    const field =
      this.at('IDENTIFIER') || FIELD_NAME_KEYWORDS.has(this.peek().kind) || !!this.peek().fieldName;
    if (this.boundAhead()) {
      this.quantBounds();
      this.consume('MAPTO');
      this.expression();
      this.consume('RSB');
    } else if (field && second === 'MAPTO') {
      this.fields('Field Value', 'MAPTO');
      this.consume('RSB');
    } else if (this.at('IDENTIFIER') && second === 'COLON') {
      this.fields('Field Set', 'COLON');
      this.consume('RSB');
    } else {
      this.expression();
      const t = this.peek();
      if (t.kind === 'ARROW') {
        this.pos++;
        this.expression();
        this.consume('RSB');
      } else if (t.kind === 'EXCEPT') {
        this.pos++;
        this.exceptSpec();
        while (this.at('COMMA')) {
          this.pos++;
          this.exceptSpec();
        }
        this.consume('RSB');
      } else if (t.kind === 'ARSB') {
        this.pos++;
        this.reducedExpression();
      } else {
        this.expressions();
        this.consume('RSB');
      }
    }
    this.end();
  }

  /** `f |-> e, ...` (FieldVal) or `f : S, ...` (FieldSet). */
  private fields(name: 'Field Value' | 'Field Set', separator: 'MAPTO' | 'COLON'): void {
    for (;;) {
      this.begin(name);
      if (separator === 'MAPTO') this.fieldName();
      else this.consume('IDENTIFIER');
      this.consume(separator);
      this.expression();
      this.end();
      if (!this.at('COMMA')) return;
      this.pos++;
    }
  }

  private exceptSpec(): void {
    this.begin('Except Spec');
    this.consume('BANG');
    do {
      this.begin('Except Component');
      if (this.at('DOT')) {
        this.pos++;
        this.fieldName();
      } else {
        this.consume('LSB');
        this.expression();
        this.expressions();
        this.consume('RSB');
      }
      this.end();
      this.expecting = '= or ,';
    } while (this.at('DOT', 'LSB'));
    this.consume('EQUALS');
    this.expression();
    this.end();
  }

  /** What may follow `[A]_` and `<<A>>_`. */
  private reducedExpression(): void {
    this.begin('restricted form of expression');
    const t = this.peek();
    if (t.kind === 'IDENTIFIER') this.noOpExtension();
    else if (t.kind === 'LBR') {
      this.pos++;
      this.expression();
      this.consume('RBR');
    } else if (t.kind === 'LBC') this.braceCases();
    else if (t.kind === 'LSB') this.bracketCases();
    else if (t.kind === 'LAB') this.tupleOrAction();
    else this.fail();
    this.end();
  }

  private noOpExtension(): void {
    this.consume('IDENTIFIER');
    if (this.opArgsAhead()) this.opArgs();
    if (this.at('BANG')) {
      this.pos++;
      this.noOpExtension();
    }
  }

  private tupleOrAction(): void {
    this.begin('Some << -- >> or >>_ Form');
    this.consume('LAB');
    if (startsExpression(this.peek().kind)) {
      this.expression();
      this.expressions();
    }
    if (this.consume('RAB', 'ARAB').kind === 'ARAB') this.reducedExpression();
    this.end();
  }

  private fairness(): void {
    this.begin('Fairness Expression');
    this.pos++;
    this.reducedExpression();
    if (this.at('LBR') && startsExpression(this.peek(2).kind)) {
      this.pos++;
      this.expression();
      this.consume('RBR');
    }
    this.end();
  }

  private ifThenElse(): void {
    this.begin('IF THEN ELSE');
    this.consume('IF');
    this.expression();
    this.consume('THEN');
    this.expression();
    this.consume('ELSE');
    this.expression();
    this.end();
  }

  private caseExpression(): void {
    this.begin('CASE Expression');
    this.consume('CASE');
    this.caseArm();
    while (this.at('CASESEP') && this.peek(2).kind !== 'OTHER') {
      this.pos++;
      this.caseArm();
    }
    if (this.at('CASESEP')) {
      this.pos++;
      this.begin('Case Other Arm');
      this.consume('OTHER');
      this.consume('ARROW');
      this.expression();
      this.end();
    }
    this.end();
  }

  private caseArm(): void {
    this.begin('Case Arm');
    this.expression();
    this.consume('ARROW');
    this.expression();
    this.end();
  }

  private letIn(): void {
    // SANY names this production "Case Other Arm" too.
    this.begin('Case Other Arm');
    this.consume('LET');
    this.begin('Let Definitions');
    do {
      if (this.at('RECURSIVE')) this.recursive();
      else if (this.at('LOCAL', 'DEFBREAK')) this.definition();
      else this.fail();
    } while (this.at('LOCAL', 'DEFBREAK', 'RECURSIVE'));
    this.end();
    this.consume('LETIN');
    this.expression();
    this.end();
  }

  private quantified(): void {
    this.begin('Quantified form');
    this.pos++;
    let k = 1;
    while (this.peek(k).kind === 'IDENTIFIER' && this.peek(k + 1).kind === 'COMMA') k += 2;
    if (this.peek(k).kind === 'IDENTIFIER' && this.peek(k + 1).kind === 'COLON') this.pos += k;
    else this.quantBounds();
    this.consume('COLON');
    this.expression();
    this.end();
  }

  private temporalQuantified(): void {
    this.begin('Bound Quantified Expression');
    this.pos++;
    this.consume('IDENTIFIER');
    while (this.at('COMMA')) {
      this.pos++;
      this.consume('IDENTIFIER');
    }
    this.consume('COLON');
    this.expression();
    this.end();
  }

  private quantBound(): void {
    this.begin('Quant Bound');
    if (this.at('LAB')) this.identifierTuple();
    else {
      this.consume('IDENTIFIER');
      while (this.at('COMMA')) {
        this.pos++;
        this.consume('IDENTIFIER');
        this.expecting = ', or \\in';
      }
    }
    this.consume('IN');
    this.expression();
    this.end();
  }

  private identifierTuple(): void {
    this.begin('Identifier tuple');
    this.consume('LAB');
    this.expecting = 'Identifier or >>';
    if (this.at('IDENTIFIER')) {
      this.pos++;
      this.expecting = 'COMMA or >>';
      while (this.at('COMMA')) {
        this.pos++;
        this.expecting = 'COMMA or >>';
        this.consume('IDENTIFIER');
        this.expecting = 'COMMA or >>';
      }
    }
    this.consume('RAB');
    this.end();
  }

  private choose(): void {
    this.begin('(Un)Bounded Choose');
    this.consume('CHOOSE');
    if (this.at('LAB')) this.identifierTuple();
    else this.consume('IDENTIFIER');
    this.begin('Domain binding');
    if (this.at('IN')) {
      this.pos++;
      this.expecting = 'Expression';
      this.expression();
    }
    this.end();
    this.consume('COLON');
    this.expression();
    this.end();
  }

  /** Fails at the first token at or after `at`, in the frame of the module. */
  failAt(at: { line: number; col: number }): never {
    const i = this.tokens.findIndex(
      (t) => t.kind === 'EOF' || t.line > at.line || (t.line === at.line && t.col >= at.col),
    );
    this.pos = Math.max(i, 0);
    this.frames.splice(0, this.frames.length, { name: 'Module definition', at: this.tokens[0]!, start: 0 });
    this.expecting = '';
    this.fail();
  }

  /** The message for a GrammarError: msgStackToString with the error's own text. */
  grammarReport(e: GrammarError): string {
    const lines = ['***Parse Error***'];
    if (this.expecting !== '') lines.push(`Was expecting "${this.expecting}"`);
    return this.report([...lines, e.text]);
  }
}

/**
 * What SANY prints when it cannot parse `source` (module `module`): its ***Parse Error*** message or
 * its lexical error. Where this walk of the grammar accepts what tree-sitter refused (proofs, which
 * it skips, or SANY's operator-precedence checks, which it does not make), the error is reported at
 * tree-sitter's first error, `fallback`, inside the module's frame.
 */
export function sanySyntaxError(
  source: string,
  module: string,
  fallback: { line: number; col: number },
): string {
  const { tokens, error } = lex(source);
  const parser = new Parser(tokens, error, module);
  try {
    parser.compilationUnit();
    return parser.failAt(fallback);
  } catch (e) {
    if (e instanceof ParseFailure || e instanceof LexicalError) return e.message;
    if (e instanceof GrammarError) return parser.grammarReport(e);
    throw e;
  }
}

/**
 * SANY's report when parsing stops (`SANY#frontEndParse` catching the exception; `Errors#toString`):
 * `spec` is the specification as TLC names it (the root file as given, without `.tla`).
 */
export function fatalParsingReport(spec: string, exception: string, location: string, text: string): string {
  return `\nFatal errors while parsing TLA+ spec in file ${spec}\n\n${exception}\n*** Errors: 1\n\n${location}\n\n${text}\n\n`;
}

/** SANY's report of an error it records without stopping (`Errors#addError`) and then aborts on. */
export function sanyAbortReport(spec: string, location: string, text: string): string {
  return fatalParsingReport(spec, `${location}\n\n${text}`, location, text);
}

/** SANY's report of semantic errors (`SANY#frontEndSemanticAnalysis`). */
export function semanticErrorReport(location: string, text: string): string {
  return `Semantic errors:\n\n*** Errors: 1\n\n${location}\n\n${text}\n\n\n`;
}
