/**
 * Constant analysis: which definitions and expressions are constant-level, and how parameters are passed.
 */
import type { Expr } from '../../syntax/ast.js';
import { boundNames, forEachChild } from '../../syntax/walk.js';
import { DefHandle, Scope } from '../scope.js';
import { NOT_HOISTED_BUILTINS, RUN_DEPENDENT } from './support.js';
import { NameResolver } from './names.js';

export class ConstantAnalysis extends NameResolver {
  /** Whether each parameter must be passed by name (it is primed or used as an action in the body). */
  paramModes(h: DefHandle): boolean[] {
    if (h.byName) return h.byName;
    const def = h.def;
    if (def.kind !== 'OpDef') return (h.byName = []);
    const names = new Set(def.params.map((p) => p.name));
    const result = def.params.map(() => false);
    const asAction = def.params.map(() => false);
    h.byName = result;
    h.actionParams = asAction;
    const mark = (name: string, actionPos: boolean) => {
      const i = def.params.findIndex((p) => p.name === name);
      if (i < 0) return;
      result[i] = true;
      if (actionPos) asAction[i] = true;
    };
    const visit = (e: Expr, dynamic: boolean, actionPos: boolean): void => {
      switch (e.kind) {
        case 'Ident':
          if (names.has(e.name) && (dynamic || actionPos)) mark(e.name, actionPos);
          return;
        case 'Prime':
        case 'Unchanged':
        case 'Enabled':
        case 'Always':
        case 'Eventually':
          return visit(e.expr, true, false);
        case 'StepExpr':
        case 'Fair':
          visit(e.action, true, true);
          return visit(e.sub, true, false);
        case 'LeadsTo':
          visit(e.lhs, true, false);
          return visit(e.rhs, true, false);
        case 'And':
        case 'Or':
          return e.items.forEach((x) => visit(x, dynamic, actionPos));
        case 'If':
          visit(e.cond, dynamic, false);
          visit(e.then, dynamic, actionPos);
          return visit(e.else, dynamic, actionPos);
        case 'Case':
          e.arms.forEach((a) => {
            visit(a.guard, dynamic, false);
            visit(a.value, dynamic, actionPos);
          });
          if (e.other) visit(e.other, dynamic, actionPos);
          return;
        case 'Let':
          e.defs.forEach((d) => d.kind === 'OpDef' && visit(d.body, true, true));
          return visit(e.body, dynamic, actionPos);
        case 'Quant':
          e.bounds.forEach((b) => b.set && visit(b.set, dynamic, false));
          return visit(e.body, dynamic, actionPos);
        case 'Label':
          return visit(e.expr, dynamic, actionPos);
        case 'OpApp': {
          // `p = e` or `p \in S` where an action may stand: p may be an initial state's variable to
          // assign (`Zero(v) == v = 0` in Init), so it is passed by name.
          const lhs = e.args[0];
          if (actionPos && (e.name === '=' || e.name === '\\in') && lhs?.kind === 'Ident')
            mark(lhs.name, false);
          const target = h.scope.lookup(e.name);
          const callee = target?.k === 'def' && target.h !== h ? target.h : undefined;
          const calleeModes = callee ? this.paramModes(callee) : [];
          const calleeActions = callee?.actionParams ?? [];
          // An argument is dynamic where the callee takes it by name, an action where it takes it as one.
          e.args.forEach((a, i) => visit(a, dynamic || calleeModes[i] === true, calleeActions[i] === true));
          return;
        }
        default:
          forEachChild(e, (x) => visit(x, dynamic, false));
      }
    };
    visit(def.body, false, true);
    return result;
  }

  /** Whether a zero-argument definition is constant-level, so its value can be computed once. */
  isConstantDef(h: DefHandle): boolean {
    if (h.constant !== undefined) return h.constant;
    h.constant = false;
    if (h.def.kind === 'OpDef' && h.def.params.length > 0) return false;
    h.constant = this.isConstantExpr(
      h.def.body,
      h.scope,
      new Set(h.def.kind === 'FcnDef' ? [h.def.name] : []),
    );
    return h.constant;
  }

  /**
   * Whether e is constant-level. `strict` asks more: that e has one value wherever it is evaluated,
   * so it can be computed once. Names bound outside e, even those holding a constant while Next is
   * split, then count as varying, and so do `@` and operators defined in a LET.
   */
  protected isConstantExpr(e: Expr, scope: Scope, bound: Set<string>, strict = false): boolean {
    let constant = true;
    const visit = (x: Expr, b: Set<string>): void => {
      if (!constant) return;
      switch (x.kind) {
        case 'At':
          constant = !strict;
          return;
        case 'Prime':
        case 'Unchanged':
        case 'Enabled':
        case 'StepExpr':
        case 'Fair':
        case 'Always':
        case 'Eventually':
        case 'LeadsTo':
        case 'TemporalQuant':
          constant = false;
          return;
        case 'Ident':
        case 'OpApp': {
          if (!b.has(x.name)) {
            const sym = scope.lookup(x.name);
            if (
              sym?.k === 'var' ||
              (sym?.k === 'slot' && (strict || !sym.splitConstant)) ||
              sym?.k === 'subst' ||
              (strict && sym?.k === 'def' && sym.h.scope !== sym.h.scope.inst.top)
            )
              constant = false;
            else if (
              sym?.k === 'def' &&
              !this.isConstantDef(sym.h) &&
              !(sym.h.arity > 0 && this.isConstantBody(sym.h, strict))
            )
              constant = false;
            else if (sym?.k === 'builtin' && (strict ? NOT_HOISTED_BUILTINS : RUN_DEPENDENT).has(x.name))
              constant = false;
          }
          if (x.kind === 'OpApp') x.args.forEach((a) => visit(a, b));
          return;
        }
        case 'Prefixed':
          constant = false;
          return;
        default: {
          const names = boundNames(x);
          const inner = names.length === 0 ? b : new Set([...b, ...names]);
          forEachChild(x, (y) => visit(y, inner));
        }
      }
    };
    visit(e, bound);
    return constant;
  }

  /** Whether an operator's body depends on nothing but its parameters and constants (strict: see isConstantExpr). */
  protected isConstantBody(h: DefHandle, strict = false): boolean {
    const known = strict ? h.strictConstantBody : h.constantBody;
    if (known !== undefined) return known;
    const def = h.def;
    const record = (v: boolean) => (strict ? (h.strictConstantBody = v) : (h.constantBody = v));
    record(false);
    if (def.kind !== 'OpDef') return false;
    return record(this.isConstantExpr(def.body, h.scope, new Set(def.params.map((p) => p.name)), strict));
  }

  /**
   * Whether an operator's value depends on its arguments alone: a module-level operator taking values
   * (not operators, not by name) whose body is constant in the strict sense. Its results can be kept.
   */
  protected isPureOperator(h: DefHandle): boolean {
    const def = h.def;
    return (
      def.kind === 'OpDef' &&
      h.scope === h.scope.inst.top &&
      def.params.every((p, i) => p.arity === 0 && !this.paramModes(h)[i]) &&
      this.isConstantBody(h, true)
    );
  }
}
