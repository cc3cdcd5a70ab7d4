--[[
  Renews the lease of one incarnation of worker w: keeps lease[w] of spec/DHSched.tla
  live (renewing is what keeps LeaseExpire(w) from happening).
    - An expired lease is never renewed: only registerWorker (Register(w)) revives it.
    - A superseded incarnation cannot renew.
    - A renewal refused because the lease expired marks it expired for good (expiresAt 0), so
      a step still carrying an earlier `now` (queued while Redis was away) cannot find it live
      again: the lapse is where it is in the store's order. With tracing on, it is appended to
      the cell's audit stream (k = lapse): the worker stops its runtimes and registers again.

  KEYS[1] lease:<w>
  ARGV[1] incarnation    ARGV[2] now (ms)    ARGV[3] ttlMs
  ARGV[4] the cell's key prefix, for the trace    ARGV[5] w

  Returns the new expiry (ms), or
    Code.UNKNOWN_WORKER      w never registered
    Code.STALE_INCARNATION   a newer incarnation registered
    Code.NOT_LIVE            the lease expired at or before now
]]
--- @include "includes/lease"
--- @include "includes/trace"

local now = tonumber(ARGV[2])
local live = leaseLive(KEYS[1], now)
if live == nil then
  return Code.UNKNOWN_WORKER
end
if redis.call('HGET', KEYS[1], 'incarnation') ~= ARGV[1] then
  return Code.STALE_INCARNATION
end
if not live then
  redis.call('HSET', KEYS[1], 'expiresAt', 0)
  trace(ARGV[4], 'k', 'lapse', 'w', ARGV[5])
  return Code.NOT_LIVE
end
local expiresAt = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'expiresAt', expiresAt)
return expiresAt
