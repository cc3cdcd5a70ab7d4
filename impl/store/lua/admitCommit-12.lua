--[[
  Admit-and-commit: Commit(d) of spec/DHSched.tla, for CreateLive, Migrate, DrainWorker moves
  and Recovery alike.
    - Guard on what the caller read: no generation at all (create, ARGV[3] = ''), or a live
      generation on (src, e) (a move: the source-epoch guard). The source's lease is not
      consulted.
    - Admission on the target w: lease live at now, not draining, fewer tokens than its cap.
      A lease found expired is marked expired for good (expiresAt 0, as renewLease does), so
      a step carrying an earlier `now` (another replica's clock, or a call queued while Redis
      was away) cannot find it live again: the lapse is where it is in the store's order.
    - Commit: gen := (w, e + 1, assigned), token (s, e + 1) added to w, the assignment
      appended to w's stream, s placed on w (and no longer on the source); a move also tells
      the source on its stream that (s, e) is superseded (fields s, x = e), so its runtime is
      fenced as soon as it reads it, without waiting for a sweep; a create also adds s to the
      cell's live sessions. With auditing on, the commit is appended to the cell's audit
      stream (k = commit).
    - With tracing on, a refusal is appended too (k = refused, with its code).

  KEYS[1] gen:<s>    KEYS[2] tokens:<w>    KEYS[3] cap:<w>    KEYS[4] lease:<w>
  KEYS[5] stream:<w>    KEYS[6] draining    KEYS[7] sessions    KEYS[8] placed:<w>
  KEYS[9] placed:<src> (placed:<w> for a create)    KEYS[10] config    KEYS[11] audit
  KEYS[12] stream:<src> (stream:<w> for a create)
  ARGV[1] s    ARGV[2] w    ARGV[3] src ('' for a create)    ARGV[4] e (0 for a create)
  ARGV[5] now (ms)

  Returns the committed epoch e + 1, or
    Code.CONFLICT         the generation is not the one read
    Code.UNKNOWN_WORKER   w never registered
    Code.NOT_LIVE         w's lease expired
    Code.DRAINING         w is draining
    Code.FULL             w holds cap tokens
]]
--- @include "includes/audit"
--- @include "includes/generation"
--- @include "includes/lease"
--- @include "includes/token"
--- @include "includes/trace"

local s, w, src = ARGV[1], ARGV[2], ARGV[3]
local e = tonumber(ARGV[4])
local function refused(code)
  traceTo(KEYS[10], KEYS[11], 'k', 'refused', 's', s, 'w', w, 'from', src, 'e', e, 'code', code)
  return code
end

local gen = readGeneration(KEYS[1])
if src == '' then
  if gen ~= nil then
    return refused(Code.CONFLICT)
  end
elseif not (isLive(gen) and gen.w == src and gen.e == e) then
  return refused(Code.CONFLICT)
end

local live = leaseLive(KEYS[4], tonumber(ARGV[5]))
if live == nil then
  return refused(Code.UNKNOWN_WORKER)
end
if not live then
  redis.call('HSET', KEYS[4], 'expiresAt', 0)
  return refused(Code.NOT_LIVE)
end
if redis.call('SISMEMBER', KEYS[6], w) == 1 then
  return refused(Code.DRAINING)
end
if redis.call('SCARD', KEYS[2]) >= tonumber(redis.call('GET', KEYS[3])) then
  return refused(Code.FULL)
end

local ne = e + 1
redis.call('HSET', KEYS[1], 'w', w, 'e', ne, 'ph', 'assigned')
redis.call('SADD', KEYS[2], tokenOf(s, ne))
redis.call('XADD', KEYS[5], '*', 's', s, 'e', ne)
redis.call('SREM', KEYS[9], s)
redis.call('SADD', KEYS[8], s)
if src == '' then
  redis.call('SADD', KEYS[7], s)
else
  redis.call('XADD', KEYS[12], '*', 's', s, 'x', e)
end
audit(KEYS[10], KEYS[11], 'k', 'commit', 's', s, 'w', w, 'e', ne, 'from', src)
return ne
