/** Front end: TLA+ source → ModuleAst, using the tree-sitter-tlaplus grammar. */
import type Parser from 'tree-sitter';
import TlaPlus from '@tlaplus/tree-sitter-tlaplus';
import {
  locationText,
  type Bound,
  type Declaration,
  type ExceptPathItem,
  type Expr,
  type ExprBody,
  type InstanceDef,
  type Loc,
  type ModuleAst,
  type OpDef,
  type Param,
  type PathStep,
  type Unit,
} from './ast.js';
import path from 'node:path';
import { SanyError, TlaError } from '../errors.js';
import { fatalParsingReport, sanySyntaxError } from './sany.js';
import { copyTree, parserFor, type SyntaxNode as Node } from './tree.js';
import { treeSitterText } from './tree-sitter-text.js';

const INFIX: Record<string, string> = {
  amp: '&',
  ampamp: '&&',
  approx: '\\approx',
  assign: ':=',
  asymp: '\\asymp',
  bigcirc: '\\bigcirc',
  bnf_rule: '::=',
  bullet: '\\bullet',
  cap: '\\cap',
  cdot: '\\cdot',
  circ: '\\o',
  compose: '@@',
  cong: '\\cong',
  cup: '\\cup',
  div: '\\div',
  dol: '$',
  doldol: '$$',
  doteq: '\\doteq',
  dots_2: '..',
  dots_3: '...',
  eq: '=',
  equiv: '\\equiv',
  excl: '!!',
  geq: '>=',
  gg: '\\gg',
  gt: '>',
  hashhash: '##',
  iff: '<=>',
  implies: '=>',
  in: '\\in',
  land: '/\\',
  ld_ttile: '-|',
  leads_to: '~>',
  leq: '<=',
  ll: '\\ll',
  lor: '\\/',
  ls_ttile: '|-',
  lt: '<',
  map_from: '<:',
  map_to: ':>',
  minus: '-',
  minusminus: '--',
  mod: '%',
  modmod: '%%',
  mul: '*',
  mulmul: '**',
  neq: '/=',
  notin: '\\notin',
  odot: '\\odot',
  ominus: '\\ominus',
  oplus: '\\oplus',
  oslash: '\\oslash',
  otimes: '\\otimes',
  plus: '+',
  plus_arrow: '-+->',
  plusplus: '++',
  pow: '^',
  powpow: '^^',
  prec: '\\prec',
  preceq: '\\preceq',
  propto: '\\propto',
  qq: '??',
  rd_ttile: '=|',
  rs_ttile: '|=',
  setminus: '\\',
  sim: '\\sim',
  simeq: '\\simeq',
  slash: '/',
  slashslash: '//',
  sqcap: '\\sqcap',
  sqcup: '\\sqcup',
  sqsubset: '\\sqsubset',
  sqsubseteq: '\\sqsubseteq',
  sqsupset: '\\sqsupset',
  sqsupseteq: '\\sqsupseteq',
  star: '\\star',
  subset: '\\subset',
  subseteq: '\\subseteq',
  succ: '\\succ',
  succeq: '\\succeq',
  supset: '\\supset',
  supseteq: '\\supseteq',
  times: '\\X',
  uplus: '\\uplus',
  vert: '|',
  vertvert: '||',
  wr: '\\wr',
};
const PREFIX: Record<string, string> = {
  lnot: '~',
  negative: '-.',
  powerset: 'SUBSET',
  union: 'UNION',
  domain: 'DOMAIN',
  always: '[]',
  eventually: '<>',
  enabled: 'ENABLED',
  unchanged: 'UNCHANGED',
};
const POSTFIX: Record<string, string> = { sup_plus: '^+', asterisk: '^*', sup_hash: '^#', prime: "'" };

const IGNORED = new Set(['comment', 'block_comment', 'extramodular_text', 'pcal_algorithm']);

let sharedParser: Parser | undefined;
function parser(): Parser {
  if (!sharedParser) {
    sharedParser = parserFor(TlaPlus);
  }
  return sharedParser;
}

