/**
 * The variables a state expression reads, through the definitions it uses: an invariant's conjunct
 * that reads none of the variables a step changed keeps its value (see check/model.ts). Cautious:
 * what it does not follow (primes, ENABLED, temporal operators, instances' definitions, recursion,
 * builtins with effects or that read the checker's state) counts as reading every variable.
 */
import type { Expr, FcnDef, OpDef } from '../syntax/ast.js';
import { boundNames, forEachChild } from '../syntax/walk.js';
import { CORE } from '../stdlib/core.js';
import type { DefHandle, Scope } from './scope.js';

/** A name bound inside the expression: a bound variable or parameter, or a LET definition. */
type Local = 'bound' | { def: OpDef | FcnDef; scope: Scope; locals: Locals };
type Locals = ReadonlyMap<string, Local>;

/**
 * The indices of the variables e (in scope) reads, or null for every variable. `opaque`: the
 * builtins whose value is not a function of their arguments (TLCGet, Print, RandomElement...).
 */
export function variablesRead(e: Expr, scope: Scope, opaque: ReadonlySet<string>): number[] | null {
  let read = new Set<number>();
  const active = new Set<OpDef | FcnDef>();
  /**
   * What each module-level definition reads (null: every variable), each followed once; by handle,
   * as one module's definition reads other variables in each instance of the module.
   */
  const known = new Map<DefHandle, Set<number> | null>();

  const withBound = (locals: Locals, names: readonly string[]): Locals =>
    names.length === 0 ? locals : new Map([...locals, ...names.map((n) => [n, 'bound'] as const)]);

  /** Follows a definition: a LET's (with the names bound around it), or a module's (by its handle). */
  const definition = (def: OpDef | FcnDef, sc: Scope, locals: Locals, handle?: DefHandle): boolean => {
    if (handle && known.has(handle)) {
      const reads = known.get(handle)!;
      reads?.forEach((i) => read.add(i));
      return reads !== null;
    }
    if (active.has(def)) return false;
    active.add(def);
    const outer = read;
    if (handle) read = new Set();
    const params = def.kind === 'OpDef' ? def.params.map((p) => p.name) : def.bounds.flatMap((b) => b.names);
    const bounds = def.kind === 'FcnDef' ? def.bounds.every((b) => !b.set || visit(b.set, sc, locals)) : true;
    const ok = bounds && visit(def.body, sc, withBound(locals, params));
    active.delete(def);
    if (handle) {
      known.set(handle, ok ? read : null);
      read.forEach((i) => outer.add(i));
      read = outer;
    }
    return ok;
  };

  const visit = (x: Expr, sc: Scope, locals: Locals): boolean => {
    switch (x.kind) {
      case 'Prime':
      case 'Unchanged':
      case 'StepExpr':
      case 'Enabled':
      case 'Fair':
      case 'Always':
      case 'Eventually':
      case 'LeadsTo':
      case 'TemporalQuant':
      case 'Prefixed':
        return false;
      case 'Ident':
      case 'OpApp': {
        if (x.kind === 'OpApp' && !x.args.every((a) => visit(a, sc, locals))) return false;
        const local = locals.get(x.name);
        if (local === 'bound') return true;
        if (local) return definition(local.def, local.scope, local.locals);
        const sym = sc.lookup(x.name);
        switch (sym?.k) {
          case 'var':
            read.add(sym.index);
            return true;
          case 'const':
            return true;
          case 'def':
            return definition(sym.h.def, sym.h.scope, new Map(), sym.h);
          case 'subst':
            return visit(sym.expr, sym.scope, new Map());
          case 'builtin':
            return !opaque.has(x.name);
          case 'slot':
            return sym.letDef ? visit(sym.letDef.expr, sym.letDef.scope, new Map()) : sym.mode === 'value';
          case undefined:
            // The core operators (BOOLEAN, SUBSET, \cup, ...) and those the compiler knows by their
            // syntax (=, \in, ...) are in no scope.
            return CORE.ops.has(x.name) || x.kind === 'OpApp';
          default:
            return false;
        }
      }
      case 'Let': {
        const inner = new Map(locals);
        for (const d of x.defs)
          if (d.kind === 'OpDef' || d.kind === 'FcnDef')
            inner.set(d.name, { def: d, scope: sc, locals: inner });
        return visit(x.body, sc, inner);
      }
      default: {
        const inner = withBound(locals, boundNames(x));
        let ok = true;
        forEachChild(x, (y) => (ok &&= visit(y, sc, inner)));
        return ok;
      }
    }
  };

  return visit(e, scope, new Map()) ? [...read] : null;
}
