/** A specification bound to its configuration: everything the explorer evaluates, compiled. */
import fs from 'node:fs';
import type { Expr, OpDef } from '../syntax/ast.js';
import { parseCfg } from '../cfg/parse.js';
import type { CfgValue, ModelConfig } from '../cfg/types.js';
import { ModuleLoader } from '../modules/loader.js';
import { Compiler, forEachChild, locText } from '../eval/compiler.js';
import type { ModInst, Scope, Sym } from '../eval/scope.js';
import { Frame, ROOT_FRAME, type ActClosure, type Closure } from '../eval/runtime.js';
import { TlaError } from '../errors.js';
import type { BuiltinHost } from '../stdlib/builtin.js';
import {
  FcnValue,
  SetValue,
  intern,
  modelValue,
  resetValueTables,
  setOf,
  show,
  type Value,
} from '../values/value.js';
import { EvalError } from '../values/errors.js';

export interface NamedCheck<F> {
  name: string;
  /** TLC's location text of the formula, for action properties. */
  loc: string;
  check: F;
}

export type StatePred = (s: Value[]) => boolean;
export type ActionPred = (s: Value[], t: Value[]) => boolean;

export interface Model {
  config: ModelConfig;
  loader: ModuleLoader;
  compiler: Compiler;
  root: ModInst;
  vars: readonly string[];
  assumptions: NamedCheck<() => boolean>[];
  /** Enumerates initial states: assigns c.s. */
  init: ActClosure;
  initFrameSize: () => number;
  /** Enumerates successors: assigns c.t. */
  next: ActClosure;
  nextFrameSize: () => number;
  invariants: NamedCheck<StatePred>[];
  constraints: StatePred[];
  actionConstraints: ActionPred[];
  /** State predicates of PROPERTY formulas, checked on initial states. */
  impliedInits: NamedCheck<StatePred>[];
  /** `[][A]_v` parts of PROPERTY formulas (and `[]P` with P a state predicate), checked on every step. */
  impliedActions: NamedCheck<ActionPred>[];
  /** Properties, or parts of them, that this checker does not check (temporal formulas). */
  unchecked: string[];
  view?: (s: Value[]) => Value;
  /** ALIAS: what a trace shows for a state (and its successor), as a record. */
  alias?: (s: Value[], t: Value[] | null) => Value;
  /** Permutations of model values of the SYMMETRY set, as maps. */
  symmetry?: Map<Value, Value>[];
  checkDeadlock: boolean;
}

export interface LoadOptions {
  tlaFile: string;
  cfgFile: string;
  host: BuiltinHost;
  /** Overrides the cfg's CHECK_DEADLOCK (TLC's -deadlock flag disables deadlock checking). */
  checkDeadlock?: boolean;
}

function cfgValue(v: CfgValue): Value {
  switch (v.kind) {
    case 'int':
    case 'bool':
      return v.value;
    case 'string':
      intern(v.value);
      return v.value;
    case 'modelValue':
      return modelValue(v.name);
    case 'set':
      return setOf(v.elements.map(cfgValue));
    case 'tuple':
      throw new TlaError('Tuples are not allowed in a TLC configuration file.', 151);
  }
}

export function loadModel(opts: LoadOptions): Model {
  const config = parseCfg(fs.readFileSync(opts.cfgFile, 'utf8'), opts.cfgFile);
  refuseUnsupported(config);
  resetValueTables();
  // TLC interns the configuration's values before it parses the modules (value order depends on it).
  const cfgValues = new Map<string, Value>();
  for (const c of config.constants) if (c.kind === 'value') cfgValues.set(c.name, cfgValue(c.value));
  const loader = new ModuleLoader(opts.tlaFile);
  const root = loader.root((name, inst) => bindConstant(name, inst, config, cfgValues));
  const compiler = new Compiler(loader, opts.host, loader.variables);
  applyOverrides(root, config, cfgValues);
  return new ModelBuilder(config, loader, root, compiler, opts).build();
}

/** Configuration forms this checker does not implement are refused by name, never ignored. */
function refuseUnsupported(config: ModelConfig): void {
  for (const c of config.constants) {
    const what =
      c.kind === 'operatorValue'
        ? `an operator defined by values (${c.name}(...) = ...)`
        : c.kind === 'moduleValue' || c.kind === 'moduleSubstitution'
          ? `a module-scoped binding (${c.name} <- [${c.module}] ...)`
          : undefined;
    if (what) throw new TlaError(`unsupported: ${what} at line ${c.loc.line} of ${config.file}`, 151);
  }
  if (config.postcondition) throw new TlaError(`unsupported: POSTCONDITION in ${config.file}`, 151);
}

