/** The scripts as files: one per step, each documented truly, every key in the cell's slot. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useStore } from '../test-support/redis.js';
import { StoreCode, luaCodeTable } from './codes.js';
import { expandIncludes } from './loader.js';
import { luaDir, scripts } from './scripts.js';
import * as steps from './steps.js';

const files = fs.readdirSync(luaDir).filter((f) => f.endsWith('.lua'));

describe('the Lua scripts', () => {
  it('are one per declared step, and nothing else', () => {
    const declared = steps.declaredSteps.map((s) => s.stepName);
    expect([...scripts().keys()].sort()).toEqual([...declared].sort());
    expect(new Set(declared).size).toBe(declared.length);
  });

  for (const file of files) {
    it(`${file}: its header names the spec action, every KEYS and ARGV it reads, every code it returns`, () => {
      const source = fs.readFileSync(path.join(luaDir, file), 'utf8');
      const header = /^--\[\[\n([\s\S]*?)\]\]\n/.exec(source)?.[1];
      expect(header, 'a --[[ ... ]] header opens the file').toBeDefined();
      expect(header!.replace(/\s+/g, ' ')).toMatch(/\w+(\([\w, ]*\)|\[\w\]) of spec\/DHSched\.tla/);
      const body = expandIncludes(path.join(luaDir, file));
      const n = Number(/-(\d+)\.lua$/.exec(file)![1]);
      for (let i = 1; i <= n; i++) expect(header).toContain(`KEYS[${i}]`);
      const used = (re: RegExp) => [...new Set([...body.matchAll(re)].map((m) => m[1]!))];
      expect(used(/KEYS\[(\d+)\]/g).every((i) => Number(i) <= n)).toBe(true);
      for (const i of used(/ARGV\[(\d+)\]/g)) expect(header).toContain(`ARGV[${i}]`);
      for (const code of used(/Code\.([A-Z_]+)/g)) {
        expect(luaCodeTable(), code).toContain(` ${code} = `);
        expect(header).toContain(`Code.${code}`);
      }
    });
  }
});

describe('keys', () => {
  it('every key a step is given carries the cell’s hash tag', () => {
    const cell = 'c1';
    const common = { cell, session: 's1', worker: 'w1', epoch: 1, now: 0 };
    const calls = [
      steps.registerWorker.build({ ...common, cap: 1, ttlMs: 1, addr: '127.0.0.1:1' }),
      steps.renewLease.build({ ...common, incarnation: 1, ttlMs: 1 }),
      steps.admitCommit.build({ ...common, target: 'w2', expected: { worker: 'w1', epoch: 1 } }),
      steps.claim.build({ ...common, incarnation: 1 }),
      steps.releaseBatch.build({ ...common, max: 1, runtimes: [{ ...common, incarnation: 1, from: 0 }] }),
      steps.appendBatch.build({ ...common, inputs: [{ session: 's1', requestId: 'r1', text: '' }] }),
      steps.teardown.build(common),
      steps.closeSession.build(common),
      steps.drain.build(common),
      steps.undrain.build(common),
      steps.readGen.build(common),
      steps.readGens.build({ ...common, sessions: ['s1', 's2'] }),
      steps.readRelease.build({ ...common, fromSeq: 0 }),
      steps.readWorker.build(common),
      steps.publishLoad.build({ ...common, incarnation: 1, runtimes: 0, queued: 0 }),
      steps.ackStream.build({ ...common, id: '1-0' }),
      steps.readLoadView.build(common),
      steps.readPlaced.build(common),
      steps.readSessions.build({ ...common, cursor: '0', count: 10 }),
      steps.configureCell.build({ ...common, audit: true, trace: true }),
    ];
    expect(calls.map((c) => c.step).sort()).toEqual(steps.declaredSteps.map((s) => s.stepName).sort());
    for (const c of calls) {
      expect(c.keys).toHaveLength(scripts().get(c.step)!.numberOfKeys);
      for (const k of c.keys) expect(k.startsWith('dh:{c1}:')).toBe(true);
      // key prefixes passed as arguments (scripts that learn a key from a stored value) too
      for (const a of c.args)
        if (typeof a === 'string' && a.startsWith('dh:')) expect(a).toMatch(/^dh:\{c1\}:/);
    }
  });
});

describe('the status code table', () => {
  const f = useStore();
  it('gives each script the enum’s values, and an unknown code is an error, not nil', async () => {
    expect(await f.redis.eval(`${luaCodeTable()}\nreturn Code.FULL`, 0)).toBe(StoreCode.FULL);
    await expect(f.redis.eval(`${luaCodeTable()}\nreturn Code.FUL`, 0)).rejects.toThrow(
      /unknown status code FUL/,
    );
    // the wrappers' own codes are not the scripts' to return
    await expect(f.redis.eval(`${luaCodeTable()}\nreturn Code.NOT_DURABLE`, 0)).rejects.toThrow(
      /unknown status/,
    );
  });
});
