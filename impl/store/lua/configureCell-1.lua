--[[
  Sets the cell's configuration. Two settings:
    - audit (1 or 0): whether admitCommit, closeSession and releaseInput append each commit,
      close and release to the cell's audit stream, the history rels[s] of spec/DHSched.tla
      (for tests and ownership runs);
    - trace (1 or 0): whether every protocol step appends to it too (includes/trace), the
      trace of spec/DHSched.tla's steps that trace validation checks.

  KEYS[1] config
  ARGV[1] audit (1 or 0)    ARGV[2] trace (1 or 0)

  Returns 1.
]]
redis.call('HSET', KEYS[1], 'audit', ARGV[1], 'trace', ARGV[2])
return 1