function bindConstant(name: string, inst: ModInst, config: ModelConfig, values: Map<string, Value>): Sym {
  const v = values.get(name);
  if (v !== undefined) return { k: 'const', value: v, name };
  const sub = config.constants.find((c) => c.name === name && c.kind === 'substitution');
  if (sub && sub.kind === 'substitution') {
    const target = inst.names.get(sub.by);
    if (!target) throw new TlaError(`The configuration substitutes ${name} <- ${sub.by}, but ${sub.by} is not defined.`, 151);
    return target;
  }
  throw new TlaError(`The constant parameter ${name} is not assigned a value by the configuration file.`, 151);
}

/** `Def <- Other` and `Def = v` in the cfg also replace definitions (TLC's model overrides). */
function applyOverrides(root: ModInst, config: ModelConfig, values: Map<string, Value>): void {
  for (const c of config.constants) {
    const sym = root.names.get(c.name);
    if (!sym || sym.k !== 'def') continue;
    let replacement: Sym | undefined;
    if (c.kind === 'value') replacement = { k: 'const', value: values.get(c.name)!, name: c.name };
    else if (c.kind === 'substitution') replacement = root.names.get(c.by);
    if (!replacement) throw new TlaError(`The configuration overrides ${c.name} with an unknown name.`, 151);
    // Replace in place: every module instance that imported the definition sees the override.
    for (const key of Object.keys(sym)) delete (sym as unknown as Record<string, unknown>)[key];
    Object.assign(sym, replacement);
  }
}

class ModelBuilder {
  private readonly scope: Scope;
  constructor(
    private readonly config: ModelConfig,
    private readonly loader: ModuleLoader,
    private readonly root: ModInst,
    private readonly compiler: Compiler,
    private readonly opts: LoadOptions,
  ) {
    this.scope = root.top.newFrame();
  }

  build(): Model {
    const { config, compiler } = this;
    const { init, next } = this.initAndNext();
    const m: Model = {
      config,
      loader: this.loader,
      compiler,
      root: this.root,
      vars: this.loader.variables,
      assumptions: this.assumptions(),
      init: this.runInFrame(compiler.act(init, this.scope, true, false)),
      initFrameSize: () => this.scope.frame.size,
      next: this.runInFrame(compiler.act(next, this.scope, false, true)),
      nextFrameSize: () => this.scope.frame.size,
      invariants: config.invariants.map((n) => ({ name: n, loc: '', check: this.statePred(this.named(n)) })),
      constraints: config.constraints.map((n) => this.statePred(this.named(n))),
      actionConstraints: config.actionConstraints.map((n) => this.actionPred(this.named(n))),
      impliedInits: [],
      impliedActions: [],
      unchecked: [],
      checkDeadlock: this.opts.checkDeadlock ?? config.checkDeadlock ?? true,
    };
    for (const p of config.properties) this.property(p, m);
    if (config.view) {
      const view = this.valueOf(this.named(config.view));
      m.view = (s) => view(s, null);
    }
    if (config.symmetry) m.symmetry = this.symmetry(config.symmetry);
    if (config.alias) m.alias = this.valueOf(this.named(config.alias));
    return m;
  }

  private named(name: string): Expr {
    if (!this.root.names.has(name)) throw new TlaError(`The configuration names ${name}, which is not defined.`, 151);
    return { kind: 'Ident', name, loc: { module: this.root.module.name, line: 0, col: 0, endLine: 0, endCol: 0 } };
  }

  /** Runs a closure compiled in this.scope with a fresh frame. */
  private runInFrame(a: ActClosure): ActClosure {
    const frameInfo = this.scope.frame;
    return (c, k) => a({ s: c.s, t: c.t, f: new Frame(frameInfo.size, ROOT_FRAME) }, k);
  }

  private valueOf(e: Expr): (s: Value[] | null, t: Value[] | null) => Value {
    const cl: Closure = this.compiler.expr(e, this.scope);
    const frameInfo = this.scope.frame;
    return (s, t) => cl({ s, t, f: new Frame(frameInfo.size, ROOT_FRAME) });
  }

  private statePred(e: Expr): StatePred {
    const v = this.valueOf(e);
    return (s) => bool(v(s, null), e);
  }

  private actionPred(e: Expr): ActionPred {
    const v = this.valueOf(e);
    return (s, t) => bool(v(s, t), e);
  }

