--[[
  Publishes worker w's load figures for the Dispatch load views: load[w] of
  spec/DHSched.tla (advisory: ranking reads it, admission never does).
    - Only the current incarnation publishes; a superseded one is refused.

  KEYS[1] lease:<w>    KEYS[2] load:<w>
  ARGV[1] incarnation    ARGV[2] runtimes    ARGV[3] queued inputs    ARGV[4] now (ms)

  Returns 1, or
    Code.UNKNOWN_WORKER      w never registered
    Code.STALE_INCARNATION   a newer incarnation registered
]]
local incarnation = redis.call('HGET', KEYS[1], 'incarnation')
if not incarnation then
  return Code.UNKNOWN_WORKER
end
if incarnation ~= ARGV[1] then
  return Code.STALE_INCARNATION
end
redis.call('HSET', KEYS[2], 'runtimes', ARGV[2], 'queued', ARGV[3], 'at', ARGV[4])
return 1
