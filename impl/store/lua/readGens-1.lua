--[[
  Reads gen[s] of spec/DHSched.tla for many sessions at once: the worker's periodic sweep,
  which fences every runtime whose generation is no longer current (Fence(w, s, e), its read
  batched; the sweep's reads are not traced, as readGen's untraced read). The gen keys are
  ARGV[1] .. s (same hash tag). Writes nothing.

  KEYS[1] config (not read: it routes the call to the cell's slot)
  ARGV[1] gen key prefix    ARGV[2] ... sessions

  Returns { w, e, phase, w, e, phase, ... }, one triple per session in ARGV order;
  { '', 0, '' } for a session with no generation.
]]
--- @include "includes/generation"

local out = {}
for i = 2, #ARGV do
  local gen = readGeneration(ARGV[1] .. ARGV[i])
  if gen == nil then
    out[#out + 1] = ''
    out[#out + 1] = 0
    out[#out + 1] = ''
  else
    out[#out + 1] = gen.w
    out[#out + 1] = gen.e
    out[#out + 1] = gen.ph
  end
end
return out
