/**
 * Cyclic `.cfg` redefinitions: `Next <- ReDefNext` where ReDefNext is defined with Next itself. TLC
 * (`SpecProcessor`, allowCyclicRedefinitions) then keeps Next's own definition in every application
 * the replacement reaches, and points all the others at the replacement (`SemanticNode#substituteFor`).
 */
import type { Expr, FcnDef, OpDef, Unit } from '../syntax/ast.js';
import { forEachChild } from '../syntax/walk.js';
import { DefHandle, type Scope, type Sym } from '../eval/scope.js';

type DefSym = Sym & { k: 'def' };

/**
 * When `by`'s definitions reach `name`'s definition `original` (and no instance, as TLC's
 * `isDefinedWith`), rebinds them so that there `name` keeps `original`, and answers true; the caller
 * then replaces `name` by `by` everywhere else.
 */
export function keepOriginalInside(name: string, original: DefSym, by: DefSym): boolean {
  const reached = reachedDefinitions(original.h, by);
  if (!reached) return false;
  const kept: DefSym = { k: 'def', h: original.h };
  for (const sym of reached) {
    const scope = sym.h.scope.block();
    scope.bind(name, kept);
    sym.h = new DefHandle(sym.h.def, scope);
  }
  return true;
}

/** The definitions `from` reaches, itself included, if one applies `target`, and none is an instance. */
function reachedDefinitions(target: DefHandle, from: DefSym): DefSym[] | null {
  const reached = new Set<DefSym>();
  let cyclic = false;
  let instance = false;
  const visitDefinition = (sym: DefSym): void => {
    if (reached.has(sym)) return;
    reached.add(sym);
    visitUnit(sym.h.def, sym.h.scope);
  };
  const visitUnit = (u: Unit, scope: Scope): void => {
    if (u.kind === 'Instance') instance = true;
    else if (u.kind === 'OpDef' || u.kind === 'FcnDef') visitBody(u, scope);
  };
  const visitBody = (d: OpDef | FcnDef, scope: Scope): void => {
    if (d.kind === 'FcnDef') d.bounds.forEach((b) => b.set && visit(b.set, scope));
    visit(d.body, scope);
  };
  const visit = (e: Expr, scope: Scope): void => {
    if (e.kind === 'Ident' || e.kind === 'OpApp') {
      const sym = scope.lookup(e.name);
      if (sym?.k === 'def') {
        if (sym.h === target) cyclic = true;
        else visitDefinition(sym);
      } else if (sym?.k === 'instance') instance = true;
    } else if (e.kind === 'Prefixed') instance = true;
    if (e.kind === 'Let') {
      e.defs.forEach((u) => visitUnit(u, scope));
      visit(e.body, scope);
    } else forEachChild(e, (x) => visit(x, scope));
  };
  visitDefinition(from);
  return cyclic && !instance ? [...reached] : null;
}
