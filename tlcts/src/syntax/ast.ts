/** The TLA+ abstract syntax: plain, kind-tagged data produced by the front end. */

export interface Loc {
  module: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

/** SANY's text of a location: `line 3, col 9 to line 3, col 20 of module M`. */
export function locationText(l: Loc): string {
  return `line ${l.line}, col ${l.col} to line ${l.endLine}, col ${l.endCol} of module ${l.module}`;
}

/** `x \in S`, `x, y \in S` or `<<x, y>> \in S`; `set` is absent for unbounded binders. */
export interface Bound {
  names: string[];
  tuple: boolean;
  set?: Expr;
}

export type ExceptPathItem = { kind: 'index'; args: Expr[] } | { kind: 'field'; name: string };

export interface ExceptUpdate {
  path: ExceptPathItem[];
  value: Expr;
}

/** A step of `A!B(x)!C`: the instance or operator name and its arguments. */
export interface PathStep {
  name: string;
  args: Expr[];
}

export type ExprBody =
  | { kind: 'Num'; value: number }
  | { kind: 'Str'; value: string }
  | { kind: 'Bool'; value: boolean }
  /** A name used as a value or as a zero-argument operator. */
  | { kind: 'Ident'; name: string }
  /** An operator applied to arguments; infix/prefix/postfix operators use their canonical symbol. */
  | { kind: 'OpApp'; name: string; args: Expr[] }
  /** `A!B!Op(args)`: a definition reached through named instances. */
  | { kind: 'Prefixed'; path: PathStep[]; name: string; args: Expr[] }
  | { kind: 'Lambda'; params: string[]; body: Expr }
  | { kind: 'Quant'; forall: boolean; bounds: Bound[]; body: Expr }
  | { kind: 'TemporalQuant'; forall: boolean; names: string[]; body: Expr }
  | { kind: 'Choose'; bound: Bound; body: Expr }
  | { kind: 'SetEnum'; elems: Expr[] }
  | { kind: 'SetFilter'; bound: Bound; pred: Expr }
  | { kind: 'SetMap'; bounds: Bound[]; body: Expr }
  | { kind: 'FcnLit'; bounds: Bound[]; body: Expr }
  | { kind: 'FcnSet'; dom: Expr; rng: Expr }
  | { kind: 'RecLit'; fields: { name: string; value: Expr }[] }
  | { kind: 'RecSet'; fields: { name: string; value: Expr }[] }
  | { kind: 'Tuple'; elems: Expr[] }
  | { kind: 'FcnApp'; fn: Expr; args: Expr[] }
  | { kind: 'Dot'; rec: Expr; field: string }
  | { kind: 'Except'; fn: Expr; updates: ExceptUpdate[] }
  | { kind: 'At' }
  | { kind: 'If'; cond: Expr; then: Expr; else: Expr }
  | { kind: 'Case'; arms: { guard: Expr; value: Expr }[]; other?: Expr }
  | { kind: 'Let'; defs: Unit[]; body: Expr }
  | { kind: 'And'; items: Expr[] }
  | { kind: 'Or'; items: Expr[] }
  | { kind: 'Prime'; expr: Expr }
  | { kind: 'Unchanged'; expr: Expr }
  | { kind: 'Enabled'; expr: Expr }
  /** `[A]_v` (box) and `<<A>>_v` (angle). */
  | { kind: 'StepExpr'; box: boolean; action: Expr; sub: Expr }
  | { kind: 'Fair'; strong: boolean; sub: Expr; action: Expr }
  | { kind: 'Always'; expr: Expr }
  | { kind: 'Eventually'; expr: Expr }
  | { kind: 'LeadsTo'; lhs: Expr; rhs: Expr }
  | { kind: 'Label'; name: string; expr: Expr };

export type Expr = ExprBody & { loc: Loc };

/** An operator parameter; `arity > 0` for a higher-order parameter such as `F(_, _)`. */
export interface Param {
  name: string;
  arity: number;
}

export interface OpDef {
  kind: 'OpDef';
  name: string;
  params: Param[];
  body: Expr;
  local: boolean;
  loc: Loc;
}

/** `f[x \in S] == e`: a (possibly recursive) function definition. */
export interface FcnDef {
  kind: 'FcnDef';
  name: string;
  bounds: Bound[];
  body: Expr;
  local: boolean;
  loc: Loc;
}

export interface Substitution {
  name: string;
  expr: Expr;
}

/** `INSTANCE M WITH ...`, unnamed (name absent) or `I(p) == INSTANCE M WITH ...`. */
export interface InstanceDef {
  kind: 'Instance';
  name?: string;
  params: Param[];
  module: string;
  subs: Substitution[];
  local: boolean;
  loc: Loc;
}

export interface Declaration {
  kind: 'Constant' | 'Variable' | 'Recursive';
  params: Param[];
  loc: Loc;
}

export interface Assumption {
  kind: 'Assume';
  name?: string;
  expr: Expr;
  loc: Loc;
}

export type Unit = OpDef | FcnDef | InstanceDef | Declaration | Assumption | ModuleAst;

export interface ModuleAst {
  kind: 'Module';
  name: string;
  extends: string[];
  units: Unit[];
  loc: Loc;
}
