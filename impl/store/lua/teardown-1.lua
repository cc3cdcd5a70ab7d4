--[[
  Teardown: the stopped runtime (s, e) frees its token on w: Teardown(w, s, e) of
  spec/DHSched.tla. Idempotent.

  KEYS[1] tokens:<w>
  ARGV[1] s    ARGV[2] e

  Returns 1 if the token was held, 0 if it was already free. Never a negative code.
]]
--- @include "includes/token"

return redis.call('SREM', KEYS[1], tokenOf(ARGV[1], ARGV[2]))
