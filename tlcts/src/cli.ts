/** `tlcts SPEC.tla -config SPEC.cfg [flags]`: TLC's command line, TLC's output and exit codes. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { runCheckParallel } from './check/run.js';
import { WorkerFailure } from './check/parallel.js';
import { itfTrace, tlcTraceJson } from './output/format.js';
import { GraphDump } from './output/graph.js';
import { simulate } from './check/simulate.js';

/** TLC spells long options with one dash; commander expects two. */
const TLC_FLAGS = [
  'config',
  'workers',
  'deadlock',
  'dumpTrace',
  'simulate',
  'depth',
  'seed',
  'dump',
  'progress',
  'noGenerateSpecTE',
  'fp',
  'metadir',
  'queueMem',
  'fpmem',
  'workerHeap',
];

/** Rewrites TLC's flags for commander; `-dumpTrace FMT FILE` and `-dump [dot] FILE` take two words. */
function normalizeArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!.replace(/^--?/, '');
    if (a === 'dumpTrace' && i + 2 < argv.length) {
      out.push('--dumpTrace', argv[++i]!, '--dumpTraceFile', argv[++i]!);
    } else if (a === 'dump' && argv[i + 1] === 'dot' && i + 2 < argv.length) {
      i++;
      out.push('--dumpFormat', 'dot', '--dump', argv[++i]!);
    } else out.push(TLC_FLAGS.includes(a) && argv[i]!.startsWith('-') ? `--${a}` : argv[i]!);
  }
  return out;
}

/** A commander parser of a number `ok` accepts; anything else is refused as not `expected`. */
function numberFlag(ok: (n: number) => boolean, expected: string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (v.trim() === '' || !ok(n)) throw new InvalidArgumentError(`expected ${expected}`);
    return n;
  };
}

const nonNegativeInt = numberFlag((n) => Number.isInteger(n) && n >= 0, 'a non-negative integer');
const nonNegativeNumber = numberFlag((n) => Number.isFinite(n) && n >= 0, 'a non-negative number');
const atLeastOne = numberFlag((n) => Number.isInteger(n) && n >= 1, 'a positive integer');

