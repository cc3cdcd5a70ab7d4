/**
 * The store's scripts, registered on an ioredis client or cluster under versioned names, and the runner
 * that sends one built call to a client or queues it on a pipeline.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChainableCommander, Cluster, Redis } from 'ioredis';
import { luaCodeTable, storeError } from './codes.js';
import { type LoadedScript, loadScripts } from './loader.js';

/** The Lua sources stay in the source tree; the compiled module finds them from dist/ too. */
export const luaDir = path.join(
  path.dirname(fileURLToPath(import.meta.url)).replace(/[/\\]dist[/\\]impl[/\\]store$/, '/impl/store'),
  'lua',
);

/** A step's name: its script is lua/<name>-<number of keys>.lua (steps.ts declares each one). */
export type Step = string;

/** A step with its KEYS and ARGV, ready to send; `parse` reads a non-negative reply. */
export interface ScriptCall<T> {
  readonly step: Step;
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  readonly parse: (reply: unknown) => T;
}

export type RedisClient = Redis | Cluster;

let loaded: Map<string, LoadedScript> | undefined;

export function scripts(): Map<string, LoadedScript> {
  loaded ??= loadScripts(luaDir, luaCodeTable());
  return loaded;
}

function script(step: Step): LoadedScript {
  const s = scripts().get(step);
  if (!s) throw new Error(`no Lua script for step ${step} in ${luaDir}`);
  return s;
}

/** Registers every script on the client (its pipelines inherit them). Idempotent. */
export function defineScripts(client: RedisClient): void {
  for (const s of scripts().values()) {
    if (!(s.name in client)) client.defineCommand(s.name, { numberOfKeys: s.numberOfKeys, lua: s.lua });
  }
}

type Invoke = (...args: (string | number)[]) => unknown;

function command(target: RedisClient | ChainableCommander, call: ScriptCall<unknown>): Invoke {
  const s = script(call.step);
  if (call.keys.length !== s.numberOfKeys) {
    throw new Error(`${call.step}: ${call.keys.length} keys built, the script takes ${s.numberOfKeys}`);
  }
  const fn = (target as unknown as Record<string, Invoke | undefined>)[s.name];
  if (typeof fn !== 'function') throw new Error(`${s.name} is not defined: call defineScripts(client) first`);
  return fn.bind(target);
}

/** Sends the call and returns Redis's raw reply (a negative integer is a refusal). */
export async function runCall(client: RedisClient, call: ScriptCall<unknown>): Promise<unknown> {
  return command(client, call)(...call.keys, ...call.args);
}

/** Queues the call on a pipeline or MULTI; read its reply with `readReply` after exec. */
export function queueCall(pipeline: ChainableCommander, call: ScriptCall<unknown>): void {
  command(pipeline, call)(...call.keys, ...call.args);
}

const loadedShas = new WeakMap<RedisClient, Promise<Map<Step, string>>>();

/** Loads every script on the server (SCRIPT LOAD, once per client); the SHA-1 of each step's script. */
export function loadScriptShas(client: RedisClient): Promise<Map<Step, string>> {
  let shas = loadedShas.get(client);
  if (!shas) {
    shas = (async () => {
      const out = new Map<Step, string>();
      for (const s of scripts().values()) out.set(s.step, String(await client.script('LOAD', s.lua)));
      return out;
    })();
    loadedShas.set(client, shas);
  }
  return shas;
}

/**
 * Queues the call on a pipeline as EVALSHA of its script, loaded by `loadScriptShas`: for a pipeline of
 * many reads (a pipeline of ioredis's script commands sends each script's whole source).
 */
export function queueEvalsha(
  pipeline: ChainableCommander,
  shas: Map<Step, string>,
  call: ScriptCall<unknown>,
): void {
  const sha = shas.get(call.step);
  if (sha === undefined) throw new Error(`no loaded script for step ${call.step}`);
  pipeline.evalsha(sha, call.keys.length, ...call.keys, ...call.args);
}

/** The step's result: a negative integer reply becomes the StoreError it names. */
export function readReply<T>(call: ScriptCall<T>, reply: unknown): T {
  if (typeof reply === 'number' && reply < 0) throw storeError(reply, call.step);
  return call.parse(reply);
}
