/**
 * Runs the models of spec/models.json and prints what each found, with its figures:
 *   ./scripts/check-spec [--size small|large|all] [--update-traces] [--tlc]
 * --update-traces rewrites spec/traces/<model>.trace.json (the counterexamples CI compares with);
 * --tlc runs real TLC through scripts/tlc on the same files (TLA2TOOLS_JAR must name tla2tools.jar).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { runCheck } from '../tlcts/src/check/run.js';
import { tlcTraceJson } from '../tlcts/src/output/format.js';
import { loadManifest, specDir, traceFile, type SpecModel } from '../spec/manifest.js';

const opts = new Command('check-spec')
  .option('--size <size>', 'small, large or all', (v) => z.enum(['small', 'large', 'all']).parse(v), 'small')
  .option('--update-traces', 'rewrite the committed counterexamples')
  .option('--tlc', 'run real TLC instead (needs TLA2TOOLS_JAR)')
  .parse()
  .opts<{ size: 'small' | 'large' | 'all'; updateTraces?: boolean; tlc?: boolean }>();

const root = path.resolve(specDir, '..');
const models = loadManifest().filter((m) => opts.size === 'all' || m.size === opts.size);

function withTlcts(m: SpecModel) {
  const t0 = Date.now();
  const { result, model } = runCheck({
    tlaFile: path.join(specDir, m.tla),
    cfgFile: path.join(specDir, m.cfg),
  });
  const found = result.violated ?? (result.verdict === 'success' ? 'pass' : result.verdict);
  if (opts.updateTraces) {
    if (result.trace && model && found !== 'pass')
      fs.writeFileSync(traceFile(m), tlcTraceJson(model.vars, result.trace));
    else fs.rmSync(traceFile(m), { force: true });
  }
  return {
    found,
    distinct: result.distinctStates,
    depth: result.depth,
    seconds: (Date.now() - t0) / 1000,
  };
}

function withTlc(m: SpecModel) {
  const t0 = Date.now();
  const r = spawnSync(path.join(root, 'scripts/tlc'), ['-workers', '1', '-config', m.cfg, m.tla], {
    cwd: specDir,
    encoding: 'utf8',
  });
  if (r.status === 2) throw new Error(r.stderr || r.stdout);
  const out = r.stdout;
  const figures =
    /(\d+) distinct states found[^\n]*\nThe depth of the complete state graph search is (\d+)/.exec(out);
  const violated = /Invariant (\w+) is violated|Temporal properties? (\w+)/.exec(out);
  const found = r.status === 0 ? 'pass' : (violated?.[1] ?? violated?.[2] ?? `exit ${r.status}`);
  return {
    found,
    distinct: Number(figures?.[1]),
    depth: Number(figures?.[2]),
    seconds: (Date.now() - t0) / 1000,
  };
}

let failures = 0;
const rows = models.map((m) => {
  const r = opts.tlc ? withTlc(m) : withTlcts(m);
  const ok = r.found === m.expect;
  if (!ok) failures++;
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${m.name.padEnd(32)} expect ${m.expect.padEnd(20)} found ${String(r.found).padEnd(20)} ` +
      `${String(r.distinct).padStart(9)} states  depth ${String(r.depth).padStart(3)}  ${r.seconds.toFixed(1).padStart(6)} s`,
  );
  return {
    model: m.name,
    expect: m.expect,
    found: r.found,
    distinctStates: r.distinct,
    depth: r.depth,
    seconds: r.seconds,
  };
});
console.log(JSON.stringify({ checker: opts.tlc ? 'tlc' : 'tlcts', failures, rows }));
process.exitCode = failures > 0 ? 1 : 0;
