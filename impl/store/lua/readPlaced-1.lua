--[[
  Reads the live sessions placed on worker w, each with gen[s] of spec/DHSched.tla: what
  recovery moves when lease[w] expires, and what DrainWorker moves.
  The gen keys are ARGV[1] .. s (same hash tag). Writes nothing but, when the caller plans
  moves on it and the cell traces, one entry per session to the cell's audit stream (k =
  plan: BeginMove's read).

  KEYS[1] placed:<w>
  ARGV[1] gen key prefix
  ARGV[2] the cell's key prefix, for the trace ('' : the read is no traced step)

  Returns { s, w, e, phase, s, w, e, phase, ... } sorted by session id.
]]
--- @include "includes/generation"
--- @include "includes/trace"

local sessions = redis.call('SMEMBERS', KEYS[1])
table.sort(sessions)
local out = {}
for _, s in ipairs(sessions) do
  local gen = readGeneration(ARGV[1] .. s)
  if gen ~= nil then
    out[#out + 1] = s
    out[#out + 1] = gen.w
    out[#out + 1] = gen.e
    out[#out + 1] = gen.ph
    trace(ARGV[2], 'k', 'plan', 's', s, 'gw', gen.w, 'ge', gen.e, 'gph', gen.ph)
  end
end
return out
