--[[
  Reads every worker of the cell in one step: the Dispatch load view (lease[w], Cap,
  |tokens[w]|, draining and load[w] of spec/DHSched.tla) and the expired workers that
  recovery must empty. Per-worker keys are ARGV[1] .. kind .. ':' .. w (same hash tag).
  Writes nothing.

  KEYS[1] workers
  ARGV[1] cell key prefix    ARGV[2] now (ms)

  Returns one entry per worker, sorted by id:
    { w, incarnation, expiresAt, live (1 or 0), cap, tokens, draining (1 or 0), placed,
      addr, runtimes, queued, load published at }
]]
--- @include "includes/lease"

local prefix, now = ARGV[1], tonumber(ARGV[2])
local workers = redis.call('SMEMBERS', KEYS[1])
table.sort(workers)
local view = {}
for _, w in ipairs(workers) do
  local lease = redis.call('HMGET', prefix .. 'lease:' .. w, 'incarnation', 'expiresAt', 'addr')
  local load = redis.call('HMGET', prefix .. 'load:' .. w, 'runtimes', 'queued', 'at')
  view[#view + 1] = {
    w,
    tonumber(lease[1]),
    tonumber(lease[2]),
    leaseLive(prefix .. 'lease:' .. w, now) and 1 or 0,
    tonumber(redis.call('GET', prefix .. 'cap:' .. w)),
    redis.call('SCARD', prefix .. 'tokens:' .. w),
    redis.call('SISMEMBER', prefix .. 'draining', w),
    redis.call('SCARD', prefix .. 'placed:' .. w),
    lease[3] or '',
    tonumber(load[1] or '0'),
    tonumber(load[2] or '0'),
    tonumber(load[3] or '0'),
  }
end
return view
