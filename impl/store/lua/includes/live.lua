--- @include "generation"
-- Why a step on a session that is not live is refused: NO_SESSION or CLOSED; nil when it is live.
local function notLive(gen)
  if gen == nil then
    return Code.NO_SESSION
  end
  if not isLive(gen) then
    return Code.CLOSED
  end
  return nil
end
