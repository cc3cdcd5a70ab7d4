/**
 * Compiles TLA+ expressions to closures, once.
 *
 * Value mode (`expr`) evaluates an expression in a state (or a pair of states for actions).
 * Action mode (`act`) enumerates the ways an action can be taken, assigning the variables of the
 * next state (or, for Init, of the initial state) as TLC does: `x' = e` assigns an unassigned x',
 * `x' \in S` enumerates S, `\/` and `\E` branch, every other conjunct is a guard.
 */
import {
  locationText,
  type Bound,
  type Expr,
  type ExceptPathItem,
  type FcnDef,
  type Loc,
  type OpDef,
  type Unit,
} from '../syntax/ast.js';
import { boundNames, forEachChild } from '../syntax/walk.js';
import {
  EMPTY_SET,
  FcnValue,
  FiniteSet,
  InfiniteSet,
  IntervalSet,
  Kind,
  LazyFcn,
  LazySet,
  ModelValue,
  Record,
  SetValue,
  Tuple,
  compareStrings,
  equals,
  fcnOf,
  setOf,
  show,
  type Value,
} from '../values/value.js';
import { EvalError } from '../values/errors.js';
import { SanyError, TlaError } from '../errors.js';
import { semanticErrorReport } from '../syntax/sany.js';
import type { Builtin, BuiltinHost } from './builtin.js';
import { CORE } from '../stdlib/core.js';
import { DefHandle, ModInst, Scope, type Sym } from './scope.js';
import {
  ArgRef,
  Frame,
  LetThunk,
  copyFrame,
  snapshotFrame,
  walkUp,
  type ActClosure,
  type Closure,
  type Cont,
  type Ctx,
  type OpValue,
} from './runtime.js';
import { exceptAt, fcnSetOf, productOf, recordSetOf } from './sets.js';
import type { ModuleLoader } from '../modules/loader.js';

/**
 * The action being taken, recorded for labelling successors (trace printing, state-graph dumps):
 * TLC's name for it, the frame holding its parameters, and the split-off sub-expression.
 */
export interface ActionLabel {
  name: string;
  frame: Frame | null;
  /** The slots of the parameters in the frame. */
  slots: number[];
  params: string[];
  loc: Loc | null;
}

const STOP = Symbol('stop');

function locText(e: { loc: Expr['loc'] }): string {
  return locationText(e.loc);
}

/** Attaches e's location to an evaluation error unwinding through it, unless an inner one did. */
function locate(err: unknown, e: Expr): unknown {
  if (err instanceof EvalError && !err.location) err.location = locText(e);
  return err;
}

/** Attaches the innermost location to an evaluation error as it unwinds (hot closures inline this). */
function located(e: Expr, cl: Closure): Closure {
  return (c) => {
    try {
      return cl(c);
    } catch (err) {
      throw locate(err, e);
    }
  };
}

export function boolOf(v: Value, e: Expr): boolean {
  if (v === true || v === false) return v;
  throw new EvalError(`A non-boolean expression (${show(v)}) was used as a condition at ${locText(e)}.`);
}

function asSet(v: Value, e: Expr): SetValue {
  if (v instanceof SetValue) return v;
  throw new EvalError(`Attempted to use ${show(v)}, which is not a set, as a set at ${locText(e)}.`);
}

/**
 * Calls fn for each binding of the bounds, slot by slot; stops early when fn returns false (and
 * then returns false).
 */
type Binder = (c: Ctx, fn: (c: Ctx) => boolean | void) => boolean;

export class Compiler {
  /** The action entered last through a split point of Next, in actions compiled withLabels. */
  currentAction: ActionLabel | null = null;
  /** Whether the actions being compiled name themselves in currentAction as they run. */
  private labelling = false;

  constructor(
    readonly loader: ModuleLoader,
    readonly host: BuiltinHost,
    readonly varNames: readonly string[],
  ) {}

  // ---------------------------------------------------------------------------------------------
  // Name resolution

  resolve(name: string, scope: Scope, e: Expr): Sym {
    const sym = scope.lookup(name);
    if (sym) return sym;
    const b = CORE.ops.get(name);
    if (b) return { k: 'builtin', b, name };
    const temporal = TEMPORAL_OPERATORS.get(name);
    if (temporal) throw temporalInPredicate(temporal, e);
    // SANY places it at the name (an application `Foo(x)` starts with it).
    const at =
      e.kind === 'OpApp' ? { ...e.loc, endLine: e.loc.line, endCol: e.loc.col + name.length - 1 } : e.loc;
    throw new SanyError(semanticErrorReport(locationText(at), `Unknown operator: \`${name}'.`));
  }

  /** Frame of the scope at `level`, reached from a closure running at `from`. */
  private up(from: number, level: number): (f: Frame) => Frame {
    const hops = from - level;
    if (hops === 0) return (f) => f;
    if (hops === 1) return (f) => f.parent!;
    return (f) => walkUp(f, hops);
  }

  /** The frame of h's scope, from a closure running in `scope`. */
  private parentOf(h: DefHandle, scope: Scope): (c: Ctx) => Frame {
    const up = this.up(scope.level, h.scope.level);
    return (c) => up(c.f);
  }

  // ---------------------------------------------------------------------------------------------
  // Definitions

  /** Definitions whose body is being compiled: a call met inside one is recursive, not inlined. */
  private readonly compilingDefs = new Set<DefHandle>();
  /** The definitions LAMBDAs substituted for operator constants act as, one per LAMBDA. */
  private readonly lambdaDefs = new Map<Expr, DefHandle>();
  /** How many expression nodes have been inlined so far (each call site gets its own copy). */
  private inlinedNodes = 0;

  /** Compiles (a copy of) h's body; calls of h met meanwhile are recursive. */
  private compiling<T>(h: DefHandle, compile: () => T): T {
    this.compilingDefs.add(h);
    try {
      return this.compileBody(compile);
    } finally {
      this.compilingDefs.delete(h);
    }
  }

  /**
   * Compiles h's body for one call site, in the caller's frame: its parameters and the names it
   * binds get slots there, so that a call allocates no frame. Not for a recursive call, a
   * definition of a deeper scope, nor past a budget of inlined nodes.
   */
  private inline<T>(
    h: DefHandle,
    scope: Scope,
    byValue: boolean[] | undefined,
    splitConstant: boolean,
    compile: (body: Scope) => T,
  ): { body: T; slots: number[]; ownsSlots: boolean } | undefined {
    const def = h.def;
    if (def.kind !== 'OpDef' || this.compilingDefs.has(h) || h.scope.level > scope.level) return undefined;
    const size = (h.size ??= exprSize(def.body));
    if (this.inlinedNodes + size > MAX_INLINED_NODES) return undefined;
    this.inlinedNodes += size;
    const modes = this.paramModes(h);
    const body = new Scope(h.scope.inst, scope.level, scope.frame, h.scope);
    const first = scope.frame.size;
    const slots = def.params.map((p, i) => {
      const mode = p.arity > 0 ? 'op' : modes[i] && !byValue?.[i] ? 'byname' : 'value';
      const sym = body.bindSlot(p.name, mode, p.arity);
      if (splitConstant) markSplitConstant(sym);
      return sym.slot;
    });
    const compiled = this.compiling(h, () => compile(body));
    // Whether it has slots (parameters, bound names) that a call must keep to itself.
    return { body: compiled, slots, ownsSlots: scope.frame.size > first };
  }

  compileDef(h: DefHandle): { size: number; body: Closure } {
    if (h.value) return h.value;
    const def = h.def;
    const compiled = {
      size: 0,
      body: (() => {
        throw new EvalError(`Definition ${def.name} is used before it is compiled.`);
      }) as Closure,
    };
    h.value = compiled;
    if (def.kind === 'OpDef') {
      const body = h.scope.newFrame();
      const byName = this.paramModes(h);
      def.params.forEach((p, i) =>
        body.bindSlot(p.name, p.arity > 0 ? 'op' : byName[i] ? 'byname' : 'value', p.arity),
      );
      compiled.body = this.compiling(h, () => this.expr(def.body, body));
      compiled.size = body.frame.size;
    } else {
      compiled.body = this.compiling(h, () => this.fcnDefValue(def, h.scope));
    }
    return compiled;
  }

