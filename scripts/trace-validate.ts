/**
 * Judges recorded runs again (conformance/validate/recorded.ts): each FILE is the run.json that
 * ./scripts/faults keeps beside the logs of a run that was rejected or broke the history. Its trace is
 * validated against spec/DHSched.tla and checked by the history checker, with the code as it is now: a
 * validator or checker change is tried on the runs that showed the need for it. One line per file, and
 * for a rejected one the event, why, and the spec states it was tried from. Exit 0 when every trace is
 * accepted with no violation, 1 otherwise, 2 for a file that is not a recorded run.
 * Usage: node dist/scripts/trace-validate.js FILE...
 */
import { UsageError, program as cliProgram, runScript } from '../impl/cli/flags.js';
import { judge, loadRecorded } from '../conformance/validate/recorded.js';
import { describeRejection } from '../conformance/validate/validate.js';

const program = cliProgram(
  'trace-validate',
  'judges recorded runs (run.json kept by ./scripts/faults) again against spec/DHSched.tla',
).argument('<file...>', 'recorded runs');

function main(): number {
  const files = program.parse().args;
  const runs = files.map((file) => {
    try {
      return { file, run: loadRecorded(file) };
    } catch (err) {
      throw new UsageError(err instanceof Error ? err.message : String(err));
    }
  });
  let failing = 0;
  for (const { file, run } of runs) {
    const { verdict: v, history } = judge(run);
    const bad = v.rejection !== undefined || history.violations.length > 0;
    failing += bad ? 1 : 0;
    console.log(
      `${file}${run.seed === undefined ? '' : ` (seed ${run.seed})`}: ${v.accepted}/${v.events} events accepted, ` +
        `${v.hidden} hidden steps, ${history.violations.length} violations`,
    );
    for (const x of history.violations) console.log(`  ${x.kind} ${x.session}#${x.seq}: ${x.detail}`);
    if (v.rejection) console.log(describeRejection(v.rejection));
  }
  return failing === 0 ? 0 : 1;
}

runScript('trace-validate', main);
