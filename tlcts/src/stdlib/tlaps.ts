/**
 * TLAPS: the proof-backend pragmas a spec with proofs EXTENDS. Model checking ignores proofs, as
 * TLC does, so each pragma is just the constant TRUE.
 */
import type { Builtin, BuiltinModule } from './builtin.js';
import { defineModule } from './core.js';

const PRAGMAS = [
  'SMT',
  'CVC3',
  'Yices',
  'veriT',
  'Z3',
  'Spass',
  'SimpleArithmetic',
  'Zenon',
  'SlowZenon',
  'SlowerZenon',
  'VerySlowZenon',
  'SlowestZenon',
  'Isa',
  'Auto',
  'Force',
  'Blast',
  'SimplifyAndSolve',
  'Simplification',
  'AutoBlast',
  'LS4',
  'PTL',
  'PropositionalTemporalLogic',
  'AllProvers',
  'AllSMT',
  'AllIsa',
  'ExpandENABLED',
  'ExpandCdot',
  'AutoUSE',
  'Lambdify',
  'ENABLEDaxioms',
  'ENABLEDrewrites',
  'ENABLEDrules',
  'LevelComparison',
  'Trivial',
];
const WITH_ARGUMENT = [
  'SMTT',
  'CVC3T',
  'YicesT',
  'veriTT',
  'Z3T',
  'SpassT',
  'ZenonT',
  'IsaT',
  'IsaM',
  'AllProversT',
  'AllSMTT',
  'AllIsaT',
];

const TRUE_OF = (arity: number): Builtin => ({ arity, fn: () => true });

export const TLAPS: BuiltinModule = defineModule('TLAPS', [], {
  ...Object.fromEntries(PRAGMAS.map((p) => [p, TRUE_OF(0)])),
  ...Object.fromEntries(WITH_ARGUMENT.map((p) => [p, TRUE_OF(1)])),
  IsaMT: TRUE_OF(2),
});
