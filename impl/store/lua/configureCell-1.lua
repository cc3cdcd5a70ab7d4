--[[
  Sets the cell's configuration. One setting: audit (1 or 0), whether admitCommit,
  closeSession and releaseInput append each commit, close and release to the cell's audit
  stream, the history rels[s] of spec/DHSched.tla (for tests, trace validation and
  ownership runs).

  KEYS[1] config
  ARGV[1] audit (1 or 0)

  Returns 1.
]]
redis.call('HSET', KEYS[1], 'audit', ARGV[1])
return 1
