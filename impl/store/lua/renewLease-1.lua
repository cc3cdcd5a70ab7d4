--[[
  Renews the lease of one incarnation of worker w: keeps lease[w] of spec/DHSched.tla
  live (renewing is what keeps LeaseExpire(w) from happening).
    - An expired lease is never renewed: only registerWorker (Register(w)) revives it.
    - A superseded incarnation cannot renew.
    - With tracing on, an expired lease is appended to the cell's audit stream when its
      renewal is refused (k = lapse): the worker stops its runtimes and registers again.

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
if not live then trace(ARGV[4], 'k', 'lapse', 'w', ARGV[5]) end
if not live then
  return Code.NOT_LIVE
end
local expiresAt = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'expiresAt', expiresAt)
return expiresAt
