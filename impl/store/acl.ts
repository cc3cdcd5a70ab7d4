/**
 * Redis users with least privilege, one per role. Every role reaches only the keys of DHSched's cells
 * (`dh:*`, or one cell's `dh:{cell}:*`) and only the commands of its own steps; nothing administrative
 * or dangerous (FLUSHALL, KEYS, CONFIG, DEBUG, SCRIPT FLUSH, ...). Redis checks the commands a Lua
 * script calls, and the keys they touch, against the user that ran it, so a step cannot reach past
 * its role either.
 *
 * The two run the same Lua scripts (EVALSHA cannot be narrowed per script); the roles differ in
 * the plain commands they send: a worker reads its stream with XREAD BLOCK, Dispatch waits on
 * replicas (WAIT).
 */
import { createHash } from 'node:crypto';

export type Role = 'dispatch' | 'worker';

/** The commands the steps' scripts call (acl.test.ts checks this against impl/store/lua/). */
export const SCRIPT_COMMANDS = [
  'del',
  'exists',
  'get',
  'set',
  'hget',
  'hmget',
  'hset',
  'hsetnx',
  'hdel',
  'hincrby',
  'sadd',
  'srem',
  'scard',
  'smembers',
  'sismember',
  'sscan',
  'rpush',
  'llen',
  'lrange',
  'ltrim',
  'xadd',
  'xtrim',
];
const CONNECTION = ['ping', 'info', 'client|setname', 'client|getname', 'select', 'hello', 'auth'];
const SCRIPTING = ['evalsha', 'eval', 'script|load', 'script|exists'];
const OWN: Record<Role, string[]> = { dispatch: ['wait'], worker: ['xread'] };

/** The ACL rules of `role` (for `ACL SETUSER <user> ...` or an aclfile line), without its password. */
export function aclRules(role: Role, cell?: string): string[] {
  const keys = cell === undefined ? '~dh:*' : `~dh:{${cell}}:*`;
  const commands = [...CONNECTION, ...SCRIPTING, ...SCRIPT_COMMANDS, ...OWN[role]];
  return ['reset', 'on', keys, 'resetchannels', '-@all', ...commands.map((c) => `+${c}`)];
}

/** An aclfile line for `user` in `role`: its password stored as a SHA-256 digest, never in clear. */
export function aclLine(user: string, role: Role, password: string, cell?: string): string {
  const digest = createHash('sha256').update(password).digest('hex');
  return ['user', user, ...aclRules(role, cell), `#${digest}`].join(' ');
}
