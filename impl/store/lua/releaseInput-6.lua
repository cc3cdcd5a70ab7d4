--[[
  Revalidate-and-release, before each input: ReleaseInput(w, s, e) of spec/DHSched.tla.
    - gen[s] = (w, e, claimed), claimed by the caller's incarnation, and released[s].seq =
      seq - 1 and seq is appended: released[s] := (seq, w, e), and the input goes to the
      runtime.
    - The same, but released[s] is already (seq, w, e): a retry whose first reply was lost;
      the input is returned again and nothing is written (no second release).
    - gen[s] is not (w, e, claimed) by this incarnation, or the cursor is elsewhere: the
      runtime has lost execution authority; it stops and tears down.
  Unsafe baselines (ARGV[4], spec constant Protocol), for comparisons only:
    - assignment_time, claim_only: nothing is checked; any appended seq is released.
    - workerid_only: the epoch is not compared.

    - With auditing on, the release is appended to the cell's audit stream (k = release);
      with tracing on, a refusal too (k = lost: lost authority; k = noinput).

  KEYS[1] gen:<s>    KEYS[2] rel:<s>    KEYS[3] log:<s>    KEYS[4] text:<s>
  KEYS[5] config     KEYS[6] audit
  ARGV[1] w    ARGV[2] e    ARGV[3] seq
  ARGV[4] protocol: dhsched | assignment_time | claim_only | workerid_only    ARGV[5] s
  ARGV[6] the runtime's incarnation (checked by dhsched only)

  Returns { requestId, text, log length } of input seq (the length tells the worker whether
  more is waiting, without another round trip), or
    Code.LOST_AUTHORITY   not the current claimed generation, or cursor not at seq - 1
    Code.NO_INPUT         nothing is appended at seq yet
]]
--- @include "includes/generation"
--- @include "includes/audit"
--- @include "includes/trace"

local w, e, seq, protocol = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local function refused(kind, code)
  traceTo(KEYS[5], KEYS[6], 'k', kind, 's', ARGV[5], 'w', w, 'e', e, 'q', seq)
  return code
end
if protocol == 'dhsched' or protocol == 'workerid_only' then
  local gen = readGeneration(KEYS[1])
  if gen == nil or gen.w ~= w or gen.ph ~= 'claimed' then
    return refused('lost', Code.LOST_AUTHORITY)
  end
  if protocol == 'dhsched' and (gen.e ~= e or redis.call('HGET', KEYS[1], 'i') ~= ARGV[6]) then
    return refused('lost', Code.LOST_AUTHORITY)
  end
  local rel = redis.call('HMGET', KEYS[2], 'seq', 'w', 'e')
  local cursor = tonumber(rel[1] or '0')
  if protocol == 'dhsched' and cursor == seq and rel[2] == w and tonumber(rel[3]) == e then
    return { redis.call('LINDEX', KEYS[3], seq - 1), redis.call('LINDEX', KEYS[4], seq - 1),
      redis.call('LLEN', KEYS[3]) }
  end
  if cursor ~= seq - 1 then
    return refused('lost', Code.LOST_AUTHORITY)
  end
end
local requestId = redis.call('LINDEX', KEYS[3], seq - 1)
if not requestId then
  return refused('noinput', Code.NO_INPUT)
end
redis.call('HSET', KEYS[2], 'seq', seq, 'w', w, 'e', e)
audit(KEYS[5], KEYS[6], 'k', 'release', 's', ARGV[5], 'w', w, 'e', e, 'q', seq)
return { requestId, redis.call('LINDEX', KEYS[4], seq - 1), redis.call('LLEN', KEYS[3]) }
