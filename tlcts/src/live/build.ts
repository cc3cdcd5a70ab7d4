/**
 * Temporal formulas of the specification and its properties turned into `Live` formulas, as TLC's
 * `Liveness#astToLive` does: definitions, LETs and instances are expanded, bounded quantifiers over
 * temporal formulas are enumerated (their bounds evaluated before any state is known), WF/SF and
 * ~> are rewritten into [], <> and ENABLED, and every maximal sub-expression of constant, state or
 * action level becomes one predicate (atom). What TLC cannot handle is refused with its location.
 */
import type { Expr } from '../syntax/ast.js';
import { TlaError } from '../errors.js';
import { EvalError } from '../values/errors.js';
import { equals, show as showValue, type Value } from '../values/value.js';
import type { Compiler } from '../eval/compiler.js';
import { locText } from '../eval/compile/support.js';
import { Frame, walkUp, type Closure } from '../eval/runtime.js';
import type { DefHandle, Scope, Sym } from '../eval/scope.js';
import type { ModuleLoader } from '../modules/loader.js';
import { ACTION, CONSTANT, STATE, TEMPORAL, type Levels } from './level.js';
import { FALSE, TRUE, always, and2, conj, disj, even, neg, or2, type Atom, type Live } from './formula.js';

/** Where names resolve while a formula is built: a scope, the frame it runs in, and by-name parameter levels. */
export interface Env {
  readonly scope: Scope;
  readonly frame: Frame;
  readonly slots: ReadonlyMap<Sym, number>;
}

/** Expansions of temporal definitions deeper than this are refused (a recursive temporal operator). */
const MAX_DEPTH = 100;

export class LiveBuilder {
  readonly atoms: Atom[] = [];
  private readonly compiled = new Map<Expr, Map<Scope, { size: () => number; cl: Closure }>>();
  private readonly quantScopes = new Map<
    Expr,
    Map<Scope, { inner: Scope; binder: ReturnType<Compiler['binder']> }>
  >();
  private readonly defScopes = new Map<DefHandle, Scope>();
  /** `<<A>>_v` and `ENABLED <<A>>_v` of each WF/SF, made once so that they compile once per scope. */
  private readonly fairParts = new Map<Expr, { step: Expr; enabled: Expr }>();

  constructor(
    private readonly compiler: Compiler,
    private readonly levels: Levels,
    private readonly loader: ModuleLoader,
  ) {}

  /** The formula of e (TLC's astToLive). */
  build(e: Expr, env: Env, depth = 0): Live {
    const l = this.levels.of(e, env.scope, env.slots);
    if (l <= ACTION) return this.atomic(e, env, l);
    const sub = (x: Expr, inner: Env = env) => this.build(x, inner, depth);
    switch (e.kind) {
      case 'Label':
        return sub(e.expr);
      case 'Let': {
        const { inner, bind } = this.compiler.letScope(e, env.scope);
        bind?.({ s: null, t: null, f: env.frame });
        return sub(e.body, { ...env, scope: inner });
      }
      case 'And':
        return conj(e.items.map((x) => sub(x)));
      case 'Or':
        return disj(e.items.map((x) => sub(x)));
      case 'If': {
        const guard = sub(e.cond);
        // A constant guard picks its branch; the other one would simplify away.
        if (guard.k === 'bool') return sub(guard.b ? e.then : e.else);
        return or2(and2(guard, sub(e.then)), and2(neg(guard), sub(e.else)));
      }
      case 'Always':
        return always(sub(e.expr));
      case 'Eventually':
        return even(sub(e.expr));
      case 'LeadsTo':
        // P ~> Q is [](~P \/ <>Q).
        return always(or2(neg(sub(e.lhs)), even(sub(e.rhs))));
      case 'Fair': {
        let parts = this.fairParts.get(e);
        if (!parts) {
          const step: Expr = { kind: 'StepExpr', box: false, action: e.action, sub: e.sub, loc: e.loc };
          this.fairParts.set(e, (parts = { step, enabled: { kind: 'Enabled', expr: step, loc: e.loc } }));
        }
        const enabled = this.atom(parts.enabled, env, STATE);
        const step = this.atom(parts.step, env, ACTION);
        // WF_v(A) is []<>(~ENABLED <<A>>_v \/ <<A>>_v); SF_v(A) is <>[]~ENABLED <<A>>_v \/ []<><<A>>_v.
        return e.strong
          ? or2(even(always(neg(enabled))), always(even(step)))
          : always(even(or2(neg(enabled), step)));
      }
      case 'Quant':
        return this.quantifier(e, env, depth);
      case 'OpApp':
        if (e.name === '~') return neg(sub(e.args[0]!));
        if (e.name === '=>') return or2(neg(sub(e.args[0]!)), sub(e.args[1]!));
        return this.call(e, e.name, e.args, env, depth);
      case 'Ident':
        return this.call(e, e.name, [], env, depth);
      case 'Prefixed':
        return this.prefixed(e, env, depth);
      case 'TemporalQuant':
        throw cannot(e, `the temporal quantifier ${e.forall ? '\\AA' : '\\EE'}`);
      default:
        throw cannot(e);
    }
  }

