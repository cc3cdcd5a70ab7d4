/**
 * Name resolution, and the modes the compiler runs in.
 */
import { locationText, type Expr } from '../../syntax/ast.js';
import { SanyError, TlaError } from '../../errors.js';
import { semanticErrorReport } from '../../syntax/sany.js';
import type { BuiltinHost } from '../builtin.js';
import { CORE } from '../../stdlib/core.js';
import { DefHandle, ModInst, Scope, type Sym } from '../scope.js';
import { ArgRef, Frame, walkUp, type Ctx } from '../runtime.js';
import type { ModuleLoader } from '../../modules/loader.js';
import { locText, TEMPORAL_OPERATORS, temporalInPredicate } from './support.js';

export class NameResolver {
  /** Whether the expression being compiled is computed once (its parts need not be). */
  protected hoisting = false;

  /** Whether the actions being compiled name themselves in currentAction as they run. */
  protected labelling = false;

  /**
   * How many evaluations are under way whose `\cdot` steps are not counted as generated (the first
   * action of a composition, ENABLED, a composition as a predicate); see composedStates.
   */
  protected uncounted = 0;

  constructor(
    readonly loader: ModuleLoader,
    readonly host: BuiltinHost,
    readonly varNames: readonly string[],
  ) {}

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
  protected up(from: number, level: number): (f: Frame) => Frame {
    const hops = from - level;
    if (hops === 0) return (f) => f;
    if (hops === 1) return (f) => f.parent!;
    return (f) => walkUp(f, hops);
  }

  /** The frame of h's scope, from a closure running in `scope`. */
  protected parentOf(h: DefHandle, scope: Scope): (c: Ctx) => Frame {
    const up = this.up(scope.level, h.scope.level);
    return (c) => up(c.f);
  }

  /** The definitions LAMBDAs substituted for operator constants act as, one per LAMBDA. */
  protected readonly lambdaDefs = new Map<Expr, DefHandle>();

  /** Compiles with one of the compiler's modes set, restored afterwards. */
  protected withFlag<T>(flag: 'hoisting' | 'labelling', value: boolean, compile: () => T): T {
    const saved = this[flag];
    this[flag] = value;
    try {
      return compile();
    } finally {
      this[flag] = saved;
    }
  }

  /**
   * An operator constant of an instance replaced by an operator of the instantiator: a name, or a
   * LAMBDA, which acts as a definition of the instantiator's scope (`WITH Op <- LAMBDA n : n + 1`).
   */
  protected substOperator(sym: Sym & { k: 'subst' }, e: Expr): Sym {
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

  /**
   * Resolves `A!B!Op`: the module instance reached and the frame its definitions need. An instance
   * with parameters, `C(z)!Op`, is made for this call site: its parameters stand for the argument
   * expressions, so its definitions live at the caller's level and run in the caller's frame.
   */
  protected instancePath(
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

  /**
   * The state variable a name stands for, through INSTANCE substitutions (`val <- x`) and
   * definitions that only rename (`yy == y`, `LET v == x IN ...`).
   */
  protected variableOf(name: string, scope: Scope): (Sym & { k: 'var' }) | undefined {
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
  protected variableIndex(name: string, scope: Scope): ((c: Ctx) => number | undefined) | undefined {
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

  /**
   * The variable an unprimed assignment target stands for primed, as TLC's `Tool#getPrimedVar` looks
   * through names: a parameter passed `x'` (`F(v) == v \in S` called as `F(x')`), or a definition or
   * LET definition without parameters whose body is `x'`.
   */
  protected primedVariableIndex(name: string, scope: Scope): ((c: Ctx) => number | undefined) | undefined {
    const sym = scope.lookup(name);
    if (sym?.k === 'slot' && sym.mode === 'byname') {
      const up = this.up(scope.level, sym.level);
      const slot = sym.slot;
      return (c) => (up(c.f).v[slot] as ArgRef).primedVarIndex;
    }
    const body =
      sym?.k === 'def' && sym.h.arity === 0 && sym.h.def.kind === 'OpDef'
        ? { expr: sym.h.def.body, scope: sym.h.scope }
        : sym?.k === 'slot'
          ? sym.letDef
          : undefined;
    if (body?.expr.kind !== 'Prime' || body.expr.expr.kind !== 'Ident') return undefined;
    const v = this.variableOf(body.expr.expr.name, body.scope);
    if (!v) return undefined;
    const i = v.index;
    return () => i;
  }
}