  /**
   * `f[x \in S] == e`, a function that may refer to itself: a closure run in the defining frame;
   * each application gets a frame of its own.
   */
  private fcnDefValue(def: FcnDef, defScope: Scope): Closure {
    const scope = defScope.newFrame();
    const selfSlot = scope.bindSlot(def.name).slot;
    const { domain, bind } = this.fcnDomain(def.bounds, scope, def.body);
    const body = this.expr(def.body, scope);
    const frameInfo = scope.frame;
    const domainScopeUp = (c: Ctx): Ctx => ({ s: c.s, t: c.t, f: new Frame(frameInfo.size, c.f) });
    return (c) => {
      const dom = domain(domainScopeUp(c));
      // Bound names of enclosing quantifiers change after this returns: keep their values now.
      const parent = snapshotFrame(c.f);
      const fcn: LazyFcn = new LazyFcn(dom, (arg) => {
        const f = new Frame(frameInfo.size, parent);
        f.v[selfSlot] = fcn;
        bind(f, arg);
        return body({ s: c.s, t: c.t, f });
      });
      return fcn;
    };
  }

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
  private isConstantExpr(e: Expr, scope: Scope, bound: Set<string>, strict = false): boolean {
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
            else if (sym?.k === 'builtin' && (strict ? NOT_HOISTED_BUILTINS : NONDETERMINISTIC).has(x.name))
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
  private isConstantBody(h: DefHandle, strict = false): boolean {
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
  private isPureOperator(h: DefHandle): boolean {
    const def = h.def;
    return (
      def.kind === 'OpDef' &&
      h.scope === h.scope.inst.top &&
      def.params.every((p, i) => p.arity === 0 && !this.paramModes(h)[i]) &&
      this.isConstantBody(h, true)
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Value mode

  /** Whether the expression being compiled is computed once (its parts need not be). */
  private hoisting = false;

  expr(e: Expr, scope: Scope): Closure {
    if (this.hoisting || NOT_HOISTED.has(e.kind) || !this.isConstantExpr(e, scope, new Set(), true))
      return this.exprNode(e, scope);
    // A constant subexpression (`x \in [S -> T]`, `Seq(R)`, `{"a", "b"}`): computed on first use.
    const cl = this.withFlag('hoisting', true, () => this.exprNode(e, scope));
    let cached: Value | undefined;
    return (c) => (cached ??= cl(c));
  }

  /** Compiles a definition's body on its own: hoisting inside it does not depend on the call site. */
  private compileBody<T>(compile: () => T): T {
    return this.withFlag('hoisting', false, compile);
  }

  /** Compiles with one of the compiler's modes set, restored afterwards. */
  private withFlag<T>(flag: 'hoisting' | 'labelling', value: boolean, compile: () => T): T {
    const saved = this[flag];
    this[flag] = value;
    try {
      return compile();
    } finally {
      this[flag] = saved;
    }
  }

  private exprNode(e: Expr, scope: Scope): Closure {
    switch (e.kind) {
      case 'Num':
      case 'Str':
      case 'Bool': {
        const v = e.value;
        return () => v;
      }
      case 'Ident':
        return this.ident(e, scope);
      case 'OpApp':
        return this.opApp(e, scope);
      case 'Prefixed':
        return this.prefixed(e, scope);
      case 'And': {
        const items = e.items.map((x) => this.expr(x, scope));
        return (c) => {
          for (let i = 0; i < items.length; i++) if (!boolOf(items[i]!(c), e.items[i]!)) return false;
          return true;
        };
      }
      case 'Or': {
        const items = e.items.map((x) => this.expr(x, scope));
        return (c) => {
          for (let i = 0; i < items.length; i++) if (boolOf(items[i]!(c), e.items[i]!)) return true;
          return false;
        };
      }
      case 'If': {
        const cond = this.expr(e.cond, scope);
        const then = this.expr(e.then, scope);
        const els = this.expr(e.else, scope);
        return (c) => (boolOf(cond(c), e.cond) ? then(c) : els(c));
      }
      case 'Case': {
        const arms = e.arms.map((a) => ({
          g: this.expr(a.guard, scope),
          v: this.expr(a.value, scope),
          e: a.guard,
        }));
        const other = e.other ? this.expr(e.other, scope) : undefined;
        return (c) => {
          for (const a of arms) if (boolOf(a.g(c), a.e)) return a.v(c);
          if (other) return other(c);
          throw new EvalError(`Attempted to evaluate a CASE with no arm true at ${locText(e)}.`);
        };
      }
      case 'Let': {
        const { inner, bind } = this.letScope(e, scope);
        const body = this.expr(e.body, inner);
        if (!bind) return body;
        return (c) => {
          bind(c);
          return body(c);
        };
      }
      case 'Quant':
        return this.quant(e, scope);
      case 'Choose':
        return this.choose(e, scope);
      case 'SetEnum': {
        const elems = e.elems.map((x) => this.expr(x, scope));
        return (c) => setOf(valuesOf(elems, c));
      }
      case 'SetFilter':
        return this.setFilter(e, scope);
      case 'SetMap': {
        const inner = scope.block();
        const binder = this.binder(e.bounds, inner, e);
        const body = this.expr(e.body, inner);
        return (c) => {
          const out: Value[] = [];
          binder(c, () => {
            out.push(body(c));
          });
          return setOf(out);
        };
      }
      case 'FcnLit':
        return this.fcnLit(e, scope);
      case 'FcnSet': {
        const dom = this.expr(e.dom, scope);
        const rng = this.expr(e.rng, scope);
        return (c) => fcnSetOf(asSet(dom(c), e.dom), asSet(rng(c), e.rng));
      }
      case 'RecLit':
        return this.recLit(e, scope);
      case 'RecSet': {
        const fields = e.fields.map((f) => ({ name: f.name, v: this.expr(f.value, scope), e: f.value }));
        return (c) => recordSetOf(fields.map((f) => ({ name: f.name, set: asSet(f.v(c), f.e) })));
      }
      case 'Tuple': {
        const elems = e.elems.map((x) => this.expr(x, scope));
        return (c) => new Tuple(valuesOf(elems, c));
      }
      case 'FcnApp':
        return this.fcnApp(e, scope);
      case 'Dot': {
        const rec = this.expr(e.rec, scope);
        const field = e.field;
        return (c) => {
          try {
            return applyFcn(rec(c), field, e);
          } catch (err) {
            throw locate(err, e);
          }
        };
      }
      case 'Except':
        return this.except(e, scope);
      case 'At': {
        const sym = scope.lookup('@');
        if (!sym || sym.k !== 'slot') throw new TlaError(`@ used outside an EXCEPT at ${locText(e)}.`);
        return this.slotRead(sym, scope);
      }
      case 'Prime': {
        const sym = e.expr.kind === 'Ident' ? scope.lookup(e.expr.name) : undefined;
        if (sym?.k === 'var') return variableValue(sym, true);
        const inner = this.expr(e.expr, scope);
        return (c) => inner({ s: c.t, t: null, f: c.f });
      }
      case 'Unchanged': {
        const inner = this.expr(e.expr, scope);
        return (c) => equals(inner({ s: c.t, t: null, f: c.f }), inner(c));
      }
      case 'Enabled': {
        const act = this.act(e.expr, scope, false, false);
        const n = this.varNames.length;
        return (c) => {
          try {
            act({ s: c.s, t: new Array(n), f: c.f }, () => {
              throw STOP;
            });
          } catch (err) {
            if (err === STOP) return true;
            throw err;
          }
          return false;
        };
      }
      case 'StepExpr': {
        const action = this.expr(e.action, scope);
        const sub = this.expr(e.sub, scope);
        const changed = (c: Ctx) => !equals(sub({ s: c.t, t: null, f: c.f }), sub(c));
        return e.box
          ? (c) => boolOf(action(c), e.action) || !changed(c)
          : (c) => boolOf(action(c), e.action) && changed(c);
      }
      case 'Label':
        return this.expr(e.expr, scope);
      case 'Lambda':
        throw new TlaError(`A LAMBDA expression can only be an operator argument, at ${locText(e)}.`);
      case 'Fair':
      case 'Always':
      case 'Eventually':
      case 'LeadsTo':
      case 'TemporalQuant': {
        const what = temporalText(e);
        return () => {
          throw temporalInPredicate(what, e);
        };
      }
    }
  }

  private slotRead(sym: Sym & { k: 'slot' }, scope: Scope): Closure {
    const up = this.up(scope.level, sym.level);
    const slot = sym.slot;
    switch (sym.mode) {
      case 'value': {
        const hops = scope.level - sym.level;
        if (hops === 0) return (c) => c.f.v[slot] as Value;
        if (hops === 1) return (c) => c.f.parent!.v[slot] as Value;
        return (c) => up(c.f).v[slot] as Value;
      }
      case 'byname':
        return (c) => {
          const a = up(c.f).v[slot] as ArgRef;
          return a.fn({ s: c.s, t: c.t, f: a.f });
        };
      case 'thunk':
        return (c) => {
          const th = up(c.f).v[slot] as LetThunk;
          const fresh = th.s === c.s && th.t === c.t && th.version === stateVersion;
          if (th.val !== undefined && fresh) return th.val;
          const v = th.fn({ s: c.s, t: c.t, f: th.f });
          if (fresh) th.val = v;
          return v;
        };
      case 'op':
        return (c) => (up(c.f).v[slot] as OpValue)([], c);
    }
  }

  private ident(e: Expr & { kind: 'Ident' }, scope: Scope): Closure {
    const sym = this.resolve(e.name, scope, e);
    return this.symValue(sym, e, scope, []);
  }

  /** The value of `name(args)` where name resolved to sym. */
  private symValue(sym: Sym, e: Expr, scope: Scope, args: Expr[]): Closure {
    switch (sym.k) {
      case 'slot':
        if (sym.mode === 'op' && args.length > 0) {
          const up = this.up(scope.level, sym.level);
          const slot = sym.slot;
          const argCls = args.map((a) => this.expr(a, scope));
          return located(e, (c) =>
            (up(c.f).v[slot] as OpValue)(
              argCls.map((a) => a(c)),
              c,
            ),
          );
        }
        return this.slotRead(sym, scope);
      case 'var':
        return variableValue(sym, false);
      case 'const': {
        const v = sym.value;
        return () => v;
      }
      case 'builtin':
        return this.builtinCall(sym.b, sym.name, e, scope, args);
      case 'subst': {
        const target = sym.scope;
        if (args.length > 0) return this.symValue(this.substOperator(sym, e), e, scope, args);
        const cl = this.expr(sym.expr, target);
        const up = this.up(scope.level, target.level);
        return (c) => cl({ s: c.s, t: c.t, f: up(c.f) });
      }
      case 'def':
        return this.callDef(sym.h, e, scope, args, this.up(scope.level, sym.h.scope.level));
      case 'instance':
        throw new TlaError(`The instance ${sym.def.name} is used as a value at ${locText(e)}.`);
    }
  }

  /**
   * An operator constant of an instance replaced by an operator of the instantiator: a name, or a
   * LAMBDA, which acts as a definition of the instantiator's scope (`WITH Op <- LAMBDA n : n + 1`).
   */
  private substOperator(sym: Sym & { k: 'subst' }, e: Expr): Sym {
    const by = sym.expr;
    if (by.kind === 'Ident') return this.resolve(by.name, sym.scope, e);
    if (by.kind === 'Lambda') {
      let h = this.lambdaDefs.get(by);
      if (!h) {
        const params = by.params.map((name) => ({ name, arity: 0 }));
        const def = {
          kind: 'OpDef',
          name: sym.name,
          params,
          body: by.body,
          local: false,
          loc: by.loc,
        } as const;
        this.lambdaDefs.set(by, (h = new DefHandle(def, sym.scope)));
      }
      return { k: 'def', h };
    }
    throw new TlaError(
      `unsupported: operator ${sym.name} substituted by ${by.kind === 'Prefixed' ? "another instance's operator" : 'an expression'} at ${locText(by)}`,
      255,
    );
  }

  private callDef(h: DefHandle, e: Expr, scope: Scope, args: Expr[], parent: (f: Frame) => Frame): Closure {
    if (h.arity !== args.length) {
      throw new TlaError(
        `Operator ${h.name} takes ${h.arity} arguments but is given ${args.length} at ${locText(e)}.`,
      );
    }
    const def = h.def;
    const constant = args.length === 0 && this.isConstantDef(h);
    const inlined =
      def.kind === 'OpDef' && !constant
        ? this.inline(h, scope, undefined, false, (body) => this.expr(def.body, body))
        : undefined;
    if (inlined && args.length === 0) return inlined.body;
    let fill: ((c: Ctx) => unknown)[];
    let call: Closure;
    let compute: (vals: Value[], c: Ctx) => Value;
    if (inlined) {
      // Value-level code cannot run a call site again before it returns (only recursion could,
      // and a recursive call is not inlined): the slots can be filled in place.
      const { body, slots } = inlined;
      fill = this.argFillers(h, args, scope);
      call = (c) => {
        const v = c.f.v;
        for (let i = 0; i < slots.length; i++) v[slots[i]!] = fill[i]!(c);
        return body(c);
      };
      compute = (vals, c) => {
        const v = c.f.v;
        for (let i = 0; i < slots.length; i++) v[slots[i]!] = vals[i];
        return body(c);
      };
    } else {
      const compiled = this.compileDef(h);
      const run: Closure =
        def.kind === 'FcnDef'
          ? (c) => compiled.body({ s: c.s, t: c.t, f: parent(c.f) })
          : (c) => compiled.body({ s: c.s, t: c.t, f: new Frame(compiled.size, parent(c.f)) });
      if (constant) {
        let cached: Value | undefined;
        return (c) => (cached ??= run({ s: null, t: null, f: c.f }));
      }
      if (args.length === 0) return run;
      fill = this.argFillers(h, args, scope);
      call = (c) => {
        const f = new Frame(compiled.size, parent(c.f));
        for (let i = 0; i < fill.length; i++) f.v[i] = fill[i]!(c);
        return compiled.body({ s: c.s, t: c.t, f });
      };
      compute = (vals, c) => {
        const f = new Frame(compiled.size, parent(c.f));
        for (let i = 0; i < vals.length; i++) f.v[i] = vals[i];
        return compiled.body({ s: c.s, t: c.t, f });
      };
    }
    if (!this.isPureOperator(h)) return call;
    const results = memoized(args.length, compute);
    // Results are kept while this call site passes atomic values (one passing sequences or sets
    // seldom passes the same one twice).
    let atomic = true;
    return (c) => {
      if (!atomic) return call(c);
      const vals = new Array<Value>(fill.length);
      for (let i = 0; i < fill.length; i++) vals[i] = fill[i]!(c) as Value;
      if (vals.every(isAtomic)) return results(vals, c);
      atomic = false;
      return compute(vals, c);
    };
  }

  /** For each parameter of h, how the call site fills its slot (byValue: by-name parameters passed by value). */
  private argFillers(h: DefHandle, args: Expr[], scope: Scope, byValue?: boolean[]): ((c: Ctx) => unknown)[] {
    const def = h.def as OpDef;
    const modes = this.paramModes(h);
    return args.map((a, i) => {
      if (def.params[i]!.arity > 0) return this.opArg(a, scope);
      if (modes[i] && !byValue?.[i]) return this.argRef(a, scope);
      return this.expr(a, scope);
    });
  }

  /**
   * Whether an argument has one value in every state: a literal, a constant, or the value of a bound
   * name. Passed by value, it then acts as it would by name, but for where an error in taking it as
   * an action is reported (so parameters taken as actions stay by name).
   */
  private isStateless(a: Expr, scope: Scope): boolean {
    if (a.kind === 'Num' || a.kind === 'Str' || a.kind === 'Bool') return true;
    if (a.kind !== 'Ident') return false;
    const sym = scope.lookup(a.name);
    return sym?.k === 'const' || (sym?.k === 'slot' && sym.mode === 'value');
  }

  /** An argument passed by name: evaluated, taken as an action or UNCHANGED, in the caller's frame. */
  argRef(a: Expr, scope: Scope): (c: Ctx) => ArgRef {
    const fn = this.expr(a, scope);
    let act: ActClosure | undefined;
    let unch: ActClosure | undefined;
    const lazyAct: ActClosure = (c, k) => (act ??= this.act(a, scope, false, false))(c, k);
    const lazyUnchanged: ActClosure = (c, k) => (unch ??= this.unchanged(a, scope))(c, k);
    const varIndex = a.kind === 'Ident' ? this.variableOf(a.name, scope)?.index : undefined;
    return (c: Ctx): ArgRef => new ArgRef(fn, lazyAct, lazyUnchanged, varIndex, c.f);
  }

  /** An operator-valued argument: a LAMBDA, an operator name, or a builtin symbol. */
  opArg(a: Expr, scope: Scope): (c: Ctx) => OpValue {
    if (a.kind === 'Lambda') {
      const inner = scope.newFrame();
      for (const p of a.params) inner.bindSlot(p);
      const body = this.expr(a.body, inner);
      return (c) => {
        const parent = c.f;
        return (vals, uc) => {
          const f = new Frame(inner.frame.size, parent);
          for (let i = 0; i < vals.length; i++) f.v[i] = vals[i];
          return body({ s: uc.s, t: uc.t, f });
        };
      };
    }
    if (a.kind !== 'Ident' && a.kind !== 'Prefixed') {
      throw new TlaError(`An operator argument must be an operator name or LAMBDA at ${locText(a)}.`);
    }
    // A named operator is called with as many arguments as the receiver passes: compiled per count.
    const byArity = new Map<number, { size: number; call: Closure }>();
    const callFor = (arity: number) => {
      let hit = byArity.get(arity);
      if (!hit) {
        const inner = scope.newFrame();
        const argExprs: Expr[] = Array.from({ length: arity }, (_, i) => {
          inner.bindSlot(`#${i}`);
          return { kind: 'Ident', name: `#${i}`, loc: a.loc };
        });
        const call =
          a.kind === 'Ident'
            ? this.symValue(this.resolve(a.name, scope, a), a, inner, argExprs)
            : this.prefixed({ ...a, args: argExprs }, inner);
        hit = { size: inner.frame.size, call };
        byArity.set(arity, hit);
      }
      return hit;
    };
    return (c) => {
      const parent = c.f;
      return (vals, uc) => {
        const { size, call } = callFor(vals.length);
        const f = new Frame(size, parent);
        for (let i = 0; i < vals.length; i++) f.v[i] = vals[i];
        return call({ s: uc.s, t: uc.t, f });
      };
    };
  }

  private builtinCall(b: Builtin, name: string, e: Expr, scope: Scope, args: Expr[]): Closure {
    if (b.arity !== args.length) {
      throw new TlaError(
        `Operator ${name} takes ${b.arity} arguments but is given ${args.length} at ${locText(e)}.`,
      );
    }
    const ops = new Set(b.opParams ?? []);
    const lazy = new Set(b.lazyParams ?? []);
    const argCls = args.map((a, i) => {
      if (ops.has(i)) return this.opArg(a, scope);
      const cl = this.expr(a, scope);
      return lazy.has(i) ? (c: Ctx) => () => cl(c) : cl;
    });
    const host = this.host;
    const fn = b.fn;
    if (args.length === 0) {
      if (NONDETERMINISTIC.has(name)) return (c) => fn([], host, c);
      let cached: Value | undefined;
      return (c) => (cached ??= fn([], host, c));
    }
    const { fn1, fn2 } = b;
    if (fn1 && ops.size === 0 && lazy.size === 0) {
      const a0 = argCls[0] as Closure;
      return (c) => {
        try {
          return fn1(a0(c));
        } catch (err) {
          throw locate(err, e);
        }
      };
    }
    if (fn2 && ops.size === 0 && lazy.size === 0) {
      const [a0, a1] = argCls as Closure[];
      return (c) => {
        try {
          return fn2(a0!(c), a1!(c));
        } catch (err) {
          throw locate(err, e);
        }
      };
    }
    if (argCls.length <= 2 && ops.size === 0 && lazy.size === 0) {
      const [a0, a1] = argCls as Closure[];
      return (c) => {
        try {
          return fn(a1 ? [a0!(c), a1(c)] : [a0!(c)], host, c);
        } catch (err) {
          throw locate(err, e);
        }
      };
    }
    return located(e, (c) => fn(argCls.map((a) => a(c)) as Value[], host, c));
  }

  private opApp(e: Expr & { kind: 'OpApp' }, scope: Scope): Closure {
    const args = e.args;
    switch (e.name) {
      case '=':
      case '/=':
      case '#': {
        const a = this.expr(args[0]!, scope);
        const rhs = args[1]!;
        const eq = e.name === '=';
        if (rhs.kind === 'Num' || rhs.kind === 'Str' || rhs.kind === 'Bool') {
          // A literal on the right: a value of its type is compared at once.
          const lit = rhs.value;
          const type = typeof lit;
          return (c) => {
            try {
              const x = a(c);
              return (typeof x === type ? x === lit : equals(x, lit)) === eq;
            } catch (err) {
              throw locate(err, e);
            }
          };
        }
        const b = this.expr(rhs, scope);
        return (c) => {
          try {
            const x = a(c);
            const y = b(c);
            // Scalars of one type are equal when identical.
            if (typeof x !== 'object' && typeof x === typeof y) return (x === y) === eq;
            return equals(x, y) === eq;
          } catch (err) {
            throw locate(err, e);
          }
        };
      }
      case '\\in':
      case '\\notin': {
        const a = this.expr(args[0]!, scope);
        const b = this.expr(args[1]!, scope);
        const neg = e.name === '\\notin';
        return (c) => {
          try {
            const x = a(c);
            return asSet(b(c), args[1]!).has(x) !== neg;
          } catch (err) {
            throw locate(err, e);
          }
        };
      }
      case '~': {
        const a = this.expr(args[0]!, scope);
        return (c) => !boolOf(a(c), args[0]!);
      }
      case '=>': {
        const a = this.expr(args[0]!, scope);
        const b = this.expr(args[1]!, scope);
        return (c) => !boolOf(a(c), args[0]!) || boolOf(b(c), args[1]!);
      }
      case '<=>':
      case '\\equiv': {
        const a = this.expr(args[0]!, scope);
        const b = this.expr(args[1]!, scope);
        return (c) => boolOf(a(c), args[0]!) === boolOf(b(c), args[1]!);
      }
      case '\\X': {
        const sets = args.map((x) => this.expr(x, scope));
        return (c) => productOf(sets.map((s, i) => asSet(s(c), args[i]!)));
      }
    }
    const sym = this.resolve(e.name, scope, e);
    return this.symValue(sym, e, scope, args);
  }

  /** Resolves `A!B!Op`: the module instance reached and the frame its definitions need. */
  /**
   * Resolves `A!B!Op`: the module instance reached and the frame its definitions need. An instance
   * with parameters, `C(z)!Op`, is made for this call site: its parameters stand for the argument
   * expressions, so its definitions live at the caller's level and run in the caller's frame.
   */
  private instancePath(
    e: Expr & { kind: 'Prefixed' },
    scope: Scope,
  ): { inst: ModInst; frame: (c: Ctx) => Frame } {
    let frame: (c: Ctx) => Frame = (c) => c.f;
    let level = scope.level;
    let lookupScope: Scope = scope;
    let inst = scope.inst;
    for (const step of e.path) {
      const sym = lookupScope.lookup(step.name);
      if (!sym || sym.k !== 'instance') throw new TlaError(`Unknown instance ${step.name} at ${locText(e)}.`);
      const def = sym.def;
      if (def.params.length !== step.args.length) {
        throw new TlaError(`Instance ${def.name} takes ${def.params.length} arguments at ${locText(e)}.`);
      }
      if (def.params.length === 0) {
        inst = this.loader.instantiate(def, sym.scope).inst;
        const parentUp = this.up(level, sym.scope.level);
        const prev = frame;
        frame = (c) => parentUp(prev(c));
        level = sym.scope.level;
      } else {
        inst = this.loader.instantiateAt(def, sym.scope, step, scope).inst;
        frame = (c) => c.f;
        level = scope.level;
      }
      lookupScope = inst.top;
    }
    return { inst, frame };
  }

  private prefixed(e: Expr & { kind: 'Prefixed' }, scope: Scope): Closure {
    const { inst, frame } = this.instancePath(e, scope);
    const sym = inst.names.get(e.name);
    if (!sym) throw new TlaError(`Unknown operator ${e.name} in instance at ${locText(e)}.`);
    const instScope = inst.top;
    if (sym.k === 'def') {
      const h = sym.h;
      const compiled = this.compileDef(h);
      if (h.arity !== e.args.length)
        throw new TlaError(`Operator ${h.name} arity mismatch at ${locText(e)}.`);
      const fill = this.argFillers(h, e.args, scope);
      return (c) => {
        const f = new Frame(compiled.size, frame(c));
        for (let i = 0; i < fill.length; i++) f.v[i] = fill[i]!(c);
        return compiled.body({ s: c.s, t: c.t, f });
      };
    }
    // a standard operator reached through the instance (I!Len(s)) takes its arguments from the caller
    if (sym.k === 'builtin') return this.symValue(sym, e, scope, e.args);
    const cl = this.symValue(sym, e, instScope, e.args);
    return (c) => cl({ s: c.s, t: c.t, f: frame(c) });
  }

  /** Binds the definitions of a LET; `bind` fills their slots when the LET is entered. */
  letScope(e: Expr & { kind: 'Let' }, scope: Scope): { inner: Scope; bind: ((c: Ctx) => void) | null } {
    const inner = scope.block();
    const pending: { slot: number; def: OpDef | FcnDef }[] = [];
    for (const d of e.defs) this.bindLetDef(d, inner, pending);
    const thunks = pending.map((p) => ({
      slot: p.slot,
      fn: p.def.kind === 'OpDef' ? this.expr(p.def.body, inner) : this.fcnDefValue(p.def, inner),
    }));
    if (thunks.length === 0) return { inner, bind: null };
    const bind = (c: Ctx) => {
      for (const th of thunks) {
        c.f.v[th.slot] = new LetThunk(th.fn, c.f, c.s, c.t, stateVersion);
      }
    };
    return { inner, bind };
  }

  private bindLetDef(d: Unit, scope: Scope, pending: { slot: number; def: OpDef | FcnDef }[]): void {
    switch (d.kind) {
      case 'OpDef':
        if (d.params.length === 0) {
          const sym = scope.bindSlot(d.name, 'thunk');
          sym.letDef = { expr: d.body, scope };
          pending.push({ slot: sym.slot, def: d });
        } else scope.bind(d.name, { k: 'def', h: new DefHandle(d, scope) });
        return;
      case 'FcnDef':
        pending.push({ slot: scope.bindSlot(d.name, 'thunk').slot, def: d });
        return;
      case 'Instance':
        if (d.name) scope.bind(d.name, { k: 'instance', def: d, scope });
        else throw new TlaError(`unsupported: unnamed INSTANCE inside LET at ${locText(d as never)}`, 255);
        return;
      case 'Declaration' as never:
      default:
        return;
    }
  }

  /** Binds the names of bounds to fresh slots and returns an enumerator over their values. */
  binder(bounds: Bound[], scope: Scope, at: Expr): Binder {
    const parts = bounds.map((b) => {
      if (!b.set) {
        if (at.kind !== 'Choose' && at.kind !== 'Quant')
          throw new TlaError(`unsupported: an unbounded binder at ${locText(at)}`, 255);
        const what = at.kind === 'Choose' ? 'CHOOSE' : at.forall ? '\\A' : '\\E';
        // TLC evaluates it, and fails, only when it is reached (`Tool#evalAppl`, OPCODE_uc/ue/uf).
        return {
          set: () => {
            throw new EvalError(
              `TLC attempted to evaluate an unbounded ${what}.\nMake sure that the expression is of form ${what} x \\in S: P(x).\n${locText(at)}`,
            );
          },
          setExpr: at,
          slots: b.names.map((n) => scope.bindSlot(n).slot),
          tuple: false,
        };
      }
      const set = this.expr(b.set, scope);
      const setExpr = b.set;
      const slots = b.names.map((n) => scope.bindSlot(n).slot);
      return { set, setExpr, slots, tuple: b.tuple };
    });
    // `x, y \in S` binds each name to S in turn.
    const flat: { set: Closure; setExpr: Expr; slot: number; tupleSlots?: number[] }[] = [];
    for (const p of parts) {
      if (p.tuple) flat.push({ set: p.set, setExpr: p.setExpr, slot: -1, tupleSlots: p.slots });
      else for (const s of p.slots) flat.push({ set: p.set, setExpr: p.setExpr, slot: s });
    }
    const bindOne = (c: Ctx, p: (typeof flat)[number], v: Value): void => {
      if (p.tupleSlots) {
        if (!(v instanceof FcnValue)) throw new EvalError(`Attempted to bind a tuple to ${show(v)}.`);
        const ft = v.materialize();
        p.tupleSlots.forEach((s, j) => (c.f.v[s] = ft.valAt(j)));
      } else c.f.v[p.slot] = v;
    };
    // TLC's context enumerator varies the first bound name fastest.
    // Binds the names from the i-th down (the last one, i = 0, calls fn).
    const rec = (c: Ctx, i: number, fn: (c: Ctx) => boolean | void): boolean => {
      const p = flat[i]!;
      const set = asSet(p.set(c), p.setExpr);
      if (set instanceof IntervalSet) {
        for (let v = set.lo; v <= set.hi; v++) {
          bindOne(c, p, v);
          if (!(i === 0 ? fn(c) !== false : rec(c, i - 1, fn))) return false;
        }
        return true;
      }
      // TLC enumerates quantifier domains normalized: sorted, without duplicates.
      if (set instanceof FiniteSet || set instanceof LazySet) {
        const elems = set.normalized().elems;
        for (let j = 0; j < elems.length; j++) {
          bindOne(c, p, elems[j]!);
          if (!(i === 0 ? fn(c) !== false : rec(c, i - 1, fn))) return false;
        }
        return true;
      }
      let go = true;
      set.forEach((v) => {
        bindOne(c, p, v);
        go = i === 0 ? fn(c) !== false : rec(c, i - 1, fn);
        return go;
      });
      return go;
    };
    const last = flat.length - 1;
    return (c, fn) => (last < 0 ? fn(c) !== false : rec(c, last, fn));
  }

  private quant(e: Expr & { kind: 'Quant' }, scope: Scope): Closure {
    const { forall, bounds, body: bodyExpr } = e;
    const inner = scope.block();
    const binder = this.binder(bounds, inner, e);
    const body = this.expr(bodyExpr, inner);
    // Goes on while the body is true for \A, false for \E.
    const goOn = (c: Ctx): boolean => boolOf(body(c), bodyExpr) === forall;
    return (c) => (binder(c, goOn) ? forall : !forall);
  }

  private choose(e: Expr & { kind: 'Choose' }, scope: Scope): Closure {
    const inner = scope.block();
    const binder = this.binder([e.bound], inner, e);
    const body = this.expr(e.body, inner);
    const slotOf = inner.lookup(e.bound.names[0]!) as Sym & { k: 'slot' };
    const names = e.bound.names.map((n) => inner.lookup(n) as Sym & { k: 'slot' });
    return located(e, (c) => {
      let found: Value | undefined;
      binder(c, () => {
        if (boolOf(body(c), e.body)) {
          found = e.bound.tuple
            ? new Tuple(names.map((s) => c.f.v[s.slot] as Value))
            : (c.f.v[slotOf.slot] as Value);
          return false;
        }
        return true;
      });
      if (found === undefined) {
        throw new EvalError(
          `Attempted to compute the value of an expression of form\nCHOOSE x \\in S: P, but no element of S satisfied P.`,
        );
      }
      return found;
    });
  }

  private setFilter(e: Expr & { kind: 'SetFilter' }, scope: Scope): Closure {
    const inner = scope.block();
    const bound = e.bound;
    if (!bound.set) throw new TlaError(`unsupported: unbounded set filter at ${locText(e)}`, 255);
    const base = this.expr(bound.set, scope);
    const slots = bound.names.map((n) => inner.bindSlot(n).slot);
    const pred = this.expr(e.pred, inner);
    const test = (c: Ctx, v: Value): boolean => {
      if (bound.tuple) {
        const f = (v as FcnValue).materialize();
        slots.forEach((s, j) => (c.f.v[s] = f.valAt(j)));
      } else c.f.v[slots[0]!] = v;
      return boolOf(pred(c), e.pred);
    };
    return (c) => {
      const s = asSet(base(c), bound.set!);
      if (s instanceof FiniteSet) {
        const out: Value[] = [];
        for (let i = 0; i < s.elems.length; i++) if (test(c, s.elems[i]!)) out.push(s.elems[i]!);
        return out.length === s.elems.length ? s : out.length === 0 ? EMPTY_SET : new FiniteSet(out);
      }
      if (s instanceof IntervalSet) {
        const out: Value[] = [];
        for (let i = s.lo; i <= s.hi; i++) if (test(c, i)) out.push(i);
        return setOf(out);
      }
      // Over SUBSET, [S -> T], an infinite set...: membership without enumeration, as TLC's SetPredValue.
      const snap = snapshot(c);
      const label = () => `{${bound.names.join(', ')} \\in ${s.describe()} : ...}`;
      const member = (v: Value) => s.has(v) && test(snap, v);
      if (!s.isFinite()) return new InfiniteSet(label, member);
      return new LazySet('SetPredValue', label, member, (fn) =>
        s.forEach((v) => {
          if (test(snap, v)) return fn(v);
        }),
      );
    };
  }

  /** The domain set of `[x \in S, y \in T |-> e]` and how to bind an argument to the names. */
  private fcnDomain(
    bounds: Bound[],
    scope: Scope,
    at: Expr,
  ): { domain: (c: Ctx) => SetValue; bind: (f: Frame, arg: Value) => void } {
    // One factor per bound name, except that `<<a, b>> \in S` is one factor whose elements are tuples.
    const factors: { set: Closure; e: Expr; slots: number[]; tuple: boolean }[] = [];
    for (const b of bounds) {
      if (!b.set) throw new TlaError(`unsupported: function without a domain at ${locText(at)}`, 255);
      const set = this.expr(b.set, scope);
      const slots = b.names.map((n) => scope.bindSlot(n).slot);
      if (b.tuple) factors.push({ set, e: b.set, slots, tuple: true });
      else for (const slot of slots) factors.push({ set, e: b.set, slots: [slot], tuple: false });
    }
    const bindFactor = (f: Frame, factor: (typeof factors)[number], v: Value) => {
      if (!factor.tuple) {
        f.v[factor.slots[0]!] = v;
        return;
      }
      const t = (v as FcnValue).materialize();
      factor.slots.forEach((slot, j) => (f.v[slot] = t.valAt(j)));
    };
    if (factors.length === 1) {
      const only = factors[0]!;
      return { domain: (c) => asSet(only.set(c), only.e), bind: (f, arg) => bindFactor(f, only, arg) };
    }
    return {
      domain: (c) => productOf(factors.map((x) => asSet(x.set(c), x.e))),
      bind: (f, arg) => {
        const t = (arg as FcnValue).materialize();
        factors.forEach((x, i) => bindFactor(f, x, t.valAt(i)));
      },
    };
  }

  private fcnLit(e: Expr & { kind: 'FcnLit' }, scope: Scope): Closure {
    const inner = scope.block();
    const { domain, bind } = this.fcnDomain(e.bounds, inner, e);
    const body = this.expr(e.body, inner);
    return (c) => {
      const dom = domain(c);
      if (!dom.isFinite()) {
        const snap = snapshot(c);
        return new LazyFcn(dom, (arg) => {
          bind(snap.f, arg);
          return body(snap);
        });
      }
      const keys = dom.normalized().elems;
      const vals = new Array<Value>(keys.length);
      for (let i = 0; i < keys.length; i++) {
        bind(c.f, keys[i]!);
        vals[i] = body(c);
      }
      return fcnOf(keys, vals);
    };
  }

  /**
   * `[a |-> x, b |-> y]`: the fields, evaluated in the order written, are placed in the order of their
   * names, found at the first evaluation (the names' order does not change after) and then kept.
   */
  private recLit(e: Expr & { kind: 'RecLit' }, scope: Scope): Closure {
    const fields = e.fields.map((f) => this.expr(f.value, scope));
    let names: readonly string[] | undefined;
    let position: number[] = [];
    return (c) => {
      if (!names) {
        const order = e.fields
          .map((f, i) => ({ name: f.name, i }))
          .sort((x, y) => compareStrings(x.name, y.name));
        names = order.map((f) => f.name);
        position = new Array<number>(order.length);
        order.forEach((f, to) => (position[f.i] = to));
      }
      const vals = new Array<Value>(fields.length);
      for (let i = 0; i < fields.length; i++) vals[position[i]!] = fields[i]!(c);
      return new Record(names, vals);
    };
  }

  private fcnApp(e: Expr & { kind: 'FcnApp' }, scope: Scope): Closure {
    const fn = this.expr(e.fn, scope);
    const args = e.args.map((a) => this.expr(a, scope));
    const variable = e.fn.kind === 'Ident' ? scope.lookup(e.fn.name) : undefined;
    if (args.length === 1 && variable?.k === 'var') {
      // `x[a]` for a variable x: its value read in place (fn only says why it has none).
      const i = variable.index;
      const a0 = args[0]!;
      return (c) => {
        try {
          return applyFcn(c.s?.[i] ?? fn(c), a0(c), e);
        } catch (err) {
          throw locate(err, e);
        }
      };
    }
    if (args.length === 1) {
      const a0 = args[0]!;
      return (c) => {
        try {
          return applyFcn(fn(c), a0(c), e);
        } catch (err) {
          throw locate(err, e);
        }
      };
    }
    return located(e, (c) => applyFcn(fn(c), new Tuple(valuesOf(args, c)), e));
  }

  private except(e: Expr & { kind: 'Except' }, scope: Scope): Closure {
    const base = this.expr(e.fn, scope);
    const updates = e.updates.map((u) => {
      const inner = scope.block();
      const at = inner.bindSlot('@');
      const path = u.path.map((p) => pathKey(p, (x) => this.expr(x, scope)));
      return { path, value: this.expr(u.value, inner), at: at.slot };
    });
    return located(e, (c) => {
      let f = base(c);
      for (const u of updates) {
        const keys = valuesOf(u.path, c);
        f = exceptAt(f, keys, 0, (old) => {
          c.f.v[u.at] = old;
          return u.value(c);
        });
      }
      return f;
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Action mode

  /**
   * Compiles e as an action. `init` makes unprimed variables the assignment targets (Init);
   * `top` marks a split point of Next, where entering a definition names the action.
   */
  act(e: Expr, scope: Scope, init: boolean, top: boolean): ActClosure {
    const cl = this.actNode(e, scope, init, top);
    if (!top || !this.labelling || this.splits(e, scope, init)) return cl;
    // A leaf of TLC's split of Next: the action is this sub-expression.
    const loc = e.loc;
    return (c, k) => {
      if (this.currentAction) this.currentAction.loc = loc;
      else this.currentAction = { name: 'Action', frame: null, slots: [], params: [], loc };
      cl(c, k);
    };
  }

  /**
   * Compiles actions that name themselves in currentAction as they run (for traces, -dump and
   * simulation): compiled apart, so that the search's own actions pay nothing for it.
   */
  withLabels<T>(compile: () => T): T {
    return this.withFlag('labelling', true, compile);
  }

  /**
   * The conjunct an action tests first, looking into the operators it calls, when that is a constant
   * (in the strict sense: one value for the whole run; `WithBatch` in `\E B \in SUBSET S : Batch(B)`).
   */
  private leadingConstantGuard(e: Expr, scope: Scope): { e: Expr; scope: Scope } | undefined {
    // An operator's parameters are not in its module's scope: a conjunct naming one is not taken.
    let params: string[] = [];
    // Bounded: a recursive operator may call itself first.
    for (let depth = 0; depth < 64; depth++) {
      if (e.kind === 'Label') e = e.expr;
      else if (e.kind === 'And') e = e.items[0]!;
      else if ((e.kind === 'Ident' || e.kind === 'OpApp') && !BUILTIN_SYNTAX.has(e.name)) {
        const sym = scope.lookup(e.name);
        if (sym?.k !== 'def' || sym.h.def.kind !== 'OpDef') break;
        params = [...params, ...sym.h.def.params.map((p) => p.name)];
        scope = sym.h.scope;
        e = sym.h.def.body;
      } else break;
    }
    if (mentions(e, params) || !this.isConstantExpr(e, scope, new Set(), true)) return undefined;
    return { e, scope };
  }

  /** Whether TLC splits Next further at e (so a deeper sub-expression names the action). */
  private splits(e: Expr, scope: Scope, init: boolean): boolean {
    switch (e.kind) {
      case 'Or':
      case 'Let':
      case 'Label':
        return true;
      case 'Quant':
        return !e.forall && e.bounds.every((b) => !b.set || this.isConstantExpr(b.set, scope, new Set()));
      case 'Ident':
      case 'OpApp': {
        if ((e.kind === 'OpApp' && BUILTIN_SYNTAX.has(e.name)) || this.assignment(e, scope, init))
          return false;
        const sym = scope.lookup(e.name);
        return sym?.k === 'def' && sym.h.def.kind === 'OpDef';
      }
      case 'Prefixed':
        return true;
      default:
        return false;
    }
  }

  private actNode(e: Expr, scope: Scope, init: boolean, top: boolean): ActClosure {
    switch (e.kind) {
      case 'And':
        return conjoin(e.items.map((x) => this.act(x, scope, init, false)));
      case 'Or': {
        const items = e.items.map((x) => this.act(x, scope, init, top));
        return (c, k) => {
          for (let i = 0; i < items.length; i++) items[i]!(c, k);
        };
      }
      case 'If': {
        const cond = this.expr(e.cond, scope);
        const then = this.act(e.then, scope, init, false);
        const els = this.act(e.else, scope, init, false);
        return (c, k) => (boolOf(cond(c), e.cond) ? then(c, k) : els(c, k));
      }
      case 'Case': {
        const arms = e.arms.map((a) => ({
          g: this.expr(a.guard, scope),
          v: this.act(a.value, scope, init, false),
          e: a.guard,
        }));
        const other = e.other ? this.act(e.other, scope, init, false) : undefined;
        return (c, k) => {
          for (const a of arms) if (boolOf(a.g(c), a.e)) return a.v(c, k);
          if (other) return other(c, k);
          throw new EvalError(`Attempted to evaluate a CASE with no arm true at ${locText(e)}.`);
        };
      }
      case 'Let': {
        const { inner, bind } = this.letScope(e, scope);
        const body = this.act(e.body, inner, init, top);
        if (!bind) return body;
        return (c, k) => {
          bind(c);
          body(c, k);
        };
      }
      case 'Quant': {
        const inner = scope.block();
        const binder = this.binder(e.bounds, inner, e);
        // TLC splits Next at an \E only when its bounds can be evaluated before any state is known.
        const split =
          top && !e.forall && e.bounds.every((b) => !b.set || this.isConstantExpr(b.set, scope, new Set()));
        if (split) for (const n of e.bounds.flatMap((b) => b.names)) markSplitConstant(inner.lookup(n));
        const body = this.act(e.body, inner, init, split);
        if (!e.forall) {
          const run = withContinuation(binder, body);
          const guard = this.leadingConstantGuard(e.body, inner);
          if (!guard) return run;
          // TLC tests the guard for every binding, after evaluating the bounds: where the guard is
          // false, no binding takes a step, so once the bounds are known to give one, it is tested once.
          const test = this.expr(guard.e, guard.scope);
          return (c, k) => {
            const someBinding = !binder(c, () => false);
            if (!someBinding || boolOf(test(c), guard.e)) run(c, k);
          };
        }
        // \A in an action: the conjunction of the body over every binding.
        const slots = e.bounds.flatMap((b) =>
          b.names.map((n) => (inner.lookup(n) as Sym & { k: 'slot' }).slot),
        );
        return (c, k) => {
          const bindings: unknown[][] = [];
          binder(c, () => {
            bindings.push(slots.map((sl) => c.f.v[sl]));
          });
          const step = (i: number): void => {
            if (i === bindings.length) return k();
            const b = bindings[i]!;
            slots.forEach((sl, j) => (c.f.v[sl] = b[j]));
            body(c, () => {
              step(i + 1);
              slots.forEach((sl, j) => (c.f.v[sl] = b[j]));
            });
          };
          step(0);
        };
      }
      case 'Label':
        return this.act(e.expr, scope, init, top);
      case 'Unchanged':
        if (init) break;
        return this.unchanged(e.expr, scope);
      case 'StepExpr': {
        if (init) break;
        const a = this.act(e.action, scope, init, top);
        if (e.box) {
          const u = this.unchanged(e.sub, scope);
          return (c, k) => {
            a(c, k);
            u(c, k);
          };
        }
        const sub = this.expr(e.sub, scope);
        return (c, k) =>
          a(c, () => {
            if (!equals(sub({ s: c.t, t: null, f: c.f }), sub(c))) k();
          });
      }
      case 'Ident':
      case 'OpApp': {
        if (e.kind === 'OpApp' && e.name === '=>') {
          // P => Q in an action: no step when P is false, else Q taken as an action.
          const p = this.expr(e.args[0]!, scope);
          const q = this.act(e.args[1]!, scope, init, false);
          return (c, k) => (boolOf(p(c), e.args[0]!) ? q(c, k) : k());
        }
        const assign = this.assignment(e, scope, init);
        if (assign) return assign;
        if (e.kind === 'OpApp' && BUILTIN_SYNTAX.has(e.name)) break;
        const sym = this.resolve(e.name, scope, e);
        const args = e.kind === 'OpApp' ? e.args : [];
        if (sym.k === 'def' && sym.h.def.kind === 'OpDef')
          return this.actCall(sym.h, args, scope, init, top, null, e);
        if (sym.k === 'slot' && sym.mode === 'byname') {
          const up = this.up(scope.level, sym.level);
          const slot = sym.slot;
          return (c, k) => {
            const a = up(c.f).v[slot] as ArgRef;
            a.act({ s: c.s, t: c.t, f: a.f }, k);
          };
        }
        if (sym.k === 'slot' && sym.letDef && args.length === 0) {
          // A zero-argument LET definition used as an action (`LET keep == UNCHANGED b IN ...`).
          const { expr, scope: letScope } = sym.letDef;
          let compiled: ActClosure | undefined;
          const up = this.up(scope.level, sym.level);
          return (c, k) =>
            (compiled ??= this.act(expr, letScope, init, false))({ s: c.s, t: c.t, f: up(c.f) }, k);
        }
        if (sym.k === 'subst' && sym.expr.kind !== 'Ident') break;
        if (sym.k === 'subst' && args.length === 0) {
          const target = sym.scope;
          const a = this.act(sym.expr, target, init, top);
          const up = this.up(scope.level, target.level);
          return (c, k) => a({ s: c.s, t: c.t, f: up(c.f) }, k);
        }
        break;
      }
      case 'Prefixed': {
        const { inst, frame } = this.instancePath(e, scope);
        const sym = inst.names.get(e.name);
        if (sym?.k === 'def' && sym.h.def.kind === 'OpDef') {
          return this.actCall(sym.h, e.args, scope, init, top, frame, e);
        }
        break;
      }
    }
    return guardAct(this.expr(e, scope), e);
  }

  /** `x' = e` / `x' \in S` (or `x = e` / `x \in S` in Init) when x is a variable. */
  private assignment(e: Expr, scope: Scope, init: boolean): ActClosure | undefined {
    if (e.kind !== 'OpApp' || (e.name !== '=' && e.name !== '\\in') || e.args.length !== 2) return undefined;
    let lhs = e.args[0]!;
    if (!init) {
      if (lhs.kind !== 'Prime') return undefined;
      lhs = lhs.expr;
    }
    if (lhs.kind !== 'Ident') return undefined;
    const index = this.variableIndex(lhs.name, scope);
    if (!index) return undefined;
    const rhs = this.expr(e.args[1]!, scope);
    const rhsExpr = e.args[1]!;
    const rhsAt = located(e, rhs);
    const target = init ? (c: Ctx) => c.s! : (c: Ctx) => c.t!;
    // A parameter passed something other than a variable: the conjunct is an ordinary guard.
    const asGuard = guardAct(this.expr(e, scope), e);
    if (e.name === '=') {
      return (c, k) => {
        const i = index(c);
        if (i === undefined) asGuard(c, k);
        else assignOrCheck(target(c), i, rhsAt(c), k);
      };
    }
    return (c, k) => {
      const i = index(c);
      if (i === undefined) return asGuard(c, k);
      const set = asSet(rhsAt(c), rhsExpr);
      const t = target(c);
      const cur = t[i];
      if (cur !== undefined) {
        if (set.has(cur)) k();
        return;
      }
      try {
        set.forEach((v) => {
          t[i] = v;
          stateVersion++;
          k();
        });
      } finally {
        t[i] = undefined as unknown as Value;
        stateVersion++;
      }
    };
  }

  /**
   * The state variable a name stands for, through INSTANCE substitutions (`val <- x`) and
   * definitions that only rename (`yy == y`, `LET v == x IN ...`).
   */
  private variableOf(name: string, scope: Scope): (Sym & { k: 'var' }) | undefined {
    const sym = scope.lookup(name);
    if (sym?.k === 'var') return sym;
    if (sym?.k === 'subst' && sym.expr.kind === 'Ident') return this.variableOf(sym.expr.name, sym.scope);
    if (sym?.k === 'slot' && sym.letDef?.expr.kind === 'Ident')
      return this.variableOf(sym.letDef.expr.name, sym.letDef.scope);
    if (
      sym?.k === 'def' &&
      sym.h.arity === 0 &&
      sym.h.def.kind === 'OpDef' &&
      sym.h.def.body.kind === 'Ident'
    ) {
      return this.variableOf(sym.h.def.body.name, sym.h.scope);
    }
    return undefined;
  }

  /**
   * Which variable an assignment target names, at run time: fixed for a variable, or, for an
   * operator parameter passed by name (`Inc(v) == v' = v + 1`), whichever variable the caller passed.
   */
  private variableIndex(name: string, scope: Scope): ((c: Ctx) => number | undefined) | undefined {
    const v = this.variableOf(name, scope);
    if (v) {
      const i = v.index;
      return () => i;
    }
    const sym = scope.lookup(name);
    if (sym?.k !== 'slot' || sym.mode !== 'byname') return undefined;
    const up = this.up(scope.level, sym.level);
    const slot = sym.slot;
    return (c) => (up(c.f).v[slot] as ArgRef).varIndex;
  }

  private unchanged(e: Expr, scope: Scope): ActClosure {
    const vars = this.unchangedVars(e, scope);
    if (vars && vars.length <= MAX_KEPT) return keepVariables(vars);
    if (e.kind === 'Prefixed' && e.args.length === 0) {
      const { inst, frame } = this.instancePath(e, scope);
      const sym = inst.names.get(e.name);
      if (sym?.k === 'def' && sym.h.arity === 0 && sym.h.def.kind === 'OpDef') {
        const inner = this.unchanged(sym.h.def.body, sym.h.scope);
        return (c, k) => inner({ s: c.s, t: c.t, f: frame(c) }, k);
      }
    }
    if (e.kind === 'Tuple') return conjoin(e.elems.map((x) => this.unchanged(x, scope)));
    if (e.kind === 'Ident') {
      const sym = scope.lookup(e.name);
      if (sym?.k === 'def' && sym.h.arity === 0 && sym.h.def.kind === 'OpDef') {
        const inner = this.unchanged(sym.h.def.body, sym.h.scope);
        const up = this.up(scope.level, sym.h.scope.level);
        return (c, k) => inner({ s: c.s, t: c.t, f: up(c.f) }, k);
      }
      if (sym?.k === 'subst') {
        const inner = this.unchanged(sym.expr, sym.scope);
        const up = this.up(scope.level, sym.scope.level);
        return (c, k) => inner({ s: c.s, t: c.t, f: up(c.f) }, k);
      }
      if (sym?.k === 'slot' && sym.mode === 'byname') {
        const up = this.up(scope.level, sym.level);
        const slot = sym.slot;
        return (c, k) => {
          const a = up(c.f).v[slot] as ArgRef;
          a.unchanged({ s: c.s, t: c.t, f: a.f }, k);
        };
      }
      if (sym?.k === 'slot' && sym.letDef) {
        const { expr, scope: letScope } = sym.letDef;
        const inner = this.unchanged(expr, letScope);
        const up = this.up(scope.level, sym.level);
        return (c, k) => inner({ s: c.s, t: c.t, f: up(c.f) }, k);
      }
    }
    const v = this.expr(e, scope);
    return (c, k) => {
      if (equals(v({ s: c.t, t: null, f: c.f }), v(c))) k();
    };
  }

  /** The variables `UNCHANGED e` keeps, when e is made of variables, tuples and definitions of them. */
  private unchangedVars(e: Expr, scope: Scope): number[] | undefined {
    if (e.kind === 'Tuple') {
      const out: number[] = [];
      for (const x of e.elems) {
        const vars = this.unchangedVars(x, scope);
        if (!vars) return undefined;
        out.push(...vars);
      }
      return out;
    }
    if (e.kind !== 'Ident') return undefined;
    const sym = scope.lookup(e.name);
    if (sym?.k === 'var') return [sym.index];
    if (sym?.k === 'def' && sym.h.arity === 0 && sym.h.def.kind === 'OpDef')
      return this.unchangedVars(sym.h.def.body, sym.h.scope);
    return undefined;
  }

  /**
   * Takes the action defined by h: inlined in the caller's frame where it can be, else in a new
   * frame (parent: the frame of h's scope); arguments by name where needed, labelled at split points.
   */
  private actCall(
    h: DefHandle,
    args: Expr[],
    scope: Scope,
    init: boolean,
    top: boolean,
    parent: ((c: Ctx) => Frame) | null,
    e: Expr,
  ): ActClosure {
    const def = h.def as OpDef;
    if (def.params.length !== args.length) {
      throw new TlaError(
        `Operator ${h.name} takes ${def.params.length} arguments but is given ${args.length} at ${locText(e)}.`,
      );
    }
    // TLC keeps splitting inside a called action only when every argument is a constant.
    const splitInside = top && args.every((a) => this.isConstantExpr(a, scope, new Set()));
    const modes = this.paramModes(h);
    const byValue = args.map((a, i) => modes[i]! && !h.actionParams![i] && this.isStateless(a, scope));
    const inlined = parent
      ? undefined
      : this.inline(h, scope, byValue, splitInside, (body) => this.act(def.body, body, init, splitInside));
    if (inlined && !inlined.ownsSlots && !top) return inlined.body;
    const run = inlined
      ? inlineRunner(inlined.body, inlined.slots, this.argFillers(h, args, scope, byValue))
      : this.frameRunner(h, args, scope, init, splitInside, byValue, parent ?? this.parentOf(h, scope));
    if (!top || !this.labelling) return run;
    const slots = inlined ? inlined.slots : def.params.map((_, i) => i);
    const params = def.params.map((p) => p.name);
    const callLoc = e.loc;
    // Split inside: a leaf below sets the location. Otherwise TLC's action is the call itself.
    const label = (f: Frame): void => {
      this.currentAction = splitInside
        ? { name: def.name, frame: f, slots, params, loc: null }
        : { name: def.name, frame: null, slots: [], params: [], loc: callLoc };
    };
    return (c, k) => {
      const saved = this.currentAction;
      try {
        run(c, k, label);
      } finally {
        this.currentAction = saved;
      }
    };
  }

  /** Runs h's body as an action in a new frame per call (compiled once per kind of call). */
  private frameRunner(
    h: DefHandle,
    args: Expr[],
    scope: Scope,
    init: boolean,
    splitInside: boolean,
    byValue: boolean[],
    parent: (c: Ctx) => Frame,
  ): ActRunner {
    const def = h.def as OpDef;
    const modes = this.paramModes(h);
    const key = `${init ? 'i' : 'n'}${splitInside ? 't' : ''}${this.labelling ? 'l' : ''}${byValue.map(Number).join('')}`;
    let compiled = h.acts.get(key);
    if (!compiled) {
      const body = h.scope.newFrame();
      def.params.forEach((p, i) => {
        const byName = modes[i] && !byValue[i];
        const sym = body.bindSlot(p.name, p.arity > 0 ? 'op' : byName ? 'byname' : 'value', p.arity);
        if (splitInside) markSplitConstant(sym);
      });
      compiled = { size: 0, body: () => undefined };
      h.acts.set(key, compiled);
      compiled.body = this.compiling(h, () => this.act(def.body, body, init, splitInside));
      compiled.size = body.frame.size;
    }
    const fill = this.argFillers(h, args, scope, byValue);
    const c0 = compiled;
    return (c, k, enter) => {
      const f = new Frame(c0.size, parent(c));
      for (let i = 0; i < fill.length; i++) f.v[i] = fill[i]!(c);
      if (enter) enter(f);
      c0.body({ s: c.s, t: c.t, f }, k);
    };
  }

  /** The values of an action's parameters, for its label. */
  labelArgs(label: ActionLabel, s: Value[] | null, t: Value[] | null): Value[] {
    return label.params.map((_, i) => {
      const v = label.frame!.v[label.slots[i]!];
      if (v instanceof ArgRef) return v.fn({ s, t, f: v.f });
      return v as Value;
    });
  }
}

/**
 * Counts writes to partial states (assignments and their undoing), so that a LET value computed
 * from a partial state is reused only while that state has not changed.
 */
let stateVersion = 0;

/** What guardAct made: the guard's closure and expression, so a conjunction can test it directly. */
const GUARDS = new WeakMap<ActClosure, { test: Closure; e: Expr }>();

/** A conjunct that is no assignment: the step goes on when it is true. */
function guardAct(test: Closure, e: Expr): ActClosure {
  const act: ActClosure = (c, k) => {
    if (boolOf(test(c), e)) k();
  };
  GUARDS.set(act, { test, e });
  return act;
}

/** Actions taken one after the other (a conjunction); a guard is tested without a continuation. */
export function conjoin(items: ActClosure[]): ActClosure {
  return (
    items.reduceRight<ActClosure | null>((rest, item) => {
      const guard = GUARDS.get(item);
      if (!guard) return rest ? withContinuation(item, rest) : item;
      const { test, e } = guard;
      if (!rest) return item;
      return (c, k) => {
        if (boolOf(test(c), e)) rest(c, k);
      };
    }, null) ?? ((_c, k) => k())
  );
}

/**
 * `run`, continued by `then` with the same context and continuation. The continuation passed to
 * run is made once and reused, except by a run that starts while another is in progress (through
 * recursion or `\A`), which makes its own.
 */
function withContinuation(run: ActClosure, then: ActClosure): ActClosure {
  let running = false;
  let cc: Ctx | null = null;
  let ck: Cont | null = null;
  const shared: Cont = () => then(cc!, ck!);
  return (c, k) => {
    if (running) return runNested(run, then, c, k);
    running = true;
    cc = c;
    ck = k;
    try {
      run(c, shared);
    } finally {
      running = false;
      cc = null;
      ck = null;
    }
  };
}

/** run, continued by then, with a continuation of its own (apart, so that the caller's c and k are not captured). */
function runNested(run: ActClosure, then: ActClosure, c: Ctx, k: Cont): void {
  run(c, () => then(c, k));
}

/** Runs a called action's body with its arguments; `enter` sees the frame that holds them. */
type ActRunner = (c: Ctx, k: Cont, enter?: (f: Frame) => void) => void;

/**
 * Runs a body inlined in the caller's frame, its parameters in `slots`. A call made while another
 * of this call site is running (through `\A`, an argument taken twice, ENABLED) runs in a copy of
 * the frame, so that the running one's slots are left alone.
 */
function inlineRunner(body: ActClosure, slots: number[], fill: ((c: Ctx) => unknown)[]): ActRunner {
  let running = false;
  return (c, k, enter) => {
    if (running) {
      const f = copyFrame(c.f);
      for (let i = 0; i < slots.length; i++) f.v[slots[i]!] = fill[i]!(c);
      if (enter) enter(f);
      return body({ s: c.s, t: c.t, f }, k);
    }
    running = true;
    try {
      const v = c.f.v;
      for (let i = 0; i < slots.length; i++) v[slots[i]!] = fill[i]!(c);
      if (enter) enter(c.f);
      body(c, k);
    } finally {
      running = false;
    }
  };
}

/** Assigns variable i of state t (undone afterwards) if it is unassigned, else requires it to equal v. */
function assignOrCheck(t: Value[], i: number, v: Value, k: Cont): void {
  const cur = t[i];
  if (cur === undefined) {
    t[i] = v;
    stateVersion++;
    try {
      k();
    } finally {
      t[i] = undefined as unknown as Value;
      stateVersion++;
    }
  } else if (equals(cur, v)) k();
}

/** The most variables keepVariables handles (one bit each). */
const MAX_KEPT = 30;

/**
 * UNCHANGED of these variables: assigns each unassigned one its current value, else requires it to
 * equal that value (in order, as a conjunction of assignments would); undone afterwards.
 */
function keepVariables(vars: number[]): ActClosure {
  return (c, k) => {
    const t = c.t!;
    const s = c.s!;
    let assigned = 0;
    try {
      for (let j = 0; j < vars.length; j++) {
        const i = vars[j]!;
        const cur = t[i];
        if (cur === undefined) {
          t[i] = s[i]!;
          assigned |= 1 << j;
          stateVersion++;
        } else if (!equals(cur, s[i]!)) return;
      }
      k();
    } finally {
      for (let j = 0; assigned !== 0; j++, assigned >>>= 1) {
        if (assigned & 1) t[vars[j]!] = undefined as unknown as Value;
      }
      stateVersion++;
    }
  };
}

/** How many expression nodes may be inlined in all (a bound on the compiled code's size). */
const MAX_INLINED_NODES = 200_000;

/** The number of nodes of an expression. */
function exprSize(e: Expr): number {
  let n = 1;
  forEachChild(e, (x) => (n += exprSize(x)));
  return n;
}

/** How many results memoized keeps at most, per operator. */
const MAX_MEMO = 100_000;

/** Whether v can key a memo: it equals another value exactly when it is the same (a scalar, a model value). */
function isAtomic(v: Value): boolean {
  return typeof v !== 'object' || v instanceof ModelValue;
}

/** An operator's results kept by argument (atomic values only). */
function memoized(
  arity: number,
  compute: (args: Value[], c: Ctx) => Value,
): (args: Value[], c: Ctx) => Value {
  const root = new Map<Value, unknown>();
  let kept = 0;
  return (args, c) => {
    let node = root;
    for (let i = 0; i < arity - 1; i++) {
      let next = node.get(args[i]!) as Map<Value, unknown> | undefined;
      if (!next) {
        if (kept >= MAX_MEMO) return compute(args, c);
        node.set(args[i]!, (next = new Map()));
        kept++;
      }
      node = next;
    }
    let v = node.get(args[arity - 1]!) as Value | undefined;
    if (v === undefined) {
      v = compute(args, c);
      if (kept < MAX_MEMO) {
        node.set(args[arity - 1]!, v);
        kept++;
      }
    }
    return v;
  };
}

/** A variable's value in the state (or, primed, in the next state). */
function variableValue(sym: Sym & { k: 'var' }, primed: boolean): Closure {
  const i = sym.index;
  const name = sym.name;
  return (c) => {
    const state = primed ? c.t : c.s;
    const v = state?.[i];
    if (v === undefined) {
      throw new EvalError(
        state
          ? `The variable ${name} is used before it is assigned a value.`
          : `The variable ${name} has no value here (no state, or no next state).`,
      );
    }
    return v;
  };
}

/** Bound names of a split point hold constants while Next is split (TLC binds them before any state). */
function markSplitConstant(sym: Sym | undefined): void {
  if (sym?.k === 'slot') sym.splitConstant = true;
}

/** Temporal operators spelled as operator names, and how TLC's message names them. */
const TEMPORAL_OPERATORS = new Map([
  ['-+->', 'a -+-> formula'],
  ['\\EE', '\\EE'],
  ['\\AA', '\\AA'],
]);

/** How TLC's message names the temporal operator of e (`Tool#evalAppl`). */
function temporalText(
  e: Extract<Expr, { kind: 'Fair' | 'Always' | 'Eventually' | 'LeadsTo' | 'TemporalQuant' }>,
): string {
  switch (e.kind) {
    case 'Fair':
      return e.strong ? 'SF' : 'WF';
    case 'Always':
      return '[]A';
    case 'Eventually':
      return '<>A';
    case 'LeadsTo':
      return 'a ~> b';
    case 'TemporalQuant':
      return e.forall ? '\\AA' : '\\EE';
  }
}

/**
 * TLC's error for a temporal formula met while evaluating a predicate or action
 * (TLC_ENCOUNTERED_FORMULA_IN_PREDICATE): it has no exit status of its own, so 255.
 */
function temporalInPredicate(what: string, e: Expr): EvalError {
  return new EvalError(
    `TLC encountered a temporal formula (${what}) when evaluating a predicate or action.\n${locText(e)}`,
    255,
  );
}

/** Operators that the action compiler treats as guards even when a user module redefines nothing. */
/** Whether e names any of these (bound names inside e not told apart: a cautious yes). */
function mentions(e: Expr, names: readonly string[]): boolean {
  if (names.length === 0) return false;
  if ((e.kind === 'Ident' || e.kind === 'OpApp') && names.includes(e.name)) return true;
  let found = false;
  forEachChild(e, (x) => (found ||= mentions(x, names)));
  return found;
}

const BUILTIN_SYNTAX = new Set(['=', '/=', '#', '\\in', '\\notin', '~', '=>', '<=>', '\\equiv', '\\X']);

/** Builtins whose value changes from call to call, so definitions using them are not cached. */
const NONDETERMINISTIC = new Set(['RandomElement', 'TLCGet', 'JavaTime', 'Print', 'PrintT', 'TLCSet']);

/**
 * Builtins that read the checker's registers or the outside world, or have effects: a constant
 * definition using them is computed once (as TLC does), but a subexpression is not (nor is an
 * invariant's conjunct using them taken over from a predecessor, see eval/reads.ts).
 */
export const NOT_HOISTED_BUILTINS: ReadonlySet<string> = new Set([
  ...NONDETERMINISTIC,
  'AssertEq',
  'TLCGetOrDefault',
  'TLCGetAndSet',
  'IOEnv',
  'Serialize',
  'Deserialize',
  'JsonSerialize',
  'JsonDeserialize',
  'ndJsonSerialize',
  'ndJsonDeserialize',
]);

/** Expressions not worth computing once: literals and names (a constant's value is at hand already). */
const NOT_HOISTED = new Set<Expr['kind']>(['Num', 'Str', 'Bool', 'Ident', 'At', 'Lambda', 'Label']);

/** The values of the closures, in order. */
function valuesOf(cls: readonly Closure[], c: Ctx): Value[] {
  const vals = new Array<Value>(cls.length);
  for (let i = 0; i < cls.length; i++) vals[i] = cls[i]!(c);
  return vals;
}

function snapshot(c: Ctx): Ctx {
  return { s: c.s, t: c.t, f: snapshotFrame(c.f) };
}

function pathKey(p: ExceptPathItem, compile: (e: Expr) => Closure): (c: Ctx) => Value {
  if (p.kind === 'field') {
    const name = p.name;
    return () => name;
  }
  const args = p.args.map(compile);
  if (args.length === 1) return args[0]!;
  return (c) => new Tuple(valuesOf(args, c));
}

export function applyFcn(f: Value, arg: Value, e: Expr): Value {
  if (typeof f === 'object' && f.kind === Kind.Fcn) {
    const v = f.get(arg);
    if (v !== undefined) return v;
    throw new EvalError(
      `Attempted to apply function:\n${show(f)}\nto argument ${show(arg)}, which is not in the domain of the function.`,
    );
  }
  throw new EvalError(
    `Attempted to apply ${show(f)}, which is not a function, to argument ${show(arg)} at ${locText(e)}.`,
  );
}

export { locText };
