--[[
  Append an input, idempotent on the client's request id: PushText(s, r) of spec/DHSched.tla.
    - Only while the session is live.
    - A request id already in the log returns its seq and writes it again, unchanged: the
      write makes a following WAIT cover the original append, even one made on another
      connection.
    - A new request id is refused QUEUE_FULL while the session already has maxQueued inputs
      appended and not released (ARGV[6]; 0: no limit). The refusal writes nothing and is not
      traced: the spec's PushText has no such bound (a client retries it later).
    - Otherwise the input is appended at seq = length + 1 and announced on the owner's
      stream (ARGV[3] .. owner, same hash tag), so the owner learns of it even if the
      Dispatch that appended it crashes before telling it.
    - With tracing on, the outcome is appended to the cell's audit stream (k = append, with
      its seq and whether it was a duplicate; k = notlive for a refusal).

  KEYS[1] gen:<s>    KEYS[2] log:<s>    KEYS[3] req:<s>    KEYS[4] text:<s>    KEYS[5] rel:<s>
  ARGV[1] requestId    ARGV[2] text    ARGV[3] stream key prefix    ARGV[4] s
  ARGV[5] the cell's key prefix, for the trace    ARGV[6] maxQueued (0: no limit)

  Returns { seq, 1 if the request id was already appended else 0, owner w, owner e }, or
    Code.NO_SESSION   the session has no generation
    Code.CLOSED       the session is closed
    Code.QUEUE_FULL   maxQueued inputs of the session are not released yet
]]
--- @include "includes/live"
--- @include "includes/trace"

local gen = readGeneration(KEYS[1])
local refused = notLive(gen)
if refused then
  trace(ARGV[5], 'k', 'notlive', 'step', 'append', 's', ARGV[4], 'ph', gen and gen.ph or 'none')
  return refused
end
local existing = redis.call('HGET', KEYS[3], ARGV[1])
if existing then
  redis.call('HSET', KEYS[3], ARGV[1], existing)
  trace(ARGV[5], 'k', 'append', 's', ARGV[4], 'r', ARGV[1], 'q', existing, 'dup', 1)
  return { tonumber(existing), 1, gen.w, gen.e }
end
local maxQueued = tonumber(ARGV[6])
if maxQueued > 0 then
  local released = tonumber(redis.call('HGET', KEYS[5], 'seq') or '0')
  if redis.call('LLEN', KEYS[2]) - released >= maxQueued then
    return Code.QUEUE_FULL
  end
end
local seq = redis.call('RPUSH', KEYS[2], ARGV[1])
trace(ARGV[5], 'k', 'append', 's', ARGV[4], 'r', ARGV[1], 'q', seq, 'dup', 0)
redis.call('HSET', KEYS[3], ARGV[1], seq)
redis.call('RPUSH', KEYS[4], ARGV[2])
redis.call('XADD', ARGV[3] .. gen.w, '*', 's', ARGV[4], 'q', seq)
return { seq, 0, gen.w, gen.e }
