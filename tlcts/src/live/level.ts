/**
 * The level of an expression, as SANY computes it and TLC's liveness code consults it
 * (`LevelConstants`): constant, state (mentions variables), action (primes, `[A]_v`) or temporal.
 */
import type { Bound, Expr, FcnDef, OpDef } from '../syntax/ast.js';
import { forEachChild } from '../syntax/walk.js';
import type { Scope, Sym } from '../eval/scope.js';
import type { ModuleLoader } from '../modules/loader.js';
import { TlaError } from '../errors.js';

export const CONSTANT = 0;
export const STATE = 1;
export const ACTION = 2;
export const TEMPORAL = 3;

/** A name bound inside the expression being measured: its level, or a LET definition. */
type Local = number | { def: OpDef | FcnDef; locals: Locals; scope: Scope };
type Locals = ReadonlyMap<string, Local>;

const NONE: Locals = new Map();

export class Levels {
  /** Levels of definitions by argument levels (module-level definitions only). */
  private readonly memo = new Map<OpDef | FcnDef, Map<string, number>>();
  private readonly active = new Set<OpDef | FcnDef>();

  constructor(private readonly loader: ModuleLoader) {}

  /**
   * The level of e in scope. `slots` gives the level of parameters bound by name while a temporal
   * definition is expanded (the level of the argument they stand for).
   */
  of(e: Expr, scope: Scope, slots: ReadonlyMap<Sym, number> = new Map()): number {
    return this.level(e, scope, NONE, slots);
  }

  private level(e: Expr, scope: Scope, locals: Locals, slots: ReadonlyMap<Sym, number>): number {
    const of = (x: Expr, l: Locals = locals) => this.level(x, scope, l, slots);
    switch (e.kind) {
      case 'Num':
      case 'Str':
      case 'Bool':
      case 'At':
        return CONSTANT;
      case 'Ident':
        return this.name(e.name, [], scope, locals, slots);
      case 'OpApp':
        return this.name(
          e.name,
          e.args.map((a) => of(a)),
          scope,
          locals,
          slots,
        );
      case 'Prefixed':
        return this.prefixed(e, scope, locals, slots);
      case 'Prime':
      case 'Unchanged':
        return of(e.expr) === CONSTANT ? CONSTANT : ACTION;
      case 'Enabled':
        return of(e.expr) === CONSTANT ? CONSTANT : STATE;
      case 'StepExpr':
        return Math.max(ACTION, of(e.action), of(e.sub));
      case 'Fair':
      case 'Always':
      case 'Eventually':
      case 'LeadsTo':
      case 'TemporalQuant':
        return TEMPORAL;
      case 'Quant':
      case 'SetMap':
      case 'FcnLit':
        return this.binding(e.bounds, e.body, scope, locals, slots);
      case 'Choose':
        return this.binding([e.bound], e.body, scope, locals, slots);
      case 'SetFilter':
        return this.binding([e.bound], e.pred, scope, locals, slots);
      case 'Lambda':
        return of(e.body, withNames(locals, e.params, CONSTANT));
      case 'Let': {
        const inner = new Map(locals);
        const letLocals: Locals = inner;
        for (const d of e.defs) {
          if (d.kind === 'OpDef' || d.kind === 'FcnDef')
            inner.set(d.name, { def: d, locals: letLocals, scope });
        }
        return of(e.body, inner);
      }
      default: {
        let l = CONSTANT;
        forEachChild(e, (x) => (l = Math.max(l, of(x))));
        return l;
      }
    }
  }

  private binding(
    bounds: Bound[],
    body: Expr,
    scope: Scope,
    locals: Locals,
    slots: ReadonlyMap<Sym, number>,
  ): number {
    let l = CONSTANT;
    for (const b of bounds) if (b.set) l = Math.max(l, this.level(b.set, scope, locals, slots));
    const names = bounds.flatMap((b) => b.names);
    return Math.max(l, this.level(body, scope, withNames(locals, names, CONSTANT), slots));
  }

