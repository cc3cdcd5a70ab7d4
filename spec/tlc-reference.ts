/** spec/tlc-reference/: what real TLC reported for each model of spec/models.json (see its README). */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { specDir } from './manifest.js';

const dir = path.join(specDir, 'tlc-reference');
const count = z.number().int().nonnegative().nullable();

/** One model's figures, as TLC printed them (`violated` is TLC's words, without "Error: " and the period). */
const TlcFigures = z.object({
  model: z.string(),
  exitCode: z.number().int(),
  violated: z.string().nullable(),
  distinctStates: count,
  generatedStates: count,
  depth: count,
  tlcSeconds: z.number(),
  traceFile: z.string().nullable(),
});
export type TlcFigures = z.infer<typeof TlcFigures>;

export interface TlcReference {
  /** By `.cfg` file name. */
  figures: Map<string, TlcFigures>;
  /** TLC's `-dumpTrace json` counterexample for a model, if it wrote one. */
  trace(cfg: string): unknown;
}

export function loadTlcReference(): TlcReference {
  const index = z
    .object({ projectCommit: z.string(), models: z.array(z.object({ model: z.string() })) })
    .parse(JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')));
  const figures = new Map(
    index.models.map(({ model }) => {
      const file = path.join(dir, model.replace(/\.cfg$/, '.json'));
      return [model, TlcFigures.parse(JSON.parse(fs.readFileSync(file, 'utf8')))] as const;
    }),
  );
  return {
    figures,
    trace(cfg) {
      const file = figures.get(cfg)?.traceFile;
      return file ? (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as unknown) : undefined;
    },
  };
}

/** A `-dumpTrace json` counterexample without its source locations. */
export function withoutLocations(trace: unknown): unknown {
  return JSON.parse(JSON.stringify(trace), (key, value: unknown) => (key === 'location' ? undefined : value));
}
