--[[
  Claim, when worker w starts generation (s, e): Claim(w, s, e) of spec/DHSched.tla.
    - gen[s] = (w, e, assigned): phase := claimed; the worker starts the runtime.
    - Otherwise the generation is stale: its token is freed and no runtime starts.

  KEYS[1] gen:<s>    KEYS[2] tokens:<w>
  ARGV[1] s    ARGV[2] w    ARGV[3] e

  Returns 1 (claimed) or 0 (stale: token freed). Never a negative code.
]]
--- @include "includes/generation"
--- @include "includes/token"

local gen = readGeneration(KEYS[1])
local e = tonumber(ARGV[3])
if gen ~= nil and gen.w == ARGV[2] and gen.e == e and gen.ph == 'assigned' then
  redis.call('HSET', KEYS[1], 'ph', 'claimed')
  return 1
end
redis.call('SREM', KEYS[2], tokenOf(ARGV[1], e))
return 0
