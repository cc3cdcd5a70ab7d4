import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Entry, JournalError, appendRun, openJournal } from './fault-journal.js';

const head = { journal: 'faults' as const, protocol: 'dhsched' as const, firstSeed: 10 };
const none = { 'dual-release': 0, 'stale-release': 0, gap: 0, unreleased: 0, overshoot: 0 };
const run = (seed: number): Entry => ({
  seed,
  commit: 'abc',
  faults: ['kill-worker'],
  rejected: false,
  violations: none,
  seconds: 1,
});
const fresh = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'journal-')), 'j.jsonl');

describe('the fault journal', () => {
  it('starts with its head line and gives back the runs appended, within the seeds asked for', () => {
    const file = fresh();
    expect(openJournal(file, head, 5).size).toBe(0);
    for (const seed of [10, 12, 14, 15]) appendRun(file, run(seed));
    expect([...openJournal(file, head, 5).keys()].sort()).toEqual([10, 12, 14]);
    expect(openJournal(file, head, 100).get(15)).toEqual(run(15));
  });

  it('drops a last line cut short, so that run is run again', () => {
    const file = fresh();
    openJournal(file, head, 5);
    appendRun(file, run(10));
    fs.appendFileSync(file, JSON.stringify(run(11)).slice(0, 20));
    expect([...openJournal(file, head, 5).keys()]).toEqual([10]);
    appendRun(file, run(11));
    expect([...openJournal(file, head, 5).keys()]).toEqual([10, 11]);
  });

  it('refuses a journal of another protocol or first seed, or with a line that is not a run', () => {
    const file = fresh();
    openJournal(file, head, 5);
    expect(() => openJournal(file, { ...head, firstSeed: 11 }, 5)).toThrow(
      /from seed 10, not dhsched from seed 11/,
    );
    expect(() => openJournal(file, { ...head, protocol: 'claim_only' }, 5)).toThrow(JournalError);
    fs.appendFileSync(file, '{"seed":1}\n');
    expect(() => openJournal(file, head, 5)).toThrow(
      /j\.jsonl:2: commit: Invalid input: expected string, received undefined/,
    );
    const before = fs.readFileSync(file, 'utf8');
    expect(() => openJournal(file, head, 5)).toThrow(JournalError);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });
});
