/** spec/models.json: the models of the DHSched spec that CI, benchmarks and TLC users run. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

export const specDir = path.dirname(fileURLToPath(import.meta.url)).replace(/[/\\]dist[/\\]spec$/, '/spec');

const Model = z.object({
  name: z.string(),
  tla: z.string(),
  cfg: z.string(),
  protocol: z.enum(['dhsched', 'assignment_time', 'claim_only', 'workerid_only']),
  size: z.enum(['small', 'large']),
  /** "pass", or the property the model must violate. */
  expect: z.string(),
  /** The temporal properties the model checks (under the spec's fairness). */
  liveness: z.array(z.string()).optional(),
  /** Added since TLC's figures (spec/tlc-reference/) were last measured: none for it yet. */
  tlcPending: z.boolean().default(false),
});
export type SpecModel = z.output<typeof Model>;

export function loadManifest(): SpecModel[] {
  const raw = JSON.parse(fs.readFileSync(path.join(specDir, 'models.json'), 'utf8')) as unknown;
  return z.object({ spec: z.string(), models: z.array(Model) }).parse(raw).models;
}

/** Where a model's committed counterexample lives (TLC's -dumpTrace json form). */
export function traceFile(m: SpecModel): string {
  return path.join(specDir, 'traces', `${m.name}.trace.json`);
}