  /** A formula without temporal operators: a constant, or a state or action predicate. */
  private atomic(e: Expr, env: Env, l: number): Live {
    if (l !== CONSTANT) return this.atom(e, env, l);
    const v = this.closure(e, env)(null, null);
    if (typeof v !== 'boolean')
      throw new EvalError(
        `TLC expected a boolean value, but did not find one. ${locText(e)}: ${showValue(v)}`,
      );
    return v ? TRUE : FALSE;
  }

  private atom(e: Expr, env: Env, l: number): Live {
    const cl = this.closure(e, env);
    const where = locText(e);
    const message =
      l === STATE
        ? `A state predicate was evaluated to a non-boolean value.\n${where}`
        : `Encountered an action predicate that's not a boolean.\n${where}`;
    const atom: Atom = {
      id: this.atoms.length,
      eval: (s, t) => {
        const v = cl(s, t);
        if (typeof v !== 'boolean') throw new EvalError(message);
        return v;
      },
    };
    this.atoms.push(atom);
    return l === STATE ? { k: 'state', atom } : { k: 'action', atom };
  }

  /**
   * e compiled once per scope, run in a frame below env's (one frame per atom: an atom is never
   * evaluated inside its own evaluation). `<<A>>_v` checks that v changes before it evaluates A, as
   * TLC's `LNAction` does.
   */
  private closure(e: Expr, env: Env): (s: Value[] | null, t: Value[] | null) => Value {
    if (e.kind === 'StepExpr' && !e.box) {
      const action = this.closure(e.action, env);
      const vars = variablesOf(e.sub, env.scope);
      if (vars) {
        // v is a variable or a tuple of them: v changes iff one of them does.
        return (s, t) => vars.some((i) => !equals(s![i]!, t![i]!)) && action(s, t);
      }
      const sub = this.closure(e.sub, env);
      return (s, t) => !equals(sub(t, null), sub(s, null)) && action(s, t);
    }
    const { size, cl } = cached(this.compiled, e, env.scope, () => {
      const sc = env.scope.newFrame();
      return { size: () => sc.frame.size, cl: this.compiler.expr(e, sc) };
    });
    const parent = env.frame;
    let frame: Frame | undefined;
    return (s, t) => cl({ s, t, f: (frame ??= new Frame(size(), parent)) });
  }

  /** `\A x \in S : F` / `\E x \in S : F` with F temporal: the conjunction/disjunction over S. */
  private quantifier(e: Expr & { kind: 'Quant' }, env: Env, depth: number): Live {
    if (e.bounds.some((b) => !b.set)) throw cannot(e, 'an unbounded quantifier over a temporal formula');
    const { inner, binder } = cached(this.quantScopes, e, env.scope, () => {
      const sc = env.scope.newFrame();
      return { inner: sc, binder: this.compiler.binder(e.bounds, sc, e) };
    });
    const frame = new Frame(inner.frame.size, env.frame);
    const bindings: Frame[] = [];
    try {
      binder({ s: null, t: null, f: frame }, () => {
        const copy = new Frame(frame.v.length, env.frame);
        for (let i = 0; i < frame.v.length; i++) copy.v[i] = frame.v[i];
        bindings.push(copy);
      });
    } catch (err) {
      if (!(err instanceof EvalError)) throw err;
      throw cannot(e, `its bound cannot be evaluated before the behaviour starts (${err.message})`);
    }
    const kids = bindings.map((f) => this.build(e.body, { scope: inner, frame: f, slots: env.slots }, depth));
    if (kids.length === 0) return e.forall ? TRUE : FALSE;
    return e.forall ? conj(kids) : disj(kids);
  }

