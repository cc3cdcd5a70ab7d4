/** Values, states and traces in TLC's text and JSON forms, and in ITF (lossless, typed). */
import { FcnValue, ModelValue, Record, SetValue, Tuple, show, type Value } from '../values/value.js';
import type { CheckResult, StepLabel, TraceState } from '../check/result.js';
import { ppr } from '../values/ppr.js';
import { locationText } from '../syntax/ast.js';

/** Java's String.hashCode. */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** TLC's order of variables in printed states: SANY's hashtable bucket order (docs/tlc-semantics.md §4.3). */
export function tlcVariableOrder(vars: readonly string[]): number[] {
  return vars
    .map((name, i) => ({ i, bucket: (javaHash(name) & 0x7fffffff) % 191 }))
    .sort((a, b) => a.bucket - b.bucket || a.i - b.i)
    .map((x) => x.i);
}

export function formatState(vars: readonly string[], s: readonly Value[]): string {
  const order = tlcVariableOrder(vars);
  if (vars.length === 1) return `${vars[0]} = ${ppr(show(s[0]!))}`;
  return order.map((i) => `/\\ ${vars[i]} = ${ppr(show(s[i]!))}`).join('\n');
}

export function formatLabel(a: StepLabel | undefined): string {
  if (!a) return '<Initial predicate>';
  const params = a.params.length > 0 ? `(${a.params.map(([, v]) => show(v)).join(',')})` : '';
  return `<${a.name}${params}${a.loc ? ' ' + locationText(a.loc) : ''}>`;
}

export function formatTrace(vars: readonly string[], trace: readonly TraceState[]): string {
  return trace
    .map((t, i) => `State ${i + 1}: ${formatLabel(t.action)}\n${formatState(vars, t.state)}\n`)
    .join('\n');
}

type Lasso = NonNullable<CheckResult['lasso']>;

/** A temporal counterexample: the states, then `State n: Stuttering` or `Back to state k: <action>`. */
export function formatLasso(vars: readonly string[], trace: readonly TraceState[], lasso: Lasso): string {
  const end = lasso.action
    ? `Back to state ${lasso.loop + 1}: ${formatLabel(lasso.action)}\n`
    : `State ${trace.length + 1}: Stuttering`;
  return `${formatTrace(vars, trace)}\n${end}`;
}

/** A value as TLC's -dumpTrace json writes it. */
export function tlcJson(v: Value): unknown {
  switch (typeof v) {
    case 'boolean':
    case 'number':
    case 'string':
      return v;
  }
  if (v instanceof ModelValue) return v.name;
  if (v instanceof SetValue) return v.normalized().elems.map(tlcJson);
  const f = v.materialize();
  if (f instanceof Tuple) return f.elems.map(tlcJson);
  const out: { [k: string]: unknown } = {};
  for (let i = 0; i < f.size(); i++) {
    const k = f.keyAt(i);
    out[typeof k === 'string' ? k : show(k)] = tlcJson(f.valAt(i));
  }
  return out;
}

/** A value in the Informal Trace Format (as Apalache and Quint write it). */
export function itfValue(v: Value): unknown {
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      return { '#bigint': String(v) };
  }
  if (v instanceof ModelValue) return { '#unserializable': v.name };
  if (v instanceof SetValue) return { '#set': v.normalized().elems.map(itfValue) };
  const f = (v as FcnValue).materialize();
  if (f instanceof Tuple) return f.elems.map(itfValue);
  if (f instanceof Record) return Object.fromEntries(f.names.map((n, i) => [n, itfValue(f.vals[i]!)]));
  const pairs: unknown[] = [];
  for (let i = 0; i < f.size(); i++) pairs.push([itfValue(f.keyAt(i)), itfValue(f.valAt(i))]);
  return { '#map': pairs };
}

function stateObject(
  vars: readonly string[],
  s: readonly Value[],
  enc: (v: Value) => unknown,
): { [k: string]: unknown } {
  const out: { [k: string]: unknown } = {};
  for (const i of tlcVariableOrder(vars)) out[vars[i]!] = enc(s[i]!);
  return out;
}

function actionJson(a: StepLabel | undefined): unknown {
  if (!a) return { name: 'Initial predicate' };
  const l = a.loc;
  return {
    name: a.name,
    location: l
      ? { beginLine: l.line, beginColumn: l.col, endLine: l.endLine, endColumn: l.endCol, module: l.module }
      : { beginLine: 0, beginColumn: 0, endLine: 0, endColumn: 0, module: '--TLA+ BUILTINS--' },
    ...(a.params.length > 0
      ? {
          context: Object.fromEntries(a.params.map(([n, v]) => [n, tlcJson(v)])),
          parameters: a.params.map(([n]) => n),
        }
      : {}),
  };
}

/** TLC's action for a lasso's stuttering step at an initial state (elsewhere, the last state's action). */
const UNNAMED_ACTION = {
  name: 'UnnamedAction',
  location: { beginLine: 0, beginColumn: 0, endLine: 0, endColumn: 0, module: '--TLA+ BUILTINS--' },
};

/**
 * The counterexample in TLC's `-dumpTrace json` shape. A lasso ends with one more action, from the
 * last state back to the state the loop starts at (itself, for stuttering).
 */
export function tlcTraceJson(vars: readonly string[], trace: readonly TraceState[], lasso?: Lasso): string {
  const states = trace.map((t, i) => [i + 1, stateObject(vars, t.state, tlcJson)]);
  const action = trace.slice(1).map((t, i) => [states[i], actionJson(t.action), states[i + 1]]);
  if (lasso) {
    const last = trace[trace.length - 1]!;
    const label = lasso.action ?? last.action;
    action.push([states[states.length - 1], label ? actionJson(label) : UNNAMED_ACTION, states[lasso.loop]]);
  }
  return JSON.stringify({ counterexample: { action, state: states }, vars });
}

/** The counterexample as an ITF trace; a lasso's `loop` is the index of the state the last one goes back to. */
export function itfTrace(
  vars: readonly string[],
  trace: readonly TraceState[],
  result: CheckResult,
  source: string,
): string {
  return JSON.stringify(
    {
      '#meta': {
        format: 'ITF',
        'format-description': 'https://apalache-mc.org/docs/adr/015adr-trace.html',
        source,
        description: result.message ?? result.verdict,
      },
      vars,
      ...(result.lasso ? { loop: result.lasso.loop } : {}),
      states: trace.map((t, i) => ({
        '#meta': {
          index: i,
          ...(t.action
            ? {
                action: t.action.name,
                parameters: Object.fromEntries(t.action.params.map(([n, v]) => [n, itfValue(v)])),
              }
            : {}),
        },
        ...stateObject(vars, t.state, itfValue),
      })),
    },
    null,
    1,
  );
}

/** A label as written in state-graph dumps: `Commit(d1, s1, w2)`. */
export function labelText(a: StepLabel): string {
  return a.params.length > 0 ? `${a.name}(${a.params.map(([, v]) => show(v)).join(', ')})` : a.name;
}

export { stateObject };