/**
 * Parses every module of a file; the first is the file's main module. A file SANY would refuse is
 * refused with SANY's report; `spec` is the specification as TLC names it in that report.
 */
export function parseModules(source: string, file: string, spec: string): ModuleAst[] {
  // tree-sitter's JS binding reads long inputs in chunks; a callback keeps it exact for any size.
  const text = treeSitterText(source);
  const tree = parser().parse((index) => text.slice(index, index + 8192));
  const root = copyTree(tree, text);
  const modules = kids(root).filter((n) => n.type === 'module');
  if (root.hasError || modules.length === 0) {
    // SANY names the module after its file, whatever the header says.
    const module = path.basename(file, '.tla');
    const at = firstError(root)?.startPosition ?? { row: 0, column: 0 };
    const message = sanySyntaxError(source, module, { line: at.row + 1, col: at.column + 1 });
    const fileName = path.join(path.dirname(spec), `${module}.tla`);
    throw new SanyError(
      `${message}\n${fatalParsingReport(spec, 'tla2sany.semantic.AbortException', `In module ${module}`, `Could not parse module ${module} from file ${fileName}`)}`,
    );
  }
  return modules.map((m) => new Converter(m.childForFieldName('name')!.text).module(m));
}

function firstError(n: Node): Node | undefined {
  if (!n.hasError) return undefined;
  if (n.type === 'ERROR' || n.isMissing) return n;
  for (const c of n.children) {
    const e = firstError(c);
    if (e) return e;
  }
  return n;
}

function kids(n: Node): Node[] {
  return n.namedChildren.filter((c) => !IGNORED.has(c.type));
}

class Converter {
  constructor(private readonly moduleName: string) {}

  loc(n: Node): Loc {
    // A node may take in blanks and comments after its last token (a conjunction list ends at the
    // next line or definition); TLC's locations end at the expression's last character.
    let last = n;
    for (;;) {
      const inner = last.children.filter((c) => !IGNORED.has(c.type) && c.endIndex > c.startIndex);
      if (inner.length === 0) break;
      last = inner[inner.length - 1]!;
    }
    return {
      module: this.moduleName,
      line: n.startPosition.row + 1,
      col: n.startPosition.column + 1,
      endLine: last.endPosition.row + 1,
      endCol: last.endPosition.column,
    };
  }

  unsupported(n: Node, what: string): never {
    const l = this.loc(n);
    throw new TlaError(`unsupported: ${what} at line ${l.line}, col ${l.col} of module ${l.module}`, 255);
  }

  module(n: Node): ModuleAst {
    const units: Unit[] = [];
    const ext: string[] = [];
    for (const c of kids(n)) {
      if (c.type === 'extends') ext.push(...kids(c).map((i) => i.text));
      else if (c.type === 'identifier' || c.type === 'header_line' || c.type === 'double_line') continue;
      else units.push(...this.unit(c));
    }
    return { kind: 'Module', name: this.moduleName, extends: ext, units, loc: this.loc(n) };
  }

  unit(n: Node): Unit[] {
    switch (n.type) {
      case 'operator_definition':
        return [this.opDef(n, false)];
      case 'function_definition':
        return [this.fcnDef(n, false)];
      case 'module_definition':
        return [this.moduleDef(n, false)];
      case 'instance':
        return [this.instance(n, undefined, [], false)];
      case 'local_definition': {
        const inner = kids(n)[0]!;
        if (inner.type === 'instance') return [this.instance(inner, undefined, [], true)];
        if (inner.type === 'operator_definition') return [this.opDef(inner, true)];
        if (inner.type === 'function_definition') return [this.fcnDef(inner, true)];
        return [this.moduleDef(inner, true)];
      }
      case 'constant_declaration':
        return [this.declaration(n, 'Constant')];
      case 'variable_declaration':
        return [this.declaration(n, 'Variable')];
      case 'recursive_declaration':
        return [this.declaration(n, 'Recursive')];
      case 'assumption': {
        const name = n.childForFieldName('name')?.text;
        const body = kids(n).filter((c) => c.type !== 'identifier' || c !== n.childForFieldName('name'));
        const e = body[body.length - 1]!;
        return [{ kind: 'Assume', ...(name ? { name } : {}), expr: this.expr(e), loc: this.loc(n) }];
      }
      case 'module':
        return [new Converter(n.childForFieldName('name')!.text).module(n)];
      case 'theorem':
      case 'use_or_hide':
      case 'single_line':
        return [];
      default:
        return this.unsupported(n, `declaration ${n.type}`);
    }
  }

