-- The generation gen[s] of spec/DHSched.tla, or nil when the session has none (phase "none"); `i`:
-- the incarnation of its worker that claimed it (nil while assigned).
local function readGeneration(genKey)
  local g = redis.call('HMGET', genKey, 'w', 'e', 'ph', 'i')
  if not g[1] then
    return nil
  end
  return { w = g[1], e = tonumber(g[2]), ph = g[3], i = g[4] or nil }
end

-- Live(s): the session is placed and not closed.
local function isLive(gen)
  return gen ~= nil and (gen.ph == 'assigned' or gen.ph == 'claimed')
end
