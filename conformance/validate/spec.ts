/**
 * spec/DHSched.tla instantiated for one recorded run, through the embedded checker's evaluator: the
 * model's constants are written to a .cfg sized to the run, and each spec action is compiled once by the
 * checker's compiler as a call with its parameters in frame slots, each guarded by the set Next takes it
 * from (`w \in Workers /\ s \in Sessions /\ e \in Epochs /\ Claim(w, s, e)`, w, s, e filled per step), so
 * that the successors of one action instance are the checker's own enumeration: nothing rebuilt here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModel, type Model } from '../../tlcts/src/check/model.js';
import { makeHost } from '../../tlcts/src/check/run.js';
import { Frame, ROOT_FRAME, type ActClosure } from '../../tlcts/src/eval/runtime.js';
import type { Expr, Loc } from '../../tlcts/src/syntax/ast.js';
import { fingerprintValues } from '../../tlcts/src/values/fingerprint.js';
import { modelValue, type Value } from '../../tlcts/src/values/value.js';
import { conformanceDir, toPlain } from '../graph.js';

const specFile = path.join(conformanceDir, '../spec/DHSched.tla');

/** The constants of one run: model value names and bounds. */
export interface RunConstants {
  sessions: string[];
  workers: string[];
  dispatchers: string[];
  cap: number;
  maxEpoch: number;
  maxInputs: number;
  maxFaults: number;
}

/** An action's parameter: a model value (by name) or an integer. */
export type Arg = string | number;

export type State = Value[];

const NO_LOC: Loc = { module: 'DHSched', line: 0, col: 0, endLine: 0, endCol: 0 };

const ident = (name: string): Expr => ({ kind: 'Ident', name, loc: NO_LOC });
const app = (name: string, ...args: Expr[]): Expr => ({ kind: 'OpApp', name, args, loc: NO_LOC });

/** The sets Next quantifies each action's parameters over (DispatchNext, WorkerNext, FaultNext). */
const DOMAINS = {
  d: ident('Dispatchers'),
  s: ident('Sessions'),
  w: ident('Workers'),
  e: ident('Epochs'),
  r: app('..', { kind: 'Num', value: 1, loc: NO_LOC }, ident('MaxInputs')),
};
const WSE = ['w', 's', 'e'] as const;
export const ACTIONS = {
  BeginCreate: ['d', 's', 'w'],
  BeginMove: ['d', 's', 'w'],
  Commit: ['d'],
  Close: ['s'],
  Drain: ['w'],
  Undrain: ['w'],
  PushText: ['s', 'r'],
  Claim: WSE,
  Reconstruct: WSE,
  ReleaseInput: WSE,
  Fence: WSE,
  Teardown: WSE,
  LeaseExpire: ['w'],
  Register: ['w'],
  Redeliver: WSE,
} as const satisfies Record<string, readonly (keyof typeof DOMAINS)[]>;
export type ActionName = keyof typeof ACTIONS;

function cfgText(c: RunConstants): string {
  const set = (names: string[]) => `{${names.join(', ')}}`;
  return [
    'CONSTANTS',
    `  Sessions = ${set(c.sessions)}`,
    `  Workers = ${set(c.workers)}`,
    `  Dispatchers = ${set(c.dispatchers)}`,
    '  NoWorker = NoWorker',
    `  Cap = ${c.cap}`,
    `  MaxEpoch = ${c.maxEpoch}`,
    `  MaxInputs = ${c.maxInputs}`,
    `  MaxFaults = ${c.maxFaults}`,
    '  Protocol = "dhsched"',
    '  Bug = "none"',
    '  StoreMode = "single"',
    '  WithDrain = TRUE',
    '  WithUndrain = TRUE',
    '  WithBatch = TRUE',
    '  WithClose = TRUE',
    'INIT Init',
    'NEXT Next',
    '',
  ].join('\n');
}

export class SpecModel {
  readonly vars: readonly string[];
  private readonly model: Model;
  private readonly index: Map<string, number>;
  private readonly actions = new Map<string, { run: ActClosure; size: number }>();
  private readonly views = new WeakMap<State, Map<number, unknown>>();

  constructor(constants: RunConstants) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-trace-'));
    const cfgFile = path.join(dir, 'Run.cfg');
    fs.writeFileSync(cfgFile, cfgText(constants));
    try {
      this.model = loadModel({
        tlaFile: specFile,
        cfgFile,
        host: makeHost(
          () => undefined,
          () => ({}),
        ),
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    this.vars = this.model.vars;
    this.index = new Map(this.vars.map((v, i) => [v, i]));
    for (const a of this.model.assumptions) {
      if (!a.check()) throw new Error(`the run's constants break the spec's assumption at ${a.loc}`);
    }
  }

  /** The initial states (DHSched has one). */
  initial(): State[] {
    const partial: Value[] = new Array(this.vars.length);
    const out: State[] = [];
    this.model.init({ s: partial, t: null, f: ROOT_FRAME }, () => out.push(partial.slice()));
    return out;
  }

  /**
   * Every successor of `action(args)` from s, a step of Next: none when the action is not enabled there or
   * a parameter lies outside the set Next takes it from.
   */
  successors(s: State, action: ActionName, args: readonly Arg[]): State[] {
    const compiled = this.compiled(action);
    if (args.length !== ACTIONS[action].length) {
      throw new Error(`${action} takes ${ACTIONS[action].length} parameters, not ${args.length}`);
    }
    const f = new Frame(compiled.size, ROOT_FRAME);
    args.forEach((a, i) => (f.v[i] = typeof a === 'number' ? a : modelValue(a)));
    const t: Value[] = new Array(this.vars.length);
    const out: State[] = [];
    compiled.run({ s, t, f }, () => {
      const succ = t.slice();
      const missing = this.vars.filter((_, i) => succ[i] === undefined);
      if (missing.length > 0) throw new Error(`${action} leaves ${missing.join(', ')} undefined`);
      out.push(succ);
    });
    return out;
  }

  /** A variable's value in s as canonical plain JSON (conformance/graph.ts), computed once per state. */
  value(s: State, variable: string): unknown {
    const i = this.index.get(variable);
    if (i === undefined) throw new Error(`the spec has no variable ${variable}`);
    let cache = this.views.get(s);
    if (!cache) this.views.set(s, (cache = new Map()));
    if (!cache.has(i)) cache.set(i, toPlain(s[i]!));
    return cache.get(i);
  }

  key(s: State): string {
    const [hi, lo] = fingerprintValues(s);
    return `${hi}:${lo}`;
  }

  /** `p0 \in D0 /\ ... /\ action(p0, ...)` compiled once, its parameters in the frame's first slots. */
  private compiled(action: ActionName): { run: ActClosure; size: number } {
    let c = this.actions.get(action);
    if (c) return c;
    const scope = this.model.root.top.newFrame();
    const params = ACTIONS[action].map((domain, i) => {
      const slot = scope.bindSlot(`trace_param_${i}`);
      if (slot.slot !== i) throw new Error('parameter slots are allocated first');
      return { name: ident(slot.name), domain: DOMAINS[domain] };
    });
    const call = params.length === 0 ? ident(action) : app(action, ...params.map((p) => p.name));
    const guarded: Expr = {
      kind: 'And',
      items: [...params.map((p) => app('\\in', p.name, p.domain)), call],
      loc: NO_LOC,
    };
    const run = this.model.compiler.act(guarded, scope, false, false);
    c = { run, size: scope.frame.size };
    this.actions.set(action, c);
    return c;
  }
}
