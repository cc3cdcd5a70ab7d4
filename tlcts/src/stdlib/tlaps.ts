/**
 * TLAPS: the proof-backend pragmas a spec with proofs EXTENDS, those of tlapm's library/TLAPS.tla
 * and of its earlier versions. Model checking ignores proofs, as TLC does, so each pragma is just
 * the constant TRUE, as it is defined. (The module's theorems matter only to proofs.)
 */
import type { Builtin, BuiltinModule } from './builtin.js';
import { defineModule } from './core.js';

const PRAGMAS = [
  'SMT',
  'CVC3',
  'CVC4',
  'Yices',
  'veriT',
  'Zipper',
  'Z3',
  'Spass',
  'SimpleArithmetic',
  'Zenon',
  'SlowZenon',
  'SlowerZenon',
  'VerySlowZenon',
  'SlowestZenon',
  'Isa',
  'IsaWithSetExtensionality',
  ...['Auto', 'Force', 'SimplifyAndSolve', 'Simplification', 'Blast'].flatMap((t) => [
    t,
    `Slow${t}`,
    `Slower${t}`,
    `Slowest${t}`,
  ]),
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
  'CVC4T',
  'YicesT',
  'veriTT',
  'ZipperT',
  'Z3T',
  'SpassT',
  'LS4T',
  'ZenonT',
  'IsaT',
  'IsaM',
  'AllProversT',
  'AllSMTT',
  'AllIsaT',
];

const TRUE_OF = (arity: number): Builtin => ({ arity, fn: () => true });

/** EnabledWrapper(Op(_)) and CdotWrapper(Op(_)), which TLAPM uses internally: FALSE. */
const WRAPPER: Builtin = { arity: 1, opParams: [0], fn: () => false };

export const TLAPS: BuiltinModule = defineModule('TLAPS', [], {
  ...Object.fromEntries(PRAGMAS.map((p) => [p, TRUE_OF(0)])),
  ...Object.fromEntries(WITH_ARGUMENT.map((p) => [p, TRUE_OF(1)])),
  IsaMT: TRUE_OF(2),
  IsaTM: TRUE_OF(2),
  EnabledWrapper: WRAPPER,
  CdotWrapper: WRAPPER,
});
