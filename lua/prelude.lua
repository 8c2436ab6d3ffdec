-- qless_py Lua core, built from lua/*.lua by scripts/build_lua.py.
--
-- Called as EVALSHA <sha> 0 <command> <now> <args...>. Positional argument n of a
-- command is ARGV[n + 2]; commands read ARGV directly so variadic commands are not
-- limited by unpack(). Everything here is local: since Redis 6.2.7 the global
-- environment and the standard libraries are read-only.
--
-- Cost model: Redis runs this whole body on every call, so the prelude keeps only what
-- nearly every command needs (a few small local functions and constant tables); module
-- functions are created lazily by the generated define(), and the busiest commands' common
-- paths are copied into the script body (see scripts/build_lua.py and scripts/lua_inline.py).

local rcall = redis.call
local encode, decode = cjson.encode, cjson.decode
local floor, huge = math.floor, math.huge
local format, concat = string.format, table.concat
-- Base functions (tonumber, pairs, ...) are read as globals: aliasing them in locals
-- costs more per call (every closure binds them) than it saves.
local A = ARGV

-- Module tables; the files that follow attach their functions to these.
local Job, Queue, Recur, Worker, Stats, Tags, Track, Config, Api = {}, {}, {}, {}, {}, {}, {}, {}, {}

-- Per-call state: configuration values already read, and queues to wake at the end.
local cfg = {}
local wake = {}

-- Key names: the only place they are spelled. Job keys are key.job .. jid (.. suffix),
-- queue keys key.queue .. queue .. suffix, worker keys key.worker .. worker (.. key.jobs).
local key = {
  config = 'ql:config', queues = 'ql:queues', paused = 'ql:paused_queues',
  workers = 'ql:workers', tracked = 'ql:tracked', tags = 'ql:tags',
  failures = 'ql:failures', completed = 'ql:completed',
  job = 'ql:j:', history = '-history', dependencies = '-dependencies', dependents = '-dependents',
  queue = 'ql:q:', work = '-work', locks = '-locks', scheduled = '-scheduled',
  depends = '-depends', recurring = '-recur',
  worker = 'ql:w:', jobs = ':jobs', tag = 'ql:t:', failure_group = 'ql:f:', recur = 'ql:r:',
  channel = 'ql:', wake = 'qlpy:wake:',
}

-- Statistics hash of `kind` (wait | run | stats) for a day bin and a queue.
local function stats_key(kind, day, queue) return 'ql:s:' .. kind .. ':' .. day .. ':' .. queue end

-- Raise an error whose text contains the catalogue phrase `msg` verbatim.
local function fail(msg) error(msg, 2) end

-- A finite number parsed like Lua's tonumber, or nil. nan and +-inf are rejected.
local function num(v)
  local n = tonumber(v)
  if n and n == n and n ~= huge and n ~= -huge then return n end
  return nil
end

-- A JSON string for `v`, or the literal false for a missing value (cjson's rendering of a
-- missing hash field that was copied into an object).
local function jstr(v)
  if v == false or v == nil then return 'false' end
  return encode(v)
end

-- A JSON array built from already-encoded elements; cjson writes an empty list as {}.
local function jlist(parts)
  if #parts == 0 then return '{}' end
  return '[' .. concat(parts, ',') .. ']'
end

-- The day bin of a timestamp (UTC midnight, floored modulo).
local function day_of(t) return t - (t % 86400) end

-- The `time` field format: C %.20f.
local function time_text(t) return format('%.20f', t) end

-- Work-set score (protocol 2.8).
local function work_score(priority, t) return priority - (t / 10000000000) end

-- Decoded JSON list of strings, or nil when the value is not a list of strings/numbers.
local function string_list(v)
  if type(v) ~= 'table' then return nil end
  local n = 0
  for k, item in pairs(v) do
    local t = type(item)
    if type(k) ~= 'number' or (t ~= 'string' and t ~= 'number') then return nil end
    n = n + 1
  end
  if n ~= #v then return nil end
  return v
end

-- Read several config fields with one HMGET and remember them for this call.
local function config_prefetch(...)
  local values = rcall('HMGET', key.config, ...)
  local names = { ... }
  for i = 1, #names do cfg[names[i]] = values[i] end
end

-- Stored value of a config field (string) or false, cached for this call.
local function config_raw(name)
  local v = cfg[name]
  if v == nil then
    v = rcall('HGET', key.config, name)
    cfg[name] = v
  end
  return v
end

-- Numeric config value: the stored value when it parses as a finite number, else `fallback`.
-- A stored value that is not a number falls back too (the reference would fail later).
local function config_number(name, fallback)
  local raw = config_raw(name)
  local n = num(raw)
  if n == nil then return fallback end
  return n
end

-- Lock length for a queue: <queue>-heartbeat, else heartbeat, else 60.
local function config_heartbeat(queue)
  local raw = config_raw(queue .. '-heartbeat')
  local n = num(raw)
  if n ~= nil then return n end
  return config_number('heartbeat', 60)
end

-- Wake-up extension: after a command, PUBLISH <queue> on qlpy:wake:<queue> for each queue
-- that gained poppable work, only when someone listens.
local function wake_workers()
  for q in pairs(wake) do
    local wk = key.wake .. q
    if rcall('PUBSUB', 'NUMSUB', wk)[2] > 0 then rcall('PUBLISH', wk, q) end
  end
end