  declaration(n: Node, kind: Declaration['kind']): Declaration {
    const params = kids(n).map((c) => this.paramDecl(c));
    return { kind, params, loc: this.loc(n) };
  }

  paramDecl(c: Node): Param {
    if (c.type === 'identifier') return { name: c.text, arity: 0 };
    if (c.type === 'operator_declaration') {
      const nameNode = c.childForFieldName('name')!;
      const placeholders = c.namedChildren.filter((x) => x.type === 'placeholder').length;
      const arity =
        nameNode.type === 'infix_op_symbol' ? 2 : nameNode.type === 'identifier' ? placeholders : 1;
      return { name: this.symbolName(nameNode), arity };
    }
    return this.unsupported(c, `parameter ${c.type}`);
  }

  symbolName(n: Node): string {
    if (n.type === 'identifier' || n.type === 'identifier_ref') return n.text;
    const inner = kids(n)[0];
    if (!inner) return this.unsupported(n, `operator symbol ${n.type}`);
    if (n.type === 'infix_op_symbol') return INFIX[inner.type] ?? this.unsupported(n, inner.type);
    if (n.type === 'prefix_op_symbol') return PREFIX[inner.type] ?? this.unsupported(n, inner.type);
    if (n.type === 'postfix_op_symbol') return POSTFIX[inner.type] ?? this.unsupported(n, inner.type);
    return this.unsupported(n, `operator symbol ${n.type}`);
  }

  opDef(n: Node, local: boolean): OpDef {
    const nameNode = n.childForFieldName('name')!;
    const params = n
      .childrenForFieldName('parameter')
      .filter((p) => p.isNamed)
      .map((p) => this.paramDecl(p));
    let name: string;
    if (nameNode.type === 'identifier') name = nameNode.text;
    else if (
      nameNode.type === 'infix_op_symbol' ||
      nameNode.type === 'prefix_op_symbol' ||
      nameNode.type === 'postfix_op_symbol'
    ) {
      name = this.symbolName(nameNode);
      if (name === '-' && params.length === 1) name = '-.';
    } else name = this.symbolName(nameNode);
    // Infix/prefix/postfix definitions name their operands as plain identifiers around the symbol.
    if (params.length === 0 && nameNode.type !== 'identifier') {
      for (const c of kids(n))
        if (c.type === 'identifier' && c !== nameNode) params.push({ name: c.text, arity: 0 });
    }
    const body = this.expr(n.childForFieldName('definition')!);
    return { kind: 'OpDef', name, params, body, local, loc: this.loc(n) };
  }

  fcnDef(n: Node, local: boolean): Unit {
    const bounds = kids(n)
      .filter((c) => c.type === 'quantifier_bound')
      .map((b) => this.bound(b));
    return {
      kind: 'FcnDef',
      name: n.childForFieldName('name')!.text,
      bounds,
      body: this.expr(n.childForFieldName('definition')!),
      local,
      loc: this.loc(n),
    };
  }

  moduleDef(n: Node, local: boolean): InstanceDef {
    const params = n
      .childrenForFieldName('parameter')
      .filter((p) => p.isNamed)
      .map((p) => this.paramDecl(p));
    return this.instance(
      n.childForFieldName('definition')!,
      n.childForFieldName('name')!.text,
      params,
      local,
    );
  }

