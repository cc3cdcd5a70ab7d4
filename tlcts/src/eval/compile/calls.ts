/**
 * Definitions and calls: operator definitions compiled, inlined at a call site or run in frames of
 * their own, and applications of operators, builtins, LET definitions and instances' operators.
 */
import type { Bound, Expr, FcnDef, OpDef, Unit } from '../../syntax/ast.js';
import { forEachChild } from '../../syntax/walk.js';
import { FcnValue, LazyFcn, ModelValue, SetValue, equals, type Value } from '../../values/value.js';
import { EvalError } from '../../values/errors.js';
import { TlaError } from '../../errors.js';
import type { Builtin } from '../builtin.js';
import { DefHandle, Scope, type Sym } from '../scope.js';
import {
  ArgRef,
  Frame,
  LetThunk,
  snapshotFrame,
  type ActClosure,
  type Closure,
  type Ctx,
  type OpValue,
} from '../runtime.js';
import { productOf } from '../sets.js';
import {
  locText,
  locate,
  located,
  boolOf,
  asSet,
  stateVersion,
  markSplitConstant,
  NONDETERMINISTIC,
} from './support.js';
import { ConstantAnalysis } from './constants.js';

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
export function variableValue(sym: Sym & { k: 'var' }, primed: boolean): Closure {
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

/** Operators of steps and behaviours, which SANY lets a spec pass as operator arguments. */
const STEP_OPERATORS = new Set(["'", 'UNCHANGED', 'ENABLED', '[]', '<>']);

export abstract class CallCompiler extends ConstantAnalysis {
  /** The value of e (value mode, value-mode.ts). */
  abstract expr(e: Expr, scope: Scope): Closure;
  /** The action e (action mode, action-mode.ts), for arguments taken as actions. */
  abstract act(e: Expr, scope: Scope, init: boolean, top: boolean): ActClosure;
  /** `UNCHANGED e` as an action (action mode). */
  protected abstract unchanged(e: Expr, scope: Scope): ActClosure;
  /** `A \cdot B` as a predicate on a step (action mode). */
  protected abstract compositionValue(a: Expr, b: Expr, scope: Scope): Closure;

  /** Definitions whose body is being compiled: a call met inside one is recursive, not inlined. */
  protected readonly compilingDefs = new Set<DefHandle>();

  /** How many expression nodes have been inlined so far (each call site gets its own copy). */
  protected inlinedNodes = 0;

  /** Compiles (a copy of) h's body; calls of h met meanwhile are recursive. */
  protected compiling<T>(h: DefHandle, compile: () => T): T {
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
  protected inline<T>(
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
  protected fcnDefValue(def: FcnDef, defScope: Scope): Closure {
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

  protected slotRead(sym: Sym & { k: 'slot' }, scope: Scope): Closure {
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

  protected ident(e: Expr & { kind: 'Ident' }, scope: Scope): Closure {
    const sym = this.resolve(e.name, scope, e);
    return this.symValue(sym, e, scope, []);
  }

  /** The value of `name(args)` where name resolved to sym. */
  protected symValue(sym: Sym, e: Expr, scope: Scope, args: Expr[]): Closure {
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

  protected callDef(h: DefHandle, e: Expr, scope: Scope, args: Expr[], parent: (f: Frame) => Frame): Closure {
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
        // A module-level one is computed once for the run, as TLC pre-evaluates it (so a
        // RandomElement or Print in it is drawn or printed once); others once per call site.
        if (h.scope === h.scope.inst.top && h.scope.level === 0)
          return (c) => (h.constantValue ??= run({ s: null, t: null, f: c.f }));
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
  protected argFillers(
    h: DefHandle,
    args: Expr[],
    scope: Scope,
    byValue?: boolean[],
  ): ((c: Ctx) => unknown)[] {
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
  protected isStateless(a: Expr, scope: Scope): boolean {
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
    const primedIndex =
      a.kind === 'Prime' && a.expr.kind === 'Ident' ? this.variableOf(a.expr.name, scope)?.index : undefined;
    return (c: Ctx): ArgRef => new ArgRef(fn, lazyAct, lazyUnchanged, varIndex, primedIndex, c.f);
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
    if (a.kind === 'Ident' && STEP_OPERATORS.has(a.name)) {
      throw new TlaError(
        `unsupported: the operator ${a.name} passed as an operator argument at ${locText(a)}`,
        255,
      );
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

  protected builtinCall(b: Builtin, name: string, e: Expr, scope: Scope, args: Expr[]): Closure {
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

  protected opApp(e: Expr & { kind: 'OpApp' }, scope: Scope): Closure {
    const args = e.args;
    if (e.name === '\\cdot' && args.length === 2 && this.resolve(e.name, scope, e).k === 'builtin')
      return this.compositionValue(args[0]!, args[1]!, scope);
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

  protected prefixed(e: Expr & { kind: 'Prefixed' }, scope: Scope): Closure {
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

  protected bindLetDef(d: Unit, scope: Scope, pending: { slot: number; def: OpDef | FcnDef }[]): void {
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

  /** Compiles a definition's body on its own: hoisting inside it does not depend on the call site. */
  protected compileBody<T>(compile: () => T): T {
    return this.withFlag('hoisting', false, compile);
  }

  /** The domain set of `[x \in S, y \in T |-> e]` and how to bind an argument to the names. */
  protected fcnDomain(
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
}