  private assumptions(): NamedCheck<() => boolean>[] {
    const out: NamedCheck<() => boolean>[] = [];
    for (const name of this.loader.parseOrder.slice().reverse()) {
      const m = this.loader.module(name)!;
      for (const u of m.units) {
        if (u.kind !== 'Assume') continue;
        if (!this.isInScope(name)) continue;
        const v = this.valueOf(u.expr);
        out.push({ name: u.name ?? '', loc: locText(u), check: () => bool(v(null, null), u.expr) });
      }
    }
    return out;
  }

  /** Assumptions of modules that are only instantiated refer to their own constants; check the root's closure. */
  private isInScope(moduleName: string): boolean {
    const visit = (m: string, seen: Set<string>): boolean => {
      if (m === moduleName) return true;
      if (seen.has(m)) return false;
      seen.add(m);
      const ast = this.loader.module(m);
      return !!ast && ast.extends.some((e) => visit(e, seen));
    };
    return visit(this.root.module.name, new Set());
  }

  /** Init and Next from INIT/NEXT or from the SPECIFICATION formula `Init /\ [][Next]_v /\ ...`. */
  private initAndNext(): { init: Expr; next: Expr } {
    const { config } = this;
    if (config.init && config.next) return { init: this.named(config.init), next: this.named(config.next) };
    if (!config.specification) throw new TlaError('The configuration gives neither SPECIFICATION nor INIT and NEXT.', 151);
    const conjuncts = this.conjuncts(this.named(config.specification), this.scope);
    const inits: Expr[] = [];
    let next: Expr | undefined;
    for (const { e } of conjuncts) {
      if (e.kind === 'Always' && e.expr.kind === 'StepExpr' && e.expr.box) next = e.expr.action;
      else if (!isTemporal(e)) inits.push(e);
    }
    if (!next || inits.length === 0) {
      throw new TlaError(`The specification ${config.specification} is not of the form Init /\\ [][Next]_vars /\\ ...`, 151);
    }
    const loc = inits[0]!.loc;
    return { init: inits.length === 1 ? inits[0]! : { kind: 'And', items: inits, loc }, next };
  }

  /**
   * The conjuncts of a temporal formula, unfolding zero-argument definitions whose body is
   * temporal. Conjuncts found inside an instance keep their instance's scope (see `property`).
   */
  private conjuncts(e: Expr, scope: Scope): { e: Expr; scope: Scope }[] {
    if (e.kind === 'And') return e.items.flatMap((x) => this.conjuncts(x, scope));
    if (e.kind === 'Label') return this.conjuncts(e.expr, scope);
    if (e.kind === 'Ident') {
      const sym = scope.lookup(e.name);
      if (sym?.k === 'def' && sym.h.def.kind === 'OpDef' && sym.h.arity === 0 && isTemporal(sym.h.def.body)) {
        if (sym.h.scope.inst === scope.inst) return this.conjuncts(sym.h.def.body, scope);
      }
    }
    return [{ e, scope }];
  }

  private property(name: string, m: Model): void {
    let body = this.named(name);
    // A property naming an instance's definition (e.g. `Refines == Abs!Spec`) is checked through it.
    const sym = this.root.names.get(name);
    if (sym?.k === 'def' && sym.h.def.kind === 'OpDef' && sym.h.arity === 0) body = (sym.h.def as OpDef).body;
    for (const { e } of this.conjuncts(body, this.scope)) {
      const part = this.unfoldInstance(e);
      for (const c of part) this.propertyPart(name, c, m);
    }
  }

  /** `I!Spec` where Spec is `Init /\ [][Next]_v /\ ...` in the instance: its conjuncts as prefixed expressions. */
  private unfoldInstance(e: Expr): Expr[] {
    if (e.kind !== 'Prefixed' || e.args.length > 0) return [e];
    let inst: ModInst | undefined;
    let lookup = this.root.top;
    for (const step of e.path) {
      const s = lookup.lookup(step.name);
      if (!s || s.k !== 'instance') return [e];
      inst = (step.args.length > 0 ? this.loader.instantiateAt(s.def, s.scope, step, this.scope) : this.loader.instantiate(s.def, s.scope)).inst;
      lookup = inst.top;
    }
    const target = inst?.names.get(e.name);
    if (!inst || target?.k !== 'def' || target.h.def.kind !== 'OpDef') return [e];
    const parts = this.conjuncts(target.h.def.body, inst.top);
    return parts.map(({ e: x }) => prefixAll(x, e.path, inst!));
  }

