import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptLoadError, expandIncludes, loadScript, loadScripts } from './loader.js';

let dir = '';
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-loader-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

describe('expandIncludes', () => {
  it('pastes each include once, where first needed, nested includes first', () => {
    write({
      'step-1.lua': '--- @include "inc/b"\n--- @include "inc/a"\nreturn b()\n',
      'inc/a.lua': 'local function a() return 1 end\n',
      'inc/b.lua': '--- @include "a.lua"\nlocal function b() return a() end\n',
    });
    expect(expandIncludes(path.join(dir, 'step-1.lua'))).toBe(
      [
        'local function a() return 1 end',
        'local function b() return a() end',
        '-- (inc/a is included above)',
        'return b()',
        '',
      ].join('\n'),
    );
  });

  it('rejects a cycle, naming it', () => {
    write({
      'step-1.lua': '--- @include "p"\n',
      'p.lua': '--- @include "q"\n',
      'q.lua': '--- @include "p"\n',
    });
    expect(() => expandIncludes(path.join(dir, 'step-1.lua'))).toThrow(
      new ScriptLoadError('include cycle: p.lua -> q.lua -> p.lua'),
    );
  });

  it('rejects a file that includes itself', () => {
    write({ 'self-0.lua': '--- @include "self-0"\n' });
    expect(() => expandIncludes(path.join(dir, 'self-0.lua'))).toThrow(
      'include cycle: self-0.lua -> self-0.lua',
    );
  });

  it('rejects a missing include, naming the file that wants it', () => {
    write({ 'step-1.lua': '--- @include "inc/nope"\n' });
    expect(() => expandIncludes(path.join(dir, 'step-1.lua'))).toThrow(
      /cannot read .*inc\/nope\.lua \(included from .*step-1\.lua\)/,
    );
  });

  it('leaves other comments alone', () => {
    write({ 'step-1.lua': '-- @include "x"\n---@include x\nreturn 1\n' });
    expect(expandIncludes(path.join(dir, 'step-1.lua'))).toBe('-- @include "x"\n---@include x\nreturn 1\n');
  });
});

describe('loadScript', () => {
  it('takes the step and its key count from the file name, and puts the preamble first', () => {
    write({ 'admitCommit-7.lua': 'return 1\n' });
    const s = loadScript(path.join(dir, 'admitCommit-7.lua'), 'local Code = {}');
    expect(s.step).toBe('admitCommit');
    expect(s.numberOfKeys).toBe(7);
    expect(s.lua).toBe('local Code = {}\nreturn 1\n');
    expect(s.name).toMatch(/^dh_admitCommit_[0-9a-f]{10}$/);
  });

  it('versions the name by content: a changed script or preamble gets a new name', () => {
    write({ 'a-1.lua': 'return 1\n' });
    const file = path.join(dir, 'a-1.lua');
    const first = loadScript(file).name;
    expect(loadScript(file).name).toBe(first);
    expect(loadScript(file, '-- v2').name).not.toBe(first);
    write({ 'a-1.lua': 'return 2\n' });
    expect(loadScript(file).name).not.toBe(first);
  });

  it('rejects a file not named <step>-<numberOfKeys>.lua', () => {
    write({ 'step.lua': 'return 1\n' });
    expect(() => loadScript(path.join(dir, 'step.lua'))).toThrow(ScriptLoadError);
  });
});

describe('loadScripts', () => {
  it('loads every script of the directory by step, not its includes', () => {
    write({
      'a-1.lua': '--- @include "includes/x"\nreturn x\n',
      'b-0.lua': 'return 2\n',
      'includes/x.lua': 'local x = 1\n',
    });
    const scripts = loadScripts(dir);
    expect([...scripts.keys()]).toEqual(['a', 'b']);
    expect(scripts.get('a')!.lua).toBe('\nlocal x = 1\nreturn x\n');
  });

  it('rejects two scripts for one step', () => {
    write({ 'a-1.lua': 'return 1\n', 'a-2.lua': 'return 2\n' });
    expect(() => loadScripts(dir)).toThrow('two scripts for step a');
  });
});
