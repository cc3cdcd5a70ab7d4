-- An integer as a decimal string, for a store argument: redis.call would format a Lua number with
-- "%.17g", which costs several times as much.
local function decimal(n)
  return string.format('%d', n)
end
