--[[
  Reads worker w as the store has it: lease[w], Cap, tokens[w] of spec/DHSched.tla and
  whether w is draining (ListWorkers, the load view, recovery). Writes nothing.

  KEYS[1] lease:<w>    KEYS[2] cap:<w>    KEYS[3] tokens:<w>    KEYS[4] draining
  ARGV[1] w    ARGV[2] now (ms)

  Returns { incarnation, expiresAt, live (1 or 0), cap, draining (1 or 0), { token... },
  addr },
  or
    Code.UNKNOWN_WORKER   w never registered
]]
--- @include "includes/lease"

local live = leaseLive(KEYS[1], tonumber(ARGV[2]))
if live == nil then
  return Code.UNKNOWN_WORKER
end
local lease = redis.call('HMGET', KEYS[1], 'incarnation', 'expiresAt', 'addr')
return {
  tonumber(lease[1]),
  tonumber(lease[2]),
  live and 1 or 0,
  tonumber(redis.call('GET', KEYS[2])),
  redis.call('SISMEMBER', KEYS[4], ARGV[1]),
  redis.call('SMEMBERS', KEYS[3]),
  lease[3] or '',
}
