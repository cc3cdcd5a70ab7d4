/**
 * The standard modules implemented as builtins, by module name, and the always-present CORE; with
 * them the CommunityModules that specifications commonly extend.
 */
import { BAGS } from './bags.js';
import { BITWISE } from './bitwise.js';
import type { BuiltinModule } from './builtin.js';
import { CORE } from './core.js';
import { FINITESETS } from './finitesets.js';
import { FINITESETSEXT } from './finitesetsext.js';
import { FOLDS } from './folds.js';
import { FUNCTIONS } from './functions.js';
import { GRAPHS } from './graphs.js';
import { INTEGERS } from './integers.js';
import { IOUTILS } from './ioutils.js';
import { JSON_MODULE } from './json.js';
import { NATURALS } from './naturals.js';
import { REALS } from './reals.js';
import { RELATION } from './relation.js';
import { SEQUENCES } from './sequences.js';
import { SEQUENCESEXT } from './sequencesext.js';
import { TLAPS } from './tlaps.js';
import { TLC } from './tlc.js';
import { TLCEXT } from './tlcext.js';
import { UNDIRECTEDGRAPHS } from './undirectedgraphs.js';

export { CORE };

const COMMUNITY = [
  ...[FOLDS, FUNCTIONS, FINITESETSEXT, SEQUENCESEXT, RELATION, GRAPHS, IOUTILS, JSON_MODULE, BITWISE],
  UNDIRECTEDGRAPHS,
];

export const STANDARD_MODULES: ReadonlyMap<string, BuiltinModule> = new Map(
  [...[NATURALS, INTEGERS, REALS, SEQUENCES, FINITESETS, BAGS, TLC, TLCEXT, TLAPS], ...COMMUNITY].map((m) => [
    m.name,
    m,
  ]),
);

/** The modules of STANDARD_MODULES that come from the CommunityModules. */
export const COMMUNITY_MODULES: ReadonlySet<string> = new Set(COMMUNITY.map((m) => m.name));
