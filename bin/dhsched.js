#!/usr/bin/env node
// dhsched: the DHSched command line (up, create, push, close, migrate, drain, undrain, get, sessions, workers,
// watch). Runs the compiled CLI, dist/impl/cli/dhsched.js; build it first with `npm run build`.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'impl', 'cli', 'dhsched.js');
if (!existsSync(cli)) {
  console.error(`dhsched: not built yet; run: npm ci && npm run build`);
  process.exit(2);
}
const { main } = await import(pathToFileURL(cli).href);
process.exitCode = await main(process.argv.slice(2));
