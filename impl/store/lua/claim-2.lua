--[[
  Claim, when worker w starts generation (s, e): Claim(w, s, e) of spec/DHSched.tla.
    - gen[s] = (w, e, assigned): phase := claimed; the worker starts the runtime.
    - gen[s] = (w, e, claimed): a retried claim (a reply lost on the way); claimed again,
      nothing written.
    - Otherwise the generation is stale: its token is freed and no runtime starts.
  Unsafe baselines (ARGV[4], spec constant Protocol), for comparisons only:
    - assignment_time: nothing is checked or written; the runtime starts.
    - workerid_only: only the worker id and the phase are compared, not the epoch.
  With tracing on, the outcome is appended to the cell's audit stream (k = claim, ok =
  claimed, again for a retried claim, or stale).

  KEYS[1] gen:<s>    KEYS[2] tokens:<w>
  ARGV[1] s    ARGV[2] w    ARGV[3] e
  ARGV[4] protocol: dhsched | assignment_time | claim_only | workerid_only
  ARGV[5] the cell's key prefix, for the trace

  Returns 1 (claimed) or 0 (stale: token freed). Never a negative code.
]]
--- @include "includes/generation"
--- @include "includes/token"
--- @include "includes/trace"

local w, e, protocol = ARGV[2], tonumber(ARGV[3]), ARGV[4]
local function traced(outcome, reply)
  trace(ARGV[5], 'k', 'claim', 's', ARGV[1], 'w', w, 'e', e, 'ok', outcome)
  return reply
end
if protocol == 'assignment_time' then
  return traced('claimed', 1)
end
local gen = readGeneration(KEYS[1])
if gen ~= nil and gen.w == w then
  if gen.ph == 'assigned' and (gen.e == e or protocol == 'workerid_only') then
    redis.call('HSET', KEYS[1], 'ph', 'claimed')
    return traced('claimed', 1)
  end
  if gen.ph == 'claimed' and gen.e == e then
    return traced('again', 1)
  end
end
redis.call('SREM', KEYS[2], tokenOf(ARGV[1], e))
return traced('stale', 0)
