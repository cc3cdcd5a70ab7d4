/**
 * Value mode: expressions compiled to closures computing their values.
 */
import type { Bound, Expr, ExceptPathItem } from '../../syntax/ast.js';
import {
  EMPTY_SET,
  FcnValue,
  FiniteSet,
  InfiniteSet,
  IntervalSet,
  Kind,
  LazyFcn,
  LazySet,
  Record,
  Tuple,
  compareStrings,
  equals,
  fcnOf,
  setOf,
  show,
  type Value,
} from '../../values/value.js';
import { EvalError } from '../../values/errors.js';
import { TlaError } from '../../errors.js';
import { Scope, type Sym } from '../scope.js';
import { snapshotFrame, type Closure, type Ctx } from '../runtime.js';
import { exceptAt, fcnSetOf, recordSetOf } from '../sets.js';
import { locText, locate, located, boolOf, asSet, temporalInPredicate, temporalText } from './support.js';
import { CallCompiler, variableValue } from './calls.js';

const STOP = Symbol('stop');

/**
 * Calls fn for each binding of the bounds, slot by slot; stops early when fn returns false (and
 * then returns false).
 */
type Binder = (c: Ctx, fn: (c: Ctx) => boolean | void) => boolean;

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

/** f applied to arg, as TLC reports an argument outside the domain or a value that is no function. */
function applyFcn(f: Value, arg: Value, e: Expr): Value {
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

export abstract class ValueCompiler extends CallCompiler {
  expr(e: Expr, scope: Scope): Closure {
    if (this.hoisting || NOT_HOISTED.has(e.kind) || !this.isConstantExpr(e, scope, new Set(), true))
      return this.exprNode(e, scope);
    // A constant subexpression (`x \in [S -> T]`, `Seq(R)`, `{"a", "b"}`): computed on first use.
    const cl = this.withFlag('hoisting', true, () => this.exprNode(e, scope));
    let cached: Value | undefined;
    return (c) => (cached ??= cl(c));
  }

  protected exprNode(e: Expr, scope: Scope): Closure {
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
          this.uncounted++;
          try {
            act({ s: c.s, t: new Array(n), f: c.f }, () => {
              throw STOP;
            });
          } catch (err) {
            if (err === STOP) return true;
            throw err;
          } finally {
            this.uncounted--;
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

  protected quant(e: Expr & { kind: 'Quant' }, scope: Scope): Closure {
    const { forall, bounds, body: bodyExpr } = e;
    const inner = scope.block();
    const binder = this.binder(bounds, inner, e);
    const body = this.expr(bodyExpr, inner);
    // Goes on while the body is true for \A, false for \E.
    const goOn = (c: Ctx): boolean => boolOf(body(c), bodyExpr) === forall;
    return (c) => (binder(c, goOn) ? forall : !forall);
  }

  protected choose(e: Expr & { kind: 'Choose' }, scope: Scope): Closure {
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

  protected setFilter(e: Expr & { kind: 'SetFilter' }, scope: Scope): Closure {
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

  protected fcnLit(e: Expr & { kind: 'FcnLit' }, scope: Scope): Closure {
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
  protected recLit(e: Expr & { kind: 'RecLit' }, scope: Scope): Closure {
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

  protected fcnApp(e: Expr & { kind: 'FcnApp' }, scope: Scope): Closure {
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

  protected except(e: Expr & { kind: 'Except' }, scope: Scope): Closure {
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
}
