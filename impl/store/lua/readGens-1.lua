--[[
  Reads gen[s] of spec/DHSched.tla and the length of log[s] for many sessions at once: the
  worker's periodic sweep, which fences every runtime whose generation is no longer current
  (Fence(w, s, e), its read batched) and wakes a runtime whose log holds input it was not told
  of. The sweep's reads are not traced, as readGen's untraced read. Keys of session s are the
  cell's prefix .. 'gen:' .. s and .. 'log:' .. s (same hash tag). Writes nothing.

  KEYS[1] config (not read: it routes the call to the cell's slot)
  ARGV[1] the cell's key prefix    ARGV[2] ... sessions

  Returns { w, e, phase, log length, w, e, phase, log length, ... }, one quadruple per session
  in ARGV order; { '', 0, '', log length } for a session with no generation.
]]
--- @include "includes/generation"
--- @include "includes/log"

local out = {}
for i = 2, #ARGV do
  local gen = readGeneration(ARGV[1] .. 'gen:' .. ARGV[i])
  if gen == nil then
    out[#out + 1] = ''
    out[#out + 1] = 0
    out[#out + 1] = ''
  else
    out[#out + 1] = gen.w
    out[#out + 1] = gen.e
    out[#out + 1] = gen.ph
  end
  out[#out + 1] = logLength(ARGV[1] .. 'log:' .. ARGV[i])
end
return out
