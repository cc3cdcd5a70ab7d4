/**
 * Loads a specification's modules and builds module instances: EXTENDS, INSTANCE ... WITH,
 * LOCAL, standard modules, and the binding of the root module's constants by the .cfg.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Declaration, Expr, InstanceDef, Loc, ModuleAst, PathStep, Unit } from '../syntax/ast.js';
import { forEachChild } from '../syntax/walk.js';
import { parseModules, unescape } from '../syntax/parse.js';
import { SanyError, TlaError } from '../errors.js';
import { sanyAbortReport } from '../syntax/sany.js';
import { commentEnd } from '../syntax/sany-lexer.js';
import { DefHandle, ModInst, Scope, type Sym } from '../eval/scope.js';
import { COMMUNITY_MODULES, STANDARD_MODULES } from '../stdlib/index.js';
import type { BuiltinModule } from '../eval/builtin.js';
import { intern } from '../values/value.js';

/** Declared constants and variables of a module instance resolve through its provider. */
type Provider = (name: string, decl: Declaration) => Sym;

/** A module instance and the names it shows to modules that extend or instantiate it. */
interface Built {
  inst: ModInst;
  exported: Map<string, Sym>;
  /** Exported names that give way to a definition of the same name (see `declare`). */
  givesWay: ReadonlySet<string>;
}

/** An instance made by INSTANCE; its parameters (if any) live in paramScope's frame. */
export interface Instantiated extends Built {
  paramScope: Scope;
}

export class ModuleLoader {
  private readonly modules = new Map<string, ModuleAst>();
  private readonly sources = new Map<string, string>();
  /** Module names in the order they were parsed (main module first, then dependencies breadth-first). */
  readonly parseOrder: string[] = [];
  private readonly instances = new Map<InstanceDef, Map<ModInst, Instantiated>>();
  private readonly callSites = new Map<PathStep, Map<Scope, Instantiated>>();
  /** Every module instance made so far, and the .cfg's replacements of standard operators. */
  private readonly built: ModInst[] = [];
  private readonly overrides = new Map<string, Sym>();
  /** `name <- [Module] def` of a .cfg: module name -> replaced name -> replacement. */
  private readonly moduleOverrides = new Map<string, Map<string, Sym>>();
  /** Variables of the root module, in declaration order. */
  readonly variables: string[] = [];
  readonly main: ModuleAst;
  /** The specification as TLC names it in SANY's reports: the root file as given, without `.tla`. */
  readonly spec: string;

  constructor(readonly mainFile: string) {
    const dir = path.dirname(mainFile);
    const base = mainFile.replace(/\.tla$/, '');
    // TLC runs from the folder of an absolute path (`TLC#handleParameters`).
    this.spec = path.isAbsolute(base) ? path.basename(base) : base;
    const mainModules = this.parseFile(mainFile);
    this.main = mainModules[0]!;
    // Parse the dependency closure breadth-first, as SANY does.
    const queue = [this.main];
    const seen = new Set([this.main.name]);
    while (queue.length > 0) {
      const m = queue.shift()!;
      for (const dep of dependencies(m)) {
        if (seen.has(dep)) continue;
        seen.add(dep);
        if (this.modules.has(dep)) {
          queue.push(this.modules.get(dep)!);
          continue;
        }
        const file = path.join(dir, `${dep}.tla`);
        if (fs.existsSync(file)) queue.push(this.parseFile(file)[0]!);
        else if (!STANDARD_MODULES.has(dep)) throw this.missingModule(dep, m.name);
      }
    }
    this.internTokens();
  }

  /** SANY's refusal of a module it cannot find (`ParseUnit`, `ModulePointer`). */
  private missingModule(name: string, from: string): SanyError {
    return new SanyError(
      sanyAbortReport(
        this.spec,
        `In module ${from}`,
        `Cannot find source file for module ${name} imported in module ${from}.`,
      ),
    );
  }

  private parseFile(file: string): ModuleAst[] {
    const source = fs.readFileSync(file, 'utf8');
    const mods = parseModules(source, file, this.spec);
    const expected = path.basename(file, '.tla');
    if (mods[0]!.name !== expected) {
      const text = `File name '${expected}' does not match the name '${mods[0]!.name}' of the top level module it contains.`;
      throw new SanyError(sanyAbortReport(this.spec, 'Unknown location', text));
    }
    const register = (m: ModuleAst) => {
      this.modules.set(m.name, m);
      for (const u of m.units) if (u.kind === 'Module') register(u);
    };
    mods.forEach(register);
    this.sources.set(mods[0]!.name, source);
    this.parseOrder.push(mods[0]!.name);
    return mods;
  }

