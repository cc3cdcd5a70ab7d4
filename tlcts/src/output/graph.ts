/** The reachable state graph: every distinct state and every labelled edge, for the conformance generator. */
import type { Value } from '../values/value.js';
import type { StepLabel } from '../check/result.js';
import { itfValue, labelText, stateObject } from './format.js';

interface Edge {
  from: number;
  to: number;
  label: StepLabel;
}

export class GraphDump {
  private readonly states: { id: number; initial: boolean; state: Value[] }[] = [];
  private readonly edges: Edge[] = [];
  private readonly seen = new Set<string>();

  readonly state = (id: number, state: Value[], initial: boolean): void => {
    this.states.push({ id, initial, state });
  };

  readonly edge = (from: number, to: number, label: StepLabel): void => {
    const key = `${from} ${to} ${labelText(label)}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.edges.push({ from, to, label });
  };

  json(vars: readonly string[]): string {
    return JSON.stringify({
      vars,
      states: this.states.map((s) => ({
        id: s.id,
        initial: s.initial,
        state: stateObject(vars, s.state, itfValue),
      })),
      edges: this.edges.map((e) => ({
        from: e.from,
        to: e.to,
        action: e.label.name,
        params: Object.fromEntries(e.label.params.map(([n, v]) => [n, itfValue(v)])),
        label: labelText(e.label),
      })),
    });
  }

  dot(vars: readonly string[]): string {
    const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    const lines = ['digraph StateGraph {'];
    for (const s of this.states) {
      const text = vars.map((v, i) => `${v} = ${JSON.stringify(itfValue(s.state[i]!))}`).join('\\n');
      lines.push(`  ${s.id} [label="${esc(text)}"${s.initial ? ',style=filled' : ''}];`);
    }
    for (const e of this.edges) lines.push(`  ${e.from} -> ${e.to} [label="${esc(labelText(e.label))}"];`);
    lines.push('}');
    return lines.join('\n') + '\n';
  }
}
