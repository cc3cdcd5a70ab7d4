--[[
  Revalidate-and-release for a batch of runtimes of worker w: ReleaseBatch(w, S) of
  spec/DHSched.tla, and ReleaseInput(w, s, e) as a batch of one runtime and one input. For
  each runtime (s, e), in ARGV order, from its cursor `from`, one ReleaseInput per input:
    - gen[s] = (w, e, claimed), claimed by the runtime's incarnation, and released[s].seq =
      from: inputs from + 1 .. min(log length, from + max) are released, released[s] :=
      (last, w, e), and they go to the runtime.
    - released[s] is already (c, w, e) with c > from, released by a batch that began at from:
      a retry whose first reply was lost; the inputs from + 1 .. c are returned again and not
      released twice, then as above from c. (A runtime asking for anything else before its
      cursor is refused: it would run an input twice.)
    - gen[s] is not (w, e, claimed) by this incarnation, or the cursor is elsewhere: the
      runtime has lost execution authority; it stops and tears down.
    - nothing is appended at from + 1: no input.
  The runtimes of a batch are revalidated one by one, each against its own generation; keys
  of session s are the cell's prefix .. 'gen:' .. s etc. (the same hash tag as KEYS).
  Unsafe baselines (ARGV[3], spec constant Protocol), for comparisons only:
    - assignment_time, claim_only: nothing is checked; any appended input is released.
    - workerid_only: the epoch and the incarnation are not compared.
  With auditing on, each release is appended to the cell's audit stream (k = release); with
  tracing on, a refusal too (k = lost: lost authority; k = noinput).

  KEYS[1] config    KEYS[2] audit
  ARGV[1] the cell's key prefix    ARGV[2] w
  ARGV[3] protocol: dhsched | assignment_time | claim_only | workerid_only
  ARGV[4] max: inputs released per runtime at most
  ARGV[5 + 4k], ARGV[6 + 4k], ARGV[7 + 4k], ARGV[8 + 4k]: runtime k's s, e, incarnation, from

  Returns one reply per runtime, in ARGV order:
    { 1, log length, { requestId, ... }, { text, ... } }   inputs from + 1 .. from + n
    { Code.LOST_AUTHORITY, 0, {}, {} }                     not the current claimed generation,
                                                           or cursor not at from
    { Code.NO_INPUT, log length, {}, {} }                  nothing appended at from + 1
]]
--- @include "includes/generation"
--- @include "includes/audit"
--- @include "includes/trace"

local prefix, w, protocol, max = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local replies = {}
for k = 5, #ARGV, 4 do
  local s, e, incarnation, from = ARGV[k], tonumber(ARGV[k + 1]), ARGV[k + 2], tonumber(ARGV[k + 3])
  local genKey, relKey, logKey, textKey = prefix .. 'gen:' .. s, prefix .. 'rel:' .. s,
    prefix .. 'log:' .. s, prefix .. 'text:' .. s
  local function refused(kind, code)
    traceTo(KEYS[1], KEYS[2], 'k', kind, 's', s, 'w', w, 'e', e, 'q', from + 1)
    return { code, code == Code.NO_INPUT and redis.call('LLEN', logKey) or 0, {}, {} }
  end
  -- the inputs already released by (w, e) after `from`: a retry after a lost reply
  local again = 0
  local reply
  if protocol == 'dhsched' or protocol == 'workerid_only' then
    local gen = readGeneration(genKey)
    if gen == nil or gen.w ~= w or gen.ph ~= 'claimed' then
      reply = refused('lost', Code.LOST_AUTHORITY)
    elseif protocol == 'dhsched' and (gen.e ~= e or gen.i ~= incarnation) then
      reply = refused('lost', Code.LOST_AUTHORITY)
    else
      local rel = redis.call('HMGET', relKey, 'seq', 'w', 'e', 'from')
      local cursor = tonumber(rel[1] or '0')
      if protocol == 'dhsched' and cursor > from and rel[2] == w and tonumber(rel[3]) == e
        and tonumber(rel[4]) == from then
        again = math.min(cursor - from, max)
      elseif cursor ~= from then
        reply = refused('lost', Code.LOST_AUTHORITY)
      end
    end
  end
  if reply == nil then
    local appended = redis.call('LLEN', logKey)
    local last = math.min(appended, from + max)
    if last <= from then
      reply = refused('noinput', Code.NO_INPUT)
    else
      for seq = from + again + 1, last do
        audit(KEYS[1], KEYS[2], 'k', 'release', 's', s, 'w', w, 'e', e, 'q', seq)
      end
      if last > from + again then
        redis.call('HSET', relKey, 'seq', last, 'w', w, 'e', e, 'from', from)
      end
      reply = { 1, appended, redis.call('LRANGE', logKey, from, last - 1),
        redis.call('LRANGE', textKey, from, last - 1) }
    end
  end
  replies[#replies + 1] = reply
end
return replies
