-- Tok(s, e): one capacity token per generation.
local function tokenOf(s, e)
  return s .. '|' .. e
end
