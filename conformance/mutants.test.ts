/** The seeded mutants stay applicable: each one's text occurs exactly once in its file (./scripts/mutants runs them). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mutants } from './mutants.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the seeded mutants', () => {
  it.each(mutants.map((m) => [m.name, m] as const))('%s still applies', (_name, m) => {
    const text = fs.readFileSync(path.join(root, m.file), 'utf8');
    expect(text.split(m.find).length - 1).toBe(1);
    expect(m.replace).not.toBe(m.find);
  });
});