  /** Interns identifiers in parse order, then string literals with the main module last (TLC's order). */
  private internTokens(): void {
    const strings: string[][] = [];
    for (const name of this.parseOrder) {
      const { identifiers, literals } = tokens(this.sources.get(name)!);
      identifiers.forEach(intern);
      strings.push(literals);
    }
    for (const lits of strings.reverse()) lits.forEach(intern);
  }

  module(name: string): ModuleAst | undefined {
    return this.modules.get(name);
  }

  /**
   * The root module instance. `bindConstant` gives the .cfg's binding for each declared constant;
   * it runs once every definition exists, since a binding may name one (`C <- Def`).
   */
  root(bindConstant: (name: string, inst: ModInst) => Sym): ModInst {
    const varIndex = new Map<string, number>();
    const constants: { name: string; sym: Sym }[] = [];
    const provider: Provider = (name, decl) => {
      if (decl.kind === 'Variable') {
        let i = varIndex.get(name);
        if (i === undefined) {
          i = this.variables.length;
          varIndex.set(name, i);
          this.variables.push(name);
        }
        return { k: 'var', index: i, name };
      }
      const hit = constants.find((c) => c.name === name);
      if (hit) return hit.sym;
      // A placeholder, filled in place below so that every table holding it sees the binding.
      const sym = {} as Sym;
      constants.push({ name, sym });
      return sym;
    };
    const { inst } = this.build(this.main, 0, provider, new Map());
    for (const c of constants) Object.assign(c.sym, bindConstant(c.name, inst));
    return inst;
  }

  /** Builds the instance of module m whose constants/variables resolve through provider. */
  private build(m: ModuleAst, level: number, provider: Provider, cache: Map<string, Built>): Built {
    const cached = cache.get(m.name);
    if (cached) return cached;
    const inst = new ModInst(m, level);
    const exported = new Map<string, Sym>();
    const givesWay = new Set<string>();
    const built = { inst, exported, givesWay };
    cache.set(m.name, built);
    const top = inst.top;
    const importAll = (from: Map<string, Sym>, local: boolean, yielding: ReadonlySet<string> = NONE) => {
      for (const [n, s] of from) {
        declare(inst, m, n, s, givesWay, undefined, yielding.has(n));
        if (!local) exported.set(n, s);
      }
    };
    for (const ext of m.extends) {
      const { names, givesWay: yielding } = this.importable(ext, level, provider, cache, m);
      importAll(names, false, yielding);
    }
    for (const u of m.units) this.addUnit(u, inst, top, exported, givesWay, provider, importAll);
    this.adopt(inst);
    return built;
  }

  private importable(
    name: string,
    level: number,
    provider: Provider,
    cache: Map<string, Built>,
    from: ModuleAst,
  ): { names: Map<string, Sym>; givesWay: ReadonlySet<string> } {
    const std = STANDARD_MODULES.get(name);
    const user = this.modules.get(name);
    if (user) {
      const built = this.build(user, level, provider, cache);
      return { names: built.exported, givesWay: built.givesWay };
    }
    if (std) return { names: builtinNames(std), givesWay: passedOn(std) };
    throw this.missingModule(name, from.name);
  }

  private addUnit(
    u: Unit,
    inst: ModInst,
    top: Scope,
    exported: Map<string, Sym>,
    givesWay: Set<string>,
    provider: Provider,
    importAll: (from: Map<string, Sym>, local: boolean, yielding: ReadonlySet<string>) => void,
  ): void {
    const define = (name: string, sym: Sym, local: boolean) => {
      declare(inst, inst.module, name, sym, givesWay, u.kind === 'Module' ? undefined : u.loc);
      if (!local) exported.set(name, sym);
    };
    switch (u.kind) {
      case 'Constant':
      case 'Variable':
        for (const p of u.params) define(p.name, provider(p.name, u), false);
        return;
      case 'OpDef':
      case 'FcnDef':
        define(u.name, { k: 'def', h: new DefHandle(u, top) }, u.local);
        return;
      case 'Instance':
        if (u.name) define(u.name, { k: 'instance', def: u, scope: top }, u.local);
        else {
          const made = this.instantiate(u, top);
          importAll(made.exported, u.local, made.givesWay);
        }
        return;
      case 'Recursive':
      case 'Assume':
      case 'Module':
        return;
    }
  }

