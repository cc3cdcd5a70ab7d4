/** The standard modules implemented as builtins, by module name, and the always-present CORE. */
import { BAGS } from './bags.js';
import type { BuiltinModule } from './builtin.js';
import { CORE } from './core.js';
import { FINITESETS } from './finitesets.js';
import { INTEGERS } from './integers.js';
import { NATURALS } from './naturals.js';
import { SEQUENCES } from './sequences.js';
import { TLAPS } from './tlaps.js';
import { TLC } from './tlc.js';
import { TLCEXT } from './tlcext.js';

export { CORE };

export const STANDARD_MODULES: ReadonlyMap<string, BuiltinModule> = new Map(
  [NATURALS, INTEGERS, SEQUENCES, FINITESETS, BAGS, TLC, TLCEXT, TLAPS].map((m) => [m.name, m]),
);
