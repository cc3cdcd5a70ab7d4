/**
 * Seeded protocol mutants: each one small, deliberate bug in the implementation, given as an exact text
 * replacement in one file (the text must occur exactly once, or the mutant is reported broken). The
 * conformance suite must fail on every one (`./scripts/mutants`).
 */
export interface Mutant {
  name: string;
  /** What the bug breaks, in the protocol's words. */
  breaks: string;
  /** Relative to the repository root. */
  file: string;
  find: string;
  replace: string;
}

const lua = (step: string) => `impl/store/lua/${step}.lua`;

export const mutants: Mutant[] = [
  {
    name: 'no-epoch-in-revalidation',
    breaks: 'revalidation compares the worker but not the epoch (WorkerID-only)',
    file: lua('releaseBatch-2'),
    find: "elseif protocol == 'dhsched' and (ge ~= epoch or gi ~= incarnation) then",
    replace: "elseif protocol == 'dhsched' and gi ~= incarnation then",
  },
  {
    name: 'no-source-epoch-guard',
    breaks: 'a move commits whatever the generation became since it was read',
    file: lua('admitCommit-12'),
    find: 'elseif not (isLive(gen) and gen.w == src and gen.e == e) then',
    replace: 'elseif not isLive(gen) then',
  },
  {
    name: 'tokens-per-session',
    breaks: 'one capacity token per session instead of per generation',
    file: 'impl/store/lua/includes/token.lua',
    find: "return s .. '|' .. e",
    replace: "return s .. '|0'",
  },
  {
    name: 'no-token-release-on-teardown',
    breaks: 'a torn-down runtime keeps its slot',
    file: lua('teardown-1'),
    find: "return redis.call('SREM', KEYS[1], tokenOf(ARGV[1], ARGV[2]))",
    replace: "return redis.call('SISMEMBER', KEYS[1], tokenOf(ARGV[1], ARGV[2]))",
  },
  {
    name: 'batch-revalidates-first-only',
    breaks: "a batch revalidates its first runtime's generation only; the others release unchecked",
    file: lua('releaseBatch-2'),
    find: "  if protocol == 'dhsched' or protocol == 'workerid_only' then",
    replace: "  if (protocol == 'dhsched' or protocol == 'workerid_only') and k == 5 then",
  },
  {
    name: 'batch-revalidates-against-first-generation',
    breaks:
      "each runtime of a batch is checked against the first runtime's generation: one whose session moved releases across that change",
    file: lua('releaseBatch-2'),
    find: "      generationText(genKey, 'w', 'e', 'ph', 'rseq', 'i', 'rw', 're', 'rfrom')\n",
    replace:
      "      generationText(genKey, 'w', 'e', 'ph', 'rseq', 'i', 'rw', 're', 'rfrom')\n" +
      "    if gw then gw, ge, ph, gi = generationText(prefix .. 'gen:' .. ARGV[5], 'w', 'e', 'ph', 'i') end\n",
  },
  {
    name: 'append-ignores-idempotency-key',
    breaks: 'a retried PushText is appended again',
    file: lua('appendBatch-2'),
    find: "    if redis.call('HSETNX', reqKey, r, seqText) == 0 then",
    replace: '    if false then',
  },
  {
    name: 'admission-skips-lease',
    breaks: 'a worker whose lease expired is still admitted',
    file: lua('admitCommit-12'),
    find: "if not live then\n  redis.call('HSET', KEYS[4], 'expiresAt', 0)\n  return refused(Code.NOT_LIVE)\nend",
    replace: '',
  },
  {
    name: 'admission-skips-capacity',
    breaks: 'admit-and-commit ignores the capacity tokens',
    file: lua('admitCommit-12'),
    find: "if redis.call('SCARD', KEYS[2]) >= tonumber(redis.call('GET', KEYS[3])) then",
    replace: 'if false then',
  },
  {
    name: 'admission-skips-draining',
    breaks: 'a draining worker still takes placements',
    file: lua('admitCommit-12'),
    find: "if redis.call('SISMEMBER', KEYS[6], w) == 1 then",
    replace: 'if false then',
  },
  {
    name: 'undrain-leaves-worker-draining',
    breaks: 'an undrain answers done but the worker still takes no placements',
    file: lua('undrain-2'),
    find: "local ended = redis.call('SREM', KEYS[2], ARGV[1])",
    replace: "local ended = redis.call('SISMEMBER', KEYS[2], ARGV[1])",
  },
  {
    name: 'undrain-ends-every-drain',
    breaks: "undraining one worker undoes every other worker's drain too",
    file: lua('undrain-2'),
    find: "local ended = redis.call('SREM', KEYS[2], ARGV[1])",
    replace: "local ended = redis.call('SREM', KEYS[2], ARGV[1])\nredis.call('DEL', KEYS[2])",
  },
  {
    name: 'claim-ignores-phase',
    breaks: 'a closed generation can be claimed',
    file: lua('claim-3'),
    find: "if gen.ph == 'assigned' and (gen.e == e or protocol == 'workerid_only') then",
    replace: "if gen.ph ~= 'claimed' and (gen.e == e or protocol == 'workerid_only') then",
  },
  {
    name: 'append-after-close',
    breaks: 'a closed session still takes input',
    file: lua('appendBatch-2'),
    find: '  local refused = refusalInPhase(phase)',
    replace: '  local refused = not phase and Code.NO_SESSION or nil',
  },
  {
    name: 'register-keeps-epoch',
    breaks: 'a worker that comes back takes its sessions back under the epochs its lapsed lease held',
    file: lua('registerWorker-8'),
    find: 'local ne = gen.e + 1',
    replace: 'local ne = gen.e',
  },
  {
    name: 'expired-lease-renewed',
    breaks: 'an expired lease is renewed: a falsely suspected worker keeps its sessions',
    file: lua('renewLease-1'),
    find: "if not live then\n  redis.call('HSET', KEYS[1], 'expiresAt', 0)\n  trace(ARGV[4], 'k', 'lapse', 'w', ARGV[5])\n  return Code.NOT_LIVE\nend",
    replace: '',
  },
  {
    name: 'get-then-set-commit',
    breaks: 'a commit re-reads the generation and commits against it: the read and the write are two steps',
    file: 'impl/dispatch/core.ts',
    find: '        expected: plan.from,',
    replace:
      '        expected: plan.from && ((await steps.readGen(this.store, { cell, session })) ?? plan.from),',
  },
  {
    name: 'release-before-revalidation',
    breaks: 'the runtime takes the input before the store revalidates it, and keeps it when refused',
    file: 'gpu-worker/controller.ts',
    find: "        slot.stopReason ??= 'lost_authority';\n        return { slot, outcome: 'stopped', inputs: [] };",
    replace:
      "        slot.cursor += 1;\n        slot.stopReason ??= 'lost_authority';\n        return { slot, outcome: 'stopped', inputs: [] };",
  },
  {
    name: 'assignment-stream-not-consumed',
    breaks: "the worker ignores its work stream's assignments: only a StartRuntime starts a runtime",
    file: 'gpu-worker/controller.ts',
    find: "else if ('e' in entry) starts.push(this.startRuntime(entry.s, entry.e));",
    replace: "else if ('e' in entry) continue;",
  },
  {
    name: 'reconstruct-not-from-log',
    breaks: "the new runtime resumes at the store's cursor with state from elsewhere, not the log's inputs",
    file: 'gpu-worker/controller.ts',
    find: '      await runtime.restore(released.entries);',
    replace: '      await runtime.restore([]);',
  },
];
