--[[
  Acknowledges worker w's work stream up to an entry it has handled: the entries before it
  are trimmed (the entry itself stays, so the next read can start after it). Housekeeping
  of the assignment stream, which models inbox[w] of spec/DHSched.tla.

  KEYS[1] stream:<w>
  ARGV[1] id of the last handled entry

  Returns the number of entries trimmed.
]]
return redis.call('XTRIM', KEYS[1], 'MINID', ARGV[1])
