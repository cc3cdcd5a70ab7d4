-- lease[w] = "live" at `now`; nil when the worker never registered.
local function leaseLive(leaseKey, now)
  local expiresAt = redis.call('HGET', leaseKey, 'expiresAt')
  if not expiresAt then
    return nil
  end
  return tonumber(expiresAt) > now
end
