-- One field of the cell's config hash, read from the store once per script call (a batch asks per item).
local configFields = {}
local function configField(configKey, field)
  local key = configKey .. '\0' .. field
  local value = configFields[key]
  if value == nil then
    value = redis.call('HGET', configKey, field) or false
    configFields[key] = value
  end
  return value
end