  private propertyPart(name: string, e: Expr, m: Model): void {
    if (e.kind === 'Always' && e.expr.kind === 'StepExpr' && e.expr.box) {
      const step = e.expr;
      m.impliedActions.push({ name, loc: locText(step.action), check: this.actionPred({ ...step, kind: 'StepExpr' }) });
      return;
    }
    if (e.kind === 'Always' && !isTemporal(e.expr) && !hasPrime(e.expr)) {
      const pred = this.statePred(e.expr);
      m.impliedActions.push({ name, loc: locText(e.expr), check: (_s, t) => pred(t) });
      m.impliedInits.push({ name, loc: locText(e.expr), check: pred });
      return;
    }
    if (!isTemporal(e) && !hasPrime(e)) {
      m.impliedInits.push({ name, loc: locText(e), check: this.statePred(e) });
      return;
    }
    if (!m.unchecked.includes(name)) m.unchecked.push(name);
  }

  private symmetry(name: string): Map<Value, Value>[] {
    const v = this.valueOf(this.named(name))(null, null);
    if (!(v instanceof SetValue)) throw new TlaError(`The symmetry ${name} is not a set of permutations.`, 151);
    const generators = v.toArray().map((p) => {
      if (!(p instanceof FcnValue)) throw new TlaError(`The symmetry ${name} contains ${show(p)}, not a permutation.`, 151);
      const f = p.materialize();
      const map = new Map<Value, Value>();
      for (let i = 0; i < f.size(); i++) map.set(f.keyAt(i), f.valAt(i));
      return map;
    });
    return permutationGroup(generators);
  }
}

/** Rewrites the names of an instance's formula as `I!name`, so it is compiled in the root scope. */
function prefixAll(e: Expr, path: { name: string; args: Expr[] }[], inst: ModInst): Expr {
  const rewrite = (x: Expr): Expr => {
    if (x.kind === 'Ident' && inst.names.has(x.name)) {
      const s = inst.names.get(x.name)!;
      if (s.k === 'def' || s.k === 'var' || s.k === 'subst' || s.k === 'const') return { kind: 'Prefixed', path, name: x.name, args: [], loc: x.loc };
    }
    if (x.kind === 'OpApp' && inst.names.get(x.name)?.k === 'def') {
      return { kind: 'Prefixed', path, name: x.name, args: x.args.map(rewrite), loc: x.loc };
    }
    return mapChildren(x, rewrite);
  };
  return rewrite(e);
}

function mapChildren(e: Expr, fn: (x: Expr) => Expr): Expr {
  switch (e.kind) {
    case 'Always':
    case 'Eventually':
    case 'Prime':
    case 'Unchanged':
    case 'Enabled':
    case 'Label':
      return { ...e, expr: fn(e.expr) };
    case 'StepExpr':
    case 'Fair':
      return { ...e, action: fn(e.action), sub: fn(e.sub) };
    case 'And':
    case 'Or':
      return { ...e, items: e.items.map(fn) };
    case 'Tuple':
      return { ...e, elems: e.elems.map(fn) };
    case 'LeadsTo':
      return { ...e, lhs: fn(e.lhs), rhs: fn(e.rhs) };
    default:
      return e;
  }
}

function bool(v: Value, e: Expr): boolean {
  if (v === true || v === false) return v;
  throw new EvalError(`The expression at ${locText(e)} should be a boolean but is ${show(v)}.`);
}

function exists(e: Expr, pred: (x: Expr) => boolean): boolean {
  if (pred(e)) return true;
  let found = false;
  forEachChild(e, (x) => {
    if (!found && exists(x, pred)) found = true;
  });
  return found;
}

export function isTemporal(e: Expr): boolean {
  return exists(e, (x) =>
    ['Always', 'Eventually', 'LeadsTo', 'Fair', 'TemporalQuant'].includes(x.kind) ||
    (x.kind === 'StepExpr'),
  );
}

function hasPrime(e: Expr): boolean {
  return exists(e, (x) => x.kind === 'Prime' || x.kind === 'Unchanged' || x.kind === 'StepExpr');
}

/** The group generated by some permutations (TLC reduces by the generated subgroup, not just the set given). */
function permutationGroup(generators: Map<Value, Value>[]): Map<Value, Value>[] {
  const key = (p: Map<Value, Value>) => [...p].filter(([a, b]) => a !== b).map(([a, b]) => `${show(a)}>${show(b)}`).sort().join(',');
  const group = new Map<string, Map<Value, Value>>();
  const queue = generators.filter((g) => !group.has(key(g)) && group.set(key(g), g));
  while (queue.length > 0) {
    const p = queue.shift()!;
    for (const g of generators) {
      const composed = new Map<Value, Value>();
      for (const x of new Set([...p.keys(), ...g.keys()])) {
        const y = p.get(x) ?? x;
        composed.set(x, g.get(y) ?? y);
      }
      const k = key(composed);
      if (!group.has(k)) {
        group.set(k, composed);
        queue.push(composed);
      }
    }
  }
  return [...group.values()];
}