  instance(n: Node, name: string | undefined, params: Param[], local: boolean): InstanceDef {
    const ks = kids(n);
    const module = ks[0]!.text;
    const subs = ks
      .filter((c) => c.type === 'substitution')
      .map((s) => {
        const parts = kids(s).filter((x) => x.type !== 'gets');
        const target = parts[0]!;
        const value = parts[1]!;
        const subName = target.type === 'identifier_ref' ? target.text : this.symbolName(target);
        return { name: subName, expr: this.exprOrOp(value) };
      });
    return { kind: 'Instance', ...(name ? { name } : {}), params, module, subs, local, loc: this.loc(n) };
  }

  bound(b: Node): Bound {
    const intros = b.childrenForFieldName('intro').filter((i) => i.isNamed);
    const setNode = b.childForFieldName('set');
    const set = setNode ? this.expr(setNode) : undefined;
    if (intros.length === 1 && intros[0]!.type === 'tuple_of_identifiers') {
      const names = kids(intros[0]!)
        .filter((x) => x.type === 'identifier')
        .map((x) => x.text);
      return { names, tuple: true, ...(set ? { set } : {}) };
    }
    return { names: intros.map((i) => i.text), tuple: false, ...(set ? { set } : {}) };
  }

  mk(n: Node, body: ExprBody): Expr {
    return { ...body, loc: this.loc(n) } as Expr;
  }

  /** An argument that may be an operator (a symbol, a LAMBDA) rather than an expression. */
  exprOrOp(n: Node): Expr {
    if (n.type === 'infix_op_symbol' || n.type === 'prefix_op_symbol' || n.type === 'postfix_op_symbol') {
      return this.mk(n, { kind: 'Ident', name: this.symbolName(n) });
    }
    return this.expr(n);
  }

  exprs(ns: Node[]): Expr[] {
    return ns.map((c) => this.exprOrOp(c));
  }

