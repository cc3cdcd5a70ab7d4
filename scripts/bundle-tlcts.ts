/**
 * Bundles the compiled checker (dist/tlcts/src) into dist/tlcts/bundle/: its command and its
 * -workers thread as two entries sharing one chunk, npm packages left outside. Node 20 imports the
 * sixty-odd compiled ES modules one by one in about 70 ms, the bundle in 20 (tree-sitter's 20 ms
 * apart); a one-state model's run went from 0.21 to 0.18 s. Run by `npm run build` after tsc;
 * bin/tlcts.js uses the bundle only while it is newer than every compiled file, so a tsc alone
 * never runs stale code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const compiled = path.join(dist, 'tlcts/src');
const outdir = path.join(dist, 'tlcts/bundle');

// The shared chunk's name changes with its content: an earlier one would stay behind.
fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { cli: path.join(compiled, 'cli.js'), worker: path.join(compiled, 'check/worker.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