  private name(
    name: string,
    args: number[],
    scope: Scope,
    locals: Locals,
    slots: ReadonlyMap<Sym, number>,
  ): number {
    const argMax = Math.max(CONSTANT, ...args);
    const local = locals.get(name);
    if (typeof local === 'number') return Math.max(local, argMax);
    if (local) return this.definition(local.def, args, local.scope, local.locals, slots);
    const sym = scope.lookup(name);
    return Math.max(argMax, sym ? this.symbol(sym, args, slots) : CONSTANT);
  }

  private symbol(sym: Sym, args: number[], slots: ReadonlyMap<Sym, number>): number {
    switch (sym.k) {
      case 'var':
        return STATE;
      case 'subst':
        return this.level(sym.expr, sym.scope, NONE, slots);
      case 'slot':
        if (slots.has(sym)) return slots.get(sym)!;
        return sym.letDef ? this.level(sym.letDef.expr, sym.letDef.scope, NONE, slots) : CONSTANT;
      case 'def':
        return this.definition(sym.h.def, args, sym.h.scope, NONE, slots);
      default:
        return CONSTANT;
    }
  }

  /** A definition applied to arguments of the given levels: its body with the parameters at those levels. */
  private definition(
    def: OpDef | FcnDef,
    args: number[],
    scope: Scope,
    locals: Locals,
    slots: ReadonlyMap<Sym, number>,
  ): number {
    if (this.active.has(def)) return Math.max(CONSTANT, ...args);
    const memoizable = locals === NONE && scope.level === 0;
    const key = args.join(',');
    const known = memoizable ? this.memo.get(def)?.get(key) : undefined;
    if (known !== undefined) return known;
    this.active.add(def);
    let l: number;
    try {
      if (def.kind === 'FcnDef') {
        const inner = withNames(locals, [def.name], CONSTANT);
        l = this.binding(def.bounds, def.body, scope, inner, slots);
      } else {
        const inner = new Map(locals);
        def.params.forEach((p, i) => inner.set(p.name, args[i] ?? CONSTANT));
        l = this.level(def.body, scope, inner, slots);
      }
    } finally {
      this.active.delete(def);
    }
    if (memoizable) {
      let byArgs = this.memo.get(def);
      if (!byArgs) this.memo.set(def, (byArgs = new Map()));
      byArgs.set(key, l);
    }
    return l;
  }

  /**
   * `I!J!Op(args)`: the definition's level, the instance arguments counting as the level of the
   * parameters they replace. An instance whose parameters are implicit substitutions cannot be
   * made without its call site: it counts as state level.
   */
  private prefixed(
    e: Expr & { kind: 'Prefixed' },
    scope: Scope,
    locals: Locals,
    slots: ReadonlyMap<Sym, number>,
  ): number {
    const of = (x: Expr) => this.level(x, scope, locals, slots);
    let l = CONSTANT;
    for (const step of e.path) for (const a of step.args) l = Math.max(l, of(a));
    const args = e.args.map(of);
    let lookup = scope;
    for (const step of e.path) {
      const s = lookup.lookup(step.name);
      if (s?.k !== 'instance') return Math.max(l, ...args);
      try {
        lookup = this.loader.instantiate(s.def, s.scope).inst.top;
      } catch (err) {
        if (!(err instanceof TlaError) || s.def.params.length === 0) throw err;
        return Math.max(l, ...args, STATE);
      }
    }
    const target = lookup.inst.names.get(e.name);
    return Math.max(l, ...args, target ? this.symbol(target, args, slots) : CONSTANT);
  }
}

function withNames(locals: Locals, names: readonly (string | { name: string })[], level: number): Locals {
  const inner = new Map(locals);
  for (const n of names) inner.set(typeof n === 'string' ? n : n.name, level);
  return inner;
}
