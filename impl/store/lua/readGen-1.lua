--[[
  Reads gen[s] of spec/DHSched.tla: what CreateLive and Migrate read before admitCommit,
  and what a runtime checks to fence itself (Fence(w, s, e)). Writes nothing but, when the
  caller names the step and the cell traces, the read itself to the cell's audit stream:
  k = plan (a move is planned on it: BeginMove) or k = fence (runtime (w, e)'s Fence).

  KEYS[1] gen:<s>
  ARGV[1] the cell's key prefix, for the trace ('' : the read is no traced step)
  ARGV[2] s    ARGV[3] plan | fence    ARGV[4] w    ARGV[5] e (for a fence)

  Returns { w, e, phase }, or
    Code.NO_SESSION   the session has no generation
]]
--- @include "includes/generation"
--- @include "includes/trace"

local gen = readGeneration(KEYS[1])
local seen = gen and { 'gw', gen.w, 'ge', gen.e, 'gph', gen.ph } or {}
if ARGV[3] == 'fence' then
  trace(ARGV[1], 'k', 'fence', 's', ARGV[2], 'w', ARGV[4], 'e', ARGV[5], unpack(seen))
else
  trace(ARGV[1], 'k', 'plan', 's', ARGV[2], unpack(seen))
end
if gen == nil then
  return Code.NO_SESSION
end
return { gen.w, gen.e, gen.ph }
