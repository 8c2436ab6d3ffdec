-- Built by scripts/build_lua.py from lua/**/*.lua: do not edit. A line
-- `--@ lua/<file>:<a>-<b>` says that the lines after it are lines a..b of that file;
-- `python -m qless_py.lua --where 'user_script:<n>'` finds the source of line n.

--@ lua/prelude.lua:1-44
-- qless_py Lua core: the shared locals every file uses. Built into one script by
-- scripts/build_lua.py (read its docstring for what the build does to these sources).
--
-- Called as EVALSHA <sha> 0 <command> <now> <args...>. Positional argument n of a
-- command is ARGV[n + 2]; commands read ARGV directly so variadic commands are not
-- limited by unpack(). Everything here is local: since Redis 6.2.7 the global
-- environment and the standard libraries are read-only.
--
-- Redis runs the whole script body on every call, so little is at the top level: here
-- the aliases, the module tables, per-call state and the key table; elsewhere constants.
-- Functions are `function Module.name(...)`, and the build creates each one only when a
-- call first uses it.

local rcall = redis.call
local encode, decode = cjson.encode, cjson.decode
local floor = math.floor
local format, concat = string.format, table.concat
-- Base functions (tonumber, pairs, ...) are read as globals: aliasing them in locals
-- costs more per call (every closure binds them) than it saves.
local A = ARGV

-- Module tables; the other files attach their functions to these.
local M = {}  -- Api, Config, Job, Json, Num, Queue, Recur, Stats, Tags, Track, Wake, Worker: see define()
--   {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}

-- Per-call state, made only when a call needs it: `cfg` holds the configuration values
-- already read (false: the call knows the config hash does not exist), `wake` the queue
-- to wake at the end (a name), or the queues (a set, when there are several).
local cfg, wake

-- Key names: the only place they are spelled. Job keys are key.job .. jid (.. suffix),
-- queue keys key.queue .. queue .. suffix, worker keys key.worker .. worker (.. key.jobs),
-- statistics hashes key.stats .. kind .. ':' .. day .. ':' .. queue, and the fine
-- histograms (extension) key.fine followed by the name of a wait or run hash.
-- local key = {
--   config = 'ql:config', queues = 'ql:queues', paused = 'ql:paused_queues',
--   workers = 'ql:workers', tracked = 'ql:tracked', tags = 'ql:tags',
--   failures = 'ql:failures', completed = 'ql:completed',
--   job = 'ql:j:', history = '-history', dependencies = '-dependencies', dependents = '-dependents',
--   queue = 'ql:q:', work = '-work', locks = '-locks', scheduled = '-scheduled',
--   depends = '-depends', recurring = '-recur',
--   worker = 'ql:w:', jobs = ':jobs', tag = 'ql:t:', failure_group = 'ql:f:', recur = 'ql:r:',
--   stats = 'ql:s:', channel = 'ql:', wake = 'qlpy:wake:', fine = 'ql:fine:',
-- }

--@ lua/config.lua:1-2
-- Configuration: ql:config overrides over built-in defaults (protocol section 7), read
-- once per call.

--@ lua/failure.lua:1-1
-- Failure groups: failed (overview and pages) and unfail.

--@ lua/job/cancel.lua:1-1
-- cancel: delete jobs that are not complete, with everything that refers to them.

--@ lua/job/complete.lua:1-1
-- complete: a job is done, or advances to its next queue; completed jobs expire.

--@ lua/job/depends.lua:1-1
-- Dependencies between jobs: linking, releasing dependents, and the depends command.

--@ lua/job/fail_retry.lua:1-1
-- fail and retry: a worker gives a job up, for good or for another try.

--@ lua/job/fields.lua:1-7
-- The job hash: its field layout, the one read of every field, its tags, whether it is
-- tracked, and the tracked-job events.

-- Field order of Job.fetch; the indexes below name the positions.
-- local F_JID, F_KLASS, F_STATE, F_QUEUE, F_WORKER, F_PRIORITY, F_EXPIRES = 1, 2, 3, 4, 5, 6, 7
-- local F_RETRIES, F_REMAINING, F_DATA, F_TAGS, F_FAILURE, F_SPAWNED, F_HISTORY, F_TIME =
--   8, 9, 10, 11, 12, 13, 14, 15

--@ lua/job/history.lua:1-1
-- A job's history: appending entries under the length cap, and migrating the legacy field.

--@ lua/job/lease.lua:1-1
-- A running job's lease: heartbeat renews it, timeout ends it now.

--@ lua/job/log.lua:1-1
-- log: append a custom entry to a job's history.

--@ lua/job/priority.lua:1-1
-- priority: change a job's priority, and its place in its queue's work set.

--@ lua/job/put.lua:1-1
-- put and requeue: create a job, or move an existing one, into a queue.

--@ lua/job/render.lua:1-1
-- The job object (protocol 2.10) as JSON text, and the commands that return it.

--@ lua/job/state.lua:1-2
-- Steps of a job's state changes that several commands share: entering a queue's work
-- set, leaving a running slot, parking in a failure group.

--@ lua/json.lua:1-1
-- JSON texts written by hand, exactly as cjson would write them, where that is cheaper.

--@ lua/num.lua:1-1
-- Numbers: parsing arguments, and writing numbers as the exact texts Redis and Lua would.

--@ lua/queue.lua:1-1
-- Queues: pop, peek, counts, listings, pause, and the shared P-PROMOTE / P-RECLAIM steps.

--@ lua/recurring.lua:1-1
-- Recurring templates: recur, unrecur, recur.get, recur.update, recur.tag/untag, P-SPAWN.

--@ lua/stats.lua:1-18
-- Statistics: wait/run samples and failure counters per day bin (protocol section 5).
--
-- Extension: every stats hash expires `stats-history` days (default 30) after the start of
-- its day bin. The TTL is given relative to the caller's `now` (EXPIRE day + days*86400 -
-- now), never as an absolute EXPIREAT: the core never reads the server clock, and a client
-- whose `now` differs from the server's clock (tests, replays, skew) must not see its fresh
-- statistics vanish at once. It is set only when a sample hash is created (no extra call
-- per sample).

-- The fine histogram's field names (extension): the bucket number zero-padded to three
-- characters, -81 to 199 (bucket b at 3 * (b + 81) + 1).
-- local FINE_FIELDS = '-81-80-79-78-77-76-75-74-73-72-71-70-69-68-67-66-65-64-63-62-61-60-59-58-57-56-55-54-53-52-51-50-49-48-47-46-45-44-43-42-41-40-39-38-37-36-35-34-33-32-31-30-29-28-27-26-25-24-23-22-21-20-19-18-17-16-15-14-13-12-11-10-09-08-07-06-05-04-03-02-01000001002003004005006007008009010011012013014015016017018019020021022023024025026027028029030031032033034035036037038039040041042043044045046047048049050051052053054055056057058059060061062063064065066067068069070071072073074075076077078079080081082083084085086087088089090091092093094095096097098099100101102103104105106107108109110111112113114115116117118119120121122123124125126127128129130131132133134135136137138139140141142143144145146147148149150151152153154155156157158159160161162163164165166167168169170171172173174175176177178179180181182183184185186187188189190191192193194195196197198199'

-- qless's histogram fields, s0..s59, m1..m59 and h1..h23: those below 10 take two
-- characters, the others three.
-- local BIN_S = 's0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'
-- local BIN_M = 'm1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'
-- local BIN_H = 'h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'

--@ lua/tags.lua:1-1
-- Tags: tag add/remove/get/top.

--@ lua/track.lua:1-1
-- Tracking: the track listing and track/untrack.

--@ lua/wake.lua:1-4
-- Wake-up extension: after a command, PUBLISH <queue> on qlpy:wake:<queue> for each queue
-- that gained poppable work. Published whether or not anyone listens: with no subscriber
-- PUBLISH is one failed channel lookup, half the cost of asking PUBSUB NUMSUB first, and
-- with one it saves that second call.

--@ lua/worker.lua:1-1
-- Workers: the registry listing and deregistration.


-- Module functions: M's __index creates each on its first use in a call.
local function define(M, name)
  local rcall = redis.call
  local encode, decode = cjson.encode, cjson.decode
  local floor = math.floor
  local format, concat = string.format, table.concat
  local A = ARGV
  if name == 'Config_prefetch' then
--@ lua/config.lua:4-10
-- Read several config fields with one HMGET and remember them for this call.
function M.Config_prefetch(...)
  local values = rcall('HMGET', 'ql:config', ...)
  local names = { ... }
  if not cfg then cfg = {} end
  for i = 1, #names do cfg[names[i]] = values[i] end
end
  elseif name == 'Config_raw' then
--@ lua/config.lua:12-23
-- Stored value of a config field (string) or false, cached for this call.
--@inline
function M.Config_raw(name)
  if cfg == false then return false end
  if cfg == nil then cfg = {} end
  local v = cfg[name]
  if v == nil then
    v = rcall('HGET', 'ql:config', name)
    cfg[name] = v
  end
  return v
end
  elseif name == 'Config_number' then
--@ lua/config.lua:25-34
-- Numeric config value: the stored value when it parses as a finite number, else `fallback`.
-- A stored value that is not a number falls back too (the reference would fail later).
--@inline
function M.Config_number(name, fallback)
  if cfg == false then return fallback end
  local raw = M.Config_raw(name)
  local n = M.Num_parse(raw)
  if n == nil then return fallback end
  return n
end
  elseif name == 'Config_heartbeat' then
--@ lua/config.lua:36-43
-- Lock length for a queue: <queue>-heartbeat, else heartbeat, else 60.
--@inline
function M.Config_heartbeat(queue)
  local raw = M.Config_raw(queue .. '-heartbeat')
  local n = M.Num_parse(raw)
  if n ~= nil then return n end
  return M.Config_number('heartbeat', 60)
end
  elseif name == 'Config_defaults' then
--@ lua/config.lua:45-51
-- The listed defaults: reported by config.get and returned for unset keys.
function M.Config_defaults()
  return {
    application = 'qless', heartbeat = 60, ['grace-period'] = 10, ['stats-history'] = 30,
    ['histogram-history'] = 7, ['jobs-history-count'] = 50000, ['jobs-history'] = 604800,
  }
end
  elseif name == 'Config_get' then
--@ lua/config.lua:53-67
-- config.get <now> [key]
-- Reply: the stored value (bulk), the built-in default (integer for numbers, bulk for
-- `application`) or nil; without a key, a JSON object of defaults overlaid with ql:config.
function M.Config_get(now)
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
  elseif name == 'Config_wake_if_concurrency' then
--@ lua/config.lua:69-75
-- Changing <queue>-max-concurrency may free slots: wake that queue's waiting workers.
function M.Config_wake_if_concurrency(name)
  local suffix = '-max-concurrency'
  if #name > #suffix and name:sub(-#suffix) == suffix then
    M.Wake_queue(name:sub(1, -#suffix - 1))
  end
end
  elseif name == 'Config_set' then
--@ lua/config.lua:77-88
-- config.set <now> <key> <value>
-- Publishes {"event":"config_set","option","value"} on ql:log, then stores. Reply nil.
-- Errors: config.set(): Arg "option" missing / config.set(): Arg "value" missing
function M.Config_set(now)
  local name, value = A[3], A[4]
  if name == nil then error('config.set(): Arg "option" missing') end
  if value == nil then error('config.set(): Arg "value" missing') end
  rcall('PUBLISH', 'ql:' .. 'log', encode({ event = 'config_set', option = name, value = value }))
  rcall('HSET', 'ql:config', name, value)
  M.Config_wake_if_concurrency(name)
  return nil
end
  elseif name == 'Config_unset' then
--@ lua/config.lua:90-100
-- config.unset <now> <key>
-- Publishes {"event":"config_unset","option"} on ql:log, then deletes. Reply nil.
-- Error: config.unset(): Arg "option" missing
function M.Config_unset(now)
  local name = A[3]
  if name == nil then error('config.unset(): Arg "option" missing') end
  rcall('PUBLISH', 'ql:' .. 'log', encode({ event = 'config_unset', option = name }))
  rcall('HDEL', 'ql:config', name)
  M.Config_wake_if_concurrency(name)
  return nil
end
  elseif name == 'Queue_failed' then
--@ lua/failure.lua:3-23
-- failed <now> [group [start [limit]]]
-- Reply: {"<group>": count, ...} ({} if none), or {"total","jobs":[jid...]} for one group,
-- most recently failed first. Errors: Failed(): Arg "start" is not a number: <x> / Failed():
-- Arg "limit" is not a number: <x>
function M.Queue_failed(now)
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
  elseif name == 'Queue_unfail' then
--@ lua/failure.lua:25-62
-- unfail <now> <queue> <group> [count]
-- Moves the oldest `count` (default 25) jobs of a failure group into `queue` as waiting.
-- Reply: integer, jobs moved. A listed jid whose job is gone is dropped from the group and
-- not counted (the reference fails). count <= 0 is rejected before any write (the reference
-- raises a Redis range error for 0).
-- Errors: Queue(): no queue name provided / Unfail(): Arg "group" missing / Unfail(): Arg
-- "count" not a number: <x>
function M.Queue_unfail(now)
  local queue, group, count_s = A[3], A[4], A[5]
  if queue == nil then error('Queue(): no queue name provided') end
  if group == nil then error('Unfail(): Arg "group" missing') end
  local count = 25
  if count_s ~= nil then
    count = M.Num_parse(count_s)
    if count == nil then error('Unfail(): Arg "count" not a number: ' .. count_s) end
    count = floor(count)
    if count <= 0 then
      error('Unfail(): Arg "count" must be at least 1: value is not an integer or out of range')
    end
  end
  local gk = 'ql:f:' .. group
  local jids = rcall('LRANGE', gk, -count, -1)
  local moved = 0
  for _, jid in ipairs(jids) do
    local jk = 'ql:j:' .. jid
    local f = rcall('HMGET', jk, 'state', 'priority', 'retries', 'history')
    if f[1] then
      M.Job_hist(jid, now, '"put"', { q = queue }, f[4] or false)
      rcall('HSET', jk, 'state', 'waiting', 'worker', '', 'expires', 0, 'queue', queue,
        'remaining', f[3] or 0)
      M.Job_enqueue(queue, jid, tonumber(f[2]) or 0, now)
      moved = moved + 1
    end
  end
  rcall('LTRIM', gk, 0, -count - 1)
  if rcall('LLEN', gk) == 0 then rcall('SREM', 'ql:failures', group) end
  return moved
end
  elseif name == 'Job_cancel_one' then
--@ lua/job/cancel.lua:3-38
-- Cancel one job that is not complete (protocol 3.10, per-jid part).
function M.Job_cancel_one(jid, f)
  local state, queue, failure, worker = f[1], f[2], f[3], f[4]
  local msg = encode({ jid = jid, worker = worker, event = 'canceled', queue = queue })
  rcall('PUBLISH', 'ql:' .. 'log', msg)
  if worker and worker ~= '' then
    rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
    rcall('PUBLISH', 'ql:w:' .. worker, msg)
  end
  if queue then
    M.Queue_unlist(queue, jid)
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
      local when = M.Num_parse(fo.when)
      if when then
        -- The reference fails with a Lua error when the counter is missing; leave it alone.
        local sk = M.Stats_key('stats', M.Stats_day(when), queue or '')
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
  elseif name == 'Job_cancel' then
--@ lua/job/cancel.lua:40-64
-- cancel <now> [jid...]
-- Reply: array of the jids passed. Events per job: ql:log canceled, ql:w:<worker> canceled,
-- ql:canceled (tracked). Error: Cancel(): <jid> is a dependency of <dependent> but is not
-- mentioned to be canceled (checked before any write).
function M.Job_cancel(now)
  local n = #A
  local listed, out = {}, {}
  for i = 3, n do listed[A[i]] = true end
  for i = 3, n do
    local jid = A[i]
    for _, d in ipairs(rcall('SMEMBERS', 'ql:j:' .. jid .. '-dependents')) do
      if not listed[d] then
        error('Cancel(): ' .. jid .. ' is a dependency of ' .. d ..
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
  elseif name == 'Job_complete' then
--@ lua/job/complete.lua:3-125
-- complete <now> <jid> <worker> <queue> <data> [next q] [delay d] [depends json]
-- Reply: complete | waiting | scheduled | depends. Events: ql:completed (tracked), then
-- ql:log completed or advanced. A dangling option name is ignored.
-- Errors: Job(): no jid provided / Complete(): Arg "worker" missing / Complete(): Arg "queue"
-- missing / Complete(): Arg "data" missing or not JSON: <x> / assertion failed! (delay) /
-- Complete(): Arg "depends" not JSON: <x> / Complete(): "delay" cannot be used without a
-- "next". / Complete(): "depends" cannot be used without a "next". / Complete(): Job <jid>
-- does not exist / ... is not currently running: <state> / ... has been handed out to another
-- worker: <w> / ... running in another queue: <q>
--@inline
function M.Job_complete(now)
  local jid, worker, queue, data = A[3], A[4], A[5], A[6]
  if jid == nil then error('Job(): no jid provided') end
  if worker == nil then error('Complete(): Arg "worker" missing') end
  if queue == nil then error('Complete(): Arg "queue" missing') end
  if data ~= '{}' and decode(data) == false then
    error('Complete(): Arg "data" missing or not JSON: ' .. tostring(data))
  end
  local nextq, delay, depends = nil, 0, nil
  -- Options are read only when given (most completes have none: no table is made).
  if #A > 6 then
    local opts = M.Job_options(7, #A)
    nextq = opts.next
    if opts.delay ~= nil then
      delay = M.Num_parse(opts.delay)
      if delay == nil then error('assertion failed!') end
    end
    if opts.depends ~= nil then
      depends = M.Json_strings(decode(opts.depends))
      if depends == nil then error('Complete(): Arg "depends" not JSON: ' .. opts.depends) end
    end
    if opts.delay ~= nil and nextq == nil then
      error('Complete(): "delay" cannot be used without a "next".')
    end
    if depends ~= nil and nextq == nil then
      error('Complete(): "depends" cannot be used without a "next".')
    end
  end
  -- The priority is read only for a next queue (each field read scans the job's hash).
  local jk = 'ql:j:' .. jid
  local f
  if nextq == nil then
    f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries')
  else
    f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries', 'priority')
  end
  local state = f[1]
  if not state then error('Complete(): Job ' .. jid .. ' does not exist') end
  if state ~= 'running' then
    error('Complete(): Job ' .. jid .. ' is not currently running: ' .. state)
  end
  if f[2] ~= worker then
    error('Complete(): Job ' .. jid .. ' has been handed out to another worker: ' .. tostring(f[2]))
  end
  if f[3] ~= queue then
    error('Complete(): Job ' .. jid .. ' running in another queue: ' .. tostring(f[3]))
  end

  -- Two EXISTS answer the common case and save the reads and writes it would otherwise
  -- take. EXISTS counts a key once per mention, so the first reply is a bit set: 1 = the
  -- work set exists, 2 = the scheduled set exists (Queue.unlist skips the sets that do
  -- not). The second is above 0 when config, a tracked job or this job's dependents exist.
  -- (One EXISTS with weights 1, 2, 4, 4, 4 would mention 15 keys; each mention costs
  -- about a third of a call.)
  local sk = 'ql:q:' .. queue .. '-scheduled'
  local probe = rcall('EXISTS', 'ql:q:' .. queue .. '-work', sk, sk)
  local dk = jk .. '-dependents'
  local special = rcall('EXISTS', 'ql:config', 'ql:tracked', dk) > 0
  if special then
    M.Config_prefetch('max-job-history', 'jobs-history', 'jobs-history-count',
      queue .. '-max-concurrency')
  else
    cfg = false
  end
  local tstr = M.Num_time_text(now)
  local whole = M.Num_whole_text(now, tstr)
  M.Job_hist(jid, now, '"done"', nil, f[4] or false, whole)
  M.Queue_unlist(queue, jid, probe)
  M.Stats_sample(now, 'run', queue, now - (tonumber(f[5]) or now))
  rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
  if special and rcall('ZSCORE', 'ql:tracked', jid) then
    rcall('PUBLISH', 'ql:' .. 'completed', jid)
  end
  M.Job_left_running(queue)
  local retries = f[6] or 0
  if nextq ~= nil then
    rcall('PUBLISH', 'ql:' .. 'log',
      encode({ jid = jid, event = 'advanced', queue = queue, to = nextq }))
    M.Job_hist(jid, now, '"put"', '{"q":' .. encode(nextq) .. '}', false, whole)
    local now_arg = M.Num_score_arg(now, tstr)
    rcall('ZADD', 'ql:queues', 'NX', now_arg, nextq)
    rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'waiting', 'worker', '',
      'failure', '{}', 'queue', nextq, 'expires', '0', 'remaining', retries)
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
  rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'complete', 'worker', '',
    'failure', '{}', 'queue', '', 'expires', '0', 'remaining', retries)
  local now_arg = M.Num_score_arg(now, tstr)
  rcall('ZADD', 'ql:completed', now_arg, jid)
  M.Job_expire_completed(now)
  if special then
    local dependents = rcall('SMEMBERS', dk)
    if #dependents > 0 then M.Job_release_dependents(now, jid, dependents) end
  end
  return 'complete'
end
  elseif name == 'Job_expire_completed' then
--@ lua/job/complete.lua:127-147
-- P-EXPIRE-COMPLETED, in bounded batches: at most 100 jobs older than `jobs-history` and at
-- most 100 beyond `jobs-history-count` per call (the reference deletes all at once).
--@inline
function M.Job_expire_completed(now)
  local age = M.Config_number('jobs-history', 604800)
  local keep = M.Config_number('jobs-history-count', 50000)
  keep = floor(keep)
  local old = rcall('ZRANGEBYSCORE', 'ql:completed', '0', now - age, 'LIMIT', '0', '100')
  if #old > 0 then
    for _, j in ipairs(old) do M.Job_delete(j) end
    rcall('ZREM', 'ql:completed', unpack(old))
  end
  -- ZRANGE 0 .. -N-1: everything but the newest N; a negative N reaches only the -N oldest.
  local card = rcall('ZCARD', 'ql:completed')
  local excess = keep >= 0 and card - keep or math.min(card, -keep)
  if excess > 0 then
    if excess > 100 then excess = 100 end
    for _, j in ipairs(rcall('ZRANGE', 'ql:completed', 0, excess - 1)) do M.Job_delete(j) end
    rcall('ZREMRANGEBYRANK', 'ql:completed', 0, excess - 1)
  end
end
  elseif name == 'Job_delete' then
--@ lua/job/complete.lua:149-157
-- Delete a job entirely (completed-job expiry): its tags, hash and history.
function M.Job_delete(jid)
  local tags = M.Job_tag_list(rcall('HGET', 'ql:j:' .. jid, 'tags'))
  for _, t in ipairs(tags) do
    rcall('ZREM', 'ql:t:' .. t, jid)
    rcall('ZINCRBY', 'ql:tags', -1, t)
  end
  rcall('DEL', 'ql:j:' .. jid, 'ql:j:' .. jid .. '-history')
end
  elseif name == 'Job_link' then
--@ lua/job/depends.lua:3-12
-- Record that job `jid` waits for `dep` when `dep` exists and is not complete.
function M.Job_link(jid, dep)
  local st = rcall('HGET', 'ql:j:' .. dep, 'state')
  if st and st ~= 'complete' then
    rcall('SADD', 'ql:j:' .. jid .. '-dependencies', dep)
    rcall('SADD', 'ql:j:' .. dep .. '-dependents', jid)
    return true
  end
  return false
end
  elseif name == 'Job_release_dependents' then
--@ lua/job/depends.lua:14-38
-- P-RELEASE-DEPENDENTS: jobs waiting only for `jid` become waiting (or scheduled).
-- `dependents` is the members of its dependents set, read by the caller.
function M.Job_release_dependents(now, jid, dependents)
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
  elseif name == 'Job_undepend' then
--@ lua/job/depends.lua:40-48
-- Move a job out of the depends state into its queue's work set (depends off).
function M.Job_undepend(now, jid, f)
  local queue = f[2]
  if queue then
    rcall('ZREM', 'ql:q:' .. queue .. '-depends', jid)
    M.Job_enqueue(queue, jid, tonumber(f[3]) or 0, now)
    rcall('HSET', 'ql:j:' .. jid, 'state', 'waiting')
  end
end
  elseif name == 'Job_depends' then
--@ lua/job/depends.lua:50-80
-- depends <now> <jid> on <jid>... | off <jid>... | off all
-- Reply: 1. Errors: Job(): no jid provided / Depends(): Arg "command" missing / Depends(): Job
-- <jid> not in the depends state: <state> / Depends(): Argument "command" must be "on" or "off"
function M.Job_depends(now)
  local jid, command = A[3], A[4]
  if jid == nil then error('Job(): no jid provided') end
  if command == nil then error('Depends(): Arg "command" missing') end
  local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'queue', 'priority')
  if f[1] ~= 'depends' then
    error('Depends(): Job ' .. jid .. ' not in the depends state: ' .. tostring(f[1]))
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
    error('Depends(): Argument "command" must be "on" or "off"')
  end
  return 1
end
  elseif name == 'Job_fail' then
--@ lua/job/fail_retry.lua:3-38
-- fail <now> <jid> <worker> <group> <message> [data]
-- Reply: the jid. Events: ql:log failed, then ql:failed (tracked).
-- Errors: Job(): no jid provided / Fail(): Arg "worker" missing / Fail(): Arg "group" missing /
-- Fail(): Arg "message" missing / cjson error (data) / Fail(): Job <jid>does not exist /
-- Fail(): Job <jid>not currently running: <state> / Fail(): Job <jid> running with another
-- worker: <w>
--@inline
function M.Job_fail(now)
  local jid, worker, group, message, data = A[3], A[4], A[5], A[6], A[7]
  if jid == nil then error('Job(): no jid provided') end
  if worker == nil then error('Fail(): Arg "worker" missing') end
  if group == nil then error('Fail(): Arg "group" missing') end
  if message == nil then error('Fail(): Arg "message" missing') end
  local decoded
  if data ~= nil then decoded = decode(data) end
  local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'worker', 'queue', 'history')
  local state, queue = f[1], f[3]
  if not state then error('Fail(): Job ' .. jid .. 'does not exist') end
  if state ~= 'running' then error('Fail(): Job ' .. jid .. 'not currently running: ' .. state) end
  if f[2] ~= worker then
    error('Fail(): Job ' .. jid .. ' running with another worker: ' .. tostring(f[2]))
  end
  queue = queue or ''
  rcall('PUBLISH', 'ql:' .. 'log', encode({ jid = jid, event = 'failed', worker = worker,
    group = group, message = message }))
  M.Job_notify(jid, 'failed')
  rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
  M.Job_hist(jid, now, '"failed"', { worker = worker, group = group }, f[4] or false)
  M.Stats_count(now, now, queue, 'failures', 1, 'failed', 1)
  M.Queue_unlist(queue, jid)
  M.Job_left_running(queue)
  if decoded ~= nil and decoded ~= false then rcall('HSET', 'ql:j:' .. jid, 'data', encode(decoded)) end
  M.Job_park_failed(jid, group,
    { group = group, message = message, when = floor(now), worker = worker })
  return jid
end
  elseif name == 'Job_retry' then
--@ lua/job/fail_retry.lua:40-100
-- retry <now> <jid> <queue> <worker> [delay] [group] [message]
-- Reply: integer, retries remaining (-1 when the job failed). Events: ql:failed (tracked) on
-- exhaustion (no ql:log event there, as in the reference).
-- Errors: Job(): no jid provided / Retry(): Arg "queue" missing / Retry(): Arg "worker"
-- missing / Retry(): Arg "delay" not a number: <x> / Retry(): Job <jid> does not exist /
-- ... is not currently running: <state> / ... has been given to another worker: <w>
--@inline
function M.Job_retry(now)
  local jid, queue, worker, delay_s, group, message = A[3], A[4], A[5], A[6], A[7], A[8]
  if jid == nil then error('Job(): no jid provided') end
  if queue == nil then error('Retry(): Arg "queue" missing') end
  if worker == nil then error('Retry(): Arg "worker" missing') end
  local delay = 0
  if delay_s ~= nil then
    delay = M.Num_parse(delay_s)
    if delay == nil then error('Retry(): Arg "delay" not a number: ' .. delay_s) end
  end
  local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'worker', 'queue', 'priority', 'history')
  local state = f[1]
  if not state then error('Retry(): Job ' .. jid .. ' does not exist') end
  if state ~= 'running' then
    error('Retry(): Job ' .. jid .. ' is not currently running: ' .. state)
  end
  if f[2] ~= worker then
    error('Retry(): Job ' .. jid .. ' has been given to another worker: ' .. tostring(f[2]))
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
    M.Job_hist(jid, now, '"failed"', { group = group }, f[5] or false)
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
  elseif name == 'Job_fetch' then
