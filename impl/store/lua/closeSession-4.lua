--[[
  CloseLive: Close(s) of spec/DHSched.tla.
    - gen[s].phase := closed; s leaves the cell's live sessions and its owner's placed set
      (ARGV[2] .. owner, same hash tag). Every later step on s fails; the owner's runtime
      stops and tears down: its stream (ARGV[3] .. owner) tells it that (s, e) is superseded
      (fields s, x = e), so it is fenced as soon as the owner reads it.

    - With auditing on, the close is appended to the cell's audit stream (k = close); with
      tracing on, a refusal too (k = notlive).

  KEYS[1] gen:<s>    KEYS[2] sessions    KEYS[3] config    KEYS[4] audit
  ARGV[1] s    ARGV[2] placed key prefix    ARGV[3] stream key prefix

  Returns the epoch of the closed generation, or
    Code.NO_SESSION   the session has no generation
    Code.CLOSED       it is already closed
]]
--- @include "includes/audit"
--- @include "includes/live"
--- @include "includes/trace"

local gen = readGeneration(KEYS[1])
local refused = notLive(gen)
if refused then
  traceTo(KEYS[3], KEYS[4], 'k', 'notlive', 'step', 'close', 's', ARGV[1], 'ph', gen and gen.ph or 'none')
  return refused
end
redis.call('HSET', KEYS[1], 'ph', 'closed')
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('SREM', ARGV[2] .. gen.w, ARGV[1])
redis.call('XADD', ARGV[3] .. gen.w, '*', 's', ARGV[1], 'x', gen.e)
audit(KEYS[3], KEYS[4], 'k', 'close', 's', ARGV[1], 'w', gen.w, 'e', gen.e)
return gen.e
