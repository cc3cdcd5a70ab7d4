--[[
  Teardown: the stopped runtime (s, e) frees its token on w: Teardown(w, s, e) of
  spec/DHSched.tla. Idempotent. With tracing on, it is appended to the cell's audit stream
  (k = teardown).

  KEYS[1] tokens:<w>
  ARGV[1] s    ARGV[2] e    ARGV[3] w    ARGV[4] the cell's key prefix, for the trace

  Returns 1 if the token was held, 0 if it was already free. Never a negative code.
]]
--- @include "includes/token"
--- @include "includes/trace"

trace(ARGV[4], 'k', 'teardown', 's', ARGV[1], 'w', ARGV[3], 'e', ARGV[2])
return redis.call('SREM', KEYS[1], tokenOf(ARGV[1], ARGV[2]))