  expr(n: Node): Expr {
    const k = kids(n);
    switch (n.type) {
      case 'nat_number':
        return this.mk(n, { kind: 'Num', value: this.integer(n, n.text, 10) });
      case 'binary_number':
      case 'octal_number':
      case 'hex_number': {
        const digits = kids(n).find((c) => c.type === 'value')!.text;
        const radix = n.type === 'binary_number' ? 2 : n.type === 'octal_number' ? 8 : 16;
        return this.mk(n, { kind: 'Num', value: this.integer(n, digits, radix) });
      }
      case 'real_number':
        // TLC refuses every decimal of the specification before it starts (`SpecProcessor#processConstants`).
        throw new TlaError(`TLC can't handle real numbers.\n${locationText(this.loc(n))}`, 151);
      case 'string':
        return this.mk(n, { kind: 'Str', value: unescape(n.text.slice(1, -1)) });
      case 'boolean':
        return this.mk(n, { kind: 'Bool', value: n.text === 'TRUE' });
      case 'nat_number_set':
        return this.mk(n, { kind: 'Ident', name: 'Nat' });
      case 'int_number_set':
        return this.mk(n, { kind: 'Ident', name: 'Int' });
      case 'real_number_set':
        return this.mk(n, { kind: 'Ident', name: 'Real' });
      case 'boolean_set':
        return this.mk(n, { kind: 'Ident', name: 'BOOLEAN' });
      case 'string_set':
        return this.mk(n, { kind: 'Ident', name: 'STRING' });
      case 'identifier_ref':
      case 'identifier':
        return this.mk(n, { kind: 'Ident', name: n.text });
      case 'parentheses':
        return this.expr(k[0]!);
      case 'label':
        return this.mk(n, {
          kind: 'Label',
          name: n.childForFieldName('name')!.text,
          expr: this.expr(n.childForFieldName('expression')!),
        });
      case 'bound_op': {
        const name = n.childForFieldName('name')!.text;
        const args = this.exprs(n.childrenForFieldName('parameter').filter((p) => p.isNamed));
        return this.mk(n, { kind: 'OpApp', name, args });
      }
      case 'bound_nonfix_op': {
        const name = this.symbolName(n.childForFieldName('symbol')!);
        const args = this.exprs(k.slice(1));
        return this.opApp(n, name, args);
      }
      case 'bound_infix_op': {
        const sym = n.childForFieldName('symbol')!;
        const name = INFIX[sym.type] ?? this.unsupported(sym, `infix operator ${sym.type}`);
        const lhsNode = n.childForFieldName('lhs')!;
        const rhs = this.expr(n.childForFieldName('rhs')!);
        if (name === '\\X') {
          const factors =
            lhsNode.type === 'bound_infix_op' && lhsNode.childForFieldName('symbol')!.type === 'times'
              ? (this.expr(lhsNode) as Extract<Expr, { kind: 'OpApp' }>).args
              : [this.expr(lhsNode)];
          return this.mk(n, { kind: 'OpApp', name, args: [...factors, rhs] });
        }
        return this.opApp(n, name, [this.expr(lhsNode), rhs]);
      }
      case 'bound_prefix_op': {
        const sym = n.childForFieldName('symbol')!;
        const name = PREFIX[sym.type] ?? this.unsupported(sym, `prefix operator ${sym.type}`);
        return this.opApp(n, name, [this.expr(n.childForFieldName('rhs')!)]);
      }
      case 'bound_postfix_op': {
        const sym = n.childForFieldName('symbol')!;
        const name = POSTFIX[sym.type] ?? this.unsupported(sym, `postfix operator ${sym.type}`);
        return this.opApp(n, name, [this.expr(n.childForFieldName('lhs')!)]);
      }
      case 'conj_list':
        return this.mk(n, {
          kind: 'And',
          items: k.map((item) => this.expr(kids(item).find((x) => x.type !== 'bullet_conj')!)),
        });
      case 'disj_list':
        return this.mk(n, {
          kind: 'Or',
          items: k.map((item) => this.expr(kids(item).find((x) => x.type !== 'bullet_disj')!)),
        });
      case 'if_then_else':
        return this.mk(n, {
          kind: 'If',
          cond: this.expr(n.childForFieldName('if')!),
          then: this.expr(n.childForFieldName('then')!),
          else: this.expr(n.childForFieldName('else')!),
        });
      case 'case': {
        const arms = k
          .filter((a) => a.type === 'case_arm')
          .map((a) => {
            const [g, v] = kids(a).filter((x) => x.type !== 'case_arrow');
            return { guard: this.expr(g!), value: this.expr(v!) };
          });
        const otherNode = k.find((a) => a.type === 'other_arm');
        const other = otherNode
          ? this.expr(kids(otherNode).filter((x) => x.type !== 'case_arrow')[0]!)
          : undefined;
        return this.mk(n, { kind: 'Case', arms, ...(other ? { other } : {}) });
      }
      case 'let_in': {
        const defs = n.childrenForFieldName('definitions').flatMap((d) => this.unit(d));
        return this.mk(n, { kind: 'Let', defs, body: this.expr(n.childForFieldName('expression')!) });
      }
      case 'bounded_quantification':
        return this.mk(n, {
          kind: 'Quant',
          forall: n.childForFieldName('quantifier')!.type === 'forall',
          bounds: n
            .childrenForFieldName('bound')
            .filter((b) => b.isNamed)
            .map((b) => this.bound(b)),
          body: this.expr(n.childForFieldName('expression')!),
        });
      case 'unbounded_quantification': {
        const q = n.childForFieldName('quantifier')!.type;
        const names = n
          .childrenForFieldName('intro')
          .filter((i) => i.isNamed)
          .map((i) => i.text);
        const body = this.expr(n.childForFieldName('expression')!);
        if (q === 'temporal_exists' || q === 'temporal_forall') {
          return this.mk(n, { kind: 'TemporalQuant', forall: q === 'temporal_forall', names, body });
        }
        return this.mk(n, { kind: 'Quant', forall: q === 'forall', bounds: [{ names, tuple: false }], body });
      }
      case 'choose': {
        const intro = n.childForFieldName('intro')!;
        const setNode = n.childForFieldName('set');
        const tuple = intro.type === 'tuple_of_identifiers';
        const names = tuple
          ? kids(intro)
              .filter((x) => x.type === 'identifier')
              .map((x) => x.text)
          : [intro.text];
        const bound: Bound = { names, tuple, ...(setNode ? { set: this.expr(setNode) } : {}) };
        return this.mk(n, { kind: 'Choose', bound, body: this.expr(n.childForFieldName('expression')!) });
      }
      case 'finite_set_literal':
        return this.mk(n, { kind: 'SetEnum', elems: k.map((c) => this.expr(c)) });
      case 'set_filter':
        return this.mk(n, {
          kind: 'SetFilter',
          bound: this.bound(n.childForFieldName('generator')!),
          pred: this.expr(n.childForFieldName('filter')!),
        });
      case 'set_map':
        return this.mk(n, {
          kind: 'SetMap',
          bounds: n
            .childrenForFieldName('generator')
            .filter((b) => b.isNamed)
            .map((b) => this.bound(b)),
          body: this.expr(n.childForFieldName('map')!),
        });
      case 'function_literal':
        return this.mk(n, {
          kind: 'FcnLit',
          bounds: k.filter((c) => c.type === 'quantifier_bound').map((b) => this.bound(b)),
          body: this.expr(k[k.length - 1]!),
        });
      case 'set_of_functions': {
        const [dom, rng] = k.filter((c) => c.type !== 'maps_to');
        return this.mk(n, { kind: 'FcnSet', dom: this.expr(dom!), rng: this.expr(rng!) });
      }
      case 'record_literal':
      case 'set_of_records': {
        const parts = k.filter((c) => c.type !== 'all_map_to' && c.type !== 'colon');
        const fields: { name: string; value: Expr }[] = [];
        for (let i = 0; i < parts.length; i += 2)
          fields.push({ name: parts[i]!.text, value: this.expr(parts[i + 1]!) });
        return this.mk(n, { kind: n.type === 'record_literal' ? 'RecLit' : 'RecSet', fields });
      }
      case 'record_value': {
        const [rec, field] = k;
        return this.mk(n, { kind: 'Dot', rec: this.expr(rec!), field: field!.text });
      }
      case 'tuple_literal':
        return this.mk(n, {
          kind: 'Tuple',
          elems: k
            .filter((c) => c.type !== 'langle_bracket' && c.type !== 'rangle_bracket')
            .map((c) => this.expr(c)),
        });
      case 'function_evaluation':
        return this.mk(n, {
          kind: 'FcnApp',
          fn: this.expr(k[0]!),
          args: k.slice(1).map((c) => this.expr(c)),
        });
      case 'except': {
        const updates = k
          .filter((c) => c.type === 'except_update')
          .map((u) => {
            const spec = u
              .childrenForFieldName('update_specifier')
              .find((x) => x.type === 'except_update_specifier')!;
            const path: ExceptPathItem[] = kids(spec).map((p) =>
              p.type === 'except_update_record_field'
                ? { kind: 'field', name: kids(p)[0]!.text }
                : { kind: 'index', args: kids(p).map((a) => this.expr(a)) },
            );
            return { path, value: this.expr(u.childForFieldName('new_val')!) };
          });
        return this.mk(n, { kind: 'Except', fn: this.expr(n.childForFieldName('expr_to_update')!), updates });
      }
      case 'prev_func_val':
        return this.mk(n, { kind: 'At' });
      case 'lambda': {
        const ids = k.filter((c) => c.type === 'identifier');
        const body = k[k.length - 1]!;
        return this.mk(n, { kind: 'Lambda', params: ids.map((i) => i.text), body: this.expr(body) });
      }
      case 'step_expr_or_stutter': {
        const [action, sub] = k;
        return this.mk(n, { kind: 'StepExpr', box: true, action: this.expr(action!), sub: this.expr(sub!) });
      }
      case 'step_expr_no_stutter': {
        const parts = k.filter((c) => c.type !== 'langle_bracket' && c.type !== 'rangle_bracket_sub');
        return this.mk(n, {
          kind: 'StepExpr',
          box: false,
          action: this.expr(parts[0]!),
          sub: this.expr(parts[1]!),
        });
      }
      case 'fairness': {
        const strong = n.child(0)!.text.startsWith('SF');
        const [sub, action] = k;
        return this.mk(n, { kind: 'Fair', strong, sub: this.expr(sub!), action: this.expr(action!) });
      }
      case 'prefixed_op':
        return this.prefixed(n);
      case 'subexpression':
      case 'proof_step_ref':
        return this.unsupported(n, 'subexpression reference');
      default:
        return this.unsupported(n, `expression ${n.type}`);
    }
  }

