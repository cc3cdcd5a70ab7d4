-- log[s] of spec/DHSched.tla: a list of (request id, text) pairs in append order, input seq at
-- positions 2 seq - 1 and 2 seq (1-based), so one RPUSH appends an input and one LRANGE reads inputs.
local function logLength(logKey)
  return redis.call('LLEN', logKey) / 2
end

-- Inputs from + 1 .. to as LRANGE returns them: request id, text, request id, text, ...
local function logRange(logKey, from, to)
  return redis.call('LRANGE', logKey, 2 * from, 2 * to - 1)
end
