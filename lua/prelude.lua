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
local floor = math.floor
local format, concat = string.format, table.concat
-- Base functions (tonumber, pairs, ...) are read as globals: aliasing them in locals
-- costs more per call (every closure binds them) than it saves.
local A = ARGV

-- Module tables; the files that follow attach their functions to these.
local Job, Queue, Recur, Worker, Stats, Tags, Track, Config, Api = {}, {}, {}, {}, {}, {}, {}, {}, {}

-- Per-call state, made only when a call needs it: `cfg` holds the configuration values
-- already read (false: the call knows the config hash does not exist), `wake` the queue
-- to wake at the end (a name), or the queues (a set, when there are several).
local cfg, wake

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
  fine = 'ql:fine:',
}

-- Statistics hash of `kind` (wait | run | stats) for a day bin and a queue; the fine
-- histograms (extension) are key.fine followed by the wait or run hash's name. A day bin
-- is whole (day_of), and below 1e14 %d writes the digits that %.14g (Lua's number text)
-- does, for a fraction of the cost; -0 and the rest keep Lua's own text.
local function stats_key(kind, day, queue)
  if day >= 1 and day < 1e14 then
    return 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue
  end
  return 'ql:s:' .. kind .. ':' .. day .. ':' .. queue
end

-- Raise an error whose text contains the catalogue phrase `msg` verbatim.
local function fail(msg) error(msg, 2) end

-- A finite number parsed like Lua's tonumber, or nil. nan and +-inf are rejected.
local function num(v)
  local n = tonumber(v)
  -- n - n is 0 for every finite number, and nan for nan and for +-inf.
  if n and n - n == 0 then return n end
  return nil
end

-- A JSON string for `v`, or the literal false for a missing value (cjson's rendering of a
-- missing hash field that was copied into an object).
local function jstr(v)
  if v == false or v == nil then return 'false' end
  return encode(v)
end

-- The JSON text of a number stored as text `v` (floored when `whole`), or nil when `v` is
-- not a number. A single digit, as priority, retries and remaining usually are, is its own
-- JSON text: parsing and formatting it again would cost several string conversions.
local function num_json(v, whole)
  if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
      or v == '7' or v == '8' or v == '9' then
    return v
  end
  local n = tonumber(v)
  if n == nil then return nil end
  if whole then n = floor(n) end
  return encode(n)
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

-- Lua's text for floor(t) (%.14g), cut from `tstr` (t's time_text) when the caller has it:
-- for 0 <= t < 1e14 the integer part of %.20f has the same digits (no exponent, and no
-- fraction of a double rounds up into it). Cutting a string costs a fifth of formatting.
local function whole_text(t, tstr)
  if tstr and t >= 0 and t < 1e14 then return tstr:sub(1, -22) end
  return tostring(floor(t))
end

-- `now` as a score or range bound for Redis: its time_text `tstr` when that parses back to
-- exactly `now` (|now| >= 1, where 20 decimals are far finer than the spacing of doubles),
-- which spares Redis formatting the number with %.17g; else the number.
local function score_arg(now, tstr)
  if now >= 1 then return tstr end
  return now
end

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
  if not cfg then cfg = {} end
  for i = 1, #names do cfg[names[i]] = values[i] end
end

-- Stored value of a config field (string) or false, cached for this call.
local function config_raw(name)
  if cfg == false then return false end
  if cfg == nil then cfg = {} end
  local v = cfg[name]
  if v == nil then
    v = rcall('HGET', key.config, name)
    cfg[name] = v
  end
  return v
end

-- Mark `queue` as having gained poppable work: its workers are woken at the end of the call.
local function wake_queue(queue)
  if not wake or wake == queue then
    wake = queue
    return
  end
  if type(wake) == 'string' then wake = { [wake] = true } end
  wake[queue] = true
end

-- Numeric config value: the stored value when it parses as a finite number, else `fallback`.
-- A stored value that is not a number falls back too (the reference would fail later).
local function config_number(name, fallback)
  if cfg == false then return fallback end
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
-- that gained poppable work. Published whether or not anyone listens: with no subscriber
-- PUBLISH is one failed channel lookup, half the cost of asking PUBSUB NUMSUB first, and
-- with one it saves that second call.
local function wake_one(queue)
  rcall('PUBLISH', key.wake .. queue, queue)
end
local function wake_workers()
  if not wake then return end
  if type(wake) == 'string' then
    wake_one(wake)
    return
  end
  for q in pairs(wake) do
    wake_one(q)
  end
end