  integer(n: Node, digits: string, radix: number): number {
    const v = parseInt(digits, radix);
    // TLC's numerals are Java ints (`SpecProcessor#processConstants`: TLC_INTEGER_TOO_BIG, exit 255).
    if (v > 2 ** 31 - 1)
      throw new TlaError(`TLC can't handle a number this big.\n${locationText(this.loc(n))}`, 255);
    return v;
  }

  opApp(n: Node, name: string, args: Expr[]): Expr {
    switch (name) {
      case "'":
        return this.mk(n, { kind: 'Prime', expr: args[0]! });
      case 'UNCHANGED':
        return this.mk(n, { kind: 'Unchanged', expr: args[0]! });
      case 'ENABLED':
        return this.mk(n, { kind: 'Enabled', expr: args[0]! });
      case '[]':
        return this.mk(n, { kind: 'Always', expr: args[0]! });
      case '<>':
        return this.mk(n, { kind: 'Eventually', expr: args[0]! });
      case '~>':
        return this.mk(n, { kind: 'LeadsTo', lhs: args[0]!, rhs: args[1]! });
      case '/\\':
        return this.mk(n, { kind: 'And', items: args });
      case '\\/':
        return this.mk(n, { kind: 'Or', items: args });
      default:
        return this.mk(n, { kind: 'OpApp', name, args });
    }
  }

