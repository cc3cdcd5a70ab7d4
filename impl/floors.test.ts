/**
 * The floors: production code (impl/ and gpu-worker/, less tests and test support) imports nothing from
 * the harnesses, scripts, conformance tests or tlcts' tests, nor from test support; impl/common imports
 * nothing outside itself. Imports are read as text and their relative paths resolved.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What a module imports: `import/export ... from`, `import '...'` and `import('...')` specifiers. */
function importsOf(source: string): string[] {
  const patterns = [
    /(?:^|[\n;])\s*(?:import|export)\s[^'"`;()=]*?\bfrom\s*(['"])([^'"]+)\1/g,
    /(?:^|[\n;])\s*import\s*(['"])([^'"]+)\1/g,
    /\bimport\(\s*(['"])([^'"]+)\1\s*\)/g,
  ];
  return patterns.flatMap((re) => [...source.matchAll(re)].map((m) => m[2]!));
}

/** Every .ts file under `dir` (a path from the repository root), as paths from the root. */
function tsFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.split(path.sep).includes('node_modules'))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/')));
}

const isTestSupport = (file: string) =>
  file.startsWith('impl/test-support/') || file === 'gpu-worker/test-support.ts';
const production = [...tsFiles('impl'), ...tsFiles('gpu-worker')].filter(
  (f) => !f.endsWith('.test.ts') && !isTestSupport(f),
);

/** The sources (paths from the root) that `file` imports by relative path; packages are left out. */
function localImports(file: string): string[] {
  return importsOf(fs.readFileSync(path.join(root, file), 'utf8'))
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.posix.join(path.posix.dirname(file), spec).replace(/\.js$/, '.ts'));
}

/** `from -> to` for each import of `files` that `forbidden` refuses. */
function crossings(files: string[], forbidden: (target: string) => boolean): string[] {
  return files.flatMap((file) =>
    localImports(file)
      .filter(forbidden)
      .map((target) => `${file} -> ${target}`),
  );
}

const NOT_PRODUCTION = ['harness/', 'scripts/', 'conformance/', 'tlcts/test/'];

describe('the floors', () => {
  it('reads every form of import', () => {
    const source = [
      "import fs from 'node:fs';",
      "import {\n  type A,\n  b,\n} from '../a.js';",
      "import type { C } from './c.js';",
      "export { d } from './d.js'; export * from './e.js';",
      "import './f.js';",
      "const g = await import('../g.js');",
      " * import x from 'in-a-comment' is not an import",
    ].join('\n');
    expect(importsOf(source).sort()).toEqual(
      ['node:fs', '../a.js', './c.js', './d.js', './e.js', './f.js', '../g.js'].sort(),
    );
  });

  it('production code imports no harness, script, conformance or tlcts test, nor test support', () => {
    expect(production).toContain('impl/cli/dhsched.ts');
    expect(localImports('impl/cli/dhsched.ts')).toContain('impl/ops/launch.ts');
    const notProduction = (target: string) =>
      NOT_PRODUCTION.some((floor) => target.startsWith(floor)) || isTestSupport(target);
    expect(crossings(production, notProduction)).toEqual([]);
  });

  it('impl/common imports nothing outside itself', () => {
    const common = tsFiles('impl/common');
    expect(common).toContain('impl/common/process.ts');
    expect(crossings(common, (target) => !target.startsWith('impl/common/'))).toEqual([]);
  });
});
