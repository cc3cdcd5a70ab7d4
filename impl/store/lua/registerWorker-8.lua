--[[
  Registers worker w as a new incarnation: Register(w) of spec/DHSched.tla.
    - Refused while w's lease is live, or while some live session's generation names w
      (recovery must move those first).
    - Otherwise: incarnation + 1, lease live until now + ttlMs, capacity and RPC address
      set, tokens and work stream cleared, w no longer draining, w listed among the
      cell's workers. The worker stops every runtime it still has before it takes work.
    - With tracing on, a registration is appended to the cell's audit stream (k = register).

  KEYS[1] lease:<w>    KEYS[2] cap:<w>    KEYS[3] tokens:<w>    KEYS[4] stream:<w>
  KEYS[5] draining     KEYS[6] placed:<w>    KEYS[7] workers    KEYS[8] load:<w>
  ARGV[1] w    ARGV[2] cap    ARGV[3] now (ms)    ARGV[4] ttlMs    ARGV[5] addr
  ARGV[6] the cell's key prefix, for the trace

  Returns the new incarnation (>= 1), or
    Code.LEASE_LIVE        the lease has not expired at now
    Code.SESSIONS_PLACED   a live session is still placed on w
]]
--- @include "includes/lease"
--- @include "includes/trace"

local w = ARGV[1]
local now = tonumber(ARGV[3])

if leaseLive(KEYS[1], now) then
  return Code.LEASE_LIVE
end
if redis.call('SCARD', KEYS[6]) > 0 then
  return Code.SESSIONS_PLACED
end

local incarnation = redis.call('HINCRBY', KEYS[1], 'incarnation', 1)
redis.call('HSET', KEYS[1], 'expiresAt', now + tonumber(ARGV[4]), 'addr', ARGV[5])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[3], KEYS[4], KEYS[8])
redis.call('SREM', KEYS[5], w)
redis.call('SADD', KEYS[7], w)
trace(ARGV[6], 'k', 'register', 'w', w, 'i', incarnation)
return incarnation
