/** The callgrind count of a push at a tiny size: every input released, and a count in a sane range. */
import { describe, expect, it } from 'vitest';
import { runStoreInstructions } from './run.js';

describe('bench-store-instructions', () => {
  it('counts Redis instructions over the pushes alone', async () => {
    const result = await runStoreInstructions({ sessions: 20, batches: 3, batchSize: 4 });
    expect(result).toMatchObject({ sessions: 20, batches: 3, batchSize: 4, pushes: 12, audit: true });
    expect(result.redis).toMatch(/^\d+\.\d+/);
    // a push is two scripts and a few commands: tens of thousands of instructions, not millions
    expect(result.instructionsPerPush).toBeGreaterThan(20_000);
    expect(result.instructionsPerPush).toBeLessThan(1_000_000);
  }, 120_000);
});
