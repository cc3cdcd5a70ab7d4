/** A TLC model configuration (.cfg), as parsed, before it is bound to a module. */
import { TlaError } from '../errors.js';

/**
 * A constant value written in a .cfg: TLC accepts integers, strings, booleans, model values and sets of them.
 * TLC's cfg syntax has no tuples; parseCfg never produces 'tuple'.
 */
export type CfgValue =
  | { kind: 'int'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'bool'; value: boolean }
  /** A bare identifier on the right of `=`: a model value (TLC makes `p1` in `Procs = {p1, p2}` a model value). */
  | { kind: 'modelValue'; name: string }
  | { kind: 'set'; elements: CfgValue[] }
  | { kind: 'tuple'; elements: CfgValue[] };

export interface CfgLocation {
  line: number;
  column: number;
}

export type CfgConstant =
  /** `C = value`; `C = C` (same name) binds C to a model value named C. */
  | { kind: 'value'; name: string; value: CfgValue; loc: CfgLocation }
  /** `Op(a, b) = value`: TLC defines Op at these arguments only (one entry per argument list). */
  | { kind: 'operatorValue'; name: string; args: CfgValue[]; value: CfgValue; loc: CfgLocation }
  /** `C = [Mod] value` or `Op(a) = [Mod] value`: applies only inside module Mod; `args` is empty for `C`. */
  | { kind: 'moduleValue'; name: string; module: string; args: CfgValue[]; value: CfgValue; loc: CfgLocation }
  /** `C <- Def`: replace constant or operator C by definition Def of the spec. Names may be instance paths (`A!B`). */
  | { kind: 'substitution'; name: string; by: string; loc: CfgLocation }
  /** `C <- [Mod] Def`: a substitution applied only inside module Mod. */
  | { kind: 'moduleSubstitution'; name: string; module: string; by: string; loc: CfgLocation };

export interface ModelConfig {
  /** Source file name, for messages. */
  file: string;
  specification?: string;
  init?: string;
  next?: string;
  constants: CfgConstant[];
  invariants: string[];
  properties: string[];
  constraints: string[];
  actionConstraints: string[];
  symmetry?: string;
  view?: string;
  alias?: string;
  /** POSTCONDITION(S): constant-level formulas checked when the run ends. */
  postconditions: string[];
  /** _POSSIBLE: predicates some state or step must satisfy (TLC's possibility conditions). */
  possible: string[];
  /** CHECK_DEADLOCK FALSE disables deadlock checking; absent means TLC's default (TRUE). */
  checkDeadlock?: boolean;
}

export class CfgError extends TlaError {
  constructor(
    message: string,
    readonly file: string,
    readonly loc?: CfgLocation,
  ) {
    // TLC's ConfigFileException codes (CFG_*) have no exit status of their own: 255.
    super(loc ? `${file}:${loc.line}:${loc.column}: ${message}` : `${file}: ${message}`, 255);
    this.name = 'CfgError';
  }
}