  /** A user-defined operator (or an instance's constant replaced by an expression) with a temporal body. */
  private call(e: Expr, name: string, args: Expr[], env: Env, depth: number): Live {
    const sym = env.scope.lookup(name);
    if (sym?.k === 'def' && sym.h.def.kind === 'OpDef') return this.expand(e, sym.h, args, env, depth);
    if (sym?.k === 'subst' && args.length === 0) {
      return this.build(sym.expr, this.envAt(sym.scope, env), depth);
    }
    throw cannot(e, sym?.k === 'slot' ? `a temporal formula passed as the argument ${name}` : undefined);
  }

  private prefixed(e: Expr & { kind: 'Prefixed' }, env: Env, depth: number): Live {
    let lookup = env.scope;
    for (const step of e.path) {
      const s = lookup.lookup(step.name);
      if (s?.k !== 'instance') throw cannot(e);
      if (step.args.length > 0) {
        // A parameterized instance is made per call site; TLC expands it in the model's own scope.
        if (env.scope.level !== 1) throw cannot(e, 'a parameterized instance inside a temporal operator');
        lookup = this.loader.instantiateAt(s.def, s.scope, step, env.scope).inst.top;
      } else lookup = this.loader.instantiate(s.def, s.scope).inst.top;
    }
    const target = lookup.inst.names.get(e.name);
    if (target?.k !== 'def' || target.h.def.kind !== 'OpDef') throw cannot(e);
    return this.expand(e, target.h, e.args, env, depth);
  }

  /** The body of h with its parameters bound to the arguments, by name. */
  private expand(e: Expr, h: DefHandle, args: Expr[], env: Env, depth: number): Live {
    if (depth >= MAX_DEPTH) throw cannot(e, `${h.name} is expanded more than ${MAX_DEPTH} times (recursion)`);
    const def = h.def as Extract<DefHandle['def'], { kind: 'OpDef' }>;
    if (def.params.length !== args.length) {
      throw new TlaError(
        `Operator ${h.name} takes ${def.params.length} arguments but is given ${args.length} at ${locText(e)}.`,
      );
    }
    let inner = this.defScopes.get(h);
    if (!inner) {
      inner = h.scope.newFrame();
      for (const p of def.params) inner.bindSlot(p.name, p.arity > 0 ? 'op' : 'byname', p.arity);
      this.defScopes.set(h, inner);
    }
    const frame = new Frame(inner.frame.size, walkUp(env.frame, env.scope.level - h.scope.level));
    const slots = new Map(env.slots);
    const caller = { s: null, t: null, f: env.frame };
    def.params.forEach((p, i) => {
      const a = args[i]!;
      if (p.arity > 0) {
        frame.v[i] = this.compiler.opArg(a, env.scope)(caller);
        return;
      }
      const level = this.levels.of(a, env.scope, env.slots);
      slots.set(inner!.lookup(p.name)!, level);
      // A temporal argument has no value; the body cannot use it (TLC refuses it, see call).
      if (level < TEMPORAL) frame.v[i] = this.compiler.argRef(a, env.scope)(caller);
    });
    return this.build(def.body, { scope: inner, frame, slots }, depth + 1);
  }

  /** The environment of a scope that encloses env's (a definition's or an instance's). */
  private envAt(scope: Scope, env: Env): Env {
    return { scope, frame: walkUp(env.frame, env.scope.level - scope.level), slots: env.slots };
  }
}

/** What is made for e in scope, on first use. */
function cached<V>(cache: Map<Expr, Map<Scope, V>>, e: Expr, scope: Scope, make: () => V): V {
  let byScope = cache.get(e);
  if (!byScope) cache.set(e, (byScope = new Map()));
  let v = byScope.get(scope);
  if (v === undefined) byScope.set(scope, (v = make()));
  return v;
}

/** The indexes of the variables e is made of, when it is a variable or a (named) tuple of them. */
function variablesOf(e: Expr, scope: Scope): number[] | undefined {
  if (e.kind === 'Tuple') {
    const parts = e.elems.map((x) => variablesOf(x, scope));
    return parts.every((p) => p !== undefined) ? parts.flat() : undefined;
  }
  if (e.kind !== 'Ident') return undefined;
  const sym = scope.lookup(e.name);
  if (sym?.k === 'var') return [sym.index];
  if (sym?.k === 'def' && sym.h.def.kind === 'OpDef' && sym.h.arity === 0)
    return variablesOf(sym.h.def.body, sym.h.scope);
  return undefined;
}

function cannot(e: Expr, why?: string): TlaError {
  return new TlaError(`TLC cannot handle the temporal formula ${locText(e)}${why ? `: ${why}` : ''}.`, 255);
}
