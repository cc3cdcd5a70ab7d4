--[[
  DrainWorker: Drain(w) of spec/DHSched.tla. w takes no new placements until it registers
  again or is undrained (undrain-2.lua); its sessions are moved by admitCommit. Idempotent.
  With tracing on, it is appended to the cell's audit stream (k = drain, started 1 or 0).

  KEYS[1] lease:<w>    KEYS[2] draining
  ARGV[1] w    ARGV[2] the cell's key prefix, for the trace

  Returns 1 if w started draining, 0 if it already was, or
    Code.UNKNOWN_WORKER   w never registered
]]
--- @include "includes/trace"

if redis.call('EXISTS', KEYS[1]) == 0 then
  return Code.UNKNOWN_WORKER
end
local started = redis.call('SADD', KEYS[2], ARGV[1])
trace(ARGV[2], 'k', 'drain', 'w', ARGV[1], 'started', started)
return started
