/** Walking the syntax tree. */
import type { Expr } from './ast.js';

/** Calls fn on every direct subexpression. */
export function forEachChild(e: Expr, fn: (x: Expr) => void): void {
  switch (e.kind) {
    case 'Num':
    case 'Str':
    case 'Bool':
    case 'Ident':
    case 'At':
      return;
    case 'OpApp':
      return e.args.forEach(fn);
    case 'Prefixed':
      e.path.forEach((p) => p.args.forEach(fn));
      return e.args.forEach(fn);
    case 'Lambda':
      return fn(e.body);
    case 'Quant':
    case 'SetMap':
    case 'FcnLit':
      e.bounds.forEach((b) => b.set && fn(b.set));
      return fn(e.body);
    case 'TemporalQuant':
      return fn(e.body);
    case 'Choose':
      if (e.bound.set) fn(e.bound.set);
      return fn(e.body);
    case 'SetFilter':
      if (e.bound.set) fn(e.bound.set);
      return fn(e.pred);
    case 'SetEnum':
    case 'Tuple':
      return e.elems.forEach(fn);
    case 'FcnSet':
      fn(e.dom);
      return fn(e.rng);
    case 'RecLit':
    case 'RecSet':
      return e.fields.forEach((f) => fn(f.value));
    case 'FcnApp':
      fn(e.fn);
      return e.args.forEach(fn);
    case 'Dot':
      return fn(e.rec);
    case 'Except':
      fn(e.fn);
      return e.updates.forEach((u) => {
        u.path.forEach((p) => p.kind === 'index' && p.args.forEach(fn));
        fn(u.value);
      });
    case 'If':
      fn(e.cond);
      fn(e.then);
      return fn(e.else);
    case 'Case':
      e.arms.forEach((a) => {
        fn(a.guard);
        fn(a.value);
      });
      if (e.other) fn(e.other);
      return;
    case 'Let':
      e.defs.forEach((d) => (d.kind === 'OpDef' || d.kind === 'FcnDef') && fn(d.body));
      return fn(e.body);
    case 'And':
    case 'Or':
      return e.items.forEach(fn);
    case 'Prime':
    case 'Unchanged':
    case 'Enabled':
    case 'Always':
    case 'Eventually':
    case 'Label':
      return fn(e.expr);
    case 'StepExpr':
    case 'Fair':
      fn(e.action);
      return fn(e.sub);
    case 'LeadsTo':
      fn(e.lhs);
      return fn(e.rhs);
  }
}

/** The names e binds for its subexpressions (quantifiers, CHOOSE, set and function constructors, LAMBDA, LET). */
export function boundNames(e: Expr): string[] {
  switch (e.kind) {
    case 'Quant':
    case 'SetMap':
    case 'FcnLit':
      return e.bounds.flatMap((b) => b.names);
    case 'Choose':
    case 'SetFilter':
      return e.bound.names;
    case 'Lambda':
      return e.params;
    case 'Let':
      return e.defs.flatMap((d) => ('name' in d && d.name ? [d.name] : []));
    case 'TemporalQuant':
      return e.names;
    default:
      return [];
  }
}
