/** `tlcts SPEC.tla -config SPEC.cfg [flags]`: TLC's command line, TLC's output and exit codes. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { runCheckParallel } from './check/run.js';
import { WorkerFailure } from './check/parallel.js';
import { itfTrace, tlcTraceJson } from './output/format.js';
import { GraphDump } from './output/graph.js';
import { simulate } from './check/simulate.js';
import { packageRoot } from './util/package-root.js';

/** TLC's exit status for a command line it refuses (`TLC#main` exits 1 when `handleParameters` fails). */
const BAD_COMMAND_LINE = 1;
const USAGE = 'Usage: tlcts [-help] [-option] SPEC.tla';

/** A command line refused in TLC's words (`TLC#handleParameters`); tlcts's own flags in its own. */
class CommandLineError extends Error {}

/** What TLC says when an option's value is missing (`TLC#handleParameters`). */
const MISSING_VALUE: Readonly<Record<string, string>> = {
  config: 'expect a file name for -config option.',
  workers: "expect an integer or 'auto' for -workers option.",
  depth: 'trace length required.',
  seed: 'seed required.',
  fpmem: 'fpset memory size required.',
  metadir: 'need to specify the metadata directory.',
  dump: 'A file name for dumping states required.',
};

/** Options commander keeps for itself: the second words of -dumpTrace and -dump dot. */
const INTERNAL_OPTIONS = new Set(['dumpTraceFile', 'dumpFormat']);

/**
 * TLC's command line as commander takes it: TLC spells options with one dash (`-config`), commander
 * with two; `-dumpTrace FMT FILE` and `-dump [dot] FILE` take two words; `-simulate` takes the next
 * word only if it is `num=N` or `file=F` (as TLC). A word that names no option is refused.
 */
function commanderArgs(argv: string[], program: Command): string[] {
  const options = new Map(program.options.map((o) => [o.long!.slice(2), o]));
  const out: string[] = [];
  const value = (i: number, word: string, name: string): string => {
    const v = argv[i];
    if (v === undefined) throw new CommandLineError(MISSING_VALUE[name] ?? `${word} requires a value.`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const name = word.replace(/^--?/, '');
    const option = options.get(name);
    if (!word.startsWith('-')) out.push(word);
    else if (name === 'help' || name === 'h') out.push('--help');
    else if (name === 'dumpTrace') {
      const format = argv[i + 1];
      const file = argv[i + 2];
      if (file === undefined || (format !== 'json' && format !== 'itf'))
        throw new CommandLineError('-dumpTrace takes a format (json or itf) and a file.');
      out.push('--dumpTrace', format, '--dumpTraceFile', file);
      i += 2;
    } else if (name === 'dump' && argv[i + 1] === 'dot') {
      out.push('--dumpFormat', 'dot', '--dump', value(i + 2, word, name));
      i += 2;
    } else if (!option || INTERNAL_OPTIONS.has(name))
      throw new CommandLineError(`unrecognized option: ${word}`);
    else {
      out.push(`--${name}`);
      if (option.required) out.push(value(++i, word, name));
      else if (option.optional && /(num|file)=/.test(argv[i + 1] ?? '')) out.push(argv[++i]!);
    }
  }
  return out;
}

/** A commander parser of a number `ok` accepts; another word is refused with `refusal(word)`. */
function numberFlag(ok: (n: number) => boolean, refusal: (word: string) => string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (v.trim() === '' || !ok(n)) throw new CommandLineError(refusal(v));
    return n;
  };
}

const isNonNegativeInt = (n: number) => Number.isInteger(n) && n >= 0;

/** `auto` (one per core) or a count, refused in TLC's words. */
function workerCount(v: string): number {
  if (v.trim().toLowerCase() === 'auto') return os.availableParallelism();
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n))
    throw new CommandLineError(`worker number or 'auto' required. But encountered ${v}`);
  if (n < 1) throw new CommandLineError('at least one worker required.');
  return n;
}

