/**
 * TLCExt's CounterExample (`tlc2.value.impl.CounterExample`): the behaviour of a violation as
 * `[state |-> {<<i, s_i>>}, action |-> {<<<<i, s_i>>, a, <<j, s_j>>>>}]`, the shape `-dumpTrace json`
 * writes; a lasso has one more action, back to the state its loop starts at. Empty without a violation.
 */
import { Tuple, intern, recordOf, setOf, type Value } from '../values/value.js';
import type { CheckResult, StepLabel, TraceState } from './result.js';

const str = (s: string): Value => {
  intern(s);
  return s;
};

const record = (fields: [string, Value][]): Value =>
  recordOf(fields.map(([name, value]) => ({ name: str(name) as string, value })));

/** TLCExt's CounterExample when there is no violation. */
export const NO_COUNTEREXAMPLE = record([
  ['action', setOf([])],
  ['state', setOf([])],
]);

function location(l: StepLabel['loc']): Value {
  const at = l ?? { line: 0, col: 0, endLine: 0, endCol: 0, module: '--TLA+ BUILTINS--' };
  return record([
    ['beginLine', at.line],
    ['beginColumn', at.col],
    ['endLine', at.endLine],
    ['endColumn', at.endCol],
    ['module', str(at.module)],
  ]);
}

function action(a: StepLabel | undefined): Value {
  if (!a)
    return record([
      ['name', str('UnnamedAction')],
      ['location', location(undefined)],
    ]);
  const fields: [string, Value][] = [
    ['name', str(a.name)],
    ['location', location(a.loc)],
  ];
  if (a.params.length > 0) {
    fields.push(['context', record(a.params)]);
    fields.push(['parameters', new Tuple(a.params.map(([n]) => str(n)))]);
  }
  return record(fields);
}

export function counterExampleValue(
  vars: readonly string[],
  trace: readonly TraceState[] | undefined,
  lasso?: CheckResult['lasso'],
): Value {
  if (!trace || trace.length === 0) return NO_COUNTEREXAMPLE;
  const states = trace.map(
    (t, i) => new Tuple([i + 1, record(vars.map((v, j) => [v, t.state[j]!]))]) as Value,
  );
  const actions = trace
    .slice(1)
    .map((t, i) => new Tuple([states[i]!, action(t.action), states[i + 1]!]) as Value);
  if (lasso) {
    const label = lasso.action ?? trace[trace.length - 1]!.action;
    actions.push(new Tuple([states[states.length - 1]!, action(label), states[lasso.loop]!]));
  }
  return record([
    ['action', setOf(actions)],
    ['state', setOf(states)],
  ]);
}
