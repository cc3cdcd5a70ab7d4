-- Whether the cell's config has trace = 1; then traceTo appends one protocol step to its audit stream:
-- with the commits, closes and releases of includes/audit, the whole trace of spec/DHSched.tla's steps
-- in the store's order, which trace validation (conformance/validate/) checks against the spec.
--- @include "config"
local function tracing(configKey)
  return configField(configKey, 'trace') == '1'
end

-- A loop over a batch asks `tracing` once and calls traceTo only then: a call that traces nothing still
-- costs a batch item a few thousand instructions.
local function traceTo(configKey, auditKey, ...)
  if tracing(configKey) then
    redis.call('XADD', auditKey, '*', ...)
  end
end

-- The same as traceTo, for a script given the cell's key prefix instead of the two keys ('' : not traced).
local function trace(prefix, ...)
  if prefix ~= '' then
    traceTo(prefix .. 'config', prefix .. 'audit', ...)
  end
end
