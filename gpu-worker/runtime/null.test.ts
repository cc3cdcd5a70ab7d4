import { describe, expect, it } from 'vitest';
import { nullRuntime } from './null.js';
import type { Input } from './pipeline.js';

const stamp = { cell: 'c1', session: 's1', epoch: 2, worker: 'w1' };
const input = (seq: number): Input => ({ seq, requestId: `r${seq}`, text: 'hello' });

describe('the null runtime', () => {
  it('restores and processes inputs in order, rendering nothing', async () => {
    const rt = nullRuntime.open(stamp);
    await rt.restore([input(1), input(2)]);
    expect(await rt.process(input(3))).toEqual([]);
    expect(rt.cursor).toBe(3);
    expect(rt.idleFrame()).toMatchObject({ ...stamp, seq: 3, index: 0 });
  });

  it('refuses an input out of order, and any after close', async () => {
    const rt = nullRuntime.open(stamp);
    await expect(rt.process(input(2))).rejects.toThrow('out of order');
    await rt.process(input(1));
    await rt.close();
    await expect(rt.process(input(2))).rejects.toThrow('closed');
    expect(() => rt.idleFrame()).toThrow('closed');
  });
});
