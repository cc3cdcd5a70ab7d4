-- log[s] of spec/DHSched.tla: a list of (request id, text) pairs in append order, input seq at
-- positions 2 seq - 1 and 2 seq (1-based), so one RPUSH appends an input and one LRANGE reads inputs.
--- @include "decimal"
local function logLength(logKey)
  return redis.call('LLEN', logKey) / 2
end

-- Appends (request id, text); returns its seq.
local function logAppend(logKey, requestId, text)
  return redis.call('RPUSH', logKey, requestId, text) / 2
end

-- Removes the last input.
local function logDropLast(logKey)
  redis.call('LTRIM', logKey, 0, -3)
end

-- Inputs from + 1 .. to as LRANGE returns them: request id, text, request id, text, ...
local function logRange(logKey, from, to)
  return redis.call('LRANGE', logKey, decimal(2 * from), decimal(2 * to - 1))
end
