/**
 * Loads the Lua scripts of the store: one file per step, `<step>-<numberOfKeys>.lua`, with shared pieces
 * pulled in by `--- @include "<path>"` lines (relative to the including file, `.lua` implied). Each
 * include is pasted once, where it is first needed; a cycle or a missing include is an error.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface LoadedScript {
  /** The step, from the file name: `admitCommit` for `admitCommit-7.lua`. */
  readonly step: string;
  readonly numberOfKeys: number;
  /** The script as sent to Redis: preamble, includes and body. */
  readonly lua: string;
  /** The name it is registered under: step and a hash of `lua`, so two releases never collide. */
  readonly name: string;
}

export class ScriptLoadError extends Error {
  override readonly name = 'ScriptLoadError';
}

const INCLUDE = /^\s*---\s*@include\s+"([^"]+)"\s*$/;
const SCRIPT_FILE = /^([A-Za-z][A-Za-z0-9]*)-(\d+)\.lua$/;

type Read = (file: string) => string;
const readUtf8: Read = (file) => fs.readFileSync(file, 'utf8');

/** The file with its includes pasted in, each once. */
export function expandIncludes(file: string, read: Read = readUtf8): string {
  const pasted = new Set<string>();
  const stack: string[] = [];
  const expand = (current: string): string => {
    if (stack.includes(current)) {
      const cycle = [...stack.slice(stack.indexOf(current)), current].map((f) => path.basename(f));
      throw new ScriptLoadError(`include cycle: ${cycle.join(' -> ')}`);
    }
    let source: string;
    try {
      source = read(current);
    } catch {
      const from = stack.length > 0 ? ` (included from ${stack[stack.length - 1]})` : '';
      throw new ScriptLoadError(`cannot read ${current}${from}`);
    }
    stack.push(current);
    const lines = source.split('\n').map((line) => {
      const m = INCLUDE.exec(line);
      if (!m) return line;
      const target = path.resolve(path.dirname(current), m[1]!.endsWith('.lua') ? m[1]! : `${m[1]}.lua`);
      if (stack.includes(target) || !pasted.has(target)) {
        const body = expand(target);
        pasted.add(target);
        return body.replace(/\n$/, '');
      }
      return `-- (${m[1]} is included above)`;
    });
    stack.pop();
    return lines.join('\n');
  };
  return expand(path.resolve(file));
}

/** One step's script; `preamble` is pasted before it (the status code table). */
export function loadScript(file: string, preamble = '', read: Read = readUtf8): LoadedScript {
  const m = SCRIPT_FILE.exec(path.basename(file));
  if (!m) throw new ScriptLoadError(`${file}: a script is named <step>-<numberOfKeys>.lua`);
  const lua = `${preamble}\n${expandIncludes(file, read)}`;
  const hash = createHash('sha1').update(lua).digest('hex').slice(0, 10);
  return { step: m[1]!, numberOfKeys: Number(m[2]), lua, name: `dh_${m[1]}_${hash}` };
}

/** Every script of a directory (its `includes/` subdirectory holds the shared pieces), by step. */
export function loadScripts(dir: string, preamble = ''): Map<string, LoadedScript> {
  const scripts = new Map<string, LoadedScript>();
  for (const f of fs.readdirSync(dir).sort()) {
    if (!f.endsWith('.lua')) continue;
    const script = loadScript(path.join(dir, f), preamble);
    if (scripts.has(script.step)) throw new ScriptLoadError(`${dir}: two scripts for step ${script.step}`);
    scripts.set(script.step, script);
  }
  return scripts;
}
