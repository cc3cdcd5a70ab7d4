--[[
  Reads gen[s] of spec/DHSched.tla: what CreateLive and Migrate read before admitCommit,
  and what a runtime checks to fence itself (Fence(w, s, e)). Writes nothing.

  KEYS[1] gen:<s>

  Returns { w, e, phase }, or
    Code.NO_SESSION   the session has no generation
]]
--- @include "includes/generation"

local gen = readGeneration(KEYS[1])
if gen == nil then
  return Code.NO_SESSION
end
return { gen.w, gen.e, gen.ph }
