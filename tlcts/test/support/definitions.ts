/** Evaluating a spec's definitions from TLA+ text, as the module tests of the builtins do. */
import fs from 'node:fs';
import path from 'node:path';
import { loadModel } from '../../src/check/model.js';
import { makeHost } from '../../src/check/run.js';
import { Frame, ROOT_FRAME } from '../../src/eval/runtime.js';
import type { Value } from '../../src/values/value.js';

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