/** The version of the package tlcts ships in. */
function packageVersion(): string {
  const root = packageRoot();
  if (root === undefined) return 'unknown';
  return (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** Writes lines to a file descriptor synchronously; a reader that went away (EPIPE) just stops them. */
function lineWriter(fd: number): (line: string) => void {
  return (line) => {
    try {
      fs.writeSync(fd, line + '\n');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EPIPE') throw err;
    }
  };
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command('tlcts')
    .description(
      'A TLC-compatible TLA+ model checker (breadth-first safety checking, TLC output and exit codes).',
    )
    .version(`tlcts ${packageVersion()}`, '--version', 'print the version of tlcts')
    .argument('[spec]', 'the TLA+ module to check (SPEC.tla)')
    .option('--config <file>', 'the model configuration (default: SPEC.cfg beside the spec)')
    .option(
      '--workers <n>',
      'threads expanding states (default 1; auto: one per core), with the results of one thread',
      workerCount,
    )
    .option(
      '--workerHeap <MiB>',
      'heap limit of each worker thread of -workers (default: half of RAM shared by the workers)',
      numberFlag(
        (n) => Number.isInteger(n) && n >= 1,
        (v) => `-workerHeap takes a positive number of MiB, not ${v}.`,
      ),
    )
    .option('--deadlock', 'do not check for deadlock (as TLC)')
    .option(
      '--continue',
      'report every invariant and action property violation and go on; the run then ends as TLC ends it, as a success',
    )
    .option('--nowarning', 'print no warnings (as TLC)')
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
    .option(
      '--depth <n>',
      'simulation: behaviour length (default 100)',
      numberFlag(isNonNegativeInt, (v) => `An integer for trace length required. But encountered ${v}`),
    )
    .option(
      '--seed <n>',
      'simulation: random seed',
      numberFlag(isNonNegativeInt, (v) => `An integer for seed required. But encountered ${v}`),
    )
    .option(
      '--progress <seconds>',
      'seconds between progress lines (default 60)',
      numberFlag(isNonNegativeInt, (v) => `-progress takes a non-negative number of seconds, not ${v}.`),
    )
    .option('--noGenerateSpecTE', 'accepted for TLC compatibility')
    .option(
      '--lncheck <when>',
      'when temporal properties are checked (TLC: default or final); tlcts checks them once, at the end, as `final`',
      (v: string) => {
        if (!['default', 'final', 'seqfinal'].includes(v))
          throw new CommandLineError(`-lncheck takes default, final or seqfinal, not ${v}.`);
        return v;
      },
    )
    .option(
      '--fp <n>',
      'seed of the order of successors in temporal checking (as TLC, it picks the counterexample shown)',
      numberFlag(isNonNegativeInt, (v) => `A number for -fp is required. But encountered ${v}`),
    )
    .option(
      '--metadir <dir>',
      'where the queue of states and the fingerprints spill to files beyond -queueMem and -fpmem (default: the system temporary directory)',
    )
    .option(
      '--queueMem <MiB>',
      'memory for the queue of states to explore, beyond which it spills to files (default: 1/8 of RAM)',
      numberFlag(isNonNegativeInt, (v) => `-queueMem takes a non-negative number of MiB, not ${v}.`),
    )
    .option(
      '--fpmem <n>',
      'memory for the fingerprints of the states found, as a fraction of RAM below 1 (as TLC) or MiB from 1; beyond it they are merged into a sorted file (default: 0.25)',
      numberFlag(
        (n) => Number.isFinite(n) && n >= 0,
        (v) =>
          `An positive integer or a fraction for fpset memory size/percentage required. But encountered ${v}`,
      ),
    )
    .exitOverride();
  let parsed: Command;
  try {
    parsed = program.parse(commanderArgs(argv, program), { from: 'user' });
    if (parsed.args.length === 0) throw new CommandLineError('Missing input TLA+ module.');
    if (parsed.args.length > 1)
      throw new CommandLineError(`more than one input files: ${parsed.args[0]} and ${parsed.args[1]}`);
  } catch (err) {
    if (err instanceof CommandLineError) {
      console.error(`Error: ${err.message}\n${USAGE}`);
      return BAD_COMMAND_LINE;
    }
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : BAD_COMMAND_LINE;
    throw err;
  }
  const opts = parsed.opts<{
    config?: string;
    deadlock?: boolean;
    continue?: boolean;
    nowarning?: boolean;
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
  if (opts.continue && opts.simulate !== undefined) {
    console.error(`Error: tlcts does not support -continue with -simulate.\n${USAGE}`);
    return BAD_COMMAND_LINE;
  }
  const specArg = parsed.args[0]!;
  const tlaFile = specArg.endsWith('.tla') ? specArg : `${specArg}.tla`;
  if (!fs.existsSync(tlaFile)) {
    console.error(`Error: cannot find the specification ${tlaFile}.`);
    return 150;
  }
  // TLC takes `-config M` as M.cfg, and a .tla's embedded configuration (`MonolithSpecExtractor`).
  const cfgFile = opts.config
    ? /\.(cfg|tla)$/.test(opts.config)
      ? opts.config
      : `${opts.config}.cfg`
    : tlaFile.replace(/\.tla$/, '.cfg');
  if (!fs.existsSync(cfgFile)) {
    console.error(`Error: cannot find the configuration ${cfgFile}.`);
    return 151;
  }
  // Written synchronously: the checker runs in a worker thread whose stdout stream would otherwise
  // flush only when the (busy) worker is idle, so progress lines would appear at the end. Notes
  // that are not TLC's output go to stderr.
  const out = lineWriter(1);
  const note = lineWriter(2);
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
  const graph = opts.dump ? new GraphDump() : undefined;
  const run = runCheckParallel({
    tlaFile,
    cfgFile,
    out,
    workers: opts.workers ?? 1,
    ...(opts.workerHeap !== undefined ? { workerHeapMb: opts.workerHeap } : {}),
    note,
    ...(opts.deadlock ? { checkDeadlock: false } : {}),
    ...(opts.continue ? { continueAfterViolations: true } : {}),
    ...(opts.nowarning ? { warnings: false } : {}),
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
