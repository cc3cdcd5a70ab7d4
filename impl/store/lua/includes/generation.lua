-- The generation gen[s] of spec/DHSched.tla, or nil when the session has none (phase "none"); `i`:
-- the incarnation of its worker that claimed it (nil while assigned). The same hash holds released[s],
-- so that one read serves a release: the cursor rseq (0 before any release), the generation (rw, re)
-- that moved it, and rfrom, the cursor the batch that moved it began at.
local function readGeneration(genKey)
  local g = redis.call('HMGET', genKey, 'w', 'e', 'ph', 'i', 'rseq', 'rw', 're', 'rfrom')
  if not g[1] then
    return nil
  end
  return { w = g[1], e = tonumber(g[2]), ph = g[3], i = g[4] or nil, rseq = tonumber(g[5] or '0'),
    rw = g[6] or nil, re = tonumber(g[7] or '0'), rfrom = tonumber(g[8] or '0') }
end

-- Live(s): the session is placed and not closed.
local function isLive(gen)
  return gen ~= nil and (gen.ph == 'assigned' or gen.ph == 'claimed')
end
