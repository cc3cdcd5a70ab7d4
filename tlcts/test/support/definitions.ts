/** Evaluating a spec's definitions from TLA+ text, as the module tests of the builtins do. */
import fs from 'node:fs';
import path from 'node:path';
import { loadModel } from '../../src/check/model.js';
import { makeHost } from '../../src/check/run.js';
import { Frame, ROOT_FRAME } from '../../src/eval/runtime.js';
import { EvalError } from '../../src/values/errors.js';
import { show, type Value } from '../../src/values/value.js';

/**
 * Writes `---- MODULE name ---- EXTENDS mods` with the given definitions into dir and loads it;
 * the answer evaluates any of its definitions.
 */
export function loadDefinitions(
  dir: string,
  name: string,
  mods: string,
  defs: string[],
): (def: string) => Value {
  const tla = path.join(dir, `${name}.tla`);
  const cfg = path.join(dir, `${name}.cfg`);
  const body = [
    `---- MODULE ${name} ----`,
    `EXTENDS ${mods}`,
    'VARIABLE x',
    'Init == x = 0',
    "Next == x' = x",
  ];
  fs.writeFileSync(tla, [...body, ...defs, '===='].join('\n'));
  fs.writeFileSync(cfg, 'INIT Init\nNEXT Next\n');
  const model = loadModel({
    tlaFile: tla,
    cfgFile: cfg,
    host: makeHost(
      () => undefined,
      () => ({}),
    ),
  });
  return (def) => {
    const sym = model.root.names.get(def);
    if (sym?.k !== 'def') throw new Error(`no definition ${def}`);
    const { size, body: run } = model.compiler.compileDef(sym.h);
    return run({ s: [0], t: null, f: new Frame(size, ROOT_FRAME) });
  };
}

/** A value case: the expression and the value TLC prints for it. */
export type Case = [expr: string, shown: string];
/** An error case: the expression and TLC's message (a string is the whole message). */
export type Failure = [expr: string, message: string | RegExp];

/**
 * Evaluates every case and failure of a group, each as a definition of a module that EXTENDS mods
 * (after defs); returns the ones that came out otherwise.
 */
export function mismatches(
  dir: string,
  name: string,
  mods: string,
  cases: Case[],
  failures: Failure[] = [],
  defs: string[] = [],
): string[] {
  const caseDefs = cases.map(([e], i) => `C${i} == ${e}`);
  const failureDefs = failures.map(([e], i) => `F${i} == ${e}`);
  const evaluate = loadDefinitions(dir, name, mods, [...defs, ...caseDefs, ...failureDefs]);
  const wrong: string[] = [];
  cases.forEach(([e, shown], i) => {
    try {
      const got = show(evaluate(`C${i}`));
      if (got !== shown) wrong.push(`${e}\n  gave ${got}\n  want ${shown}`);
    } catch (err) {
      wrong.push(`${e}\n  failed: ${(err as Error).message}`);
    }
  });
  failures.forEach(([e, message], i) => {
    try {
      wrong.push(`${e}\n  gave ${show(evaluate(`F${i}`))}, want an error`);
    } catch (err) {
      if (!(err instanceof EvalError)) throw err;
      const ok = typeof message === 'string' ? err.message === message : message.test(err.message);
      if (!ok) wrong.push(`${e}\n  failed with ${JSON.stringify(err.message)}\n  want ${message}`);
    }
  });
  return wrong;
}
