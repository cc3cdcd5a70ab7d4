-- Appends one protocol step to the cell's audit stream when the cell's config has audit = 1: the
-- history (rels of spec/DHSched.tla) that tests, trace validation and ownership runs check.
--- @include "config"
local function audit(configKey, auditKey, ...)
  if configField(configKey, 'audit') == '1' then
    redis.call('XADD', auditKey, '*', ...)
  end
end
