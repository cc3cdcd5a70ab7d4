-- Appends one protocol step to the cell's audit stream when the cell's config has trace = 1: with the
-- commits, closes and releases of includes/audit, the whole trace of spec/DHSched.tla's steps in the
-- store's order, which trace validation (conformance/validate/) checks against the spec.
--- @include "config"
local function traceTo(configKey, auditKey, ...)
  if configField(configKey, 'trace') == '1' then
    redis.call('XADD', auditKey, '*', ...)
  end
end

-- The same, for a script given the cell's key prefix instead of the two keys ('' : not traced).
local function trace(prefix, ...)
  if prefix ~= '' then
    traceTo(prefix .. 'config', prefix .. 'audit', ...)
  end
end
