/** Name resolution: module instances (module-level names) and lexical scopes (frame slots). */
import type { Expr, FcnDef, InstanceDef, ModuleAst, OpDef } from '../syntax/ast.js';
import type { Builtin } from './builtin.js';
import type { ActClosure, Closure } from './runtime.js';
import type { Value } from '../values/value.js';

/** How a bound name is held in its frame slot. */
export type SlotMode =
  /** the value itself */
  | 'value'
  /** an ArgRef: an argument passed by name */
  | 'byname'
  /** a LetThunk: a zero-argument LET definition */
  | 'thunk'
  /** an OpValue: an operator parameter or LAMBDA */
  | 'op';

export type Sym =
  | { k: 'var'; index: number; name: string }
  | { k: 'const'; value: Value; name: string }
  | { k: 'def'; h: DefHandle }
  | { k: 'builtin'; b: Builtin; name: string }
  /** A constant or variable of an instantiated module, replaced by an expression of the instantiator. */
  | { k: 'subst'; expr: Expr; scope: Scope; name: string }
  | { k: 'instance'; def: InstanceDef; scope: Scope }
  | {
      k: 'slot';
      level: number;
      slot: number;
      mode: SlotMode;
      arity: number;
      name: string;
      /** Bound by a split point of Next: holds a constant while Next is split (as in TLC). */
      splitConstant?: boolean;
      /** A zero-argument LET definition: its expression, usable as an action. */
      letDef?: { expr: Expr; scope: Scope };
    };

/** One instantiation of a module: the names visible at its top level. */
export class ModInst {
  readonly names = new Map<string, Sym>();
  /** The scope of this instance's top-level definitions. */
  readonly top: Scope;
  constructor(
    readonly module: ModuleAst,
    /** Static frame level at which this instance's definitions live (0, or deeper for `I(p) == INSTANCE`). */
    readonly level: number,
  ) {
    this.top = new Scope(this, level, new FrameInfo(), null);
  }
}

export interface Compiled<T> {
  size: number;
  body: T;
}

/** A definition together with where it was defined; compiled on first use. */
export class DefHandle {
  value?: Compiled<Closure>;
  /** The value of a module-level constant definition, once computed. */
  constantValue?: Value;
  readonly acts = new Map<string, Compiled<ActClosure>>();
  /** For each parameter: passed by name (true) or by value (false). */
  byName?: boolean[];
  /** For each parameter: whether the body takes it as an action (or passes it on by name). */
  actionParams?: boolean[];
  constant?: boolean;
  constantBody?: boolean;
  /** Whether the body is constant in isConstantExpr's strict sense (its results can be kept). */
  strictConstantBody?: boolean;
  /** The number of nodes of the body (see Compiler's inlining). */
  size?: number;
  constructor(
    readonly def: OpDef | FcnDef,
    /** The scope the definition sits in (its module instance, plus enclosing LETs). */
    readonly scope: Scope,
  ) {}
  get name(): string {
    return this.def.name;
  }
  get arity(): number {
    return this.def.kind === 'OpDef' ? this.def.params.length : 0;
  }
}

/** Static information about one runtime frame: how many slots it needs. */
export class FrameInfo {
  size = 0;
  alloc(): number {
    return this.size++;
  }
}

/** A lexical scope: names bound in frame slots, then the module instance. */
export class Scope {
  private readonly local = new Map<string, Sym>();
  constructor(
    readonly inst: ModInst,
    readonly level: number,
    readonly frame: FrameInfo,
    readonly parent: Scope | null,
  ) {}

  /** A nested block in the same frame (quantifier, LET). */
  block(): Scope {
    return new Scope(this.inst, this.level, this.frame, this);
  }

  /** The body scope of a definition made here: a new frame one level down. */
  newFrame(): Scope {
    return new Scope(this.inst, this.level + 1, new FrameInfo(), this);
  }

  bindSlot(name: string, mode: SlotMode = 'value', arity = 0): Sym & { k: 'slot' } {
    const sym = { k: 'slot' as const, level: this.level, slot: this.frame.alloc(), mode, arity, name };
    this.local.set(name, sym);
    return sym;
  }

  bind(name: string, sym: Sym): void {
    this.local.set(name, sym);
  }

  lookup(name: string): Sym | undefined {
    for (let s: Scope | null = this; s; s = s.parent) {
      const hit = s.local.get(name);
      if (hit) return hit;
    }
    return this.inst.names.get(name);
  }
}
