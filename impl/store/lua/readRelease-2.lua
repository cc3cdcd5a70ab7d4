--[[
  Source-independent reconstruction: Reconstruct(w, s, e) of spec/DHSched.tla reads
  released[s]; the new runtime rebuilds its state from the log up to it, never from the
  source worker. Writes nothing but, when the caller is runtime (w, e) reconstructing and
  the cell traces, the read to the cell's audit stream (k = reconstruct, q = the cursor).

  KEYS[1] gen:<s> (released[s] is kept there)    KEYS[2] log:<s>
  ARGV[1] fromSeq: entries after it are returned (0 for the whole prefix)
  ARGV[2] the cell's key prefix, for the trace ('' : the read is no traced step)
  ARGV[3] s    ARGV[4] w    ARGV[5] e

  Returns { seq, w, e, { requestId, text, ... }, log length } where seq is the release
  cursor (0, '', 0 before any release) and the list holds inputs fromSeq + 1 .. seq.
]]
--- @include "includes/generation"
--- @include "includes/log"
--- @include "includes/trace"

local gen = readGeneration(KEYS[1], 7)
local seq = gen and gen.rseq or 0
trace(ARGV[2], 'k', 'reconstruct', 's', ARGV[3], 'w', ARGV[4], 'e', ARGV[5], 'q', decimal(seq))
local from = tonumber(ARGV[1])
local entries = {}
if seq > from then
  entries = logRange(KEYS[2], from, seq)
end
return { seq, gen and gen.rw or '', gen and gen.re or 0, entries, logLength(KEYS[2]) }