  /**
   * Replaces a standard operator in every module instance, now and later (TLC applies a .cfg's
   * `Nat <- MyNat` everywhere the operator is used).
   */
  overrideBuiltin(name: string, sym: Sym): void {
    this.overrides.set(name, sym);
    for (const inst of this.built) if (inst.names.get(name)?.k === 'builtin') inst.names.set(name, sym);
  }

  /**
   * Replaces `name` in every instance of `module`, now and later (a .cfg's `name <- [module] def`);
   * a standard module's operator (`Nat <- [Naturals] MyNat`) wherever that operator is used.
   */
  overrideInModule(module: string, name: string, sym: Sym): void {
    const standard = this.modules.has(module) ? undefined : STANDARD_MODULES.get(module);
    if (standard?.ops.has(name) && this.usesStandardModule(module)) return this.overrideBuiltin(name, sym);
    if (!this.modules.has(module)) {
      throw new TlaError(
        `The configuration overrides ${name} in module ${module}, which the specification does not use.`,
        151,
      );
    }
    let byName = this.moduleOverrides.get(module);
    if (!byName) this.moduleOverrides.set(module, (byName = new Map()));
    byName.set(name, sym);
    for (const inst of this.built) if (inst.module.name === module) inst.names.set(name, sym);
  }

  /** Whether the specification's modules use this standard module, directly or through another. */
  private usesStandardModule(name: string): boolean {
    const reached = new Set<string>();
    const visit = (m: string): void => {
      if (reached.has(m)) return;
      reached.add(m);
      for (const e of STANDARD_MODULES.get(m)?.extends ?? []) visit(e);
    };
    for (const m of this.modules.values())
      for (const dep of dependencies(m)) if (STANDARD_MODULES.has(dep)) visit(dep);
    return reached.has(name);
  }

  private adopt(inst: ModInst): void {
    this.built.push(inst);
    for (const [name, sym] of this.overrides)
      if (inst.names.get(name)?.k === 'builtin') inst.names.set(name, sym);
    for (const [name, sym] of this.moduleOverrides.get(inst.module.name) ?? []) inst.names.set(name, sym);
  }

  /** The instance of `def`'s module created where def sits (scope); one per definition and scope. */
  instantiate(def: InstanceDef, scope: Scope): Instantiated {
    let byScope = this.instances.get(def);
    if (!byScope) this.instances.set(def, (byScope = new Map()));
    let hit = byScope.get(scope.inst);
    if (!hit) {
      hit = this.make(def, scope);
      byScope.set(scope.inst, hit);
    }
    return hit;
  }

  /**
   * The instance `I(args)!...` of a parameterized `I(p) == INSTANCE M ...` for one call site: the
   * parameters stand for the argument expressions of the caller, like a macro, as in TLC.
   */
  instantiateAt(def: InstanceDef, scope: Scope, step: PathStep, caller: Scope): Instantiated {
    let byCaller = this.callSites.get(step);
    if (!byCaller) this.callSites.set(step, (byCaller = new Map()));
    let hit = byCaller.get(caller);
    if (!hit) {
      const paramScope = new Scope(scope.inst, caller.level, caller.frame, null);
      def.params.forEach((p, i) =>
        paramScope.bind(p.name, { k: 'subst', expr: step.args[i]!, scope: caller, name: p.name }),
      );
      hit = this.make(def, paramScope);
      byCaller.set(caller, hit);
    }
    return hit;
  }

  private make(def: InstanceDef, paramScope: Scope): Instantiated {
    const subs = new Map(def.subs.map((s) => [s.name, s.expr]));
    const provider: Provider = (name) => {
      const e = subs.get(name);
      if (e) return { k: 'subst', expr: e, scope: paramScope, name };
      const implicit = paramScope.lookup(name);
      if (!implicit) {
        throw new TlaError(
          `The constant or variable ${name} of module ${def.module} has no substitution in the INSTANCE at line ${def.loc.line} of module ${def.loc.module}.`,
          150,
        );
      }
      return implicit;
    };
    const target = this.modules.get(def.module);
    if (target) return { ...this.build(target, paramScope.level, provider, new Map()), paramScope };
    const std = STANDARD_MODULES.get(def.module);
    if (!std) throw this.missingModule(def.module, def.loc.module);
    const inst = new ModInst(
      { kind: 'Module', name: def.module, extends: [], units: [], loc: def.loc },
      paramScope.level,
    );
    const exported = builtinNames(std);
    for (const [n, s] of exported) inst.names.set(n, s);
    this.adopt(inst);
    return { inst, exported, givesWay: passedOn(std), paramScope };
  }
}