--@ lua/job/fields.lua:9-14
-- Every field a command or the job object needs, in one HMGET.
function M.Job_fetch(jid)
  return rcall('HMGET', 'ql:j:' .. jid, 'jid', 'klass', 'state', 'queue', 'worker', 'priority',
    'expires', 'retries', 'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history',
    'time')
end
  elseif name == 'Job_tag_list' then
--@ lua/job/fields.lua:16-22
-- Decoded tag list of a job's stored `tags` text ({} when absent or unreadable).
function M.Job_tag_list(text)
  if not text then return {} end
  local ok, v = pcall(decode, text)
  if ok and M.Json_strings(v) then return v end
  return {}
end
  elseif name == 'Job_is_tracked' then
--@ lua/job/fields.lua:24-26
-- Whether the job is tracked (in ql:tracked).
--@inline
function M.Job_is_tracked(jid) return rcall('ZSCORE', 'ql:tracked', jid) ~= false end
  elseif name == 'Job_notify' then
--@ lua/job/fields.lua:28-35
-- Publish `payload` on ql:<channel> when the job is tracked.
--@inline
function M.Job_notify(jid, channel, tracked)
  if tracked == nil then
    tracked = M.Job_is_tracked(jid)
  end
  if tracked then rcall('PUBLISH', 'ql:' .. channel, jid) end
end
  elseif name == 'Job_migrate' then
--@ lua/job/history.lua:3-26
-- Legacy history (a JSON field of jobs written by very old versions) becomes list entries,
-- appended after the existing ones; the field is then deleted (protocol 2.4).
function M.Job_migrate(jid, legacy)
  local hk = 'ql:j:' .. jid .. '-history'
  local ok, stages = pcall(decode, legacy)
  if ok and type(stages) == 'table' then
    for _, st in ipairs(stages) do
      if type(st) == 'table' then
        rcall('RPUSH', hk, encode({ floor(M.Num_parse(st.put) or 0), 'put', { q = st.q } }))
        if M.Num_parse(st.popped) then
          rcall('RPUSH', hk,
            encode({ floor(M.Num_parse(st.popped)), 'popped', { worker = st.worker } }))
        end
        if M.Num_parse(st.failed) then
          rcall('RPUSH', hk, encode({ floor(M.Num_parse(st.failed)), 'failed' }))
        end
        if M.Num_parse(st.done) then
          rcall('RPUSH', hk, encode({ floor(M.Num_parse(st.done)), 'done' }))
        end
      end
    end
  end
  rcall('HDEL', 'ql:j:' .. jid, 'history')
end
  elseif name == 'Job_hist' then
--@ lua/job/history.lua:28-68
-- P-HIST: append [floor(when), what, extra?]. `what` comes as its JSON text (the callers'
-- names are constants, so none has to be encoded per call). `legacy` is the job's `history`
-- field when the caller already read it (false: known absent; nil: read it here).
-- The cap `max-job-history` (N) reproduces the reference's keep-first-plus-newest result
-- without reading the list: RPUSH first, then trim only when over the cap. `whole`, when
-- the caller has it, is Lua's text for floor(when) (Num.whole_text).
--@inline
function M.Job_hist(jid, when, what_json, extra, legacy, whole)
  if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
  if legacy then M.Job_migrate(jid, legacy) end
  -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
  -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
  local entry
  if not whole then
    whole = M.Num_whole_text(when)
  end
  if extra == nil then
    entry = '[' .. whole .. ',' .. what_json .. ']'
  else
    if type(extra) ~= 'string' then extra = encode(extra) end
    entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
  end
  local hk = 'ql:j:' .. jid .. '-history'
  local len = rcall('RPUSH', hk, entry)
  -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
  if len < 3 then return end
  local cap = M.Config_number('max-job-history', 100)
  cap = floor(cap)
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
  elseif name == 'Job_heartbeat' then
--@ lua/job/lease.lua:3-36
-- heartbeat <now> <jid> <worker> [data]
-- Reply: integer, the new lock expiry truncated to seconds.
-- Errors: Job(): no jid provided / Heatbeat(): Arg "worker" missing (sic) / cjson error (data)
-- / Heartbeat(): Job <jid> does not exist / ... not currently running: <state> / ... given out
-- to another worker: <w>
--@inline
function M.Job_heartbeat(now)
  local jid, worker, data = A[3], A[4], A[5]
  if jid == nil then error('Job(): no jid provided') end
  if worker == nil then error('Heatbeat(): Arg "worker" missing') end
  local decoded
  if data ~= nil then decoded = decode(data) end
  local f = rcall('HMGET', 'ql:j:' .. jid, 'worker', 'state', 'queue')
  local queue = f[3] or ''
  local lock = M.Config_heartbeat(queue)
  local expires = now + lock
  if not f[1] then error('Heartbeat(): Job ' .. jid .. ' does not exist') end
  if f[2] ~= 'running' then
    error('Heartbeat(): Job ' .. jid .. ' not currently running: ' .. tostring(f[2]))
  end
  if f[1] ~= worker or f[1] == '' then
    error('Heartbeat(): Job ' .. jid .. ' given out to another worker: ' .. f[1])
  end
  local jk = 'ql:j:' .. jid
  if decoded ~= nil and decoded ~= false then
    rcall('HSET', jk, 'expires', expires, 'worker', worker, 'data', encode(decoded))
  else
    rcall('HSET', jk, 'expires', expires, 'worker', worker)
  end
  rcall('ZADD', 'ql:w:' .. worker .. ':jobs', expires, jid)
  rcall('ZADD', 'ql:workers', now, worker)
  rcall('ZADD', 'ql:q:' .. queue .. '-locks', expires, jid)
  return expires
end
  elseif name == 'Job_timeout' then
--@ lua/job/lease.lua:38-67
-- timeout <now> <jid>...
-- Every jid is checked before any is timed out. Reply nil. Events per job:
-- ql:w:<worker> lock_lost, then ql:log lock_lost.
-- Errors: Timeout(): Job <jid> does not exist / Timeout(): Job <jid> not running
function M.Job_timeout(now)
  local n = #A
  local rows, seen = {}, {}
  for i = 3, n do
    local jid = A[i]
    local f = rcall('HMGET', 'ql:j:' .. jid, 'queue', 'state', 'worker', 'history')
    if not f[1] then error('Timeout(): Job ' .. jid .. ' does not exist') end
    -- A jid listed twice would no longer be running the second time.
    if f[2] ~= 'running' or seen[jid] then error('Timeout(): Job ' .. jid .. ' not running') end
    seen[jid] = true
    rows[i] = f
  end
  for i = 3, n do
    local jid, f = A[i], rows[i]
    local queue = f[1]
    M.Job_hist(jid, now, '"timed-out"', nil, f[4] or false)
    rcall('ZREM', 'ql:q:' .. queue .. '-locks', jid)
    rcall('ZADD', 'ql:q:' .. queue .. '-work', '+inf', jid)
    M.Wake_queue(queue)
    rcall('HSET', 'ql:j:' .. jid, 'state', 'stalled', 'expires', 0)
    local msg = encode({ jid = jid, event = 'lock_lost', worker = f[3] })
    rcall('PUBLISH', 'ql:w:' .. (f[3] or ''), msg)
    rcall('PUBLISH', 'ql:' .. 'log', msg)
  end
  return nil
end
  elseif name == 'Job_log' then
--@ lua/job/log.lua:3-21
-- log <now> <jid> <message> [data]
-- Appends a history entry (what = message, extra = decoded data). Reply nil.
-- Errors: Log(): Argument 'jid' missing / Log(): Argument 'message' missing / cjson error /
-- Log(): Argument 'data' not cjson: <x> / Log(): Job <jid> does not exist
function M.Job_log(now)
  local jid, message, data = A[3], A[4], A[5]
  if jid == nil then error("Log(): Argument 'jid' missing") end
  if message == nil then error("Log(): Argument 'message' missing") end
  local extra
  if data ~= nil then
    extra = decode(data)
    if extra == false then error("Log(): Argument 'data' not cjson: " .. data) end
  end
  if rcall('EXISTS', 'ql:j:' .. jid) == 0 then error('Log(): Job ' .. jid .. ' does not exist') end
  -- Pass the extra as JSON text: a decoded JSON string must not be taken for JSON text.
  if extra ~= nil then extra = encode(extra) end
  M.Job_hist(jid, now, encode(message), extra)
  return nil
end
  elseif name == 'Job_priority' then
--@ lua/job/priority.lua:3-19
-- priority <now> <jid> <priority>
-- Reply: the priority truncated toward zero. Errors: Job(): no jid provided / Priority(): Arg
-- "priority" missing or not a number: <x> / Priority(): Job <jid> does not exist
function M.Job_priority(now)
  local jid, p_s = A[3], A[4]
  if jid == nil then error('Job(): no jid provided') end
  local p = M.Num_parse(p_s)
  if p == nil then
    error('Priority(): Arg "priority" missing or not a number: ' .. tostring(p_s))
  end
  local queue = rcall('HGET', 'ql:j:' .. jid, 'queue')
  if not queue then error('Priority(): Job ' .. jid .. ' does not exist') end
  rcall('HSET', 'ql:j:' .. jid, 'priority', p)
  local wk = 'ql:q:' .. queue .. '-work'
  if rcall('ZSCORE', wk, jid) then rcall('ZADD', wk, p, jid) end
  return p
end
  elseif name == 'Job_options' then
--@ lua/job/put.lua:3-9
-- Parse `name value` pairs from ARGV[first..] (the last value of a repeated name wins).
--@inline
function M.Job_options(first, last)
  local opts = {}
  for i = first, last - 1, 2 do opts[A[i]] = A[i + 1] end
  return opts
end
  elseif name == 'Job_put' then
