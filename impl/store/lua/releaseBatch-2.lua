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
  With auditing on, the batch's releases are appended to the cell's audit stream as one entry
  (k = releases, w, a = "s e first last s e first last ...": runtime (s, e) released inputs
  first .. last), after the batch's refusals; with tracing on, each refusal is an entry of its
  own (k = lost: lost authority; k = noinput).

  KEYS[1] config    KEYS[2] audit
  ARGV[1] the cell's key prefix    ARGV[2] w
  ARGV[3] protocol: dhsched | assignment_time | claim_only | workerid_only
  ARGV[4] max: inputs released per runtime at most
  ARGV[5 + 4k], ARGV[6 + 4k], ARGV[7 + 4k], ARGV[8 + 4k]: runtime k's s, e, incarnation, from

  Returns, per runtime in ARGV order, three integers and then its n inputs, all in one flat
  array (a nested reply costs Redis more to build):
    1, appended, n, requestId, text, ...   inputs from + 1 .. from + n, where appended is the
                                           log's length, or from + max + 1 when more than
                                           max inputs wait
    Code.LOST_AUTHORITY, 0, 0              not the current claimed generation, or cursor
                                           not at from
    Code.NO_INPUT, from, 0                 nothing appended at from + 1
]]
--- @include "includes/generation"
--- @include "includes/audit"
--- @include "includes/log"
--- @include "includes/trace"

local prefix, w, protocol, max = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local replies, replied = {}, 0
-- one runtime's reply: code, appended, n, then the first n inputs of `entries` (request id, text, ...)
local function reply(code, appended, n, entries)
  replies[replied + 1], replies[replied + 2], replies[replied + 3] = code, appended, n
  replied = replied + 3
  for j = 1, 2 * n do
    replies[replied + j] = entries[j]
  end
  replied = replied + 2 * n
end
-- per runtime that released inputs: s, e, first, last
local released = {}
for k = 5, #ARGV, 4 do
  local s, epoch, incarnation, fromText = ARGV[k], ARGV[k + 1], ARGV[k + 2], ARGV[k + 3]
  local from = tonumber(fromText)
  local genKey = prefix .. 'gen:' .. s
  -- the inputs already released by (w, e) after `from`: a retry after a lost reply
  local again = 0
  local lost = false
  -- released[s] already names (w, e): a release moves only its cursor
  local sameMover = false
  if protocol == 'dhsched' or protocol == 'workerid_only' then
    local gw, ge, ph, rseq, gi, rw, re, rfrom =
      generationText(genKey, 'w', 'e', 'ph', 'rseq', 'i', 'rw', 're', 'rfrom')
    rseq = rseq or '0'
    if gw ~= w or ph ~= 'claimed' then
      lost = true
    elseif protocol == 'dhsched' and (ge ~= epoch or gi ~= incarnation) then
      lost = true
    elseif rseq ~= fromText then
      local retried = rw == w and re == epoch and rfrom == fromText and tonumber(rseq) > from
      if protocol == 'dhsched' and retried then
        again = math.min(tonumber(rseq) - from, max)
      else
        lost = true
      end
    end
    sameMover = rw == w and re == epoch
  end
  if lost then
    traceTo(KEYS[1], KEYS[2], 'k', 'lost', 's', s, 'w', w, 'e', epoch, 'q', decimal(from + 1))
    reply(Code.LOST_AUTHORITY, 0, 0)
  else
    -- inputs from + 1 .. from + max, and one more, which tells whether more wait
    local entries = logRange(prefix .. 'log:' .. s, from, from + max + 1)
    local waiting = #entries / 2
    local last = from + math.min(waiting, max)
    if last == from then
      traceTo(KEYS[1], KEYS[2], 'k', 'noinput', 's', s, 'w', w, 'e', epoch, 'q', decimal(from + 1))
      reply(Code.NO_INPUT, from, 0)
    else
      if last > from + again then
        local first, lastText, n = from + again + 1, decimal(last), #released
        released[n + 1], released[n + 2], released[n + 3], released[n + 4] =
          s, epoch, first == last and lastText or decimal(first), lastText
        if sameMover then
          redis.call('HSET', genKey, 'rseq', lastText, 'rfrom', fromText)
        else
          redis.call('HSET', genKey, 'rseq', lastText, 'rw', w, 're', epoch, 'rfrom', fromText)
        end
      end
      reply(1, from + waiting, last - from, entries)
    end
  end
end
if #released > 0 then
  audit(KEYS[1], KEYS[2], 'k', 'releases', 'w', w, 'a', table.concat(released, ' '))
end
return replies
