import { describe, expect, it } from 'vitest';
import { Batcher, Expired } from './batcher.js';

/** A batcher over [key, value] items whose runs are recorded and held until `release` is called. */
function recorded(maxItems = 10) {
  const runs: string[][] = [];
  const held: (() => void)[] = [];
  const batcher = new Batcher<[string, string], string>(
    async (items) => {
      runs.push(items.map(([, v]) => v));
      await new Promise<void>((resolve) => held.push(resolve));
      return items.map(([, v]) => v.toUpperCase());
    },
    { keyOf: ([key]) => key, maxItems },
  );
  const release = async () => {
    while (held.length === 0) await new Promise((r) => setImmediate(r));
    held.shift()!();
  };
  return { batcher, runs, release };
}

describe('Batcher', () => {
  it("sends one turn's requests as one batch, and the ones made meanwhile together in the next", async () => {
    const { batcher, runs, release } = recorded();
    const a = batcher.submit(['s1', 'a']);
    const b = batcher.submit(['s2', 'b']);
    await new Promise((r) => setImmediate(r));
    const c = batcher.submit(['s3', 'c']);
    const d = batcher.submit(['s4', 'd']);
    await release();
    expect(await Promise.all([a, b])).toEqual(['A', 'B']);
    await release();
    expect(await Promise.all([c, d])).toEqual(['C', 'D']);
    expect(runs).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('puts one item per key in a batch, and at most maxItems', async () => {
    const { batcher, runs, release } = recorded(2);
    const all = [
      batcher.submit(['s1', 'a']),
      batcher.submit(['s1', 'b']),
      batcher.submit(['s2', 'c']),
      batcher.submit(['s3', 'd']),
      batcher.submit(['s1', 'e']),
    ];
    for (let i = 0; i < 3; i++) await release();
    expect(await Promise.all(all)).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(runs).toEqual([['a', 'c'], ['b', 'd'], ['e']]);
  });

  it('rejects every request of a failed batch, and goes on with the next', async () => {
    let calls = 0;
    const batcher = new Batcher<string, string>(
      async (items) => {
        if (calls++ === 0) throw new Error('Redis went away');
        return items;
      },
      { maxItems: 10 },
    );
    await expect(batcher.submit('a')).rejects.toThrow('Redis went away');
    expect(await batcher.submit('b')).toBe('b');
  });

  it('without keyOf, lets items of one key share a batch, in order', async () => {
    const runs: string[][] = [];
    const batcher = new Batcher<string, string>(
      async (items) => {
        runs.push(items);
        await new Promise((r) => setImmediate(r));
        return items;
      },
      { maxItems: 10 },
    );
    await Promise.all(['a', 'b', 'b', 'c'].map((x) => batcher.submit(x)));
    expect(runs).toEqual([['a', 'b', 'b', 'c']]);
  });

  it('answers a request whose deadline passed while it waited Expired, without running it', async () => {
    let now = 1000;
    const runs: string[][] = [];
    let unblock = () => {};
    const batcher = new Batcher<string, string>(
      async (items) => {
        runs.push(items);
        if (runs.length === 1) await new Promise<void>((r) => (unblock = r));
        return items;
      },
      { maxItems: 10, now: () => now },
    );
    const first = batcher.submit('a');
    await new Promise((r) => setImmediate(r));
    const late = batcher.submit('b', 1005);
    const onTime = batcher.submit('c', 2000);
    now = 1010;
    unblock();
    expect(await first).toBe('a');
    await expect(late).rejects.toBeInstanceOf(Expired);
    await expect(late).rejects.toThrow('after 10 ms');
    expect(await onTime).toBe('c');
    expect(runs).toEqual([['a'], ['c']]);
  });
});
