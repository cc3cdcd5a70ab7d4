-- The generation gen[s] of spec/DHSched.tla, or nil when the session has none (phase "none"); `i`:
-- the incarnation of its worker that claimed it (nil while assigned). The same hash holds released[s],
-- so that one read serves a release: the cursor rseq (0 before any release), the generation (rw, re)
-- that moved it, and rfrom, the cursor the batch that moved it began at. `fields`: how many of w, e, ph,
-- rseq, i, rw, re, rfrom it reads, in that order (the rest are nil, rseq, re and rfrom 0); absent: 3, the
-- generation alone. A field read costs a script about half a microsecond; a field not read is not
-- parsed either (tonumber costs as much as reading it).
local GENERATION_FIELDS = { 'w', 'e', 'ph', 'rseq', 'i', 'rw', 're', 'rfrom' }
local function readGeneration(genKey, fields)
  local g = redis.call('HMGET', genKey, unpack(GENERATION_FIELDS, 1, fields or 3))
  if not g[1] then
    return nil
  end
  return { w = g[1], e = tonumber(g[2]), ph = g[3], rseq = g[4] and tonumber(g[4]) or 0, i = g[5] or nil,
    rw = g[6] or nil, re = g[7] and tonumber(g[7]) or 0, rfrom = g[8] and tonumber(g[8]) or 0 }
end

-- Live(s) in terms of gen[s]'s phase: the session is placed and not closed.
local function livePhase(phase)
  return phase == 'assigned' or phase == 'claimed'
end

local function isLive(gen)
  return gen ~= nil and livePhase(gen.ph)
end

-- Fields of gen[s] as the store holds them: text, false where absent; no table is built and nothing
-- parsed. A push's append and release compare them as text: integers are written in decimal, by the
-- store and by the workers alike, so equal numbers are equal text.
local function generationText(genKey, ...)
  return unpack(redis.call('HMGET', genKey, ...))
end
