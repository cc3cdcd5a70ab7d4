--[[
  Claim, when worker w starts generation (s, e): Claim(w, s, e) of spec/DHSched.tla.
    - The claimer is not w's registered incarnation (a process of w that lost its lease,
      still running beside the one registered since): nothing is written, the token stays.
    - gen[s] = (w, e, assigned): phase := claimed, by this incarnation; the worker starts
      the runtime.
    - gen[s] = (w, e, claimed) by this incarnation: a retried claim (a reply lost on the
      way); claimed again, nothing written.
    - Otherwise the generation is stale: its token is freed and no runtime starts.
  Unsafe baselines (ARGV[4], spec constant Protocol), for comparisons only:
    - assignment_time: nothing is checked or written; the runtime starts.
    - claim_only, workerid_only: the incarnation is not checked; workerid_only compares
      only the worker id and the phase, not the epoch.
  With tracing on, the outcome is appended to the cell's audit stream (k = claim, ok =
  claimed, again for a retried claim, or stale); a superseded incarnation's claim is no step.

  KEYS[1] gen:<s>    KEYS[2] tokens:<w>    KEYS[3] lease:<w>
  ARGV[1] s    ARGV[2] w    ARGV[3] e
  ARGV[4] protocol: dhsched | assignment_time | claim_only | workerid_only
  ARGV[5] the cell's key prefix, for the trace    ARGV[6] the claimer's incarnation

  Returns 1 (claimed) or 0 (stale: token freed), or
    Code.STALE_INCARNATION   another incarnation of w is registered (dhsched)
]]
--- @include "includes/generation"
--- @include "includes/token"
--- @include "includes/trace"

local w, e, protocol, incarnation = ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[6]
local function traced(outcome, reply)
  trace(ARGV[5], 'k', 'claim', 's', ARGV[1], 'w', w, 'e', e, 'ok', outcome)
  return reply
end
if protocol == 'assignment_time' then
  return traced('claimed', 1)
end
local checksIncarnation = protocol == 'dhsched'
if checksIncarnation and redis.call('HGET', KEYS[3], 'incarnation') ~= incarnation then
  return Code.STALE_INCARNATION
end
local gen = readGeneration(KEYS[1], 5)
if gen ~= nil and gen.w == w then
  if gen.ph == 'assigned' and (gen.e == e or protocol == 'workerid_only') then
    redis.call('HSET', KEYS[1], 'ph', 'claimed', 'i', incarnation)
    return traced('claimed', 1)
  end
  if gen.ph == 'claimed' and gen.e == e
      and (not checksIncarnation or gen.i == incarnation) then
    return traced('again', 1)
  end
end
redis.call('SREM', KEYS[2], tokenOf(ARGV[1], e))
return traced('stale', 0)
