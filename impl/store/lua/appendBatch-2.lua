--[[
  Append a batch of inputs, each idempotent on its client's request id: PushText(s, r) of
  spec/DHSched.tla once per input, in ARGV order, back to back in one store step (a batch
  of one is the unary PushText). For each input (s, r, text):
    - Only while the session is live.
    - A request id already in the log returns its seq and writes it again, unchanged: the
      write makes a following WAIT cover the original append, even one made on another
      connection.
    - A new request id is refused QUEUE_FULL while the session already has maxQueued inputs
      appended and not released (ARGV[3]; 0: no limit). The refusal writes nothing and is not
      traced: the spec's PushText has no such bound (a client retries it later).
    - Otherwise the input is appended at seq = length + 1.
  Each session appended to is announced once on its owner's stream (ARGV[2] .. owner, same
  hash tag) with the last seq the batch appended, so the owner learns of it even if the
  Dispatch that appended it crashes before telling it. Keys of session s are the cell's
  prefix .. 'gen:' .. s etc. (the same hash tag as KEYS). With tracing on, each outcome is
  appended to the cell's audit stream (k = append, with its seq and whether it was a
  duplicate; k = notlive for a refusal).

  KEYS[1] config    KEYS[2] audit
  ARGV[1] the cell's key prefix    ARGV[2] stream key prefix    ARGV[3] maxQueued (0: no limit)
  ARGV[4 + 3k], ARGV[5 + 3k], ARGV[6 + 3k]: input k's s, requestId, text

  Returns one reply per input, in ARGV order:
    { seq, 1 if the request id was already appended else 0, owner w, owner e }
    { Code.NO_SESSION }   the session has no generation
    { Code.CLOSED }       the session is closed
    { Code.QUEUE_FULL }   maxQueued inputs of the session are not released yet
]]
--- @include "includes/live"
--- @include "includes/trace"

local prefix, streamPrefix, maxQueued = ARGV[1], ARGV[2], tonumber(ARGV[3])
local replies = {}
-- per session appended to: its owner and the last seq, announced once at the end
local announce, order = {}, {}
for k = 4, #ARGV, 3 do
  local s, r = ARGV[k], ARGV[k + 1]
  local genKey, logKey, reqKey = prefix .. 'gen:' .. s, prefix .. 'log:' .. s, prefix .. 'req:' .. s
  local gen = readGeneration(genKey)
  local refused = notLive(gen)
  local existing = not refused and redis.call('HGET', reqKey, r)
  if refused then
    traceTo(KEYS[1], KEYS[2], 'k', 'notlive', 'step', 'append', 's', s, 'ph', gen and gen.ph or 'none')
    replies[#replies + 1] = { refused }
  elseif existing then
    redis.call('HSET', reqKey, r, existing)
    traceTo(KEYS[1], KEYS[2], 'k', 'append', 's', s, 'r', r, 'q', existing, 'dup', 1)
    replies[#replies + 1] = { tonumber(existing), 1, gen.w, gen.e }
  elseif maxQueued > 0 and redis.call('LLEN', logKey)
      - tonumber(redis.call('HGET', prefix .. 'rel:' .. s, 'seq') or '0') >= maxQueued then
    replies[#replies + 1] = { Code.QUEUE_FULL }
  else
    local seq = redis.call('RPUSH', logKey, r)
    traceTo(KEYS[1], KEYS[2], 'k', 'append', 's', s, 'r', r, 'q', seq, 'dup', 0)
    redis.call('HSET', reqKey, r, seq)
    redis.call('RPUSH', prefix .. 'text:' .. s, ARGV[k + 2])
    if announce[s] == nil then
      order[#order + 1] = s
    end
    announce[s] = { gen.w, seq }
    replies[#replies + 1] = { seq, 0, gen.w, gen.e }
  end
end
for _, s in ipairs(order) do
  redis.call('XADD', streamPrefix .. announce[s][1], '*', 's', s, 'q', announce[s][2])
end
return replies