  prefixed(n: Node): Expr {
    const path: PathStep[] = [];
    for (const comp of kids(n.childForFieldName('prefix')!)) {
      const c = kids(comp)[0]!;
      if (c.type === 'identifier_ref') path.push({ name: c.text, args: [] });
      else if (c.type === 'bound_op') {
        path.push({
          name: c.childForFieldName('name')!.text,
          args: this.exprs(c.childrenForFieldName('parameter').filter((p) => p.isNamed)),
        });
      } else this.unsupported(c, `instance path component ${c.type}`);
    }
    const op = n.childForFieldName('op')!;
    if (op.type === 'identifier_ref') return this.mk(n, { kind: 'Prefixed', path, name: op.text, args: [] });
    if (op.type === 'bound_op') {
      const args = this.exprs(op.childrenForFieldName('parameter').filter((p) => p.isNamed));
      return this.mk(n, { kind: 'Prefixed', path, name: op.childForFieldName('name')!.text, args });
    }
    if (op.type === 'bound_nonfix_op') {
      const name = this.symbolName(op.childForFieldName('symbol')!);
      return this.mk(n, { kind: 'Prefixed', path, name, args: this.exprs(kids(op).slice(1)) });
    }
    const named = this.expr(op) as Extract<Expr, { kind: 'Ident' }>;
    return this.mk(n, { kind: 'Prefixed', path, name: named.name, args: [] });
  }
}

/** The text of a TLA+ string literal's body: \n, \t, \r, \f and \c for any other c. */
export function unescape(s: string): string {
  return s.replace(/\\(.)/g, (_, c: string) =>
    c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c === 'f' ? '\f' : c,
  );
}
