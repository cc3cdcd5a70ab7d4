--- @include "generation"
-- Why a step on a session whose generation is in `phase` (false or nil: it has none) is refused:
-- NO_SESSION or CLOSED; nil when it is live.
local function refusalInPhase(phase)
  if not phase then
    return Code.NO_SESSION
  end
  if not livePhase(phase) then
    return Code.CLOSED
  end
  return nil
end

-- The same for a generation as readGeneration returns it (nil: none).
local function notLive(gen)
  return refusalInPhase(gen and gen.ph)
end
