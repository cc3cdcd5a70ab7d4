--[[
  Registers worker w as a new incarnation: Register(w) of spec/DHSched.tla.
    - Refused while w's lease is live.
    - Otherwise: incarnation + 1, lease live until now + ttlMs, capacity and RPC address
      set, tokens, work stream and load cleared, w no longer draining, w listed among the
      cell's workers. The worker stops every runtime it still has before it takes work.
    - Every live session still placed on w is taken back as a new generation
      (w, e + 1, assigned): a move to itself, with its token and its entry on w's stream.
      So a cell whose every lease lapsed at once (no live target for recovery) recovers.
    - With tracing on, the registration is appended to the cell's audit stream (k = register)
      before the commits of the sessions taken back (audited as k = commit, from = w).

  KEYS[1] lease:<w>    KEYS[2] cap:<w>    KEYS[3] tokens:<w>    KEYS[4] stream:<w>
  KEYS[5] draining     KEYS[6] placed:<w>    KEYS[7] workers    KEYS[8] load:<w>
  ARGV[1] w    ARGV[2] cap    ARGV[3] now (ms)    ARGV[4] ttlMs    ARGV[5] addr
  ARGV[6] the cell's key prefix (gen:<s>, config and audit of the sessions placed on w)

  Returns { the new incarnation (>= 1), how many sessions were taken back }, or
    Code.LEASE_LIVE        the lease has not expired at now
]]
--- @include "includes/audit"
--- @include "includes/generation"
--- @include "includes/lease"
--- @include "includes/token"
--- @include "includes/trace"

local w, prefix = ARGV[1], ARGV[6]
local now = tonumber(ARGV[3])

if leaseLive(KEYS[1], now) then
  return Code.LEASE_LIVE
end

local incarnation = redis.call('HINCRBY', KEYS[1], 'incarnation', 1)
redis.call('HSET', KEYS[1], 'expiresAt', now + tonumber(ARGV[4]), 'addr', ARGV[5])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[3], KEYS[4], KEYS[8])
redis.call('SREM', KEYS[5], w)
redis.call('SADD', KEYS[7], w)
trace(prefix, 'k', 'register', 'w', w, 'i', incarnation)

local adopted = 0
for _, s in ipairs(redis.call('SMEMBERS', KEYS[6])) do
  local genKey = prefix .. 'gen:' .. s
  local gen = readGeneration(genKey)
  if isLive(gen) and gen.w == w then
    local ne = gen.e + 1
    redis.call('HSET', genKey, 'e', ne, 'ph', 'assigned')
    redis.call('SADD', KEYS[3], tokenOf(s, ne))
    redis.call('XADD', KEYS[4], '*', 's', s, 'e', ne)
    audit(prefix .. 'config', prefix .. 'audit', 'k', 'commit', 's', s, 'w', w, 'e', ne, 'from', w)
    adopted = adopted + 1
  end
end
return { incarnation, adopted }
