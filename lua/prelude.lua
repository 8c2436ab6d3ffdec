-- qless_py Lua core, built from lua/*.lua by scripts/build_lua.py.
--
-- Called as EVALSHA <sha> 0 <command> <now> <args...>. Positional argument n of a
-- command is ARGV[n + 2]; commands read ARGV directly so variadic commands are not
-- limited by unpack(). Everything here is local: since Redis 6.2.7 the global
-- environment and the standard libraries are read-only.

local rcall = redis.call
local encode, decode = cjson.encode, cjson.decode
local floor, ceil, sqrt, huge = math.floor, math.ceil, math.sqrt, math.huge
local format, concat, lower = string.format, table.concat, string.lower
local tonumber, tostring, type, pairs, ipairs, error, pcall = tonumber, tostring, type, pairs, ipairs, error, pcall
local unpack = unpack
local A = ARGV

-- Module tables; the files that follow attach their functions to these.
local Job, Queue, Recur, Worker, Stats, Tags, Track, Config, Api = {}, {}, {}, {}, {}, {}, {}, {}, {}
-- Small shared helpers (numbers, JSON fragments, time formats).
local U = {}

-- Per-call state: configuration values already read, and queues to wake at the end.
local cfg = {}
local wake = {}

-- Key names: the only place they are spelled.
local key = {
  config = 'ql:config', queues = 'ql:queues', paused = 'ql:paused_queues',
  workers = 'ql:workers', tracked = 'ql:tracked', tags = 'ql:tags',
  failures = 'ql:failures', completed = 'ql:completed',
}
local K_JOB, K_QUEUE = 'ql:j:', 'ql:q:'
function key.job(jid) return K_JOB .. jid end
function key.history(jid) return K_JOB .. jid .. '-history' end
function key.dependencies(jid) return K_JOB .. jid .. '-dependencies' end
function key.dependents(jid) return K_JOB .. jid .. '-dependents' end
-- suffix: work | locks | scheduled | depends | recur
function key.queue(q, suffix) return K_QUEUE .. q .. '-' .. suffix end
function key.worker_jobs(w) return 'ql:w:' .. w .. ':jobs' end
function key.worker_channel(w) return 'ql:w:' .. w end
function key.tag(t) return 'ql:t:' .. t end
function key.failure_group(g) return 'ql:f:' .. g end
-- kind: wait | run | stats
function key.stats(kind, day, q) return 'ql:s:' .. kind .. ':' .. day .. ':' .. q end
function key.recur(jid) return 'ql:r:' .. jid end
function key.channel(name) return 'ql:' .. name end
function key.wake(q) return 'qlpy:wake:' .. q end

-- Raise an error whose text contains the catalogue phrase `msg` verbatim.
local function fail(msg) error(msg, 2) end

-- A finite number parsed like Lua's tonumber, or nil. nan and +-inf are rejected.
function U.num(v)
  local n = tonumber(v)
  if n and n == n and n ~= huge and n ~= -huge then return n end
  return nil
end

-- A JSON string for `v`, or the literal false for a missing value (cjson's rendering of a
-- missing hash field that was copied into an object).
function U.jstr(v)
  if v == false or v == nil then return 'false' end
  return encode(v)
end

-- A JSON array built from already-encoded elements; cjson writes an empty list as {}.
function U.jlist(parts)
  if #parts == 0 then return '{}' end
  return '[' .. concat(parts, ',') .. ']'
end

-- The day bin of a timestamp (UTC midnight, floored modulo).
function U.day_of(t) return t - (t % 86400) end

-- The `time` field format: C %.20f.
function U.time_text(t) return format('%.20f', t) end

-- Work-set score (protocol 2.8).
function U.work_score(priority, t) return priority - (t / 10000000000) end

-- Decoded JSON list of strings, or nil when the text is not a list of strings/numbers.
function U.string_list(v)
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
