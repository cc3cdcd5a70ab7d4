import type { CheckResult } from '../../src/check/result.js';

/** The figures of a run that the tests compare: verdict, exit code, distinct and generated states, depth. */
export function figures(r: CheckResult) {
  return {
    verdict: r.verdict,
    exitCode: r.exitCode,
    distinct: r.distinctStates,
    generated: r.generatedStates,
    depth: r.depth,
  };
}
