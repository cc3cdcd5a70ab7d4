-- One field of the cell's config hash, read from the store once per script call (a batch asks per item).
local configFields = {}
local function configField(configKey, field)
  local fields = configFields[configKey]
  if fields == nil then
    fields = {}
    configFields[configKey] = fields
  end
  local value = fields[field]
  if value == nil then
    value = redis.call('HGET', configKey, field) or false
    fields[field] = value
  end
  return value
end
