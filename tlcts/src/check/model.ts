/** A specification bound to its configuration: everything the explorer evaluates, compiled. */
import fs from 'node:fs';
import type { Expr, OpDef } from '../syntax/ast.js';
import { parseCfg } from '../cfg/parse.js';
import type { CfgValue, ModelConfig } from '../cfg/types.js';
import { ModuleLoader } from '../modules/loader.js';
import { Compiler, forEachChild, locText } from '../eval/compiler.js';
import type { DefHandle, ModInst, Scope, Sym } from '../eval/scope.js';
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
  /** Enumerates successors: assigns c.t. */
  next: ActClosure;
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
  applyOverrides(root, loader, config, cfgValues);
  return new ModelBuilder(config, loader, root, compiler, opts).build();
}

/** Configuration forms this checker does not implement are refused by name, never ignored. */
function refuseUnsupported(config: ModelConfig): void {
  for (const c of config.constants) {
    const what =
      c.kind === 'operatorValue'
        ? `an operator defined by values (${c.name}(...) = ...)`
        : c.kind === 'moduleValue'
          ? `a module-scoped value (${c.name} = [${c.module}] ...)`
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
    if (!target)
      throw new TlaError(
        `The configuration substitutes ${name} <- ${sub.by}, but ${sub.by} is not defined.`,
        151,
      );
    return target;
  }
  throw new TlaError(
    `The constant parameter ${name} is not assigned a value by the configuration file.`,
    151,
  );
}

/** `Def <- Other` and `Def = v` in the cfg also replace definitions (TLC's model overrides). */
function applyOverrides(
  root: ModInst,
  loader: ModuleLoader,
  config: ModelConfig,
  values: Map<string, Value>,
): void {
  for (const c of config.constants) {
    if (c.kind === 'moduleSubstitution') {
      const by = root.names.get(c.by);
      if (!by) {
        throw new TlaError(
          `The configuration substitutes ${c.name} <- [${c.module}] ${c.by}, but ${c.by} is not defined.`,
          151,
        );
      }
      loader.overrideInModule(c.module, c.name, by);
      continue;
    }
    const sym = root.names.get(c.name);
    if (!sym || (sym.k !== 'def' && sym.k !== 'builtin')) continue;
    let replacement: Sym | undefined;
    if (c.kind === 'value') replacement = { k: 'const', value: values.get(c.name)!, name: c.name };
    else if (c.kind === 'substitution') replacement = root.names.get(c.by);
    if (!replacement) throw new TlaError(`The configuration overrides ${c.name} with an unknown name.`, 151);
    if (sym.k === 'builtin') {
      loader.overrideBuiltin(c.name, replacement);
      continue;
    }
    // Replace in place: every module instance that imported the definition sees the override.
    for (const key of Object.keys(sym)) delete (sym as unknown as Record<string, unknown>)[key];
    Object.assign(sym, replacement);
  }
}

/** An expression together with the module-level scope its names resolve in. */
interface Scoped {
  e: Expr;
  scope: Scope;
}

class ModelBuilder {
  /** The scope in which the model's own expressions (instance paths of properties) are compiled. */
  private readonly scope: Scope;
  private readonly temporalDefs = new Map<DefHandle, boolean>();
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
    const { config } = this;
    const { init, next } = this.initAndNext();
    const m: Model = {
      config,
      loader: this.loader,
      compiler: this.compiler,
      root: this.root,
      vars: this.loader.variables,
      assumptions: this.assumptions(),
      init: init
        .map((x) => this.actIn(x, true, false))
        .reduceRight<ActClosure>(
          (rest, a) => (c, k) => a(c, () => rest(c, k)),
          (_c, k) => k(),
        ),
      next: this.actIn(next, false, true),
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
    if (!this.root.names.has(name))
      throw new TlaError(`The configuration names ${name}, which is not defined.`, 151);
    return {
      kind: 'Ident',
      name,
      loc: { module: this.root.module.name, line: 0, col: 0, endLine: 0, endCol: 0 },
    };
  }

  /** An action compiled in a module-level scope, run in a fresh frame. */
  private actIn(x: Scoped, init: boolean, top: boolean): ActClosure {
    const sc = x.scope === this.scope ? x.scope : x.scope.newFrame();
    const a = this.compiler.act(x.e, sc, init, top);
    const info = sc.frame;
    return (c, k) => a({ s: c.s, t: c.t, f: new Frame(info.size, ROOT_FRAME) }, k);
  }

