import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type RecordedRun, judge, loadRecorded, saveRecorded } from './recorded.js';
import { describeRejection } from './validate.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recorded-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};
// Init, then a create of s1 on w1 committed and claimed, and input 1 released by it
const run: RecordedRun = {
  seed: 7,
  scenario: { any: 'shape' },
  sessions: ['s1'],
  workers: ['w1'],
  capacity: 1,
  appended: { s1: 1 },
  stream: [
    ['1-0', ['k', 'commit', 's', 's1', 'w', 'w1', 'e', '1', 'from', '']],
    ['2-0', ['k', 'claim', 's', 's1', 'w', 'w1', 'e', '1', 'ok', 'claimed']],
    ['3-0', ['k', 'reconstruct', 's', 's1', 'w', 'w1', 'e', '1', 'q', '0']],
    ['4-0', ['k', 'append', 's', 's1', 'r', 'r1', 'q', '1', 'dup', '0']],
    ['5-0', ['k', 'release', 's', 's1', 'w', 'w1', 'e', '1', 'q', '1']],
  ],
};

describe('recorded runs', () => {
  it('are saved, read back and judged: this one is a behaviour of the spec with nothing for the history checker', () => {
    const p = path.join(dir, 'run.json');
    saveRecorded(p, run);
    const back = loadRecorded(p);
    expect(back).toEqual(run);
    const { verdict, history } = judge(back);
    expect(verdict.rejection).toBeUndefined();
    expect(verdict.accepted).toBe(5);
    expect(history.releases).toBe(1);
    expect(history.violations).toEqual([]);
  });

  it('an input released twice is judged a rejection and a history violation', () => {
    const again: [string, string[]] = ['6-0', run.stream[4]![1]];
    const { verdict, history } = judge({ ...run, stream: [...run.stream, again] });
    expect(verdict.rejection?.entryId).toBe('6-0');
    expect(history.violations.map((v) => v.kind)).toEqual(['dual-release']);
  });

  it('a file that is not a recorded run is refused, saying what is wrong', () => {
    expect(() => loadRecorded(file('a.json', 'root:x:0:0'))).toThrow(/a\.json: not a JSON file/);
    expect(() => loadRecorded(file('b.json', '{"sessions":[]}'))).toThrow(/not a recorded run: sessions: /);
    expect(() => loadRecorded(file('c.json', JSON.stringify({ ...run, extra: 1 })))).toThrow(
      /Unrecognized key/,
    );
    const bad = { ...run, stream: [['1-0', ['k', 'commit', 's', 's1']]] };
    expect(() => judge(loadRecorded(file('d.json', JSON.stringify(bad))))).toThrow(
      /audit stream entry 1-0 .* is malformed/,
    );
  });
});

// real runs ./scripts/faults once found rejected, kept once the validator or the system was mended
const corpus = path.join(path.dirname(fileURLToPath(import.meta.url)), 'recorded');
describe('the recorded runs in conformance/validate/recorded/', () => {
  it.each(fs.readdirSync(corpus).filter((f) => f.endsWith('.json')))(
    '%s is accepted, with no violation',
    (name) => {
      const { verdict, history } = judge(loadRecorded(path.join(corpus, name)));
      expect(verdict.rejection && describeRejection(verdict.rejection)).toBeUndefined();
      expect(verdict.accepted).toBe(verdict.events);
      expect(history.violations).toEqual([]);
    },
  );
});
