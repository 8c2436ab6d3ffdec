-- Configuration: ql:config overrides over built-in defaults (protocol section 7), read
-- once per call.

-- Read several config fields with one HMGET and remember them for this call.
function Config.prefetch(...)
  local values = rcall('HMGET', key.config, ...)
  local names = { ... }
  if not cfg then cfg = {} end
  for i = 1, #names do cfg[names[i]] = values[i] end
end

-- Stored value of a config field (string) or false, cached for this call.
--@inline
function Config.raw(name)
  if cfg == false then return false end
  if cfg == nil then cfg = {} end
  local v = cfg[name]
  if v == nil then
    v = rcall('HGET', key.config, name)
    cfg[name] = v
  end
  return v
end

-- Numeric config value: the stored value when it parses as a finite number, else `fallback`.
-- A stored value that is not a number falls back too (the reference would fail later).
--@inline
function Config.number(name, fallback)
  if cfg == false then return fallback end
  local raw = Config.raw(name)
  local n = Num.parse(raw)
  if n == nil then return fallback end
  return n
end

-- Lock length for a queue: <queue>-heartbeat, else heartbeat, else 60.
--@inline
function Config.heartbeat(queue)
  local raw = Config.raw(queue .. '-heartbeat')
  local n = Num.parse(raw)
  if n ~= nil then return n end
  return Config.number('heartbeat', 60)
end

-- The listed defaults: reported by config.get and returned for unset keys.
function Config.defaults()
  return {
    application = 'qless', heartbeat = 60, ['grace-period'] = 10, ['stats-history'] = 30,
    ['histogram-history'] = 7, ['jobs-history-count'] = 50000, ['jobs-history'] = 604800,
  }
end

-- config.get <now> [key]
-- Reply: the stored value (bulk), the built-in default (integer for numbers, bulk for
-- `application`) or nil; without a key, a JSON object of defaults overlaid with ql:config.
function Config.get(now)
  local name = A[3]
  if name ~= nil then
    local v = rcall('HGET', key.config, name)
    if v then return v end
    return Config.defaults()[name]
  end
  local out = Config.defaults()
  local stored = rcall('HGETALL', key.config)
  for i = 1, #stored, 2 do out[stored[i]] = stored[i + 1] end
  return encode(out)
end

-- Changing <queue>-max-concurrency may free slots: wake that queue's waiting workers.
function Config.wake_if_concurrency(name)
  local suffix = '-max-concurrency'
  if #name > #suffix and name:sub(-#suffix) == suffix then
    Wake.queue(name:sub(1, -#suffix - 1))
  end
end

-- config.set <now> <key> <value>
-- Publishes {"event":"config_set","option","value"} on ql:log, then stores. Reply nil.
-- Errors: config.set(): Arg "option" missing / config.set(): Arg "value" missing
function Config.set(now)
  local name, value = A[3], A[4]
  if name == nil then error('config.set(): Arg "option" missing') end
  if value == nil then error('config.set(): Arg "value" missing') end
  rcall('PUBLISH', key.channel .. 'log', encode({ event = 'config_set', option = name, value = value }))
  rcall('HSET', key.config, name, value)
  Config.wake_if_concurrency(name)
  return nil
end

-- config.unset <now> <key>
-- Publishes {"event":"config_unset","option"} on ql:log, then deletes. Reply nil.
-- Error: config.unset(): Arg "option" missing
function Config.unset(now)
  local name = A[3]
  if name == nil then error('config.unset(): Arg "option" missing') end
  rcall('PUBLISH', key.channel .. 'log', encode({ event = 'config_unset', option = name }))
  rcall('HDEL', key.config, name)
  Config.wake_if_concurrency(name)
  return nil
end
