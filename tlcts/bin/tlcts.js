#!/usr/bin/env node
// tlcts: the TLC-compatible TLA+ model checker. Usage: tlcts SPEC.tla -config SPEC.cfg [flags]
// This launcher runs the compiled CLI: its bundle (dist/tlcts/bundle/cli.js, made by
// `npm run build`) while that is newer than every compiled file, else dist/tlcts/src/cli.js. If it
// has not been built yet, it builds it once with the project's own TypeScript compiler, or says what to run.
// Contract with cli.ts: it exports `main(argv: string[]): number | Promise<number>` (the exit code)
// and does not run itself when imported; a cli.js without `main` is assumed to run on import.
import { existsSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import { spawnSync } from 'node:child_process';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const compiled = join(root, 'dist', 'tlcts', 'src');
const cli = join(compiled, 'cli.js');
const bundle = join(root, 'dist', 'tlcts', 'bundle', 'cli.js');

/** Whether the bundle was made after the last compile (a tsc alone leaves it behind). */
function bundleIsFresh() {
  if (!existsSync(bundle)) return false;
  const made = statSync(bundle).mtimeMs;
  return readdirSync(compiled, { recursive: true }).every(
    (f) => !f.endsWith('.js') || statSync(join(compiled, f)).mtimeMs <= made,
  );
}

if (!existsSync(cli)) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    console.error(`tlcts: not built yet. In ${root} run:\n\n    npm ci && npm run build\n`);
    process.exit(255);
  }
  console.error('tlcts: first run, building (npm run build) ...');
  spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
  const bundler = join(root, 'dist', 'scripts', 'bundle-tlcts.js');
  if (existsSync(bundler)) spawnSync(process.execPath, [bundler], { stdio: 'inherit' });
  if (!existsSync(cli)) {
    console.error(
      `tlcts: the build did not produce ${cli} (is there a tlcts/src/cli.ts? any tsc errors are above).`,
    );
    process.exit(255);
  }
}

// The checker runs in a worker thread with a large stack: deeply recursive TLA+ definitions
// (a recursive function a few thousand levels deep) need more than Node's default stack. Its heap
// may grow to half the machine's memory (a worker's default is Node's, about 4 GiB, which would end
// a big run early), or more if node was given a larger --max-old-space-size.
if (isMainThread) {
  const heapMb = Math.max(v8.getHeapStatistics().heap_size_limit, os.totalmem() / 2) / 2 ** 20;
  const worker = new Worker(fileURLToPath(import.meta.url), {
    argv: process.argv.slice(2),
    resourceLimits: { stackSizeMb: 256, maxOldGenerationSizeMb: Math.floor(heapMb) },
  });
  worker.on('message', (code) => (process.exitCode = code));
  // Never a stack trace: what the checker did not expect is reported as TLC reports its own
  // (EC.GENERAL, exit 255); TLCTS_DEBUG=1 adds the stack on stderr.
  worker.on('error', (err) => {
    const outOfMemory = err?.code === 'ERR_WORKER_OUT_OF_MEMORY';
    console.log(
      outOfMemory
        ? `Error: tlcts ran out of memory (its heap may grow to ${Math.floor(heapMb)} MiB).\nA larger heap may fix this, but not if some state has an enormous number of successors\nor a huge set must be computed.`
        : `Error: tlcts threw an unexpected exception.\nThis was probably caused by an error in the spec or model, or by a bug in tlcts.\nThe exception was a ${err?.name ?? 'Error'}: ${err?.message ?? String(err)}`,
    );
    if (process.env.TLCTS_DEBUG) console.error(err);
    process.exitCode = 255;
  });
} else {
  const mod = await import(pathToFileURL(bundleIsFresh() ? bundle : cli).href);
  const code = typeof mod.main === 'function' ? await mod.main(process.argv.slice(2)) : 0;
  parentPort.postMessage(typeof code === 'number' ? code : 0);
}
