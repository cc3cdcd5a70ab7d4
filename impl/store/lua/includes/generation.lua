-- The generation gen[s] of spec/DHSched.tla, or nil when the session has none (phase "none").
local function readGeneration(genKey)
  local g = redis.call('HMGET', genKey, 'w', 'e', 'ph')
  if not g[1] then
    return nil
  end
  return { w = g[1], e = tonumber(g[2]), ph = g[3] }
end

-- Live(s): the session is placed and not closed.
local function isLive(gen)
  return gen ~= nil and (gen.ph == 'assigned' or gen.ph == 'claimed')
end
