--[[
  UndrainWorker: Undrain(w) of spec/DHSched.tla. w takes new placements again (admitCommit still
  checks its lease and capacity); no generation, token or session changes. Idempotent. With tracing
  on, it is appended to the cell's audit stream (k = undrain, ended 1 or 0).

  KEYS[1] lease:<w>    KEYS[2] draining
  ARGV[1] w    ARGV[2] the cell's key prefix, for the trace

  Returns 1 if w was draining and no longer is, 0 if it was not draining, or
    Code.UNKNOWN_WORKER   w never registered
]]
--- @include "includes/trace"

if redis.call('EXISTS', KEYS[1]) == 0 then
  return Code.UNKNOWN_WORKER
end
local ended = redis.call('SREM', KEYS[2], ARGV[1])
trace(ARGV[2], 'k', 'undrain', 'w', ARGV[1], 'ended', ended)
return ended
