--[[
  One page of the cell's live sessions with their generations, gen[s] of spec/DHSched.tla
  (ListSessions). The gen keys
  are ARGV[3] .. s (same hash tag). Writes nothing.

  KEYS[1] sessions
  ARGV[1] cursor ('0' to start)    ARGV[2] page size hint    ARGV[3] gen key prefix

  Returns { next cursor ('0' when done), { s, w, e, phase, s, w, e, phase, ... } }.
]]
--- @include "includes/generation"

local page = redis.call('SSCAN', KEYS[1], ARGV[1], 'COUNT', tonumber(ARGV[2]))
local out = {}
for _, s in ipairs(page[2]) do
  local gen = readGeneration(ARGV[3] .. s)
  if gen ~= nil then
    out[#out + 1] = s
    out[#out + 1] = gen.w
    out[#out + 1] = gen.e
    out[#out + 1] = gen.ph
  end
end
return { page[1], out }