/** `auto` (one per core) or a count. */
function workerCount(v: string): number {
  return v === 'auto' ? os.availableParallelism() : atLeastOne(v);
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command('tlcts')
    .description(
      'A TLC-compatible TLA+ model checker (breadth-first safety checking, TLC output and exit codes).',
    )
    .argument('<spec>', 'the TLA+ module to check (SPEC.tla)')
    .option('--config <file>', 'the model configuration (default: SPEC.cfg beside the spec)')
    .option(
      '--workers <n>',
      'threads expanding states (default 1; auto: one per core), with the results of one thread',
      workerCount,
    )
    .option(
      '--workerHeap <MiB>',
      'heap limit of each worker thread of -workers (default: half of RAM shared by the workers)',
      atLeastOne,
    )
    .option('--deadlock', 'do not check for deadlock (as TLC)')
    .option(
      '--dumpTrace <format>',
      'with the next word, a file: write the counterexample as json (TLC -dumpTrace json) or itf',
    )
    .option('--dumpTraceFile <file>', 'the file of -dumpTrace')
    .option(
      '--dump <file>',
      'write the reachable state graph (states and labelled edges) as JSON; `-dump dot FILE` writes DOT',
    )
    .option('--dumpFormat <format>', 'json or dot')
    .option(
      '--simulate [spec]',
      'simulation: random behaviours instead of exhaustive search (num=N for N behaviours)',
    )
    .option('--depth <n>', 'simulation: behaviour length (default 100)', nonNegativeInt)
    .option('--seed <n>', 'simulation: random seed', nonNegativeInt)
    .option('--progress <seconds>', 'seconds between progress lines (default 60)', nonNegativeInt)
    .option('--noGenerateSpecTE', 'accepted for TLC compatibility')
    .option(
      '--fp <n>',
      'seed of the order of successors in temporal checking (as TLC, it picks the counterexample shown)',
      nonNegativeInt,
    )
    .option(
      '--metadir <dir>',
      'where the queue of states and the fingerprints spill to files beyond -queueMem and -fpmem (default: the system temporary directory)',
    )
    .option(
      '--queueMem <MiB>',
      'memory for the queue of states to explore, beyond which it spills to files (default: 1/8 of RAM)',
      nonNegativeInt,
    )
    .option(
      '--fpmem <n>',
      'memory for the fingerprints of the states found, as a fraction of RAM below 1 (as TLC) or MiB from 1; beyond it they are merged into a sorted file (default: 0.25)',
      nonNegativeNumber,
    )
    .exitOverride();
  let parsed: Command;
  try {
    parsed = program.parse(normalizeArgs(argv), { from: 'user' });
  } catch (err) {
    const code = (err as { exitCode?: number }).exitCode;
    return code === 0 ? 0 : 255;
  }
  const opts = parsed.opts<{
    config?: string;
    deadlock?: boolean;
    dumpTrace?: string;
    dumpTraceFile?: string;
    dump?: string;
    dumpFormat?: string;
    simulate?: string | boolean;
    depth?: number;
    seed?: number;
    progress?: number;
    fp?: number;
    metadir?: string;
    queueMem?: number;
    fpmem?: number;
    workers?: number;
    workerHeap?: number;
  }>();
  const specArg = parsed.args[0]!;
  const tlaFile = specArg.endsWith('.tla') ? specArg : `${specArg}.tla`;
  if (!fs.existsSync(tlaFile)) {
    console.error(`Error: cannot find the specification ${tlaFile}.`);
    return 150;
  }
  const cfgFile = opts.config ?? tlaFile.replace(/\.tla$/, '.cfg');
  if (!fs.existsSync(cfgFile)) {
    console.error(`Error: cannot find the configuration ${cfgFile}.`);
    return 151;
  }
  // Written synchronously: the checker runs in a worker thread whose stdout stream would otherwise
  // flush only when the (busy) worker is idle, so progress lines would appear at the end. Notes
  // that are not TLC's output go to stderr.
  const out = (line: string) => fs.writeSync(1, line + '\n');
  const note = (line: string) => fs.writeSync(2, line + '\n');
  out(`tlcts (TLC-compatible model checker) on ${path.basename(tlaFile)} with ${path.basename(cfgFile)}`);
  if (opts.simulate !== undefined) {
    if ((opts.workers ?? 1) > 1) note(`tlcts: -workers ${opts.workers}: simulating with one thread.`);
    const num =
      typeof opts.simulate === 'string' ? Number(/num=(\d+)/.exec(opts.simulate)?.[1] ?? '1000') : 1000;
    return simulate({
      tlaFile,
      cfgFile,
      out,
      depth: opts.depth ?? 100,
      seed: opts.seed ?? Date.now() % 2 ** 31,
      behaviours: num,
    });
  }
  if (opts.dumpTrace && (!opts.dumpTraceFile || !['json', 'itf'].includes(opts.dumpTrace))) {
    console.error('Error: -dumpTrace takes a format (json or itf) and a file.');
    return 255;
  }
  const graph = opts.dump ? new GraphDump() : undefined;
  const run = runCheckParallel({
    tlaFile,
    cfgFile,
    out,
    workers: opts.workers ?? 1,
    ...(opts.workerHeap !== undefined ? { workerHeapMb: opts.workerHeap } : {}),
    note,
    ...(opts.deadlock ? { checkDeadlock: false } : {}),
    ...(opts.progress !== undefined ? { progressSeconds: opts.progress } : {}),
    ...(opts.fp !== undefined ? { fp: opts.fp } : {}),
    progress: out,
    ...(graph ? { onEdge: graph.edge, onState: graph.state } : {}),
    queue: {
      ...(opts.queueMem !== undefined ? { budget: opts.queueMem * 2 ** 20 } : {}),
      ...(opts.metadir !== undefined ? { dir: opts.metadir } : {}),
    },
    fingerprints: {
      ...(opts.fpmem !== undefined
        ? { budget: opts.fpmem < 1 ? opts.fpmem * os.totalmem() : opts.fpmem * 2 ** 20 }
        : {}),
      ...(opts.metadir !== undefined ? { dir: opts.metadir } : {}),
    },
  });
  let outcome: Awaited<typeof run>;
  try {
    outcome = await run;
  } catch (err) {
    if (!(err instanceof WorkerFailure)) throw err;
    note(`tlcts: ${err.message}`);
    return err.exitCode;
  }
  const { result, model, explorer } = outcome;
  const queue = explorer?.queue;
  if (queue?.spillDir) {
    const mib = Math.ceil(queue.spillBytes / 2 ** 20);
    note(
      `tlcts: the queue of states spilled ${queue.spillFiles} files (${mib} MiB) to ${queue.spillDir} (now deleted).`,
    );
  }
  const fps = explorer?.fps;
  if (fps && fps.flushes > 0) {
    const mib = Math.ceil(fps.diskBytes / 2 ** 20);
    note(
      `tlcts: the fingerprints of ${fps.size} states went to disk (${mib} MiB, merged ${fps.flushes} times; now deleted).`,
    );
  }
  if (graph && model && opts.dump) {
    fs.writeFileSync(opts.dump, opts.dumpFormat === 'dot' ? graph.dot(model.vars) : graph.json(model.vars));
  }
  if (opts.dumpTrace && opts.dumpTraceFile && result.trace && model) {
    const file = opts.dumpTraceFile;
    const text =
      opts.dumpTrace === 'itf'
        ? itfTrace(model.vars, result.trace, result, tlaFile)
        : tlcTraceJson(model.vars, result.trace, result.lasso);
    fs.writeFileSync(file, text);
    out(`"CounterExample written: ${file}"`);
  }
  return result.exitCode;
}
