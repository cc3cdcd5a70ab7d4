/**
 * Runs the models of spec/models.json and prints what each found, with its figures:
 *   ./scripts/check-spec [--size small|large|all] [--update-traces] [--tlc]
 * --update-traces rewrites spec/traces/<model>.trace.json (the counterexamples CI compares with);
 * --tlc runs real TLC through scripts/tlc on the same files (TLA2TOOLS_JAR must name tla2tools.jar).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Option } from 'commander';
import { UsageError, program as cliProgram, runScript } from '../impl/cli/flags.js';
import { runCheck } from '../tlcts/src/check/run.js';
import { tlcTraceJson } from '../tlcts/src/output/format.js';
import { loadManifest, specDir, traceFile, type SpecModel } from '../spec/manifest.js';

const program = cliProgram('check-spec', 'runs the models of spec/models.json and prints what each found')
  .addOption(new Option('--size <size>', 'which models').choices(['small', 'large', 'all']).default('small'))
  .option('--update-traces', 'rewrite the committed counterexamples')
  .option('--tlc', 'run real TLC instead (needs TLA2TOOLS_JAR)');
interface Flags {
  size: 'small' | 'large' | 'all';
  updateTraces?: boolean;
  tlc?: boolean;
}

const root = path.resolve(specDir, '..');

function withTlcts(m: SpecModel, updateTraces: boolean) {
  const t0 = Date.now();
  const { result, model } = runCheck({
    tlaFile: path.join(specDir, m.tla),
    cfgFile: path.join(specDir, m.cfg),
  });
  const found = result.violated ?? (result.verdict === 'success' ? 'pass' : result.verdict);
  if (updateTraces) {
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
  // scripts/tlc exits 2 when it cannot run TLC (TLA2TOOLS_JAR unset, no java)
  if (r.status === 2) throw new UsageError(r.stderr || r.stdout);
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

function main(): number {
  const opts = program.parse().opts<Flags>();
  const models = loadManifest().filter((m) => opts.size === 'all' || m.size === opts.size);
  let failures = 0;
  const rows = models.map((m) => {
    const r = opts.tlc ? withTlc(m) : withTlcts(m, opts.updateTraces ?? false);
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
  return failures > 0 ? 1 : 0;
}

runScript('check-spec', main);
