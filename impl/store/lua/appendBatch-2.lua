--[[
  Append a batch of inputs, each idempotent on its client's request id: PushText(s, r) of
  spec/DHSched.tla once per input, in ARGV order, back to back in one store step (a batch
  of one is the unary PushText). For each input (s, r, text):
    - Only while the session is live.
    - A request id already in the log returns its seq and writes it again, unchanged: the
      write makes a following WAIT cover the original append, even one made on another
      connection.
    - A new request id is refused QUEUE_FULL while the session already has maxQueued inputs
      appended and not released (ARGV[3]; 0: no limit). The refusal leaves nothing written and is not
      traced: the spec's PushText has no such bound (a client retries it later).
    - Otherwise the input is appended at seq = length + 1.
  Each owner is told once, on its stream (ARGV[2] .. owner, same hash tag), of the last seq
  the batch appended to each of its sessions (one entry, field a = "s seq s seq ..."), so it
  learns of them even if the Dispatch that appended them crashes before telling it. Keys of
  session s are the cell's prefix .. 'gen:' .. s etc. (the same hash tag as KEYS). With
  tracing on, each outcome is appended to the cell's audit stream (k = append, with its seq
  and whether it was a duplicate; k = notlive for a refusal).

  KEYS[1] config    KEYS[2] audit
  ARGV[1] the cell's key prefix    ARGV[2] stream key prefix    ARGV[3] maxQueued (0: no limit)
  ARGV[4 + 3k], ARGV[5 + 3k], ARGV[6 + 3k]: input k's s, requestId, text

  Returns two integers per input, in ARGV order (flat: a nested reply costs Redis more to build):
    seq, 1 if the request id was already appended else 0
    Code.NO_SESSION, 0   the session has no generation
    Code.CLOSED, 0       the session is closed
    Code.QUEUE_FULL, 0   maxQueued inputs of the session are not released yet
]]
--- @include "includes/live"
--- @include "includes/log"
--- @include "includes/trace"

local prefix, streamPrefix, maxQueued = ARGV[1], ARGV[2], tonumber(ARGV[3])
local traced = tracing(KEYS[1])
local replies = {}
local function reply(first, second)
  replies[#replies + 1] = first
  replies[#replies + 1] = second
end
-- per owner told, its sessions with their last seq ("s seq s seq ..."); at[s]: where s's seq stands
local told, owners, at = {}, {}, {}
for k = 4, #ARGV, 3 do
  local s, r = ARGV[k], ARGV[k + 1]
  local genKey, logKey, reqKey = prefix .. 'gen:' .. s, prefix .. 'log:' .. s, prefix .. 'req:' .. s
  local owner, phase, rseq = generationText(genKey, 'w', 'ph', 'rseq')
  local refused = refusalInPhase(phase)
  if refused then
    if traced then
      traceTo(KEYS[1], KEYS[2], 'k', 'notlive', 'step', 'append', 's', s, 'ph', phase or 'none')
    end
    reply(refused, 0)
  else
    -- appended first (RPUSH tells the new length), taken back below when it must not stay
    local seq = logAppend(logKey, r, ARGV[k + 2])
    local seqText = decimal(seq)
    if redis.call('HSETNX', reqKey, r, seqText) == 0 then
      logDropLast(logKey)
      local existing = redis.call('HGET', reqKey, r)
      redis.call('HSET', reqKey, r, existing)
      if traced then
        traceTo(KEYS[1], KEYS[2], 'k', 'append', 's', s, 'r', r, 'q', existing, 'dup', 1)
      end
      reply(tonumber(existing), 1)
    elseif maxQueued > 0 and seq - 1 - tonumber(rseq or 0) >= maxQueued then
      logDropLast(logKey)
      redis.call('HDEL', reqKey, r)
      reply(Code.QUEUE_FULL, 0)
    else
      if traced then
        traceTo(KEYS[1], KEYS[2], 'k', 'append', 's', s, 'r', r, 'q', seqText, 'dup', 0)
      end
      local list = told[owner]
      if list == nil then
        list = {}
        told[owner] = list
        owners[#owners + 1] = owner
      end
      if at[s] == nil then
        list[#list + 1] = s
        list[#list + 1] = seqText
        at[s] = #list
      else
        list[at[s]] = seqText
      end
      reply(seq, 0)
    end
  end
end
for _, w in ipairs(owners) do
  redis.call('XADD', streamPrefix .. w, '*', 'a', table.concat(told[w], ' '))
end
return replies
