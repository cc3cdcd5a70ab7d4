/**
 * Action mode: actions compiled to closures enumerating the ways they can be taken.
 */
import type { Expr, Loc, OpDef } from '../../syntax/ast.js';
import { forEachChild } from '../../syntax/walk.js';
import { equals, type Value } from '../../values/value.js';
import { EvalError } from '../../values/errors.js';
import { TlaError } from '../../errors.js';
import { DefHandle, Scope, type Sym } from '../scope.js';
import { ArgRef, Frame, copyFrame, type ActClosure, type Closure, type Cont, type Ctx } from '../runtime.js';
import { locText, located, boolOf, asSet, stateChanged, markSplitConstant } from './support.js';
import { ValueCompiler } from './value-mode.js';

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
    stateChanged();
    try {
      k();
    } finally {
      t[i] = undefined as unknown as Value;
      stateChanged();
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
          stateChanged();
        } else if (!equals(cur, s[i]!)) return;
      }
      k();
    } finally {
      for (let j = 0; assigned !== 0; j++, assigned >>>= 1) {
        if (assigned & 1) t[vars[j]!] = undefined as unknown as Value;
      }
      stateChanged();
    }
  };
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

export class ActionCompiler extends ValueCompiler {
  /** The action entered last through a split point of Next, in actions compiled withLabels. */
  currentAction: ActionLabel | null = null;
  /**
   * The intermediate states `A \cdot B` steps went through, which TLC counts as generated
   * (`Tool#getNextStatesApplSwitch`: those of an outermost composition only).
   */
  composedStates = 0;

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
  protected leadingConstantGuard(e: Expr, scope: Scope): { e: Expr; scope: Scope } | undefined {
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
  protected splits(e: Expr, scope: Scope, init: boolean): boolean {
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

  protected actNode(e: Expr, scope: Scope, init: boolean, top: boolean): ActClosure {
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
        if (sym.k === 'builtin' && e.name === '\\cdot' && args.length === 2 && !init)
          return this.composition(args[0]!, args[1]!, scope);
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

  /**
   * `A \cdot B` as TLC takes its steps (`Tool#getNextStatesApplSwitch`, enabled by its property
   * tlc2.tool.impl.Tool.cdot): the states A reaches from the primed values bound so far, then B's
   * steps from each of them, taken from the state before; the intermediate states count as generated.
   */
  private composition(a: Expr, b: Expr, scope: Scope): ActClosure {
    const first = this.act(a, scope, false, false);
    const second = this.act(b, scope, false, false);
    return (c, k) => {
      const counted = this.uncounted === 0;
      const middles = this.reached(first, c, c.t!.slice());
      if (counted) this.composedStates += middles.length;
      for (const m of middles) second({ s: m, t: c.t, f: c.f }, k);
    };
  }

  /**
   * `A \cdot B` on a step from s to t (`Tool#evalApplImpl`): some state A reaches from s, from
   * nothing bound, with B true of the step from it to t.
   */
  protected compositionValue(a: Expr, b: Expr, scope: Scope): Closure {
    const first = this.act(a, scope, false, false);
    const second = this.expr(b, scope);
    const n = this.varNames.length;
    return (c) => {
      const middles = this.reached(first, c, new Array<Value>(n));
      return middles.some((m) => boolOf(second({ s: m, t: c.t, f: c.f }), b));
    };
  }

  /** The states the first action of a composition reaches from c.s, starting from `middle`. */
  private reached(first: ActClosure, c: Ctx, middle: Value[]): Value[][] {
    const middles: Value[][] = [];
    this.uncounted++;
    try {
      first({ s: c.s, t: middle, f: c.f }, () => middles.push(middle.slice()));
    } finally {
      this.uncounted--;
    }
    return middles;
  }

  /** `x' = e` / `x' \in S` (or `x = e` / `x \in S` in Init) when x is a variable. */
  protected assignment(e: Expr, scope: Scope, init: boolean): ActClosure | undefined {
    if (e.kind !== 'OpApp' || (e.name !== '=' && e.name !== '\\in') || e.args.length !== 2) return undefined;
    let lhs = e.args[0]!;
    let index: ((c: Ctx) => number | undefined) | undefined;
    if (!init && lhs.kind === 'Ident') index = this.primedVariableIndex(lhs.name, scope);
    else {
      if (!init) {
        if (lhs.kind !== 'Prime') return undefined;
        lhs = lhs.expr;
      }
      if (lhs.kind !== 'Ident') return undefined;
      index = this.variableIndex(lhs.name, scope);
    }
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
          stateChanged();
          k();
        });
      } finally {
        t[i] = undefined as unknown as Value;
        stateChanged();
      }
    };
  }

  protected unchanged(e: Expr, scope: Scope): ActClosure {
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
  protected unchangedVars(e: Expr, scope: Scope): number[] | undefined {
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
  protected actCall(
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
  protected frameRunner(
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
