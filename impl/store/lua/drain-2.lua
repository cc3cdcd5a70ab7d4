--[[
  DrainWorker: Drain(w) of spec/DHSched.tla. w takes no new placements until it registers
  again; its sessions are moved by admitCommit. Idempotent.

  KEYS[1] lease:<w>    KEYS[2] draining
  ARGV[1] w

  Returns 1 if w started draining, 0 if it already was, or
    Code.UNKNOWN_WORKER   w never registered
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return Code.UNKNOWN_WORKER
end
return redis.call('SADD', KEYS[2], ARGV[1])