--@ lua/job/put.lua:11-179
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
--@inline
function M.Job_put(now, requeue)
  local worker, queue, jid, klass, data, delay_s = A[3], A[4], A[5], A[6], A[7], A[8]
  if requeue then
    if jid == nil then error('Job(): no jid provided') end
    if rcall('EXISTS', 'ql:j:' .. jid) == 0 then
      error('Requeue(): Job ' .. jid .. ' does not exist')
    end
  end
  if queue == nil then error('Queue(): no queue name provided') end
  if jid == nil then error('Put(): Arg "jid" missing') end
  if klass == nil then error('Put(): Arg "klass" missing') end
  if data ~= '{}' and decode(data) == false then
    error('Put(): Arg "data" missing or not JSON: ' .. tostring(data))
  end
  -- A delay of '0' (the common put) needs no parsing: tonumber converts a text twice.
  local delay = 0
  if delay_s ~= '0' then
    delay = M.Num_parse(delay_s)
    if delay == nil then error('Put(): Arg "delay" not a number: ' .. tostring(delay_s)) end
  end
  local n = #A
  if (n - 8) % 2 == 1 then error('Odd number of additional args') end
  -- No table at all when there are no options (the common case).
  local o_retries, o_tags, o_priority, o_depends
  if n > 8 then
    local opts = M.Job_options(9, n)
    o_retries, o_tags, o_priority, o_depends = opts.retries, opts.tags, opts.priority, opts.depends
  end
  -- One EXISTS tells whether the job exists (1) and whether any job is tracked (2): it
  -- counts a key once per mention. A new job then needs no HMGET, and an empty ql:tracked
  -- no ZSCORE.
  local jk = 'ql:j:' .. jid
  local probe = rcall('EXISTS', jk, 'ql:tracked', 'ql:tracked')
  -- 1 jid, 2 state, 3 queue, 4 worker, 5 priority, 6 retries, 7 tags, 8 failure, 9 history
  local f
  if probe % 2 == 1 then
    f = rcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'priority', 'retries', 'tags',
      'failure', 'history')
  else
    -- A new job has none of those fields: KEYS is an empty table here (the dispatcher
    -- checked), so nothing has to be made for it.
    f = KEYS
  end

  local retries = f[6] and tonumber(f[6]) or 5
  if o_retries ~= nil then
    retries = M.Num_parse(o_retries)
    if retries == nil then error('Put(): Arg "retries" not a number: ' .. o_retries) end
  end
  -- Tag and dependency lists stay false when there are none.
  local old_tags = f[7] and M.Job_tag_list(f[7])
  local tags = old_tags
  if o_tags ~= nil then
    tags = M.Json_strings(decode(o_tags))
    if tags == nil then error('Put(): Arg "tags" not JSON' .. o_tags) end
  end
  local priority = f[5] and tonumber(f[5]) or 0
  if o_priority ~= nil then
    priority = M.Num_parse(o_priority)
    if priority == nil then error('Put(): Arg "priority" not a number' .. o_priority) end
  end
  local depends = false
  if o_depends ~= nil then
    depends = M.Json_strings(decode(o_depends))
    if depends == nil then error('Put(): Arg "depends" not JSON: ' .. o_depends) end
  end

  -- Writes begin here.
  local tagk = 'ql:tags'
  if f[7] then
    for _, t in ipairs(old_tags) do
      rcall('ZREM', 'ql:t:' .. t, jid)
      rcall('ZINCRBY', tagk, -1, t)
    end
  end
  local depk = 'ql:j:' .. jid .. '-dependencies'
  if depends and #depends > 0 then
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
  local qjson = encode(queue)
  rcall('PUBLISH', 'ql:' .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
  local tstr = M.Num_time_text(now)
  local whole = M.Num_whole_text(now, tstr)
  M.Job_hist(jid, now, '"put"', '{"q":' .. qjson .. '}', f[9] or false, whole)
  local old_queue, old_state, old_worker = f[3], f[2], f[4]
  if old_queue then
    M.Queue_unlist(old_queue, jid)
    rcall('ZREM', 'ql:q:' .. old_queue .. '-depends', jid)
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
  if tags then
    for _, t in ipairs(tags) do
      rcall('ZADD', 'ql:t:' .. t, now, jid)
      rcall('ZINCRBY', tagk, 1, t)
    end
  end
  if old_state == 'failed' then
    local failure = M.Stats_unfailed(now, f[8], queue)
    if failure then M.Job_unlist_failure(jid, failure.group) end
  end
  if depends then
    for _, d in ipairs(depends) do
      if d == jid then
        -- The reference writes the hash before linking, so a job may depend on itself.
        rcall('SADD', depk, d)
        rcall('SADD', 'ql:j:' .. d .. '-dependents', jid)
      else
        M.Job_link(jid, d)
      end
    end
  end
  local has_deps = (f[1] or f[2] or (depends and #depends > 0)) and rcall('SCARD', depk) > 0
  local state = 'waiting'
  if has_deps then
    state = 'depends'
  elseif delay > 0 then
    state = 'scheduled'
  end
  -- The common values go as text: Redis 7.0 formats every number argument with %.17g
  -- (about 0.2 us each), and these texts are what it would write (-0 stays a number).
  local retries_v = retries == 5 and '5' or retries
  local priority_v = (priority == 0 and 1 / priority > 0) and '0' or priority
  rcall('HSET', jk, 'jid', jid, 'klass', klass, 'data', data, 'priority', priority_v,
    'tags', (not tags or #tags == 0) and '{}' or encode(tags), 'state', state, 'worker', '',
    'expires', '0', 'queue', queue, 'retries', retries_v, 'remaining', retries_v, 'time', tstr)
  if has_deps then
    rcall('ZADD', 'ql:q:' .. queue .. '-depends', now, jid)
    if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
  elseif delay > 0 then
    rcall('ZADD', 'ql:q:' .. queue .. '-scheduled', now + delay, jid)
  else
    M.Job_enqueue(queue, jid, priority, now)
  end
  local now_arg = M.Num_score_arg(now, tstr)
  rcall('ZADD', 'ql:queues', 'NX', now_arg, queue)
  if probe >= 2 and rcall('ZSCORE', 'ql:tracked', jid) then
    rcall('PUBLISH', 'ql:' .. 'put', jid)
  end
  return jid
end
  elseif name == 'Job_requeue' then
--@ lua/job/put.lua:181-182
-- requeue: exactly put, for a job that must already exist.
function M.Job_requeue(now) return M.Job_put(now, true) end
  elseif name == 'Job_render_entry' then
--@ lua/job/render.lua:3-31
-- One rendered history entry: the extra object's keys plus "when" and "what".
-- Stored entries are cjson output ([when,"what"] or [when,"what",{...}]), so the common
-- shapes are rewritten as text; anything else (an extra with keys named when/what, escaped
-- text, null or array extras) is decoded and re-encoded.
function M.Job_render_entry(text)
  local when, what, rest = text:match('^%[([%d%.eE+%-]+),("[^"\\]*")(.*)%]$')
  if when then
    if rest == '' or rest == ',{}' then return '{"when":' .. when .. ',"what":' .. what .. '}' end
    -- Only a flat extra object: braces inside could mean more values after it.
    if rest:sub(1, 2) == ',{' and rest:sub(-1) == '}' and not rest:find('"wh', 1, true)
        and not rest:sub(3, -2):find('[{}]') then
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
  elseif name == 'Job_stored_list' then
--@ lua/job/render.lua:33-40
-- A JSON list stored in a hash field, re-encoded the way cjson writes it ({} when empty).
--@inline
function M.Job_stored_list(text)
  if not text or text == '{}' or text == '[]' then return '{}' end
  local ok, v = pcall(decode, text)
  if not ok or type(v) ~= 'table' then return '{}' end
  return encode(v)
end
  elseif name == 'Job_encoded_members' then
--@ lua/job/render.lua:42-46
-- Encoded JSON strings of a Redis reply list.
function M.Job_encoded_members(list)
  for i = 1, #list do list[i] = encode(list[i]) end
  return M.Json_list(list)
end
  elseif name == 'Job_render' then
--@ lua/job/render.lua:48-140
-- The job object (protocol 2.10) as JSON text, or nil when the job has no `jid` field.
-- `f` is a Job.fetch result when the caller has one; `tracked` is known or nil.
-- `wrap` true renders a one-element JSON array instead (pop of one job), in the same
-- concatenation. `last`, when given, is the rendering of the newest history entry, which
-- the caller has just appended: the list is then read without it. `seen` and `shown` are
-- an entry's stored text that the caller can predict and its rendering (the rendering
-- below makes of that text): a stored entry equal to `seen` is not parsed. `wjson` and
-- `qjson`, when the caller has them, are the JSON texts of f's worker and queue.
--@inline
function M.Job_render(jid, f, tracked, wrap, last, seen, shown, wjson, qjson)
  if not f then f = M.Job_fetch(jid) end
  if not f[1] then return nil end
  if f[14] then
    M.Job_migrate(jid, f[14])
    f[14] = false
  end
  if tracked == nil then tracked = rcall('ZSCORE', 'ql:tracked', jid) ~= false end
  local hist = rcall('LRANGE', 'ql:j:' .. jid .. '-history', '0', last and '-2' or '-1')
  for i = 1, #hist do
    -- Inline fast path of Job.render_entry for the two shapes every command writes.
    local text = hist[i]
    if text == seen then
      hist[i] = shown
    else
      -- A flat extra object only: braces inside could mean more values after it.
      local when, what, inner = text:match('^%[(%d+),("[%w%-]*"),{([^{}]*)}%]$')
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
  end
  -- The caller's own new entry (pop), already rendered, was left out of the LRANGE.
  if last then hist[#hist + 1] = last end
  -- Most jobs have neither dependents nor dependencies: one EXISTS tells (it counts a key
  -- once per mention, so 1 = dependents, 2 = dependencies), and only existing sets are read.
  local jk = 'ql:j:' .. jid
  local dtk, dck = jk .. '-dependents', jk .. '-dependencies'
  local sets = rcall('EXISTS', dtk, dck, dck)
  local dependents = sets % 2 == 1 and rcall('SMEMBERS', dtk) or {}
  local dependencies = sets >= 2 and M.Job_encoded_members(rcall('SMEMBERS', dck)) or '{}'
  -- Numbers absent from the hash are left out, as cjson leaves out nil values.
  local priority = M.Json_number(f[6])
  local retries = M.Json_number(f[8])
  local remaining = M.Json_number(f[9], true)
  -- Every part as a statement of its own, so that the build can inline the helpers into
  -- pop's common path; then one concatenation expression builds the result in one step.
  local klass = M.Json_str(f[2])
  local state = '"running"'
  if f[3] ~= 'running' then
    state = M.Json_str(f[3])
  end
  local queue = qjson
  if not queue then
    queue = M.Json_str(f[4])
  end
  local data = M.Json_str(f[10])
  local spawned = M.Json_str(f[13])
  -- The history's brackets go into the one concatenation below (cjson writes {} for none).
  local history, hopen, hclose = '{}', '', ''
  if #hist > 0 then
    history, hopen, hclose = concat(hist, ','), '[', ']'
  end
  local tags, failure = f[11], f[12]
  if tags ~= '{}' then
    tags = M.Job_stored_list(tags)
  end
  if failure ~= '{}' then
    failure = M.Job_stored_list(failure)
  end
  return (wrap and '[{"jid":' or '{"jid":') .. encode(f[1]) .. ',"klass":' .. klass ..
    ',"state":' .. state .. ',"queue":' .. queue ..
    ',"worker":' .. (wjson or encode(f[5] or '')) .. ',"tracked":' .. (tracked and 'true' or 'false') ..
    ',"expires":' .. encode(tonumber(f[7]) or 0) .. ',"data":' .. data ..
    ',"tags":' .. tags .. ',"failure":' .. failure ..
    ',"spawned_from_jid":' .. spawned .. ',"history":' .. hopen .. history .. hclose ..
    ',"dependents":' .. (#dependents == 0 and '{}' or M.Job_encoded_members(dependents)) ..
    ',"dependencies":' .. dependencies ..
    (priority and ',"priority":' or '') .. (priority or '') ..
    (retries and ',"retries":' or '') .. (retries or '') ..
    (remaining and ',"remaining":' or '') .. (remaining or '') ..
    (wrap and '}]' or '}')
end
  elseif name == 'Job_get' then
--@ lua/job/render.lua:142-147
-- get <now> <jid>: the job object, or nil. Error: Job(): no jid provided
function M.Job_get(now)
  local jid = A[3]
  if jid == nil then error('Job(): no jid provided') end
  return M.Job_render(jid) or false
end
  elseif name == 'Job_multiget' then
--@ lua/job/render.lua:149-154
-- multiget <now> [jid...]: JSON array of the existing jobs, in argument order ({} if none).
function M.Job_multiget(now)
  local parts = {}
  for i = 3, #A do parts[#parts + 1] = M.Job_render(A[i]) end
  return M.Json_list(parts)
end
  elseif name == 'Job_enqueue' then
--@ lua/job/state.lua:4-10
-- P-WORK: make `jid` waiting in `queue` as of time `t`, and wake that queue's workers.
--@inline
function M.Job_enqueue(queue, jid, priority, t)
  local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
  rcall('ZADD', 'ql:q:' .. queue .. '-work', score, jid)
  M.Wake_queue(queue)
end
  elseif name == 'Job_left_running' then
--@ lua/job/state.lua:12-20
-- A running job leaving `queue` frees a slot when the queue has a concurrency cap.
--@inline
function M.Job_left_running(queue)
  -- cfg false: the call found no config hash, so no queue has a cap. Config.number would
  -- say so too; asking here first spares building the field's name on every complete.
  if not queue or cfg == false then return end
  local cap = M.Config_number(queue .. '-max-concurrency', 0)
  if cap > 0 then M.Wake_queue(queue) end
end
  elseif name == 'Job_unlist_failure' then
--@ lua/job/state.lua:22-28
-- Remove a job from a failure group (and the group from ql:failures when it empties).
function M.Job_unlist_failure(jid, group)
  if type(group) ~= 'string' then return end
  local gk = 'ql:f:' .. group
  rcall('LREM', gk, 0, jid)
  if rcall('LLEN', gk) == 0 then rcall('SREM', 'ql:failures', group) end
end
  elseif name == 'Job_park_failed' then
--@ lua/job/state.lua:30-37
-- Park a job in failure group `group` with failure object `failure`.
--@inline
function M.Job_park_failed(jid, group, failure)
  rcall('HSET', 'ql:j:' .. jid, 'state', 'failed', 'worker', '', 'expires', '',
    'failure', encode(failure))
  rcall('SADD', 'ql:failures', group)
  rcall('LPUSH', 'ql:f:' .. group, jid)
end
  elseif name == 'Json_str' then
--@ lua/json.lua:3-9
-- A JSON string for `v`, or the literal false for a missing value (cjson's rendering of a
-- missing hash field that was copied into an object).
--@inline
function M.Json_str(v)
  if v == false or v == nil then return 'false' end
  return encode(v)
end
  elseif name == 'Json_number' then
--@ lua/json.lua:11-24
-- The JSON text of a number stored as text `v` (floored when `whole`), or nil when `v` is
-- not a number. A single digit, as priority, retries and remaining usually are, is its own
-- JSON text: parsing and formatting it again would cost several string conversions.
--@inline
function M.Json_number(v, whole)
  if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
      or v == '7' or v == '8' or v == '9' then
    return v
  end
  local n = tonumber(v)
  if n == nil then return nil end
  if whole then n = floor(n) end
  return encode(n)
end
  elseif name == 'Json_list' then
--@ lua/json.lua:26-31
-- A JSON array built from already-encoded elements; cjson writes an empty list as {}.
--@inline
function M.Json_list(parts)
  if #parts == 0 then return '{}' end
  return '[' .. concat(parts, ',') .. ']'
end
  elseif name == 'Json_strings' then
--@ lua/json.lua:33-44
-- Decoded JSON list of strings, or nil when the value is not a list of strings/numbers.
function M.Json_strings(v)
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
  elseif name == 'Num_parse' then
--@ lua/num.lua:3-10
-- A finite number parsed like Lua's tonumber, or nil. nan and +-inf are rejected.
--@inline
function M.Num_parse(v)
  local n = tonumber(v)
  -- n - n is 0 for every finite number, and nan for nan and for +-inf.
  if n and n - n == 0 then return n end
  return nil
end
  elseif name == 'Num_time_text' then
--@ lua/num.lua:12-14
-- The `time` field format: C %.20f.
--@inline
function M.Num_time_text(t) return format('%.20f', t) end
  elseif name == 'Num_whole_text' then
--@ lua/num.lua:16-23
-- Lua's text for floor(t) (%.14g), cut from `tstr` (t's Num.time_text) when the caller has
-- it: for 0 <= t < 1e14 the integer part of %.20f has the same digits (no exponent, and no
-- fraction of a double rounds up into it). Cutting a string costs a fifth of formatting.
--@inline
function M.Num_whole_text(t, tstr)
  if tstr and t >= 0 and t < 1e14 then return tstr:sub(1, -22) end
  return tostring(floor(t))
end
  elseif name == 'Num_score_arg' then
--@ lua/num.lua:25-32
-- `now` as a score or range bound for Redis: its Num.time_text `tstr` when that parses back
-- to exactly `now` (|now| >= 1, where 20 decimals are far finer than the spacing of
-- doubles), which spares Redis formatting the number with %.17g; else the number.
--@inline
function M.Num_score_arg(now, tstr)
  if now >= 1 then return tstr end
  return now
end
  elseif name == 'Queue_call_list' then
--@ lua/queue.lua:3-13
-- Call a variadic Redis command on key `k` with the items of `list` from `first` (default
-- 1), `step` at a time (no unpack() ceiling); `step` is even for score/member pairs.
--@inline
function M.Queue_call_list(cmd, k, list, step, first)
  local n = #list
  for i = first or 1, n, step do
    local j = i + step - 1
    if j > n then j = n end
    rcall(cmd, k, unpack(list, i, j))
  end
end
  elseif name == 'Queue_with_names' then
--@ lua/queue.lua:15-21
-- Call a variadic Redis command on ARGV[first..].
function M.Queue_with_names(cmd, k, first)
  -- The reference leaves this to Redis's arity check; its wording differs between servers
  -- (Valkey drops "Redis"), so the protocol's phrase is raised here, before any write.
  if #A < first then error('Wrong number of args calling Redis command from script') end
  M.Queue_call_list(cmd, k, A, 1000, first)
end
  elseif name == 'Queue_whole' then
--@ lua/queue.lua:23-28
-- A non-negative whole count from a validated number.
function M.Queue_whole(n)
  n = floor(n)
  if n < 0 then return 0 end
  return n
end
  elseif name == 'Queue_promote' then
--@ lua/queue.lua:30-42
-- P-PROMOTE: move up to `limit` due scheduled jobs into the work set, scored at `now`.
-- `due` is the caller's ZRANGEBYSCORE result when it already has one.
function M.Queue_promote(now, queue, limit, due)
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
  elseif name == 'Queue_unlist' then
--@ lua/queue.lua:44-57
-- Remove `jid` from the queue's work, locks and scheduled sets (complete, lock expiry that
-- exhausts the retries; put and cancel, which also take it out of the depends set). A
-- running job is normally in the locks set only. It can also sit in the other two after a
-- retry into another queue: the lock left behind there expires and is reclaimed, handing
-- out a job that is still listed in its own queue.
-- `exist`, when the caller probed, is an EXISTS bit set (1 = the work set exists, 2 = the
-- scheduled set exists), and a set that does not exist is skipped.
--@inline
function M.Queue_unlist(queue, jid, exist)
  local qk = 'ql:q:' .. queue
  rcall('ZREM', qk .. '-locks', jid)
  if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
  if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
end
  elseif name == 'Queue_exhausted' then
--@ lua/queue.lua:59-74
-- Lock expiry that exhausted the job's retries: fail it (protocol 4.2).
function M.Queue_exhausted(now, queue, jid, f)
  local jq = f[3] or queue
  M.Queue_unlist(queue, jid)
  -- The group names the job's own queue, the message the queue being popped (they differ
  -- after a retry into another queue).
  local group = 'failed-retries-' .. jq
  local message = 'Job exhausted retries in queue "' .. queue .. '"'
  M.Job_hist(jid, now, '"failed"', { group = group }, f[4] or false)
  M.Job_park_failed(jid, group, { group = group, message = message, when = now, worker = '' })
  M.Job_notify(jid, 'failed')
  rcall('PUBLISH', 'ql:' .. 'log', encode({ jid = jid, event = 'failed', group = group,
    worker = f[1], message = message }))
  M.Stats_count(now, now, queue, 'failures', 1, 'failed', 1)
  M.Job_left_running(queue)
end
  elseif name == 'Queue_reclaim' then
--@ lua/queue.lua:76-94
-- P-RECLAIM: handle the expired locks `expired` of `queue` (pop reads at most its count);
-- returns the jids that may be handed out again. First expiry: courtesy notice and grace
-- period; next: retry consumed.
function M.Queue_reclaim(now, queue, expired)
  local out = {}
  local lk = 'ql:q:' .. queue .. '-locks'
  local grace = M.Config_number('grace-period', 10)
  for _, jid in ipairs(expired) do
    local f = rcall('HMGET', 'ql:j:' .. jid, 'worker', 'grace', 'queue', 'history', 'jid')
    if f[5] then
      if M.Queue_reclaim_one(now, queue, lk, grace, jid, f) then out[#out + 1] = jid end
    else
      -- The job is gone (cancelled after a retry into another queue, whose locks set
      -- cancel does not clean): drop the dangling lock, as pop drops a dangling work entry.
      rcall('ZREM', lk, jid)
    end
  end
  return out
end
  elseif name == 'Queue_reclaim_one' then
--@ lua/queue.lua:96-120
-- P-RECLAIM for one expired lock; `f` is the job's worker, grace, queue, history. True when
-- the job may be handed out again.
function M.Queue_reclaim_one(now, queue, lk, grace, jid, f)
  local jk = 'ql:j:' .. jid
  rcall('ZREM', 'ql:w:' .. (f[1] or '') .. ':jobs', jid)
  local sent = f[2] == '1'
  if not sent or grace <= 0 then
    M.Job_notify(jid, 'stalled')
    M.Job_hist(jid, now, '"timed-out"', nil, f[4] or false)
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
    if remaining >= 0 then return true end
    M.Queue_exhausted(now, queue, jid, f)
  end
  return false
end
  elseif name == 'Queue_render' then
--@ lua/queue.lua:122-127
-- Render a list of jids as a JSON array of job objects, skipping missing jobs.
function M.Queue_render(jids)
  local parts = {}
  for _, jid in ipairs(jids) do parts[#parts + 1] = M.Job_render(jid) end
  return M.Json_list(parts)
end
  elseif name == 'Queue_take' then
--@ lua/queue.lua:129-137
-- Append up to `want` jids from the work set (highest score first) to `jids`. A want of
-- 1 (the common pop) goes as text: Redis would format the number first.
--@inline
function M.Queue_take(queue, jids, want)
  if want <= 0 then return end
  local top = rcall('ZREVRANGE', 'ql:q:' .. queue .. '-work', '0',
    want == 1 and '0' or want - 1)
  for i = 1, #top do jids[#jids + 1] = top[i] end
end
  elseif name == 'Queue_pop' then
--@ lua/queue.lua:139-272
-- pop <now> <queue> <worker> <count>
-- Reply: JSON array of the popped jobs ({} when none). Events: reclaim events (4.2), then
-- ql:popped per tracked job. A work-set jid whose job hash is gone is dropped from the work
-- set and skipped (the reference fails with a Lua error). A negative count counts as 0.
-- Errors: Queue(): no queue name provided / Pop(): Arg "worker" missing / Pop(): Arg "count"
-- missing or not a number: <x>
--@inline
function M.Queue_pop(now)
  local queue, worker, count_s = A[3], A[4], A[5]
  if queue == nil then error('Queue(): no queue name provided') end
  if worker == nil then error('Pop(): Arg "worker" missing') end
  -- A count of '1' (the common pop) needs no parsing: tonumber converts a text twice.
  local count = 1
  if count_s ~= '1' then
    count = M.Num_parse(count_s)
    if count == nil then
      error('Pop(): Arg "count" missing or not a number: ' .. tostring(count_s))
    end
    count = floor(count)
  end
  -- One EXISTS answers the common case (no config, no paused queue, no templates, no
  -- delayed jobs in this queue, nothing tracked) and saves the reads it would otherwise take.
  local rk, sk = 'ql:q:' .. queue .. '-recur', 'ql:q:' .. queue .. '-scheduled'
  local special = rcall('EXISTS', 'ql:config', 'ql:paused_queues', rk, sk, 'ql:tracked') > 0
  local expires, maxc = now + 60, 0
  if special then
    local c = rcall('HMGET', 'ql:config', queue .. '-heartbeat', 'heartbeat',
      queue .. '-max-concurrency')
    local lock = M.Num_parse(c[1])
    if lock == nil then
      lock = M.Num_parse(c[2])
    end
    expires = now + (lock or 60)
    if rcall('SISMEMBER', 'ql:paused_queues', queue) == 1 then return '{}' end
    maxc = M.Num_parse(c[3])
    if maxc == nil then maxc = 0 end
  else
    cfg = false
  end
  -- `now` goes to Redis as its Num.time_text (see Num.score_arg), made once for every use.
  local tstr = M.Num_time_text(now)
  local now_arg = M.Num_score_arg(now, tstr)
  rcall('ZADD', 'ql:workers', now_arg, worker)
  local lk = 'ql:q:' .. queue .. '-locks'
  if maxc > 0 then
    local allowed = floor(maxc - rcall('ZCOUNT', lk, now, '+inf'))
    if count > allowed then count = allowed end
  end
  if count <= 0 then return '{}' end
  -- The range queries are made here so that the helpers run only when there is work.
  -- A count of 1 (the common pop) goes as text: Redis would format the number first.
  -- `jids` is the expired locks, then every jid to hand out (the reply is a list of our
  -- own, so none has to be made).
  local jids = rcall('ZRANGEBYSCORE', lk, '-inf', now_arg, 'LIMIT', '0',
    count == 1 and '1' or count)
  if #jids > 0 then jids = M.Queue_reclaim(now, queue, jids) end
  local want = count - #jids
  if want > 0 then
    if special then
      local due = rcall('ZRANGEBYSCORE', rk, 0, now, 'WITHSCORES', 'LIMIT', 0, want)
      if #due > 0 then M.Recur_spawn(now, queue, want, due) end
      due = rcall('ZRANGEBYSCORE', sk, 0, now, 'LIMIT', 0, want)
      if #due > 0 then M.Queue_promote(now, queue, want, due) end
    end
    -- The reference's ZREVRANGE, then one ZREM below. ZPOPMAX would take the same jids in
    -- one call, but it replies with each score, which Redis 6.2 and 7.0 format with %.17g:
    -- about 0.3 us more for one job and 2.7 times the time for 16 (docs/performance.md).
    M.Queue_take(queue, jids, want)
  end
  if #jids == 0 then return '{}' end
  -- The lock expiry as Redis would format the number itself (%.17g, exact), made once:
  -- each job's hash and both lock sets get this text instead of formatting it again.
  local expires_s = format('%.17g', expires)
  -- Every handed-out jid leaves the work set (step 10): the ones just taken, and any
  -- reclaimed job, which is normally not in the work set but can be (see Queue.unlist).
  local wk = 'ql:q:' .. queue .. '-work'
  if #jids == 1 then
    rcall('ZREM', wk, jids[1])
  else
    M.Queue_call_list('ZREM', wk, jids, 1000)
  end
  local wjk = 'ql:w:' .. worker .. ':jobs'
  -- The history entry every job gets, as stored and as rendered (the rendering Job.render
  -- would make of the stored text), so that no job's render parses it back.
  local wjson = encode(worker)
  local wentry = '{"worker":' .. wjson .. '}'
  local whole = M.Num_whole_text(now, tstr)
  local last = '{"when":' .. whole .. ',"what":"popped","worker":' .. wjson .. '}'
  if #jids == 1 then
    -- One job (the common case): its writes in place, without the batch lists below.
    local jid = jids[1]
    local f, tracked = M.Queue_hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry,
      special)
    if not f then return '{}' end
    local put_t = tonumber(f[15]) or now
    M.Stats_sample(now, 'wait', queue, now - put_t)
    rcall('ZADD', wjk, expires_s, jid)
    rcall('ZADD', lk, expires_s, jid)
    -- The entry the job's put wrote, predicted from its time and queue, and its rendering:
    -- an entry that is exactly this text is rendered without being parsed.
    local seen, shown
    local q = encode(f[4])
    if put_t >= 1 and put_t < 1e14 then
      local w = M.Num_whole_text(put_t, f[15])
      seen = '[' .. w .. ',"put",{"q":' .. q .. '}]'
      shown = '{"when":' .. w .. ',"what":"put","q":' .. q .. '}'
    end
    return M.Job_render(jid, f, tracked, true, last, seen, shown, wjson, q)
  end
  local popped = {}
  for _, jid in ipairs(jids) do
    local f, tracked = M.Queue_hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry,
      special)
    if f then popped[#popped + 1] = { jid, f, tracked } end
  end
  if #popped == 0 then return '{}' end
  -- The wait samples and the two lock sets are written once for the whole batch: the same
  -- values as one write per job (samples in pop order), in two calls per set fewer per job.
  local waits, scored = {}, {}
  for i, p in ipairs(popped) do
    waits[i] = now - (tonumber(p[2][15]) or now)
    scored[2 * i - 1] = expires_s
    scored[2 * i] = p[1]
  end
  M.Stats_samples(now, 'wait', queue, waits)
  M.Queue_call_list('ZADD', wjk, scored, 2000)
  M.Queue_call_list('ZADD', lk, scored, 2000)
  local parts = {}
  for i, p in ipairs(popped) do
    local text = M.Job_render(p[1], p[2], p[3], false, last, nil, nil, wjson)
    parts[i] = text
  end
  return M.Json_list(parts)
end
  elseif name == 'Queue_hand_out' then
--@ lua/queue.lua:274-294
-- Hand job `jid` to `worker` (pop's per-job writes: history, job fields, the tracked
-- ql:popped event). Returns the job's fields in Job.fetch's layout (as they were before
-- this pop, apart from state, worker and expires) and whether it is tracked; nil when the
-- job hash is gone. The lock expiry is stored as `expires_s` (its text), and the layout
-- holds the number `expires` itself, which Job.render would otherwise parse back.
--@inline
function M.Queue_hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry, special)
  -- Job.fetch's layout, without reading the three fields pop overwrites (state, worker,
  -- expires): every field read costs a scan of the job hash and a reply string.
  local g = rcall('HMGET', 'ql:j:' .. jid, 'jid', 'klass', 'queue', 'priority', 'retries',
    'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time')
  if not g[1] then return nil end
  local f = { g[1], g[2], 'running', g[3], worker, g[4], expires, g[5], g[6], g[7], g[8],
    g[9], g[10], false, g[12] }
  M.Job_hist(jid, now, '"popped"', wentry, g[11] or false, whole)
  rcall('HSET', 'ql:j:' .. jid, 'time', tstr, 'worker', worker, 'expires', expires_s,
    'state', 'running')
  local tracked = special and rcall('ZSCORE', 'ql:tracked', jid) ~= false
  if tracked then rcall('PUBLISH', 'ql:' .. 'popped', jid) end
  return f, tracked
end
  elseif name == 'Queue_peek' then
--@ lua/queue.lua:296-319
-- peek <now> <queue> <count>
-- Reply: JSON array of job objects: expired locks first, then the work set ({} when none).
-- Spawns recurring jobs and promotes scheduled ones. Errors: Queue(): no queue name provided
-- / Peek(): Arg "count" missing or not a number: <x>
function M.Queue_peek(now)
  local queue, count_s = A[3], A[4]
  if queue == nil then error('Queue(): no queue name provided') end
  local count = M.Num_parse(count_s)
  if count == nil then
    error('Peek(): Arg "count" missing or not a number: ' .. tostring(count_s))
  end
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
  elseif name == 'Queue_counts' then
--@ lua/queue.lua:321-336
-- The counts object of one queue (protocol 2.11); promotes every due scheduled job.
function M.Queue_counts(now, queue)
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
  elseif name == 'Queue_queues' then
--@ lua/queue.lua:338-346
-- queues <now> [queue]
-- Reply: the counts object of one queue, or an array for every known queue ({} if none).
function M.Queue_queues(now)
  local queue = A[3]
  if queue ~= nil then return encode(M.Queue_counts(now, queue)) end
  local out = {}
  for _, q in ipairs(rcall('ZRANGE', 'ql:queues', 0, -1)) do out[#out + 1] = M.Queue_counts(now, q) end
  return encode(out)
end
  elseif name == 'Queue_length' then
--@ lua/queue.lua:348-355
-- length <now> <queue>: integer, running + waiting + scheduled jobs.
-- Error: Queue(): no queue name provided
function M.Queue_length(now)
  local queue = A[3]
  if queue == nil then error('Queue(): no queue name provided') end
  return rcall('ZCARD', 'ql:q:' .. queue .. '-locks') + rcall('ZCARD', 'ql:q:' .. queue .. '-work') +
    rcall('ZCARD', 'ql:q:' .. queue .. '-scheduled')
end
  elseif name == 'Queue_page_arg' then
--@ lua/queue.lua:357-363
-- Pagination argument: default when absent, else a number (fractions are floored).
function M.Queue_page_arg(v, default, msg)
  if v == nil then return default end
  local n = M.Num_parse(v)
  if n == nil then error(msg .. v) end
  return floor(n)
end
  elseif name == 'Queue_jobs' then
--@ lua/queue.lua:365-397
-- jobs <now> complete [offset] [count] | jobs <now> <state> <queue> [offset] [count]
-- Reply: array of jids. Errors: Jobs(): Arg "state" missing / Jobs(): Arg "queue" missing /
-- Jobs(): Arg "offset" not a number: <x> / Jobs(): Arg "count" not a number: <x> / Jobs():
-- Unknown type "<state>"
function M.Queue_jobs(now)
  local state = A[3]
  if state == nil then error('Jobs(): Arg "state" missing') end
  local queue, off_s, cnt_s
  if state == 'complete' then
    off_s, cnt_s = A[4], A[5]
  else
    queue, off_s, cnt_s = A[4], A[5], A[6]
    if queue == nil then error('Jobs(): Arg "queue" missing') end
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
  error('Jobs(): Unknown type "' .. state .. '"')
end
  elseif name == 'Queue_pause' then
--@ lua/queue.lua:399-403
-- pause <now> <queue>...: reply nil.
function M.Queue_pause(now)
  M.Queue_with_names('SADD', 'ql:paused_queues', 3)
  return nil
end
  elseif name == 'Queue_unpause' then
--@ lua/queue.lua:405-410
-- unpause <now> <queue>...: reply nil; wakes workers waiting on those queues.
function M.Queue_unpause(now)
  M.Queue_with_names('SREM', 'ql:paused_queues', 3)
  for i = 3, #A do M.Wake_queue(A[i]) end
  return nil
end
  elseif name == 'Queue_forget' then
--@ lua/queue.lua:412-416
-- queue.forget <now> <queue>...: drop the names from ql:queues only. Reply nil.
function M.Queue_forget(now)
  M.Queue_with_names('ZREM', 'ql:queues', 3)
  return nil
end
  elseif name == 'Recur_spawn' then
--@ lua/recurring.lua:3-47
-- P-SPAWN: create the jobs of due templates of `queue`, at most `limit` in this call.
-- Each child is stamped with its slot time and enters the work set scored by it. `due` is
-- the caller's ZRANGEBYSCORE ... WITHSCORES result when it already has one.
function M.Recur_spawn(now, queue, limit, due)
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
    -- Literal arithmetic, as the protocol gives it: with an interval of 0 (recur.update does
    -- not check it) and a slot in the past, the skipped-ahead slot is nan and nothing spawns.
    if backlog ~= 0 then
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
      rcall('HSET', 'ql:j:' .. child, 'jid', child, 'klass', r[1] or '', 'data', r[2] or '{}',
        'priority', r[3] or 0, 'tags', r[4] or '{}', 'state', 'waiting', 'worker', '',
        'expires', 0, 'queue', queue, 'retries', retries, 'remaining', retries,
        'time', M.Num_time_text(s), 'spawned_from_jid', rjid)
      M.Job_hist(child, s, '"put"', { q = queue })
      M.Job_enqueue(queue, child, priority, s)
      s = s + interval
      rcall('ZADD', rk, s, rjid)
    end
  end
end
  elseif name == 'Recur_recur_number' then
--@ lua/recurring.lua:49-56
-- Option value that must be a finite number (default when absent).
function M.Recur_recur_number(opts, name, default)
  local v = opts[name]
  if v == nil then return default end
  local n = M.Num_parse(v)
  if n == nil then error('Recur(): Arg "' .. name .. '" not a number: ' .. v) end
  return n
end
  elseif name == 'Recur_recur' then
--@ lua/recurring.lua:58-103
-- recur <now> <queue> <jid> <klass> <data> interval <seconds> <offset> [priority p]
--       [tags t] [retries r] [backlog b]
-- Reply: the template jid. Re-issuing replaces every attribute but keeps `count`.
-- Errors: Queue(): no queue name provided / RecurringJob On(): Arg "jid" missing /
-- RecurringJob On(): Arg "klass" missing / RecurringJob On(): Arg "spec" missing /
-- RecurringJob On(): Arg "data" not JSON: <x> / Recur(): schedule type "<x>" unknown /
-- Recur(): Arg "interval" not a number: <x> / Recur(): Arg "offset" not a number: <x> /
-- Recur(): Arg "interval" must be greater than 0 / Odd number of additional args / Recur():
-- Arg "tags" must be JSON string array: <x> / Recur(): Arg "<name>" not a number: <x>
function M.Recur_recur(now)
  local queue, jid, klass, data, spec = A[3], A[4], A[5], A[6], A[7]
  if queue == nil then error('Queue(): no queue name provided') end
  if jid == nil then error('RecurringJob On(): Arg "jid" missing') end
  if klass == nil then error('RecurringJob On(): Arg "klass" missing') end
  if spec == nil then error('RecurringJob On(): Arg "spec" missing') end
  if decode(data) == false then error('RecurringJob On(): Arg "data" not JSON: ' .. data) end
  if spec ~= 'interval' then error('Recur(): schedule type "' .. spec .. '" unknown') end
  local interval = M.Num_parse(A[8])
  if interval == nil then error('Recur(): Arg "interval" not a number: ' .. tostring(A[8])) end
  local offset = M.Num_parse(A[9])
  if offset == nil then error('Recur(): Arg "offset" not a number: ' .. tostring(A[9])) end
  if interval <= 0 then error('Recur(): Arg "interval" must be greater than 0') end
  local n = #A
  if (n - 7) % 2 == 1 then error('Odd number of additional args') end
  local opts = {}
  for i = 10, n - 1, 2 do opts[A[i]] = A[i + 1] end
  local tags = {}
  if opts.tags ~= nil then
    tags = M.Json_strings(decode(opts.tags))
    if tags == nil then error('Recur(): Arg "tags" must be JSON string array: ' .. opts.tags) end
  end
  local priority = M.Recur_recur_number(opts, 'priority', 0)
  local retries = M.Recur_recur_number(opts, 'retries', 0)
  local backlog = M.Recur_recur_number(opts, 'backlog', 0)

  local tk = 'ql:r:' .. jid
  local old = rcall('HMGET', tk, 'count', 'queue')
  if old[2] then rcall('ZREM', 'ql:q:' .. old[2] .. '-recur', jid) end
  rcall('HSET', tk, 'jid', jid, 'klass', klass, 'data', data, 'priority', priority,
    'tags', encode(tags), 'state', 'recur', 'queue', queue, 'type', 'interval',
    'count', old[1] or 0, 'interval', interval, 'retries', retries, 'backlog', backlog)
  rcall('ZADD', 'ql:q:' .. queue .. '-recur', now + offset, jid)
  rcall('ZADD', 'ql:queues', 'NX', now, queue)
  if offset <= 0 then M.Wake_queue(queue) end
  return jid
end
  elseif name == 'Recur_unrecur' then
--@ lua/recurring.lua:105-115
-- unrecur <now> <jid>: delete the template (spawned jobs stay). Reply 1.
-- Error: Recurring(): no jid provided
function M.Recur_unrecur(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = 'ql:r:' .. jid
  local queue = rcall('HGET', tk, 'queue')
  if queue then rcall('ZREM', 'ql:q:' .. queue .. '-recur', jid) end
  rcall('DEL', tk)
  return 1
end
  elseif name == 'Recur_get' then
--@ lua/recurring.lua:117-130
-- recur.get <now> <jid>: the recurring object (protocol 2.11), or nil.
-- Error: Recurring(): no jid provided
function M.Recur_get(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local r = rcall('HMGET', 'ql:r:' .. jid, 'jid', 'klass', 'state', 'queue', 'priority',
    'interval', 'retries', 'count', 'data', 'tags', 'backlog')
  if not r[1] then return false end
  return encode({
    jid = r[1], klass = r[2], state = r[3], queue = r[4], priority = tonumber(r[5]),
    interval = tonumber(r[6]), retries = tonumber(r[7]), count = tonumber(r[8]), data = r[9],
    tags = M.Job_tag_list(r[10]), backlog = tonumber(r[11]) or 0,
  })
end
  elseif name == 'Recur_check_update' then
--@ lua/recurring.lua:132-146
-- Check one recur.update pair (protocol 3.29 validation column).
function M.Recur_check_update(name, value)
  if value == nil then error('No value provided for ' .. tostring(name)) end
  if name == 'priority' or name == 'interval' or name == 'retries' then
    if M.Num_parse(value) == nil then
      error('Recur(): Arg "' .. name .. '" must be a number: ' .. value)
    end
  elseif name == 'backlog' then
    if M.Num_parse(value) == nil then error('Recur(): Arg "backlog" not a number: ' .. value) end
  elseif name == 'data' then
    if decode(value) == false then error('Recur(): Arg "data" is not JSON-encoded: ' .. value) end
  elseif name ~= 'klass' and name ~= 'queue' then
    error('Recur(): Unrecognized option "' .. name .. '"')
  end
end
  elseif name == 'Recur_update' then
--@ lua/recurring.lua:148-187
-- recur.update <now> <jid> [name value]...
-- Every pair is validated before the first is applied (the reference applies them one by
-- one). Reply 1. Errors: Recurring(): no jid provided / Recur(): No recurring job <jid> /
-- No value provided for <name> / Recur(): Arg "<name>" must be a number: <x> / Recur(): Arg
-- "backlog" not a number: <x> / Recur(): Arg "data" is not JSON-encoded: <x> / Recur():
-- Unrecognized option "<name>"
function M.Recur_update(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = 'ql:r:' .. jid
  if rcall('EXISTS', tk) == 0 then error('Recur(): No recurring job ' .. jid) end
  local n = #A
  for i = 4, n, 2 do M.Recur_check_update(A[i], A[i + 1]) end
  local r = rcall('HMGET', tk, 'queue', 'interval')
  local queue, interval = r[1] or '', tonumber(r[2]) or 0
  for i = 4, n, 2 do
    local name, value = A[i], A[i + 1]
    if name == 'priority' or name == 'retries' or name == 'backlog' then
      rcall('HSET', tk, name, M.Num_parse(value))
    elseif name == 'interval' then
      local new = M.Num_parse(value)
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
  if score and score <= now then M.Wake_queue(queue) end
  return 1
end
  elseif name == 'Recur_tag' then
--@ lua/recurring.lua:189-207
-- recur.tag <now> <jid> <tag>...: append tags not already on the template (duplicates given
-- in the same call are all appended, as in the reference). Reply: the tag list JSON.
-- Errors: Recurring(): no jid provided / Tag(): Job <jid> does not exist
function M.Recur_tag(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = 'ql:r:' .. jid
  local text = rcall('HGET', tk, 'tags')
  if not text then error('Tag(): Job ' .. jid .. ' does not exist') end
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
  elseif name == 'Recur_untag' then
--@ lua/recurring.lua:209-226
-- recur.untag <now> <jid> <tag>...: remove the listed tags. Reply: the tag list JSON.
-- Errors: Recurring(): no jid provided / Untag(): Job <jid> does not exist
function M.Recur_untag(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = 'ql:r:' .. jid
  local text = rcall('HGET', tk, 'tags')
  if not text then error('Untag(): Job ' .. jid .. ' does not exist') end
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
  elseif name == 'Stats_day' then
--@ lua/stats.lua:20-22
-- The day bin of a timestamp (UTC midnight, floored modulo).
--@inline
function M.Stats_day(t) return t - (t % 86400) end
  elseif name == 'Stats_key' then
--@ lua/stats.lua:24-33
-- Statistics hash of `kind` (wait | run | stats) for a day bin and a queue. A day bin is
-- whole (Stats.day), and below 1e14 %d writes the digits that %.14g (Lua's number text)
-- does, for a fraction of the cost; -0 and the rest keep Lua's own text.
--@inline
function M.Stats_key(kind, day, queue)
  if day >= 1 and day < 1e14 then
    return 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue
  end
  return 'ql:s:' .. kind .. ':' .. day .. ':' .. queue
end
  elseif name == 'Stats_ttl' then
--@ lua/stats.lua:35-39
-- Seconds from `now` until a stats hash of day `day` should disappear.
function M.Stats_ttl(now, day)
  local days = M.Config_number('stats-history', 30)
  return math.ceil(day + 86400 * days - now)
end
  elseif name == 'Stats_expire' then
--@ lua/stats.lua:41-46
-- Keep a stats hash only for the configured history.
function M.Stats_expire(k, now, day)
  local ttl = M.Stats_ttl(now, day)
  if ttl < 1 then ttl = 1 end
  rcall('EXPIRE', k, ttl)
end
  elseif name == 'Stats_bin' then
--@ lua/stats.lua:48-86
-- The histogram fields of sample `v` (seconds): qless's bin (s0..s59, m1..m59, h1..h23,
-- d1...) and the fine histogram's bucket (extension, protocol.md): floor(20 * log10(v)), so
-- bucket b holds 10^(b/20) <= v < 10^((b+1)/20), 20 buckets per decade, each 12.2 % wide;
-- bucket -81 holds everything below 0.1 ms, zero and negative samples included, and
-- bucket 199 everything from 10^10 s on. Both are field names (text); the fine one is cut
-- from FINE_FIELDS, which costs half of formatting it (and Redis would format a number
-- argument with %.17g, which costs more still). qless's fields are cut from BIN_S, BIN_M
-- and BIN_H the same way (the texts 's' .. f would give); negative and day counts keep
-- Lua's own number text.
--@inline
function M.Stats_bin(v)
  local fine = '-81'
  if v >= 0.0001 then
    local b = floor(math.log10(v) * 20)
    if b > 199 then b = 199 end
    -- (parenthesised: the build writes the constant's literal here, and Lua only calls a
    -- method of a literal in parentheses)
    fine = ('-81-80-79-78-77-76-75-74-73-72-71-70-69-68-67-66-65-64-63-62-61-60-59-58-57-56-55-54-53-52-51-50-49-48-47-46-45-44-43-42-41-40-39-38-37-36-35-34-33-32-31-30-29-28-27-26-25-24-23-22-21-20-19-18-17-16-15-14-13-12-11-10-09-08-07-06-05-04-03-02-01000001002003004005006007008009010011012013014015016017018019020021022023024025026027028029030031032033034035036037038039040041042043044045046047048049050051052053054055056057058059060061062063064065066067068069070071072073074075076077078079080081082083084085086087088089090091092093094095096097098099100101102103104105106107108109110111112113114115116117118119120121122123124125126127128129130131132133134135136137138139140141142143144145146147148149150151152153154155156157158159160161162163164165166167168169170171172173174175176177178179180181182183184185186187188189190191192193194195196197198199'):sub(3 * b + 244, 3 * b + 246)
  end
  local f = floor(v)
  if f < 60 then
    if f >= 10 then return ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine end
    if f >= 1 then return ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine end
    -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
    if f == 0 and 1 / f > 0 then return 's0', fine end
    return 's' .. f, fine
  end
  if f < 3600 then
    local m = floor(f / 60)
    if m >= 10 then return ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine end
    return ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine
  end
  if f < 86400 then
    local h = floor(f / 3600)
    if h >= 10 then return ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine end
    return ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine
  end
  return 'd' .. floor(f / 86400), fine
end
  elseif name == 'Stats_step' then
--@ lua/stats.lua:88-97
-- One step of Welford's streaming update (protocol 5.2): count, mean and vk after `v`.
--@inline
function M.Stats_step(total, mean, vk, v)
  if total == nil then return 1, v, 0 end
  mean, vk = mean or 0, vk or 0
  total = total + 1
  local old = mean
  mean = old + (v - old) / total
  return total, mean, vk + (v - mean) * (v - old)
end
  elseif name == 'Stats_sample' then
--@ lua/stats.lua:99-125
-- P-STAT: record sample `v` of `kind` (wait|run) for `queue` in the day bin of `now`.
-- The histogram bucket is read and written with the running totals (two calls, not three).
-- The fine histogram (extension) lives in its own hash, so qless's hash keeps exactly the
-- fields other clients read: ql:fine:<the qless hash's name>, one concatenation away. A
-- bucket's first sample gives that hash the TTL of qless's hash, so both disappear
-- together (and neither does when the hash was made without one). It is written with
-- pcall, like the stored totals are read with tonumber: pop writes it after the job left
-- the work set, so a corrupt field must not raise there (the job would be in no set at
-- all); a field that is not a number starts again from this sample.
--@inline
function M.Stats_sample(now, kind, queue, v)
  local day = M.Stats_day(now)
  local k = M.Stats_key(kind, day, queue)
  local bin, fine = M.Stats_bin(v)
  local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
  local total, mean, vk = M.Stats_step(tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v)
  rcall('HSET', k, 'total', total, 'mean', mean, 'vk', vk, bin, (tonumber(cur[4]) or 0) + 1)
  if total == 1 then M.Stats_expire(k, now, day) end
  local fk = 'ql:fine:' .. k
  local n = redis.pcall('HINCRBY', fk, fine, '1')
  if n == 1 then
    local ttl = rcall('TTL', k)
    if ttl > 0 then rcall('EXPIRE', fk, ttl) end
  elseif type(n) == 'table' then
    redis.pcall('HSET', fk, fine, '1')
  end
end
  elseif name == 'Stats_samples' then
--@ lua/stats.lua:127-177
-- P-STAT for the samples `vs` of one pop, in order: one read and one write of the hash
-- instead of two calls per sample, with the same arithmetic, so the same stored values.
-- The fine histogram gets one HINCRBY per bucket the samples fall in.
--@inline
function M.Stats_samples(now, kind, queue, vs)
  -- More samples than a call may carry (histogram fields) go one by one. (Pop records a
  -- single sample with Stats.sample itself.)
  if #vs > 1000 then
    for _, v in ipairs(vs) do M.Stats_sample(now, kind, queue, v) end
    return
  end
  local day = M.Stats_day(now)
  local k = M.Stats_key(kind, day, queue)
  local fields, slot, bins, fines = { 'total', 'mean', 'vk' }, {}, {}, {}
  for i, v in ipairs(vs) do
    local bin, fine = M.Stats_bin(v)
    bins[i] = bin
    fines[fine] = (fines[fine] or 0) + 1
    if not slot[bin] then
      fields[#fields + 1] = bin
      slot[bin] = #fields
    end
  end
  local cur = rcall('HMGET', k, unpack(fields))
  local total, mean, vk = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3])
  local fresh = false
  for _, v in ipairs(vs) do
    total, mean, vk = M.Stats_step(total, mean, vk, v)
    if total == 1 then fresh = true end
  end
  local counts = {}
  for _, bin in ipairs(bins) do counts[bin] = (counts[bin] or tonumber(cur[slot[bin]]) or 0) + 1 end
  local args = { 'total', total, 'mean', mean, 'vk', vk }
  for i = 4, #fields do
    args[#args + 1] = fields[i]
    args[#args + 1] = counts[fields[i]]
  end
  rcall('HSET', k, unpack(args))
  if fresh then M.Stats_expire(k, now, day) end
  local fk = 'ql:fine:' .. k
  local ttl
  for fine, n in pairs(fines) do
    local got = redis.pcall('HINCRBY', fk, fine, n)
    if got == n then
      if ttl == nil then ttl = rcall('TTL', k) end
      if ttl > 0 then rcall('EXPIRE', fk, ttl) end
    elseif type(got) == 'table' then
      redis.pcall('HSET', fk, fine, n)
    end
  end
end
  elseif name == 'Stats_count' then
--@ lua/stats.lua:179-187
-- Adjust the failure counters of `queue` for the day containing `when`.
--@inline
function M.Stats_count(now, when, queue, field, by, field2, by2)
  local day = M.Stats_day(when)
  local k = M.Stats_key('stats', day, queue)
  rcall('HINCRBY', k, field, by)
  if field2 then rcall('HINCRBY', k, field2, by2) end
  M.Stats_expire(k, now, day)
end
  elseif name == 'Stats_unfailed' then
--@ lua/stats.lua:189-201
-- Decrement `failed` for a job that leaves the failed state (`failure` is its JSON text).
-- A failure object without a usable `when` adjusts nothing.
function M.Stats_unfailed(now, failure, queue)
  local ok, f = pcall(decode, failure or '{}')
  if not ok or type(f) ~= 'table' then return nil end
  local when = M.Num_parse(f['when'])
  if when == nil then return nil end
  local day = M.Stats_day(when)
  local k = M.Stats_key('stats', day, queue)
  rcall('HINCRBY', k, 'failed', -1)
  M.Stats_expire(k, now, day)
  return f
end
  elseif name == 'Stats_moments' then
--@ lua/stats.lua:203-209
-- Count, mean and sample standard deviation of a sample hash's stored totals.
function M.Stats_moments(total, mean, vk)
  local count = tonumber(total) or 0
  local std = 0
  if count > 1 then std = math.sqrt((tonumber(vk) or 0) / (count - 1)) end
  return count, tonumber(mean) or 0, std
end
  elseif name == 'Stats_summary' then
--@ lua/stats.lua:211-223
-- The `wait`/`run` part of the stats reply.
function M.Stats_summary(k)
  local raw = rcall('HGETALL', k)
  local h = {}
  for i = 1, #raw, 2 do h[raw[i]] = raw[i + 1] end
  local count, mean, std = M.Stats_moments(h.total, h.mean, h.vk)
  local histogram = {}
  for i = 0, 59 do histogram[#histogram + 1] = tonumber(h['s' .. i]) or 0 end
  for i = 1, 59 do histogram[#histogram + 1] = tonumber(h['m' .. i]) or 0 end
  for i = 1, 23 do histogram[#histogram + 1] = tonumber(h['h' .. i]) or 0 end
  for i = 1, 6 do histogram[#histogram + 1] = tonumber(h['d' .. i]) or 0 end
  return { count = count, mean = mean, std = std, histogram = histogram }
end
  elseif name == 'Stats_get' then
--@ lua/stats.lua:225-242
-- stats <now> <queue> <date>
-- Reply: {"retries","failed","failures","wait":{...},"run":{...}} for the day of `date`.
-- Errors: Queue(): no queue name provided / Stats(): Arg "date" missing or not a number: <x>
function M.Stats_get(now)
  local queue, date_s = A[3], A[4]
  if queue == nil then error('Queue(): no queue name provided') end
  local date = M.Num_parse(date_s)
  if date == nil then error('Stats(): Arg "date" missing or not a number: ' .. tostring(date_s)) end
  local day = M.Stats_day(date)
  local counters = rcall('HMGET', M.Stats_key('stats', day, queue), 'retries', 'failed', 'failures')
  return encode({
    retries = tonumber(counters[1]) or 0,
    failed = tonumber(counters[2]) or 0,
    failures = tonumber(counters[3]) or 0,
    wait = M.Stats_summary(M.Stats_key('wait', day, queue)),
    run = M.Stats_summary(M.Stats_key('run', day, queue)),
  })
end
  elseif name == 'Stats_fine' then
--@ lua/stats.lua:244-272
-- qlpy.stats <now> <queue> <date> (extension)
-- Reply: {"retries","failed","failures","wait":{"count","mean","std","fine":{...}},"run":{...}}
-- for the day of `date`: what `stats` replies, with the fine histogram ({"<bucket>":
-- <count>}, buckets as in Stats.bin, empty ones left out) instead of qless's 148 bins, for
-- a tenth of the cost (dashboards ask it for every queue).
-- Errors: Queue(): no queue name provided / Stats(): Arg "date" missing or not a number: <x>
function M.Stats_fine(now)
  local queue, date_s = A[3], A[4]
  if queue == nil then error('Queue(): no queue name provided') end
  local date = M.Num_parse(date_s)
  if date == nil then error('Stats(): Arg "date" missing or not a number: ' .. tostring(date_s)) end
  local day = M.Stats_day(date)
  local counters = rcall('HMGET', M.Stats_key('stats', day, queue), 'retries', 'failed', 'failures')
  local reply = {
    retries = tonumber(counters[1]) or 0,
    failed = tonumber(counters[2]) or 0,
    failures = tonumber(counters[3]) or 0,
  }
  for _, kind in ipairs({ 'wait', 'run' }) do
    local k = M.Stats_key(kind, day, queue)
    local totals = rcall('HMGET', k, 'total', 'mean', 'vk')
    local count, mean, std = M.Stats_moments(totals[1], totals[2], totals[3])
    local raw = rcall('HGETALL', 'ql:fine:' .. k)
    local fine = {}
    for i = 1, #raw, 2 do fine[raw[i]] = tonumber(raw[i + 1]) end
    reply[kind] = { count = count, mean = mean, std = std, fine = fine }
  end
  return encode(reply)
end
  elseif name == 'Tags_tag' then
--@ lua/tags.lua:3-64
-- tag <now> add <jid> <tag>... | remove <jid> <tag>... | get <tag> [offset] [count] | top
--     [offset] [count]
-- Replies: add/remove the job's tag list; get {"total","jobs"}; top the tag names used at
-- least twice. Errors: Tag(): Arg "command" must be "add", "remove", "get" or "top" / Tag():
-- First argument must be "add", "remove" or "get" / Tag(): Arg "jid" missing / Tag(): Job
-- <jid> does not exist / Tag(): Arg "tag" missing / Tag(): Arg "offset" not a number: <x> /
-- Tag(): Arg "count" not a number: <x>
function M.Tags_tag(now)
  local command = A[3]
  if command == nil then error('Tag(): Arg "command" must be "add", "remove", "get" or "top"') end
  if command == 'add' or command == 'remove' then
    local jid = A[4]
    if jid == nil then error('Tag(): Arg "jid" missing') end
    local jk = 'ql:j:' .. jid
    local text = rcall('HGET', jk, 'tags')
    if not text then error('Tag(): Job ' .. jid .. ' does not exist') end
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
    if tag == nil then error('Tag(): Arg "tag" missing') end
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
  error('Tag(): First argument must be "add", "remove" or "get"')
end
  elseif name == 'Track_track' then
--@ lua/track.lua:3-28
-- track <now> | track <now> track <jid> | track <now> untrack <jid>
-- Replies: {"jobs":[job...],"expired":[jid...]}; or "1"/"0" (a JSON number, as a string).
-- Events: ql:track / ql:untrack (always). Errors: Track(): Arg "jid" missing / Track(): Job
-- does not exist / Track(): Unknown action "<x>"
function M.Track_track(now)
  local action, jid = A[3], A[4]
  if action == nil then
    local jobs, expired = {}, {}
    for _, j in ipairs(rcall('ZRANGE', 'ql:tracked', 0, -1)) do
      local r = M.Job_render(j, nil, true)
      if r then jobs[#jobs + 1] = r else expired[#expired + 1] = encode(j) end
    end
    return '{"jobs":' .. M.Json_list(jobs) .. ',"expired":' .. M.Json_list(expired) .. '}'
  end
  if jid == nil then error('Track(): Arg "jid" missing') end
  if rcall('EXISTS', 'ql:j:' .. jid) == 0 then error('Track(): Job does not exist') end
  local a = string.lower(action)
  if a == 'track' then
    rcall('PUBLISH', 'ql:' .. 'track', jid)
    return encode(rcall('ZADD', 'ql:tracked', now, jid))
  elseif a == 'untrack' then
    rcall('PUBLISH', 'ql:' .. 'untrack', jid)
    return encode(rcall('ZREM', 'ql:tracked', jid))
  end
  error('Track(): Unknown action "' .. action .. '"')
end
  elseif name == 'Wake_queue' then
--@ lua/wake.lua:6-15
-- Mark `queue` as having gained poppable work: its workers are woken at the end of the call.
--@inline
function M.Wake_queue(queue)
  if not wake or wake == queue then
    wake = queue
    return
  end
  if type(wake) == 'string' then wake = { [wake] = true } end
  wake[queue] = true
end
  elseif name == 'Wake_one' then
--@ lua/wake.lua:17-20
--@inline
function M.Wake_one(queue)
  rcall('PUBLISH', 'qlpy:wake:' .. queue, queue)
end
  elseif name == 'Wake_workers' then
--@ lua/wake.lua:22-33
-- Publish for every queue marked by Wake.queue during this call (api.lua, after a command).
--@inline
function M.Wake_workers()
  if not wake then return end
  if type(wake) == 'string' then
    M.Wake_one(wake)
    return
  end
  for q in pairs(wake) do
    M.Wake_one(q)
  end
end
  elseif name == 'Worker_cleanup' then
--@ lua/worker.lua:3-9
-- Purge workers idle for longer than `max-worker-age` (default 86400), with their job sets.
function M.Worker_cleanup(now)
  local cutoff = now - M.Config_number('max-worker-age', 86400)
  local stale = rcall('ZRANGEBYSCORE', 'ql:workers', 0, cutoff)
  for _, w in ipairs(stale) do rcall('DEL', 'ql:w:' .. w .. ':jobs') end
  if #stale > 0 then rcall('ZREMRANGEBYSCORE', 'ql:workers', 0, cutoff) end
end
  elseif name == 'Worker_workers' then
--@ lua/worker.lua:11-34
-- workers <now> [worker]
-- Reply: [{"name","jobs","stalled"}...] most recently active first ({} if none), or for one
-- worker {"jobs":[jid...],"stalled":[jid...]}.
function M.Worker_workers(now)
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
  elseif name == 'Worker_deregister' then
--@ lua/worker.lua:36-40
-- worker.deregister <now> <worker>...: remove from ql:workers only. Reply nil.
function M.Worker_deregister(now)
  M.Queue_with_names('ZREM', 'ql:workers', 3)
  return nil
end
  elseif name == 'Api_get' then
--@ lua/api.lua:3-3
M['Api_get'] = M.Job_get
  elseif name == 'Api_multiget' then
--@ lua/api.lua:4-4
M['Api_multiget'] = M.Job_multiget
  elseif name == 'Api_config.get' then
--@ lua/api.lua:5-5
M['Api_config.get'] = M.Config_get
  elseif name == 'Api_config.set' then
--@ lua/api.lua:6-6
M['Api_config.set'] = M.Config_set
  elseif name == 'Api_config.unset' then
--@ lua/api.lua:7-7
M['Api_config.unset'] = M.Config_unset
  elseif name == 'Api_queues' then
--@ lua/api.lua:8-8
M['Api_queues'] = M.Queue_queues
  elseif name == 'Api_complete' then
--@ lua/api.lua:9-9
M['Api_complete'] = M.Job_complete
  elseif name == 'Api_failed' then
--@ lua/api.lua:10-10
M['Api_failed'] = M.Queue_failed
  elseif name == 'Api_fail' then
--@ lua/api.lua:11-11
M['Api_fail'] = M.Job_fail
  elseif name == 'Api_jobs' then
--@ lua/api.lua:12-12
M['Api_jobs'] = M.Queue_jobs
  elseif name == 'Api_retry' then
--@ lua/api.lua:13-13
M['Api_retry'] = M.Job_retry
  elseif name == 'Api_depends' then
--@ lua/api.lua:14-14
M['Api_depends'] = M.Job_depends
  elseif name == 'Api_heartbeat' then
--@ lua/api.lua:15-15
M['Api_heartbeat'] = M.Job_heartbeat
  elseif name == 'Api_workers' then
--@ lua/api.lua:16-16
M['Api_workers'] = M.Worker_workers
  elseif name == 'Api_track' then
--@ lua/api.lua:17-17
M['Api_track'] = M.Track_track
  elseif name == 'Api_tag' then
--@ lua/api.lua:18-18
M['Api_tag'] = M.Tags_tag
  elseif name == 'Api_stats' then
--@ lua/api.lua:19-19
M['Api_stats'] = M.Stats_get
  elseif name == 'Api_priority' then
--@ lua/api.lua:20-20
M['Api_priority'] = M.Job_priority
  elseif name == 'Api_log' then
--@ lua/api.lua:21-21
M['Api_log'] = M.Job_log
  elseif name == 'Api_peek' then
--@ lua/api.lua:22-22
M['Api_peek'] = M.Queue_peek
  elseif name == 'Api_pop' then
--@ lua/api.lua:23-23
M['Api_pop'] = M.Queue_pop
  elseif name == 'Api_pause' then
--@ lua/api.lua:24-24
M['Api_pause'] = M.Queue_pause
  elseif name == 'Api_unpause' then
--@ lua/api.lua:25-25
M['Api_unpause'] = M.Queue_unpause
  elseif name == 'Api_cancel' then
--@ lua/api.lua:26-26
M['Api_cancel'] = M.Job_cancel
  elseif name == 'Api_timeout' then
--@ lua/api.lua:27-27
M['Api_timeout'] = M.Job_timeout
  elseif name == 'Api_put' then
--@ lua/api.lua:28-28
M['Api_put'] = M.Job_put
  elseif name == 'Api_requeue' then
--@ lua/api.lua:29-29
M['Api_requeue'] = M.Job_requeue
  elseif name == 'Api_unfail' then
--@ lua/api.lua:30-30
M['Api_unfail'] = M.Queue_unfail
  elseif name == 'Api_recur' then
--@ lua/api.lua:31-31
M['Api_recur'] = M.Recur_recur
  elseif name == 'Api_unrecur' then
--@ lua/api.lua:32-32
M['Api_unrecur'] = M.Recur_unrecur
  elseif name == 'Api_recur.get' then
--@ lua/api.lua:33-33
M['Api_recur.get'] = M.Recur_get
  elseif name == 'Api_recur.update' then
--@ lua/api.lua:34-34
M['Api_recur.update'] = M.Recur_update
  elseif name == 'Api_recur.tag' then
--@ lua/api.lua:35-35
M['Api_recur.tag'] = M.Recur_tag
  elseif name == 'Api_recur.untag' then
--@ lua/api.lua:36-36
M['Api_recur.untag'] = M.Recur_untag
  elseif name == 'Api_length' then
--@ lua/api.lua:37-37
M['Api_length'] = M.Queue_length
  elseif name == 'Api_worker.deregister' then
--@ lua/api.lua:38-38
M['Api_worker.deregister'] = M.Worker_deregister
  elseif name == 'Api_queue.forget' then
--@ lua/api.lua:39-39
M['Api_queue.forget'] = M.Queue_forget
  elseif name == 'Api_qlpy.stats' then
--@ lua/api.lua:40-40
M['Api_qlpy.stats'] = M.Stats_fine
  end
  return rawget(M, name)
end
M.__index = define  -- M is its own metatable: one table less
setmetatable(M, M)

--@ lua/api.lua:1-2
-- The command table and the dispatcher (protocol 1.1). The build puts this file last.

--@ lua/api.lua:42-48
-- Dispatch. The commands a worker sends for every job come first, as plain calls of their
-- functions: those are --@inline, so the build copies them into this block and their
-- common path runs as straight code that creates no function. A call this block does not
-- take (KEYS given, no `now`, another command) goes on to the checks below, which are
-- made in the protocol's order. Then wake the workers of queues that gained work.
if #KEYS == 0 and #A >= 2 then
  local inl_1 repeat local v = A[2]
--@ lua/num.lua:6-9
    local n = tonumber(v)
    -- n - n is 0 for every finite number, and nan for nan and for +-inf.
    if n and n - n == 0 then do inl_1 = n break end end
    do inl_1 = nil break end
--@ lua/api.lua:48-53
  until true local now = inl_1
  local cmd, fast, result = A[1], true, nil
  if now == nil then
    fast = false
  elseif cmd == 'put' then
    local inl_2 repeat local now, requeue = now
--@ lua/job/put.lua:23-39
      local worker, queue, jid, klass, data, delay_s = A[3], A[4], A[5], A[6], A[7], A[8]
      if requeue then
        if jid == nil then error('Job(): no jid provided') end
        if rcall('EXISTS', 'ql:j:' .. jid) == 0 then
          error('Requeue(): Job ' .. jid .. ' does not exist')
        end
      end
      if queue == nil then error('Queue(): no queue name provided') end
      if jid == nil then error('Put(): Arg "jid" missing') end
      if klass == nil then error('Put(): Arg "klass" missing') end
      if data ~= '{}' and decode(data) == false then
        error('Put(): Arg "data" missing or not JSON: ' .. tostring(data))
      end
      -- A delay of '0' (the common put) needs no parsing: tonumber converts a text twice.
      local delay = 0
      if delay_s ~= '0' then
        local inl_3 repeat local v = delay_s
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_3 = n break end end
          do inl_3 = nil break end
--@ lua/job/put.lua:39-47
        until true delay = inl_3
        if delay == nil then error('Put(): Arg "delay" not a number: ' .. tostring(delay_s)) end
      end
      local n = #A
      if (n - 8) % 2 == 1 then error('Odd number of additional args') end
      -- No table at all when there are no options (the common case).
      local o_retries, o_tags, o_priority, o_depends
      if n > 8 then
        local inl_4 repeat local first, last = 9, n
--@ lua/job/put.lua:6-8
          local opts = {}
          for i = first, last - 1, 2 do opts[A[i]] = A[i + 1] end
          do inl_4 = opts break end
--@ lua/job/put.lua:47-68
        until true local opts = inl_4
        o_retries, o_tags, o_priority, o_depends = opts.retries, opts.tags, opts.priority, opts.depends
      end
      -- One EXISTS tells whether the job exists (1) and whether any job is tracked (2): it
      -- counts a key once per mention. A new job then needs no HMGET, and an empty ql:tracked
      -- no ZSCORE.
      local jk = 'ql:j:' .. jid
      local probe = rcall('EXISTS', jk, 'ql:tracked', 'ql:tracked')
      -- 1 jid, 2 state, 3 queue, 4 worker, 5 priority, 6 retries, 7 tags, 8 failure, 9 history
      local f
      if probe % 2 == 1 then
        f = rcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'priority', 'retries', 'tags',
          'failure', 'history')
      else
        -- A new job has none of those fields: KEYS is an empty table here (the dispatcher
        -- checked), so nothing has to be made for it.
        f = KEYS
      end

      local retries = f[6] and tonumber(f[6]) or 5
      if o_retries ~= nil then
        local inl_5 repeat local v = o_retries
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_5 = n break end end
          do inl_5 = nil break end
--@ lua/job/put.lua:68-80
        until true retries = inl_5
        if retries == nil then error('Put(): Arg "retries" not a number: ' .. o_retries) end
      end
      -- Tag and dependency lists stay false when there are none.
      local old_tags = f[7] and M.Job_tag_list(f[7])
      local tags = old_tags
      if o_tags ~= nil then
        tags = M.Json_strings(decode(o_tags))
        if tags == nil then error('Put(): Arg "tags" not JSON' .. o_tags) end
      end
      local priority = f[5] and tonumber(f[5]) or 0
      if o_priority ~= nil then
        local inl_6 repeat local v = o_priority
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_6 = n break end end
          do inl_6 = nil break end
--@ lua/job/put.lua:80-112
        until true priority = inl_6
        if priority == nil then error('Put(): Arg "priority" not a number' .. o_priority) end
      end
      local depends = false
      if o_depends ~= nil then
        depends = M.Json_strings(decode(o_depends))
        if depends == nil then error('Put(): Arg "depends" not JSON: ' .. o_depends) end
      end

      -- Writes begin here.
      local tagk = 'ql:tags'
      if f[7] then
        for _, t in ipairs(old_tags) do
          rcall('ZREM', 'ql:t:' .. t, jid)
          rcall('ZINCRBY', tagk, -1, t)
        end
      end
      local depk = 'ql:j:' .. jid .. '-dependencies'
      if depends and #depends > 0 then
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
      local qjson = encode(queue)
      rcall('PUBLISH', 'ql:' .. 'log',
        '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
      local inl_7 repeat local t = now
--@ lua/num.lua:14-14
       do inl_7 = format('%.20f', t) break end
--@ lua/job/put.lua:112-113
      until true local tstr = inl_7
      local inl_8 repeat local t, tstr = now, tstr
--@ lua/num.lua:21-22
        if tstr and t >= 0 and t < 1e14 then do inl_8 = tstr:sub(1, -22) break end end
        do inl_8 = tostring(floor(t)) break end
--@ lua/job/put.lua:113-114
      until true local whole = inl_8
      repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"put"', '{"q":' .. qjson .. '}', f[9] or false, whole
--@ lua/job/history.lua:36-42
        if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
        if legacy then M.Job_migrate(jid, legacy) end
        -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
        -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
        local entry
        if not whole then
          local inl_9 repeat local t, tstr = when
--@ lua/num.lua:21-22
            if tstr and t >= 0 and t < 1e14 then do inl_9 = tstr:sub(1, -22) break end end
            do inl_9 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
          until true whole = inl_9
        end
        if extra == nil then
          entry = '[' .. whole .. ',' .. what_json .. ']'
        else
          if type(extra) ~= 'string' then extra = encode(extra) end
          entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
        end
        local hk = 'ql:j:' .. jid .. '-history'
        local len = rcall('RPUSH', hk, entry)
        -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
        if len < 3 then do break end end
        local inl_10 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
          if cfg == false then do inl_10 = fallback break end end
          local inl_11 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_11 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_11 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_11
          local inl_12 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_12 = n break end end
            do inl_12 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_12
          if n == nil then do inl_10 = fallback break end end
          do inl_10 = n break end
--@ lua/job/history.lua:54-67
        until true local cap = inl_10
        cap = floor(cap)
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
--@ lua/job/put.lua:114-117
      until true
      local old_queue, old_state, old_worker = f[3], f[2], f[4]
      if old_queue then
        repeat local queue, jid, exist = old_queue, jid
--@ lua/queue.lua:53-56
          local qk = 'ql:q:' .. queue
          rcall('ZREM', qk .. '-locks', jid)
          if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
          if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
--@ lua/job/put.lua:117-119
        until true
        rcall('ZREM', 'ql:q:' .. old_queue .. '-depends', jid)
        if old_state == 'running' then repeat local queue = old_queue
--@ lua/job/state.lua:15-18
          -- cfg false: the call found no config hash, so no queue has a cap. Config.number would
          -- say so too; asking here first spares building the field's name on every complete.
          if not queue or cfg == false then do break end end
          local inl_13 repeat local name, fallback = queue .. '-max-concurrency', 0
--@ lua/config.lua:29-30
            if cfg == false then do inl_13 = fallback break end end
            local inl_14 repeat local name = name
--@ lua/config.lua:15-22
              if cfg == false then do inl_14 = false break end end
              if cfg == nil then cfg = {} end
              local v = cfg[name]
              if v == nil then
                v = rcall('HGET', 'ql:config', name)
                cfg[name] = v
              end
              do inl_14 = v break end
--@ lua/config.lua:30-31
            until true local raw = inl_14
            local inl_15 repeat local v = raw
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_15 = n break end end
              do inl_15 = nil break end
--@ lua/config.lua:31-33
            until true local n = inl_15
            if n == nil then do inl_13 = fallback break end end
            do inl_13 = n break end
--@ lua/job/state.lua:18-19
          until true local cap = inl_13
          if cap > 0 then repeat local queue = queue
--@ lua/wake.lua:9-14
            if not wake or wake == queue then
              wake = queue
              do break end
            end
            if type(wake) == 'string' then wake = { [wake] = true } end
            wake[queue] = true
--@ lua/job/state.lua:19-19
          until true end
--@ lua/job/put.lua:119-171
        until true end
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
      if tags then
        for _, t in ipairs(tags) do
          rcall('ZADD', 'ql:t:' .. t, now, jid)
          rcall('ZINCRBY', tagk, 1, t)
        end
      end
      if old_state == 'failed' then
        local failure = M.Stats_unfailed(now, f[8], queue)
        if failure then M.Job_unlist_failure(jid, failure.group) end
      end
      if depends then
        for _, d in ipairs(depends) do
          if d == jid then
            -- The reference writes the hash before linking, so a job may depend on itself.
            rcall('SADD', depk, d)
            rcall('SADD', 'ql:j:' .. d .. '-dependents', jid)
          else
            M.Job_link(jid, d)
          end
        end
      end
      local has_deps = (f[1] or f[2] or (depends and #depends > 0)) and rcall('SCARD', depk) > 0
      local state = 'waiting'
      if has_deps then
        state = 'depends'
      elseif delay > 0 then
        state = 'scheduled'
      end
      -- The common values go as text: Redis 7.0 formats every number argument with %.17g
      -- (about 0.2 us each), and these texts are what it would write (-0 stays a number).
      local retries_v = retries == 5 and '5' or retries
      local priority_v = (priority == 0 and 1 / priority > 0) and '0' or priority
      rcall('HSET', jk, 'jid', jid, 'klass', klass, 'data', data, 'priority', priority_v,
        'tags', (not tags or #tags == 0) and '{}' or encode(tags), 'state', state, 'worker', '',
        'expires', '0', 'queue', queue, 'retries', retries_v, 'remaining', retries_v, 'time', tstr)
      if has_deps then
        rcall('ZADD', 'ql:q:' .. queue .. '-depends', now, jid)
        if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
      elseif delay > 0 then
        rcall('ZADD', 'ql:q:' .. queue .. '-scheduled', now + delay, jid)
      else
        repeat local queue, jid, priority, t = queue, jid, priority, now
--@ lua/job/state.lua:7-9
          local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
          rcall('ZADD', 'ql:q:' .. queue .. '-work', score, jid)
          repeat local queue = queue
--@ lua/wake.lua:9-14
            if not wake or wake == queue then
              wake = queue
              do break end
            end
            if type(wake) == 'string' then wake = { [wake] = true } end
            wake[queue] = true
--@ lua/job/state.lua:9-9
          until true
--@ lua/job/put.lua:171-173
        until true
      end
      local inl_16 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
        if now >= 1 then do inl_16 = tstr break end end
        do inl_16 = now break end
--@ lua/job/put.lua:173-178
      until true local now_arg = inl_16
      rcall('ZADD', 'ql:queues', 'NX', now_arg, queue)
      if probe >= 2 and rcall('ZSCORE', 'ql:tracked', jid) then
        rcall('PUBLISH', 'ql:' .. 'put', jid)
      end
      do inl_2 = jid break end
--@ lua/api.lua:53-55
    until true result = inl_2
  elseif cmd == 'pop' then
    local inl_17 repeat local now = now
--@ lua/queue.lua:147-153
      local queue, worker, count_s = A[3], A[4], A[5]
      if queue == nil then error('Queue(): no queue name provided') end
      if worker == nil then error('Pop(): Arg "worker" missing') end
      -- A count of '1' (the common pop) needs no parsing: tonumber converts a text twice.
      local count = 1
      if count_s ~= '1' then
        local inl_18 repeat local v = count_s
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_18 = n break end end
          do inl_18 = nil break end
--@ lua/queue.lua:153-167
        until true count = inl_18
        if count == nil then
          error('Pop(): Arg "count" missing or not a number: ' .. tostring(count_s))
        end
        count = floor(count)
      end
      -- One EXISTS answers the common case (no config, no paused queue, no templates, no
      -- delayed jobs in this queue, nothing tracked) and saves the reads it would otherwise take.
      local rk, sk = 'ql:q:' .. queue .. '-recur', 'ql:q:' .. queue .. '-scheduled'
      local special = rcall('EXISTS', 'ql:config', 'ql:paused_queues', rk, sk, 'ql:tracked') > 0
      local expires, maxc = now + 60, 0
      if special then
        local c = rcall('HMGET', 'ql:config', queue .. '-heartbeat', 'heartbeat',
          queue .. '-max-concurrency')
        local inl_19 repeat local v = c[1]
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_19 = n break end end
          do inl_19 = nil break end
--@ lua/queue.lua:167-169
        until true local lock = inl_19
        if lock == nil then
          local inl_20 repeat local v = c[2]
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_20 = n break end end
            do inl_20 = nil break end
--@ lua/queue.lua:169-173
          until true lock = inl_20
        end
        expires = now + (lock or 60)
        if rcall('SISMEMBER', 'ql:paused_queues', queue) == 1 then do inl_17 = '{}' break end end
        local inl_21 repeat local v = c[3]
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_21 = n break end end
          do inl_21 = nil break end
--@ lua/queue.lua:173-179
        until true maxc = inl_21
        if maxc == nil then maxc = 0 end
      else
        cfg = false
      end
      -- `now` goes to Redis as its Num.time_text (see Num.score_arg), made once for every use.
      local inl_22 repeat local t = now
--@ lua/num.lua:14-14
       do inl_22 = format('%.20f', t) break end
--@ lua/queue.lua:179-180
      until true local tstr = inl_22
      local inl_23 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
        if now >= 1 then do inl_23 = tstr break end end
        do inl_23 = now break end
--@ lua/queue.lua:180-206
      until true local now_arg = inl_23
      rcall('ZADD', 'ql:workers', now_arg, worker)
      local lk = 'ql:q:' .. queue .. '-locks'
      if maxc > 0 then
        local allowed = floor(maxc - rcall('ZCOUNT', lk, now, '+inf'))
        if count > allowed then count = allowed end
      end
      if count <= 0 then do inl_17 = '{}' break end end
      -- The range queries are made here so that the helpers run only when there is work.
      -- A count of 1 (the common pop) goes as text: Redis would format the number first.
      -- `jids` is the expired locks, then every jid to hand out (the reply is a list of our
      -- own, so none has to be made).
      local jids = rcall('ZRANGEBYSCORE', lk, '-inf', now_arg, 'LIMIT', '0',
        count == 1 and '1' or count)
      if #jids > 0 then jids = M.Queue_reclaim(now, queue, jids) end
      local want = count - #jids
      if want > 0 then
        if special then
          local due = rcall('ZRANGEBYSCORE', rk, 0, now, 'WITHSCORES', 'LIMIT', 0, want)
          if #due > 0 then M.Recur_spawn(now, queue, want, due) end
          due = rcall('ZRANGEBYSCORE', sk, 0, now, 'LIMIT', 0, want)
          if #due > 0 then M.Queue_promote(now, queue, want, due) end
        end
        -- The reference's ZREVRANGE, then one ZREM below. ZPOPMAX would take the same jids in
        -- one call, but it replies with each score, which Redis 6.2 and 7.0 format with %.17g:
        -- about 0.3 us more for one job and 2.7 times the time for 16 (docs/performance.md).
        repeat local queue, jids, want = queue, jids, want
--@ lua/queue.lua:133-136
          if want <= 0 then do break end end
          local top = rcall('ZREVRANGE', 'ql:q:' .. queue .. '-work', '0',
            want == 1 and '0' or want - 1)
          for i = 1, #top do jids[#jids + 1] = top[i] end
--@ lua/queue.lua:206-218
        until true
      end
      if #jids == 0 then do inl_17 = '{}' break end end
      -- The lock expiry as Redis would format the number itself (%.17g, exact), made once:
      -- each job's hash and both lock sets get this text instead of formatting it again.
      local expires_s = format('%.17g', expires)
      -- Every handed-out jid leaves the work set (step 10): the ones just taken, and any
      -- reclaimed job, which is normally not in the work set but can be (see Queue.unlist).
      local wk = 'ql:q:' .. queue .. '-work'
      if #jids == 1 then
        rcall('ZREM', wk, jids[1])
      else
        repeat local cmd, k, list, step, first = 'ZREM', wk, jids, 1000
--@ lua/queue.lua:7-12
          local n = #list
          for i = first or 1, n, step do
            local j = i + step - 1
            if j > n then j = n end
            rcall(cmd, k, unpack(list, i, j))
          end
--@ lua/queue.lua:218-225
        until true
      end
      local wjk = 'ql:w:' .. worker .. ':jobs'
      -- The history entry every job gets, as stored and as rendered (the rendering Job.render
      -- would make of the stored text), so that no job's render parses it back.
      local wjson = encode(worker)
      local wentry = '{"worker":' .. wjson .. '}'
      local inl_24 repeat local t, tstr = now, tstr
--@ lua/num.lua:21-22
        if tstr and t >= 0 and t < 1e14 then do inl_24 = tstr:sub(1, -22) break end end
        do inl_24 = tostring(floor(t)) break end
--@ lua/queue.lua:225-231
      until true local whole = inl_24
      local last = '{"when":' .. whole .. ',"what":"popped","worker":' .. wjson .. '}'
      if #jids == 1 then
        -- One job (the common case): its writes in place, without the batch lists below.
        local jid = jids[1]
        local inl_25, inl_26 repeat local now, jid, worker, expires, expires_s, tstr, whole, wentry, special = now, jid, worker, expires, expires_s, tstr, whole, wentry,
          special
--@ lua/queue.lua:281-288
          -- Job.fetch's layout, without reading the three fields pop overwrites (state, worker,
          -- expires): every field read costs a scan of the job hash and a reply string.
          local g = rcall('HMGET', 'ql:j:' .. jid, 'jid', 'klass', 'queue', 'priority', 'retries',
            'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time')
          if not g[1] then do inl_25, inl_26 = nil break end end
          local f = { g[1], g[2], 'running', g[3], worker, g[4], expires, g[5], g[6], g[7], g[8],
            g[9], g[10], false, g[12] }
          repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"popped"', wentry, g[11] or false, whole
--@ lua/job/history.lua:36-42
            if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
            if legacy then M.Job_migrate(jid, legacy) end
            -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
            -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
            local entry
            if not whole then
              local inl_27 repeat local t, tstr = when
--@ lua/num.lua:21-22
                if tstr and t >= 0 and t < 1e14 then do inl_27 = tstr:sub(1, -22) break end end
                do inl_27 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
              until true whole = inl_27
            end
            if extra == nil then
              entry = '[' .. whole .. ',' .. what_json .. ']'
            else
              if type(extra) ~= 'string' then extra = encode(extra) end
              entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
            end
            local hk = 'ql:j:' .. jid .. '-history'
            local len = rcall('RPUSH', hk, entry)
            -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
            if len < 3 then do break end end
            local inl_28 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
              if cfg == false then do inl_28 = fallback break end end
              local inl_29 repeat local name = name
--@ lua/config.lua:15-22
                if cfg == false then do inl_29 = false break end end
                if cfg == nil then cfg = {} end
                local v = cfg[name]
                if v == nil then
                  v = rcall('HGET', 'ql:config', name)
                  cfg[name] = v
                end
                do inl_29 = v break end
--@ lua/config.lua:30-31
              until true local raw = inl_29
              local inl_30 repeat local v = raw
--@ lua/num.lua:6-9
                local n = tonumber(v)
                -- n - n is 0 for every finite number, and nan for nan and for +-inf.
                if n and n - n == 0 then do inl_30 = n break end end
                do inl_30 = nil break end
--@ lua/config.lua:31-33
              until true local n = inl_30
              if n == nil then do inl_28 = fallback break end end
              do inl_28 = n break end
--@ lua/job/history.lua:54-67
            until true local cap = inl_28
            cap = floor(cap)
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
--@ lua/queue.lua:288-293
          until true
          rcall('HSET', 'ql:j:' .. jid, 'time', tstr, 'worker', worker, 'expires', expires_s,
            'state', 'running')
          local tracked = special and rcall('ZSCORE', 'ql:tracked', jid) ~= false
          if tracked then rcall('PUBLISH', 'ql:' .. 'popped', jid) end
          do inl_25, inl_26 = f, tracked break end
--@ lua/queue.lua:231-234
        until true local f, tracked = inl_25, inl_26
        if not f then do inl_17 = '{}' break end end
        local put_t = tonumber(f[15]) or now
        repeat local now, kind, queue, v = now, 'wait', queue, now - put_t
--@ lua/stats.lua:110-110
          local inl_31 repeat local t = now
--@ lua/stats.lua:22-22
           do inl_31 = t - (t % 86400) break end
--@ lua/stats.lua:110-111
          until true local day = inl_31
          local inl_32 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
            if day >= 1 and day < 1e14 then
              do inl_32 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
            end
            do inl_32 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:111-112
          until true local k = inl_32
          local inl_33, inl_34 repeat local v = v
--@ lua/stats.lua:59-85
            local fine = '-81'
            if v >= 0.0001 then
              local b = floor(math.log10(v) * 20)
              if b > 199 then b = 199 end
              -- (parenthesised: the build writes the constant's literal here, and Lua only calls a
              -- method of a literal in parentheses)
              fine = ('-81-80-79-78-77-76-75-74-73-72-71-70-69-68-67-66-65-64-63-62-61-60-59-58-57-56-55-54-53-52-51-50-49-48-47-46-45-44-43-42-41-40-39-38-37-36-35-34-33-32-31-30-29-28-27-26-25-24-23-22-21-20-19-18-17-16-15-14-13-12-11-10-09-08-07-06-05-04-03-02-01000001002003004005006007008009010011012013014015016017018019020021022023024025026027028029030031032033034035036037038039040041042043044045046047048049050051052053054055056057058059060061062063064065066067068069070071072073074075076077078079080081082083084085086087088089090091092093094095096097098099100101102103104105106107108109110111112113114115116117118119120121122123124125126127128129130131132133134135136137138139140141142143144145146147148149150151152153154155156157158159160161162163164165166167168169170171172173174175176177178179180181182183184185186187188189190191192193194195196197198199'):sub(3 * b + 244, 3 * b + 246)
            end
            local f = floor(v)
            if f < 60 then
              if f >= 10 then do inl_33, inl_34 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
              if f >= 1 then do inl_33, inl_34 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
              -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
              if f == 0 and 1 / f > 0 then do inl_33, inl_34 = 's0', fine break end end
              do inl_33, inl_34 = 's' .. f, fine break end
            end
            if f < 3600 then
              local m = floor(f / 60)
              if m >= 10 then do inl_33, inl_34 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
              do inl_33, inl_34 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
            end
            if f < 86400 then
              local h = floor(f / 3600)
              if h >= 10 then do inl_33, inl_34 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
              do inl_33, inl_34 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
            end
            do inl_33, inl_34 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:112-114
          until true local bin, fine = inl_33, inl_34
          local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
          local inl_35, inl_36, inl_37 repeat local total, mean, vk, v = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v
--@ lua/stats.lua:91-96
            if total == nil then do inl_35, inl_36, inl_37 = 1, v, 0 break end end
            mean, vk = mean or 0, vk or 0
            total = total + 1
            local old = mean
            mean = old + (v - old) / total
            do inl_35, inl_36, inl_37 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:114-124
          until true local total, mean, vk = inl_35, inl_36, inl_37
          rcall('HSET', k, 'total', total, 'mean', mean, 'vk', vk, bin, (tonumber(cur[4]) or 0) + 1)
          if total == 1 then M.Stats_expire(k, now, day) end
          local fk = 'ql:fine:' .. k
          local n = redis.pcall('HINCRBY', fk, fine, '1')
          if n == 1 then
            local ttl = rcall('TTL', k)
            if ttl > 0 then rcall('EXPIRE', fk, ttl) end
          elseif type(n) == 'table' then
            redis.pcall('HSET', fk, fine, '1')
          end
--@ lua/queue.lua:234-242
        until true
        rcall('ZADD', wjk, expires_s, jid)
        rcall('ZADD', lk, expires_s, jid)
        -- The entry the job's put wrote, predicted from its time and queue, and its rendering:
        -- an entry that is exactly this text is rendered without being parsed.
        local seen, shown
        local q = encode(f[4])
        if put_t >= 1 and put_t < 1e14 then
          local inl_38 repeat local t, tstr = put_t, f[15]
--@ lua/num.lua:21-22
            if tstr and t >= 0 and t < 1e14 then do inl_38 = tstr:sub(1, -22) break end end
            do inl_38 = tostring(floor(t)) break end
--@ lua/queue.lua:242-246
          until true local w = inl_38
          seen = '[' .. w .. ',"put",{"q":' .. q .. '}]'
          shown = '{"when":' .. w .. ',"what":"put","q":' .. q .. '}'
        end
        do local inl_39 repeat local jid, f, tracked, wrap, last, seen, shown, wjson, qjson = jid, f, tracked, true, last, seen, shown, wjson, q
--@ lua/job/render.lua:58-100
          if not f then f = M.Job_fetch(jid) end
          if not f[1] then do inl_39 = nil break end end
          if f[14] then
            M.Job_migrate(jid, f[14])
            f[14] = false
          end
          if tracked == nil then tracked = rcall('ZSCORE', 'ql:tracked', jid) ~= false end
          local hist = rcall('LRANGE', 'ql:j:' .. jid .. '-history', '0', last and '-2' or '-1')
          for i = 1, #hist do
            -- Inline fast path of Job.render_entry for the two shapes every command writes.
            local text = hist[i]
            if text == seen then
              hist[i] = shown
            else
              -- A flat extra object only: braces inside could mean more values after it.
              local when, what, inner = text:match('^%[(%d+),("[%w%-]*"),{([^{}]*)}%]$')
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
          end
          -- The caller's own new entry (pop), already rendered, was left out of the LRANGE.
          if last then hist[#hist + 1] = last end
          -- Most jobs have neither dependents nor dependencies: one EXISTS tells (it counts a key
          -- once per mention, so 1 = dependents, 2 = dependencies), and only existing sets are read.
          local jk = 'ql:j:' .. jid
          local dtk, dck = jk .. '-dependents', jk .. '-dependencies'
          local sets = rcall('EXISTS', dtk, dck, dck)
          local dependents = sets % 2 == 1 and rcall('SMEMBERS', dtk) or {}
          local dependencies = sets >= 2 and M.Job_encoded_members(rcall('SMEMBERS', dck)) or '{}'
          -- Numbers absent from the hash are left out, as cjson leaves out nil values.
          local inl_40 repeat local v, whole = f[6]
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_40 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_40 = nil break end end
            if whole then n = floor(n) end
            do inl_40 = encode(n) break end
--@ lua/job/render.lua:100-101
          until true local priority = inl_40
          local inl_41 repeat local v, whole = f[8]
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_41 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_41 = nil break end end
            if whole then n = floor(n) end
            do inl_41 = encode(n) break end
--@ lua/job/render.lua:101-102
          until true local retries = inl_41
          local inl_42 repeat local v, whole = f[9], true
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_42 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_42 = nil break end end
            if whole then n = floor(n) end
            do inl_42 = encode(n) break end
--@ lua/job/render.lua:102-105
          until true local remaining = inl_42
          -- Every part as a statement of its own, so that the build can inline the helpers into
          -- pop's common path; then one concatenation expression builds the result in one step.
          local inl_43 repeat local v = f[2]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_43 = 'false' break end end
            do inl_43 = encode(v) break end
--@ lua/job/render.lua:105-108
          until true local klass = inl_43
          local state = '"running"'
          if f[3] ~= 'running' then
            local inl_44 repeat local v = f[3]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_44 = 'false' break end end
              do inl_44 = encode(v) break end
--@ lua/job/render.lua:108-112
            until true state = inl_44
          end
          local queue = qjson
          if not queue then
            local inl_45 repeat local v = f[4]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_45 = 'false' break end end
              do inl_45 = encode(v) break end
--@ lua/job/render.lua:112-114
            until true queue = inl_45
          end
          local inl_46 repeat local v = f[10]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_46 = 'false' break end end
            do inl_46 = encode(v) break end
--@ lua/job/render.lua:114-115
          until true local data = inl_46
          local inl_47 repeat local v = f[13]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_47 = 'false' break end end
            do inl_47 = encode(v) break end
--@ lua/job/render.lua:115-123
          until true local spawned = inl_47
          -- The history's brackets go into the one concatenation below (cjson writes {} for none).
          local history, hopen, hclose = '{}', '', ''
          if #hist > 0 then
            history, hopen, hclose = concat(hist, ','), '[', ']'
          end
          local tags, failure = f[11], f[12]
          if tags ~= '{}' then
            local inl_48 repeat local text = tags
--@ lua/job/render.lua:36-39
              if not text or text == '{}' or text == '[]' then do inl_48 = '{}' break end end
              local ok, v = pcall(decode, text)
              if not ok or type(v) ~= 'table' then do inl_48 = '{}' break end end
              do inl_48 = encode(v) break end
--@ lua/job/render.lua:123-126
            until true tags = inl_48
          end
          if failure ~= '{}' then
            local inl_49 repeat local text = failure
--@ lua/job/render.lua:36-39
              if not text or text == '{}' or text == '[]' then do inl_49 = '{}' break end end
              local ok, v = pcall(decode, text)
              if not ok or type(v) ~= 'table' then do inl_49 = '{}' break end end
              do inl_49 = encode(v) break end
--@ lua/job/render.lua:126-139
            until true failure = inl_49
          end
          do inl_39 = (wrap and '[{"jid":' or '{"jid":') .. encode(f[1]) .. ',"klass":' .. klass ..
            ',"state":' .. state .. ',"queue":' .. queue ..
            ',"worker":' .. (wjson or encode(f[5] or '')) .. ',"tracked":' .. (tracked and 'true' or 'false') ..
            ',"expires":' .. encode(tonumber(f[7]) or 0) .. ',"data":' .. data ..
            ',"tags":' .. tags .. ',"failure":' .. failure ..
            ',"spawned_from_jid":' .. spawned .. ',"history":' .. hopen .. history .. hclose ..
            ',"dependents":' .. (#dependents == 0 and '{}' or M.Job_encoded_members(dependents)) ..
            ',"dependencies":' .. dependencies ..
            (priority and ',"priority":' or '') .. (priority or '') ..
            (retries and ',"retries":' or '') .. (retries or '') ..
            (remaining and ',"remaining":' or '') .. (remaining or '') ..
            (wrap and '}]' or '}') break end
--@ lua/queue.lua:246-251
        until true inl_17 = inl_39 break end
      end
      local popped = {}
      for _, jid in ipairs(jids) do
        local inl_50, inl_51 repeat local now, jid, worker, expires, expires_s, tstr, whole, wentry, special = now, jid, worker, expires, expires_s, tstr, whole, wentry,
          special
--@ lua/queue.lua:281-288
          -- Job.fetch's layout, without reading the three fields pop overwrites (state, worker,
          -- expires): every field read costs a scan of the job hash and a reply string.
          local g = rcall('HMGET', 'ql:j:' .. jid, 'jid', 'klass', 'queue', 'priority', 'retries',
            'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time')
          if not g[1] then do inl_50, inl_51 = nil break end end
          local f = { g[1], g[2], 'running', g[3], worker, g[4], expires, g[5], g[6], g[7], g[8],
            g[9], g[10], false, g[12] }
          repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"popped"', wentry, g[11] or false, whole
--@ lua/job/history.lua:36-42
            if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
            if legacy then M.Job_migrate(jid, legacy) end
            -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
            -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
            local entry
            if not whole then
              local inl_52 repeat local t, tstr = when
--@ lua/num.lua:21-22
                if tstr and t >= 0 and t < 1e14 then do inl_52 = tstr:sub(1, -22) break end end
                do inl_52 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
              until true whole = inl_52
            end
            if extra == nil then
              entry = '[' .. whole .. ',' .. what_json .. ']'
            else
              if type(extra) ~= 'string' then extra = encode(extra) end
              entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
            end
            local hk = 'ql:j:' .. jid .. '-history'
            local len = rcall('RPUSH', hk, entry)
            -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
            if len < 3 then do break end end
            local inl_53 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
              if cfg == false then do inl_53 = fallback break end end
              local inl_54 repeat local name = name
--@ lua/config.lua:15-22
                if cfg == false then do inl_54 = false break end end
                if cfg == nil then cfg = {} end
                local v = cfg[name]
                if v == nil then
                  v = rcall('HGET', 'ql:config', name)
                  cfg[name] = v
                end
                do inl_54 = v break end
--@ lua/config.lua:30-31
              until true local raw = inl_54
              local inl_55 repeat local v = raw
--@ lua/num.lua:6-9
                local n = tonumber(v)
                -- n - n is 0 for every finite number, and nan for nan and for +-inf.
                if n and n - n == 0 then do inl_55 = n break end end
                do inl_55 = nil break end
--@ lua/config.lua:31-33
              until true local n = inl_55
              if n == nil then do inl_53 = fallback break end end
              do inl_53 = n break end
--@ lua/job/history.lua:54-67
            until true local cap = inl_53
            cap = floor(cap)
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
--@ lua/queue.lua:288-293
          until true
          rcall('HSET', 'ql:j:' .. jid, 'time', tstr, 'worker', worker, 'expires', expires_s,
            'state', 'running')
          local tracked = special and rcall('ZSCORE', 'ql:tracked', jid) ~= false
          if tracked then rcall('PUBLISH', 'ql:' .. 'popped', jid) end
          do inl_50, inl_51 = f, tracked break end
--@ lua/queue.lua:251-263
        until true local f, tracked = inl_50, inl_51
        if f then popped[#popped + 1] = { jid, f, tracked } end
      end
      if #popped == 0 then do inl_17 = '{}' break end end
      -- The wait samples and the two lock sets are written once for the whole batch: the same
      -- values as one write per job (samples in pop order), in two calls per set fewer per job.
      local waits, scored = {}, {}
      for i, p in ipairs(popped) do
        waits[i] = now - (tonumber(p[2][15]) or now)
        scored[2 * i - 1] = expires_s
        scored[2 * i] = p[1]
      end
      repeat local now, kind, queue, vs = now, 'wait', queue, waits
--@ lua/stats.lua:132-135
        -- More samples than a call may carry (histogram fields) go one by one. (Pop records a
        -- single sample with Stats.sample itself.)
        if #vs > 1000 then
          for _, v in ipairs(vs) do repeat local now, kind, queue, v = now, kind, queue, v
--@ lua/stats.lua:110-110
            local inl_56 repeat local t = now
--@ lua/stats.lua:22-22
             do inl_56 = t - (t % 86400) break end
--@ lua/stats.lua:110-111
            until true local day = inl_56
            local inl_57 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
              if day >= 1 and day < 1e14 then
                do inl_57 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
              end
              do inl_57 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:111-112
            until true local k = inl_57
            local inl_58, inl_59 repeat local v = v
--@ lua/stats.lua:59-85
              local fine = '-81'
              if v >= 0.0001 then
                local b = floor(math.log10(v) * 20)
                if b > 199 then b = 199 end
                -- (parenthesised: the build writes the constant's literal here, and Lua only calls a
                -- method of a literal in parentheses)
                fine = ('-81-80-79-78-77-76-75-74-73-72-71-70-69-68-67-66-65-64-63-62-61-60-59-58-57-56-55-54-53-52-51-50-49-48-47-46-45-44-43-42-41-40-39-38-37-36-35-34-33-32-31-30-29-28-27-26-25-24-23-22-21-20-19-18-17-16-15-14-13-12-11-10-09-08-07-06-05-04-03-02-01000001002003004005006007008009010011012013014015016017018019020021022023024025026027028029030031032033034035036037038039040041042043044045046047048049050051052053054055056057058059060061062063064065066067068069070071072073074075076077078079080081082083084085086087088089090091092093094095096097098099100101102103104105106107108109110111112113114115116117118119120121122123124125126127128129130131132133134135136137138139140141142143144145146147148149150151152153154155156157158159160161162163164165166167168169170171172173174175176177178179180181182183184185186187188189190191192193194195196197198199'):sub(3 * b + 244, 3 * b + 246)
              end
              local f = floor(v)
              if f < 60 then
                if f >= 10 then do inl_58, inl_59 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
                if f >= 1 then do inl_58, inl_59 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
                -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
                if f == 0 and 1 / f > 0 then do inl_58, inl_59 = 's0', fine break end end
                do inl_58, inl_59 = 's' .. f, fine break end
              end
              if f < 3600 then
                local m = floor(f / 60)
                if m >= 10 then do inl_58, inl_59 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
                do inl_58, inl_59 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
              end
              if f < 86400 then
                local h = floor(f / 3600)
                if h >= 10 then do inl_58, inl_59 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
                do inl_58, inl_59 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
              end
              do inl_58, inl_59 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:112-114
            until true local bin, fine = inl_58, inl_59
            local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
            local inl_60, inl_61, inl_62 repeat local total, mean, vk, v = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v
--@ lua/stats.lua:91-96
              if total == nil then do inl_60, inl_61, inl_62 = 1, v, 0 break end end
              mean, vk = mean or 0, vk or 0
              total = total + 1
              local old = mean
              mean = old + (v - old) / total
              do inl_60, inl_61, inl_62 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:114-124
            until true local total, mean, vk = inl_60, inl_61, inl_62
            rcall('HSET', k, 'total', total, 'mean', mean, 'vk', vk, bin, (tonumber(cur[4]) or 0) + 1)
            if total == 1 then M.Stats_expire(k, now, day) end
            local fk = 'ql:fine:' .. k
            local n = redis.pcall('HINCRBY', fk, fine, '1')
            if n == 1 then
              local ttl = rcall('TTL', k)
              if ttl > 0 then rcall('EXPIRE', fk, ttl) end
            elseif type(n) == 'table' then
              redis.pcall('HSET', fk, fine, '1')
            end
--@ lua/stats.lua:135-138
          until true end
          do break end
        end
        local inl_63 repeat local t = now
--@ lua/stats.lua:22-22
         do inl_63 = t - (t % 86400) break end
--@ lua/stats.lua:138-139
        until true local day = inl_63
        local inl_64 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
          if day >= 1 and day < 1e14 then
            do inl_64 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
          end
          do inl_64 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:139-142
        until true local k = inl_64
        local fields, slot, bins, fines = { 'total', 'mean', 'vk' }, {}, {}, {}
        for i, v in ipairs(vs) do
          local inl_65, inl_66 repeat local v = v
--@ lua/stats.lua:59-85
            local fine = '-81'
            if v >= 0.0001 then
              local b = floor(math.log10(v) * 20)
              if b > 199 then b = 199 end
              -- (parenthesised: the build writes the constant's literal here, and Lua only calls a
              -- method of a literal in parentheses)
              fine = ('-81-80-79-78-77-76-75-74-73-72-71-70-69-68-67-66-65-64-63-62-61-60-59-58-57-56-55-54-53-52-51-50-49-48-47-46-45-44-43-42-41-40-39-38-37-36-35-34-33-32-31-30-29-28-27-26-25-24-23-22-21-20-19-18-17-16-15-14-13-12-11-10-09-08-07-06-05-04-03-02-01000001002003004005006007008009010011012013014015016017018019020021022023024025026027028029030031032033034035036037038039040041042043044045046047048049050051052053054055056057058059060061062063064065066067068069070071072073074075076077078079080081082083084085086087088089090091092093094095096097098099100101102103104105106107108109110111112113114115116117118119120121122123124125126127128129130131132133134135136137138139140141142143144145146147148149150151152153154155156157158159160161162163164165166167168169170171172173174175176177178179180181182183184185186187188189190191192193194195196197198199'):sub(3 * b + 244, 3 * b + 246)
            end
            local f = floor(v)
            if f < 60 then
              if f >= 10 then do inl_65, inl_66 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
              if f >= 1 then do inl_65, inl_66 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
              -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
              if f == 0 and 1 / f > 0 then do inl_65, inl_66 = 's0', fine break end end
              do inl_65, inl_66 = 's' .. f, fine break end
            end
            if f < 3600 then
              local m = floor(f / 60)
              if m >= 10 then do inl_65, inl_66 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
              do inl_65, inl_66 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
            end
            if f < 86400 then
              local h = floor(f / 3600)
              if h >= 10 then do inl_65, inl_66 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
              do inl_65, inl_66 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
            end
            do inl_65, inl_66 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:142-154
          until true local bin, fine = inl_65, inl_66
          bins[i] = bin
          fines[fine] = (fines[fine] or 0) + 1
          if not slot[bin] then
            fields[#fields + 1] = bin
            slot[bin] = #fields
          end
        end
        local cur = rcall('HMGET', k, unpack(fields))
        local total, mean, vk = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3])
        local fresh = false
        for _, v in ipairs(vs) do
          local inl_67, inl_68, inl_69 repeat local total, mean, vk, v = total, mean, vk, v
--@ lua/stats.lua:91-96
            if total == nil then do inl_67, inl_68, inl_69 = 1, v, 0 break end end
            mean, vk = mean or 0, vk or 0
            total = total + 1
            local old = mean
            mean = old + (v - old) / total
            do inl_67, inl_68, inl_69 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:154-176
          until true total, mean, vk = inl_67, inl_68, inl_69
          if total == 1 then fresh = true end
        end
        local counts = {}
        for _, bin in ipairs(bins) do counts[bin] = (counts[bin] or tonumber(cur[slot[bin]]) or 0) + 1 end
        local args = { 'total', total, 'mean', mean, 'vk', vk }
        for i = 4, #fields do
          args[#args + 1] = fields[i]
          args[#args + 1] = counts[fields[i]]
        end
        rcall('HSET', k, unpack(args))
        if fresh then M.Stats_expire(k, now, day) end
        local fk = 'ql:fine:' .. k
        local ttl
        for fine, n in pairs(fines) do
          local got = redis.pcall('HINCRBY', fk, fine, n)
          if got == n then
            if ttl == nil then ttl = rcall('TTL', k) end
            if ttl > 0 then rcall('EXPIRE', fk, ttl) end
          elseif type(got) == 'table' then
            redis.pcall('HSET', fk, fine, n)
          end
        end
--@ lua/queue.lua:263-264
      until true
      repeat local cmd, k, list, step, first = 'ZADD', wjk, scored, 2000
--@ lua/queue.lua:7-12
        local n = #list
        for i = first or 1, n, step do
          local j = i + step - 1
          if j > n then j = n end
          rcall(cmd, k, unpack(list, i, j))
        end
--@ lua/queue.lua:264-265
      until true
      repeat local cmd, k, list, step, first = 'ZADD', lk, scored, 2000
--@ lua/queue.lua:7-12
        local n = #list
        for i = first or 1, n, step do
          local j = i + step - 1
          if j > n then j = n end
          rcall(cmd, k, unpack(list, i, j))
        end
--@ lua/queue.lua:265-268
      until true
      local parts = {}
      for i, p in ipairs(popped) do
        local inl_70 repeat local jid, f, tracked, wrap, last, seen, shown, wjson, qjson = p[1], p[2], p[3], false, last, nil, nil, wjson
--@ lua/job/render.lua:58-100
          if not f then f = M.Job_fetch(jid) end
          if not f[1] then do inl_70 = nil break end end
          if f[14] then
            M.Job_migrate(jid, f[14])
            f[14] = false
          end
          if tracked == nil then tracked = rcall('ZSCORE', 'ql:tracked', jid) ~= false end
          local hist = rcall('LRANGE', 'ql:j:' .. jid .. '-history', '0', last and '-2' or '-1')
          for i = 1, #hist do
            -- Inline fast path of Job.render_entry for the two shapes every command writes.
            local text = hist[i]
            if text == seen then
              hist[i] = shown
            else
              -- A flat extra object only: braces inside could mean more values after it.
              local when, what, inner = text:match('^%[(%d+),("[%w%-]*"),{([^{}]*)}%]$')
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
          end
          -- The caller's own new entry (pop), already rendered, was left out of the LRANGE.
          if last then hist[#hist + 1] = last end
          -- Most jobs have neither dependents nor dependencies: one EXISTS tells (it counts a key
          -- once per mention, so 1 = dependents, 2 = dependencies), and only existing sets are read.
          local jk = 'ql:j:' .. jid
          local dtk, dck = jk .. '-dependents', jk .. '-dependencies'
          local sets = rcall('EXISTS', dtk, dck, dck)
          local dependents = sets % 2 == 1 and rcall('SMEMBERS', dtk) or {}
          local dependencies = sets >= 2 and M.Job_encoded_members(rcall('SMEMBERS', dck)) or '{}'
          -- Numbers absent from the hash are left out, as cjson leaves out nil values.
          local inl_71 repeat local v, whole = f[6]
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_71 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_71 = nil break end end
            if whole then n = floor(n) end
            do inl_71 = encode(n) break end
--@ lua/job/render.lua:100-101
          until true local priority = inl_71
          local inl_72 repeat local v, whole = f[8]
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_72 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_72 = nil break end end
            if whole then n = floor(n) end
            do inl_72 = encode(n) break end
--@ lua/job/render.lua:101-102
          until true local retries = inl_72
          local inl_73 repeat local v, whole = f[9], true
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_73 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_73 = nil break end end
            if whole then n = floor(n) end
            do inl_73 = encode(n) break end
--@ lua/job/render.lua:102-105
          until true local remaining = inl_73
          -- Every part as a statement of its own, so that the build can inline the helpers into
          -- pop's common path; then one concatenation expression builds the result in one step.
          local inl_74 repeat local v = f[2]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_74 = 'false' break end end
            do inl_74 = encode(v) break end
--@ lua/job/render.lua:105-108
          until true local klass = inl_74
          local state = '"running"'
          if f[3] ~= 'running' then
            local inl_75 repeat local v = f[3]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_75 = 'false' break end end
              do inl_75 = encode(v) break end
--@ lua/job/render.lua:108-112
            until true state = inl_75
          end
          local queue = qjson
          if not queue then
            local inl_76 repeat local v = f[4]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_76 = 'false' break end end
              do inl_76 = encode(v) break end
--@ lua/job/render.lua:112-114
            until true queue = inl_76
          end
          local inl_77 repeat local v = f[10]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_77 = 'false' break end end
            do inl_77 = encode(v) break end
--@ lua/job/render.lua:114-115
          until true local data = inl_77
          local inl_78 repeat local v = f[13]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_78 = 'false' break end end
            do inl_78 = encode(v) break end
--@ lua/job/render.lua:115-123
          until true local spawned = inl_78
          -- The history's brackets go into the one concatenation below (cjson writes {} for none).
          local history, hopen, hclose = '{}', '', ''
          if #hist > 0 then
            history, hopen, hclose = concat(hist, ','), '[', ']'
          end
          local tags, failure = f[11], f[12]
          if tags ~= '{}' then
            local inl_79 repeat local text = tags
--@ lua/job/render.lua:36-39
              if not text or text == '{}' or text == '[]' then do inl_79 = '{}' break end end
              local ok, v = pcall(decode, text)
              if not ok or type(v) ~= 'table' then do inl_79 = '{}' break end end
              do inl_79 = encode(v) break end
--@ lua/job/render.lua:123-126
            until true tags = inl_79
          end
          if failure ~= '{}' then
            local inl_80 repeat local text = failure
--@ lua/job/render.lua:36-39
              if not text or text == '{}' or text == '[]' then do inl_80 = '{}' break end end
              local ok, v = pcall(decode, text)
              if not ok or type(v) ~= 'table' then do inl_80 = '{}' break end end
              do inl_80 = encode(v) break end
--@ lua/job/render.lua:126-139
            until true failure = inl_80
          end
          do inl_70 = (wrap and '[{"jid":' or '{"jid":') .. encode(f[1]) .. ',"klass":' .. klass ..
            ',"state":' .. state .. ',"queue":' .. queue ..
            ',"worker":' .. (wjson or encode(f[5] or '')) .. ',"tracked":' .. (tracked and 'true' or 'false') ..
            ',"expires":' .. encode(tonumber(f[7]) or 0) .. ',"data":' .. data ..
            ',"tags":' .. tags .. ',"failure":' .. failure ..
            ',"spawned_from_jid":' .. spawned .. ',"history":' .. hopen .. history .. hclose ..
            ',"dependents":' .. (#dependents == 0 and '{}' or M.Job_encoded_members(dependents)) ..
            ',"dependencies":' .. dependencies ..
            (priority and ',"priority":' or '') .. (priority or '') ..
            (retries and ',"retries":' or '') .. (retries or '') ..
            (remaining and ',"remaining":' or '') .. (remaining or '') ..
            (wrap and '}]' or '}') break end
--@ lua/queue.lua:268-271
        until true local text = inl_70
        parts[i] = text
      end
      do local inl_81 repeat local parts = parts
--@ lua/json.lua:29-30
        if #parts == 0 then do inl_81 = '{}' break end end
        do inl_81 = '[' .. concat(parts, ',') .. ']' break end
--@ lua/queue.lua:271-271
      until true inl_17 = inl_81 break end
--@ lua/api.lua:55-57
    until true result = inl_17
  elseif cmd == 'complete' then
    local inl_82 repeat local now = now
--@ lua/job/complete.lua:14-24
      local jid, worker, queue, data = A[3], A[4], A[5], A[6]
      if jid == nil then error('Job(): no jid provided') end
      if worker == nil then error('Complete(): Arg "worker" missing') end
      if queue == nil then error('Complete(): Arg "queue" missing') end
      if data ~= '{}' and decode(data) == false then
        error('Complete(): Arg "data" missing or not JSON: ' .. tostring(data))
      end
      local nextq, delay, depends = nil, 0, nil
      -- Options are read only when given (most completes have none: no table is made).
      if #A > 6 then
        local inl_83 repeat local first, last = 7, #A
--@ lua/job/put.lua:6-8
          local opts = {}
          for i = first, last - 1, 2 do opts[A[i]] = A[i + 1] end
          do inl_83 = opts break end
--@ lua/job/complete.lua:24-27
        until true local opts = inl_83
        nextq = opts.next
        if opts.delay ~= nil then
          local inl_84 repeat local v = opts.delay
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_84 = n break end end
            do inl_84 = nil break end
--@ lua/job/complete.lua:27-77
          until true delay = inl_84
          if delay == nil then error('assertion failed!') end
        end
        if opts.depends ~= nil then
          depends = M.Json_strings(decode(opts.depends))
          if depends == nil then error('Complete(): Arg "depends" not JSON: ' .. opts.depends) end
        end
        if opts.delay ~= nil and nextq == nil then
          error('Complete(): "delay" cannot be used without a "next".')
        end
        if depends ~= nil and nextq == nil then
          error('Complete(): "depends" cannot be used without a "next".')
        end
      end
      -- The priority is read only for a next queue (each field read scans the job's hash).
      local jk = 'ql:j:' .. jid
      local f
      if nextq == nil then
        f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries')
      else
        f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries', 'priority')
      end
      local state = f[1]
      if not state then error('Complete(): Job ' .. jid .. ' does not exist') end
      if state ~= 'running' then
        error('Complete(): Job ' .. jid .. ' is not currently running: ' .. state)
      end
      if f[2] ~= worker then
        error('Complete(): Job ' .. jid .. ' has been handed out to another worker: ' .. tostring(f[2]))
      end
      if f[3] ~= queue then
        error('Complete(): Job ' .. jid .. ' running in another queue: ' .. tostring(f[3]))
      end

      -- Two EXISTS answer the common case and save the reads and writes it would otherwise
      -- take. EXISTS counts a key once per mention, so the first reply is a bit set: 1 = the
      -- work set exists, 2 = the scheduled set exists (Queue.unlist skips the sets that do
      -- not). The second is above 0 when config, a tracked job or this job's dependents exist.
      -- (One EXISTS with weights 1, 2, 4, 4, 4 would mention 15 keys; each mention costs
      -- about a third of a call.)
      local sk = 'ql:q:' .. queue .. '-scheduled'
      local probe = rcall('EXISTS', 'ql:q:' .. queue .. '-work', sk, sk)
      local dk = jk .. '-dependents'
      local special = rcall('EXISTS', 'ql:config', 'ql:tracked', dk) > 0
      if special then
        M.Config_prefetch('max-job-history', 'jobs-history', 'jobs-history-count',
          queue .. '-max-concurrency')
      else
        cfg = false
      end
      local inl_85 repeat local t = now
--@ lua/num.lua:14-14
       do inl_85 = format('%.20f', t) break end
--@ lua/job/complete.lua:77-78
      until true local tstr = inl_85
      local inl_86 repeat local t, tstr = now, tstr
--@ lua/num.lua:21-22
        if tstr and t >= 0 and t < 1e14 then do inl_86 = tstr:sub(1, -22) break end end
        do inl_86 = tostring(floor(t)) break end
--@ lua/job/complete.lua:78-79
      until true local whole = inl_86
      repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"done"', nil, f[4] or false, whole
--@ lua/job/history.lua:36-42
        if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
        if legacy then M.Job_migrate(jid, legacy) end
        -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
        -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
        local entry
        if not whole then
          local inl_87 repeat local t, tstr = when
--@ lua/num.lua:21-22
            if tstr and t >= 0 and t < 1e14 then do inl_87 = tstr:sub(1, -22) break end end
            do inl_87 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
          until true whole = inl_87
        end
        if extra == nil then
          entry = '[' .. whole .. ',' .. what_json .. ']'
        else
          if type(extra) ~= 'string' then extra = encode(extra) end
          entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
        end
        local hk = 'ql:j:' .. jid .. '-history'
        local len = rcall('RPUSH', hk, entry)
        -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
        if len < 3 then do break end end
        local inl_88 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
          if cfg == false then do inl_88 = fallback break end end
          local inl_89 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_89 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_89 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_89
          local inl_90 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_90 = n break end end
            do inl_90 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_90
          if n == nil then do inl_88 = fallback break end end
          do inl_88 = n break end
--@ lua/job/history.lua:54-67
        until true local cap = inl_88
        cap = floor(cap)
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
--@ lua/job/complete.lua:79-80
      until true
      repeat local queue, jid, exist = queue, jid, probe
--@ lua/queue.lua:53-56
        local qk = 'ql:q:' .. queue
        rcall('ZREM', qk .. '-locks', jid)
        if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
        if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
--@ lua/job/complete.lua:80-81
      until true
      repeat local now, kind, queue, v = now, 'run', queue, now - (tonumber(f[5]) or now)
--@ lua/stats.lua:110-110
        local inl_91 repeat local t = now
--@ lua/stats.lua:22-22
         do inl_91 = t - (t % 86400) break end
--@ lua/stats.lua:110-111
        until true local day = inl_91
        local inl_92 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
          if day >= 1 and day < 1e14 then
            do inl_92 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
          end
          do inl_92 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:111-112
        until true local k = inl_92
        local inl_93, inl_94 repeat local v = v
--@ lua/stats.lua:59-85
          local fine = '-81'
          if v >= 0.0001 then
            local b = floor(math.log10(v) * 20)
            if b > 199 then b = 199 end
            -- (parenthesised: the build writes the constant's literal here, and Lua only calls a
            -- method of a literal in parentheses)
            fine = ('-81-80-79-78-77-76-75-74-73-72-71-70-69-68-67-66-65-64-63-62-61-60-59-58-57-56-55-54-53-52-51-50-49-48-47-46-45-44-43-42-41-40-39-38-37-36-35-34-33-32-31-30-29-28-27-26-25-24-23-22-21-20-19-18-17-16-15-14-13-12-11-10-09-08-07-06-05-04-03-02-01000001002003004005006007008009010011012013014015016017018019020021022023024025026027028029030031032033034035036037038039040041042043044045046047048049050051052053054055056057058059060061062063064065066067068069070071072073074075076077078079080081082083084085086087088089090091092093094095096097098099100101102103104105106107108109110111112113114115116117118119120121122123124125126127128129130131132133134135136137138139140141142143144145146147148149150151152153154155156157158159160161162163164165166167168169170171172173174175176177178179180181182183184185186187188189190191192193194195196197198199'):sub(3 * b + 244, 3 * b + 246)
          end
          local f = floor(v)
          if f < 60 then
            if f >= 10 then do inl_93, inl_94 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
            if f >= 1 then do inl_93, inl_94 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
            -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
            if f == 0 and 1 / f > 0 then do inl_93, inl_94 = 's0', fine break end end
            do inl_93, inl_94 = 's' .. f, fine break end
          end
          if f < 3600 then
            local m = floor(f / 60)
            if m >= 10 then do inl_93, inl_94 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
            do inl_93, inl_94 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
          end
          if f < 86400 then
            local h = floor(f / 3600)
            if h >= 10 then do inl_93, inl_94 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
            do inl_93, inl_94 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
          end
          do inl_93, inl_94 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:112-114
        until true local bin, fine = inl_93, inl_94
        local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
        local inl_95, inl_96, inl_97 repeat local total, mean, vk, v = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v
--@ lua/stats.lua:91-96
          if total == nil then do inl_95, inl_96, inl_97 = 1, v, 0 break end end
          mean, vk = mean or 0, vk or 0
          total = total + 1
          local old = mean
          mean = old + (v - old) / total
          do inl_95, inl_96, inl_97 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:114-124
        until true local total, mean, vk = inl_95, inl_96, inl_97
        rcall('HSET', k, 'total', total, 'mean', mean, 'vk', vk, bin, (tonumber(cur[4]) or 0) + 1)
        if total == 1 then M.Stats_expire(k, now, day) end
        local fk = 'ql:fine:' .. k
        local n = redis.pcall('HINCRBY', fk, fine, '1')
        if n == 1 then
          local ttl = rcall('TTL', k)
          if ttl > 0 then rcall('EXPIRE', fk, ttl) end
        elseif type(n) == 'table' then
          redis.pcall('HSET', fk, fine, '1')
        end
--@ lua/job/complete.lua:81-86
      until true
      rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
      if special and rcall('ZSCORE', 'ql:tracked', jid) then
        rcall('PUBLISH', 'ql:' .. 'completed', jid)
      end
      repeat local queue = queue
--@ lua/job/state.lua:15-18
        -- cfg false: the call found no config hash, so no queue has a cap. Config.number would
        -- say so too; asking here first spares building the field's name on every complete.
        if not queue or cfg == false then do break end end
        local inl_98 repeat local name, fallback = queue .. '-max-concurrency', 0
--@ lua/config.lua:29-30
          if cfg == false then do inl_98 = fallback break end end
          local inl_99 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_99 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_99 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_99
          local inl_100 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_100 = n break end end
            do inl_100 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_100
          if n == nil then do inl_98 = fallback break end end
          do inl_98 = n break end
--@ lua/job/state.lua:18-19
        until true local cap = inl_98
        if cap > 0 then repeat local queue = queue
--@ lua/wake.lua:9-14
          if not wake or wake == queue then
            wake = queue
            do break end
          end
          if type(wake) == 'string' then wake = { [wake] = true } end
          wake[queue] = true
--@ lua/job/state.lua:19-19
        until true end
--@ lua/job/complete.lua:86-91
      until true
      local retries = f[6] or 0
      if nextq ~= nil then
        rcall('PUBLISH', 'ql:' .. 'log',
          encode({ jid = jid, event = 'advanced', queue = queue, to = nextq }))
        repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"put"', '{"q":' .. encode(nextq) .. '}', false, whole
--@ lua/job/history.lua:36-42
          if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
          if legacy then M.Job_migrate(jid, legacy) end
          -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
          -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
          local entry
          if not whole then
            local inl_101 repeat local t, tstr = when
--@ lua/num.lua:21-22
              if tstr and t >= 0 and t < 1e14 then do inl_101 = tstr:sub(1, -22) break end end
              do inl_101 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
            until true whole = inl_101
          end
          if extra == nil then
            entry = '[' .. whole .. ',' .. what_json .. ']'
          else
            if type(extra) ~= 'string' then extra = encode(extra) end
            entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
          end
          local hk = 'ql:j:' .. jid .. '-history'
          local len = rcall('RPUSH', hk, entry)
          -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
          if len < 3 then do break end end
          local inl_102 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
            if cfg == false then do inl_102 = fallback break end end
            local inl_103 repeat local name = name
--@ lua/config.lua:15-22
              if cfg == false then do inl_103 = false break end end
              if cfg == nil then cfg = {} end
              local v = cfg[name]
              if v == nil then
                v = rcall('HGET', 'ql:config', name)
                cfg[name] = v
              end
              do inl_103 = v break end
--@ lua/config.lua:30-31
            until true local raw = inl_103
            local inl_104 repeat local v = raw
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_104 = n break end end
              do inl_104 = nil break end
--@ lua/config.lua:31-33
            until true local n = inl_104
            if n == nil then do inl_102 = fallback break end end
            do inl_102 = n break end
--@ lua/job/history.lua:54-67
          until true local cap = inl_102
          cap = floor(cap)
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
--@ lua/job/complete.lua:91-92
        until true
        local inl_105 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
          if now >= 1 then do inl_105 = tstr break end end
          do inl_105 = now break end
--@ lua/job/complete.lua:92-110
        until true local now_arg = inl_105
        rcall('ZADD', 'ql:queues', 'NX', now_arg, nextq)
        rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'waiting', 'worker', '',
          'failure', '{}', 'queue', nextq, 'expires', '0', 'remaining', retries)
        if delay > 0 and (depends == nil or #depends == 0) then
          rcall('ZADD', 'ql:q:' .. nextq .. '-scheduled', now + delay, jid)
          do inl_82 = 'scheduled' break end
        end
        local linked = 0
        for _, d in ipairs(depends or {}) do
          if M.Job_link(jid, d) then linked = linked + 1 end
        end
        if linked > 0 then
          rcall('ZADD', 'ql:q:' .. nextq .. '-depends', now, jid)
          rcall('HSET', jk, 'state', 'depends')
          if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
          do inl_82 = 'depends' break end
        end
        repeat local queue, jid, priority, t = nextq, jid, tonumber(f[7]) or 0, now
--@ lua/job/state.lua:7-9
          local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
          rcall('ZADD', 'ql:q:' .. queue .. '-work', score, jid)
          repeat local queue = queue
--@ lua/wake.lua:9-14
            if not wake or wake == queue then
              wake = queue
              do break end
            end
            if type(wake) == 'string' then wake = { [wake] = true } end
            wake[queue] = true
--@ lua/job/state.lua:9-9
          until true
--@ lua/job/complete.lua:110-117
        until true
        do inl_82 = 'waiting' break end
      end
      rcall('PUBLISH', 'ql:' .. 'log',
        '{"jid":' .. encode(jid) .. ',"event":"completed","queue":' .. encode(queue) .. '}')
      rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'complete', 'worker', '',
        'failure', '{}', 'queue', '', 'expires', '0', 'remaining', retries)
      local inl_106 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
        if now >= 1 then do inl_106 = tstr break end end
        do inl_106 = now break end
--@ lua/job/complete.lua:117-119
      until true local now_arg = inl_106
      rcall('ZADD', 'ql:completed', now_arg, jid)
      repeat local now = now
--@ lua/job/complete.lua:131-131
        local inl_107 repeat local name, fallback = 'jobs-history', 604800
--@ lua/config.lua:29-30
          if cfg == false then do inl_107 = fallback break end end
          local inl_108 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_108 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_108 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_108
          local inl_109 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_109 = n break end end
            do inl_109 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_109
          if n == nil then do inl_107 = fallback break end end
          do inl_107 = n break end
--@ lua/job/complete.lua:131-132
        until true local age = inl_107
        local inl_110 repeat local name, fallback = 'jobs-history-count', 50000
--@ lua/config.lua:29-30
          if cfg == false then do inl_110 = fallback break end end
          local inl_111 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_111 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_111 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_111
          local inl_112 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_112 = n break end end
            do inl_112 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_112
          if n == nil then do inl_110 = fallback break end end
          do inl_110 = n break end
--@ lua/job/complete.lua:132-146
        until true local keep = inl_110
        keep = floor(keep)
        local old = rcall('ZRANGEBYSCORE', 'ql:completed', '0', now - age, 'LIMIT', '0', '100')
        if #old > 0 then
          for _, j in ipairs(old) do M.Job_delete(j) end
          rcall('ZREM', 'ql:completed', unpack(old))
        end
        -- ZRANGE 0 .. -N-1: everything but the newest N; a negative N reaches only the -N oldest.
        local card = rcall('ZCARD', 'ql:completed')
        local excess = keep >= 0 and card - keep or math.min(card, -keep)
        if excess > 0 then
          if excess > 100 then excess = 100 end
          for _, j in ipairs(rcall('ZRANGE', 'ql:completed', 0, excess - 1)) do M.Job_delete(j) end
          rcall('ZREMRANGEBYRANK', 'ql:completed', 0, excess - 1)
        end
--@ lua/job/complete.lua:119-124
      until true
      if special then
        local dependents = rcall('SMEMBERS', dk)
        if #dependents > 0 then M.Job_release_dependents(now, jid, dependents) end
      end
      do inl_82 = 'complete' break end
--@ lua/api.lua:57-59
    until true result = inl_82
  elseif cmd == 'heartbeat' then
    local inl_113 repeat local now = now
--@ lua/job/lease.lua:10-17
      local jid, worker, data = A[3], A[4], A[5]
      if jid == nil then error('Job(): no jid provided') end
      if worker == nil then error('Heatbeat(): Arg "worker" missing') end
      local decoded
      if data ~= nil then decoded = decode(data) end
      local f = rcall('HMGET', 'ql:j:' .. jid, 'worker', 'state', 'queue')
      local queue = f[3] or ''
      local inl_114 repeat local queue = queue
--@ lua/config.lua:39-39
        local inl_115 repeat local name = queue .. '-heartbeat'
--@ lua/config.lua:15-22
          if cfg == false then do inl_115 = false break end end
          if cfg == nil then cfg = {} end
          local v = cfg[name]
          if v == nil then
            v = rcall('HGET', 'ql:config', name)
            cfg[name] = v
          end
          do inl_115 = v break end
--@ lua/config.lua:39-40
        until true local raw = inl_115
        local inl_116 repeat local v = raw
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_116 = n break end end
          do inl_116 = nil break end
--@ lua/config.lua:40-42
        until true local n = inl_116
        if n ~= nil then do inl_114 = n break end end
        do local inl_117 repeat local name, fallback = 'heartbeat', 60
--@ lua/config.lua:29-30
          if cfg == false then do inl_117 = fallback break end end
          local inl_118 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_118 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_118 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_118
          local inl_119 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_119 = n break end end
            do inl_119 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_119
          if n == nil then do inl_117 = fallback break end end
          do inl_117 = n break end
--@ lua/config.lua:42-42
        until true inl_114 = inl_117 break end
--@ lua/job/lease.lua:17-35
      until true local lock = inl_114
      local expires = now + lock
      if not f[1] then error('Heartbeat(): Job ' .. jid .. ' does not exist') end
      if f[2] ~= 'running' then
        error('Heartbeat(): Job ' .. jid .. ' not currently running: ' .. tostring(f[2]))
      end
      if f[1] ~= worker or f[1] == '' then
        error('Heartbeat(): Job ' .. jid .. ' given out to another worker: ' .. f[1])
      end
      local jk = 'ql:j:' .. jid
      if decoded ~= nil and decoded ~= false then
        rcall('HSET', jk, 'expires', expires, 'worker', worker, 'data', encode(decoded))
      else
        rcall('HSET', jk, 'expires', expires, 'worker', worker)
      end
      rcall('ZADD', 'ql:w:' .. worker .. ':jobs', expires, jid)
      rcall('ZADD', 'ql:workers', now, worker)
      rcall('ZADD', 'ql:q:' .. queue .. '-locks', expires, jid)
      do inl_113 = expires break end
--@ lua/api.lua:59-61
    until true result = inl_113
  elseif cmd == 'fail' then
    local inl_120 repeat local now = now
--@ lua/job/fail_retry.lua:11-28
      local jid, worker, group, message, data = A[3], A[4], A[5], A[6], A[7]
      if jid == nil then error('Job(): no jid provided') end
      if worker == nil then error('Fail(): Arg "worker" missing') end
      if group == nil then error('Fail(): Arg "group" missing') end
      if message == nil then error('Fail(): Arg "message" missing') end
      local decoded
      if data ~= nil then decoded = decode(data) end
      local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'worker', 'queue', 'history')
      local state, queue = f[1], f[3]
      if not state then error('Fail(): Job ' .. jid .. 'does not exist') end
      if state ~= 'running' then error('Fail(): Job ' .. jid .. 'not currently running: ' .. state) end
      if f[2] ~= worker then
        error('Fail(): Job ' .. jid .. ' running with another worker: ' .. tostring(f[2]))
      end
      queue = queue or ''
      rcall('PUBLISH', 'ql:' .. 'log', encode({ jid = jid, event = 'failed', worker = worker,
        group = group, message = message }))
      repeat local jid, channel, tracked = jid, 'failed'
--@ lua/job/fields.lua:31-32
        if tracked == nil then
          local inl_121 repeat local jid = jid
--@ lua/job/fields.lua:26-26
           do inl_121 = rcall('ZSCORE', 'ql:tracked', jid) ~= false break end
--@ lua/job/fields.lua:32-34
          until true tracked = inl_121
        end
        if tracked then rcall('PUBLISH', 'ql:' .. channel, jid) end
--@ lua/job/fail_retry.lua:28-30
      until true
      rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
      repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"failed"', { worker = worker, group = group }, f[4] or false
--@ lua/job/history.lua:36-42
        if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
        if legacy then M.Job_migrate(jid, legacy) end
        -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
        -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
        local entry
        if not whole then
          local inl_122 repeat local t, tstr = when
--@ lua/num.lua:21-22
            if tstr and t >= 0 and t < 1e14 then do inl_122 = tstr:sub(1, -22) break end end
            do inl_122 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
          until true whole = inl_122
        end
        if extra == nil then
          entry = '[' .. whole .. ',' .. what_json .. ']'
        else
          if type(extra) ~= 'string' then extra = encode(extra) end
          entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
        end
        local hk = 'ql:j:' .. jid .. '-history'
        local len = rcall('RPUSH', hk, entry)
        -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
        if len < 3 then do break end end
        local inl_123 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
          if cfg == false then do inl_123 = fallback break end end
          local inl_124 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_124 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_124 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_124
          local inl_125 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_125 = n break end end
            do inl_125 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_125
          if n == nil then do inl_123 = fallback break end end
          do inl_123 = n break end
--@ lua/job/history.lua:54-67
        until true local cap = inl_123
        cap = floor(cap)
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
--@ lua/job/fail_retry.lua:30-31
      until true
      repeat local now, when, queue, field, by, field2, by2 = now, now, queue, 'failures', 1, 'failed', 1
--@ lua/stats.lua:182-182
        local inl_126 repeat local t = when
--@ lua/stats.lua:22-22
         do inl_126 = t - (t % 86400) break end
--@ lua/stats.lua:182-183
        until true local day = inl_126
        local inl_127 repeat local kind, day, queue = 'stats', day, queue
--@ lua/stats.lua:29-32
          if day >= 1 and day < 1e14 then
            do inl_127 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
          end
          do inl_127 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:183-186
        until true local k = inl_127
        rcall('HINCRBY', k, field, by)
        if field2 then rcall('HINCRBY', k, field2, by2) end
        M.Stats_expire(k, now, day)
--@ lua/job/fail_retry.lua:31-32
      until true
      repeat local queue, jid, exist = queue, jid
--@ lua/queue.lua:53-56
        local qk = 'ql:q:' .. queue
        rcall('ZREM', qk .. '-locks', jid)
        if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
        if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
--@ lua/job/fail_retry.lua:32-33
      until true
      repeat local queue = queue
--@ lua/job/state.lua:15-18
        -- cfg false: the call found no config hash, so no queue has a cap. Config.number would
        -- say so too; asking here first spares building the field's name on every complete.
        if not queue or cfg == false then do break end end
        local inl_128 repeat local name, fallback = queue .. '-max-concurrency', 0
--@ lua/config.lua:29-30
          if cfg == false then do inl_128 = fallback break end end
          local inl_129 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_129 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_129 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_129
          local inl_130 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_130 = n break end end
            do inl_130 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_130
          if n == nil then do inl_128 = fallback break end end
          do inl_128 = n break end
--@ lua/job/state.lua:18-19
        until true local cap = inl_128
        if cap > 0 then repeat local queue = queue
--@ lua/wake.lua:9-14
          if not wake or wake == queue then
            wake = queue
            do break end
          end
          if type(wake) == 'string' then wake = { [wake] = true } end
          wake[queue] = true
--@ lua/job/state.lua:19-19
        until true end
--@ lua/job/fail_retry.lua:33-36
      until true
      if decoded ~= nil and decoded ~= false then rcall('HSET', 'ql:j:' .. jid, 'data', encode(decoded)) end
      repeat local jid, group, failure = jid, group,
        { group = group, message = message, when = floor(now), worker = worker }
--@ lua/job/state.lua:33-36
        rcall('HSET', 'ql:j:' .. jid, 'state', 'failed', 'worker', '', 'expires', '',
          'failure', encode(failure))
        rcall('SADD', 'ql:failures', group)
        rcall('LPUSH', 'ql:f:' .. group, jid)
--@ lua/job/fail_retry.lua:36-37
      until true
      do inl_120 = jid break end
--@ lua/api.lua:61-63
    until true result = inl_120
  elseif cmd == 'retry' then
    local inl_131 repeat local now = now
--@ lua/job/fail_retry.lua:48-54
      local jid, queue, worker, delay_s, group, message = A[3], A[4], A[5], A[6], A[7], A[8]
      if jid == nil then error('Job(): no jid provided') end
      if queue == nil then error('Retry(): Arg "queue" missing') end
      if worker == nil then error('Retry(): Arg "worker" missing') end
      local delay = 0
      if delay_s ~= nil then
        local inl_132 repeat local v = delay_s
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_132 = n break end end
          do inl_132 = nil break end
--@ lua/job/fail_retry.lua:54-72
        until true delay = inl_132
        if delay == nil then error('Retry(): Arg "delay" not a number: ' .. delay_s) end
      end
      local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'worker', 'queue', 'priority', 'history')
      local state = f[1]
      if not state then error('Retry(): Job ' .. jid .. ' does not exist') end
      if state ~= 'running' then
        error('Retry(): Job ' .. jid .. ' is not currently running: ' .. state)
      end
      if f[2] ~= worker then
        error('Retry(): Job ' .. jid .. ' has been given to another worker: ' .. tostring(f[2]))
      end
      local jk = 'ql:j:' .. jid
      -- HINCRBYFLOAT: a fractional budget (retries 2.5) must not make this fail.
      local remaining = tonumber(rcall('HINCRBYFLOAT', jk, 'remaining', -1))
      rcall('HDEL', jk, 'grace')
      rcall('ZREM', 'ql:q:' .. (f[3] or '') .. '-locks', jid)
      rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
      repeat local queue = f[3]
--@ lua/job/state.lua:15-18
        -- cfg false: the call found no config hash, so no queue has a cap. Config.number would
        -- say so too; asking here first spares building the field's name on every complete.
        if not queue or cfg == false then do break end end
        local inl_133 repeat local name, fallback = queue .. '-max-concurrency', 0
--@ lua/config.lua:29-30
          if cfg == false then do inl_133 = fallback break end end
          local inl_134 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_134 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_134 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_134
          local inl_135 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_135 = n break end end
            do inl_135 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_135
          if n == nil then do inl_133 = fallback break end end
          do inl_133 = n break end
--@ lua/job/state.lua:18-19
        until true local cap = inl_133
        if cap > 0 then repeat local queue = queue
--@ lua/wake.lua:9-14
          if not wake or wake == queue then
            wake = queue
            do break end
          end
          if type(wake) == 'string' then wake = { [wake] = true } end
          wake[queue] = true
--@ lua/job/state.lua:19-19
        until true end
--@ lua/job/fail_retry.lua:72-75
      until true
      if remaining < 0 then
        group = group or ('failed-retries-' .. queue)
        repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"failed"', { group = group }, f[5] or false
--@ lua/job/history.lua:36-42
          if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
          if legacy then M.Job_migrate(jid, legacy) end
          -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
          -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
          local entry
          if not whole then
            local inl_136 repeat local t, tstr = when
--@ lua/num.lua:21-22
              if tstr and t >= 0 and t < 1e14 then do inl_136 = tstr:sub(1, -22) break end end
              do inl_136 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
            until true whole = inl_136
          end
          if extra == nil then
            entry = '[' .. whole .. ',' .. what_json .. ']'
          else
            if type(extra) ~= 'string' then extra = encode(extra) end
            entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
          end
          local hk = 'ql:j:' .. jid .. '-history'
          local len = rcall('RPUSH', hk, entry)
          -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
          if len < 3 then do break end end
          local inl_137 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
            if cfg == false then do inl_137 = fallback break end end
            local inl_138 repeat local name = name
--@ lua/config.lua:15-22
              if cfg == false then do inl_138 = false break end end
              if cfg == nil then cfg = {} end
              local v = cfg[name]
              if v == nil then
                v = rcall('HGET', 'ql:config', name)
                cfg[name] = v
              end
              do inl_138 = v break end
--@ lua/config.lua:30-31
            until true local raw = inl_138
            local inl_139 repeat local v = raw
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_139 = n break end end
              do inl_139 = nil break end
--@ lua/config.lua:31-33
            until true local n = inl_139
            if n == nil then do inl_137 = fallback break end end
            do inl_137 = n break end
--@ lua/job/history.lua:54-67
          until true local cap = inl_137
          cap = floor(cap)
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
--@ lua/job/fail_retry.lua:75-83
        until true
        local failure
        if message ~= nil then
          failure = { group = group, message = message, when = floor(now), worker = worker }
        else
          failure = { group = group, worker = '', when = now,
            message = 'Job exhausted retries in queue "' .. tostring(f[3]) .. '"' }
        end
        repeat local jid, channel, tracked = jid, 'failed'
--@ lua/job/fields.lua:31-32
          if tracked == nil then
            local inl_140 repeat local jid = jid
--@ lua/job/fields.lua:26-26
             do inl_140 = rcall('ZSCORE', 'ql:tracked', jid) ~= false break end
--@ lua/job/fields.lua:32-34
            until true tracked = inl_140
          end
          if tracked then rcall('PUBLISH', 'ql:' .. channel, jid) end
--@ lua/job/fail_retry.lua:83-84
        until true
        repeat local jid, group, failure = jid, group, failure
--@ lua/job/state.lua:33-36
          rcall('HSET', 'ql:j:' .. jid, 'state', 'failed', 'worker', '', 'expires', '',
            'failure', encode(failure))
          rcall('SADD', 'ql:failures', group)
          rcall('LPUSH', 'ql:f:' .. group, jid)
--@ lua/job/fail_retry.lua:84-85
        until true
        repeat local now, when, queue, field, by, field2, by2 = now, now, queue, 'failures', 1, 'failed', 1
--@ lua/stats.lua:182-182
          local inl_141 repeat local t = when
--@ lua/stats.lua:22-22
           do inl_141 = t - (t % 86400) break end
--@ lua/stats.lua:182-183
          until true local day = inl_141
          local inl_142 repeat local kind, day, queue = 'stats', day, queue
--@ lua/stats.lua:29-32
            if day >= 1 and day < 1e14 then
              do inl_142 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
            end
            do inl_142 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:183-186
          until true local k = inl_142
          rcall('HINCRBY', k, field, by)
          if field2 then rcall('HINCRBY', k, field2, by2) end
          M.Stats_expire(k, now, day)
--@ lua/job/fail_retry.lua:85-91
        until true
      else
        if delay > 0 then
          rcall('ZADD', 'ql:q:' .. queue .. '-scheduled', now + delay, jid)
          rcall('HSET', jk, 'state', 'scheduled')
        else
          repeat local queue, jid, priority, t = queue, jid, tonumber(f[4]) or 0, now
--@ lua/job/state.lua:7-9
            local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
            rcall('ZADD', 'ql:q:' .. queue .. '-work', score, jid)
            repeat local queue = queue
--@ lua/wake.lua:9-14
              if not wake or wake == queue then
                wake = queue
                do break end
              end
              if type(wake) == 'string' then wake = { [wake] = true } end
              wake[queue] = true
--@ lua/job/state.lua:9-9
            until true
--@ lua/job/fail_retry.lua:91-99
          until true
          rcall('HSET', jk, 'state', 'waiting')
        end
        if group ~= nil and message ~= nil then
          rcall('HSET', jk, 'failure',
            encode({ group = group, message = message, when = floor(now), worker = worker }))
        end
      end
      do inl_131 = floor(remaining) break end
--@ lua/api.lua:63-68
    until true result = inl_131
  else
    fast = false
  end
  if fast then
    repeat
--@ lua/wake.lua:25-27
      if not wake then do break end end
      if type(wake) == 'string' then
        repeat local queue = wake
--@ lua/wake.lua:19-19
          rcall('PUBLISH', 'qlpy:wake:' .. queue, queue)
--@ lua/wake.lua:27-31
        until true
        do break end
      end
      for q in pairs(wake) do
        repeat local queue = q
--@ lua/wake.lua:19-19
          rcall('PUBLISH', 'qlpy:wake:' .. queue, queue)
--@ lua/wake.lua:31-32
        until true
      end
--@ lua/api.lua:68-79
    until true
    return result
  end
end

if #KEYS > 0 then error('No Keys should be provided') end
local cmd = A[1]
if cmd == nil then error('Must provide a command') end
local command = M['Api_' .. (cmd)]
if not command then error('Unknown command ' .. cmd) end
if #A < 2 then error("bad argument #1 to 'tonumber' (value expected)") end
local inl_143 repeat local v = A[2]
--@ lua/num.lua:6-9
  local n = tonumber(v)
  -- n - n is 0 for every finite number, and nan for nan and for +-inf.
  if n and n - n == 0 then do inl_143 = n break end end
  do inl_143 = nil break end
--@ lua/api.lua:79-82
until true local now = inl_143
if now == nil then error('Arg "now" missing or not a number: nil') end
local result = command(now)
repeat
--@ lua/wake.lua:25-27
  if not wake then do break end end
  if type(wake) == 'string' then
    repeat local queue = wake
--@ lua/wake.lua:19-19
      rcall('PUBLISH', 'qlpy:wake:' .. queue, queue)
--@ lua/wake.lua:27-31
    until true
    do break end
  end
  for q in pairs(wake) do
    repeat local queue = q
--@ lua/wake.lua:19-19
      rcall('PUBLISH', 'qlpy:wake:' .. queue, queue)
--@ lua/wake.lua:31-32
    until true
  end
--@ lua/api.lua:82-83
until true
return result