  private valueOf(e: Expr, scope: Scope = this.scope): (s: Value[] | null, t: Value[] | null) => Value {
    const sc = scope === this.scope ? scope : scope.newFrame();
    const cl: Closure = this.compiler.expr(e, sc);
    const info = sc.frame;
    return (s, t) => cl({ s, t, f: new Frame(info.size, ROOT_FRAME) });
  }

  private statePred(e: Expr, scope?: Scope): StatePred {
    const v = this.valueOf(e, scope);
    return (s) => bool(v(s, null), e);
  }

  private actionPred(e: Expr, scope?: Scope): ActionPred {
    const v = this.valueOf(e, scope);
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
  private initAndNext(): { init: Scoped[]; next: Scoped } {
    const { config } = this;
    if (config.init && config.next) {
      return {
        init: [{ e: this.named(config.init), scope: this.scope }],
        next: { e: this.named(config.next), scope: this.scope },
      };
    }
    if (!config.specification)
      throw new TlaError('The configuration gives neither SPECIFICATION nor INIT and NEXT.', 151);
    const init: Scoped[] = [];
    let next: Scoped | undefined;
    for (const x of this.conjuncts(this.named(config.specification), this.scope)) {
      if (x.e.kind === 'Always' && x.e.expr.kind === 'StepExpr' && x.e.expr.box)
        next = { e: x.e.expr.action, scope: x.scope };
      else if (!this.isTemporal(x.e, x.scope)) init.push(x);
    }
    if (!next || init.length === 0) {
      throw new TlaError(
        `The specification ${config.specification} is not of the form Init /\\ [][Next]_vars /\\ ...`,
        151,
      );
    }
    return { init, next };
  }

  /**
   * The conjuncts of a temporal formula, unfolding zero-argument definitions whose body is temporal,
   * wherever they are defined (an MC module's Spec often comes from the module it extends).
   */
  private conjuncts(e: Expr, scope: Scope): Scoped[] {
    if (e.kind === 'And') return e.items.flatMap((x) => this.conjuncts(x, scope));
    if (e.kind === 'Label') return this.conjuncts(e.expr, scope);
    if (e.kind === 'Ident') {
      const sym = scope.lookup(e.name);
      if (
        sym?.k === 'def' &&
        sym.h.def.kind === 'OpDef' &&
        sym.h.arity === 0 &&
        this.isTemporal(sym.h.def.body, sym.h.scope)
      ) {
        return this.conjuncts(sym.h.def.body, sym.h.scope);
      }
    }
    return [{ e, scope }];
  }

  /** Whether e is a temporal formula, looking through the definitions it uses. */
  private isTemporal(e: Expr, scope: Scope): boolean {
    return exists(e, (x) => {
      if (TEMPORAL_KINDS.has(x.kind)) return true;
      if (x.kind !== 'Ident' && x.kind !== 'OpApp' && x.kind !== 'Prefixed') return false;
      const sym = x.kind === 'Prefixed' ? this.prefixedTarget(x, scope) : scope.lookup(x.name);
      if (sym?.k !== 'def' || sym.h.def.kind !== 'OpDef') return false;
      const h = sym.h;
      let known = this.temporalDefs.get(h);
      if (known === undefined) {
        this.temporalDefs.set(h, false);
        known = this.isTemporal((h.def as OpDef).body, h.scope);
        this.temporalDefs.set(h, known);
      }
      return known;
    });
  }

  private property(name: string, m: Model): void {
    let body = this.named(name);
    // A property naming an instance's definition (e.g. `Refines == Abs!Spec`) is checked through it.
    const sym = this.root.names.get(name);
    if (sym?.k === 'def' && sym.h.def.kind === 'OpDef' && sym.h.arity === 0) body = (sym.h.def as OpDef).body;
    const expand = (x: Scoped, depth: number): void => {
      if (x.e.kind !== 'Prefixed' || depth > 16) return this.propertyPart(name, x, m);
      const parts = this.unfoldInstance(x.e, x.scope);
      if (parts.length === 1 && parts[0]!.e === x.e) return this.propertyPart(name, x, m);
      // An instance's formula may itself name a nested instance's (I!J!Spec): unfold again.
      for (const p of parts) for (const c of this.conjuncts(p.e, p.scope)) expand(c, depth + 1);
    };
    for (const x of this.conjuncts(body, this.scope)) expand(x, 0);
  }

  /** `I!Spec` where Spec is `Init /\ [][Next]_v /\ ...` in the instance: its conjuncts as prefixed expressions. */
  /** What `I!J!name` names, for instances without parameters. */
  private prefixedTarget(e: Expr & { kind: 'Prefixed' }, scope: Scope): Sym | undefined {
    let lookup = scope;
    for (const step of e.path) {
      const s = lookup.lookup(step.name);
      if (!s || s.k !== 'instance' || step.args.length > 0) return undefined;
      lookup = this.loader.instantiate(s.def, s.scope).inst.top;
    }
    return lookup.inst.names.get(e.name);
  }

  /**
   * `I!Prop` where Prop is a temporal formula of the instance (`Init /\\ [][Next]_v /\\ ...`): its
   * conjuncts, each with the scope to compile it in. An instance with parameters, `C(z)!Spec`, is
   * rewritten as `C(z)!name` expressions in the model's scope; others keep the instance's own scope.
   */
  private unfoldInstance(e: Expr & { kind: 'Prefixed' }, scope: Scope): Scoped[] {
    const keep = [{ e, scope }];
    if (e.args.length > 0) return keep;
    let inst: ModInst | undefined;
    let lookup = scope;
    let parameterized = false;
    for (const step of e.path) {
      const s = lookup.lookup(step.name);
      if (!s || s.k !== 'instance') return keep;
      if (step.args.length > 0) {
        if (scope !== this.scope) return keep;
        parameterized = true;
        inst = this.loader.instantiateAt(s.def, s.scope, step, this.scope).inst;
      } else inst = this.loader.instantiate(s.def, s.scope).inst;
      lookup = inst.top;
    }
    const target = inst?.names.get(e.name);
    if (!inst || target?.k !== 'def' || target.h.def.kind !== 'OpDef' || target.h.arity > 0) return keep;
    if (!this.isTemporal(target.h.def.body, target.h.scope)) return keep;
    const parts = this.conjuncts(target.h.def.body, target.h.scope);
    if (!parameterized) return parts;
    return parts.map((x) => ({ e: prefixAll(x.e, e.path, inst!), scope: this.scope }));
  }

  private propertyPart(name: string, { e, scope }: Scoped, m: Model): void {
    if (e.kind === 'Always' && e.expr.kind === 'StepExpr' && e.expr.box) {
      const step = e.expr;
      m.impliedActions.push({
        name,
        loc: locText(step.action),
        check: this.actionPred({ ...step, kind: 'StepExpr' }, scope),
      });
      return;
    }
    if (e.kind === 'Always' && !this.isTemporal(e.expr, scope) && !hasPrime(e.expr)) {
      const pred = this.statePred(e.expr, scope);
      m.impliedActions.push({ name, loc: locText(e.expr), check: (_s, t) => pred(t) });
      m.impliedInits.push({ name, loc: locText(e.expr), check: pred });
      return;
    }
    if (!this.isTemporal(e, scope) && !hasPrime(e)) {
      m.impliedInits.push({ name, loc: locText(e), check: this.statePred(e, scope) });
      return;
    }
    if (!m.unchecked.includes(name)) m.unchecked.push(name);
  }

  private symmetry(name: string): Map<Value, Value>[] {
    const v = this.valueOf(this.named(name))(null, null);
    if (!(v instanceof SetValue))
      throw new TlaError(`The symmetry ${name} is not a set of permutations.`, 151);
    const generators = v.toArray().map((p) => {
      if (!(p instanceof FcnValue))
        throw new TlaError(`The symmetry ${name} contains ${show(p)}, not a permutation.`, 151);
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
      if (s.k === 'def' || s.k === 'var' || s.k === 'subst' || s.k === 'const')
        return { kind: 'Prefixed', path, name: x.name, args: [], loc: x.loc };
    }
    if (x.kind === 'OpApp' && inst.names.get(x.name)?.k === 'def') {
      return { kind: 'Prefixed', path, name: x.name, args: x.args.map(rewrite), loc: x.loc };
    }
    if (x.kind === 'Prefixed' && inst.names.get(x.path[0]!.name)?.k === 'instance') {
      return { ...x, path: [...path, ...x.path], args: x.args.map(rewrite) };
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

const TEMPORAL_KINDS = new Set<Expr['kind']>([
  'Always',
  'Eventually',
  'LeadsTo',
  'Fair',
  'TemporalQuant',
  'StepExpr',
]);

function hasPrime(e: Expr): boolean {
  return exists(e, (x) => x.kind === 'Prime' || x.kind === 'Unchanged' || x.kind === 'StepExpr');
}

/** The group generated by some permutations (TLC reduces by the generated subgroup, not just the set given). */
function permutationGroup(generators: Map<Value, Value>[]): Map<Value, Value>[] {
  const key = (p: Map<Value, Value>) =>
    [...p]
      .filter(([a, b]) => a !== b)
      .map(([a, b]) => `${show(a)}>${show(b)}`)
      .sort()
      .join(',');
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