/**
 * Adds a module-level name. As in SANY, a name may not be defined twice, unless both are the same
 * definition reached twice (diamond EXTENDS) or the same standard operator (Naturals and Integers).
 * A name that a community module only passes on from a module it extends (`yielding`) gives way to
 * any other binding of it: CommunityModules releases differ on whether they EXTEND those modules or
 * take them by LOCAL INSTANCE, and a specification may define, say, its own Range beside SequencesExt.
 * `givesWay` holds the names of this module that would still give way.
 */
function declare(
  inst: ModInst,
  m: ModuleAst,
  name: string,
  sym: Sym,
  givesWay: Set<string>,
  loc?: Loc,
  yielding = false,
): void {
  const prior = inst.names.get(name);
  if (prior && yielding) return;
  if (prior && givesWay.delete(name)) {
    inst.names.set(name, sym);
    return;
  }
  if (!prior && yielding) givesWay.add(name);
  if (prior && prior !== sym) {
    const bothBuiltin = prior.k === 'builtin' && sym.k === 'builtin';
    const sameDef = prior.k === 'def' && sym.k === 'def' && prior.h.def === sym.h.def;
    const sameInstance = prior.k === 'instance' && sym.k === 'instance' && prior.def === sym.def;
    if (!bothBuiltin && !sameDef && !sameInstance) {
      const where = loc ? ` at line ${loc.line}, col ${loc.col}` : '';
      throw new TlaError(
        `Multiply-defined symbol '${name}' in module ${m.name}${where}: it is already defined or imported.`,
        150,
      );
    }
    // A standard operator imported twice (Naturals and Integers): Integers' version wins, as in TLC.
    if (bothBuiltin && INTEGER_OVERRIDES.has(prior.b)) return;
  }
  inst.names.set(name, sym);
}

const INTEGER_OVERRIDES = new Set(STANDARD_MODULES.get('Integers')!.ops.values());

const NONE: ReadonlySet<string> = new Set();

/** The names a community module passes on from the modules it extends rather than defines. */
function passedOn(m: BuiltinModule): ReadonlySet<string> {
  if (!COMMUNITY_MODULES.has(m.name)) return NONE;
  return new Set([...builtinNames(m).keys()].filter((n) => !m.ops.has(n)));
}

function builtinNames(m: BuiltinModule): Map<string, Sym> {
  const out = new Map<string, Sym>();
  for (const ext of m.extends) {
    const dep = STANDARD_MODULES.get(ext);
    if (dep) for (const [n, s] of builtinNames(dep)) out.set(n, s);
  }
  for (const [name, b] of m.ops) out.set(name, { k: 'builtin', b, name });
  return out;
}

/**
 * Modules that m needs: EXTENDS and INSTANCE targets, including those of nested modules and those
 * instantiated in a LET (`LET M == INSTANCE Mod IN ...`).
 */
function dependencies(m: ModuleAst): string[] {
  const out: string[] = [...m.extends];
  const visitExpr = (e: Expr): void => {
    if (e.kind === 'Let') for (const d of e.defs) if (d.kind === 'Instance') out.push(d.module);
    forEachChild(e, visitExpr);
  };
  const visit = (units: Unit[]) => {
    for (const u of units) {
      if (u.kind === 'Instance') out.push(u.module);
      else if (u.kind === 'Module') {
        out.push(...u.extends);
        visit(u.units);
      } else if (u.kind === 'OpDef' || u.kind === 'FcnDef') visitExpr(u.body);
      else if (u.kind === 'Assume') visitExpr(u.expr);
    }
  };
  visit(m.units);
  return out;
}

/** Identifier tokens and string literal contents of a module source, in order, comments skipped. */
function tokens(src: string): { identifiers: string[]; literals: string[] } {
  const identifiers: string[] = [];
  const literals: string[] = [];
  const re = /\(\*|\\\*[^\n]*|"(?:[^"\\]|\\.)*"|[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(src))) {
    const t = m[0];
    if (t === '(*') re.lastIndex = commentEnd(src, m.index) ?? src.length;
    else if (t.startsWith('\\*')) continue;
    else if (t.startsWith('"')) literals.push(unescape(t.slice(1, -1)));
    else identifiers.push(t);
  }
  return { identifiers, literals };
}
