-- built by scripts/build_lua.py from lua/*.lua; do not edit

-- ==== prelude.lua ====
-- qless_py Lua core, built from lua/*.lua by scripts/build_lua.py.
--
-- Called as EVALSHA <sha> 0 <command> <now> <args...>. Positional argument n of a
-- command is ARGV[n + 2]; commands read ARGV directly so variadic commands are not
-- limited by unpack(). Everything here is local: since Redis 6.2.7 the global
-- environment and the standard libraries are read-only.
--
-- Cost model: Redis runs this whole body on every call, so the prelude keeps only what
-- nearly every command needs (a few small local functions and constant tables); module
-- functions are created lazily by the generated define() (see scripts/build_lua.py).

local rcall = redis.call
local encode, decode = cjson.encode, cjson.decode
local floor, huge = math.floor, math.huge
local format, concat = string.format, table.concat
-- Base functions (tonumber, pairs, ...) are read as globals: aliasing them in locals
-- costs more per call (every closure binds them) than it saves.
local A = ARGV

-- Module tables; the files that follow attach their functions to these.
local M = {}  -- every module function, created on demand
-- Per-call state: configuration values already read, and queues to wake at the end.
local cfg = {}
local wake = {}

-- Key names: the only place they are spelled. Job keys are key.job .. jid (.. suffix),
-- queue keys key.queue .. queue .. suffix, worker keys key.worker .. worker (.. key.jobs).
-- (key table folded into literals by scripts/build_lua.py)
--   config = 'ql:config', queues = 'ql:queues', paused = 'ql:paused_queues',
--   workers = 'ql:workers', tracked = 'ql:tracked', tags = 'ql:tags',
--   failures = 'ql:failures', completed = 'ql:completed',
--   job = 'ql:j:', history = '-history', dependencies = '-dependencies', dependents = '-dependents',
--   queue = 'ql:q:', work = '-work', locks = '-locks', scheduled = '-scheduled',
--   depends = '-depends', recurring = '-recur',
--   worker = 'ql:w:', jobs = ':jobs', tag = 'ql:t:', failure_group = 'ql:f:', recur = 'ql:r:',
--   channel = 'ql:', wake = 'qlpy:wake:',

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
  local values = rcall('HMGET', 'ql:config', ...)
  local names = { ... }
  for i = 1, #names do cfg[names[i]] = values[i] end
end

-- Stored value of a config field (string) or false, cached for this call.
local function config_raw(name)
  local v = cfg[name]
  if v == nil then
    v = rcall('HGET', 'ql:config', name)
    cfg[name] = v
  end
  return v
end

-- Numeric config value: the stored value when it parses as a finite number, else `fallback`.
-- A stored value that is not a number falls back too (the reference would fail later).
local function config_number(name, fallback)
  return num(config_raw(name)) or fallback
end

-- Lock length for a queue: <queue>-heartbeat, else heartbeat, else 60.
local function config_heartbeat(queue)
  return num(config_raw(queue .. '-heartbeat')) or config_number('heartbeat', 60)
end

-- ==== config.lua ====
-- Configuration: ql:config overrides over built-in defaults (protocol section 7).






-- ==== stats.lua ====
-- Statistics: wait/run samples and failure counters per day bin (protocol section 5).
--
-- Extension: every stats hash expires `stats-history` days (default 30) after the start of
-- its day bin. The TTL is given relative to the caller's `now` (EXPIRE day + days*86400 -
-- now), never as an absolute EXPIREAT: the core never reads the server clock, and a client
-- whose `now` differs from the server's clock (tests, replays, skew) must not see its fresh
-- statistics vanish at once. It is set only when a sample hash is created (no extra call
-- per sample).









-- ==== job.lua ====
-- Jobs: history, rendering, and the commands that act on one job at a time.



































-- ==== queue.lua ====
-- Queues: pop, peek, counts, listings, pause, and the shared P-PROMOTE / P-RECLAIM steps.


















-- ==== failure.lua ====
-- Failure groups: failed (overview and pages) and unfail.



-- ==== recurring.lua ====
-- Recurring templates: recur, unrecur, recur.get, recur.update, recur.tag/untag, P-SPAWN.










-- ==== worker.lua ====
-- Workers: the registry listing and deregistration.




-- ==== tags.lua ====
-- Tags: tag add/remove/get/top.


-- ==== track.lua ====
-- Tracking: the track listing and track/untrack.


-- ==== api.lua ====
-- The command table and the dispatcher (protocol 1.1). Always concatenated last.


-- ==== lazy module functions (generated by scripts/build_lua.py) ====
-- Module.name in the sources is M.Module_name here; define() creates it on its first
-- use in this call.
local function define(lazy_t, lazy_k)
  local lazy_f
  if lazy_k == 'Api_put' then
    lazy_f = M.Job_put
  elseif lazy_k == 'Api_pop' then
    lazy_f = M.Queue_pop
  elseif lazy_k == 'Api_complete' then
    lazy_f = M.Job_complete
  elseif lazy_k == 'Api_heartbeat' then
    lazy_f = M.Job_heartbeat
  elseif lazy_k == 'Api_get' then
    lazy_f = M.Job_get
  elseif lazy_k == 'Job_put' then
    -- put <now> <worker> <queue> <jid> <klass> <data> <delay> [priority p] [tags t] [retries r]
    --     [depends d]
    -- Reply: the jid. Events: ql:log put; ql:w:<old> + ql:log lock_lost when taken from another
    -- worker; ql:put (tracked). Every argument is validated before the first write (the
    -- reference detaches the old tags before checking retries/tags/priority/depends).
    -- Errors: Queue(): no queue name provided / Put(): Arg "jid" missing / Put(): Arg "klass"
    -- missing / Put(): Arg "data" missing or not JSON: <x> / Put(): Arg "delay" not a number: <x>
    -- / Odd number of additional args / Put(): Arg "retries" not a number: <x> / Put(): Arg
    -- "tags" not JSON<x> / Put(): Arg "priority" not a number<x> / Put(): Arg "depends" not JSON:
    -- <x>; requeue first: Job(): no jid provided / Requeue(): Job <jid> does not exist
    lazy_f = function(now, requeue)
      local worker, queue, jid, klass, data, delay_s = A[3], A[4], A[5], A[6], A[7], A[8]
      if requeue then
        if jid == nil then fail('Job(): no jid provided') end
        if rcall('EXISTS', 'ql:j:' .. jid) == 0 then fail('Requeue(): Job ' .. jid .. ' does not exist') end
      end
      if queue == nil then fail('Queue(): no queue name provided') end
      if jid == nil then fail('Put(): Arg "jid" missing') end
      if klass == nil then fail('Put(): Arg "klass" missing') end
      if data ~= '{}' and decode(data) == false then
        fail('Put(): Arg "data" missing or not JSON: ' .. tostring(data))
      end
      local delay = num(delay_s)
      if delay == nil then fail('Put(): Arg "delay" not a number: ' .. tostring(delay_s)) end
      local n = #A
      if (n - 8) % 2 == 1 then fail('Odd number of additional args') end
      -- No options (the common case): no table.
      local opts = n > 8 and M.Job_options(9, n) or {}
      -- 1 jid, 2 state, 3 queue, 4 worker, 5 priority, 6 retries, 7 tags, 8 failure, 9 history
      local f = rcall('HMGET', 'ql:j:' .. jid, 'jid', 'state', 'queue', 'worker', 'priority', 'retries',
        'tags', 'failure', 'history')

      local retries = tonumber(f[6]) or 5
      if opts.retries ~= nil then
        retries = num(opts.retries)
        if retries == nil then fail('Put(): Arg "retries" not a number: ' .. opts.retries) end
      end
      local old_tags = f[7] and M.Job_tag_list(f[7]) or {}
      local tags = old_tags
      if opts.tags ~= nil then
        tags = string_list(decode(opts.tags))
        if tags == nil then fail('Put(): Arg "tags" not JSON' .. opts.tags) end
      end
      local priority = tonumber(f[5]) or 0
      if opts.priority ~= nil then
        priority = num(opts.priority)
        if priority == nil then fail('Put(): Arg "priority" not a number' .. opts.priority) end
      end
      local depends = {}
      if opts.depends ~= nil then
        depends = string_list(decode(opts.depends))
        if depends == nil then fail('Put(): Arg "depends" not JSON: ' .. opts.depends) end
      end

      -- Writes begin here.
      local jk, tagk = 'ql:j:' .. jid, 'ql:tags'
      if f[7] then
        for _, t in ipairs(old_tags) do
          rcall('ZREM', 'ql:t:' .. t, jid)
          rcall('ZINCRBY', tagk, -1, t)
        end
      end
      local depk = 'ql:j:' .. jid .. '-dependencies'
      if #depends > 0 then
        local wanted = {}
        for _, d in ipairs(depends) do wanted[d] = true end
        for _, d in ipairs(rcall('SMEMBERS', depk)) do
          if not wanted[d] then
            rcall('SREM', depk, d)
            rcall('SREM', 'ql:j:' .. d .. '-dependents', jid)
          end
        end
      end
      -- The JSON text cjson writes for { jid, event, queue } (key order is not significant).
      rcall('PUBLISH', 'ql:' .. 'log',
        '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. encode(queue) .. '}')
      M.Job_hist(jid, now, 'put', '{"q":' .. encode(queue) .. '}', f[9] or false)
      local old_queue, old_state, old_worker = f[3], f[2], f[4]
      if old_queue then
        rcall('ZREM', 'ql:q:' .. old_queue .. '-work', jid)
        rcall('ZREM', 'ql:q:' .. old_queue .. '-locks', jid)
        rcall('ZREM', 'ql:q:' .. old_queue .. '-depends', jid)
        rcall('ZREM', 'ql:q:' .. old_queue .. '-scheduled', jid)
        if old_state == 'running' then M.Job_left_running(old_queue) end
      end
      if old_worker and old_worker ~= '' then
        rcall('ZREM', 'ql:w:' .. old_worker .. ':jobs', jid)
        if old_worker ~= worker then
          local msg = encode({ jid = jid, event = 'lock_lost', worker = old_worker })
          rcall('PUBLISH', 'ql:w:' .. old_worker, msg)
          rcall('PUBLISH', 'ql:' .. 'log', msg)
        end
      end
      if old_state == 'complete' then rcall('ZREM', 'ql:completed', jid) end
      for _, t in ipairs(tags) do
        rcall('ZADD', 'ql:t:' .. t, now, jid)
        rcall('ZINCRBY', tagk, 1, t)
      end
      if old_state == 'failed' then
        local failure = M.Stats_unfailed(now, f[8], queue)
        if failure then M.Job_unlist_failure(jid, failure.group) end
      end
      for _, d in ipairs(depends) do
        if d == jid then
          -- The reference writes the hash before linking, so a job may depend on itself.
          rcall('SADD', depk, d)
          rcall('SADD', 'ql:j:' .. d .. '-dependents', jid)
        else
          M.Job_link(jid, d)
        end
      end
      local has_deps = (f[1] or f[2] or #depends > 0) and rcall('SCARD', depk) > 0
      local state = 'waiting'
      if has_deps then
        state = 'depends'
      elseif delay > 0 then
        state = 'scheduled'
      end
      rcall('HMSET', jk, 'jid', jid, 'klass', klass, 'data', data, 'priority', priority,
        'tags', #tags == 0 and '{}' or encode(tags), 'state', state, 'worker', '', 'expires', 0, 'queue', queue,
        'retries', retries, 'remaining', retries, 'time', time_text(now))
      if has_deps then
        rcall('ZADD', 'ql:q:' .. queue .. '-depends', now, jid)
        if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
      elseif delay > 0 then
        rcall('ZADD', 'ql:q:' .. queue .. '-scheduled', now + delay, jid)
      else
        rcall('ZADD', 'ql:q:' .. queue .. '-work', work_score(priority, now), jid)
        wake[queue] = true
      end
      rcall('ZADD', 'ql:queues', 'NX', now, queue)
      if rcall('ZSCORE', 'ql:tracked', jid) then rcall('PUBLISH', 'ql:' .. 'put', jid) end
      return jid
    end
  elseif lazy_k == 'Job_hist' then
    -- P-HIST: append [floor(when), what, extra?]. `legacy` is the job's `history` field when the
    -- caller already read it (false: known absent; nil: read it here).
    -- The cap `max-job-history` (N) reproduces the reference's keep-first-plus-newest result
    -- without reading the list: RPUSH first, then trim only when over the cap.
    lazy_f = function(jid, when, what, extra, legacy)
      if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
      if legacy then M.Job_migrate(jid, legacy) end
      -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
      -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
      local entry
      if extra == nil then
        entry = '[' .. floor(when) .. ',' .. encode(what) .. ']'
      else
        if type(extra) ~= 'string' then extra = encode(extra) end
        entry = '[' .. floor(when) .. ',' .. encode(what) .. ',' .. extra .. ']'
      end
      local hk = 'ql:j:' .. jid .. '-history'
      local len = rcall('RPUSH', hk, entry)
      -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
      if len < 3 then return end
      local cap = floor(config_number('max-job-history', 100))
      if cap >= 3 then
        if len > cap then
          local first = rcall('LPOP', hk)
          rcall('LTRIM', hk, 1 - cap, -1)
          rcall('LPUSH', hk, first)
        end
      elseif cap == 1 and len >= 3 then
        -- N = 1 keeps the first entry and drops the second one on every append.
        local first = rcall('LPOP', hk)
        rcall('LPOP', hk)
        rcall('LPUSH', hk, first)
      end
    end
  elseif lazy_k == 'Job_notify' then
    -- Publish `payload` on ql:<channel> when the job is tracked.
    lazy_f = function(jid, channel, tracked)
      if tracked == nil then tracked = M.Job_is_tracked(jid) end
      if tracked then rcall('PUBLISH', 'ql:' .. channel, jid) end
    end
  elseif lazy_k == 'Job_is_tracked' then
    lazy_f = function(jid) return rcall('ZSCORE', 'ql:tracked', jid) ~= false end
  elseif lazy_k == 'Job_enqueue' then
    -- P-WORK: make `jid` waiting in `queue` as of time `t`, and wake that queue's workers.
    lazy_f = function(queue, jid, priority, t)
      rcall('ZADD', 'ql:q:' .. queue .. '-work', work_score(priority, t), jid)
      wake[queue] = true
    end
  elseif lazy_k == 'Job_complete' then
    -- complete <now> <jid> <worker> <queue> <data> [next q] [delay d] [depends json]
    -- Reply: complete | waiting | scheduled | depends. Events: ql:completed (tracked), then
    -- ql:log completed or advanced. A dangling option name is ignored.
    -- Errors: Job(): no jid provided / Complete(): Arg "worker" missing / Complete(): Arg "queue"
    -- missing / Complete(): Arg "data" missing or not JSON: <x> / assertion failed! (delay) /
    -- Complete(): Arg "depends" not JSON: <x> / Complete(): "delay" cannot be used without a
    -- "next". / Complete(): "depends" cannot be used without a "next". / Complete(): Job <jid>
    -- does not exist / ... is not currently running: <state> / ... has been handed out to another
    -- worker: <w> / ... running in another queue: <q>
    lazy_f = function(now)
      local jid, worker, queue, data = A[3], A[4], A[5], A[6]
      if jid == nil then fail('Job(): no jid provided') end
      if worker == nil then fail('Complete(): Arg "worker" missing') end
      if queue == nil then fail('Complete(): Arg "queue" missing') end
      if data ~= '{}' and decode(data) == false then
        fail('Complete(): Arg "data" missing or not JSON: ' .. tostring(data))
      end
      local opts = #A > 7 and M.Job_options(7, #A) or {}
      local nextq, delay, depends = opts.next, 0, nil
      if opts.delay ~= nil then
        delay = num(opts.delay)
        if delay == nil then fail('assertion failed!') end
      end
      if opts.depends ~= nil then
        depends = string_list(decode(opts.depends))
        if depends == nil then fail('Complete(): Arg "depends" not JSON: ' .. opts.depends) end
      end
      if opts.delay ~= nil and nextq == nil then
        fail('Complete(): "delay" cannot be used without a "next".')
      end
      if depends ~= nil and nextq == nil then
        fail('Complete(): "depends" cannot be used without a "next".')
      end
      local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'worker', 'queue', 'history', 'time', 'retries',
        'priority')
      local state = f[1]
      if not state then fail('Complete(): Job ' .. jid .. ' does not exist') end
      if state ~= 'running' then
        fail('Complete(): Job ' .. jid .. ' is not currently running: ' .. state)
      end
      if f[2] ~= worker then
        fail('Complete(): Job ' .. jid .. ' has been handed out to another worker: ' .. tostring(f[2]))
      end
      if f[3] ~= queue then
        fail('Complete(): Job ' .. jid .. ' running in another queue: ' .. tostring(f[3]))
      end

      -- One EXISTS answers the common case (no config, nothing tracked, no dependents) and
      -- saves the three reads it would otherwise take.
      local special = rcall('EXISTS', 'ql:config', 'ql:tracked', 'ql:j:' .. jid .. '-dependents') > 0
      if special then
        config_prefetch('max-job-history', 'jobs-history', 'jobs-history-count',
          queue .. '-max-concurrency')
      else
        cfg['max-job-history'], cfg['jobs-history'], cfg['jobs-history-count'] = false, false, false
        cfg[queue .. '-max-concurrency'] = false
      end
      local jk = 'ql:j:' .. jid
      M.Job_hist(jid, now, 'done', nil, f[4] or false)
      -- A running job is only in its queue's locks set (pop took it out of the work set).
      rcall('ZREM', 'ql:q:' .. queue .. '-locks', jid)
      M.Stats_sample(now, 'run', queue, now - (tonumber(f[5]) or now))
      rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
      if special and rcall('ZSCORE', 'ql:tracked', jid) then
        rcall('PUBLISH', 'ql:' .. 'completed', jid)
      end
      if config_number(queue .. '-max-concurrency', 0) > 0 then wake[queue] = true end
      local retries = f[6] or 0
      if nextq ~= nil then
        rcall('PUBLISH', 'ql:' .. 'log',
          encode({ jid = jid, event = 'advanced', queue = queue, to = nextq }))
        M.Job_hist(jid, now, 'put', '{"q":' .. encode(nextq) .. '}', false)
        rcall('ZADD', 'ql:queues', 'NX', now, nextq)
        rcall('HMSET', jk, 'data', data, 'time', time_text(now), 'state', 'waiting', 'worker', '',
          'failure', '{}', 'queue', nextq, 'expires', 0, 'remaining', retries)
        if delay > 0 and (depends == nil or #depends == 0) then
          rcall('ZADD', 'ql:q:' .. nextq .. '-scheduled', now + delay, jid)
          return 'scheduled'
        end
        local linked = 0
        for _, d in ipairs(depends or {}) do
          if M.Job_link(jid, d) then linked = linked + 1 end
        end
        if linked > 0 then
          rcall('ZADD', 'ql:q:' .. nextq .. '-depends', now, jid)
          rcall('HSET', jk, 'state', 'depends')
          if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
          return 'depends'
        end
        M.Job_enqueue(nextq, jid, tonumber(f[7]) or 0, now)
        return 'waiting'
      end
      rcall('PUBLISH', 'ql:' .. 'log',
        '{"jid":' .. encode(jid) .. ',"event":"completed","queue":' .. encode(queue) .. '}')
      rcall('HMSET', jk, 'data', data, 'time', time_text(now), 'state', 'complete', 'worker', '',
        'failure', '{}', 'queue', '', 'expires', 0, 'remaining', retries)
      rcall('ZADD', 'ql:completed', now, jid)
      M.Job_expire_completed(now)
      if special then
        local dependents = rcall('SMEMBERS', 'ql:j:' .. jid .. '-dependents')
        if #dependents > 0 then M.Job_release_dependents(now, jid, dependents) end
      end
      return 'complete'
    end
  elseif lazy_k == 'Job_left_running' then
    -- A running job leaving `queue` frees a slot when the queue has a concurrency cap.
    lazy_f = function(queue)
      if queue and config_number(queue .. '-max-concurrency', 0) > 0 then wake[queue] = true end
    end
  elseif lazy_k == 'Job_expire_completed' then
    -- P-EXPIRE-COMPLETED, in bounded batches: at most 100 jobs older than `jobs-history` and at
    -- most 100 beyond `jobs-history-count` per call (the reference deletes all at once).
    lazy_f = function(now)
      local age = config_number('jobs-history', 604800)
      local keep = floor(config_number('jobs-history-count', 50000))
      local old = rcall('ZRANGEBYSCORE', 'ql:completed', 0, now - age, 'LIMIT', 0, 100)
      if #old > 0 then
        for _, j in ipairs(old) do M.Job_delete(j) end
        rcall('ZREM', 'ql:completed', unpack(old))
      end
      local excess = rcall('ZCARD', 'ql:completed') - keep
      if excess > 0 then
        if excess > 100 then excess = 100 end
        for _, j in ipairs(rcall('ZRANGE', 'ql:completed', 0, excess - 1)) do M.Job_delete(j) end
        rcall('ZREMRANGEBYRANK', 'ql:completed', 0, excess - 1)
      end
    end
  elseif lazy_k == 'Job_release_dependents' then
    -- P-RELEASE-DEPENDENTS: jobs waiting only for `jid` become waiting (or scheduled).
    -- `dependents` is the members of its dependents set, read by the caller.
    lazy_f = function(now, jid, dependents)
      local dk = 'ql:j:' .. jid .. '-dependents'
      for _, d in ipairs(dependents) do
        local depk = 'ql:j:' .. d .. '-dependencies'
        rcall('SREM', depk, jid)
        if rcall('SCARD', depk) == 0 then
          local f = rcall('HMGET', 'ql:j:' .. d, 'queue', 'scheduled', 'priority')
          local q = f[1]
          if q then
            rcall('ZREM', 'ql:q:' .. q .. '-depends', d)
            if f[2] then
              rcall('ZADD', 'ql:q:' .. q .. '-scheduled', f[2], d)
              rcall('HSET', 'ql:j:' .. d, 'state', 'scheduled')
              rcall('HDEL', 'ql:j:' .. d, 'scheduled')
            else
              M.Job_enqueue(q, d, tonumber(f[3]) or 0, now)
              rcall('HSET', 'ql:j:' .. d, 'state', 'waiting')
            end
          end
        end
      end
      if #dependents > 0 then rcall('DEL', dk) end
    end
  elseif lazy_k == 'Job_options' then
    -- Parse `name value` pairs from ARGV[first..] (the last value of a repeated name wins).
    lazy_f = function(first, last)
      local opts = {}
      for i = first, last - 1, 2 do opts[A[i]] = A[i + 1] end
      return opts
    end
  elseif lazy_k == 'Job_render' then
    -- The job object (protocol 2.10) as JSON text, or nil when the job has no `jid` field.
    -- `f` is a M.Job_fetch result when the caller has one; `tracked` is known or nil.
    -- `no_dependencies` skips reading the dependencies set of a job that cannot have any (one
    -- just popped: jobs with dependencies are never in the work set or running).
    lazy_f = function(jid, f, tracked, no_dependencies)
      if not f then f = M.Job_fetch(jid) end
      if not f[1] then return nil end
      if f[14] then
        M.Job_migrate(jid, f[14])
        f[14] = false
      end
      if tracked == nil then tracked = rcall('ZSCORE', 'ql:tracked', jid) ~= false end
      local hist = rcall('LRANGE', 'ql:j:' .. jid .. '-history', 0, -1)
      for i = 1, #hist do
        -- Inline fast path of M.Job_render_entry for the two shapes every command writes.
        local text = hist[i]
        local when, what, inner = text:match('^%[(%d+),("[%w%-]*"),{(.*)}%]$')
        if when and not inner:find('"wh', 1, true) then
          if inner == '' then
            hist[i] = '{"when":' .. when .. ',"what":' .. what .. '}'
          else
            hist[i] = '{"when":' .. when .. ',"what":' .. what .. ',' .. inner .. '}'
          end
        else
          when, what = text:match('^%[(%d+),("[%w%-]*")%]$')
          if when then
            hist[i] = '{"when":' .. when .. ',"what":' .. what .. '}'
          else
            hist[i] = M.Job_render_entry(text)
          end
        end
      end
      local jk = 'ql:j:' .. jid
      local dependents = rcall('SMEMBERS', jk .. '-dependents')
      local dependencies = '{}'
      if not no_dependencies then
        dependencies = M.Job_encoded_members(rcall('SMEMBERS', jk .. '-dependencies'))
      end
      -- Numbers absent from the hash are left out, as cjson leaves out nil values.
      local priority, retries, remaining = tonumber(f[6]), tonumber(f[8]),
        tonumber(f[9])
      priority = priority and ',"priority":' .. encode(priority) or ''
      retries = retries and ',"retries":' .. encode(retries) or ''
      remaining = remaining and ',"remaining":' .. encode(floor(remaining)) or ''
      -- One concatenation expression: Lua builds the result in a single step.
      return '{"jid":' .. encode(f[1]) .. ',"klass":' .. jstr(f[2]) ..
        ',"state":' .. jstr(f[3]) .. ',"queue":' .. jstr(f[4]) ..
        ',"worker":' .. encode(f[5] or '') .. ',"tracked":' .. (tracked and 'true' or 'false') ..
        ',"expires":' .. encode(tonumber(f[7]) or 0) .. ',"data":' .. jstr(f[10]) ..
        ',"tags":' .. (f[11] == '{}' and '{}' or M.Job_stored_list(f[11])) ..
        ',"failure":' .. (f[12] == '{}' and '{}' or M.Job_stored_list(f[12])) ..
        ',"spawned_from_jid":' .. jstr(f[13]) .. ',"history":' .. jlist(hist) ..
        ',"dependents":' .. (#dependents == 0 and '{}' or M.Job_encoded_members(dependents)) ..
        ',"dependencies":' .. dependencies .. priority .. retries .. remaining .. '}'
    end
  elseif lazy_k == 'Job_render_entry' then
    -- One rendered history entry: the extra object's keys plus "when" and "what".
    -- Stored entries are cjson output ([when,"what"] or [when,"what",{...}]), so the common
    -- shapes are rewritten as text; anything else (an extra with keys named when/what, escaped
    -- text, null or array extras) is decoded and re-encoded.
    lazy_f = function(text)
      local when, what, rest = text:match('^%[([%d%.eE+%-]+),("[^"\\]*")(.*)%]$')
      if when then
        if rest == '' or rest == ',{}' then return '{"when":' .. when .. ',"what":' .. what .. '}' end
        if rest:sub(1, 2) == ',{' and rest:sub(-1) == '}' and not rest:find('"wh', 1, true) then
          return '{"when":' .. when .. ',"what":' .. what .. ',' .. rest:sub(3)
        end
      end
      local ok, e = pcall(decode, text)
      if not ok or type(e) ~= 'table' then return '{}' end
      local parts = {}
      if e[1] ~= nil then parts[#parts + 1] = '"when":' .. encode(e[1]) end
      if e[2] ~= nil then parts[#parts + 1] = '"what":' .. encode(e[2]) end
      local extra = e[3]
      if type(extra) == 'table' then
        for k, v in pairs(extra) do
          if k ~= 'when' and k ~= 'what' then
            parts[#parts + 1] = encode(tostring(k)) .. ':' .. encode(v)
          end
        end
      end
      return '{' .. concat(parts, ',') .. '}'
    end
  elseif lazy_k == 'Job_stored_list' then
    -- A JSON list stored in a hash field, re-encoded the way cjson writes it ({} when empty).
    lazy_f = function(text)
      if not text or text == '{}' or text == '[]' then return '{}' end
      local ok, v = pcall(decode, text)
      if not ok or type(v) ~= 'table' then return '{}' end
      return encode(v)
    end
  elseif lazy_k == 'Job_encoded_members' then
    -- Encoded JSON strings of a Redis reply list.
    lazy_f = function(list)
      for i = 1, #list do list[i] = encode(list[i]) end
      return jlist(list)
    end
  elseif lazy_k == 'Job_fetch' then
    -- Field order of M.Job_fetch; the indexes below name the positions.
    -- (folded by scripts/build_lua.py) F_JID, F_KLASS, F_STATE, F_QUEUE, F_WORKER, F_PRIORITY, F_EXPIRES = 1, 2, 3, 4, 5, 6, 7
    -- (folded by scripts/build_lua.py) F_RETRIES, F_REMAINING, F_DATA, F_TAGS, F_FAILURE, F_SPAWNED, F_HISTORY, F_TIME = 8, 9, 10, 11, 12, 13, 14, 15
    -- Every field a command or the job object needs, in one HMGET.
    lazy_f = function(jid)
      return rcall('HMGET', 'ql:j:' .. jid, 'jid', 'klass', 'state', 'queue', 'worker', 'priority',
        'expires', 'retries', 'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history',
        'time')
    end
  elseif lazy_k == 'Job_tag_list' then
    -- Decoded tag list of a job's stored `tags` text ({} when absent or unreadable).
    lazy_f = function(text)
      if not text then return {} end
      local ok, v = pcall(decode, text)
      if ok and string_list(v) then return v end
      return {}
    end
  elseif lazy_k == 'Job_heartbeat' then
    -- heartbeat <now> <jid> <worker> [data]
    -- Reply: integer, the new lock expiry truncated to seconds.
    -- Errors: Job(): no jid provided / Heatbeat(): Arg "worker" missing (sic) / cjson error (data)
    -- / Heartbeat(): Job <jid> does not exist / ... not currently running: <state> / ... given out
    -- to another worker: <w>
    lazy_f = function(now)
      local jid, worker, data = A[3], A[4], A[5]
      if jid == nil then fail('Job(): no jid provided') end
      if worker == nil then fail('Heatbeat(): Arg "worker" missing') end
      local decoded
      if data ~= nil then decoded = decode(data) end
      local f = rcall('HMGET', 'ql:j:' .. jid, 'worker', 'state', 'queue')
      local queue = f[3] or ''
      local expires = now + config_heartbeat(queue)
      if not f[1] then fail('Heartbeat(): Job ' .. jid .. ' does not exist') end
      if f[2] ~= 'running' then
        fail('Heartbeat(): Job ' .. jid .. ' not currently running: ' .. tostring(f[2]))
      end
      if f[1] ~= worker or f[1] == '' then
        fail('Heartbeat(): Job ' .. jid .. ' given out to another worker: ' .. f[1])
      end
      local jk = 'ql:j:' .. jid
      if decoded ~= nil and decoded ~= false then
        rcall('HMSET', jk, 'expires', expires, 'worker', worker, 'data', encode(decoded))
      else
        rcall('HMSET', jk, 'expires', expires, 'worker', worker)
      end
      rcall('ZADD', 'ql:w:' .. worker .. ':jobs', expires, jid)
      rcall('ZADD', 'ql:workers', now, worker)
      rcall('ZADD', 'ql:q:' .. queue .. '-locks', expires, jid)
      return expires
    end
  elseif lazy_k == 'Job_get' then
    -- get <now> <jid>: the job object, or nil. Error: Job(): no jid provided
    lazy_f = function(now)
      local jid = A[3]
      if jid == nil then fail('Job(): no jid provided') end
      return M.Job_render(jid) or false
    end
  elseif lazy_k == 'Queue_pop' then
    -- pop <now> <queue> <worker> <count>
    -- Reply: JSON array of the popped jobs ({} when none). Events: reclaim events (4.2), then
    -- ql:popped per tracked job. A work-set jid whose job hash is gone is dropped from the work
    -- set and skipped (the reference fails with a Lua error). A negative count counts as 0.
    -- Errors: Queue(): no queue name provided / Pop(): Arg "worker" missing / Pop(): Arg "count"
    -- missing or not a number: <x>
    lazy_f = function(now)
      local queue, worker, count_s = A[3], A[4], A[5]
      if queue == nil then fail('Queue(): no queue name provided') end
      if worker == nil then fail('Pop(): Arg "worker" missing') end
      local count = num(count_s)
      if count == nil then fail('Pop(): Arg "count" missing or not a number: ' .. tostring(count_s)) end
      count = floor(count)
      -- One EXISTS answers the common case (no config, no paused queue, no templates, no
      -- delayed jobs in this queue, nothing tracked) and saves the reads it would otherwise take.
      local rk, sk = 'ql:q:' .. queue .. '-recur', 'ql:q:' .. queue .. '-scheduled'
      local special = rcall('EXISTS', 'ql:config', 'ql:paused_queues', rk, sk, 'ql:tracked') > 0
      local expires, maxc = now + 60, 0
      if special then
        local c = rcall('HMGET', 'ql:config', queue .. '-heartbeat', 'heartbeat',
          queue .. '-max-concurrency')
        expires = now + (num(c[1]) or num(c[2]) or 60)
        if rcall('SISMEMBER', 'ql:paused_queues', queue) == 1 then return '{}' end
        maxc = num(c[3]) or 0
      end
      rcall('ZADD', 'ql:workers', now, worker)
      local lk = 'ql:q:' .. queue .. '-locks'
      if maxc > 0 then
        local allowed = floor(maxc - rcall('ZCOUNT', lk, now, '+inf'))
        if count > allowed then count = allowed end
      end
      if count <= 0 then return '{}' end
      -- The range queries are made here so that the helpers run only when there is work.
      local jids = {}
      local expired = rcall('ZRANGEBYSCORE', lk, '-inf', now, 'LIMIT', 0, count)
      if #expired > 0 then jids = M.Queue_reclaim(now, queue, expired) end
      local want = count - #jids
      if want > 0 then
        if special then
          local due = rcall('ZRANGEBYSCORE', rk, 0, now, 'WITHSCORES', 'LIMIT', 0, want)
          if #due > 0 then M.Recur_spawn(now, queue, want, due) end
          due = rcall('ZRANGEBYSCORE', sk, 0, now, 'LIMIT', 0, want)
          if #due > 0 then M.Queue_promote(now, queue, want, due) end
        end
        -- ZPOPMAX orders equal scores like ZREVRANGE (reverse lexicographic): the reference's
        -- ZREVRANGE + ZREM in one call.
        local top = rcall('ZPOPMAX', 'ql:q:' .. queue .. '-work', want)
        for i = 1, #top, 2 do jids[#jids + 1] = top[i] end
      end
      if #jids == 0 then return '{}' end
      local wjk, tstr = 'ql:w:' .. worker .. ':jobs', time_text(now)
      local wentry = '{"worker":' .. encode(worker) .. '}'
      local popped = {}
      for _, jid in ipairs(jids) do
        local f = M.Job_fetch(jid)
        if f[1] then
          M.Job_hist(jid, now, 'popped', wentry, f[14] or false)
          f[14] = false
          M.Stats_sample(now, 'wait', queue, now - (tonumber(f[15]) or now))
          rcall('ZADD', wjk, expires, jid)
          rcall('HMSET', 'ql:j:' .. jid, 'time', tstr, 'worker', worker, 'expires', expires,
            'state', 'running')
          rcall('ZADD', lk, expires, jid)
          local tracked = special and rcall('ZSCORE', 'ql:tracked', jid) ~= false
          if tracked then rcall('PUBLISH', 'ql:' .. 'popped', jid) end
          f[5], f[7], f[3] = worker, expires, 'running'
          popped[#popped + 1] = { jid, f, tracked }
        end
      end
      local parts = {}
      for i, p in ipairs(popped) do parts[i] = M.Job_render(p[1], p[2], p[3], true) end
      return jlist(parts)
    end
  elseif lazy_k == 'Queue_reclaim' then
    -- P-RECLAIM: handle the expired locks `expired` of `queue` (pop reads at most its count);
    -- returns the jids that may be handed out again. First expiry: courtesy notice and grace
    -- period; next: retry consumed.
    lazy_f = function(now, queue, expired)
      local out = {}
      local lk = 'ql:q:' .. queue .. '-locks'
      local grace = config_number('grace-period', 10)
      for _, jid in ipairs(expired) do
        local jk = 'ql:j:' .. jid
        local f = rcall('HMGET', jk, 'worker', 'grace', 'queue', 'history')
        rcall('ZREM', 'ql:w:' .. (f[1] or '') .. ':jobs', jid)
        local sent = f[2] == '1'
        if not sent or grace <= 0 then
          M.Job_notify(jid, 'stalled')
          M.Job_hist(jid, now, 'timed-out', nil, f[4] or false)
          f[4] = false
          rcall('HSET', jk, 'grace', 1)
          local msg = encode({ jid = jid, event = 'lock_lost', worker = f[1] })
          rcall('PUBLISH', 'ql:w:' .. (f[1] or ''), msg)
          rcall('PUBLISH', 'ql:' .. 'log', msg)
          rcall('ZADD', lk, now + grace, jid)
          M.Stats_count(now, now, queue, 'retries', 1)
        end
        if sent or grace <= 0 then
          rcall('HDEL', jk, 'grace')
          local remaining = tonumber(rcall('HINCRBYFLOAT', jk, 'remaining', -1))
          if remaining >= 0 then
            out[#out + 1] = jid
          else
            M.Queue_exhausted(now, queue, jid, f)
          end
        end
      end
      return out
    end
  elseif lazy_k == 'Queue_promote' then
    -- P-PROMOTE: move up to `limit` due scheduled jobs into the work set, scored at `now`.
    -- `due` is the caller's ZRANGEBYSCORE result when it already has one.
    lazy_f = function(now, queue, limit, due)
      if limit <= 0 then return end
      local sk = 'ql:q:' .. queue .. '-scheduled'
      due = due or rcall('ZRANGEBYSCORE', sk, 0, now, 'LIMIT', 0, limit)
      for _, jid in ipairs(due) do
        local jk = 'ql:j:' .. jid
        M.Job_enqueue(queue, jid, tonumber(rcall('HGET', jk, 'priority')) or 0, now)
        rcall('ZREM', sk, jid)
        rcall('HSET', jk, 'state', 'waiting')
      end
    end
  elseif lazy_k == 'Queue_whole' then
    -- A non-negative whole count from a validated number.
    lazy_f = function(n)
      n = floor(n)
      if n < 0 then return 0 end
      return n
    end
  elseif lazy_k == 'Stats_sample' then
    -- P-STAT: record sample `v` of `kind` (wait|run) for `queue` in the day bin of `now`.
    -- The histogram bucket is read and written with the running totals (two calls, not three).
    lazy_f = function(now, kind, queue, v)
      local day = day_of(now)
      local k = stats_key(kind, day, queue)
      local bin
      if v >= 0 and v < 60 then bin = 's' .. floor(v) else bin = M.Stats_bin(v) end
      local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
      local total, mean, vk = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3])
      if total == nil then
        total, mean, vk = 1, v, 0
      else
        mean, vk = mean or 0, vk or 0
        total = total + 1
        local old = mean
        mean = old + (v - old) / total
        vk = vk + (v - mean) * (v - old)
      end
      rcall('HMSET', k, 'total', total, 'mean', mean, 'vk', vk, bin, (tonumber(cur[4]) or 0) + 1)
      if total == 1 then M.Stats_expire(k, now, day) end
    end
  elseif lazy_k == 'Stats_bin' then
    -- Histogram field of a sample (s0..s59, m1..m59, h1..h23, d1...).
    lazy_f = function(v)
      local f = floor(v)
      if f < 60 then return 's' .. f end
      if f < 3600 then return 'm' .. floor(f / 60) end
      if f < 86400 then return 'h' .. floor(f / 3600) end
      return 'd' .. floor(f / 86400)
    end
  elseif lazy_k == 'Stats_expire' then
    -- Keep a stats hash only for the configured history.
    lazy_f = function(k, now, day)
      local ttl = M.Stats_ttl(now, day)
      if ttl < 1 then ttl = 1 end
      rcall('EXPIRE', k, ttl)
    end
  elseif lazy_k == 'Stats_ttl' then
    -- Seconds from `now` until a stats hash of day `day` should disappear.
    lazy_f = function(now, day)
      local days = config_number('stats-history', 30)
      return math.ceil(day + 86400 * days - now)
    end
  elseif lazy_k == 'Recur_spawn' then
    -- P-SPAWN: create the jobs of due templates of `queue`, at most `limit` in this call.
    -- Each child is stamped with its slot time and enters the work set scored by it. `due` is
    -- the caller's ZRANGEBYSCORE ... WITHSCORES result when it already has one.
    lazy_f = function(now, queue, limit, due)
      if limit <= 0 then return end
      local rk = 'ql:q:' .. queue .. '-recur'
      due = due or rcall('ZRANGEBYSCORE', rk, 0, now, 'WITHSCORES', 'LIMIT', 0, limit)
      local moved = 0
      for i = 1, #due, 2 do
        if moved >= limit then break end
        local rjid = due[i]
        local tk = 'ql:r:' .. rjid
        local r = rcall('HMGET', tk, 'klass', 'data', 'priority', 'tags', 'retries', 'interval',
          'backlog')
        local s = floor(tonumber(due[i + 1]))
        local interval = tonumber(r[6]) or 0
        local backlog = tonumber(r[7]) or 0
        if backlog ~= 0 and interval > 0 then
          local n = (now - s) / interval
          if n > backlog then s = s + math.ceil(n - backlog) * interval end
        end
        local tags = M.Job_tag_list(r[4])
        local priority = tonumber(r[3]) or 0
        local retries = r[5] or 0
        while s <= now and moved < limit do
          local c = rcall('HINCRBY', tk, 'count', 1)
          moved = moved + 1
          local child = rjid .. '-' .. c
          for _, t in ipairs(tags) do
            rcall('ZADD', 'ql:t:' .. t, now, child)
            rcall('ZINCRBY', 'ql:tags', 1, t)
          end
          rcall('HMSET', 'ql:j:' .. child, 'jid', child, 'klass', r[1] or '', 'data', r[2] or '{}',
            'priority', r[3] or 0, 'tags', r[4] or '{}', 'state', 'waiting', 'worker', '',
            'expires', 0, 'queue', queue, 'retries', retries, 'remaining', retries,
            'time', time_text(s), 'spawned_from_jid', rjid)
          M.Job_hist(child, s, 'put', { q = queue })
          M.Job_enqueue(queue, child, priority, s)
          s = s + interval
          rcall('ZADD', rk, s, rjid)
        end
      end
    end
  elseif lazy_k == 'Config_defaults' then
    -- The listed defaults: reported by config.get and returned for unset keys.
    lazy_f = function()
      return {
        application = 'qless', heartbeat = 60, ['grace-period'] = 10, ['stats-history'] = 30,
        ['histogram-history'] = 7, ['jobs-history-count'] = 50000, ['jobs-history'] = 604800,
      }
    end
  elseif lazy_k == 'Config_get' then
    -- config.get <now> [key]
    -- Reply: the stored value (bulk), the built-in default (integer for numbers, bulk for
    -- `application`) or nil; without a key, a JSON object of defaults overlaid with ql:config.
    lazy_f = function(now)
      local name = A[3]
      if name ~= nil then
        local v = rcall('HGET', 'ql:config', name)
        if v then return v end
        return M.Config_defaults()[name]
      end
      local out = M.Config_defaults()
      local stored = rcall('HGETALL', 'ql:config')
      for i = 1, #stored, 2 do out[stored[i]] = stored[i + 1] end
      return encode(out)
    end
  elseif lazy_k == 'Config_wake_if_concurrency' then
    -- Changing <queue>-max-concurrency may free slots: wake that queue's waiting workers.
    lazy_f = function(name)
      local suffix = '-max-concurrency'
      if #name > #suffix and name:sub(-#suffix) == suffix then
        wake[name:sub(1, -#suffix - 1)] = true
      end
    end
  elseif lazy_k == 'Config_set' then
    -- config.set <now> <key> <value>
    -- Publishes {"event":"config_set","option","value"} on ql:log, then stores. Reply nil.
    -- Errors: config.set(): Arg "option" missing / config.set(): Arg "value" missing
    lazy_f = function(now)
      local name, value = A[3], A[4]
      if name == nil then fail('config.set(): Arg "option" missing') end
      if value == nil then fail('config.set(): Arg "value" missing') end
      rcall('PUBLISH', 'ql:' .. 'log', encode({ event = 'config_set', option = name, value = value }))
      rcall('HSET', 'ql:config', name, value)
      M.Config_wake_if_concurrency(name)
      return nil
    end
  elseif lazy_k == 'Config_unset' then
    -- config.unset <now> <key>
    -- Publishes {"event":"config_unset","option"} on ql:log, then deletes. Reply nil.
    -- Error: config.unset(): Arg "option" missing
    lazy_f = function(now)
      local name = A[3]
      if name == nil then fail('config.unset(): Arg "option" missing') end
      rcall('PUBLISH', 'ql:' .. 'log', encode({ event = 'config_unset', option = name }))
      rcall('HDEL', 'ql:config', name)
      M.Config_wake_if_concurrency(name)
      return nil
    end
  elseif lazy_k == 'Stats_count' then
    -- Adjust the failure counters of `queue` for the day containing `when`.
    lazy_f = function(now, when, queue, field, by, field2, by2)
      local day = day_of(when)
      local k = stats_key('stats', day, queue)
      rcall('HINCRBY', k, field, by)
      if field2 then rcall('HINCRBY', k, field2, by2) end
      M.Stats_expire(k, now, day)
    end
  elseif lazy_k == 'Stats_unfailed' then
    -- Decrement `failed` for a job that leaves the failed state (`failure` is its JSON text).
    -- A failure object without a usable `when` adjusts nothing.
    lazy_f = function(now, failure, queue)
      local ok, f = pcall(decode, failure or '{}')
      if not ok or type(f) ~= 'table' then return nil end
      local when = num(f['when'])
      if when == nil then return nil end
      local day = day_of(when)
      local k = stats_key('stats', day, queue)
      rcall('HINCRBY', k, 'failed', -1)
      M.Stats_expire(k, now, day)
      return f
    end
  elseif lazy_k == 'Stats_summary' then
    -- The `wait`/`run` part of the stats reply.
    lazy_f = function(k)
      local raw = rcall('HGETALL', k)
      local h = {}
      for i = 1, #raw, 2 do h[raw[i]] = raw[i + 1] end
      local count = tonumber(h.total) or 0
      local mean = tonumber(h.mean) or 0
      local vk = tonumber(h.vk) or 0
      local std = 0
      if count > 1 then std = math.sqrt(vk / (count - 1)) end
      local histogram = {}
      for i = 0, 59 do histogram[#histogram + 1] = tonumber(h['s' .. i]) or 0 end
      for i = 1, 59 do histogram[#histogram + 1] = tonumber(h['m' .. i]) or 0 end
      for i = 1, 23 do histogram[#histogram + 1] = tonumber(h['h' .. i]) or 0 end
      for i = 1, 6 do histogram[#histogram + 1] = tonumber(h['d' .. i]) or 0 end
      return { count = count, mean = mean, std = std, histogram = histogram }
    end
  elseif lazy_k == 'Stats_get' then
    -- stats <now> <queue> <date>
    -- Reply: {"retries","failed","failures","wait":{...},"run":{...}} for the day of `date`.
    -- Errors: Queue(): no queue name provided / Stats(): Arg "date" missing or not a number: <x>
    lazy_f = function(now)
      local queue, date_s = A[3], A[4]
      if queue == nil then fail('Queue(): no queue name provided') end
      local date = num(date_s)
      if date == nil then fail('Stats(): Arg "date" missing or not a number: ' .. tostring(date_s)) end
      local day = day_of(date)
      local counters = rcall('HMGET', stats_key('stats', day, queue), 'retries', 'failed', 'failures')
      return encode({
        retries = tonumber(counters[1]) or 0,
        failed = tonumber(counters[2]) or 0,
        failures = tonumber(counters[3]) or 0,
        wait = M.Stats_summary(stats_key('wait', day, queue)),
        run = M.Stats_summary(stats_key('run', day, queue)),
      })
    end
  elseif lazy_k == 'Job_migrate' then
    -- Legacy history (a JSON field of jobs written by very old versions) becomes list entries,
    -- appended after the existing ones; the field is then deleted (protocol 2.4).
    lazy_f = function(jid, legacy)
      local hk = 'ql:j:' .. jid .. '-history'
      local ok, stages = pcall(decode, legacy)
      if ok and type(stages) == 'table' then
        for _, st in ipairs(stages) do
          if type(st) == 'table' then
            rcall('RPUSH', hk, encode({ floor(num(st.put) or 0), 'put', { q = st.q } }))
            if num(st.popped) then
              rcall('RPUSH', hk, encode({ floor(num(st.popped)), 'popped', { worker = st.worker } }))
            end
            if num(st.failed) then rcall('RPUSH', hk, encode({ floor(num(st.failed)), 'failed' })) end
            if num(st.done) then rcall('RPUSH', hk, encode({ floor(num(st.done)), 'done' })) end
          end
        end
      end
      rcall('HDEL', 'ql:j:' .. jid, 'history')
    end
  elseif lazy_k == 'Job_link' then
    -- Record that job `jid` waits for `dep` when `dep` exists and is not complete.
    lazy_f = function(jid, dep)
      local st = rcall('HGET', 'ql:j:' .. dep, 'state')
      if st and st ~= 'complete' then
        rcall('SADD', 'ql:j:' .. jid .. '-dependencies', dep)
        rcall('SADD', 'ql:j:' .. dep .. '-dependents', jid)
        return true
      end
      return false
    end
  elseif lazy_k == 'Job_unlist_failure' then
    -- Remove a job from a failure group (and the group from ql:failures when it empties).
    lazy_f = function(jid, group)
      if type(group) ~= 'string' then return end
      local gk = 'ql:f:' .. group
      rcall('LREM', gk, 0, jid)
      if rcall('LLEN', gk) == 0 then rcall('SREM', 'ql:failures', group) end
    end
  elseif lazy_k == 'Job_park_failed' then
    -- Park a job in failure group `group` with failure object `failure`.
    lazy_f = function(jid, group, failure)
      rcall('HMSET', 'ql:j:' .. jid, 'state', 'failed', 'worker', '', 'expires', '',
        'failure', encode(failure))
      rcall('SADD', 'ql:failures', group)
      rcall('LPUSH', 'ql:f:' .. group, jid)
    end
  elseif lazy_k == 'Job_delete' then
    -- Delete a job entirely (completed-job expiry): its tags, hash and history.
    lazy_f = function(jid)
      local tags = M.Job_tag_list(rcall('HGET', 'ql:j:' .. jid, 'tags'))
      for _, t in ipairs(tags) do
        rcall('ZREM', 'ql:t:' .. t, jid)
        rcall('ZINCRBY', 'ql:tags', -1, t)
      end
      rcall('DEL', 'ql:j:' .. jid, 'ql:j:' .. jid .. '-history')
    end
  elseif lazy_k == 'Job_requeue' then
    -- requeue: exactly put, for a job that must already exist.
    lazy_f = function(now) return M.Job_put(now, true) end
  elseif lazy_k == 'Job_fail' then
    -- fail <now> <jid> <worker> <group> <message> [data]
    -- Reply: the jid. Events: ql:log failed, then ql:failed (tracked).
    -- Errors: Job(): no jid provided / Fail(): Arg "worker" missing / Fail(): Arg "group" missing /
    -- Fail(): Arg "message" missing / cjson error (data) / Fail(): Job <jid>does not exist /
    -- Fail(): Job <jid>not currently running: <state> / Fail(): Job <jid> running with another
    -- worker: <w>
    lazy_f = function(now)
      local jid, worker, group, message, data = A[3], A[4], A[5], A[6], A[7]
      if jid == nil then fail('Job(): no jid provided') end
      if worker == nil then fail('Fail(): Arg "worker" missing') end
      if group == nil then fail('Fail(): Arg "group" missing') end
      if message == nil then fail('Fail(): Arg "message" missing') end
      local decoded
      if data ~= nil then decoded = decode(data) end
      local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'worker', 'queue', 'history')
      local state, queue = f[1], f[3]
      if not state then fail('Fail(): Job ' .. jid .. 'does not exist') end
      if state ~= 'running' then fail('Fail(): Job ' .. jid .. 'not currently running: ' .. state) end
      if f[2] ~= worker then
        fail('Fail(): Job ' .. jid .. ' running with another worker: ' .. tostring(f[2]))
      end
      queue = queue or ''
      rcall('PUBLISH', 'ql:' .. 'log', encode({ jid = jid, event = 'failed', worker = worker,
        group = group, message = message }))
      M.Job_notify(jid, 'failed')
      rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
      M.Job_hist(jid, now, 'failed', { worker = worker, group = group }, f[4] or false)
      M.Stats_count(now, now, queue, 'failures', 1, 'failed', 1)
      rcall('ZREM', 'ql:q:' .. queue .. '-locks', jid)
      M.Job_left_running(queue)
      if decoded ~= nil and decoded ~= false then rcall('HSET', 'ql:j:' .. jid, 'data', encode(decoded)) end
      M.Job_park_failed(jid, group,
        { group = group, message = message, when = floor(now), worker = worker })
      return jid
    end
  elseif lazy_k == 'Job_retry' then
    -- retry <now> <jid> <queue> <worker> [delay] [group] [message]
    -- Reply: integer, retries remaining (-1 when the job failed). Events: ql:failed (tracked) on
    -- exhaustion (no ql:log event there, as in the reference).
    -- Errors: Job(): no jid provided / Retry(): Arg "queue" missing / Retry(): Arg "worker"
    -- missing / Retry(): Arg "delay" not a number: <x> / Retry(): Job <jid> does not exist /
    -- ... is not currently running: <state> / ... has been given to another worker: <w>
    lazy_f = function(now)
      local jid, queue, worker, delay_s, group, message = A[3], A[4], A[5], A[6], A[7], A[8]
      if jid == nil then fail('Job(): no jid provided') end
      if queue == nil then fail('Retry(): Arg "queue" missing') end
      if worker == nil then fail('Retry(): Arg "worker" missing') end
      local delay = 0
      if delay_s ~= nil then
        delay = num(delay_s)
        if delay == nil then fail('Retry(): Arg "delay" not a number: ' .. delay_s) end
      end
      local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'worker', 'queue', 'priority', 'history')
      local state = f[1]
      if not state then fail('Retry(): Job ' .. jid .. ' does not exist') end
      if state ~= 'running' then fail('Retry(): Job ' .. jid .. ' is not currently running: ' .. state) end
      if f[2] ~= worker then
        fail('Retry(): Job ' .. jid .. ' has been given to another worker: ' .. tostring(f[2]))
      end
      local jk = 'ql:j:' .. jid
      -- HINCRBYFLOAT: a fractional budget (retries 2.5) must not make this fail.
      local remaining = tonumber(rcall('HINCRBYFLOAT', jk, 'remaining', -1))
      rcall('HDEL', jk, 'grace')
      rcall('ZREM', 'ql:q:' .. (f[3] or '') .. '-locks', jid)
      rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
      M.Job_left_running(f[3])
      if remaining < 0 then
        group = group or ('failed-retries-' .. queue)
        M.Job_hist(jid, now, 'failed', { group = group }, f[5] or false)
        local failure
        if message ~= nil then
          failure = { group = group, message = message, when = floor(now), worker = worker }
        else
          failure = { group = group, worker = '', when = now,
            message = 'Job exhausted retries in queue "' .. tostring(f[3]) .. '"' }
        end
        M.Job_notify(jid, 'failed')
        M.Job_park_failed(jid, group, failure)
        M.Stats_count(now, now, queue, 'failures', 1, 'failed', 1)
      else
        if delay > 0 then
          rcall('ZADD', 'ql:q:' .. queue .. '-scheduled', now + delay, jid)
          rcall('HSET', jk, 'state', 'scheduled')
        else
          M.Job_enqueue(queue, jid, tonumber(f[4]) or 0, now)
          rcall('HSET', jk, 'state', 'waiting')
        end
        if group ~= nil and message ~= nil then
          rcall('HSET', jk, 'failure',
            encode({ group = group, message = message, when = floor(now), worker = worker }))
        end
      end
      return floor(remaining)
    end
  elseif lazy_k == 'Job_multiget' then
    -- multiget <now> [jid...]: JSON array of the existing jobs, in argument order ({} if none).
    lazy_f = function(now)
      local parts = {}
      for i = 3, #A do parts[#parts + 1] = M.Job_render(A[i]) end
      return jlist(parts)
    end
  elseif lazy_k == 'Job_cancel_one' then
    -- Cancel one job that is not complete (protocol 3.10, per-jid part).
    lazy_f = function(jid, f)
      local state, queue, failure, worker = f[1], f[2], f[3], f[4]
      local msg = encode({ jid = jid, worker = worker, event = 'canceled', queue = queue })
      rcall('PUBLISH', 'ql:' .. 'log', msg)
      if worker and worker ~= '' then
        rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
        rcall('PUBLISH', 'ql:w:' .. worker, msg)
      end
      if queue then
        rcall('ZREM', 'ql:q:' .. queue .. '-work', jid)
        rcall('ZREM', 'ql:q:' .. queue .. '-locks', jid)
        rcall('ZREM', 'ql:q:' .. queue .. '-scheduled', jid)
        rcall('ZREM', 'ql:q:' .. queue .. '-depends', jid)
        if state == 'running' then M.Job_left_running(queue) end
      end
      local depk = 'ql:j:' .. jid .. '-dependencies'
      for _, b in ipairs(rcall('SMEMBERS', depk)) do rcall('SREM', 'ql:j:' .. b .. '-dependents', jid) end
      rcall('DEL', depk)
      if state == 'failed' then
        local ok, fo = pcall(decode, failure or '{}')
        if ok and type(fo) == 'table' then
          M.Job_unlist_failure(jid, fo.group)
          local when = num(fo.when)
          if when then
            -- The reference fails with a Lua error when the counter is missing; leave it alone.
            local sk = stats_key('stats', day_of(when), queue or '')
            if rcall('HEXISTS', sk, 'failed') == 1 then rcall('HINCRBY', sk, 'failed', -1) end
          end
        end
      end
      for _, t in ipairs(M.Job_tag_list(f[5])) do
        rcall('ZREM', 'ql:t:' .. t, jid)
        rcall('ZINCRBY', 'ql:tags', -1, t)
      end
      M.Job_notify(jid, 'canceled')
      rcall('DEL', 'ql:j:' .. jid, 'ql:j:' .. jid .. '-history')
    end
  elseif lazy_k == 'Job_cancel' then
    -- cancel <now> [jid...]
    -- Reply: array of the jids passed. Events per job: ql:log canceled, ql:w:<worker> canceled,
    -- ql:canceled (tracked). Error: Cancel(): <jid> is a dependency of <dependent> but is not
    -- mentioned to be canceled (checked before any write).
    lazy_f = function(now)
      local n = #A
      local listed, out = {}, {}
      for i = 3, n do listed[A[i]] = true end
      for i = 3, n do
        local jid = A[i]
        for _, d in ipairs(rcall('SMEMBERS', 'ql:j:' .. jid .. '-dependents')) do
          if not listed[d] then
            fail('Cancel(): ' .. jid .. ' is a dependency of ' .. d ..
              ' but is not mentioned to be canceled')
          end
        end
      end
      for i = 3, n do
        local jid = A[i]
        out[#out + 1] = jid
        local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'queue', 'failure', 'worker', 'tags')
        if f[1] ~= 'complete' then M.Job_cancel_one(jid, f) end
      end
      return out
    end
  elseif lazy_k == 'Job_timeout' then
    -- timeout <now> <jid>...
    -- Every jid is checked before any is timed out. Reply nil. Events per job:
    -- ql:w:<worker> lock_lost, then ql:log lock_lost.
    -- Errors: Timeout(): Job <jid> does not exist / Timeout(): Job <jid> not running
    lazy_f = function(now)
      local n = #A
      local rows, seen = {}, {}
      for i = 3, n do
        local jid = A[i]
        local f = rcall('HMGET', 'ql:j:' .. jid, 'queue', 'state', 'worker', 'history')
        if not f[1] then fail('Timeout(): Job ' .. jid .. ' does not exist') end
        -- A jid listed twice would no longer be running the second time.
        if f[2] ~= 'running' or seen[jid] then fail('Timeout(): Job ' .. jid .. ' not running') end
        seen[jid] = true
        rows[i] = f
      end
      for i = 3, n do
        local jid, f = A[i], rows[i]
        local queue = f[1]
        M.Job_hist(jid, now, 'timed-out', nil, f[4] or false)
        rcall('ZREM', 'ql:q:' .. queue .. '-locks', jid)
        rcall('ZADD', 'ql:q:' .. queue .. '-work', '+inf', jid)
        wake[queue] = true
        rcall('HMSET', 'ql:j:' .. jid, 'state', 'stalled', 'expires', 0)
        local msg = encode({ jid = jid, event = 'lock_lost', worker = f[3] })
        rcall('PUBLISH', 'ql:w:' .. (f[3] or ''), msg)
        rcall('PUBLISH', 'ql:' .. 'log', msg)
      end
      return nil
    end
  elseif lazy_k == 'Job_undepend' then
    -- Move a job out of the depends state into its queue's work set (depends off).
    lazy_f = function(now, jid, f)
      local queue = f[2]
      if queue then
        rcall('ZREM', 'ql:q:' .. queue .. '-depends', jid)
        M.Job_enqueue(queue, jid, tonumber(f[3]) or 0, now)
        rcall('HSET', 'ql:j:' .. jid, 'state', 'waiting')
      end
    end
  elseif lazy_k == 'Job_depends' then
    -- depends <now> <jid> on <jid>... | off <jid>... | off all
    -- Reply: 1. Errors: Job(): no jid provided / Depends(): Arg "command" missing / Depends(): Job
    -- <jid> not in the depends state: <state> / Depends(): Argument "command" must be "on" or "off"
    lazy_f = function(now)
      local jid, command = A[3], A[4]
      if jid == nil then fail('Job(): no jid provided') end
      if command == nil then fail('Depends(): Arg "command" missing') end
      local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'queue', 'priority')
      if f[1] ~= 'depends' then
        fail('Depends(): Job ' .. jid .. ' not in the depends state: ' .. tostring(f[1]))
      end
      local depk = 'ql:j:' .. jid .. '-dependencies'
      if command == 'on' then
        for i = 5, #A do M.Job_link(jid, A[i]) end
      elseif command == 'off' then
        if A[5] == 'all' then
          for _, b in ipairs(rcall('SMEMBERS', depk)) do rcall('SREM', 'ql:j:' .. b .. '-dependents', jid) end
          rcall('DEL', depk)
          M.Job_undepend(now, jid, f)
        elseif #A >= 5 then
          for i = 5, #A do
            rcall('SREM', depk, A[i])
            rcall('SREM', 'ql:j:' .. A[i] .. '-dependents', jid)
          end
          if rcall('SCARD', depk) == 0 then M.Job_undepend(now, jid, f) end
        end
      else
        fail('Depends(): Argument "command" must be "on" or "off"')
      end
      return 1
    end
  elseif lazy_k == 'Job_priority' then
    -- priority <now> <jid> <priority>
    -- Reply: the priority truncated toward zero. Errors: Job(): no jid provided / Priority(): Arg
    -- "priority" missing or not a number: <x> / Priority(): Job <jid> does not exist
    lazy_f = function(now)
      local jid, p_s = A[3], A[4]
      if jid == nil then fail('Job(): no jid provided') end
      local p = num(p_s)
      if p == nil then fail('Priority(): Arg "priority" missing or not a number: ' .. tostring(p_s)) end
      local queue = rcall('HGET', 'ql:j:' .. jid, 'queue')
      if not queue then fail('Priority(): Job ' .. jid .. ' does not exist') end
      rcall('HSET', 'ql:j:' .. jid, 'priority', p)
      local wk = 'ql:q:' .. queue .. '-work'
      if rcall('ZSCORE', wk, jid) then rcall('ZADD', wk, p, jid) end
      return p
    end
  elseif lazy_k == 'Job_log' then
    -- log <now> <jid> <message> [data]
    -- Appends a history entry (what = message, extra = decoded data). Reply nil.
    -- Errors: Log(): Argument 'jid' missing / Log(): Argument 'message' missing / cjson error /
    -- Log(): Argument 'data' not cjson: <x> / Log(): Job <jid> does not exist
    lazy_f = function(now)
      local jid, message, data = A[3], A[4], A[5]
      if jid == nil then fail("Log(): Argument 'jid' missing") end
      if message == nil then fail("Log(): Argument 'message' missing") end
      local extra
      if data ~= nil then
        extra = decode(data)
        if extra == false then fail("Log(): Argument 'data' not cjson: " .. data) end
      end
      if rcall('EXISTS', 'ql:j:' .. jid) == 0 then fail('Log(): Job ' .. jid .. ' does not exist') end
      -- Pass the extra as JSON text: a decoded JSON string must not be taken for JSON text.
      if extra ~= nil then extra = encode(extra) end
      M.Job_hist(jid, now, message, extra)
      return nil
    end
  elseif lazy_k == 'Queue_with_names' then
    -- Call a variadic Redis command on ARGV[first..] in chunks (no unpack() ceiling). With no
    -- names at all Redis raises its own arity error, as the reference does.
    lazy_f = function(cmd, k, first)
      local n = #A
      if n < first then return rcall(cmd, k) end
      for i = first, n, 1000 do
        local j = i + 999
        if j > n then j = n end
        rcall(cmd, k, unpack(A, i, j))
      end
    end
  elseif lazy_k == 'Queue_exhausted' then
    -- Lock expiry that exhausted the job's retries: fail it (protocol 4.2).
    lazy_f = function(now, queue, jid, f)
      local jq = f[3] or queue
      rcall('ZREM', 'ql:q:' .. queue .. '-work', jid)
      rcall('ZREM', 'ql:q:' .. queue .. '-locks', jid)
      rcall('ZREM', 'ql:q:' .. queue .. '-scheduled', jid)
      local group = 'failed-retries-' .. jq
      local message = 'Job exhausted retries in queue "' .. jq .. '"'
      M.Job_hist(jid, now, 'failed', { group = group }, f[4] or false)
      M.Job_park_failed(jid, group, { group = group, message = message, when = now, worker = '' })
      M.Job_notify(jid, 'failed')
      rcall('PUBLISH', 'ql:' .. 'log', encode({ jid = jid, event = 'failed', group = group,
        worker = f[1], message = message }))
      M.Stats_count(now, now, queue, 'failures', 1, 'failed', 1)
      M.Job_left_running(queue)
    end
  elseif lazy_k == 'Queue_render' then
    -- Render a list of jids as a JSON array of job objects, skipping missing jobs.
    lazy_f = function(jids)
      local parts = {}
      for _, jid in ipairs(jids) do parts[#parts + 1] = M.Job_render(jid) end
      return jlist(parts)
    end
  elseif lazy_k == 'Queue_take' then
    -- Append up to `want` jids from the work set (highest score first) to `jids`.
    lazy_f = function(queue, jids, want)
      if want <= 0 then return end
      for _, jid in ipairs(rcall('ZREVRANGE', 'ql:q:' .. queue .. '-work', 0, want - 1)) do
        jids[#jids + 1] = jid
      end
    end
  elseif lazy_k == 'Queue_peek' then
    -- peek <now> <queue> <count>
    -- Reply: JSON array of job objects: expired locks first, then the work set ({} when none).
    -- Spawns recurring jobs and promotes scheduled ones. Errors: Queue(): no queue name provided
    -- / Peek(): Arg "count" missing or not a number: <x>
    lazy_f = function(now)
      local queue, count_s = A[3], A[4]
      if queue == nil then fail('Queue(): no queue name provided') end
      local count = num(count_s)
      if count == nil then fail('Peek(): Arg "count" missing or not a number: ' .. tostring(count_s)) end
      count = M.Queue_whole(count)
      local jids = {}
      if count > 0 then
        jids = rcall('ZRANGEBYSCORE', 'ql:q:' .. queue .. '-locks', '-inf', now, 'LIMIT', 0, count)
      end
      local want = count - #jids
      if want > 0 then
        M.Recur_spawn(now, queue, want)
        M.Queue_promote(now, queue, want)
        M.Queue_take(queue, jids, want)
      end
      return M.Queue_render(jids)
    end
  elseif lazy_k == 'Queue_counts' then
    -- The counts object of one queue (protocol 2.11); promotes every due scheduled job.
    lazy_f = function(now, queue)
      local lk, sk = 'ql:q:' .. queue .. '-locks', 'ql:q:' .. queue .. '-scheduled'
      local stalled = rcall('ZCOUNT', lk, 0, now)
      M.Queue_promote(now, queue, rcall('ZCARD', sk))
      return {
        name = queue,
        waiting = rcall('ZCARD', 'ql:q:' .. queue .. '-work'),
        stalled = stalled,
        running = rcall('ZCARD', lk) - stalled,
        scheduled = rcall('ZCARD', sk),
        depends = rcall('ZCARD', 'ql:q:' .. queue .. '-depends'),
        recurring = rcall('ZCARD', 'ql:q:' .. queue .. '-recur'),
        paused = rcall('SISMEMBER', 'ql:paused_queues', queue) == 1,
      }
    end
  elseif lazy_k == 'Queue_queues' then
    -- queues <now> [queue]
    -- Reply: the counts object of one queue, or an array for every known queue ({} if none).
    lazy_f = function(now)
      local queue = A[3]
      if queue ~= nil then return encode(M.Queue_counts(now, queue)) end
      local out = {}
      for _, q in ipairs(rcall('ZRANGE', 'ql:queues', 0, -1)) do out[#out + 1] = M.Queue_counts(now, q) end
      return encode(out)
    end
  elseif lazy_k == 'Queue_length' then
    -- length <now> <queue>: integer, running + waiting + scheduled jobs.
    -- Error: Queue(): no queue name provided
    lazy_f = function(now)
      local queue = A[3]
      if queue == nil then fail('Queue(): no queue name provided') end
      return rcall('ZCARD', 'ql:q:' .. queue .. '-locks') + rcall('ZCARD', 'ql:q:' .. queue .. '-work') +
        rcall('ZCARD', 'ql:q:' .. queue .. '-scheduled')
    end
  elseif lazy_k == 'Queue_page_arg' then
    -- Pagination argument: default when absent, else a number (fractions are floored).
    lazy_f = function(v, default, msg)
      if v == nil then return default end
      local n = num(v)
      if n == nil then fail(msg .. v) end
      return floor(n)
    end
  elseif lazy_k == 'Queue_jobs' then
    -- jobs <now> complete [offset] [count] | jobs <now> <state> <queue> [offset] [count]
    -- Reply: array of jids. Errors: Jobs(): Arg "state" missing / Jobs(): Arg "queue" missing /
    -- Jobs(): Arg "offset" not a number: <x> / Jobs(): Arg "count" not a number: <x> / Jobs():
    -- Unknown type "<state>"
    lazy_f = function(now)
      local state = A[3]
      if state == nil then fail('Jobs(): Arg "state" missing') end
      local queue, off_s, cnt_s
      if state == 'complete' then
        off_s, cnt_s = A[4], A[5]
      else
        queue, off_s, cnt_s = A[4], A[5], A[6]
        if queue == nil then fail('Jobs(): Arg "queue" missing') end
      end
      local offset = M.Queue_page_arg(off_s, 0, 'Jobs(): Arg "offset" not a number: ')
      local count = M.Queue_page_arg(cnt_s, 25, 'Jobs(): Arg "count" not a number: ')
      local last = offset + count - 1
      if state == 'complete' then return rcall('ZREVRANGE', 'ql:completed', offset, last) end
      if state == 'running' then
        return rcall('ZRANGEBYSCORE', 'ql:q:' .. queue .. '-locks', now, '+inf', 'LIMIT', offset, count)
      elseif state == 'stalled' then
        return rcall('ZRANGEBYSCORE', 'ql:q:' .. queue .. '-locks', '-inf', now, 'LIMIT', offset, count)
      elseif state == 'scheduled' then
        local sk = 'ql:q:' .. queue .. '-scheduled'
        M.Queue_promote(now, queue, rcall('ZCARD', sk))
        return rcall('ZRANGE', sk, offset, last)
      elseif state == 'depends' then
        return rcall('ZRANGE', 'ql:q:' .. queue .. '-depends', offset, last)
      elseif state == 'recurring' then
        return rcall('ZRANGEBYSCORE', 'ql:q:' .. queue .. '-recur', 0, '+inf', 'LIMIT', offset, count)
      end
      fail('Jobs(): Unknown type "' .. state .. '"')
    end
  elseif lazy_k == 'Queue_pause' then
    -- pause <now> <queue>...: reply nil.
    lazy_f = function(now)
      M.Queue_with_names('SADD', 'ql:paused_queues', 3)
      return nil
    end
  elseif lazy_k == 'Queue_unpause' then
    -- unpause <now> <queue>...: reply nil; wakes workers waiting on those queues.
    lazy_f = function(now)
      M.Queue_with_names('SREM', 'ql:paused_queues', 3)
      for i = 3, #A do wake[A[i]] = true end
      return nil
    end
  elseif lazy_k == 'Queue_forget' then
    -- queue.forget <now> <queue>...: drop the names from ql:queues only. Reply nil.
    lazy_f = function(now)
      M.Queue_with_names('ZREM', 'ql:queues', 3)
      return nil
    end
  elseif lazy_k == 'Queue_failed' then
    -- failed <now> [group [start [limit]]]
    -- Reply: {"<group>": count, ...} ({} if none), or {"total","jobs":[jid...]} for one group,
    -- most recently failed first. Errors: Failed(): Arg "start" is not a number: <x> / Failed():
    -- Arg "limit" is not a number: <x>
    lazy_f = function(now)
      local group = A[3]
      if group == nil then
        local out = {}
        for _, g in ipairs(rcall('SMEMBERS', 'ql:failures')) do
          out[g] = rcall('LLEN', 'ql:f:' .. g)
        end
        return encode(out)
      end
      local start = M.Queue_page_arg(A[4], 0, 'Failed(): Arg "start" is not a number: ')
      local limit = M.Queue_page_arg(A[5], 25, 'Failed(): Arg "limit" is not a number: ')
      local gk = 'ql:f:' .. group
      return encode({
        total = rcall('LLEN', gk),
        jobs = rcall('LRANGE', gk, start, start + limit - 1),
      })
    end
  elseif lazy_k == 'Queue_unfail' then
    -- unfail <now> <queue> <group> [count]
    -- Moves the oldest `count` (default 25) jobs of a failure group into `queue` as waiting.
    -- Reply: integer, jobs moved. A listed jid whose job is gone is dropped from the group and
    -- not counted (the reference fails). count <= 0 is rejected before any write (the reference
    -- raises a Redis range error for 0).
    -- Errors: Queue(): no queue name provided / Unfail(): Arg "group" missing / Unfail(): Arg
    -- "count" not a number: <x>
    lazy_f = function(now)
      local queue, group, count_s = A[3], A[4], A[5]
      if queue == nil then fail('Queue(): no queue name provided') end
      if group == nil then fail('Unfail(): Arg "group" missing') end
      local count = 25
      if count_s ~= nil then
        count = num(count_s)
        if count == nil then fail('Unfail(): Arg "count" not a number: ' .. count_s) end
        count = floor(count)
        if count <= 0 then
          fail('Unfail(): Arg "count" must be at least 1: value is not an integer or out of range')
        end
      end
      local gk = 'ql:f:' .. group
      local jids = rcall('LRANGE', gk, -count, -1)
      local moved = 0
      for _, jid in ipairs(jids) do
        local jk = 'ql:j:' .. jid
        local f = rcall('HMGET', jk, 'state', 'priority', 'retries', 'history')
        if f[1] then
          M.Job_hist(jid, now, 'put', { q = queue }, f[4] or false)
          rcall('HMSET', jk, 'state', 'waiting', 'worker', '', 'expires', 0, 'queue', queue,
            'remaining', f[3] or 0)
          M.Job_enqueue(queue, jid, tonumber(f[2]) or 0, now)
          moved = moved + 1
        end
      end
      rcall('LTRIM', gk, 0, -count - 1)
      if rcall('LLEN', gk) == 0 then rcall('SREM', 'ql:failures', group) end
      return moved
    end
  elseif lazy_k == 'Recur_recur_number' then
    -- Option value that must be a finite number (default when absent).
    lazy_f = function(opts, name, default)
      local v = opts[name]
      if v == nil then return default end
      local n = num(v)
      if n == nil then fail('Recur(): Arg "' .. name .. '" not a number: ' .. v) end
      return n
    end
  elseif lazy_k == 'Recur_recur' then
    -- recur <now> <queue> <jid> <klass> <data> interval <seconds> <offset> [priority p]
    --       [tags t] [retries r] [backlog b]
    -- Reply: the template jid. Re-issuing replaces every attribute but keeps `count`.
    -- Errors: Queue(): no queue name provided / RecurringJob On(): Arg "jid" missing /
    -- RecurringJob On(): Arg "klass" missing / RecurringJob On(): Arg "spec" missing /
    -- RecurringJob On(): Arg "data" not JSON: <x> / Recur(): schedule type "<x>" unknown /
    -- Recur(): Arg "interval" not a number: <x> / Recur(): Arg "offset" not a number: <x> /
    -- Recur(): Arg "interval" must be greater than 0 / Odd number of additional args / Recur():
    -- Arg "tags" must be JSON string array: <x> / Recur(): Arg "<name>" not a number: <x>
    lazy_f = function(now)
      local queue, jid, klass, data, spec = A[3], A[4], A[5], A[6], A[7]
      if queue == nil then fail('Queue(): no queue name provided') end
      if jid == nil then fail('RecurringJob On(): Arg "jid" missing') end
      if klass == nil then fail('RecurringJob On(): Arg "klass" missing') end
      if spec == nil then fail('RecurringJob On(): Arg "spec" missing') end
      if decode(data) == false then fail('RecurringJob On(): Arg "data" not JSON: ' .. data) end
      if spec ~= 'interval' then fail('Recur(): schedule type "' .. spec .. '" unknown') end
      local interval = num(A[8])
      if interval == nil then fail('Recur(): Arg "interval" not a number: ' .. tostring(A[8])) end
      local offset = num(A[9])
      if offset == nil then fail('Recur(): Arg "offset" not a number: ' .. tostring(A[9])) end
      if interval <= 0 then fail('Recur(): Arg "interval" must be greater than 0') end
      local n = #A
      if (n - 7) % 2 == 1 then fail('Odd number of additional args') end
      local opts = {}
      for i = 10, n - 1, 2 do opts[A[i]] = A[i + 1] end
      local tags = {}
      if opts.tags ~= nil then
        tags = string_list(decode(opts.tags))
        if tags == nil then fail('Recur(): Arg "tags" must be JSON string array: ' .. opts.tags) end
      end
      local priority = M.Recur_recur_number(opts, 'priority', 0)
      local retries = M.Recur_recur_number(opts, 'retries', 0)
      local backlog = M.Recur_recur_number(opts, 'backlog', 0)

      local tk = 'ql:r:' .. jid
      local old = rcall('HMGET', tk, 'count', 'queue')
      if old[2] then rcall('ZREM', 'ql:q:' .. old[2] .. '-recur', jid) end
      rcall('HMSET', tk, 'jid', jid, 'klass', klass, 'data', data, 'priority', priority,
        'tags', encode(tags), 'state', 'recur', 'queue', queue, 'type', 'interval',
        'count', old[1] or 0, 'interval', interval, 'retries', retries, 'backlog', backlog)
      rcall('ZADD', 'ql:q:' .. queue .. '-recur', now + offset, jid)
      rcall('ZADD', 'ql:queues', 'NX', now, queue)
      if offset <= 0 then wake[queue] = true end
      return jid
    end
  elseif lazy_k == 'Recur_unrecur' then
    -- unrecur <now> <jid>: delete the template (spawned jobs stay). Reply 1.
    -- Error: Recurring(): no jid provided
    lazy_f = function(now)
      local jid = A[3]
      if jid == nil then fail('Recurring(): no jid provided') end
      local tk = 'ql:r:' .. jid
      local queue = rcall('HGET', tk, 'queue')
      if queue then rcall('ZREM', 'ql:q:' .. queue .. '-recur', jid) end
      rcall('DEL', tk)
      return 1
    end
  elseif lazy_k == 'Recur_get' then
    -- recur.get <now> <jid>: the recurring object (protocol 2.11), or nil.
    -- Error: Recurring(): no jid provided
    lazy_f = function(now)
      local jid = A[3]
      if jid == nil then fail('Recurring(): no jid provided') end
      local r = rcall('HMGET', 'ql:r:' .. jid, 'jid', 'klass', 'state', 'queue', 'priority',
        'interval', 'retries', 'count', 'data', 'tags', 'backlog')
      if not r[1] then return false end
      return encode({
        jid = r[1], klass = r[2], state = r[3], queue = r[4], priority = tonumber(r[5]),
        interval = tonumber(r[6]), retries = tonumber(r[7]), count = tonumber(r[8]), data = r[9],
        tags = M.Job_tag_list(r[10]), backlog = tonumber(r[11]) or 0,
      })
    end
  elseif lazy_k == 'Recur_check_update' then
    -- Check one recur.update pair (protocol 3.29 validation column).
    lazy_f = function(name, value)
      if value == nil then fail('No value provided for ' .. tostring(name)) end
      if name == 'priority' or name == 'interval' or name == 'retries' then
        if num(value) == nil then fail('Recur(): Arg "' .. name .. '" must be a number: ' .. value) end
      elseif name == 'backlog' then
        if num(value) == nil then fail('Recur(): Arg "backlog" not a number: ' .. value) end
      elseif name == 'data' then
        if decode(value) == false then fail('Recur(): Arg "data" is not JSON-encoded: ' .. value) end
      elseif name ~= 'klass' and name ~= 'queue' then
        fail('Recur(): Unrecognized option "' .. name .. '"')
      end
    end
  elseif lazy_k == 'Recur_update' then
    -- recur.update <now> <jid> [name value]...
    -- Every pair is validated before the first is applied (the reference applies them one by
    -- one). Reply 1. Errors: Recurring(): no jid provided / Recur(): No recurring job <jid> /
    -- No value provided for <name> / Recur(): Arg "<name>" must be a number: <x> / Recur(): Arg
    -- "backlog" not a number: <x> / Recur(): Arg "data" is not JSON-encoded: <x> / Recur():
    -- Unrecognized option "<name>"
    lazy_f = function(now)
      local jid = A[3]
      if jid == nil then fail('Recurring(): no jid provided') end
      local tk = 'ql:r:' .. jid
      if rcall('EXISTS', tk) == 0 then fail('Recur(): No recurring job ' .. jid) end
      local n = #A
      for i = 4, n, 2 do M.Recur_check_update(A[i], A[i + 1]) end
      local r = rcall('HMGET', tk, 'queue', 'interval')
      local queue, interval = r[1] or '', tonumber(r[2]) or 0
      for i = 4, n, 2 do
        local name, value = A[i], A[i + 1]
        if name == 'priority' or name == 'retries' or name == 'backlog' then
          rcall('HSET', tk, name, num(value))
        elseif name == 'interval' then
          local new = num(value)
          rcall('ZINCRBY', 'ql:q:' .. queue .. '-recur', new - interval, jid)
          rcall('HSET', tk, 'interval', new)
          interval = new
        elseif name == 'queue' then
          local old_rk = 'ql:q:' .. queue .. '-recur'
          local score = rcall('ZSCORE', old_rk, jid)
          rcall('ZREM', old_rk, jid)
          if score then rcall('ZADD', 'ql:q:' .. value .. '-recur', score, jid) end
          rcall('HSET', tk, 'queue', value)
          rcall('ZADD', 'ql:queues', 'NX', now, value)
          queue = value
        else
          rcall('HSET', tk, name, value)
        end
      end
      local score = tonumber(rcall('ZSCORE', 'ql:q:' .. queue .. '-recur', jid))
      if score and score <= now then wake[queue] = true end
      return 1
    end
  elseif lazy_k == 'Recur_tag' then
    -- recur.tag <now> <jid> <tag>...: append tags not already on the template (duplicates given
    -- in the same call are all appended, as in the reference). Reply: the tag list JSON.
    -- Errors: Recurring(): no jid provided / Tag(): Job <jid> does not exist
    lazy_f = function(now)
      local jid = A[3]
      if jid == nil then fail('Recurring(): no jid provided') end
      local tk = 'ql:r:' .. jid
      local text = rcall('HGET', tk, 'tags')
      if not text then fail('Tag(): Job ' .. jid .. ' does not exist') end
      local tags = M.Job_tag_list(text)
      local present = {}
      for _, t in ipairs(tags) do present[t] = true end
      for i = 4, #A do
        if not present[A[i]] then tags[#tags + 1] = A[i] end
      end
      local out = encode(tags)
      rcall('HSET', tk, 'tags', out)
      return out
    end
  elseif lazy_k == 'Recur_untag' then
    -- recur.untag <now> <jid> <tag>...: remove the listed tags. Reply: the tag list JSON.
    -- Errors: Recurring(): no jid provided / Untag(): Job <jid> does not exist
    lazy_f = function(now)
      local jid = A[3]
      if jid == nil then fail('Recurring(): no jid provided') end
      local tk = 'ql:r:' .. jid
      local text = rcall('HGET', tk, 'tags')
      if not text then fail('Untag(): Job ' .. jid .. ' does not exist') end
      local drop = {}
      for i = 4, #A do drop[A[i]] = true end
      local tags = {}
      for _, t in ipairs(M.Job_tag_list(text)) do
        if not drop[t] then tags[#tags + 1] = t end
      end
      local out = encode(tags)
      rcall('HSET', tk, 'tags', out)
      return out
    end
  elseif lazy_k == 'Worker_cleanup' then
    -- Purge workers idle for longer than `max-worker-age` (default 86400), with their job sets.
    lazy_f = function(now)
      local cutoff = now - config_number('max-worker-age', 86400)
      local stale = rcall('ZRANGEBYSCORE', 'ql:workers', 0, cutoff)
      for _, w in ipairs(stale) do rcall('DEL', 'ql:w:' .. w .. ':jobs') end
      if #stale > 0 then rcall('ZREMRANGEBYSCORE', 'ql:workers', 0, cutoff) end
    end
  elseif lazy_k == 'Worker_workers' then
    -- workers <now> [worker]
    -- Reply: [{"name","jobs","stalled"}...] most recently active first ({} if none), or for one
    -- worker {"jobs":[jid...],"stalled":[jid...]}.
    lazy_f = function(now)
      M.Worker_cleanup(now)
      local name = A[3]
      if name ~= nil then
        local wk = 'ql:w:' .. name .. ':jobs'
        return encode({
          jobs = rcall('ZREVRANGEBYSCORE', wk, now + 8640000, now),
          stalled = rcall('ZREVRANGEBYSCORE', wk, now, 0),
        })
      end
      local out = {}
      for _, w in ipairs(rcall('ZREVRANGE', 'ql:workers', 0, -1)) do
        local wk = 'ql:w:' .. w .. ':jobs'
        out[#out + 1] = {
          name = w,
          jobs = rcall('ZCOUNT', wk, now, now + 8640000),
          stalled = rcall('ZCOUNT', wk, 0, now),
        }
      end
      return encode(out)
    end
  elseif lazy_k == 'Worker_deregister' then
    -- worker.deregister <now> <worker>...: remove from ql:workers only. Reply nil.
    lazy_f = function(now)
      M.Queue_with_names('ZREM', 'ql:workers', 3)
      return nil
    end
  elseif lazy_k == 'Tags_tag' then
    -- tag <now> add <jid> <tag>... | remove <jid> <tag>... | get <tag> [offset] [count] | top
    --     [offset] [count]
    -- Replies: add/remove the job's tag list; get {"total","jobs"}; top the tag names used at
    -- least twice. Errors: Tag(): Arg "command" must be "add", "remove", "get" or "top" / Tag():
    -- First argument must be "add", "remove" or "get" / Tag(): Arg "jid" missing / Tag(): Job
    -- <jid> does not exist / Tag(): Arg "tag" missing / Tag(): Arg "offset" not a number: <x> /
    -- Tag(): Arg "count" not a number: <x>
    lazy_f = function(now)
      local command = A[3]
      if command == nil then fail('Tag(): Arg "command" must be "add", "remove", "get" or "top"') end
      if command == 'add' or command == 'remove' then
        local jid = A[4]
        if jid == nil then fail('Tag(): Arg "jid" missing') end
        local jk = 'ql:j:' .. jid
        local text = rcall('HGET', jk, 'tags')
        if not text then fail('Tag(): Job ' .. jid .. ' does not exist') end
        local tags = M.Job_tag_list(text)
        if command == 'add' then
          local present = {}
          for _, t in ipairs(tags) do present[t] = true end
          for i = 5, #A do
            local t = A[i]
            if not present[t] then
              tags[#tags + 1] = t
              present[t] = true
            end
            rcall('ZADD', 'ql:t:' .. t, now, jid)
            rcall('ZINCRBY', 'ql:tags', 1, t)
          end
        else
          local drop = {}
          for i = 5, #A do drop[A[i]] = true end
          local kept = {}
          for _, t in ipairs(tags) do
            if not drop[t] then kept[#kept + 1] = t end
          end
          tags = kept
          for i = 5, #A do
            rcall('ZREM', 'ql:t:' .. A[i], jid)
            rcall('ZINCRBY', 'ql:tags', -1, A[i])
          end
        end
        local out = encode(tags)
        rcall('HSET', jk, 'tags', out)
        return out
      elseif command == 'get' then
        local tag = A[4]
        if tag == nil then fail('Tag(): Arg "tag" missing') end
        local offset = M.Queue_page_arg(A[5], 0, 'Tag(): Arg "offset" not a number: ')
        local count = M.Queue_page_arg(A[6], 25, 'Tag(): Arg "count" not a number: ')
        local tk = 'ql:t:' .. tag
        return encode({
          total = rcall('ZCARD', tk),
          jobs = rcall('ZRANGE', tk, offset, offset + count - 1),
        })
      elseif command == 'top' then
        local offset = M.Queue_page_arg(A[4], 0, 'Tag(): Arg "offset" not a number: ')
        local count = M.Queue_page_arg(A[5], 25, 'Tag(): Arg "count" not a number: ')
        return encode(rcall('ZREVRANGEBYSCORE', 'ql:tags', '+inf', 2, 'LIMIT', offset, count))
      end
      fail('Tag(): First argument must be "add", "remove" or "get"')
    end
  elseif lazy_k == 'Track_track' then
    -- track <now> | track <now> track <jid> | track <now> untrack <jid>
    -- Replies: {"jobs":[job...],"expired":[jid...]}; or "1"/"0" (a JSON number, as a string).
    -- Events: ql:track / ql:untrack (always). Errors: Track(): Arg "jid" missing / Track(): Job
    -- does not exist / Track(): Unknown action "<x>"
    lazy_f = function(now)
      local action, jid = A[3], A[4]
      if action == nil then
        local jobs, expired = {}, {}
        for _, j in ipairs(rcall('ZRANGE', 'ql:tracked', 0, -1)) do
          local r = M.Job_render(j, nil, true)
          if r then jobs[#jobs + 1] = r else expired[#expired + 1] = encode(j) end
        end
        return '{"jobs":' .. jlist(jobs) .. ',"expired":' .. jlist(expired) .. '}'
      end
      if jid == nil then fail('Track(): Arg "jid" missing') end
      if rcall('EXISTS', 'ql:j:' .. jid) == 0 then fail('Track(): Job does not exist') end
      local a = string.lower(action)
      if a == 'track' then
        rcall('PUBLISH', 'ql:' .. 'track', jid)
        return encode(rcall('ZADD', 'ql:tracked', now, jid))
      elseif a == 'untrack' then
        rcall('PUBLISH', 'ql:' .. 'untrack', jid)
        return encode(rcall('ZREM', 'ql:tracked', jid))
      end
      fail('Track(): Unknown action "' .. action .. '"')
    end
  elseif lazy_k == 'Api_multiget' then
    lazy_f = M.Job_multiget
  elseif lazy_k == 'Api_config.get' then
    lazy_f = M.Config_get
  elseif lazy_k == 'Api_config.set' then
    lazy_f = M.Config_set
  elseif lazy_k == 'Api_config.unset' then
    lazy_f = M.Config_unset
  elseif lazy_k == 'Api_queues' then
    lazy_f = M.Queue_queues
  elseif lazy_k == 'Api_failed' then
    lazy_f = M.Queue_failed
  elseif lazy_k == 'Api_fail' then
    lazy_f = M.Job_fail
  elseif lazy_k == 'Api_jobs' then
    lazy_f = M.Queue_jobs
  elseif lazy_k == 'Api_retry' then
    lazy_f = M.Job_retry
  elseif lazy_k == 'Api_depends' then
    lazy_f = M.Job_depends
  elseif lazy_k == 'Api_workers' then
    lazy_f = M.Worker_workers
  elseif lazy_k == 'Api_track' then
    lazy_f = M.Track_track
  elseif lazy_k == 'Api_tag' then
    lazy_f = M.Tags_tag
  elseif lazy_k == 'Api_stats' then
    lazy_f = M.Stats_get
  elseif lazy_k == 'Api_priority' then
    lazy_f = M.Job_priority
  elseif lazy_k == 'Api_log' then
    lazy_f = M.Job_log
  elseif lazy_k == 'Api_peek' then
    lazy_f = M.Queue_peek
  elseif lazy_k == 'Api_pause' then
    lazy_f = M.Queue_pause
  elseif lazy_k == 'Api_unpause' then
    lazy_f = M.Queue_unpause
  elseif lazy_k == 'Api_cancel' then
    lazy_f = M.Job_cancel
  elseif lazy_k == 'Api_timeout' then
    lazy_f = M.Job_timeout
  elseif lazy_k == 'Api_requeue' then
    lazy_f = M.Job_requeue
  elseif lazy_k == 'Api_unfail' then
    lazy_f = M.Queue_unfail
  elseif lazy_k == 'Api_recur' then
    lazy_f = M.Recur_recur
  elseif lazy_k == 'Api_unrecur' then
    lazy_f = M.Recur_unrecur
  elseif lazy_k == 'Api_recur.get' then
    lazy_f = M.Recur_get
  elseif lazy_k == 'Api_recur.update' then
    lazy_f = M.Recur_update
  elseif lazy_k == 'Api_recur.tag' then
    lazy_f = M.Recur_tag
  elseif lazy_k == 'Api_recur.untag' then
    lazy_f = M.Recur_untag
  elseif lazy_k == 'Api_length' then
    lazy_f = M.Queue_length
  elseif lazy_k == 'Api_worker.deregister' then
    lazy_f = M.Worker_deregister
  elseif lazy_k == 'Api_queue.forget' then
    lazy_f = M.Queue_forget
  end
  if lazy_f ~= nil then lazy_t[lazy_k] = lazy_f end
  return lazy_f
end
setmetatable(M, { __index = define })

-- ==== api.lua (dispatcher) ====

-- Dispatch in the protocol's order, then wake workers of queues that gained poppable work.
-- Wake-up extension: PUBLISH <queue> on qlpy:wake:<queue>, only when someone listens.
local function main()
  if #KEYS > 0 then fail('No Keys should be provided') end
  local cmd = A[1]
  if cmd == nil then fail('Must provide a command') end
  local command = M['Api_' .. cmd]
  if not command then fail('Unknown command ' .. cmd) end
  if #A < 2 then error("bad argument #1 to 'tonumber' (value expected)") end
  local now = num(A[2])
  if now == nil then fail('Arg "now" missing or not a number: nil') end
  local result = command(now)
  for q in pairs(wake) do
    local wk = 'qlpy:wake:' .. q
    if rcall('PUBSUB', 'NUMSUB', wk)[2] > 0 then rcall('PUBLISH', wk, q) end
  end
  return result
end

return main()
