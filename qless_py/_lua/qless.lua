-- Built by scripts/build_lua.py from lua/**/*.lua: do not edit. A line
-- `--@ lua/<file>:<a>-<b>` says that the lines after it are lines a..b of that file;
-- `python -m qless_py.lua --where 'user_script:<n>'` finds the source of line n.

-- The default namespace: no key, as every qless client calls it; keys are `ql:...`.
if #KEYS == 0 then
--@ lua/prelude.lua:1-56
-- qless_py Lua core: the shared locals every file uses. Built into one script by
-- scripts/build_lua.py (read its docstring for what the build does to these sources).
--
-- Called as EVALSHA <sha> 0 <command> <now> <args...> (or with one key, a namespace's
-- prefix: scripts/build_lua.py builds the body for both). Positional argument n of a
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
local M = {}  -- Api, Check, Config, Expire, Job, Json, Num, Order, Queue, Recur, Remote, Stats, Tags, Throttle, Track, Worker: see define()
--   Throttle, Track, Worker = {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}

-- Per-call state, made only when a call needs it: `cfg` holds the configuration values
-- already read (false: the call knows the config hash does not exist).
local cfg

-- Key names: the only place they are spelled. Job keys are key.job .. jid (.. suffix),
-- queue keys key.queue .. queue .. suffix, worker keys key.worker .. worker (.. key.jobs),
-- statistics hashes key.stats .. kind .. ':' .. day .. ':' .. queue, the fine histograms
-- (extension) key.fine followed by the name of a wait or run hash. Throttle keys are
-- key.throttle .. tid (.. suffix); a queue's own throttle has the tid key.queue .. queue.
-- An ordering key's set is key.queue .. queue .. key.order .. name.
-- local key = {
--   config = 'ql:config', queues = 'ql:queues', paused = 'ql:paused_queues',
--   workers = 'ql:workers', tracked = 'ql:tracked', tags = 'ql:tags',
--   failures = 'ql:failures', completed = 'ql:completed',
--   job = 'ql:j:', history = '-history', dependencies = '-dependencies', dependents = '-dependents',
--   queue = 'ql:q:', work = '-work', locks = '-locks', scheduled = '-scheduled',
--   depends = '-depends', recurring = '-recur',
--   worker = 'ql:w:', jobs = ':jobs', tag = 'ql:t:', failure_group = 'ql:f:', recur = 'ql:r:',
--   stats = 'ql:s:', channel = 'ql:', fine = 'ql:fine:',
--   throttle = 'ql:th:', pending = '-pending', ready = '-ready', throttled = '-throttled',
--   order = '-key:', expiring = '-expiring',
--   -- qless_py's own keys (not the protocol's): the last check's summary (qlpy.check), and a
--   -- sharded namespace's number of shards, in its base namespace (written by its clients).
--   check = 'ql:check', shards = 'ql:shards',
--   -- ... and what one namespace owes another (lua/remote.lua): the outbox, its messages
--   -- being relayed, its message counter, the hand-offs applied here, and a job's releases
--   -- that came before the job (key.job .. jid .. key.released).
--   outbox = 'ql:outbox', outbox_taken = 'ql:outbox-taken', outbox_seq = 'ql:outbox-seq',
--   applied = 'ql:applied', released = '-released',
-- }

--@ lua/check.lua:1-27
-- Checking and repairing the data (extension, docs/protocol.md "Checking the data"):
-- qlpy.check walks the keyspace in bounded steps and reports every broken invariant it
-- meets; qlpy.repair checks one finding again and fixes it the way the core would have.
-- A finding is { invariant, key, member, detail, repair }: `key` is the key it is about
-- (a job's hash for the job's own invariants), `member` the member, set or dependency
-- concerned ('' when none), `repair` what qlpy.repair does ('' when it leaves it alone).
--
-- A step is bounded by the server calls it makes, and it makes few, and little garbage:
-- the server runs a step of the Lua collector inside every call that allocates (and after
-- every 50th script call), and those steps, longer the bigger the heap, were most of a
-- check step's longest calls (docs/performance.md, "Check and memory per job"). So a step
-- asks each queue's facts once (`cx.q`), reads no set it only needs to know is empty,
-- builds no table or key name per key or member that it can do without, and makes a
-- finding's strings only when there is a finding.

-- Server calls per step when the caller gives none: BUDGET where the server lends
-- scripts a clock (os.clock, the server's CPU time: Valkey, Redis 8), and then a step also
-- ends once it has run for STEP_S seconds (the clock read every TIME_EVERY calls),
-- whichever comes first; BUDGET_NO_CLOCK on Redis 6.2 and 7, where the count alone bounds
-- a step. The calls a job or a set member needs vary, and a count of 40 alone let some
-- steps run three times the median (docs/performance.md, "Check and memory per job").
-- local BUDGET = 40
-- local BUDGET_NO_CLOCK = 25
-- local STEP_S = 0.0003
-- local TIME_EVERY = 4
-- local SCAN_MAX = 10

--@ lua/check.lua:437-437
-- The invariants of key `k` as a whole (`d` its classification). Returns the units spent.

--@ lua/config.lua:1-2
-- Configuration: ql:config overrides over built-in defaults (protocol section 7), read
-- once per call.

--@ lua/expiry.lua:1-9
-- Expiring jobs (extension, docs/protocol.md "Expiring jobs"): a job put with a ttl must
-- start within ttl seconds of becoming ready to run, or the core removes it as cancel would
-- and publishes `expired`. key.queue .. queue .. key.expiring holds the queue's jobs that
-- have such a deadline and have not started, scored by the deadline. The listings, peek
-- and a pop that comes up short or meets a due job remove the due ones, at most REAP per
-- call; pop and the gate check a job's own deadline before they let it on, so that a due
-- job never starts however many expire at once.

-- local REAP = 25

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

--@ lua/job/fields.lua:1-8
-- The job hash: its field layout, the one read of every field, its tags, whether it is
-- tracked, and the tracked-job events.

-- Field order of Job.fetch; the indexes below name the positions.
-- local F_JID, F_KLASS, F_STATE, F_QUEUE, F_WORKER, F_PRIORITY, F_EXPIRES = 1, 2, 3, 4, 5, 6, 7
-- local F_RETRIES, F_REMAINING, F_DATA, F_TAGS, F_FAILURE, F_SPAWNED, F_HISTORY, F_TIME =
--   8, 9, 10, 11, 12, 13, 14, 15
-- local F_THROTTLES, F_KEY, F_TTL = 16, 17, 18

--@ lua/job/gate.lua:1-5
-- The gate a job passes when it becomes ready to run (put without delay, end of a delay,
-- last dependency released, retry, timeout, unfail, advance, spawn): its ordering key and
-- its named throttles decide whether it goes into the work set or waits as `throttled`,
-- and a ttl starts its deadline. Jobs without key, throttles or ttl never come here: their
-- callers enqueue them directly (Job.enqueue).

--@ lua/job/giveback.lua:1-1
-- qlpy.giveback: a worker hands a job it holds back to its queue (extension, not qless's).

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

--@ lua/job/put_many.lua:1-5
-- qlpy.put_many: many puts into one queue in one call (extension, docs/protocol.md).

-- Seconds between the puts of one call: well above the work-set score's resolution (about
-- 3e-7 s of time at today's clock), so that jobs of equal priority keep batch order.
-- local STEP = 0.00001

--@ lua/job/render.lua:1-1
-- The job object (protocol 2.10) as JSON text, and the commands that return it.

--@ lua/job/state.lua:1-2
-- Steps of a job's state changes that several commands share: entering a queue's work
-- set, leaving a running slot, parking in a failure group.

--@ lua/json.lua:1-1
-- JSON texts written by hand, exactly as cjson would write them, where that is cheaper.

--@ lua/num.lua:1-1
-- Numbers: parsing arguments, and writing numbers as the exact texts Redis and Lua would.

--@ lua/ordering.lua:1-9
-- Ordering keys (extension, docs/protocol.md "Ordering keys"): the jobs of one queue that
-- share a key run one at a time, in the order they were put. key.queue .. queue ..
-- key.order .. name holds the key's unfinished jobs, scored 1, 2, 3, ... in put order. Only
-- the first (the head) may run; it stays the head through retries, lost locks and
-- timeouts, and gives way when it completes, advances, fails, is cancelled, expires or is
-- put again. A job behind the head waits in state `throttled`.

-- Stale heads dropped per look (a head whose job is gone or finished without a release).
-- local STALE = 5

--@ lua/pop.lua:1-5
-- pop: hand waiting jobs to a worker, with the queue's caps (max-concurrency, its own
-- throttle), the jobs' named throttles and deadlines checked on the way.

-- Rounds a pop takes beyond the first when it met only expired jobs.
-- local EXPIRED_ROUNDS = 5

--@ lua/queue.lua:1-1
-- Queues: peek, counts, listings, pause, forget; the P-PROMOTE / P-RECLAIM steps pop.lua shares.

--@ lua/recurring.lua:1-1
-- Recurring templates: recur, unrecur, recur.get, recur.update, recur.tag/untag, P-SPAWN.

--@ lua/remote.lua:1-12
-- Dependencies and hand-offs between namespaces (docs/protocol.md, "Across namespaces").
--
-- A namespace cannot write another's keys in one call (on a cluster they are on another
-- node), so what one namespace owes another goes through its outbox: a list of messages
-- that a relay (any qless_py worker serving the namespace) takes, applies to the other
-- namespace, then acknowledges. Applying is idempotent, so a message applied twice (the
-- relay died before its acknowledgement) changes nothing the second time.
--
-- A namespace is named by its key prefix (key.channel: 'ql:' or 'ql:{<name>}:'). A remote
-- member of a set starts with byte 1, then JSON {"p": prefix, "jid": jid}: in a job's
-- dependencies set, a job of another namespace it waits for; in its dependents set, a job
-- of another namespace waiting for it. Local members are jids, as always.

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

--@ lua/throttle.lua:1-16
-- Throttles, the qless throttle dialect (docs/protocol.md, "Throttles"): named counters of
-- locks with a maximum. A job's `throttles` field lists the tids it needs, its queue's own
-- tid (key.queue .. queue) last. The named throttles are the others: the queue's own
-- throttle gates pop as a whole (Queue.pop counts the queue's running jobs), so it never
-- makes one job wait.
--
-- Beside the dialect's keys (hash, -locks, -pending), ql:th:<tid>-ready holds the jobs let
-- into a work set on the throttle's account that no pop has taken yet: a throttle lets no
-- more jobs into the work set than it has room for (locks + ready < maximum), so the work
-- set never fills with jobs that cannot run. Pop checks the room again before it takes a
-- lock, so a job that was not let in (a dialect core's, a reclaimed one) cannot take room
-- promised to others, and locks never outnumber the maximum.

-- Jobs handed out per release (the dialect's 10 for an unlimited throttle is too few to
-- drain a throttle that was deleted or raised), and entries checked per recovery.
-- local HAND_OUT, VERIFY = 100, 3

--@ lua/track.lua:1-1
-- Tracking: the track listing and track/untrack.

--@ lua/worker.lua:1-1
-- Workers: the registry listing and deregistration.


-- Module functions: M's __index creates each on its first use in a call.
local function define(M, name)
  local rcall = redis.call
  local encode, decode = cjson.encode, cjson.decode
  local floor = math.floor
  local format, concat = string.format, table.concat
  local A = ARGV
  local name_len = #name
  if name_len < 15 then
    if name_len < 11 then
      if name_len < 9 then
        if name_len < 8 then
          if name_len == 7 then
            if name == 'Job_log' then
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
            elseif name == 'Job_put' then
--@ lua/job/put.lua:11-48
-- put <now> <worker> <queue> <jid> <klass> <data> <delay> [priority p] [tags t] [retries r]
--     [depends d] [throttles t] [key k] [ttl s] [unique 0|1]
-- Reply: the jid; with unique 1, nil when a job with this jid exists and is not complete
-- (nothing is written then). Events: ql:log put; ql:w:<old> + ql:log lock_lost when taken
-- from another worker; ql:put (tracked). Every argument is validated before the first write
-- (the reference detaches the old tags before checking retries/tags/priority/depends).
-- `throttles`, `key` and `ttl` are the extensions of docs/protocol.md; a put sets them
-- afresh (a job put again without them has none), and a put of a job that is in another
-- queue drops that queue's tid from the `throttles` it is given (a move, as the dialect's).
-- Errors: Queue(): no queue name provided / Put(): Arg "jid" missing / Put(): Arg "klass"
-- missing / Put(): Arg "data" missing or not JSON: <x> / Put(): Arg "delay" not a number: <x>
-- / Odd number of additional args / Put(): Arg "retries" not a number: <x> / Put(): Arg
-- "tags" not JSON<x> / Put(): Arg "priority" not a number<x> / Put(): Arg "depends" not JSON:
-- <x> / Put(): Arg "throttles" not JSON array: <x> / Put(): Arg "key" is empty / Put(): Arg
-- "ttl" not a number: <x> / Put(): Arg "ttl" must be greater than 0: <x> / Put(): Arg
-- "unique" must be 0 or 1: <x>; requeue first: Job(): no jid provided / Requeue(): Job
-- <jid> does not exist
--@inline
function M.Job_put(now, requeue)
  local worker, queue, jid, klass, data, delay_s = A[3], A[4], A[5], A[6], A[7], A[8]
  if requeue then
    if jid == nil then error('Job(): no jid provided') end
    if rcall('EXISTS', 'ql:j:' .. jid) == 0 then
      error('Requeue(): Job ' .. jid .. ' does not exist')
    end
  end
  local n = #A
  if n == 8 then
    -- No options (the common put): nothing to parse, and no values to pass along.
    local delay = M.Job_put_check(queue, jid, klass, data, delay_s)
    return M.Job_put_write(now, worker, queue, jid, klass, data, delay, nil, nil, nil, false,
      nil, nil, nil, false, nil, nil)
  end
  local delay, retries, tags, priority, depends, throttles, okey, ttl, unique =
    M.Job_put_args(queue, jid, klass, data, delay_s, 9, n)
  return M.Job_put_write(now, worker, queue, jid, klass, data, delay, retries, tags, priority,
    depends, throttles, okey, ttl, unique, nil, nil)
end
            elseif name == 'Job_get' then
--@ lua/job/render.lua:158-163
-- get <now> <jid>: the job object, or nil. Error: Job(): no jid provided
function M.Job_get(now)
  local jid = A[3]
  if jid == nil then error('Job(): no jid provided') end
  return M.Job_render(jid) or false
end
            elseif name == 'Api_get' then
--@ lua/api.lua:3-3
M['Api_get'] = M.Job_get
            elseif name == 'Api_tag' then
--@ lua/api.lua:18-18
M['Api_tag'] = M.Tags_tag
            elseif name == 'Api_log' then
--@ lua/api.lua:21-21
M['Api_log'] = M.Job_log
            elseif name == 'Api_pop' then
--@ lua/api.lua:23-23
M['Api_pop'] = M.Queue_pop
            elseif name == 'Api_put' then
--@ lua/api.lua:28-28
M['Api_put'] = M.Job_put
            end
          end
        else
          if name_len == 8 then
            if name == 'Job_link' then
--@ lua/job/depends.lua:3-19
-- Record that job `jid` waits for `dep` when `dep` exists and is not complete.
function M.Job_link(jid, dep)
  if M.Remote_is(dep) then
    -- A job of another namespace, registered there (lua/remote.lua): waited for unless
    -- its release came first.
    if M.Remote_early(jid, dep) then return false end
    rcall('SADD', 'ql:j:' .. jid .. '-dependencies', dep)
    return true
  end
  local st = rcall('HGET', 'ql:j:' .. dep, 'state')
  if st and st ~= 'complete' then
    rcall('SADD', 'ql:j:' .. jid .. '-dependencies', dep)
    rcall('SADD', 'ql:j:' .. dep .. '-dependents', jid)
    return true
  end
  return false
end
            elseif name == 'Job_fail' then
--@ lua/job/fail_retry.lua:3-40
-- fail <now> <jid> <worker> <group> <message> [data]
-- Reply: the jid. Events: ql:log failed, then ql:failed (tracked). The job gives back its
-- throttles and its ordering key's turn.
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
  local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'worker', 'queue', 'history', 'throttles',
    'key')
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
  if f[5] or f[6] then M.Job_leave(now, jid, queue, f[5], f[6] or nil) end
  if decoded ~= nil and decoded ~= false then rcall('HSET', 'ql:j:' .. jid, 'data', encode(decoded)) end
  M.Job_park_failed(jid, group,
    { group = group, message = message, when = floor(now), worker = worker })
  return jid
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
            elseif name == 'Json_str' then
--@ lua/json.lua:3-9
-- A JSON string for `v`, or the literal false for a missing value (cjson's rendering of a
-- missing hash field that was copied into an object).
--@inline
function M.Json_str(v)
  if v == false or v == nil then return 'false' end
  return encode(v)
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
            elseif name == 'Api_fail' then
--@ lua/api.lua:11-11
M['Api_fail'] = M.Job_fail
            elseif name == 'Api_jobs' then
--@ lua/api.lua:12-12
M['Api_jobs'] = M.Queue_jobs
            elseif name == 'Api_peek' then
--@ lua/api.lua:22-22
M['Api_peek'] = M.Queue_peek
            end
          end
        end
      else
        if name_len < 10 then
          if name_len == 9 then
            if name == 'Check_job' then
--@ lua/check.lua:161-201
-- The job's own invariants (`jk` its hash, `f` its fields when already read): the sets its
-- state names and no other set of its queue, its lock, worker set and throttle locks when
-- running, its dependencies, failure group, tags, ordering key, and its queue in
-- ql:queues.
function M.Check_job(now, jk, jid, cx, f)
  f = f or M.Check_job_fields(cx, jk)
  local state, queue = f[2], f[3]
  local known = state == 'waiting' or state == 'stalled' or state == 'running' or
    state == 'scheduled' or state == 'depends' or state == 'throttled' or state == 'failed' or
    state == 'complete'
  if f[1] ~= jid or not known or not queue or not f[11] then
    M.Check_found(cx, 'job-malformed', jk, '', 'the job hash lacks jid, klass, a known state ' ..
      'or queue', '')
    return
  end
  if state == 'complete' then
    if not M.Check_call(cx, 'ZSCORE', 'ql:completed', jid) then
      M.Check_found(cx, 'not-in-state-set', jk, 'ql:completed', 'complete but not in ' ..
        'ql:completed', 'add it to ' .. 'ql:completed')
    end
  else
    M.Check_job_sets(jid, jk, state, queue, f, cx)
  end
  if state == 'running' then M.Check_running(jid, jk, queue, f, cx) end
  M.Check_job_dependencies(jid, jk, state, cx)
  if f[7] then
    for t in pairs(M.Check_tags(cx, f[7])) do
      if not M.Check_call(cx, 'ZSCORE', 'ql:t:' .. t, jid) then
        M.Check_found(cx, 'tag-unindexed', jk, t, 'tagged ' .. t .. ' but not in ' ..
          'ql:t:' .. t, 'add it to ' .. 'ql:t:' .. t)
      end
    end
  end
  if f[9] and state ~= 'complete' and state ~= 'failed' then
    local ok = M.Order_set(queue, f[9])
    if not M.Check_call(cx, 'ZSCORE', ok, jid) then
      M.Check_found(cx, 'order-missing', jk, f[9], 'has ordering key ' .. f[9] ..
        ' but is not in ' .. ok, 'append it to ' .. ok)
    end
  end
end
            elseif name == 'Check_key' then
--@ lua/check.lua:589-607
-- Check key `k`: its own invariants now, and its members later (a walk is queued in `walks`
-- as { key, cursor }).
function M.Check_key(now, k, cx, walks)
  -- Most keys are jobs' hashes: such a name is read as one first, and its type asked only
  -- when that fails or finds none of a job's fields (no key, or not a job's hash).
  if k:find('ql:j:', 1, true) == 1 and not (M.Check_ends(k, '-history') or
      M.Check_ends(k, '-dependencies') or M.Check_ends(k, '-dependents')) then
    local f = M.Check_job_fields(cx, k)
    if not f.err and (f[1] or f[2] or f[3] or f[11]) then
      M.Check_job(now, k, k:sub(#'ql:j:' + 1), cx, f)
      return
    end
  end
  local kind = M.Check_call(cx, 'TYPE', k).ok
  if kind == 'none' then return end
  local d = M.Check_classify(k, kind)
  M.Check_head(now, k, d, kind, cx)
  if d.walk and kind == d.want then walks[#walks + 1] = { k, '0' } end
end
            elseif name == 'Job_erase' then
--@ lua/job/cancel.lua:16-48
-- Remove a job that is not complete with everything that refers to it (cancel, expiry) but
-- its dependents, which the caller handles. `f` is the job's state, queue, failure, worker,
-- tags, throttles, key and ttl fields.
function M.Job_erase(now, jid, f)
  local state, queue, failure = f[1], f[2], f[3]
  if queue then
    M.Queue_unlist(queue, jid)
    rcall('ZREM', 'ql:q:' .. queue .. '-depends', jid)
    if state == 'throttled' then rcall('ZREM', 'ql:q:' .. queue .. '-throttled', jid) end
    if f[8] then rcall('ZREM', 'ql:q:' .. queue .. '-expiring', jid) end
  end
  if f[6] or f[7] then M.Job_leave(now, jid, queue, f[6], f[7] or nil) end
  local depk = 'ql:j:' .. jid .. '-dependencies'
  for _, b in ipairs(rcall('SMEMBERS', depk)) do M.Job_unlink(jid, b) end
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
  rcall('DEL', 'ql:j:' .. jid, 'ql:j:' .. jid .. '-history')
end
            elseif name == 'Job_retry' then
--@ lua/job/fail_retry.lua:42-113
-- retry <now> <jid> <queue> <worker> [delay] [group] [message]
-- Reply: integer, retries remaining (-1 when the job failed). Events: ql:failed (tracked) on
-- exhaustion (no ql:log event there, as in the reference). The job gives back its
-- throttles, and keeps its ordering key's turn (it runs again before the key's next job)
-- unless its retries are exhausted. A job with a ttl must start again within it.
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
  local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'worker', 'queue', 'priority', 'history',
    'throttles', 'key', 'ttl')
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
  -- The job gives back its throttles: it takes them again when it is popped again, behind
  -- the jobs waiting for them. It keeps its ordering key's turn unless it fails here.
  if f[6] then M.Job_leave(now, jid, f[3], f[6], nil) end
  if remaining < 0 then
    if f[7] then M.Job_leave(now, jid, f[3], nil, f[7]) end
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
    elseif f[6] or f[7] or f[8] then
      if not M.Job_ready(now, queue, jid, tonumber(f[4]) or 0, f[6], f[7] or nil,
          tonumber(f[8]), now, 'running') then
        rcall('HSET', jk, 'state', 'waiting')
      end
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
--@ lua/job/fields.lua:10-15
-- Every field a command or the job object needs, in one HMGET.
function M.Job_fetch(jid)
  return rcall('HMGET', 'ql:j:' .. jid, 'jid', 'klass', 'state', 'queue', 'worker', 'priority',
    'expires', 'retries', 'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history',
    'time', 'throttles', 'key', 'ttl')
end
            elseif name == 'Job_ready' then
--@ lua/job/gate.lua:7-35
-- Job `jid` of `queue` becomes ready to run. It goes into the work set with `priority`, or
-- waits in state throttled when an earlier job of its ordering key `okey` is unfinished or
-- one of the named throttles in `text` (its stored list) has no room. `at`, when given, is
-- when it became ready: with a `ttl` it must start by at + ttl (Expire.arm). `state` is the
-- job's state as stored (a throttled job that tries again keeps its place and history).
-- `since`, when given, is the time its work-set score counts from (else `now`): a job that
-- waited keeps its place among the jobs put after it. Returns true when the job waits (its
-- state is written here), false when it went into the work set (the caller writes the
-- state).
function M.Job_ready(now, queue, jid, priority, text, okey, ttl, at, state, since)
  if ttl and at then M.Expire_arm(queue, jid, at + ttl) end
  local all = M.Throttle_list(text)
  if okey and not M.Order_is_head(queue, okey, jid) then
    M.Job_throttle(now, jid, queue, nil, state, all)
    return true
  end
  local own = M.Throttle_own(all, queue)
  if own then
    local tid = M.Throttle_full(now, own)
    if tid then
      M.Job_throttle(now, jid, queue, tid, state, all)
      return true
    end
    if state == 'throttled' then M.Job_unpend(jid, all, nil) end
    M.Throttle_admit(now, jid, own)
  end
  M.Job_enqueue(queue, jid, priority, since or now)
  return false
end
            elseif name == 'Job_leave' then
--@ lua/job/gate.lua:103-110
-- Job `jid` leaves its place in `queue` for good (complete, advance, fail, cancel, expiry,
-- put, retries exhausted): it gives back its throttles (`text`, its stored list) and leaves
-- its ordering key `okey`, so that waiting jobs may start.
function M.Job_leave(now, jid, queue, text, okey)
  local all = M.Throttle_list(text)
  if all then M.Throttle_release(now, jid, all) end
  if okey and queue then M.Order_leave(now, queue, okey, jid) end
end
            elseif name == 'Job_enter' then
--@ lua/job/gate.lua:120-143
-- The job's throttle, key and ttl fields (`text`, `okey`, `ttl_s` as stored) for a job that
-- moves from queue `old` to `new` and becomes ready there at `now` (advance, unfail): its
-- list names the new queue's tid, it joins the new queue's key at the end, and it passes the
-- gate unless `ready` is false. Returns true when it waits (state written), false when it
-- went into the work set.
function M.Job_enter(now, jid, old, new, text, okey, ttl_s, priority, ready)
  if text then
    local moved = M.Throttle_moved(M.Throttle_list(text), old, new)
    if moved then
      text = encode(moved)
    elseif okey or ttl_s then
      text = encode({ 'ql:q:' .. new })
    end
    if moved or okey or ttl_s then
      rcall('HSET', 'ql:j:' .. jid, 'throttles', text)
    else
      text = nil
      rcall('HDEL', 'ql:j:' .. jid, 'throttles')
    end
  end
  if okey then M.Order_join(new, okey, jid) end
  if not ready then return false end
  return M.Job_ready(now, new, jid, priority, text, okey, tonumber(ttl_s), now, nil)
end
            elseif name == 'Json_list' then
--@ lua/json.lua:26-31
-- A JSON array built from already-encoded elements; cjson writes an empty list as {}.
--@inline
function M.Json_list(parts)
  if #parts == 0 then return '{}' end
  return '[' .. concat(parts, ',') .. ']'
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
            elseif name == 'Order_set' then
--@ lua/ordering.lua:11-14
-- The sorted set of ordering key `name` of `queue`.
function M.Order_set(queue, name)
  return 'ql:q:' .. queue .. '-key:' .. name
end
            elseif name == 'Queue_pop' then
--@ lua/pop.lua:17-182
-- pop <now> <queue> <worker> <count>
-- Reply: JSON array of the popped jobs ({} when none). Events: reclaim events (4.2), then
-- ql:popped per tracked job. A work-set jid whose job hash is gone is dropped from the work
-- set and skipped (the reference fails with a Lua error). A negative count counts as 0.
-- The throttle dialect's steps (docs/protocol.md): when the queue's own throttle is full
-- (its running jobs, stalled ones included, at its maximum) only reclaimed jobs are handed
-- out; a job whose named throttle is full is throttled instead of handed out, and a job
-- whose ttl deadline has passed is expired; then more rounds look at more jobs
-- (Queue.pop_again). A pop that comes up short expires due jobs and looks at one throttled
-- job of the queue again (Queue.revisit).
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
  -- delayed jobs in this queue, nothing tracked, no queue throttle) and saves the reads it
  -- would otherwise take.
  local qk = 'ql:q:' .. queue
  local rk, sk = qk .. '-recur', qk .. '-scheduled'
  local special = rcall('EXISTS', 'ql:config', 'ql:paused_queues', rk, sk, 'ql:tracked',
    'ql:th:' .. qk) > 0
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
  local lk = qk .. '-locks'
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
  local reclaimed = #jids
  local want = count - reclaimed
  if special and want > 0 then
    local room = M.Queue_throttle_room(queue, lk)
    if room and room < want then want = room end
  end
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
  if #jids == 0 then
    M.Queue_revisit(now, queue)
    return '{}'
  end
  -- The lock expiry as Redis would format the number itself (%.17g, exact), made once:
  -- each job's hash and both lock sets get this text instead of formatting it again.
  local expires_s = format('%.17g', expires)
  -- Every handed-out jid leaves the work set (step 10): the ones just taken, and any
  -- reclaimed job, which is normally not in the work set but can be (see Queue.unlist).
  local wk = qk .. '-work'
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
  -- Why jobs were not handed out: 1 = one was throttled, 2 = only expired ones.
  local total, popped, skipped = #jids, nil, nil
  if total == 1 then
    -- One job (the common case): its writes in place, without the batch lists below.
    local jid = jids[1]
    local f, tracked = M.Queue_hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry,
      special, queue, reclaimed == 1)
    if f then
      local put_t = tonumber(f[15]) or now
      M.Stats_sample(now, 'wait', queue, now - put_t)
      rcall('ZADD', wjk, expires_s, jid)
      rcall('ZADD', lk, expires_s, jid)
      -- The entry the job's put wrote, predicted from its time and queue, and its
      -- rendering: an entry that is exactly this text is rendered without being parsed.
      local seen, shown
      local q = encode(f[4])
      if put_t >= 1 and put_t < 1e14 then
        local w = M.Num_whole_text(put_t, f[15])
        seen = '[' .. w .. ',"put",{"q":' .. q .. '}]'
        shown = '{"when":' .. w .. ',"what":"put","q":' .. q .. '}'
      end
      return M.Job_render(jid, f, tracked, true, last, seen, shown, wjson, q)
    end
    if tracked then skipped = tracked end
    popped = {}
  else
    popped = {}
    for i, jid in ipairs(jids) do
      local f, tracked = M.Queue_hand_out(now, jid, worker, expires, expires_s, tstr, whole,
        wentry, special, queue, i <= reclaimed)
      if f then
        popped[#popped + 1] = { jid, f, tracked }
      elseif tracked and (not skipped or tracked < skipped) then
        skipped = tracked
      end
    end
  end
  if skipped and #popped < total then
    M.Queue_pop_again(now, queue, worker, total, popped, expires, expires_s, tstr, whole, wentry,
      special, skipped)
  end
  if #popped < count then M.Queue_revisit(now, queue) end
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
            elseif name == 'Recur_get' then
--@ lua/recurring.lua:143-160
-- recur.get <now> <jid>: the recurring object (protocol 2.11), or nil. It has `throttles`
-- (the stored list) when the template names a throttle besides its queue's own, and `key`
-- and `ttl` when they are set. Error: Recurring(): no jid provided
function M.Recur_get(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local r = rcall('HMGET', 'ql:r:' .. jid, 'jid', 'klass', 'state', 'queue', 'priority',
    'interval', 'retries', 'count', 'data', 'tags', 'backlog', 'throttles', 'key', 'ttl')
  if not r[1] then return false end
  local all = M.Throttle_list(r[12])
  return encode({
    jid = r[1], klass = r[2], state = r[3], queue = r[4], priority = tonumber(r[5]),
    interval = tonumber(r[6]), retries = tonumber(r[7]), count = tonumber(r[8]), data = r[9],
    tags = M.Job_tag_list(r[10]), backlog = tonumber(r[11]) or 0,
    throttles = M.Throttle_own(all, r[4] or '') and all or nil, ['key'] = r[13] or nil,
    ttl = tonumber(r[14]),
  })
end
            elseif name == 'Recur_tag' then
--@ lua/recurring.lua:247-265
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
            elseif name == 'Remote_is' then
--@ lua/remote.lua:14-18
-- Whether `member` of a dependencies or dependents set names a job of another namespace.
--@inline
function M.Remote_is(member)
  return member:byte(1) == 1
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
            elseif name == 'Stats_get' then
--@ lua/stats.lua:225-246
-- stats <now> <queue> <date>
-- Reply: {"retries","failed","failures","wait":{...},"run":{...}} for the day of `date`,
-- and "expired" (jobs whose ttl ran out, an extension) only when there were some.
-- Errors: Queue(): no queue name provided / Stats(): Arg "date" missing or not a number: <x>
function M.Stats_get(now)
  local queue, date_s = A[3], A[4]
  if queue == nil then error('Queue(): no queue name provided') end
  local date = M.Num_parse(date_s)
  if date == nil then error('Stats(): Arg "date" missing or not a number: ' .. tostring(date_s)) end
  local day = M.Stats_day(date)
  local counters = rcall('HMGET', M.Stats_key('stats', day, queue), 'retries', 'failed', 'failures',
    'expired')
  local expired = tonumber(counters[4])
  return encode({
    retries = tonumber(counters[1]) or 0,
    failed = tonumber(counters[2]) or 0,
    failures = tonumber(counters[3]) or 0,
    expired = expired and expired > 0 and expired or nil,
    wait = M.Stats_summary(M.Stats_key('wait', day, queue)),
    run = M.Stats_summary(M.Stats_key('run', day, queue)),
  })
end
            elseif name == 'Api_retry' then
--@ lua/api.lua:13-13
M['Api_retry'] = M.Job_retry
            elseif name == 'Api_track' then
--@ lua/api.lua:17-17
M['Api_track'] = M.Track_track
            elseif name == 'Api_stats' then
--@ lua/api.lua:19-19
M['Api_stats'] = M.Stats_get
            elseif name == 'Api_pause' then
--@ lua/api.lua:24-24
M['Api_pause'] = M.Queue_pause
            elseif name == 'Api_recur' then
--@ lua/api.lua:31-31
M['Api_recur'] = M.Recur_recur
            end
          end
        else
          if name_len == 10 then
            if name == 'Check_call' then
--@ lua/check.lua:73-76
function M.Check_call(cx, ...)
  cx.n = cx.n + 1
  return rcall(...)
end
            elseif name == 'Check_tags' then
--@ lua/check.lua:134-144
-- A job's `tags` field as a table tag -> true, decoded once a step for each text (most
-- jobs carry one of a few).
function M.Check_tags(cx, text)
  local tags = cx.t[text]
  if tags == nil then
    tags = {}
    for _, t in ipairs(M.Job_tag_list(text)) do tags[t] = true end
    cx.t[text] = tags
  end
  return tags
end
            elseif name == 'Check_ends' then
--@ lua/check.lua:377-383
-- Whether `s` ends with `suffix`, and `s` without it.
function M.Check_ends(s, suffix)
  if #s > #suffix and s:find(suffix, #s - #suffix + 1, true) then
    return s:sub(1, -#suffix - 1)
  end
  return nil
end
            elseif name == 'Check_head' then
--@ lua/check.lua:439-463
-- The invariants of key `k` as a whole (`d` its classification).
function M.Check_head(now, k, d, kind, cx)
  if d.what == 'unknown' or (d.want and d.want ~= kind) then
    M.Check_found(cx, 'unknown-key', k, '', 'no invariant explains a ' .. kind .. ' named ' .. k,
      '')
  elseif d.what == 'job' then
    M.Check_job(now, k, d.jid, cx)
  elseif d.what == 'history' then
    -- (Check.settle asks whether the job exists, for all the step's histories at once.)
    local n = #cx.h + 1
    cx.h[n], cx.hk[n] = 'ql:j:' .. d.jid, k
  elseif d.what == 'dependencies' then
    if M.Check_call(cx, 'EXISTS', 'ql:j:' .. d.jid) == 0 then
      M.Check_found(cx, 'dependencies-orphan', k, '', 'the dependencies of a job that is gone',
        'remove it from their dependents and delete it')
    end
  elseif d.what == 'group' then
    if M.Check_call(cx, 'SISMEMBER', 'ql:failures', d.group) == 0 then
      M.Check_found(cx, 'failure-group-unlisted', k, d.group, 'failure group ' .. d.group ..
        ' is not in ' .. 'ql:failures', 'add it to ' .. 'ql:failures')
    end
  elseif d.what == 'recur' then
    M.Check_recur(k, d.jid, cx)
  end
end
            elseif name == 'Check_walk' then
--@ lua/check.lua:609-663
-- Walk the members of `item` ({ key, cursor, members left over }) until the step has made
-- `budget` calls (one member at least). A scan may answer more members than asked for
-- (Valkey's hashtable answers whole buckets): those left over wait in the item. Returns
-- whether the walk is done.
function M.Check_walk(now, item, budget, cx)
  local k = item[1]
  local kind = M.Check_call(cx, 'TYPE', k).ok
  local d = M.Check_classify(k, kind)
  if kind ~= d.want then return true end
  local members, first, stride = item[3], nil, 1
  local carried = members and #members > 0
  if not carried then
    -- a member takes a call at least (a failure group's two): no more than the budget left,
    -- nor than BUDGET (the members left over travel in the token)
    local count = math.max(1, math.min(40, budget - cx.n - 1))
    if d.walk == 'l' then
      count = math.max(1, floor(count / 2))
      first = tonumber(item[2]) or 0
      members = M.Check_call(cx, 'LRANGE', k, first, first + count - 1)
      item[2] = #members == count and tostring(first + count) or '0'
    elseif d.walk == 's' then
      local r = M.Check_call(cx, 'SSCAN', k, item[2], 'COUNT', count)
      item[2], members = r[1], r[2]
    else
      -- Without the scores where the server can (Valkey 8 on): a score is a number the
      -- server formats and the script only throws away.
      local r = cx.z and M.Check_zscan_noscores(cx, k, item[2], count)
      if not r then
        r = M.Check_call(cx, 'ZSCAN', k, item[2], 'COUNT', count)
        stride = 2 -- member, score, member, score...
      end
      item[2], members = r[1], r[2]
    end
  end
  -- A list's members never wait for a later step (LRANGE answers no more than asked, and
  -- all are looked at), so their indexes are known.
  -- Members carried over from an earlier step may have left the key since: those are
  -- looked at only if still there.
  local i, n = 1, #members
  repeat
    if i > n then break end
    local m = members[i]
    if not carried or M.Check_still_member(cx, k, d, m) then
      M.Check_member(now, k, d, m, cx, first and first + i - 1)
    end
    i = i + stride
  until not first and M.Check_spent(cx, budget)
  local rest = nil
  if i <= n then
    rest = {}
    for j = i, n, stride do rest[#rest + 1] = members[j] end
  end
  item[3] = rest
  return rest == nil and item[2] == '0'
end
            elseif name == 'Check_step' then
--@ lua/check.lua:693-753
-- qlpy.check <now> <token> [budget]
-- One bounded step of a check of the whole database: walks on from `token` ('0' starts a
-- check) until it has made about `budget` server calls (default 40, 25 where the server
-- lends scripts no clock: a job's hash costs about four, most other keys one, a member of
-- a set one or two) or, where it lends one, run for STEP_S, and replies {"token":
-- <token of the next step, or "0" when the check is done>, "findings": [[invariant, key,
-- member, detail, repair]...], "keys": <keys seen so far>, "counts": {<invariant>: n, ...}
-- (findings so far)}. The last step writes the summary hash ql:check (started, finished,
-- keys, findings as JSON). Reads nothing else: a step writes only that summary.
-- Errors: qlpy.check(): Arg "token" missing / qlpy.check(): Arg "token" not a check token:
-- <x> / qlpy.check(): Arg "budget" not a whole number above 0: <x>
function M.Check_step(now)
  local token, budget_s = A[3], A[4]
  if token == nil then error('qlpy.check(): Arg "token" missing') end
  local lib = rawget(_G, 'os')  -- nil on Redis 6.2 and 7
  local clock = lib and lib.clock
  local budget = clock and 40 or 25
  if budget_s ~= nil then
    budget = tonumber(budget_s)
    -- (b - b is nan for nan and for +-inf)
    if budget == nil or budget - budget ~= 0 or budget < 1 or budget ~= floor(budget) then
      error('qlpy.check(): Arg "budget" not a whole number above 0: ' .. budget_s)
    end
  end
  local st = M.Check_state(token, now)
  local cx = M.Check_context()
  cx.z = st.z ~= false
  if clock then cx.clock, cx.t0 = clock, clock() end
  -- A SCAN may answer more keys than asked for (Valkey's hashtable answers whole buckets):
  -- the keys found wait in `p`, so that a step looks at no more than its budget.
  while not M.Check_spent(cx, budget) do
    local pk = st.p[#st.p]
    if pk then
      st.p[#st.p] = nil
      M.Check_key(now, pk, cx, st.q)
    elseif st.q[1] then
      if M.Check_walk(now, st.q[1], budget, cx) then table.remove(st.q, 1) end
    elseif st.s then
      -- a key costs about four calls; no more than SCAN_MAX keys a SCAN, whatever the
      -- budget (the keys found and not looked at travel in the token)
      local r = M.Check_call(cx, 'SCAN', st.s, 'MATCH', 'ql:' .. '*', 'COUNT',
        math.max(1, math.min(10, floor((budget - cx.n) / 4))))
      st.s = r[1] ~= '0' and r[1]
      st.k = st.k + #r[2]
      st.p = r[2]
    else
      break
    end
  end
  M.Check_settle(cx)
  if not cx.z then st.z = false end
  local out = cx.out
  for _, f in ipairs(out) do st.n[f[1]] = (st.n[f[1]] or 0) + 1 end
  local finished = not st.s and not st.q[1] and not st.p[1]
  if finished then
    rcall('HSET', 'ql:check', 'started', st.t, 'finished', now, 'keys', st.k,
      'findings', encode(st.n))
  end
  return encode({ token = finished and '0' or encode(st), findings = out, keys = st.k,
    counts = st.n })
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
            elseif name == 'Config_set' then
--@ lua/config.lua:69-79
-- config.set <now> <key> <value>
-- Publishes {"event":"config_set","option","value"} on ql:log, then stores. Reply nil.
-- Errors: config.set(): Arg "option" missing / config.set(): Arg "value" missing
function M.Config_set(now)
  local name, value = A[3], A[4]
  if name == nil then error('config.set(): Arg "option" missing') end
  if value == nil then error('config.set(): Arg "value" missing') end
  rcall('PUBLISH', 'ql:' .. 'log', encode({ event = 'config_set', option = name, value = value }))
  rcall('HSET', 'ql:config', name, value)
  return nil
end
            elseif name == 'Expire_arm' then
--@ lua/expiry.lua:11-14
-- Job `jid` of `queue` must start by `deadline`.
function M.Expire_arm(queue, jid, deadline)
  rcall('ZADD', 'ql:q:' .. queue .. '-expiring', deadline, jid)
end
            elseif name == 'Expire_due' then
--@ lua/expiry.lua:28-36
-- Expire `jid` of `queue` when its deadline has passed: true then.
function M.Expire_due(now, queue, jid)
  local deadline = tonumber(rcall('ZSCORE', 'ql:q:' .. queue .. '-expiring', jid))
  if deadline and deadline <= now then
    M.Job_expire(now, jid, queue)
    return true
  end
  return false
end
            elseif name == 'Job_expire' then
--@ lua/expiry.lua:38-55
-- Expire job `jid`, due in `queue`: removed as cancel removes a job (its dependents keep
-- waiting for it), counted in the queue's daily `expired` statistic. Events: ql:log
-- {"jid","event":"expired","queue"}, then ql:expired (the bare jid) for a tracked job. An
-- entry whose job is gone, started or moved is only dropped.
function M.Job_expire(now, jid, queue)
  rcall('ZREM', 'ql:q:' .. queue .. '-expiring', jid)
  local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'queue', 'failure', 'worker', 'tags',
    'throttles', 'key', 'ttl')
  local state = f[1]
  if f[2] ~= queue or (state ~= 'waiting' and state ~= 'throttled' and state ~= 'stalled') then
    return
  end
  rcall('PUBLISH', 'ql:' .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"expired","queue":' .. encode(queue) .. '}')
  M.Job_erase(now, jid, f)
  M.Stats_count(now, now, queue, 'expired', 1)
  M.Job_notify(jid, 'expired')
end
            elseif name == 'Job_cancel' then
--@ lua/job/cancel.lua:50-79
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
      if M.Remote_is(d) then
        local p, dependent = M.Remote_parse(d)
        error('Cancel(): ' .. jid .. ' is a dependency of ' .. tostring(dependent) ..
          ' in namespace ' .. tostring(p) .. ', which must be canceled first')
      elseif not listed[d] then
        error('Cancel(): ' .. jid .. ' is a dependency of ' .. d ..
          ' but is not mentioned to be canceled')
      end
    end
  end
  for i = 3, n do
    local jid = A[i]
    out[#out + 1] = jid
    local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'queue', 'failure', 'worker', 'tags',
      'throttles', 'key', 'ttl')
    if f[1] ~= 'complete' then M.Job_cancel_one(now, jid, f) end
  end
  return out
end
            elseif name == 'Job_delete' then
--@ lua/job/complete.lua:194-202
-- Delete a job entirely (completed-job expiry): its tags, hash and history.
function M.Job_delete(jid)
  local tags = M.Job_tag_list(rcall('HGET', 'ql:j:' .. jid, 'tags'))
  for _, t in ipairs(tags) do
    rcall('ZREM', 'ql:t:' .. t, jid)
    rcall('ZINCRBY', 'ql:tags', -1, t)
  end
  rcall('DEL', 'ql:j:' .. jid, 'ql:j:' .. jid .. '-history')
end
            elseif name == 'Job_unlink' then
--@ lua/job/depends.lua:21-29
-- Job `jid` no longer waits for `dep`: `dep` forgets it (through the outbox when `dep` is
-- of another namespace).
function M.Job_unlink(jid, dep)
  if M.Remote_is(dep) then
    M.Remote_forget(jid, dep)
  else
    rcall('SREM', 'ql:j:' .. dep .. '-dependents', jid)
  end
end
            elseif name == 'Job_notify' then
--@ lua/job/fields.lua:29-36
-- Publish `payload` on ql:<channel> when the job is tracked.
--@inline
function M.Job_notify(jid, channel, tracked)
  if tracked == nil then
    tracked = M.Job_is_tracked(jid)
  end
  if tracked then rcall('PUBLISH', 'ql:' .. channel, jid) end
end
            elseif name == 'Job_unpend' then
--@ lua/job/gate.lua:68-74
-- Remove `jid` from the pending sets of the throttles in `all` but `keep`.
function M.Job_unpend(jid, all, keep)
  if not all then return end
  for _, tid in ipairs(all) do
    if tid ~= keep then rcall('ZREM', 'ql:th:' .. tid .. '-pending', jid) end
  end
end
            elseif name == 'Job_render' then
--@ lua/job/render.lua:48-145
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
  -- The extensions' fields, only on jobs that use them (docs/compatibility.md).
  local flow = ''
  if f[16] or f[17] or f[18] then
    flow = M.Job_flow_fields(f)
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
    (remaining and ',"remaining":' or '') .. (remaining or '') .. flow ..
    (wrap and '}]' or '}')
end
            elseif name == 'Order_join' then
--@ lua/ordering.lua:16-23
-- Append `jid` to key `name` of `queue` (after the last job; the first has score 1).
function M.Order_join(queue, name, jid)
  local ok = M.Order_set(queue, name)
  local last = rcall('ZREVRANGE', ok, 0, 0, 'WITHSCORES')
  local seq = 1
  if last[2] then seq = tonumber(last[2]) + 1 end
  rcall('ZADD', ok, seq, jid)
end
            elseif name == 'Order_head' then
--@ lua/ordering.lua:25-40
-- The head of key `name` of `queue`: its first job that still belongs there (a job that is
-- gone, complete, failed, or now in another queue or key is dropped, at most STALE per
-- call; false when more were stale). nil when the key has no job.
function M.Order_head(queue, name)
  local ok = M.Order_set(queue, name)
  for _ = 1, 5 do
    local head = rcall('ZRANGE', ok, 0, 0)[1]
    if not head then return nil end
    local f = rcall('HMGET', 'ql:j:' .. head, 'queue', 'key', 'state')
    if f[1] == queue and f[2] == name and f[3] ~= 'complete' and f[3] ~= 'failed' then
      return head
    end
    rcall('ZREM', ok, head)
  end
  return false
end
            elseif name == 'Order_next' then
--@ lua/ordering.lua:59-66
-- The key's new head, when it is waiting for its turn (throttled), goes through the gate.
-- A new head that is scheduled or depends on other jobs goes through it when it is ready.
function M.Order_next(now, queue, name)
  local head = M.Order_head(queue, name)
  if head and rcall('HGET', 'ql:j:' .. head, 'state') == 'throttled' then
    M.Job_unthrottle(now, head)
  end
end
            elseif name == 'Queue_take' then
--@ lua/pop.lua:7-15
-- Append up to `want` jids from the work set (highest score first) to `jids`. A want of
-- 1 (the common pop) goes as text: Redis would format the number first.
--@inline
function M.Queue_take(queue, jids, want)
  if want <= 0 then return end
  local top = rcall('ZREVRANGE', 'ql:q:' .. queue .. '-work', '0',
    want == 1 and '0' or want - 1)
  for i = 1, #top do jids[#jids + 1] = top[i] end
end
            elseif name == 'Queue_peek' then
--@ lua/queue.lua:150-174
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
  M.Expire_check(now, queue)
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
            elseif name == 'Queue_jobs' then
--@ lua/queue.lua:226-264
-- jobs <now> complete [offset] [count] | jobs <now> <state> <queue> [offset] [count]
-- States: running, stalled, scheduled, depends, recurring, throttled (the dialect's, oldest
-- first). Reply: array of jids. Errors: Jobs(): Arg "state" missing / Jobs(): Arg "queue" missing /
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
  if state ~= 'running' and state ~= 'stalled' and state ~= 'scheduled' and state ~= 'depends'
      and state ~= 'recurring' and state ~= 'throttled' then
    error('Jobs(): Unknown type "' .. state .. '"')
  end
  M.Expire_check(now, queue)
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
  return rcall('ZRANGE', 'ql:q:' .. queue .. '-throttled', offset, last)
end
            elseif name == 'Remote_put' then
--@ lua/remote.lua:141-155
function M.Remote_put(now)
  local id = A[4]
  if id == nil then error('Remote(): Arg "id" missing') end
  -- Messages applied in the last week are remembered; older ones are forgotten.
  -- put's arguments, two places further on (Job.put reads them from 3 on).
  local worker, queue, jid, klass, data, delay_s = A[5], A[6], A[7], A[8], A[9], A[10]
  local delay, retries, tags, priority, depends, throttles, okey, ttl, unique =
    M.Job_put_args(queue, jid, klass, data, delay_s, 11, #A)
  if rcall('ZSCORE', 'ql:applied', id) then return 'already' end
  jid = M.Job_put_write(now, worker or '', queue, jid, klass, data, delay, retries, tags,
    priority, depends, throttles, okey, ttl, unique, nil, nil)
  rcall('ZADD', 'ql:applied', now, id)
  rcall('ZREMRANGEBYSCORE', 'ql:applied', '-inf', now - 604800)
  return jid
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
            elseif name == 'Stats_fine' then
--@ lua/stats.lua:248-276
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
            elseif name == 'Api_queues' then
--@ lua/api.lua:8-8
M['Api_queues'] = M.Queue_queues
            elseif name == 'Api_failed' then
--@ lua/api.lua:10-10
M['Api_failed'] = M.Queue_failed
            elseif name == 'Api_cancel' then
--@ lua/api.lua:26-26
M['Api_cancel'] = M.Job_cancel
            elseif name == 'Api_unfail' then
--@ lua/api.lua:30-30
M['Api_unfail'] = M.Queue_unfail
            elseif name == 'Api_length' then
--@ lua/api.lua:37-37
M['Api_length'] = M.Queue_length
            end
          end
        end
      end
    else
      if name_len < 13 then
        if name_len < 12 then
          if name_len == 11 then
            if name == 'Check_spent' then
--@ lua/check.lua:39-47
-- Whether the step has made `budget` calls or, where there is a clock (`cx.clock`), run
-- for STEP_S (the clock is read every TIME_EVERY calls). TIME cannot serve: a script sees
-- the time its call began.
function M.Check_spent(cx, budget)
  if cx.n >= budget then return true end
  if not cx.clock or cx.n < cx.tn then return false end
  cx.tn = cx.n + 4
  return cx.clock() - cx.t0 >= 0.0003
end
            elseif name == 'Check_found' then
--@ lua/check.lua:90-94
-- Record a finding.
function M.Check_found(cx, inv, k, member, detail, fix)
  local out = cx.out
  out[#out + 1] = { inv, k, member or '', detail, fix or '' }
end
            elseif name == 'Check_group' then
--@ lua/check.lua:146-151
-- The failure group named by a job's `failure` field, or nil.
function M.Check_group(text)
  local ok, v = pcall(decode, text or '')
  if ok and type(v) == 'table' and type(v.group) == 'string' then return v.group end
  return nil
end
            elseif name == 'Check_under' then
--@ lua/check.lua:371-375
-- Check.classify_in for key `k` when it starts with prefix `p`, else nil.
function M.Check_under(k, p, kind)
  if k:find(p, 1, true) ~= 1 then return nil end
  return M.Check_classify_in(p, k:sub(#p + 1), kind)
end
            elseif name == 'Check_recur' then
--@ lua/check.lua:465-481
-- A recurring template: well formed, and in its queue's recur set.
function M.Check_recur(k, jid, cx)
  local r = M.Check_call(cx, 'HMGET', k, 'jid', 'klass', 'queue', 'interval', 'data', 'state')
  local ok = pcall(decode, r[5] or '')
  local interval = M.Num_parse(r[4])
  if r[1] ~= jid or not r[2] or not r[3] or r[6] ~= 'recur' or not interval or interval <= 0
      or not ok then
    M.Check_found(cx, 'recur-malformed', k, '', 'the template lacks jid, klass, queue, a ' ..
      'positive interval or JSON data', '')
    return
  end
  local rk = 'ql:q:' .. r[3] .. '-recur'
  if not M.Check_call(cx, 'ZSCORE', rk, jid) then
    M.Check_found(cx, 'recur-unlisted', k, rk, 'a template of ' .. r[3] .. ' not in ' .. rk,
      'add it to ' .. rk .. ', due now')
  end
end
            elseif name == 'Check_state' then
--@ lua/check.lua:671-691
-- The state of a check: the SCAN cursor `s` (false once the scan is done), keys found and
-- not looked at yet `p`, the walks still to make `q`, the findings so far by invariant
-- `n`, keys seen `k`, its start `t`, and `z` false once the server has refused ZSCAN's
-- NOSCORES.
function M.Check_state(token, now)
  if token == '0' then return { s = '0', p = {}, q = {}, n = {}, k = 0, t = now } end
  local ok, st = pcall(decode, token)
  if not ok or type(st) ~= 'table' or type(st.q) ~= 'table' or type(st.n) ~= 'table' or
      type(st.p) ~= 'table' or (st.s ~= false and type(st.s) ~= 'string') or
      type(st.k) ~= 'number' or type(st.t) ~= 'number' or (st.z ~= nil and st.z ~= false)
  then
    error('qlpy.check(): Arg "token" not a check token: ' .. token)
  end
  for _, item in ipairs(st.q) do
    if type(item) ~= 'table' or type(item[1]) ~= 'string' or type(item[2]) ~= 'string' or
        (item[3] ~= nil and type(item[3]) ~= 'table') then
      error('qlpy.check(): Arg "token" not a check token: ' .. token)
    end
  end
  return st
end
            elseif name == 'Expire_reap' then
--@ lua/expiry.lua:16-21
-- Remove up to REAP jobs of `queue` whose deadline has passed.
function M.Expire_reap(now, queue)
  local due = rcall('ZRANGEBYSCORE', 'ql:q:' .. queue .. '-expiring', '-inf', now, 'LIMIT',
    0, 25)
  for _, jid in ipairs(due) do M.Job_expire(now, jid, queue) end
end
            elseif name == 'Job_unblock' then
--@ lua/job/depends.lua:47-62
-- Job `d`, whose last dependency is gone, leaves its queue's depends set: scheduled when a
-- delay is still to run (its `scheduled` field), else ready to run.
function M.Job_unblock(now, d)
  local f = rcall('HMGET', 'ql:j:' .. d, 'queue', 'scheduled', 'priority', 'throttles', 'key',
    'ttl')
  local q = f[1]
  if not q then return end
  rcall('ZREM', 'ql:q:' .. q .. '-depends', d)
  if f[2] then
    rcall('ZADD', 'ql:q:' .. q .. '-scheduled', f[2], d)
    rcall('HSET', 'ql:j:' .. d, 'state', 'scheduled')
    rcall('HDEL', 'ql:j:' .. d, 'scheduled')
  else
    M.Job_ready_or_enqueue(now, q, d, tonumber(f[3]) or 0, f[4], f[5], f[6], 'depends')
  end
end
            elseif name == 'Job_depends' then
--@ lua/job/depends.lua:74-103
-- depends <now> <jid> on <jid>... | off <jid>... | off all
-- Reply: 1. Errors: Job(): no jid provided / Depends(): Arg "command" missing / Depends(): Job
-- <jid> not in the depends state: <state> / Depends(): Argument "command" must be "on" or "off"
function M.Job_depends(now)
  local jid, command = A[3], A[4]
  if jid == nil then error('Job(): no jid provided') end
  if command == nil then error('Depends(): Arg "command" missing') end
  local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'queue', 'priority', 'throttles', 'key', 'ttl')
  if f[1] ~= 'depends' then
    error('Depends(): Job ' .. jid .. ' not in the depends state: ' .. tostring(f[1]))
  end
  local depk = 'ql:j:' .. jid .. '-dependencies'
  if command == 'on' then
    for i = 5, #A do M.Job_link(jid, A[i]) end
  elseif command == 'off' then
    if A[5] == 'all' then
      for _, b in ipairs(rcall('SMEMBERS', depk)) do M.Job_unlink(jid, b) end
      rcall('DEL', depk)
      M.Job_undepend(now, jid, f)
    elseif #A >= 5 then
      for i = 5, #A do
        if rcall('SREM', depk, A[i]) == 1 or not M.Remote_is(A[i]) then M.Job_unlink(jid, A[i]) end
      end
      if rcall('SCARD', depk) == 0 then M.Job_undepend(now, jid, f) end
    end
  else
    error('Depends(): Argument "command" must be "on" or "off"')
  end
  return 1
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
            elseif name == 'Job_timeout' then
--@ lua/job/lease.lua:38-80
-- timeout <now> <jid>...
-- Every jid is checked before any is timed out. Reply nil. Events per job:
-- ql:w:<worker> lock_lost, then ql:log lock_lost. A job gives back its throttles and keeps
-- its ordering key's turn.
-- Errors: Timeout(): Job <jid> does not exist / Timeout(): Job <jid> not running
function M.Job_timeout(now)
  local n = #A
  local rows, seen = {}, {}
  for i = 3, n do
    local jid = A[i]
    local f = rcall('HMGET', 'ql:j:' .. jid, 'queue', 'state', 'worker', 'history', 'priority',
      'throttles', 'key', 'ttl')
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
    if f[6] or f[7] or f[8] then
      -- It gives back its throttles and keeps its ordering key's turn; ahead of every job
      -- when the gate lets it into the work set.
      if f[6] then M.Job_leave(now, jid, queue, f[6], nil) end
      if M.Job_ready(now, queue, jid, math.huge, f[6], f[7] or nil, tonumber(f[8]), now,
          'running') then
        rcall('HSET', 'ql:j:' .. jid, 'expires', 0)
      else
        rcall('HSET', 'ql:j:' .. jid, 'state', 'stalled', 'expires', 0)
      end
    else
      rcall('ZADD', 'ql:q:' .. queue .. '-work', '+inf', jid)
      rcall('HSET', 'ql:j:' .. jid, 'state', 'stalled', 'expires', 0)
    end
    local msg = encode({ jid = jid, event = 'lock_lost', worker = f[3] })
    rcall('PUBLISH', 'ql:w:' .. (f[3] or ''), msg)
    rcall('PUBLISH', 'ql:' .. 'log', msg)
  end
  return nil
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
            elseif name == 'Job_requeue' then
--@ lua/job/put.lua:324-325
-- requeue: exactly put, for a job that must already exist.
function M.Job_requeue(now) return M.Job_put(now, true) end
            elseif name == 'Job_enqueue' then
--@ lua/job/state.lua:4-9
-- P-WORK: make `jid` waiting in `queue` as of time `t`.
--@inline
function M.Job_enqueue(queue, jid, priority, t)
  local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
  rcall('ZADD', 'ql:q:' .. queue .. '-work', score, jid)
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
            elseif name == 'Order_leave' then
--@ lua/ordering.lua:51-57
-- `jid` leaves key `name` of `queue`; when it was the head, the next job may start.
function M.Order_leave(now, queue, name, jid)
  local ok = M.Order_set(queue, name)
  local head = rcall('ZRANGE', ok, 0, 0)[1]
  rcall('ZREM', ok, jid)
  if head == jid then M.Order_next(now, queue, name) end
end
            elseif name == 'Queue_whole' then
--@ lua/queue.lua:23-28
-- A non-negative whole count from a validated number.
function M.Queue_whole(n)
  n = floor(n)
  if n < 0 then return 0 end
  return n
end
            elseif name == 'Queue_pause' then
--@ lua/queue.lua:266-270
-- pause <now> <queue>...: reply nil.
function M.Queue_pause(now)
  M.Queue_with_names('SADD', 'ql:paused_queues', 3)
  return nil
end
            elseif name == 'Recur_spawn' then
--@ lua/recurring.lua:3-56
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
      'backlog', 'throttles', 'key', 'ttl')
    local flow = r[8] or r[9] or r[10]
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
      if flow then
        -- The template's throttles, key and ttl go to each child, which joins the key and
        -- passes the gate as put at its slot time.
        local text = M.Job_store_flow(child, queue, r[8] or nil, r[9] or nil, r[10] or nil)
        if r[9] then M.Order_join(queue, r[9], child) end
        M.Job_ready(s, queue, child, priority, text, r[9] or nil, tonumber(r[10]), s, 'waiting')
      else
        M.Job_enqueue(queue, child, priority, s)
      end
      s = s + interval
      rcall('ZADD', rk, s, rjid)
    end
  end
end
            elseif name == 'Recur_recur' then
--@ lua/recurring.lua:67-120
-- recur <now> <queue> <jid> <klass> <data> interval <seconds> <offset> [priority p]
--       [tags t] [retries r] [backlog b] [throttles t] [key k] [ttl s]
-- Reply: the template jid. Re-issuing replaces every attribute but keeps `count`. Spawned
-- jobs get the template's throttles (the dialect's), ordering key and ttl (extensions).
-- Errors: Queue(): no queue name provided / RecurringJob On(): Arg "jid" missing /
-- RecurringJob On(): Arg "klass" missing / RecurringJob On(): Arg "spec" missing /
-- RecurringJob On(): Arg "data" not JSON: <x> / Recur(): schedule type "<x>" unknown /
-- Recur(): Arg "interval" not a number: <x> / Recur(): Arg "offset" not a number: <x> /
-- Recur(): Arg "interval" must be greater than 0 / Odd number of additional args / Recur():
-- Arg "tags" must be JSON string array: <x> / Recur(): Arg "<name>" not a number: <x> /
-- Recur(): Arg "throttles" not JSON array: <x> / Recur(): Arg "key" is empty / Recur(): Arg
-- "ttl" not a number: <x> / Recur(): Arg "ttl" must be greater than 0: <x>
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
  local throttles, okey, ttl = M.Job_flow_options(opts, 'Recur()')
  local stored = throttles and M.Throttle_stored(throttles, queue)

  local tk = 'ql:r:' .. jid
  local old = rcall('HMGET', tk, 'count', 'queue')
  if old[2] then rcall('ZREM', 'ql:q:' .. old[2] .. '-recur', jid) end
  rcall('HSET', tk, 'jid', jid, 'klass', klass, 'data', data, 'priority', priority,
    'tags', encode(tags), 'state', 'recur', 'queue', queue, 'type', 'interval',
    'count', old[1] or 0, 'interval', interval, 'retries', retries, 'backlog', backlog)
  rcall('HDEL', tk, 'throttles', 'key', 'ttl')
  if stored or okey or ttl then
    M.Recur_store_flow(tk, stored and encode(stored), okey, ttl)
  end
  rcall('ZADD', 'ql:q:' .. queue .. '-recur', now + offset, jid)
  rcall('ZADD', 'ql:queues', 'NX', now, queue)
  return jid
end
            elseif name == 'Recur_untag' then
--@ lua/recurring.lua:267-284
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
            elseif name == 'Remote_send' then
--@ lua/remote.lua:29-34
-- Queue a message for another namespace (its fields `m`, to which an id is added).
function M.Remote_send(m)
  m.id = 'ql:' .. rcall('INCR', 'ql:outbox-seq')
  m.from = 'ql:'
  rcall('RPUSH', 'ql:outbox', encode(m))
end
            elseif name == 'Remote_find' then
--@ lua/remote.lua:50-59
-- The remote member of `dependencies` that names job `dep` of the namespace `p`, if any.
function M.Remote_find(set, p, dep)
  for _, member in ipairs(rcall('SMEMBERS', set)) do
    if M.Remote_is(member) then
      local mp, mj = M.Remote_parse(member)
      if mp == p and mj == dep then return member end
    end
  end
  return nil
end
            elseif name == 'Remote_call' then
--@ lua/remote.lua:61-116
-- qlpy.remote <now> depend <jid> <member>: job <jid> (here) gets a dependent of another
-- namespace, `member` (remote form). Reply: "pending" (recorded: <jid> tells it when it
-- completes), "complete" (nothing to wait for) or "missing" (no such job: as within a
-- namespace, a dependency that does not exist is not waited for).
-- qlpy.remote <now> release <jid> <prefix> <dep>: job <dep> of namespace <prefix>, which
-- job <jid> (here) waited for, completed. Reply: "released" (it was the last: the job
-- waits, or is scheduled), "waiting" (other dependencies remain), "already" (done before)
-- or "early" (no such job yet: kept for a day, and a put that names the dependency
-- skips it).
-- qlpy.remote <now> releases <jid> <prefix> <dep> [<jid> <prefix> <dep>...]: several
-- releases in one call (a relay's batch). Reply: each one's reply, in order.
-- qlpy.remote <now> forget <jid> <prefix> <dependent>: job <dependent> of namespace
-- <prefix> no longer waits for <jid>. Reply: 1 if it was recorded, else 0.
-- qlpy.remote <now> put <id> <worker> <queue> <jid> <klass> <data> <delay> [options...]:
-- a hand-off from another namespace, message <id>: put's arguments. Reply: the jid, or
-- "already" when message <id> was applied (within the last week).
-- Errors: Remote(): Arg "<name>" missing / Remote(): unknown action "<x>" / Remote(): Arg
-- "member" is not a remote member / put's own.
function M.Remote_call(now)
  local action = A[3]
  if action == 'put' then return M.Remote_put(now) end
  if action == 'releases' then
    local n = #A - 3
    if n < 3 or n % 3 ~= 0 then
      error('Remote(): "releases" takes <jid> <prefix> <dep> triplets')
    end
    local out = {}
    for i = 4, #A, 3 do out[#out + 1] = M.Remote_release(now, A[i], A[i + 1], A[i + 2]) end
    return out
  end
  local jid, a, b = A[4], A[5], A[6]
  if action == nil then error('Remote(): Arg "action" missing') end
  if jid == nil then error('Remote(): Arg "jid" missing') end
  if action == 'depend' then
    if a == nil then error('Remote(): Arg "member" missing') end
    if not M.Remote_is(a) or not M.Remote_parse(a) then
      error('Remote(): Arg "member" is not a remote member')
    end
    local st = rcall('HGET', 'ql:j:' .. jid, 'state')
    if not st then return 'missing' end
    if st == 'complete' then return 'complete' end
    rcall('SADD', 'ql:j:' .. jid .. '-dependents', a)
    return 'pending'
  end
  if a == nil then error('Remote(): Arg "prefix" missing') end
  if b == nil then error('Remote(): Arg "' .. (action == 'forget' and 'dependent' or 'dep') ..
    '" missing') end
  if action == 'release' then return M.Remote_release(now, jid, a, b) end
  if action == 'forget' then
    local dk = 'ql:j:' .. jid .. '-dependents'
    local member = M.Remote_find(dk, a, b)
    if member then rcall('SREM', dk, member) return 1 end
    return 0
  end
  error('Remote(): unknown action "' .. action .. '"')
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
            elseif name == 'Api_depends' then
--@ lua/api.lua:14-14
M['Api_depends'] = M.Job_depends
            elseif name == 'Api_workers' then
--@ lua/api.lua:16-16
M['Api_workers'] = M.Worker_workers
            elseif name == 'Api_unpause' then
--@ lua/api.lua:25-25
M['Api_unpause'] = M.Queue_unpause
            elseif name == 'Api_timeout' then
--@ lua/api.lua:27-27
M['Api_timeout'] = M.Job_timeout
            elseif name == 'Api_requeue' then
--@ lua/api.lua:29-29
M['Api_requeue'] = M.Job_requeue
            elseif name == 'Api_unrecur' then
--@ lua/api.lua:32-32
M['Api_unrecur'] = M.Recur_unrecur
            end
          end
        else
          if name_len == 12 then
            if name == 'Check_settle' then
--@ lua/check.lua:49-71
-- Ask the questions put off, one EXISTS for each kind: a dependency set should exist for
-- no job that is not in state depends, and a history only for a job that exists; only
-- when the answer says that some key breaks that is each one asked about alone.
function M.Check_settle(cx)
  local d, h = cx.d, cx.h
  if d[1] and M.Check_call(cx, 'EXISTS', unpack(d)) > 0 then
    for i, depk in ipairs(d) do
      if M.Check_call(cx, 'SCARD', depk) > 0 then
        M.Check_found(cx, 'dependencies-not-depends', cx.dj[i], depk, cx.ds[i] .. ' but ' ..
          depk .. ' is not empty', 'drop its dependencies')
      end
    end
  end
  if h[1] and M.Check_call(cx, 'EXISTS', unpack(h)) < #h then
    for i, jk in ipairs(h) do
      if M.Check_call(cx, 'EXISTS', jk) == 0 then
        M.Check_found(cx, 'history-orphan', cx.hk[i], '', 'the history of a job that is gone',
          'delete it')
      end
    end
  end
  cx.d, cx.dj, cx.ds, cx.h, cx.hk = {}, {}, {}, {}, {}
end
            elseif name == 'Check_in_set' then
--@ lua/check.lua:123-132
-- Whether job `jid` is in set `i` of a queue (`qf` its facts).
function M.Check_in_set(cx, qf, i, jid)
  local sk = qf[i]
  local exists = qf[sk]
  if exists == nil then
    exists = M.Check_call(cx, 'EXISTS', sk) == 1
    qf[sk] = exists
  end
  return exists and M.Check_call(cx, 'ZSCORE', sk, jid) ~= false
end
            elseif name == 'Check_member' then
--@ lua/check.lua:483-528
-- The invariant of one member `m` of collection key `k` (`d` its classification); `at` is
-- its index when a walk of a list met it (nil when a repair asks).
function M.Check_member(now, k, d, m, cx, at)
  local w = d.what
  if w == 'queue' then
    M.Check_queue_member(k, d, m, cx)
  elseif w == 'order' then
    local f = M.Check_call(cx, 'HMGET', 'ql:j:' .. m, 'queue', 'key', 'state')
    if f[1] ~= d.queue or f[2] ~= d.name or f[3] == 'complete' or f[3] == 'failed' then
      M.Check_found(cx, 'order-stale', k, m, m .. ' is gone, finished or not of this key',
        'remove it from the key (the next job may start)')
    end
  elseif w == 'tag' then
    local tags = M.Check_call(cx, 'HGET', 'ql:j:' .. m, 'tags')
    if not (tags and M.Check_tags(cx, tags)[d.tag]) then
      M.Check_found(cx, 'tag-stale', k, m, m .. ' is gone or not tagged ' .. d.tag,
        'remove it from ' .. k)
    end
  elseif w == 'group' then
    local f = M.Check_call(cx, 'HMGET', 'ql:j:' .. m, 'state', 'failure')
    if f[1] ~= 'failed' or (M.Check_group(f[2]) or 'failed') ~= d.group then
      M.Check_found(cx, 'failure-stale', k, m, m .. ' is gone or not failed in ' .. d.group,
        'remove it from ' .. k)
    else
      M.Check_failure_twice(k, d, m, at, cx)
    end
  elseif w == 'failures' then
    if M.Check_call(cx, 'LLEN', 'ql:f:' .. m) == 0 then
      M.Check_found(cx, 'failure-group-empty', k, m, 'failure group ' .. m .. ' has no jobs',
        'remove it from ' .. k)
    end
  elseif w == 'completed' then
    if M.Check_call(cx, 'HGET', 'ql:j:' .. m, 'state') ~= 'complete' then
      M.Check_found(cx, 'completed-stale', k, m, m .. ' is gone or not complete',
        'remove it from ' .. k)
    end
  elseif w == 'dependents' then
    if not M.Remote_is(m) and
        M.Check_call(cx, 'SISMEMBER', 'ql:j:' .. m .. '-dependencies', d.jid) == 0 then
      M.Check_found(cx, 'dependent-stale', k, m, m .. ' is gone or does not depend on ' ..
        d.jid, 'remove it from ' .. k)
    end
  elseif w == 'throttle-set' then
    M.Check_throttle_member(k, d, m, cx)
  end
end
            elseif name == 'Check_repair' then
--@ lua/check.lua:755-787
-- qlpy.repair <now> <key> <invariant> [member]
-- Checks the finding again and, when it still stands, fixes it as the core would have
-- (the finding's `repair` says how), writing a history entry {"what": "repaired",
-- "invariant", "about"} on the job concerned when it exists. Reply: 1 repaired, 0 nothing to
-- repair (already fixed, or a finding qlpy.repair leaves alone). Idempotent.
-- Errors: qlpy.repair(): Arg "key" missing / qlpy.repair(): Arg "invariant" missing
function M.Check_repair(now)
  local k, inv, member = A[3], A[4], A[5] or ''
  if k == nil then error('qlpy.repair(): Arg "key" missing') end
  if inv == nil then error('qlpy.repair(): Arg "invariant" missing') end
  local kind = rcall('TYPE', k).ok
  if kind == 'none' then return 0 end
  local d = M.Check_classify(k, kind)
  local cx = M.Check_context()
  if d.what == 'job' or member == '' or not d.walk then
    M.Check_head(now, k, d, kind, cx)
  else
    M.Check_member(now, k, d, member, cx)
  end
  M.Check_settle(cx)
  for _, f in ipairs(cx.out) do
    if f[1] == inv and f[3] == member and f[5] ~= '' then
      if d.what == 'job' then
        M.Check_fix_job(now, d.jid, inv, member)
        M.Job_hist(d.jid, now, '"repaired"', { invariant = inv, about = member })
      else
        M.Check_fix_key(now, k, d, inv, member)
      end
      return 1
    end
  end
  return 0
end
            elseif name == 'Check_relist' then
--@ lua/check.lua:831-852
-- Put job `jid` back into the set its state names (`sk`): a running job gets a lock that
-- has expired, which the next pop of its queue reclaims as a lost lock.
function M.Check_relist(now, jid, state, queue, f, sk)
  if state == 'complete' then
    rcall('ZADD', 'ql:completed', tonumber(f[7]) or now, jid)
  elseif state == 'failed' then
    local group = M.Check_group(f[6]) or 'failed'
    rcall('LPUSH', 'ql:f:' .. group, jid)
    rcall('SADD', 'ql:failures', group)
  elseif state == 'running' then
    -- Its lock, worker set entry and expires all say the lock ran out now.
    rcall('HSET', 'ql:j:' .. jid, 'expires', now)
    rcall('ZADD', 'ql:q:' .. queue .. '-locks', now, jid)
    if f[5] and f[5] ~= '' then rcall('ZADD', 'ql:w:' .. f[5] .. ':jobs', now, jid) end
  elseif state == 'waiting' then
    M.Job_enqueue(queue, jid, tonumber(f[3]) or 0, now)
  elseif state == 'stalled' then
    rcall('ZADD', sk, '+inf', jid)
  else
    rcall('ZADD', sk, now, jid)
  end
end
            elseif name == 'Config_unset' then
--@ lua/config.lua:81-90
-- config.unset <now> <key>
-- Publishes {"event":"config_unset","option"} on ql:log, then deletes. Reply nil.
-- Error: config.unset(): Arg "option" missing
function M.Config_unset(now)
  local name = A[3]
  if name == nil then error('config.unset(): Arg "option" missing') end
  rcall('PUBLISH', 'ql:' .. 'log', encode({ event = 'config_unset', option = name }))
  rcall('HDEL', 'ql:config', name)
  return nil
end
            elseif name == 'Expire_check' then
--@ lua/expiry.lua:23-26
-- Reap `queue` when its deadline set exists (the listings' check).
function M.Expire_check(now, queue)
  if rcall('EXISTS', 'ql:q:' .. queue .. '-expiring') == 1 then M.Expire_reap(now, queue) end
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
--@ lua/failure.lua:25-69
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
    local f = rcall('HMGET', jk, 'state', 'priority', 'retries', 'history', 'queue',
      'throttles', 'key', 'ttl')
    if f[1] then
      M.Job_hist(jid, now, '"put"', { q = queue }, f[4] or false)
      rcall('HSET', jk, 'state', 'waiting', 'worker', '', 'expires', 0, 'queue', queue,
        'remaining', f[3] or 0)
      local priority = tonumber(f[2]) or 0
      if f[6] or f[7] or f[8] then
        -- Back into a queue: it joins its ordering key there and passes the gate.
        M.Job_enter(now, jid, f[5] or queue, queue, f[6], f[7] or nil, f[8], priority, true)
      else
        M.Job_enqueue(queue, jid, priority, now)
      end
      moved = moved + 1
    end
  end
  rcall('LTRIM', gk, 0, -count - 1)
  if rcall('LLEN', gk) == 0 then rcall('SREM', 'ql:failures', group) end
  return moved
end
            elseif name == 'Job_complete' then
--@ lua/job/complete.lua:3-161
-- complete <now> <jid> <worker> <queue> <data> [next q] [delay d] [depends json]
--   [namespace prefix]
-- Reply: complete | waiting | scheduled | depends (| throttled: the job's ordering key or a
-- named throttle makes it wait in the next queue). Events: ql:completed (tracked), then
-- ql:log completed or advanced. A dangling option name is ignored. The job gives back its
-- throttles and its ordering key's turn; advancing, it joins its key in the next queue.
-- Errors: Job(): no jid provided / Complete(): Arg "worker" missing / Complete(): Arg "queue"
-- missing / Complete(): Arg "data" missing or not JSON: <x> / assertion failed! (delay) /
-- Complete(): Arg "depends" not JSON: <x> / Complete(): "delay" cannot be used without a
-- "next". / Complete(): "depends" cannot be used without a "next". / Complete(): Job <jid>
-- does not exist / ... is not currently running: <state> / ... has been handed out to another
-- worker: <w> / ... running in another queue: <q> / Complete(): "namespace" cannot be used
-- without a "next". With `namespace` (a namespace's key prefix, qless_py's extension), the
-- job completes here and its next stage is put in queue q of that namespace, through the
-- outbox (lua/remote.lua): the reply is then "complete".
--@inline
function M.Job_complete(now)
  local jid, worker, queue, data = A[3], A[4], A[5], A[6]
  if jid == nil then error('Job(): no jid provided') end
  if worker == nil then error('Complete(): Arg "worker" missing') end
  if queue == nil then error('Complete(): Arg "queue" missing') end
  if data ~= '{}' and decode(data) == false then
    error('Complete(): Arg "data" missing or not JSON: ' .. tostring(data))
  end
  local nextq, delay, depends, handoff = nil, 0, nil, nil
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
    if opts.namespace ~= nil then
      if nextq == nil then error('Complete(): "namespace" cannot be used without a "next".') end
      local ns = opts.namespace
      -- the shape of a prefix, `ql:` or `ql:{<name>}:` (key names are the prelude's alone)
      if not (ns:match('^%l%l:$') or ns:match('^%l%l:{[^{}]+}:$')) then
        error('Complete(): Arg "namespace" is not a namespace prefix: ' .. ns)
      end
      handoff = { p = opts.namespace, queue = nextq, delay = delay, depends = depends }
      nextq, depends = nil, nil
    end
  end
  -- The priority is read only for a next queue (each field read scans the job's hash).
  local jk = 'ql:j:' .. jid
  -- 1 state, 2 worker, 3 queue, 4 history, 5 time, 6 retries, 7 throttles, 8 priority. A
  -- job that uses an extension has a `throttles` field (Job.store_flow); only then are its
  -- key and ttl read.
  local f
  if nextq == nil then
    f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries',
      'throttles')
  else
    f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries',
      'throttles', 'priority')
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
  -- The job gives back its throttles and lets the next job of its ordering key start.
  local okey, ttl_s = nil, nil
  if f[7] then
    okey, ttl_s = M.Job_flow_leave(now, jid, queue, f[7])
  end
  local retries = f[6] or 0
  if nextq ~= nil then
    rcall('PUBLISH', 'ql:' .. 'log',
      encode({ jid = jid, event = 'advanced', queue = queue, to = nextq }))
    M.Job_hist(jid, now, '"put"', '{"q":' .. encode(nextq) .. '}', false, whole)
    local now_arg = M.Num_score_arg(now, tstr)
    rcall('ZADD', 'ql:queues', 'NX', now_arg, nextq)
    rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'waiting', 'worker', '',
      'failure', '{}', 'queue', nextq, 'expires', '0', 'remaining', retries)
    local flow = f[7]
    if delay > 0 and (depends == nil or #depends == 0) then
      if flow then M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, 0, false) end
      rcall('ZADD', 'ql:q:' .. nextq .. '-scheduled', now + delay, jid)
      return 'scheduled'
    end
    local linked = 0
    for _, d in ipairs(depends or {}) do
      if M.Job_link(jid, d) then linked = linked + 1 end
    end
    if linked > 0 then
      if flow then M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, 0, false) end
      rcall('ZADD', 'ql:q:' .. nextq .. '-depends', now, jid)
      rcall('HSET', jk, 'state', 'depends')
      if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
      return 'depends'
    end
    local priority = tonumber(f[8]) or 0
    if flow then
      if M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, priority, true) then
        return 'throttled'
      end
      return 'waiting'
    end
    M.Job_enqueue(nextq, jid, priority, now)
    return 'waiting'
  end
  if handoff then M.Job_hand_off(jid, data, handoff) end
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
            elseif name == 'Job_hand_off' then
--@ lua/job/complete.lua:163-170
-- The next stage of completed job `jid` goes to another namespace: a put there, through the
-- outbox, with the job's class, priority, tags and retries and the completing data.
function M.Job_hand_off(jid, data, h)
  local f = rcall('HMGET', 'ql:j:' .. jid, 'klass', 'priority', 'tags', 'retries')
  M.Remote_send({ op = 'put', p = h.p, jid = jid, queue = h.queue, klass = f[1], data = data,
    priority = f[2] or '0', tags = f[3] or '{}', retries = f[4] or '5',
    delay = h.delay, depends = h.depends and encode(h.depends) or nil })
end
            elseif name == 'Job_undepend' then
--@ lua/job/depends.lua:64-72
-- Move a job out of the depends state into its queue's work set (depends off); `f` is its
-- state, queue, priority, throttles, key and ttl.
function M.Job_undepend(now, jid, f)
  local queue = f[2]
  if queue then
    rcall('ZREM', 'ql:q:' .. queue .. '-depends', jid)
    M.Job_ready_or_enqueue(now, queue, jid, tonumber(f[3]) or 0, f[4], f[5], f[6], 'depends')
  end
end
            elseif name == 'Job_tag_list' then
--@ lua/job/fields.lua:17-23
-- Decoded tag list of a job's stored `tags` text ({} when absent or unreadable).
function M.Job_tag_list(text)
  if not text then return {} end
  local ok, v = pcall(decode, text)
  if ok and M.Json_strings(v) then return v end
  return {}
end
            elseif name == 'Job_throttle' then
--@ lua/job/gate.lua:52-66
-- Make `jid` wait in state throttled in `queue`: in the queue's -throttled set and in the
-- pending set of `tid`, the throttle it waits for (none when it waits for its ordering
-- key). A job that was throttled already keeps its places, leaves the pending sets of its
-- other throttles (`all`, its stored list) and gets no second history entry. `state` nil:
-- read it here.
function M.Job_throttle(now, jid, queue, tid, state, all)
  if state == nil then state = rcall('HGET', 'ql:j:' .. jid, 'state') end
  if state == 'throttled' then M.Job_unpend(jid, all, tid) end
  if tid then rcall('ZADD', 'ql:th:' .. tid .. '-pending', 'NX', now, jid) end
  rcall('ZADD', 'ql:q:' .. queue .. '-throttled', 'NX', now, jid)
  if state ~= 'throttled' then
    rcall('HSET', 'ql:j:' .. jid, 'state', 'throttled')
    M.Job_hist(jid, now, '"throttled"', '{"queue":' .. encode(queue) .. '}')
  end
end
            elseif name == 'Job_giveback' then
--@ lua/job/giveback.lua:3-47
-- qlpy.giveback <now> <jid> <worker>
-- If `jid` is running under `worker`: the job becomes waiting in its own queue again, as a
-- put of it by that worker would make it (history entry `put` with {"q": queue}, out of
-- the queue's lock set and the worker's job set, `worker` "", `expires` 0, `time` now,
-- back in the work set by its priority and now), without spending or restoring a retry:
-- `remaining`, `retries`, priority, tags and data stay as they are. Nothing happens if the
-- job is missing, not running, or held by another worker: a command that ended the lease
-- (complete, fail, retry, a move, a timeout, a lock expiry) came first.
-- A job that uses an extension (its `throttles` field) gives back its throttles' locks and
-- passes the gate again, as a timed-out job does: it keeps its ordering key's turn, waits
-- `throttled` behind the jobs already waiting when a throttle has no room, and must start
-- within its ttl again.
-- Reply: 1 when given back, 0 when the job was not that worker's to give.
-- Events (as the owner's put): ql:log put, then ql:put (tracked).
-- Errors: qlpy.giveback(): Arg "jid" missing / qlpy.giveback(): Arg "worker" missing
function M.Job_giveback(now)
  local jid, worker = A[3], A[4]
  if jid == nil then error('qlpy.giveback(): Arg "jid" missing') end
  if worker == nil then error('qlpy.giveback(): Arg "worker" missing') end
  local jk = 'ql:j:' .. jid
  local f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'priority', 'history', 'throttles')
  if f[1] ~= 'running' or f[2] ~= worker then return 0 end
  local queue = f[3] or ''
  local qjson = encode(queue)
  rcall('PUBLISH', 'ql:' .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
  M.Job_hist(jid, now, '"put"', '{"q":' .. qjson .. '}', f[5] or false)
  M.Queue_unlist(queue, jid)
  rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
  if f[6] then
    rcall('HSET', jk, 'worker', '', 'expires', '0', 'time', M.Num_time_text(now))
    local g = rcall('HMGET', jk, 'key', 'ttl')
    M.Job_leave(now, jid, queue, f[6], nil)
    if not M.Job_ready(now, queue, jid, tonumber(f[4]) or 0, f[6], g[1] or nil, tonumber(g[2]),
        now, 'running') then
      rcall('HSET', jk, 'state', 'waiting')
    end
  else
    rcall('HSET', jk, 'state', 'waiting', 'worker', '', 'expires', '0',
      'time', M.Num_time_text(now))
    M.Job_enqueue(queue, jid, tonumber(f[4]) or 0, now)
  end
  M.Job_notify(jid, 'put')
  return 1
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
            elseif name == 'Job_put_args' then
--@ lua/job/put.lua:68-79
-- The checked arguments of one put whose options are ARGV[first..last]: delay, then the
-- options given (nil when not given; depends false, unique false).
--@inline
function M.Job_put_args(queue, jid, klass, data, delay_s, first, last)
  local delay = M.Job_put_check(queue, jid, klass, data, delay_s)
  if (last - first + 1) % 2 == 1 then error('Odd number of additional args') end
  -- No table at all when there are no options (the common case).
  if last < first then return delay, nil, nil, nil, false, nil, nil, nil, false end
  local opts = M.Job_options(first, last)
  local retries, tags, priority, depends, throttles, okey, ttl, unique = M.Job_put_options(opts)
  return delay, retries, tags, priority, depends, throttles, okey, ttl, unique
end
            elseif name == 'Job_put_many' then
--@ lua/job/put_many.lua:7-55
-- qlpy.put_many <now> <worker> <queue> (<jid> <klass> <data> <delay> <n> [name value]*n)...
-- Each job is put exactly as `put <now + 0.00001 (i - 1)> <worker> <queue> <jid> <klass>
-- <data> <delay>` with its n option pairs would put it (every put option, unique included):
-- job i is put 10 us after job i - 1, so that jobs of equal priority pop in batch order.
-- Every job is checked before the first write: when one is refused, nothing is written.
-- Reply: array of the jids in order, nil in place of a unique job left alone ({} when no
-- job is given). Events: those of each put, in order.
-- Errors: Queue(): no queue name provided / qlpy.put_many(): job <i>: <put's phrase> (i
-- counts from 1) / qlpy.put_many(): job <i>: option count missing or not a whole number:
-- <x>
function M.Job_put_many(now)
  local worker, queue = A[3], A[4]
  if queue == nil then error('Queue(): no queue name provided') end
  local jobs = {}
  local ok, err = pcall(M.Job_put_many_args, queue, jobs)
  if not ok then
    -- put's own message, with the job named after the position Lua gave it (if any).
    local at, message = tostring(err):match('^(user_script:%d+: )(.*)$')
    if not at then at, message = '', tostring(err) end
    error(at .. 'qlpy.put_many(): job ' .. (#jobs + 1) .. ': ' .. message, 0)
  end
  if #jobs == 0 then return {} end
  -- One EXISTS for every jid: when none exists and none repeats (the common batch), no job
  -- needs an EXISTS of its own, and the waiting ones go into the work set in one ZADD.
  local fresh = not jobs.repeated and M.Job_none_exist(jobs)
  local probe, batch = nil, nil
  if fresh then
    probe = 2 * rcall('EXISTS', 'ql:tracked')
    batch = {}
  end
  local out
  if fresh and jobs.plain then
    out = M.Job_put_plain(now, queue, jobs, probe, batch)
  else
    out = {}
    for i, j in ipairs(jobs) do
      if type(j) ~= 'table' then j = { A[j], A[j + 1], A[j + 2], 0, nil, nil, nil, false } end
      out[i] = M.Job_put_write(now + 0.00001 * (i - 1), worker, queue, j[1], j[2], j[3], j[4],
        j[5], j[6], j[7], j[8], j[9], j[10], j[11], j[12], probe, batch)
    end
  end
  if batch then
    if #batch > 0 then
      M.Queue_call_list('ZADD', 'ql:q:' .. queue .. '-work', batch, 1000)
    end
    rcall('ZADD', 'ql:queues', 'NX', M.Num_score_arg(now, M.Num_time_text(now)), queue)
  end
  return out
end
            elseif name == 'Job_multiget' then
--@ lua/job/render.lua:165-170
-- multiget <now> [jid...]: JSON array of the existing jobs, in argument order ({} if none).
function M.Job_multiget(now)
  local parts = {}
  for i = 3, #A do parts[#parts + 1] = M.Job_render(A[i]) end
  return M.Json_list(parts)
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
            elseif name == 'Queue_unlist' then
--@ lua/queue.lua:56-69
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
            elseif name == 'Queue_render' then
--@ lua/queue.lua:143-148
-- Render a list of jids as a JSON array of job objects, skipping missing jobs.
function M.Queue_render(jids)
  local parts = {}
  for _, jid in ipairs(jids) do parts[#parts + 1] = M.Job_render(jid) end
  return M.Json_list(parts)
end
            elseif name == 'Queue_counts' then
--@ lua/queue.lua:176-196
-- The counts object of one queue (protocol 2.11); promotes every due scheduled job and
-- expires due jobs (Expire.check). `throttled` (the dialect's count) is there only when the
-- queue has throttled jobs, so that the object keeps qless-core's shape otherwise.
function M.Queue_counts(now, queue)
  local lk, sk = 'ql:q:' .. queue .. '-locks', 'ql:q:' .. queue .. '-scheduled'
  local stalled = rcall('ZCOUNT', lk, 0, now)
  M.Queue_promote(now, queue, rcall('ZCARD', sk))
  M.Expire_check(now, queue)
  local throttled = rcall('ZCARD', 'ql:q:' .. queue .. '-throttled')
  return {
    name = queue,
    waiting = rcall('ZCARD', 'ql:q:' .. queue .. '-work'),
    stalled = stalled,
    running = rcall('ZCARD', lk) - stalled,
    scheduled = rcall('ZCARD', sk),
    depends = rcall('ZCARD', 'ql:q:' .. queue .. '-depends'),
    recurring = rcall('ZCARD', 'ql:q:' .. queue .. '-recur'),
    paused = rcall('SISMEMBER', 'ql:paused_queues', queue) == 1,
    throttled = throttled > 0 and throttled or nil,
  }
end
            elseif name == 'Queue_queues' then
--@ lua/queue.lua:198-206
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
--@ lua/queue.lua:208-216
-- length <now> <queue>: integer, running + waiting + scheduled jobs.
-- Error: Queue(): no queue name provided
function M.Queue_length(now)
  local queue = A[3]
  if queue == nil then error('Queue(): no queue name provided') end
  M.Expire_check(now, queue)
  return rcall('ZCARD', 'ql:q:' .. queue .. '-locks') + rcall('ZCARD', 'ql:q:' .. queue .. '-work') +
    rcall('ZCARD', 'ql:q:' .. queue .. '-scheduled')
end
            elseif name == 'Queue_forget' then
--@ lua/queue.lua:278-282
-- queue.forget <now> <queue>...: drop the names from ql:queues only. Reply nil.
function M.Queue_forget(now)
  M.Queue_with_names('ZREM', 'ql:queues', 3)
  return nil
end
            elseif name == 'Recur_update' then
--@ lua/recurring.lua:186-234
-- recur.update <now> <jid> [name value]...
-- Names: priority, retries, interval, data, klass, queue, backlog; throttles (the dialect's:
-- a JSON array, the queue's own tid is appended), key ('' removes it), ttl (0 removes it).
-- Every pair is validated before the first is applied (the reference applies them one by
-- one). Reply 1. Errors: Recurring(): no jid provided / Recur(): No recurring job <jid> /
-- No value provided for <name> / Recur(): Arg "<name>" must be a number: <x> / Recur(): Arg
-- "backlog" not a number: <x> / Recur(): Arg "data" is not JSON-encoded: <x> / Recur():
-- Unrecognized option "<name>" / Recur(): Arg "throttles" is not JSON-encoded: <x> / Recur():
-- Arg "ttl" must be a number: <x>
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
      M.Recur_set_throttles(tk, M.Throttle_own(M.Throttle_list(rcall('HGET', tk, 'throttles')), queue),
        value)
      queue = value
    elseif name == 'throttles' then
      M.Recur_set_throttles(tk, M.Throttle_list(value), queue)
    elseif (name == 'key' and value == '') or (name == 'ttl' and M.Num_parse(value) == 0) then
      rcall('HDEL', tk, name)
    elseif name == 'ttl' then
      rcall('HSET', tk, 'ttl', M.Num_parse(value))
    else
      rcall('HSET', tk, name, value)
    end
  end
  return 1
end
            elseif name == 'Remote_parse' then
--@ lua/remote.lua:20-27
-- The prefix and jid of a remote member (nil, nil when it does not read as one).
function M.Remote_parse(member)
  local ok, v = pcall(decode, member:sub(2))
  if not ok or type(v) ~= 'table' or type(v.p) ~= 'string' or type(v.jid) ~= 'string' then
    return nil, nil
  end
  return v.p, v.jid
end
            elseif name == 'Remote_early' then
--@ lua/remote.lua:135-139
-- Whether a put may skip remote dependency `member` of job `jid`: its release came first.
function M.Remote_early(jid, member)
  local p, dep = M.Remote_parse(member)
  return p ~= nil and rcall('SISMEMBER', 'ql:j:' .. jid .. '-released', p .. '\0' .. dep) == 1
end
            elseif name == 'Stats_expire' then
--@ lua/stats.lua:41-46
-- Keep a stats hash only for the configured history.
function M.Stats_expire(k, now, day)
  local ttl = M.Stats_ttl(now, day)
  if ttl < 1 then ttl = 1 end
  rcall('EXPIRE', k, ttl)
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
            elseif name == 'Throttle_own' then
--@ lua/throttle.lua:29-40
-- The named throttles in list `all`: every tid but `queue`'s own (nil when none).
function M.Throttle_own(all, queue)
  if not all then return nil end
  local qtid, out = 'ql:q:' .. queue, nil
  for _, tid in ipairs(all) do
    if tid ~= qtid then
      out = out or {}
      out[#out + 1] = tid
    end
  end
  return out
end
            elseif name == 'Throttle_set' then
--@ lua/throttle.lua:226-244
-- throttle.set <now> <tid> <maximum> [expiration]
-- Sets the maximum (0: unlimited); with expiration > 0, that many seconds of TTL on the
-- throttle's hash only. Jobs waiting for the throttle start at once as far as the new
-- maximum has room (the dialect waits for the next release). Reply nil.
-- Errors: Throttle(): no tid provided / Throttle(): Arg "maximum" missing or not a number:
-- <x> / Throttle(): Arg "maximum" must not be negative: <x> / Throttle(): Arg "expiration"
-- not a number: <x>
function M.Throttle_set(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  local max = M.Throttle_max_arg(A[4])
  local expiration = 0
  if A[5] ~= nil then
    expiration = M.Num_parse(A[5])
    if expiration == nil then error('Throttle(): Arg "expiration" not a number: ' .. A[5]) end
  end
  M.Throttle_write(now, tid, max, expiration)
  return nil
end
            elseif name == 'Throttle_get' then
--@ lua/throttle.lua:246-252
-- throttle.get <now> <tid>: {"id": tid, "maximum": n}, maximum 0 when the throttle does not
-- exist. Error: Throttle(): no tid provided
function M.Throttle_get(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  return M.Throttle_object(tid)
end
            elseif name == 'Throttle_ttl' then
--@ lua/throttle.lua:290-296
-- throttle.ttl <now> <tid>: the TTL of the throttle's hash (-1 none, -2 no such throttle).
-- Error: Throttle(): no tid provided
function M.Throttle_ttl(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  return rcall('TTL', 'ql:th:' .. tid)
end
            elseif name == 'Api_multiget' then
--@ lua/api.lua:4-4
M['Api_multiget'] = M.Job_multiget
            elseif name == 'Api_complete' then
--@ lua/api.lua:9-9
M['Api_complete'] = M.Job_complete
            elseif name == 'Api_priority' then
--@ lua/api.lua:20-20
M['Api_priority'] = M.Job_priority
            end
          end
        end
      else
        if name_len < 14 then
          if name_len == 13 then
            if name == 'Check_context' then
--@ lua/check.lua:28-37
-- A step's context `cx`: its findings `out`, the server calls made `n`, the facts of
-- each queue met (`q`, see Check.queue_facts), the tag lists read (`t`, see Check.tags),
-- and the questions put off to Check.settle: the dependency sets that must not exist (`d`,
-- with the job's hash in `dj` and state in `ds`) and the jobs whose history was met (`h`,
-- the history key in `hk`). Every server call of a check goes through Check.call, which
-- counts it.
function M.Check_context()
  return { out = {}, n = 0, q = {}, t = {}, d = {}, dj = {}, ds = {}, h = {}, hk = {},
    clock = false, t0 = 0, tn = 4 }
end
            elseif name == 'Check_running' then
--@ lua/check.lua:282-313
-- A running job: its lock and its worker's job set scored by its `expires` (not while in
-- the grace period after a lost lock, when pop has moved both), a worker, and a lock of
-- each of its named throttles.
function M.Check_running(jid, jk, queue, f, cx)
  local lk = 'ql:q:' .. queue .. '-locks'
  if f[4] == '' then
    M.Check_found(cx, 'running-without-worker', jk, lk, 'running but no worker holds it',
      'it gives back its lock and throttles and waits again, as after a timeout')
    return
  end
  local lock = tonumber(M.Check_call(cx, 'ZSCORE', lk, jid))
  local expires = tonumber(f[5])
  if lock and f[10] ~= '1' then
    if not expires or math.abs(lock - expires) > 0.001 then
      M.Check_found(cx, 'lock-mismatch', jk, lk, 'its lock in ' .. lk .. ' is not scored by ' ..
        'its expires', 'score the lock by its expires')
    end
    local wk = 'ql:w:' .. f[4] .. ':jobs'
    local held = tonumber(M.Check_call(cx, 'ZSCORE', wk, jid))
    if expires and (not held or math.abs(held - expires) > 0.001) then
      M.Check_found(cx, 'worker-set-missing', jk, wk, 'running under ' .. f[4] ..
        ' but not in ' .. wk .. ' at its expires', 'add it to ' .. wk .. ' at its expires')
    end
  end
  for _, tid in ipairs(M.Throttle_own(M.Throttle_list(f[8]), queue) or {}) do
    local tk = 'ql:th:' .. tid .. '-locks'
    if not M.Check_call(cx, 'ZSCORE', tk, jid) then
      M.Check_found(cx, 'throttle-lock-missing', jk, tid, 'running under throttle ' .. tid ..
        ' without a lock in ' .. tk, 'add it to ' .. tk)
    end
  end
end
            elseif name == 'Check_fix_job' then
--@ lua/check.lua:789-829
-- Fix finding `inv` of job `jid` (`member` as the finding names it).
function M.Check_fix_job(now, jid, inv, member)
  local jk = 'ql:j:' .. jid
  local f = rcall('HMGET', jk, 'state', 'queue', 'priority', 'expires', 'worker', 'failure',
    'time')
  local state, queue = f[1], f[2]
  if inv == 'queue-unlisted' then
    rcall('ZADD', 'ql:queues', 'NX', now, queue)
  elseif inv == 'not-in-state-set' then
    M.Check_relist(now, jid, state, queue, f, member)
  elseif inv == 'running-without-worker' then
    M.Check_requeue(now, jid, queue)
  elseif inv == 'in-other-set' then
    rcall('ZREM', member, jid)
  elseif inv == 'lock-mismatch' then
    rcall('ZADD', member, f[4], jid)
  elseif inv == 'worker-set-missing' then
    rcall('ZADD', member, f[4], jid)
  elseif inv == 'throttle-lock-missing' then
    rcall('ZADD', 'ql:th:' .. member .. '-locks', 1, jid)
  elseif inv == 'tag-unindexed' then
    rcall('ZADD', 'ql:t:' .. member, now, jid)
    rcall('ZINCRBY', 'ql:tags', 1, member)
  elseif inv == 'order-missing' then
    M.Order_join(queue, member, jid)
  elseif inv == 'expiring-missing' then
    local ttl = tonumber(rcall('HGET', jk, 'ttl'))
    if ttl then M.Expire_arm(queue, jid, now + ttl) end
  elseif inv == 'dependency-one-sided' then
    rcall('SADD', 'ql:j:' .. member .. '-dependents', jid)
  elseif inv == 'dependency-gone' or inv == 'dependency-complete' then
    local depk = jk .. '-dependencies'
    rcall('SREM', depk, member)
    rcall('SREM', 'ql:j:' .. member .. '-dependents', jid)
    if rcall('SCARD', depk) == 0 then M.Job_unblock(now, jid) end
  elseif inv == 'depends-without-dependency' then
    M.Job_unblock(now, jid)
  elseif inv == 'dependencies-not-depends' then
    M.Check_drop_dependencies(jid)
  end
end
            elseif name == 'Check_requeue' then
--@ lua/check.lua:854-863
-- A running job that no worker holds waits again, as a timed-out one does: out of the
-- locks set, its throttles given back (its ordering key's turn kept), through the gate.
function M.Check_requeue(now, jid, queue)
  local jk = 'ql:j:' .. jid
  local f = rcall('HMGET', jk, 'priority', 'throttles', 'key', 'ttl')
  rcall('ZREM', 'ql:q:' .. queue .. '-locks', jid)
  if f[2] then M.Job_leave(now, jid, queue, f[2], nil) end
  rcall('HSET', jk, 'worker', '', 'expires', 0)
  M.Job_ready_or_enqueue(now, queue, jid, tonumber(f[1]) or 0, f[2], f[3], f[4], 'running')
end
            elseif name == 'Check_fix_key' then
--@ lua/check.lua:872-901
-- Fix finding `inv` of key `k` (classified `d`) and its `member`.
function M.Check_fix_key(now, k, d, inv, member)
  if inv == 'history-orphan' then
    rcall('DEL', k)
  elseif inv == 'dependencies-orphan' then
    M.Check_drop_dependencies(d.jid)
  elseif inv == 'failure-group-unlisted' then
    rcall('SADD', 'ql:failures', d.group)
  elseif inv == 'recur-unlisted' then
    rcall('ZADD', member, now, d.jid)
  elseif inv == 'order-stale' then
    M.Order_leave(now, d.queue, d.name, member)
  elseif inv == 'tag-stale' then
    rcall('ZREM', k, member)
    rcall('ZINCRBY', 'ql:tags', -1, d.tag)
  elseif inv == 'failure-stale' then
    M.Job_unlist_failure(member, d.group)
  elseif inv == 'throttle-stale' then
    M.Throttle_release(now, member, { d.tid })
  elseif inv == 'failure-duplicate' then
    local n = #rcall('LPOS', k, member, 'COUNT', 0)
    rcall('LREM', k, 1 - n, member)
  elseif inv == 'failure-group-empty' or inv == 'dependent-stale' then
    rcall('SREM', k, member)
  else
    -- member-without-job, member-of-other-queue, expiring-stale, recur-stale,
    -- completed-stale: the entry goes.
    rcall('ZREM', k, member)
  end
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
            elseif name == 'Job_put_check' then
--@ lua/job/put.lua:50-66
-- The checked positional arguments of one put; returns its delay.
--@inline
function M.Job_put_check(queue, jid, klass, data, delay_s)
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
  return delay
end
            elseif name == 'Job_put_write' then
--@ lua/job/put.lua:154-322
-- The writes of one put, after Job.put_args. `probe` is the put's EXISTS bit set when the
-- caller knows it (qlpy.put_many); with `batch` (a list) a job that becomes waiting is not
-- added to the work set but appended to it as score, jid, and ql:queues is left to the
-- caller. Returns the jid, or false when `unique` left an unfinished job alone.
--@inline
function M.Job_put_write(now, worker, queue, jid, klass, data, delay, o_retries, o_tags,
    o_priority, depends, given, okey, ttl, unique, probe, batch)
  -- One EXISTS tells whether the job exists (1) and whether any job is tracked (2): it
  -- counts a key once per mention. A new job then needs no HMGET, and an empty ql:tracked
  -- no ZSCORE.
  local jk = 'ql:j:' .. jid
  if not probe then
    probe = rcall('EXISTS', jk, 'ql:tracked', 'ql:tracked')
  end
  -- 1 jid, 2 state, 3 queue, 4 worker, 5 priority, 6 retries, 7 tags, 8 failure, 9 history,
  -- 10 throttles, 11 key, 12 ttl
  local f
  if probe % 2 == 1 then
    f = rcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'priority', 'retries', 'tags',
      'failure', 'history', 'throttles', 'key', 'ttl')
    if unique and f[2] ~= 'complete' then return false end
  else
    -- A new job has none of those fields. KEYS serves as the empty list, so nothing has
    -- to be made for it: it is empty, or holds the namespace prefix at [1] (the `jid`
    -- field, which is never read: the job's `state` says whether it exists).
    f = KEYS
  end
  local retries = o_retries
  if retries == nil then
    retries = f[6] and tonumber(f[6]) or 5
  end
  -- Tag and dependency lists stay false when there are none.
  local old_tags = f[7] and M.Job_tag_list(f[7])
  local tags = old_tags
  if o_tags ~= nil then tags = o_tags end
  local priority = o_priority
  if priority == nil then
    priority = f[5] and tonumber(f[5]) or 0
  end
  -- The throttle list to store: the named throttles, then the queue's own tid. The
  -- dialect's clients move a job by putting it into its new queue with its stored list, so
  -- the old queue's tid goes, as the dialect's put drops it: left in, the old queue's
  -- throttle would hold the job for ever. Only a job that exists in another queue pays.
  local stored = nil
  if given then
    if f[3] and f[3] ~= queue then
      stored = M.Throttle_moved(given, f[3], queue)
    else
      stored = M.Throttle_stored(given, queue)
    end
    if stored then stored = encode(stored) end
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
  local qjson = encode(queue)
  local tstr = M.Num_time_text(now)
  local whole = M.Num_whole_text(now, tstr)
  -- The history entry comes before the event: at the memory limit the server refuses a
  -- script's first write that needs memory, and a refused put must not have announced
  -- itself (docs/operations.md, "At the memory limit").
  M.Job_hist(jid, now, '"put"', '{"q":' .. qjson .. '}', f[9] or false, whole)
  -- The JSON text cjson writes for { jid, event, queue } (key order is not significant).
  rcall('PUBLISH', 'ql:' .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
  local old_queue, old_state, old_worker = f[3], f[2], f[4]
  if old_queue then
    M.Queue_unlist(old_queue, jid)
    rcall('ZREM', 'ql:q:' .. old_queue .. '-depends', jid)
    if old_state == 'throttled' then
      rcall('ZREM', 'ql:q:' .. old_queue .. '-throttled', jid)
    end
    if f[12] then rcall('ZREM', 'ql:q:' .. old_queue .. '-expiring', jid) end
  end
  if f[10] or f[11] or f[12] then
    -- The job gives back its throttles and its place in its ordering key; a put sets them
    -- afresh.
    M.Job_leave(now, jid, old_queue, f[10], f[11] or nil)
    rcall('HDEL', jk, 'throttles', 'key', 'ttl')
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
  local has_deps = (f[2] or (depends and #depends > 0)) and rcall('SCARD', depk) > 0
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
  local flow = stored or okey or ttl
  if flow then
    stored = M.Job_store_flow(jid, queue, stored, okey, ttl)
    if okey then M.Order_join(queue, okey, jid) end
  end
  if has_deps then
    rcall('ZADD', 'ql:q:' .. queue .. '-depends', now, jid)
    if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
  elseif delay > 0 then
    rcall('ZADD', 'ql:q:' .. queue .. '-scheduled', now + delay, jid)
  elseif flow then
    M.Job_ready(now, queue, jid, priority, stored, okey, ttl, now, state)
  elseif batch then
    -- The work-set score of Job.enqueue (protocol 2.8).
    batch[#batch + 1] = priority - (now / 10000000000)
    batch[#batch + 1] = jid
  else
    M.Job_enqueue(queue, jid, priority, now)
  end
  if not batch then
    local now_arg = M.Num_score_arg(now, tstr)
    rcall('ZADD', 'ql:queues', 'NX', now_arg, queue)
  end
  if probe >= 2 and rcall('ZSCORE', 'ql:tracked', jid) then
    rcall('PUBLISH', 'ql:' .. 'put', jid)
  end
  return jid
end
            elseif name == 'Job_put_plain' then
--@ lua/job/put_many.lua:99-128
-- The writes of a batch of plain jobs (no options, no delay) none of which exists: exactly
-- what Job.put_write writes for each (the same events, history entry, hash and score),
-- without what only other jobs need. `jobs` holds the ARGV index of each jid; `tracked` is
-- 2 when any job is tracked; the work-set entries go to `batch`.
function M.Job_put_plain(now, queue, jobs, tracked, batch)
  local out = {}
  local qjson = encode(queue)
  local log_tail = ',"event":"put","queue":' .. qjson .. '}'
  local hist_tail = ',"put",{"q":' .. qjson .. '}]'
  local logk = 'ql:' .. 'log'
  for n, i in ipairs(jobs) do
    local jid = A[i]
    local t = now + 0.00001 * (n - 1)
    local tstr = format('%.20f', t)
    local whole = M.Num_whole_text(t, tstr)
    local jk = 'ql:j:' .. jid
    rcall('PUBLISH', logk, '{"jid":' .. encode(jid) .. log_tail)
    rcall('RPUSH', jk .. '-history', '[' .. whole .. hist_tail)
    rcall('HSET', jk, 'jid', jid, 'klass', A[i + 1], 'data', A[i + 2], 'priority', '0',
      'tags', '{}', 'state', 'waiting', 'worker', '', 'expires', '0', 'queue', queue,
      'retries', '5', 'remaining', '5', 'time', tstr)
    batch[#batch + 1] = 0 - (t / 10000000000)
    batch[#batch + 1] = jid
    if tracked >= 2 and rcall('ZSCORE', 'ql:tracked', jid) then
      rcall('PUBLISH', 'ql:' .. 'put', jid)
    end
    out[n] = jid
  end
  return out
end
            elseif name == 'Num_time_text' then
--@ lua/num.lua:12-14
-- The `time` field format: C %.20f.
--@inline
function M.Num_time_text(t) return format('%.20f', t) end
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
            elseif name == 'Order_is_head' then
--@ lua/ordering.lua:42-49
-- Whether `jid` is the head of key `name` of `queue` (it needs no check when it is first). A
-- job missing from the key (retried into another queue) joins it at the end.
function M.Order_is_head(queue, name, jid)
  local ok = M.Order_set(queue, name)
  if rcall('ZRANGE', ok, 0, 0)[1] == jid then return true end
  if not rcall('ZSCORE', ok, jid) then M.Order_join(queue, name, jid) end
  return M.Order_head(queue, name) == jid
end
            elseif name == 'Queue_revisit' then
--@ lua/pop.lua:290-308
-- A pop that came up short expires the queue's due jobs (a bounded number), and looks at
-- one throttled job of the queue (which one moves with `now`) and lets it go through the
-- gate again. A job waits for a release that never comes
-- when its lock holders went away without one (deleted by another program, or moved by a
-- dialect core's put): this finds it, and the gate drops the stale locks it meets.
function M.Queue_revisit(now, queue)
  M.Expire_check(now, queue)
  local tk = 'ql:q:' .. queue .. '-throttled'
  local n = rcall('ZCARD', tk)
  if n == 0 then return end
  local i = floor(now * 1000) % n
  local jid = rcall('ZRANGE', tk, i, i)[1]
  local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'queue')
  if f[1] ~= 'throttled' or f[2] ~= queue then
    rcall('ZREM', tk, jid)
    return
  end
  M.Job_unthrottle(now, jid)
end
            elseif name == 'Queue_promote' then
--@ lua/queue.lua:30-54
-- P-PROMOTE: move up to `limit` due scheduled jobs into the work set, scored at `now`.
-- `due` is the caller's ZRANGEBYSCORE result when it already has one.
function M.Queue_promote(now, queue, limit, due)
  if limit <= 0 then return end
  local sk = 'ql:q:' .. queue .. '-scheduled'
  due = due or rcall('ZRANGEBYSCORE', sk, 0, now, 'LIMIT', 0, limit)
  for _, jid in ipairs(due) do
    local jk = 'ql:j:' .. jid
    local f = rcall('HMGET', jk, 'priority', 'throttles', 'key', 'ttl')
    local priority = tonumber(f[1]) or 0
    if f[2] or f[3] or f[4] then
      -- The job became ready when its delay ended: its ttl counts from then.
      local at = tonumber(rcall('ZSCORE', sk, jid)) or now
      rcall('ZREM', sk, jid)
      if not M.Job_ready(now, queue, jid, priority, f[2], f[3] or nil, tonumber(f[4]), at,
          'scheduled') then
        rcall('HSET', jk, 'state', 'waiting')
      end
    else
      M.Job_enqueue(queue, jid, priority, now)
      rcall('ZREM', sk, jid)
      rcall('HSET', jk, 'state', 'waiting')
    end
  end
end
            elseif name == 'Queue_reclaim' then
--@ lua/queue.lua:89-108
-- P-RECLAIM: handle the expired locks `expired` of `queue` (pop reads at most its count);
-- returns the jids that may be handed out again. First expiry: courtesy notice and grace
-- period; next: retry consumed.
function M.Queue_reclaim(now, queue, expired)
  local out = {}
  local lk = 'ql:q:' .. queue .. '-locks'
  local grace = M.Config_number('grace-period', 10)
  for _, jid in ipairs(expired) do
    local f = rcall('HMGET', 'ql:j:' .. jid, 'worker', 'grace', 'queue', 'history', 'jid',
      'throttles', 'key')
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
            elseif name == 'Queue_unpause' then
--@ lua/queue.lua:272-276
-- unpause <now> <queue>...: reply nil.
function M.Queue_unpause(now)
  M.Queue_with_names('SREM', 'ql:paused_queues', 3)
  return nil
end
            elseif name == 'Recur_unrecur' then
--@ lua/recurring.lua:131-141
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
            elseif name == 'Remote_forget' then
--@ lua/remote.lua:43-48
-- Job `jid`, a dependent, is gone (cancelled): tell the namespace of its remote dependency
-- `member` to forget it, so that the dependency may be cancelled in turn.
function M.Remote_forget(jid, member)
  local p, dep = M.Remote_parse(member)
  if p then M.Remote_send({ op = 'forget', p = p, jid = dep, dependent = jid }) end
end
            elseif name == 'Remote_outbox' then
--@ lua/remote.lua:157-190
-- qlpy.outbox <now> take <lease> <count>: up to <count> messages to relay, each leased for
-- <lease> seconds: first those whose lease ran out (their relay died), then new ones.
-- Reply: the messages (JSON texts). qlpy.outbox <now> ack <message>...: the messages were
-- applied; they are forgotten. Reply: how many were still leased. qlpy.outbox <now>
-- length: messages not yet acknowledged.
-- Errors: Outbox(): Arg "lease" / "count" not a number: <x> / Outbox(): unknown action
function M.Remote_outbox(now)
  local action = A[3]
  if action == 'take' then
    local lease, count = M.Num_parse(A[4]), tonumber(A[5])
    if lease == nil or lease <= 0 then
      error('Outbox(): Arg "lease" not a number: ' .. tostring(A[4]))
    end
    if count == nil or count < 1 then
      error('Outbox(): Arg "count" not a number: ' .. tostring(A[5]))
    end
    count = floor(count)
    local out = rcall('ZRANGEBYSCORE', 'ql:outbox-taken', '-inf', now, 'LIMIT', 0, count)
    while #out < count do
      local m = rcall('LPOP', 'ql:outbox')
      if not m then break end
      out[#out + 1] = m
    end
    for _, m in ipairs(out) do rcall('ZADD', 'ql:outbox-taken', now + lease, m) end
    return out
  elseif action == 'ack' then
    local n = 0
    for i = 4, #A do n = n + rcall('ZREM', 'ql:outbox-taken', A[i]) end
    return n
  elseif action == 'length' then
    return rcall('LLEN', 'ql:outbox') + rcall('ZCARD', 'ql:outbox-taken')
  end
  error('Outbox(): unknown action "' .. tostring(action) .. '"')
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
            elseif name == 'Throttle_list' then
--@ lua/throttle.lua:18-27
-- The stored tid list `text` as a list of strings, or nil when absent, empty or unreadable.
function M.Throttle_list(text)
  if not text then return nil end
  local ok, v = pcall(decode, text)
  if not ok then return nil end
  v = M.Json_strings(v)
  if not v or #v == 0 then return nil end
  for i = 1, #v do v[i] = tostring(v[i]) end
  return v
end
            elseif name == 'Throttle_full' then
--@ lua/throttle.lua:100-116
-- The first of `tids` that has no room for one more job in a work set (locks and admissions
-- at its maximum, after dropping stale ones), or nil.
function M.Throttle_full(now, tids)
  for _, tid in ipairs(tids) do
    local max = M.Throttle_maximum(tid)
    if max ~= 0 then
      local base = 'ql:th:' .. tid
      local lk, rk = base .. '-locks', base .. '-ready'
      local used = rcall('ZCARD', lk) + rcall('ZCARD', rk)
      if used >= max then
        used = used - M.Throttle_verify(now, lk, true) - M.Throttle_verify(now, rk, false)
        if used >= max then return tid end
      end
    end
  end
  return nil
end
            elseif name == 'Throttle_take' then
--@ lua/throttle.lua:332-342
-- pop: job `jid` of `queue` (stored list `text`) takes a lock of each of its named
-- throttles. When one is full it takes none and is throttled instead: true.
function M.Throttle_take(now, jid, queue, text)
  local all = M.Throttle_list(text)
  local own = M.Throttle_own(all, queue)
  if not own then return false end
  local tid = M.Throttle_acquire(now, jid, own)
  if not tid then return false end
  M.Job_throttle(now, jid, queue, tid, nil, all)
  return true
end
            elseif name == 'Api_heartbeat' then
--@ lua/api.lua:15-15
M['Api_heartbeat'] = M.Job_heartbeat
            elseif name == 'Api_recur.get' then
--@ lua/api.lua:33-33
M['Api_recur.get'] = M.Recur_get
            elseif name == 'Api_recur.tag' then
--@ lua/api.lua:35-35
M['Api_recur.tag'] = M.Recur_tag
            end
          end
        else
          if name_len == 14 then
            if name == 'Check_job_sets' then
--@ lua/check.lua:203-260
-- A job that is not complete: in the set its state names, in no other set of its queue,
-- and its queue in ql:queues.
function M.Check_job_sets(jid, jk, state, queue, f, cx)
  local qf = M.Check_queue_facts(cx, queue)
  if not qf.listed then
    M.Check_found(cx, 'queue-unlisted', jk, queue, 'its queue ' .. queue .. ' is not in ' ..
      'ql:queues', 'add the queue to ' .. 'ql:queues')
  end
  local own = M.Check_state_index(state)
  -- The dialect's throttle release moves a throttled job into the work set and leaves its
  -- state throttled (the pop that takes it says running): one set or the other, then.
  local alt, in_own, in_alt = nil, nil, nil
  if state == 'throttled' then
    alt = 1
    in_own = M.Check_call(cx, 'ZSCORE', qf[own], jid) ~= false
    in_alt = M.Check_call(cx, 'ZSCORE', qf[alt], jid) ~= false
    if not in_own and in_alt then own, alt, in_own, in_alt = alt, own, in_alt, in_own end
  elseif own then
    in_own = M.Check_call(cx, 'ZSCORE', qf[own], jid) ~= false
  end
  for i = 1, 5 do
    local sk = qf[i]
    if i == alt then
      -- the state's other set: the job is in the one or the other
      if in_alt and in_own then
        M.Check_found(cx, 'in-other-set', jk, sk, state .. ' but listed in ' .. sk,
          'remove it from ' .. sk)
      end
    elseif i == own then
      if not in_own and not (state == 'running' and f[4] == '') then
        -- (Check.running reports a running job that no worker holds.)
        local fix = 'add it to ' .. sk
        if state == 'running' then
          fix = 'give it an expired lock: the next pop of ' .. queue .. ' reclaims it'
        end
        M.Check_found(cx, 'not-in-state-set', jk, sk, state .. ' but not in ' .. sk, fix)
      end
    elseif M.Check_in_set(cx, qf, i, jid) then
      M.Check_found(cx, 'in-other-set', jk, sk, state .. ' but listed in ' .. sk,
        'remove it from ' .. sk)
    end
  end
  if state == 'failed' then
    local group = M.Check_group(f[6]) or 'failed'
    local gk = 'ql:f:' .. group
    if not M.Check_call(cx, 'LPOS', gk, jid) then
      M.Check_found(cx, 'not-in-state-set', jk, gk, 'failed but not in ' .. gk,
        'add it to ' .. gk)
    end
  end
  if f[12] and (state == 'waiting' or state == 'throttled') then
    local ek = 'ql:q:' .. queue .. '-expiring'
    if not M.Check_call(cx, 'ZSCORE', ek, jid) and M.Check_unstarted(cx, jid) then
      M.Check_found(cx, 'expiring-missing', jk, ek, state .. ' with a ttl, not started since ' ..
        'it was put, but without a deadline in ' .. ek, 'add it, due in its ttl from now')
    end
  end
end
            elseif name == 'Check_classify' then
--@ lua/check.lua:351-369
-- What key `k` is: { what = kind, ... the names in it }, and the kind of walk its members
-- need ('z' sorted set, 's' set, 'l' list; nil: none). `kind` is the key's TYPE.
function M.Check_classify(k, kind)
  if k == 'ql:queues' or k == 'ql:paused_queues' or k == 'ql:workers' or k == 'ql:config' or
      k == 'ql:tracked' or k == 'ql:tags' or k == 'ql:check' or k == 'ql:shards' or
      k == 'ql:outbox' or k == 'ql:outbox-taken' or k == 'ql:outbox-seq' or k == 'ql:applied' then
    return { what = 'known' }
  end
  -- `ql:{<name>}:...`: a key of a namespace (the default namespace's scan matches them)
  if k:byte(#'ql:' + 1) == 123 then return { what = 'known' } end
  if k == 'ql:failures' then return { what = 'failures', walk = 's', want = 'set' } end
  if k == 'ql:completed' then return { what = 'completed', walk = 'z', want = 'zset' } end
  -- The prefixes, the job's first: most keys are a job's.
  return M.Check_under(k, 'ql:j:', kind) or M.Check_under(k, 'ql:q:', kind) or
    M.Check_under(k, 'ql:w:', kind) or M.Check_under(k, 'ql:t:', kind) or
    M.Check_under(k, 'ql:f:', kind) or M.Check_under(k, 'ql:r:', kind) or
    M.Check_under(k, 'ql:s:', kind) or M.Check_under(k, 'ql:fine:', kind) or
    M.Check_under(k, 'ql:th:', kind) or { what = 'unknown' }
end
            elseif name == 'Job_cancel_one' then
--@ lua/job/cancel.lua:3-14
-- Cancel one job that is not complete (protocol 3.10, per-jid part). `f` is Job.erase's.
function M.Job_cancel_one(now, jid, f)
  local queue, worker = f[2], f[4]
  local msg = encode({ jid = jid, worker = worker, event = 'canceled', queue = queue })
  rcall('PUBLISH', 'ql:' .. 'log', msg)
  if worker and worker ~= '' then
    rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
    rcall('PUBLISH', 'ql:w:' .. worker, msg)
  end
  M.Job_erase(now, jid, f)
  M.Job_notify(jid, 'canceled')
end
            elseif name == 'Job_is_tracked' then
--@ lua/job/fields.lua:25-27
-- Whether the job is tracked (in ql:tracked).
--@inline
function M.Job_is_tracked(jid) return rcall('ZSCORE', 'ql:tracked', jid) ~= false end
            elseif name == 'Job_unthrottle' then
--@ lua/job/gate.lua:76-101
-- A throttled job tries the gate again: a throttle it waited for has room, its ordering key
-- came to it, or a pop looks at it again. In the work set it is scored as of the time it
-- began to wait, so that jobs let in together keep their order. Its ttl deadline stays (a
-- job past it is expired here). A job that is gone or not throttled any more (a stale
-- entry of the pending set of `tid`, when it comes from one) only leaves the pending sets.
-- Returns true when the job went into the work set.
function M.Job_unthrottle(now, jid, tid)
  local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'queue', 'priority', 'throttles', 'key',
    'ttl')
  local state, queue = f[1], f[2]
  if state ~= 'throttled' or not queue then
    M.Job_unpend(jid, M.Throttle_list(f[4]), nil)
    if tid then rcall('ZREM', 'ql:th:' .. tid .. '-pending', jid) end
    return false
  end
  if f[6] and M.Expire_due(now, queue, jid) then return false end
  local tk = 'ql:q:' .. queue .. '-throttled'
  local since = tonumber(rcall('ZSCORE', tk, jid))
  if M.Job_ready(now, queue, jid, tonumber(f[3]) or 0, f[4], f[5] or nil, nil, nil, state,
      since) then
    return false
  end
  rcall('ZREM', tk, jid)
  rcall('HSET', 'ql:j:' .. jid, 'state', 'waiting')
  return true
end
            elseif name == 'Job_flow_leave' then
--@ lua/job/gate.lua:112-118
-- A job that uses an extension (stored list `text`) leaves its place in `queue` for good
-- (Job.leave); returns its key and ttl as stored.
function M.Job_flow_leave(now, jid, queue, text)
  local g = rcall('HMGET', 'ql:j:' .. jid, 'key', 'ttl')
  M.Job_leave(now, jid, queue, text, g[1] or nil)
  return g[1] or nil, g[2] or nil
end
            elseif name == 'Job_store_flow' then
--@ lua/job/put.lua:140-152
-- Store the throttle list `text` (JSON), ordering key and ttl of job `jid` of `queue`, those
-- given. A job with a key or a ttl always has a `throttles` field (the queue's own tid
-- alone, as a dialect core writes for every job): the commands a worker sends for every
-- job read that one field to learn whether the job uses any extension. Returns the list
-- stored.
function M.Job_store_flow(jid, queue, text, okey, ttl)
  if not text then text = encode({ 'ql:q:' .. queue }) end
  local args = { 'throttles', text }
  if okey then args[#args + 1], args[#args + 2] = 'key', okey end
  if ttl then args[#args + 1], args[#args + 2] = 'ttl', ttl end
  rcall('HSET', 'ql:j:' .. jid, unpack(args))
  return text
end
            elseif name == 'Job_none_exist' then
--@ lua/job/put_many.lua:130-140
-- Whether none of the jobs' hashes exists (one EXISTS per 1000 jids).
function M.Job_none_exist(jobs)
  local keys = {}
  for i, j in ipairs(jobs) do keys[i] = 'ql:j:' .. (type(j) == 'table' and j[1] or A[j]) end
  for i = 1, #keys, 1000 do
    local last = i + 999
    if last > #keys then last = #keys end
    if rcall('EXISTS', unpack(keys, i, last)) > 0 then return false end
  end
  return true
end
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
            elseif name == 'Queue_hand_out' then
--@ lua/pop.lua:184-215
-- Hand job `jid` to `worker` (pop's per-job writes: history, job fields, the tracked
-- ql:popped event). Returns the job's fields in Job.fetch's layout (as they were before
-- this pop, apart from state, worker and expires) and whether it is tracked. When it is not
-- handed out: nil, false when the job hash is gone; nil, 1 when it was throttled and nil, 2
-- when it was expired (Queue.flow_out). The lock expiry is stored as `expires_s` (its text), and the
-- layout holds the number `expires` itself, which Job.render would otherwise parse back.
--@inline
function M.Queue_hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry, special,
    queue, reclaimed)
  -- Job.fetch's layout, without reading the three fields pop overwrites (state, worker,
  -- expires): every field read costs a scan of the job hash and a reply string. A job
  -- that uses an extension has a `throttles` field (Job.store_flow); only then are its key
  -- and ttl read.
  local g = rcall('HMGET', 'ql:j:' .. jid, 'jid', 'klass', 'queue', 'priority', 'retries',
    'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time',
    'throttles')
  if not g[1] then return nil, false end
  local okey, ttl = nil, nil
  if g[13] then
    local why
    why, okey, ttl = M.Queue_flow_out(now, jid, queue, g[13], reclaimed)
    if why then return nil, why end
  end
  local f = { g[1], g[2], 'running', g[3], worker, g[4], expires, g[5], g[6], g[7], g[8],
    g[9], g[10], false, g[12], g[13], okey, ttl }
  M.Job_hist(jid, now, '"popped"', wentry, g[11] or false, whole)
  rcall('HSET', 'ql:j:' .. jid, 'time', tstr, 'worker', worker, 'expires', expires_s,
    'state', 'running')
  local tracked = special and rcall('ZSCORE', 'ql:tracked', jid) ~= false
  if tracked then rcall('PUBLISH', 'ql:' .. 'popped', jid) end
  return f, tracked
end
            elseif name == 'Queue_flow_out' then
--@ lua/pop.lua:255-277
-- pop's checks of a job that uses an extension (stored list `text`): one whose ttl deadline
-- has passed is expired (then the due jobs of the queue too, a bounded number), one whose
-- named throttle is full is throttled; otherwise it takes its throttles' locks and its
-- deadline goes. A `reclaimed` job (its lock expired; it gave its throttles back) has no
-- deadline; when it cannot take its throttles again it leaves the queue's locks set and
-- waits. Returns nil when it may be handed out (1 when it was throttled, 2 when it
-- expired), then its key and ttl as stored.
function M.Queue_flow_out(now, jid, queue, text, reclaimed)
  local g = rcall('HMGET', 'ql:j:' .. jid, 'key', 'ttl')
  if g[2] and not reclaimed and M.Expire_due(now, queue, jid) then
    M.Expire_reap(now, queue)
    return 2
  end
  if M.Throttle_take(now, jid, queue, text) then
    if reclaimed then
      rcall('ZREM', 'ql:q:' .. queue .. '-locks', jid)
      rcall('HSET', 'ql:j:' .. jid, 'worker', '', 'expires', 0)
    end
    return 1
  end
  if g[2] and not reclaimed then rcall('ZREM', 'ql:q:' .. queue .. '-expiring', jid) end
  return nil, g[1] or nil, g[2] or nil
end
            elseif name == 'Queue_page_arg' then
--@ lua/queue.lua:218-224
-- Pagination argument: default when absent, else a number (fractions are floored).
function M.Queue_page_arg(v, default, msg)
  if v == nil then return default end
  local n = M.Num_parse(v)
  if n == nil then error(msg .. v) end
  return floor(n)
end
            elseif name == 'Remote_release' then
--@ lua/remote.lua:118-133
function M.Remote_release(now, jid, p, dep)
  local st = rcall('HGET', 'ql:j:' .. jid, 'state')
  if not st then
    local early = 'ql:j:' .. jid .. '-released'
    rcall('SADD', early, p .. '\0' .. dep)
    rcall('EXPIRE', early, 86400)
    return 'early'
  end
  local depk = 'ql:j:' .. jid .. '-dependencies'
  local member = M.Remote_find(depk, p, dep)
  if not member then return 'already' end
  rcall('SREM', depk, member)
  if rcall('SCARD', depk) > 0 then return 'waiting' end
  if st == 'depends' then M.Job_unblock(now, jid) end
  return 'released'
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
            elseif name == 'Throttle_moved' then
--@ lua/throttle.lua:58-64
-- The list `all` (a job's, a template's, or the one a put moving a job is given) for a job
-- that moves from `old` to queue `new`: the old queue's tid is replaced by the new one's. nil when it names no other throttle.
function M.Throttle_moved(all, old, new)
  local own = M.Throttle_own(all, old)
  if not own then return nil end
  return M.Throttle_stored(own, new)
end
            elseif name == 'Throttle_admit' then
--@ lua/throttle.lua:118-121
-- Let job `jid` into a work set on the account of each of `tids`.
function M.Throttle_admit(now, jid, tids)
  for _, tid in ipairs(tids) do rcall('ZADD', 'ql:th:' .. tid .. '-ready', now, jid) end
end
            elseif name == 'Throttle_write' then
--@ lua/throttle.lua:212-219
-- Store a throttle's maximum (and a TTL on its hash when `expiration` > 0), then let the
-- jobs waiting for it start as far as the new maximum has room.
function M.Throttle_write(now, tid, max, expiration)
  local tk = 'ql:th:' .. tid
  rcall('HSET', tk, 'id', tid, 'maximum', max)
  if expiration > 0 then rcall('EXPIRE', tk, math.ceil(expiration)) end
  M.Throttle_hand_out(now, tid)
end
            elseif name == 'Throttle_locks' then
--@ lua/throttle.lua:265-280
-- throttle.locks <now> <tid>: the jids holding a lock of the throttle. For a queue's own tid
-- (ql:q:<queue>) also the jobs running in that queue, which qless_py counts for it.
-- Error: Throttle(): no tid provided
function M.Throttle_locks(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  local out = rcall('ZRANGE', 'ql:th:' .. tid .. '-locks', 0, -1)
  if tid:sub(1, #'ql:q:') == 'ql:q:' then
    local seen = {}
    for _, jid in ipairs(out) do seen[jid] = true end
    for _, jid in ipairs(rcall('ZRANGE', tid .. '-locks', 0, -1)) do
      if not seen[jid] then out[#out + 1] = jid end
    end
  end
  return out
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
            elseif name == 'Api_config.get' then
--@ lua/api.lua:5-5
M['Api_config.get'] = M.Config_get
            elseif name == 'Api_config.set' then
--@ lua/api.lua:6-6
M['Api_config.set'] = M.Config_set
            elseif name == 'Api_qlpy.stats' then
--@ lua/api.lua:55-55
M['Api_qlpy.stats'] = M.Stats_fine
            elseif name == 'Api_qlpy.check' then
--@ lua/api.lua:56-56
M['Api_qlpy.check'] = M.Check_step
            end
          end
        end
      end
    end
  else
    if name_len < 19 then
      if name_len < 17 then
        if name_len < 16 then
          if name_len == 15 then
            if name == 'Check_unstarted' then
--@ lua/check.lua:262-280
-- Whether job `jid` has not started since it was last put: the newest of its history's
-- `put` and `popped` entries is a `put`. A job that started may wait without a deadline
-- (pop reclaims a job whose lock ran out without one; when a throttle then holds it, it
-- waits and is let in so), and so may any job whose history the cap has trimmed (the
-- answer is then false: it cannot be told).
function M.Check_unstarted(cx, jid)
  local hk = 'ql:j:' .. jid .. '-history'
  local n = M.Check_call(cx, 'LLEN', hk)
  local cap = floor(M.Config_number('max-job-history', 100))
  if cap >= 3 and n >= cap then return false end
  local entries = M.Check_call(cx, 'LRANGE', hk, 0, -1)
  for i = #entries, 1, -1 do
    local ok, e = pcall(decode, entries[i])
    local what = ok and type(e) == 'table' and (e[2] or e.what)
    if what == 'put' then return true end
    if what == 'popped' then return false end
  end
  return false
end
            elseif name == 'Config_prefetch' then
--@ lua/config.lua:4-10
-- Read several config fields with one HMGET and remember them for this call.
function M.Config_prefetch(...)
  local values = rcall('HMGET', 'ql:config', ...)
  local names = { ... }
  if not cfg then cfg = {} end
  for i = 1, #names do cfg[names[i]] = values[i] end
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
            elseif name == 'Job_put_options' then
--@ lua/job/put.lua:81-114
-- A put's options, checked in this order: retries, tags, priority, depends (false when not
-- given), throttles (a list), key, ttl, unique (a boolean).
--@inline
function M.Job_put_options(opts)
  local retries, tags, priority, depends = nil, nil, nil, false
  if opts.retries ~= nil then
    retries = M.Num_parse(opts.retries)
    if retries == nil then error('Put(): Arg "retries" not a number: ' .. opts.retries) end
  end
  if opts.tags ~= nil then
    tags = M.Json_strings(decode(opts.tags))
    if tags == nil then error('Put(): Arg "tags" not JSON' .. opts.tags) end
  end
  if opts.priority ~= nil then
    priority = M.Num_parse(opts.priority)
    if priority == nil then error('Put(): Arg "priority" not a number' .. opts.priority) end
  end
  if opts.depends ~= nil then
    depends = M.Json_strings(decode(opts.depends))
    if depends == nil then error('Put(): Arg "depends" not JSON: ' .. opts.depends) end
  end
  local throttles, okey, ttl, unique = nil, nil, nil, false
  if opts.throttles ~= nil or opts.key ~= nil or opts.ttl ~= nil then
    throttles, okey, ttl, unique = M.Job_flow_options(opts, 'Put()')
  end
  if opts.unique ~= nil then
    if opts.unique == '1' then
      unique = true
    elseif opts.unique ~= '0' then
      error('Put(): Arg "unique" must be 0 or 1: ' .. opts.unique)
    end
  end
  return retries, tags, priority, depends, throttles, okey, ttl, unique
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
            elseif name == 'Job_flow_fields' then
--@ lua/job/render.lua:147-156
-- The job object's extension fields as ',"name":value' texts: "throttles" (the stored list,
-- when it names a throttle besides the queue's own), "key" and "ttl" (when set).
function M.Job_flow_fields(f)
  local out = ''
  local all = M.Throttle_list(f[16])
  if M.Throttle_own(all, f[4] or '') then out = ',"throttles":' .. encode(all) end
  if f[17] then out = out .. ',"key":' .. encode(f[17]) end
  if f[18] then out = out .. ',"ttl":' .. (M.Json_number(f[18]) or '0') end
  return out
end
            elseif name == 'Job_park_failed' then
--@ lua/job/state.lua:19-26
-- Park a job in failure group `group` with failure object `failure`.
--@inline
function M.Job_park_failed(jid, group, failure)
  rcall('HSET', 'ql:j:' .. jid, 'state', 'failed', 'worker', '', 'expires', '',
    'failure', encode(failure))
  rcall('SADD', 'ql:failures', group)
  rcall('LPUSH', 'ql:f:' .. group, jid)
end
            elseif name == 'Queue_pop_again' then
--@ lua/pop.lua:217-253
-- More rounds of a pop whose round left jobs out (`why`: 1 throttled, 2 expired), each
-- taking as many jobs as are still wanted of `total`: the dialect's rounds after throttled
-- jobs, up to `<queue>-max-pop-retry` (else `max-pop-retry`, default 1) in all, and up to
-- EXPIRED_ROUNDS more after expired ones (each expiry also removes REAP due jobs, so the
-- next round rarely meets one). Appends to `popped` as Queue.pop does.
function M.Queue_pop_again(now, queue, worker, total, popped, expires, expires_s, tstr, whole,
    wentry, special, why)
  local wk = 'ql:q:' .. queue .. '-work'
  local rounds, extra = nil, 5
  while why and #popped < total do
    if why == 2 then
      extra = extra - 1
      if extra < 0 then return end
    else
      if rounds == nil then
        rounds = M.Config_number(queue .. '-max-pop-retry', 0)
        if rounds <= 0 then rounds = M.Config_number('max-pop-retry', 1) end
      end
      rounds = rounds - 1
      if rounds < 1 then return end
    end
    local jids = {}
    M.Queue_take(queue, jids, total - #popped)
    if #jids == 0 then return end
    M.Queue_call_list('ZREM', wk, jids, 1000)
    why = nil
    for _, jid in ipairs(jids) do
      local f, tracked = M.Queue_hand_out(now, jid, worker, expires, expires_s, tstr, whole,
        wentry, special, queue, false)
      if f then
        popped[#popped + 1] = { jid, f, tracked }
      elseif tracked and (not why or tracked < why) then
        why = tracked
      end
    end
  end
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
            elseif name == 'Queue_exhausted' then
--@ lua/queue.lua:71-87
-- Lock expiry that exhausted the job's retries: fail it (protocol 4.2); it gives back its
-- throttles and its ordering key's turn.
function M.Queue_exhausted(now, queue, jid, f)
  local jq = f[3] or queue
  M.Queue_unlist(queue, jid)
  if f[6] or f[7] then M.Job_leave(now, jid, jq, f[6], f[7] or nil) end
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
end
            elseif name == 'Remote_released' then
--@ lua/remote.lua:36-41
-- Job `jid` completed: tell each remote dependent's namespace (P-RELEASE-DEPENDENTS for
-- the members Job.release_dependents passes here).
function M.Remote_released(jid, member)
  local p, dependent = M.Remote_parse(member)
  if p then M.Remote_send({ op = 'release', p = p, jid = dependent, dep = jid }) end
end
            elseif name == 'Throttle_stored' then
--@ lua/throttle.lua:42-56
-- A put's `throttles` option as the list to store: the named tids once each, in order, then
-- `queue`'s own tid (the dialect's layout). nil when the option names no throttle.
function M.Throttle_stored(given, queue)
  local own = M.Throttle_own(given, queue)
  if not own then return nil end
  local seen, out = {}, {}
  for _, tid in ipairs(own) do
    if not seen[tid] then
      seen[tid] = true
      out[#out + 1] = tid
    end
  end
  out[#out + 1] = 'ql:q:' .. queue
  return out
end
            elseif name == 'Throttle_verify' then
--@ lua/throttle.lua:75-98
-- Check VERIFY entries of the sorted set `zk` (a throttle's -locks when `running`, else its
-- -ready) and drop those whose job is gone, or no longer running (locks), or no longer
-- waiting to be popped (admissions). Which entries are checked moves with `now`, so that
-- calls over time look at all of them. Returns how many were dropped.
function M.Throttle_verify(now, zk, running)
  local n = rcall('ZCARD', zk)
  if n == 0 then return 0 end
  local first = floor(now * 1000) % n
  local freed = 0
  for _, jid in ipairs(rcall('ZRANGE', zk, first, first + 3 - 1)) do
    local state = rcall('HGET', 'ql:j:' .. jid, 'state')
    local valid
    if running then
      valid = state == 'running'
    else
      valid = state == 'waiting' or state == 'stalled'
    end
    if not valid then
      rcall('ZREM', zk, jid)
      freed = freed + 1
    end
  end
  return freed
end
            elseif name == 'Throttle_object' then
--@ lua/throttle.lua:221-224
-- The throttle object of the dialect: {"id": tid, "maximum": n}.
function M.Throttle_object(tid)
  return encode({ id = tid, maximum = M.Throttle_maximum(tid) })
end
            elseif name == 'Throttle_delete' then
--@ lua/throttle.lua:254-263
-- throttle.delete <now> <tid>: delete the throttle's hash (it becomes unlimited; its locks
-- and pending sets stay), and let its waiting jobs start. Reply nil.
-- Error: Throttle(): no tid provided
function M.Throttle_delete(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  rcall('DEL', 'ql:th:' .. tid)
  M.Throttle_hand_out(now, tid)
  return nil
end
            elseif name == 'Api_recur.untag' then
--@ lua/api.lua:36-36
M['Api_recur.untag'] = M.Recur_untag
            elseif name == 'Api_qlpy.remote' then
--@ lua/api.lua:52-52
M['Api_qlpy.remote'] = M.Remote_call
            elseif name == 'Api_qlpy.outbox' then
--@ lua/api.lua:53-53
M['Api_qlpy.outbox'] = M.Remote_outbox
            elseif name == 'Api_qlpy.repair' then
--@ lua/api.lua:57-57
M['Api_qlpy.repair'] = M.Check_repair
            end
          end
        else
          if name_len == 16 then
            if name == 'Check_job_fields' then
--@ lua/check.lua:153-159
-- The fields of job hash `jk` that Check.job reads, with redis.pcall (Check.key reads a
-- job's hash before it knows the key's type).
function M.Check_job_fields(cx, jk)
  cx.n = cx.n + 1
  return redis.pcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'expires', 'failure',
    'tags', 'throttles', 'key', 'grace', 'klass', 'ttl')
end
            elseif name == 'Check_dependency' then
--@ lua/check.lua:336-349
-- Job `jid` (hash `jk`) depends on job `d` of its own namespace.
function M.Check_dependency(jid, jk, d, cx)
  local st = M.Check_call(cx, 'HGET', 'ql:j:' .. d, 'state')
  if not st then
    M.Check_found(cx, 'dependency-gone', jk, d, 'depends on ' .. d .. ', which is gone',
      'release the dependency')
  elseif st == 'complete' then
    M.Check_found(cx, 'dependency-complete', jk, d, 'depends on ' .. d ..
      ', which is complete', 'release the dependency')
  elseif M.Check_call(cx, 'SISMEMBER', 'ql:j:' .. d .. '-dependents', jid) == 0 then
    M.Check_found(cx, 'dependency-one-sided', jk, d, 'depends on ' .. d .. ', whose ' ..
      'dependents do not list it', 'add it to the dependents of ' .. d)
  end
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
            elseif name == 'Job_flow_options' then
--@ lua/job/put.lua:116-138
-- The throttles, key and ttl options of put or recur (`who`: 'Put()' or 'Recur()'), and
-- false for unique. throttles is the list given (possibly empty), nil when absent.
function M.Job_flow_options(opts, who)
  local throttles, okey, ttl
  if opts.throttles ~= nil then
    local ok, v = pcall(decode, opts.throttles)
    throttles = ok and M.Json_strings(v)
    if not throttles then
      error(who .. ': Arg "throttles" not JSON array: ' .. opts.throttles)
    end
    for i = 1, #throttles do throttles[i] = tostring(throttles[i]) end
  end
  if opts.key ~= nil then
    okey = opts.key
    if okey == '' then error(who .. ': Arg "key" is empty') end
  end
  if opts.ttl ~= nil then
    ttl = M.Num_parse(opts.ttl)
    if ttl == nil then error(who .. ': Arg "ttl" not a number: ' .. opts.ttl) end
    if ttl <= 0 then error(who .. ': Arg "ttl" must be greater than 0: ' .. opts.ttl) end
  end
  return throttles, okey, ttl, false
end
            elseif name == 'Job_put_many_job' then
--@ lua/job/put_many.lua:91-97
-- The checked arguments of the job at ARGV[i] whose options end at ARGV[last].
function M.Job_put_many_job(queue, i, last)
  local delay, retries, tags, priority, depends, throttles, okey, ttl, unique =
    M.Job_put_args(queue, A[i], A[i + 1], A[i + 2], A[i + 3], i + 5, last)
  return { A[i], A[i + 1], A[i + 2], delay, retries, tags, priority, depends, throttles, okey,
    ttl, unique }
end
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
            elseif name == 'Queue_with_names' then
--@ lua/queue.lua:15-21
-- Call a variadic Redis command on ARGV[first..].
function M.Queue_with_names(cmd, k, first)
  -- The reference leaves this to Redis's arity check; its wording differs between servers
  -- (Valkey drops "Redis"), so the protocol's phrase is raised here, before any write.
  if #A < first then error('Wrong number of args calling Redis command from script') end
  M.Queue_call_list(cmd, k, A, 1000, first)
end
            elseif name == 'Recur_store_flow' then
--@ lua/recurring.lua:122-129
-- Store a template's throttle list (JSON text), ordering key and ttl, those given.
function M.Recur_store_flow(tk, text, okey, ttl)
  local args = {}
  if text then args[#args + 1], args[#args + 2] = 'throttles', text end
  if okey then args[#args + 1], args[#args + 2] = 'key', okey end
  if ttl then args[#args + 1], args[#args + 2] = 'ttl', ttl end
  rcall('HSET', tk, unpack(args))
end
            elseif name == 'Throttle_maximum' then
--@ lua/throttle.lua:66-73
-- A throttle's maximum: the stored number, 0 (unlimited) when the hash or the field is
-- missing or not a number. The dialect's rule applies as stored: a throttle is available
-- when its maximum is 0 or its locks number fewer.
function M.Throttle_maximum(tid)
  local m = M.Num_parse(rcall('HGET', 'ql:th:' .. tid, 'maximum'))
  if m == nil then return 0 end
  return m
end
            elseif name == 'Throttle_acquire' then
--@ lua/throttle.lua:123-150
-- pop: take one lock of each of `tids` for `jid`, or return the first tid that has no room
-- for it and take none. The job gives up its admissions either way. A job a throttle let
-- into the work set takes a lock when the locks are fewer than the maximum (the dialect's
-- rule; fewer than it was promised only after the maximum was lowered); a job it did not
-- let in (a reclaimed one, or one a dialect core put) must also leave the room promised to
-- the jobs it did (locks + admissions).
function M.Throttle_acquire(now, jid, tids)
  local admitted = {}
  for i, tid in ipairs(tids) do
    admitted[i] = rcall('ZREM', 'ql:th:' .. tid .. '-ready', jid) == 1
  end
  for i, tid in ipairs(tids) do
    local max = M.Throttle_maximum(tid)
    local base = 'ql:th:' .. tid
    local lk, rk = base .. '-locks', base .. '-ready'
    if max ~= 0 then
      local used = rcall('ZCARD', lk)
      if not admitted[i] then used = used + rcall('ZCARD', rk) end
      if used >= max then
        used = used - M.Throttle_verify(now, lk, true)
        if not admitted[i] then used = used - M.Throttle_verify(now, rk, false) end
        if used >= max then return tid end
      end
    end
  end
  for _, t in ipairs(tids) do rcall('ZADD', 'ql:th:' .. t .. '-locks', 1, jid) end
  return nil
end
            elseif name == 'Throttle_release' then
--@ lua/throttle.lua:152-164
-- Job `jid` stops holding or waiting for the throttles `all` (its whole stored list: the
-- queue's own tid is returned too, for jobs a dialect core locked): it leaves each one's
-- locks set, or else its pending set, and its admissions; each throttle that it held a lock
-- or an admission of then lets waiting jobs in.
function M.Throttle_release(now, jid, all)
  for _, tid in ipairs(all) do
    local base = 'ql:th:' .. tid
    local freed = rcall('ZREM', base .. '-locks', jid)
    if freed == 0 then rcall('ZREM', base .. '-pending', jid) end
    freed = freed + rcall('ZREM', base .. '-ready', jid)
    if freed > 0 then M.Throttle_hand_out(now, tid) end
  end
end
            elseif name == 'Throttle_max_arg' then
--@ lua/throttle.lua:201-210
-- The maximum argument of throttle.set and queue.throttle.set: a number of at least 0,
-- floored.
function M.Throttle_max_arg(v)
  local max = M.Num_parse(v)
  if max == nil then
    error('Throttle(): Arg "maximum" missing or not a number: ' .. tostring(v))
  end
  if max < 0 then error('Throttle(): Arg "maximum" must not be negative: ' .. v) end
  return floor(max)
end
            elseif name == 'Throttle_pending' then
--@ lua/throttle.lua:282-288
-- throttle.pending <now> <tid>: the jids waiting for the throttle, oldest first.
-- Error: Throttle(): no tid provided
function M.Throttle_pending(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  return rcall('ZRANGE', 'ql:th:' .. tid .. '-pending', 0, -1)
end
            elseif name == 'Api_config.unset' then
--@ lua/api.lua:7-7
M['Api_config.unset'] = M.Config_unset
            elseif name == 'Api_recur.update' then
--@ lua/api.lua:34-34
M['Api_recur.update'] = M.Recur_update
            elseif name == 'Api_queue.forget' then
--@ lua/api.lua:39-39
M['Api_queue.forget'] = M.Queue_forget
            elseif name == 'Api_throttle.set' then
--@ lua/api.lua:40-40
M['Api_throttle.set'] = M.Throttle_set
            elseif name == 'Api_throttle.get' then
--@ lua/api.lua:41-41
M['Api_throttle.get'] = M.Throttle_get
            elseif name == 'Api_throttle.ttl' then
--@ lua/api.lua:45-45
M['Api_throttle.ttl'] = M.Throttle_ttl
            end
          end
        end
      else
        if name_len < 18 then
          if name_len == 17 then
            if name == 'Check_state_index' then
--@ lua/check.lua:96-105
-- The index in a queue's facts (Check.queue_facts) of the set a job in `state` belongs
-- to, or nil.
function M.Check_state_index(state)
  if state == 'waiting' or state == 'stalled' then return 1 end
  if state == 'running' then return 2 end
  if state == 'scheduled' then return 3 end
  if state == 'depends' then return 4 end
  if state == 'throttled' then return 5 end
  return nil
end
            elseif name == 'Check_queue_facts' then
--@ lua/check.lua:107-121
-- What a step knows of `queue`, asked once a step (a call sees the keyspace still): its
-- sets' names (1 work, 2 locks, 3 scheduled, 4 depends, 5 throttled), `listed` whether it
-- is in ql:queues, and, keyed by a set's name, whether that set exists (asked when first
-- needed: a job in none of its queue's other sets, the common case, costs no call for a
-- set that does not exist).
function M.Check_queue_facts(cx, queue)
  local qf = cx.q[queue]
  if qf == nil then
    local qk = 'ql:q:' .. queue
    qf = { qk .. '-work', qk .. '-locks', qk .. '-scheduled', qk .. '-depends',
      qk .. '-throttled', listed = M.Check_call(cx, 'ZSCORE', 'ql:queues', queue) ~= false }
    cx.q[queue] = qf
  end
  return qf
end
            elseif name == 'Check_classify_in' then
--@ lua/check.lua:385-435
-- Check.classify for a key under prefix `p` (`rest` follows it).
function M.Check_classify_in(p, rest, kind)
  if p == 'ql:j:' then
    if kind == 'hash' then return { what = 'job', jid = rest } end
    local jid = M.Check_ends(rest, '-history')
    if jid and kind == 'list' then return { what = 'history', jid = jid } end
    jid = M.Check_ends(rest, '-dependencies')
    if jid and kind == 'set' then return { what = 'dependencies', jid = jid } end
    if M.Check_ends(rest, '-released') and kind == 'set' then return { what = 'known' } end
    jid = M.Check_ends(rest, '-dependents')
    if jid and kind == 'set' then
      return { what = 'dependents', jid = jid, walk = 's', want = 'set' }
    end
    return { what = 'unknown' }
  elseif p == 'ql:q:' then
    for _, suffix in ipairs({ '-work', '-locks', '-scheduled', '-depends', '-throttled',
        '-expiring', '-recur' }) do
      local queue = M.Check_ends(rest, suffix)
      if queue then
        return { what = 'queue', queue = queue, suffix = suffix, walk = 'z', want = 'zset' }
      end
    end
    local at = rest:find('-key:', 1, true)
    if at and at > 1 then
      return { what = 'order', queue = rest:sub(1, at - 1), name = rest:sub(at + #'-key:'),
        walk = 'z', want = 'zset' }
    end
  elseif p == 'ql:w:' then
    if M.Check_ends(rest, ':jobs') then return { what = 'known', want = 'zset' } end
  elseif p == 'ql:t:' then
    return { what = 'tag', tag = rest, walk = 'z', want = 'zset' }
  elseif p == 'ql:f:' then
    return { what = 'group', group = rest, walk = 'l', want = 'list' }
  elseif p == 'ql:r:' then
    return { what = 'recur', jid = rest, want = 'hash' }
  elseif p == 'ql:s:' or p == 'ql:fine:' then
    return { what = 'known', want = 'hash' }
  elseif p == 'ql:th:' then
    -- -ready is not walked: a dialect core's pop takes a job our core let in without
    -- knowing its admission, and Throttle.verify drops such entries as it meets them.
    if M.Check_ends(rest, '-ready') then return { what = 'known', want = 'zset' } end
    for _, suffix in ipairs({ '-locks', '-pending' }) do
      local tid = M.Check_ends(rest, suffix)
      if tid then
        return { what = 'throttle-set', tid = tid, suffix = suffix, walk = 'z', want = 'zset' }
      end
    end
    return { what = 'known', want = 'hash' }
  end
  return { what = 'unknown' }
end
            elseif name == 'Job_put_many_args' then
--@ lua/job/put_many.lua:57-89
-- Check every job of a qlpy.put_many call (ARGV from 5 on), appending each one's arguments
-- to `jobs` as it passes: a plain job (no options, no delay) as the ARGV index of its jid,
-- another as the list of its checked arguments. `jobs.repeated` is set when a jid occurs
-- twice, `jobs.plain` while every job is plain. Raises put's error for the first job
-- refused (the caller names it by #jobs + 1).
function M.Job_put_many_args(queue, jobs)
  local i, n, seen = 5, #A, {}
  jobs.plain = true
  while i <= n do
    local count_s = A[i + 4]
    local jid = A[i]
    if count_s == '0' then
      if M.Job_put_check(queue, jid, A[i + 1], A[i + 2], A[i + 3]) == 0 and i + 4 <= n then
        jobs[#jobs + 1] = i
      else
        jobs.plain = false
        jobs[#jobs + 1] = M.Job_put_many_job(queue, i, i + 4)
      end
      i = i + 5
    else
      local count = M.Num_parse(count_s)
      if count == nil or count < 0 or count % 1 ~= 0 or i + 4 + 2 * count > n then
        error('option count missing or not a whole number: ' .. tostring(count_s), 0)
      end
      jobs.plain = false
      local last = i + 4 + 2 * count
      jobs[#jobs + 1] = M.Job_put_many_job(queue, i, last)
      i = last + 1
    end
    if seen[jid] then jobs.repeated = true end
    seen[jid] = true
  end
end
            elseif name == 'Queue_reclaim_one' then
--@ lua/queue.lua:110-141
-- P-RECLAIM for one expired lock; `f` is the job's worker, grace, queue, history, jid,
-- throttles, key. True when the job may be handed out again: it gives back its throttle
-- locks (pop hands it out only when it can take them again) and keeps its ordering key's
-- turn.
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
    if remaining >= 0 then
      -- Its lock is lost: it gives back its throttles, and pop hands it out again only
      -- when it can take them again (Queue.flow_out).
      if f[6] then M.Job_leave(now, jid, f[3] or queue, f[6], nil) end
      return true
    end
    M.Queue_exhausted(now, queue, jid, f)
  end
  return false
end
            elseif name == 'Throttle_hand_out' then
--@ lua/throttle.lua:166-199
-- Handing out free locks: jobs waiting for `tid` go through the gate again (Job.unthrottle),
-- oldest first, until as many as the throttle has room for went into the work set. A job
-- that expires, or waits for another throttle instead, takes no room. At most HAND_OUT
-- jobs are looked at per call.
function M.Throttle_hand_out(now, tid)
  local base = 'ql:th:' .. tid
  local pk = base .. '-pending'
  if rcall('EXISTS', pk) == 0 then return end
  local room = 100
  local max = M.Throttle_maximum(tid)
  if max ~= 0 then
    local lk, rk = base .. '-locks', base .. '-ready'
    room = math.ceil(max) - rcall('ZCARD', lk) - rcall('ZCARD', rk)
    if room < 1 then
      room = room + M.Throttle_verify(now, lk, true) + M.Throttle_verify(now, rk, false)
      if room < 1 then return end
    end
    if room > 100 then room = 100 end
  end
  -- `skip`: jobs looked at that still wait here (they come first in the set).
  local looked, skip = 0, 0
  while room > 0 and looked < 100 do
    local jids = rcall('ZRANGE', pk, skip, skip + room - 1)
    if #jids == 0 then return end
    for _, jid in ipairs(jids) do
      if M.Job_unthrottle(now, jid, tid) then
        room = room - 1
      elseif rcall('ZSCORE', pk, jid) then
        skip = skip + 1
      end
    end
    looked = looked + #jids
  end
end
            elseif name == 'Worker_deregister' then
--@ lua/worker.lua:36-40
-- worker.deregister <now> <worker>...: remove from ql:workers only. Reply nil.
function M.Worker_deregister(now)
  M.Queue_with_names('ZREM', 'ql:workers', 3)
  return nil
end
            elseif name == 'Api_qlpy.giveback' then
--@ lua/api.lua:49-51
-- The throttle dialect's commands keep its names (above); qless_py's own extension commands
-- (docs/protocol.md) are prefixed, so no qless name can clash.
M['Api_qlpy.giveback'] = M.Job_giveback
            elseif name == 'Api_qlpy.put_many' then
--@ lua/api.lua:54-54
M['Api_qlpy.put_many'] = M.Job_put_many
            end
          end
        else
          if name_len == 18 then
            if name == 'Check_queue_member' then
--@ lua/check.lua:541-569
-- A member of a queue's set: a job of that queue (its state is checked from the job's
-- side), for -expiring one that waits with a ttl, for -recur a template of the queue.
function M.Check_queue_member(k, d, m, cx)
  if d.suffix == '-recur' then
    if M.Check_call(cx, 'HGET', 'ql:r:' .. m, 'queue') ~= d.queue then
      M.Check_found(cx, 'recur-stale', k, m, 'template ' .. m .. ' is gone or of another queue',
        'remove it from ' .. k)
    end
    return
  end
  if d.suffix == '-expiring' then
    local f = M.Check_call(cx, 'HMGET', 'ql:j:' .. m, 'queue', 'state', 'ttl')
    local s = f[2]
    if f[1] ~= d.queue or not f[3] or (s ~= 'waiting' and s ~= 'throttled' and s ~= 'stalled')
    then
      M.Check_found(cx, 'expiring-stale', k, m, m .. ' is gone or not waiting with a ttl',
        'remove it from ' .. k)
    end
    return
  end
  local queue = M.Check_call(cx, 'HGET', 'ql:j:' .. m, 'queue')
  if not queue then
    M.Check_found(cx, 'member-without-job', k, m, m .. ' has no job hash',
      'remove it from ' .. k)
  elseif queue ~= d.queue then
    M.Check_found(cx, 'member-of-other-queue', k, m, m .. ' is a job of queue ' .. queue,
      'remove it from ' .. k)
  end
end
            elseif name == 'Check_still_member' then
--@ lua/check.lua:665-669
-- Whether `m` is still a member of `k` (a sorted set or a set, as `d` walks it).
function M.Check_still_member(cx, k, d, m)
  if d.walk == 'z' then return M.Check_call(cx, 'ZSCORE', k, m) ~= false end
  return M.Check_call(cx, 'SISMEMBER', k, m) == 1
end
            elseif name == 'Job_unlist_failure' then
--@ lua/job/state.lua:11-17
-- Remove a job from a failure group (and the group from ql:failures when it empties).
function M.Job_unlist_failure(jid, group)
  if type(group) ~= 'string' then return end
  local gk = 'ql:f:' .. group
  rcall('LREM', gk, 0, jid)
  if rcall('LLEN', gk) == 0 then rcall('SREM', 'ql:failures', group) end
end
            elseif name == 'Recur_recur_number' then
--@ lua/recurring.lua:58-65
-- Option value that must be a finite number (default when absent).
function M.Recur_recur_number(opts, name, default)
  local v = opts[name]
  if v == nil then return default end
  local n = M.Num_parse(v)
  if n == nil then error('Recur(): Arg "' .. name .. '" not a number: ' .. v) end
  return n
end
            elseif name == 'Recur_check_update' then
--@ lua/recurring.lua:162-184
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
  elseif name == 'throttles' then
    local ok, v = pcall(decode, value)
    if not ok or not M.Json_strings(v) then
      error('Recur(): Arg "throttles" is not JSON-encoded: ' .. value)
    end
  elseif name == 'ttl' then
    local ttl = M.Num_parse(value)
    if ttl == nil or ttl < 0 then error('Recur(): Arg "ttl" must be a number: ' .. value) end
  elseif name ~= 'klass' and name ~= 'queue' and name ~= 'key' then
    error('Recur(): Unrecognized option "' .. name .. '"')
  end
end
            elseif name == 'Throttle_queue_get' then
--@ lua/throttle.lua:311-317
-- queue.throttle.get <now> <queue>: the throttle object of the queue's own throttle.
-- Error: Queue(): no queue name provided
function M.Throttle_queue_get(now)
  local queue = A[3]
  if queue == nil then error('Queue(): no queue name provided') end
  return M.Throttle_object('ql:q:' .. queue)
end
            elseif name == 'Throttle_queue_set' then
--@ lua/throttle.lua:319-330
-- queue.throttle.set <now> <queue> <maximum>: the most jobs of the queue running at once
-- (0: unlimited), no TTL. Reply nil. (Workers learn of it from the write to the throttle's
-- hash, which they track: docs/workers.md.)
-- Errors: Queue(): no queue name provided / Throttle(): Arg "maximum" missing or not a
-- number: <x> / Throttle(): Arg "maximum" must not be negative: <x>
function M.Throttle_queue_set(now)
  local queue = A[3]
  if queue == nil then error('Queue(): no queue name provided') end
  local max = M.Throttle_max_arg(A[4])
  M.Throttle_write(now, 'ql:q:' .. queue, max, 0)
  return nil
end
            elseif name == 'Api_throttle.locks' then
--@ lua/api.lua:43-43
M['Api_throttle.locks'] = M.Throttle_locks
            end
          end
        end
      end
    else
      if name_len < 21 then
        if name_len < 20 then
          if name_len == 19 then
            if name == 'Check_failure_twice' then
--@ lua/check.lua:530-539
-- A failure group's list names job `m` once: the group's count (`failed`) is the list's
-- length. A walk (`at` its index) reports a job named twice or more at its second entry,
-- so once; a list that moved meanwhile (a new failure pushed) may hide it from this walk.
function M.Check_failure_twice(k, d, m, at, cx)
  local pos = M.Check_call(cx, 'LPOS', k, m, 'COUNT', 0)
  if #pos > 1 and (at == nil or at == pos[2]) then
    M.Check_found(cx, 'failure-duplicate', k, m, m .. ' is listed ' .. #pos .. ' times in ' ..
      d.group, 'keep its newest entry')
  end
end
            elseif name == 'Job_encoded_members' then
--@ lua/job/render.lua:42-46
-- Encoded JSON strings of a Redis reply list.
function M.Job_encoded_members(list)
  for i = 1, #list do list[i] = encode(list[i]) end
  return M.Json_list(list)
end
            elseif name == 'Queue_throttle_room' then
--@ lua/pop.lua:279-288
-- Room left under the queue's own throttle (tid ql:q:<queue>): its maximum less the jobs
-- in the queue's locks set (running and stalled, whichever core popped them). nil when the
-- throttle is unlimited.
function M.Queue_throttle_room(queue, lk)
  local max = M.Throttle_maximum('ql:q:' .. queue)
  if max == 0 then return nil end
  local room = math.ceil(max) - rcall('ZCARD', lk)
  if room < 0 then return 0 end
  return room
end
            elseif name == 'Recur_set_throttles' then
--@ lua/recurring.lua:236-245
-- Store the named throttles `given` on template `tk` of `queue` (with the queue's own tid),
-- or remove the field when there are none.
function M.Recur_set_throttles(tk, given, queue)
  local stored = given and M.Throttle_stored(given, queue)
  if stored then
    rcall('HSET', tk, 'throttles', encode(stored))
  else
    rcall('HDEL', tk, 'throttles')
  end
end
            elseif name == 'Api_throttle.delete' then
--@ lua/api.lua:42-42
M['Api_throttle.delete'] = M.Throttle_delete
            end
          end
        else
          if name_len == 20 then
            if name == 'Check_zscan_noscores' then
--@ lua/check.lua:78-88
-- ZSCAN ... NOSCORES, or false where the server does not know NOSCORES (Redis): `cx.z`
-- says so from then on (the check's token keeps it).
function M.Check_zscan_noscores(cx, k, cursor, count)
  cx.n = cx.n + 1
  local r = redis.pcall('ZSCAN', k, cursor, 'COUNT', count, 'NOSCORES')
  if r.err then
    cx.z = false
    return false
  end
  return r
end
            elseif name == 'Job_expire_completed' then
--@ lua/job/complete.lua:172-192
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
            elseif name == 'Job_ready_or_enqueue' then
--@ lua/job/gate.lua:37-50
-- Job `jid`, in state `state`, becomes ready to run in `queue` now: through the gate when it
-- has throttles, a key or a ttl (their stored fields), else straight into the work set.
-- Writes its new state.
function M.Job_ready_or_enqueue(now, queue, jid, priority, text, okey, ttl_s, state)
  local jk = 'ql:j:' .. jid
  if text or okey or ttl_s then
    if M.Job_ready(now, queue, jid, priority, text, okey or nil, tonumber(ttl_s), now, state) then
      return
    end
  else
    M.Job_enqueue(queue, jid, priority, now)
  end
  rcall('HSET', jk, 'state', 'waiting')
end
            elseif name == 'Throttle_release_cmd' then
--@ lua/throttle.lua:298-309
-- throttle.release <now> <tid> [jid...]: for each jid in turn, remove it from the locks set
-- (or, when it held no lock, from the pending set), then let waiting jobs in. Reply nil.
-- Error: Throttle(): no tid provided
function M.Throttle_release_cmd(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  for i = 4, #A do
    M.Throttle_release(now, A[i], { tid })
    M.Throttle_hand_out(now, tid)
  end
  return nil
end
            elseif name == 'Api_throttle.pending' then
--@ lua/api.lua:44-44
M['Api_throttle.pending'] = M.Throttle_pending
            elseif name == 'Api_throttle.release' then
--@ lua/api.lua:46-46
M['Api_throttle.release'] = M.Throttle_release_cmd
            end
          end
        end
      else
        if name_len < 22 then
          if name_len == 21 then
            if name == 'Check_throttle_member' then
--@ lua/check.lua:571-587
-- A member of a throttle's locks (a running job that names the throttle) or pending (a
-- throttled one).
function M.Check_throttle_member(k, d, m, cx)
  local f = M.Check_call(cx, 'HMGET', 'ql:j:' .. m, 'state', 'throttles')
  local named = false
  for _, tid in ipairs(M.Throttle_list(f[2]) or {}) do if tid == d.tid then named = true end end
  local s, valid = f[1], false
  if d.suffix == '-locks' then
    valid = s == 'running'
  else
    valid = s == 'throttled'
  end
  if not (named and valid) then
    M.Check_found(cx, 'throttle-stale', k, m, m .. ' is gone, does not name throttle ' ..
      d.tid .. ' or is ' .. tostring(s), 'release it from the throttle')
  end
end
            elseif name == 'Api_worker.deregister' then
--@ lua/api.lua:38-38
M['Api_worker.deregister'] = M.Worker_deregister
            end
          end
        else
          if name_len < 23 then
            if name_len == 22 then
              if name == 'Check_job_dependencies' then
--@ lua/check.lua:315-334
-- Dependencies: each one is a job that exists, is not complete and lists this job among its
-- dependents; a job in state depends has at least one, a job in another state none (asked
-- by Check.settle, for all the step's jobs at once).
function M.Check_job_dependencies(jid, jk, state, cx)
  local depk = jk .. '-dependencies'
  if state ~= 'depends' then
    local n = #cx.d + 1
    cx.d[n], cx.dj[n], cx.ds[n] = depk, jk, state
    return
  end
  local deps = M.Check_call(cx, 'SMEMBERS', depk)
  if #deps == 0 then
    M.Check_found(cx, 'depends-without-dependency', jk, '', 'depends on no job',
      'release it: it becomes waiting (or scheduled)')
  end
  for _, d in ipairs(deps) do
    -- A job of another namespace (lua/remote.lua) is that namespace's to check.
    if not M.Remote_is(d) then M.Check_dependency(jid, jk, d, cx) end
  end
end
              elseif name == 'Job_release_dependents' then
--@ lua/job/depends.lua:31-45
-- P-RELEASE-DEPENDENTS: jobs waiting only for `jid` become waiting (or scheduled).
-- `dependents` is the members of its dependents set, read by the caller.
function M.Job_release_dependents(now, jid, dependents)
  local dk = 'ql:j:' .. jid .. '-dependents'
  for _, d in ipairs(dependents) do
    if M.Remote_is(d) then
      M.Remote_released(jid, d)
    else
      local depk = 'ql:j:' .. d .. '-dependencies'
      rcall('SREM', depk, jid)
      if rcall('SCARD', depk) == 0 then M.Job_unblock(now, d) end
    end
  end
  if #dependents > 0 then rcall('DEL', dk) end
end
              elseif name == 'Api_queue.throttle.get' then
--@ lua/api.lua:47-47
M['Api_queue.throttle.get'] = M.Throttle_queue_get
              elseif name == 'Api_queue.throttle.set' then
--@ lua/api.lua:48-48
M['Api_queue.throttle.set'] = M.Throttle_queue_set
              end
            end
          else
            if name_len == 23 then
              if name == 'Check_drop_dependencies' then
--@ lua/check.lua:865-870
-- Job `jid` stops depending on anything: out of its dependencies' dependents, its set gone.
function M.Check_drop_dependencies(jid)
  local depk = 'ql:j:' .. jid .. '-dependencies'
  for _, b in ipairs(rcall('SMEMBERS', depk)) do M.Job_unlink(jid, b) end
  rcall('DEL', depk)
end
              end
            end
          end
        end
      end
    end
  end
  return rawget(M, name)
end
M.__index = define  -- M is its own metatable: one table less
setmetatable(M, M)

--@ lua/api.lua:1-2
-- The command table and the dispatcher (protocol 1.1). The build puts this file last.

--@ lua/api.lua:59-66
-- Dispatch. The build has checked KEYS already (no key: the default namespace, `ql:`; one
-- key: a namespace, whose prefix it is; see scripts/build_lua.py). The commands a worker
-- sends for every job come first, as plain calls of their functions: those are --@inline,
-- so the build copies them into this block and their common path runs as straight code
-- that creates no function. A call this block does not take (no `now`, another command)
-- goes on to the checks below, which are made in the protocol's order.
if #A >= 2 then
  local inl_1 repeat local v = A[2]
--@ lua/num.lua:6-9
    local n = tonumber(v)
    -- n - n is 0 for every finite number, and nan for nan and for +-inf.
    if n and n - n == 0 then do inl_1 = n break end end
    do inl_1 = nil break end
--@ lua/api.lua:66-71
  until true local now = inl_1
  local cmd, fast, result = A[1], true, nil
  if now == nil then
    fast = false
  elseif cmd == 'put' then
    local inl_2 repeat local now, requeue = now
--@ lua/job/put.lua:30-40
      local worker, queue, jid, klass, data, delay_s = A[3], A[4], A[5], A[6], A[7], A[8]
      if requeue then
        if jid == nil then error('Job(): no jid provided') end
        if rcall('EXISTS', 'ql:j:' .. jid) == 0 then
          error('Requeue(): Job ' .. jid .. ' does not exist')
        end
      end
      local n = #A
      if n == 8 then
        -- No options (the common put): nothing to parse, and no values to pass along.
        local inl_3 repeat local queue, jid, klass, data, delay_s = queue, jid, klass, data, delay_s
--@ lua/job/put.lua:53-62
          if queue == nil then error('Queue(): no queue name provided') end
          if jid == nil then error('Put(): Arg "jid" missing') end
          if klass == nil then error('Put(): Arg "klass" missing') end
          if data ~= '{}' and decode(data) == false then
            error('Put(): Arg "data" missing or not JSON: ' .. tostring(data))
          end
          -- A delay of '0' (the common put) needs no parsing: tonumber converts a text twice.
          local delay = 0
          if delay_s ~= '0' then
            local inl_4 repeat local v = delay_s
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_4 = n break end end
              do inl_4 = nil break end
--@ lua/job/put.lua:62-65
            until true delay = inl_4
            if delay == nil then error('Put(): Arg "delay" not a number: ' .. tostring(delay_s)) end
          end
          do inl_3 = delay break end
--@ lua/job/put.lua:40-42
        until true local delay = inl_3
        do local inl_5 repeat local now, worker, queue, jid, klass, data, delay, o_retries, o_tags, o_priority, depends, given, okey, ttl, unique, probe, batch = now, worker, queue, jid, klass, data, delay, nil, nil, nil, false,
          nil, nil, nil, false, nil, nil
--@ lua/job/put.lua:161-227
          -- One EXISTS tells whether the job exists (1) and whether any job is tracked (2): it
          -- counts a key once per mention. A new job then needs no HMGET, and an empty ql:tracked
          -- no ZSCORE.
          local jk = 'ql:j:' .. jid
          if not probe then
            probe = rcall('EXISTS', jk, 'ql:tracked', 'ql:tracked')
          end
          -- 1 jid, 2 state, 3 queue, 4 worker, 5 priority, 6 retries, 7 tags, 8 failure, 9 history,
          -- 10 throttles, 11 key, 12 ttl
          local f
          if probe % 2 == 1 then
            f = rcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'priority', 'retries', 'tags',
              'failure', 'history', 'throttles', 'key', 'ttl')
            if unique and f[2] ~= 'complete' then do inl_5 = false break end end
          else
            -- A new job has none of those fields. KEYS serves as the empty list, so nothing has
            -- to be made for it: it is empty, or holds the namespace prefix at [1] (the `jid`
            -- field, which is never read: the job's `state` says whether it exists).
            f = KEYS
          end
          local retries = o_retries
          if retries == nil then
            retries = f[6] and tonumber(f[6]) or 5
          end
          -- Tag and dependency lists stay false when there are none.
          local old_tags = f[7] and M.Job_tag_list(f[7])
          local tags = old_tags
          if o_tags ~= nil then tags = o_tags end
          local priority = o_priority
          if priority == nil then
            priority = f[5] and tonumber(f[5]) or 0
          end
          -- The throttle list to store: the named throttles, then the queue's own tid. The
          -- dialect's clients move a job by putting it into its new queue with its stored list, so
          -- the old queue's tid goes, as the dialect's put drops it: left in, the old queue's
          -- throttle would hold the job for ever. Only a job that exists in another queue pays.
          local stored = nil
          if given then
            if f[3] and f[3] ~= queue then
              stored = M.Throttle_moved(given, f[3], queue)
            else
              stored = M.Throttle_stored(given, queue)
            end
            if stored then stored = encode(stored) end
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
          local qjson = encode(queue)
          local inl_6 repeat local t = now
--@ lua/num.lua:14-14
           do inl_6 = format('%.20f', t) break end
--@ lua/job/put.lua:227-228
          until true local tstr = inl_6
          local inl_7 repeat local t, tstr = now, tstr
--@ lua/num.lua:21-22
            if tstr and t >= 0 and t < 1e14 then do inl_7 = tstr:sub(1, -22) break end end
            do inl_7 = tostring(floor(t)) break end
--@ lua/job/put.lua:228-232
          until true local whole = inl_7
          -- The history entry comes before the event: at the memory limit the server refuses a
          -- script's first write that needs memory, and a refused put must not have announced
          -- itself (docs/operations.md, "At the memory limit").
          repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"put"', '{"q":' .. qjson .. '}', f[9] or false, whole
--@ lua/job/history.lua:36-42
            if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
            if legacy then M.Job_migrate(jid, legacy) end
            -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
            -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
            local entry
            if not whole then
              local inl_8 repeat local t, tstr = when
--@ lua/num.lua:21-22
                if tstr and t >= 0 and t < 1e14 then do inl_8 = tstr:sub(1, -22) break end end
                do inl_8 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
              until true whole = inl_8
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
            local inl_9 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
              if cfg == false then do inl_9 = fallback break end end
              local inl_10 repeat local name = name
--@ lua/config.lua:15-22
                if cfg == false then do inl_10 = false break end end
                if cfg == nil then cfg = {} end
                local v = cfg[name]
                if v == nil then
                  v = rcall('HGET', 'ql:config', name)
                  cfg[name] = v
                end
                do inl_10 = v break end
--@ lua/config.lua:30-31
              until true local raw = inl_10
              local inl_11 repeat local v = raw
--@ lua/num.lua:6-9
                local n = tonumber(v)
                -- n - n is 0 for every finite number, and nan for nan and for +-inf.
                if n and n - n == 0 then do inl_11 = n break end end
                do inl_11 = nil break end
--@ lua/config.lua:31-33
              until true local n = inl_11
              if n == nil then do inl_9 = fallback break end end
              do inl_9 = n break end
--@ lua/job/history.lua:54-67
            until true local cap = inl_9
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
--@ lua/job/put.lua:232-238
          until true
          -- The JSON text cjson writes for { jid, event, queue } (key order is not significant).
          rcall('PUBLISH', 'ql:' .. 'log',
            '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
          local old_queue, old_state, old_worker = f[3], f[2], f[4]
          if old_queue then
            repeat local queue, jid, exist = old_queue, jid
--@ lua/queue.lua:65-68
              local qk = 'ql:q:' .. queue
              rcall('ZREM', qk .. '-locks', jid)
              if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
              if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
--@ lua/job/put.lua:238-312
            until true
            rcall('ZREM', 'ql:q:' .. old_queue .. '-depends', jid)
            if old_state == 'throttled' then
              rcall('ZREM', 'ql:q:' .. old_queue .. '-throttled', jid)
            end
            if f[12] then rcall('ZREM', 'ql:q:' .. old_queue .. '-expiring', jid) end
          end
          if f[10] or f[11] or f[12] then
            -- The job gives back its throttles and its place in its ordering key; a put sets them
            -- afresh.
            M.Job_leave(now, jid, old_queue, f[10], f[11] or nil)
            rcall('HDEL', jk, 'throttles', 'key', 'ttl')
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
          local has_deps = (f[2] or (depends and #depends > 0)) and rcall('SCARD', depk) > 0
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
          local flow = stored or okey or ttl
          if flow then
            stored = M.Job_store_flow(jid, queue, stored, okey, ttl)
            if okey then M.Order_join(queue, okey, jid) end
          end
          if has_deps then
            rcall('ZADD', 'ql:q:' .. queue .. '-depends', now, jid)
            if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
          elseif delay > 0 then
            rcall('ZADD', 'ql:q:' .. queue .. '-scheduled', now + delay, jid)
          elseif flow then
            M.Job_ready(now, queue, jid, priority, stored, okey, ttl, now, state)
          elseif batch then
            -- The work-set score of Job.enqueue (protocol 2.8).
            batch[#batch + 1] = priority - (now / 10000000000)
            batch[#batch + 1] = jid
          else
            repeat local queue, jid, priority, t = queue, jid, priority, now
--@ lua/job/state.lua:7-8
              local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
              rcall('ZADD', 'ql:q:' .. queue .. '-work', score, jid)
--@ lua/job/put.lua:312-315
            until true
          end
          if not batch then
            local inl_12 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
              if now >= 1 then do inl_12 = tstr break end end
              do inl_12 = now break end
--@ lua/job/put.lua:315-321
            until true local now_arg = inl_12
            rcall('ZADD', 'ql:queues', 'NX', now_arg, queue)
          end
          if probe >= 2 and rcall('ZSCORE', 'ql:tracked', jid) then
            rcall('PUBLISH', 'ql:' .. 'put', jid)
          end
          do inl_5 = jid break end
--@ lua/job/put.lua:42-44
        until true inl_2 = inl_5 break end
      end
      local inl_13, inl_14, inl_15, inl_16, inl_17, inl_18, inl_19, inl_20, inl_21 repeat local queue, jid, klass, data, delay_s, first, last = queue, jid, klass, data, delay_s, 9, n
--@ lua/job/put.lua:72-72
        local inl_22 repeat local queue, jid, klass, data, delay_s = queue, jid, klass, data, delay_s
--@ lua/job/put.lua:53-62
          if queue == nil then error('Queue(): no queue name provided') end
          if jid == nil then error('Put(): Arg "jid" missing') end
          if klass == nil then error('Put(): Arg "klass" missing') end
          if data ~= '{}' and decode(data) == false then
            error('Put(): Arg "data" missing or not JSON: ' .. tostring(data))
          end
          -- A delay of '0' (the common put) needs no parsing: tonumber converts a text twice.
          local delay = 0
          if delay_s ~= '0' then
            local inl_23 repeat local v = delay_s
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_23 = n break end end
              do inl_23 = nil break end
--@ lua/job/put.lua:62-65
            until true delay = inl_23
            if delay == nil then error('Put(): Arg "delay" not a number: ' .. tostring(delay_s)) end
          end
          do inl_22 = delay break end
--@ lua/job/put.lua:72-76
        until true local delay = inl_22
        if (last - first + 1) % 2 == 1 then error('Odd number of additional args') end
        -- No table at all when there are no options (the common case).
        if last < first then do inl_13, inl_14, inl_15, inl_16, inl_17, inl_18, inl_19, inl_20, inl_21 = delay, nil, nil, nil, false, nil, nil, nil, false break end end
        local inl_24 repeat local first, last = first, last
--@ lua/job/put.lua:6-8
          local opts = {}
          for i = first, last - 1, 2 do opts[A[i]] = A[i + 1] end
          do inl_24 = opts break end
--@ lua/job/put.lua:76-77
        until true local opts = inl_24
        local inl_25, inl_26, inl_27, inl_28, inl_29, inl_30, inl_31, inl_32 repeat local opts = opts
--@ lua/job/put.lua:85-87
          local retries, tags, priority, depends = nil, nil, nil, false
          if opts.retries ~= nil then
            local inl_33 repeat local v = opts.retries
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_33 = n break end end
              do inl_33 = nil break end
--@ lua/job/put.lua:87-95
            until true retries = inl_33
            if retries == nil then error('Put(): Arg "retries" not a number: ' .. opts.retries) end
          end
          if opts.tags ~= nil then
            tags = M.Json_strings(decode(opts.tags))
            if tags == nil then error('Put(): Arg "tags" not JSON' .. opts.tags) end
          end
          if opts.priority ~= nil then
            local inl_34 repeat local v = opts.priority
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_34 = n break end end
              do inl_34 = nil break end
--@ lua/job/put.lua:95-113
            until true priority = inl_34
            if priority == nil then error('Put(): Arg "priority" not a number' .. opts.priority) end
          end
          if opts.depends ~= nil then
            depends = M.Json_strings(decode(opts.depends))
            if depends == nil then error('Put(): Arg "depends" not JSON: ' .. opts.depends) end
          end
          local throttles, okey, ttl, unique = nil, nil, nil, false
          if opts.throttles ~= nil or opts.key ~= nil or opts.ttl ~= nil then
            throttles, okey, ttl, unique = M.Job_flow_options(opts, 'Put()')
          end
          if opts.unique ~= nil then
            if opts.unique == '1' then
              unique = true
            elseif opts.unique ~= '0' then
              error('Put(): Arg "unique" must be 0 or 1: ' .. opts.unique)
            end
          end
          do inl_25, inl_26, inl_27, inl_28, inl_29, inl_30, inl_31, inl_32 = retries, tags, priority, depends, throttles, okey, ttl, unique break end
--@ lua/job/put.lua:77-78
        until true local retries, tags, priority, depends, throttles, okey, ttl, unique = inl_25, inl_26, inl_27, inl_28, inl_29, inl_30, inl_31, inl_32
        do inl_13, inl_14, inl_15, inl_16, inl_17, inl_18, inl_19, inl_20, inl_21 = delay, retries, tags, priority, depends, throttles, okey, ttl, unique break end
--@ lua/job/put.lua:45-47
      until true local delay, retries, tags, priority, depends, throttles, okey, ttl, unique = inl_13, inl_14, inl_15, inl_16, inl_17, inl_18, inl_19, inl_20, inl_21
      do local inl_35 repeat local now, worker, queue, jid, klass, data, delay, o_retries, o_tags, o_priority, depends, given, okey, ttl, unique, probe, batch = now, worker, queue, jid, klass, data, delay, retries, tags, priority,
        depends, throttles, okey, ttl, unique, nil, nil
--@ lua/job/put.lua:161-227
        -- One EXISTS tells whether the job exists (1) and whether any job is tracked (2): it
        -- counts a key once per mention. A new job then needs no HMGET, and an empty ql:tracked
        -- no ZSCORE.
        local jk = 'ql:j:' .. jid
        if not probe then
          probe = rcall('EXISTS', jk, 'ql:tracked', 'ql:tracked')
        end
        -- 1 jid, 2 state, 3 queue, 4 worker, 5 priority, 6 retries, 7 tags, 8 failure, 9 history,
        -- 10 throttles, 11 key, 12 ttl
        local f
        if probe % 2 == 1 then
          f = rcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'priority', 'retries', 'tags',
            'failure', 'history', 'throttles', 'key', 'ttl')
          if unique and f[2] ~= 'complete' then do inl_35 = false break end end
        else
          -- A new job has none of those fields. KEYS serves as the empty list, so nothing has
          -- to be made for it: it is empty, or holds the namespace prefix at [1] (the `jid`
          -- field, which is never read: the job's `state` says whether it exists).
          f = KEYS
        end
        local retries = o_retries
        if retries == nil then
          retries = f[6] and tonumber(f[6]) or 5
        end
        -- Tag and dependency lists stay false when there are none.
        local old_tags = f[7] and M.Job_tag_list(f[7])
        local tags = old_tags
        if o_tags ~= nil then tags = o_tags end
        local priority = o_priority
        if priority == nil then
          priority = f[5] and tonumber(f[5]) or 0
        end
        -- The throttle list to store: the named throttles, then the queue's own tid. The
        -- dialect's clients move a job by putting it into its new queue with its stored list, so
        -- the old queue's tid goes, as the dialect's put drops it: left in, the old queue's
        -- throttle would hold the job for ever. Only a job that exists in another queue pays.
        local stored = nil
        if given then
          if f[3] and f[3] ~= queue then
            stored = M.Throttle_moved(given, f[3], queue)
          else
            stored = M.Throttle_stored(given, queue)
          end
          if stored then stored = encode(stored) end
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
        local qjson = encode(queue)
        local inl_36 repeat local t = now
--@ lua/num.lua:14-14
         do inl_36 = format('%.20f', t) break end
--@ lua/job/put.lua:227-228
        until true local tstr = inl_36
        local inl_37 repeat local t, tstr = now, tstr
--@ lua/num.lua:21-22
          if tstr and t >= 0 and t < 1e14 then do inl_37 = tstr:sub(1, -22) break end end
          do inl_37 = tostring(floor(t)) break end
--@ lua/job/put.lua:228-232
        until true local whole = inl_37
        -- The history entry comes before the event: at the memory limit the server refuses a
        -- script's first write that needs memory, and a refused put must not have announced
        -- itself (docs/operations.md, "At the memory limit").
        repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"put"', '{"q":' .. qjson .. '}', f[9] or false, whole
--@ lua/job/history.lua:36-42
          if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
          if legacy then M.Job_migrate(jid, legacy) end
          -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
          -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
          local entry
          if not whole then
            local inl_38 repeat local t, tstr = when
--@ lua/num.lua:21-22
              if tstr and t >= 0 and t < 1e14 then do inl_38 = tstr:sub(1, -22) break end end
              do inl_38 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
            until true whole = inl_38
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
          local inl_39 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
            if cfg == false then do inl_39 = fallback break end end
            local inl_40 repeat local name = name
--@ lua/config.lua:15-22
              if cfg == false then do inl_40 = false break end end
              if cfg == nil then cfg = {} end
              local v = cfg[name]
              if v == nil then
                v = rcall('HGET', 'ql:config', name)
                cfg[name] = v
              end
              do inl_40 = v break end
--@ lua/config.lua:30-31
            until true local raw = inl_40
            local inl_41 repeat local v = raw
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_41 = n break end end
              do inl_41 = nil break end
--@ lua/config.lua:31-33
            until true local n = inl_41
            if n == nil then do inl_39 = fallback break end end
            do inl_39 = n break end
--@ lua/job/history.lua:54-67
          until true local cap = inl_39
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
--@ lua/job/put.lua:232-238
        until true
        -- The JSON text cjson writes for { jid, event, queue } (key order is not significant).
        rcall('PUBLISH', 'ql:' .. 'log',
          '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
        local old_queue, old_state, old_worker = f[3], f[2], f[4]
        if old_queue then
          repeat local queue, jid, exist = old_queue, jid
--@ lua/queue.lua:65-68
            local qk = 'ql:q:' .. queue
            rcall('ZREM', qk .. '-locks', jid)
            if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
            if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
--@ lua/job/put.lua:238-312
          until true
          rcall('ZREM', 'ql:q:' .. old_queue .. '-depends', jid)
          if old_state == 'throttled' then
            rcall('ZREM', 'ql:q:' .. old_queue .. '-throttled', jid)
          end
          if f[12] then rcall('ZREM', 'ql:q:' .. old_queue .. '-expiring', jid) end
        end
        if f[10] or f[11] or f[12] then
          -- The job gives back its throttles and its place in its ordering key; a put sets them
          -- afresh.
          M.Job_leave(now, jid, old_queue, f[10], f[11] or nil)
          rcall('HDEL', jk, 'throttles', 'key', 'ttl')
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
        local has_deps = (f[2] or (depends and #depends > 0)) and rcall('SCARD', depk) > 0
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
        local flow = stored or okey or ttl
        if flow then
          stored = M.Job_store_flow(jid, queue, stored, okey, ttl)
          if okey then M.Order_join(queue, okey, jid) end
        end
        if has_deps then
          rcall('ZADD', 'ql:q:' .. queue .. '-depends', now, jid)
          if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
        elseif delay > 0 then
          rcall('ZADD', 'ql:q:' .. queue .. '-scheduled', now + delay, jid)
        elseif flow then
          M.Job_ready(now, queue, jid, priority, stored, okey, ttl, now, state)
        elseif batch then
          -- The work-set score of Job.enqueue (protocol 2.8).
          batch[#batch + 1] = priority - (now / 10000000000)
          batch[#batch + 1] = jid
        else
          repeat local queue, jid, priority, t = queue, jid, priority, now
--@ lua/job/state.lua:7-8
            local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
            rcall('ZADD', 'ql:q:' .. queue .. '-work', score, jid)
--@ lua/job/put.lua:312-315
          until true
        end
        if not batch then
          local inl_42 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
            if now >= 1 then do inl_42 = tstr break end end
            do inl_42 = now break end
--@ lua/job/put.lua:315-321
          until true local now_arg = inl_42
          rcall('ZADD', 'ql:queues', 'NX', now_arg, queue)
        end
        if probe >= 2 and rcall('ZSCORE', 'ql:tracked', jid) then
          rcall('PUBLISH', 'ql:' .. 'put', jid)
        end
        do inl_35 = jid break end
--@ lua/job/put.lua:47-47
      until true inl_2 = inl_35 break end
--@ lua/api.lua:71-73
    until true result = inl_2
  elseif cmd == 'pop' then
    local inl_43 repeat local now = now
--@ lua/pop.lua:31-37
      local queue, worker, count_s = A[3], A[4], A[5]
      if queue == nil then error('Queue(): no queue name provided') end
      if worker == nil then error('Pop(): Arg "worker" missing') end
      -- A count of '1' (the common pop) needs no parsing: tonumber converts a text twice.
      local count = 1
      if count_s ~= '1' then
        local inl_44 repeat local v = count_s
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_44 = n break end end
          do inl_44 = nil break end
--@ lua/pop.lua:37-54
        until true count = inl_44
        if count == nil then
          error('Pop(): Arg "count" missing or not a number: ' .. tostring(count_s))
        end
        count = floor(count)
      end
      -- One EXISTS answers the common case (no config, no paused queue, no templates, no
      -- delayed jobs in this queue, nothing tracked, no queue throttle) and saves the reads it
      -- would otherwise take.
      local qk = 'ql:q:' .. queue
      local rk, sk = qk .. '-recur', qk .. '-scheduled'
      local special = rcall('EXISTS', 'ql:config', 'ql:paused_queues', rk, sk, 'ql:tracked',
        'ql:th:' .. qk) > 0
      local expires, maxc = now + 60, 0
      if special then
        local c = rcall('HMGET', 'ql:config', queue .. '-heartbeat', 'heartbeat',
          queue .. '-max-concurrency')
        local inl_45 repeat local v = c[1]
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_45 = n break end end
          do inl_45 = nil break end
--@ lua/pop.lua:54-56
        until true local lock = inl_45
        if lock == nil then
          local inl_46 repeat local v = c[2]
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_46 = n break end end
            do inl_46 = nil break end
--@ lua/pop.lua:56-60
          until true lock = inl_46
        end
        expires = now + (lock or 60)
        if rcall('SISMEMBER', 'ql:paused_queues', queue) == 1 then do inl_43 = '{}' break end end
        local inl_47 repeat local v = c[3]
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_47 = n break end end
          do inl_47 = nil break end
--@ lua/pop.lua:60-66
        until true maxc = inl_47
        if maxc == nil then maxc = 0 end
      else
        cfg = false
      end
      -- `now` goes to Redis as its Num.time_text (see Num.score_arg), made once for every use.
      local inl_48 repeat local t = now
--@ lua/num.lua:14-14
       do inl_48 = format('%.20f', t) break end
--@ lua/pop.lua:66-67
      until true local tstr = inl_48
      local inl_49 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
        if now >= 1 then do inl_49 = tstr break end end
        do inl_49 = now break end
--@ lua/pop.lua:67-98
      until true local now_arg = inl_49
      rcall('ZADD', 'ql:workers', now_arg, worker)
      local lk = qk .. '-locks'
      if maxc > 0 then
        local allowed = floor(maxc - rcall('ZCOUNT', lk, now, '+inf'))
        if count > allowed then count = allowed end
      end
      if count <= 0 then do inl_43 = '{}' break end end
      -- The range queries are made here so that the helpers run only when there is work.
      -- A count of 1 (the common pop) goes as text: Redis would format the number first.
      -- `jids` is the expired locks, then every jid to hand out (the reply is a list of our
      -- own, so none has to be made).
      local jids = rcall('ZRANGEBYSCORE', lk, '-inf', now_arg, 'LIMIT', '0',
        count == 1 and '1' or count)
      if #jids > 0 then jids = M.Queue_reclaim(now, queue, jids) end
      local reclaimed = #jids
      local want = count - reclaimed
      if special and want > 0 then
        local room = M.Queue_throttle_room(queue, lk)
        if room and room < want then want = room end
      end
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
--@ lua/pop.lua:11-14
          if want <= 0 then do break end end
          local top = rcall('ZREVRANGE', 'ql:q:' .. queue .. '-work', '0',
            want == 1 and '0' or want - 1)
          for i = 1, #top do jids[#jids + 1] = top[i] end
--@ lua/pop.lua:98-113
        until true
      end
      if #jids == 0 then
        M.Queue_revisit(now, queue)
        do inl_43 = '{}' break end
      end
      -- The lock expiry as Redis would format the number itself (%.17g, exact), made once:
      -- each job's hash and both lock sets get this text instead of formatting it again.
      local expires_s = format('%.17g', expires)
      -- Every handed-out jid leaves the work set (step 10): the ones just taken, and any
      -- reclaimed job, which is normally not in the work set but can be (see Queue.unlist).
      local wk = qk .. '-work'
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
--@ lua/pop.lua:113-120
        until true
      end
      local wjk = 'ql:w:' .. worker .. ':jobs'
      -- The history entry every job gets, as stored and as rendered (the rendering Job.render
      -- would make of the stored text), so that no job's render parses it back.
      local wjson = encode(worker)
      local wentry = '{"worker":' .. wjson .. '}'
      local inl_50 repeat local t, tstr = now, tstr
--@ lua/num.lua:21-22
        if tstr and t >= 0 and t < 1e14 then do inl_50 = tstr:sub(1, -22) break end end
        do inl_50 = tostring(floor(t)) break end
--@ lua/pop.lua:120-128
      until true local whole = inl_50
      local last = '{"when":' .. whole .. ',"what":"popped","worker":' .. wjson .. '}'
      -- Why jobs were not handed out: 1 = one was throttled, 2 = only expired ones.
      local total, popped, skipped = #jids, nil, nil
      if total == 1 then
        -- One job (the common case): its writes in place, without the batch lists below.
        local jid = jids[1]
        local inl_51, inl_52 repeat local now, jid, worker, expires, expires_s, tstr, whole, wentry, special, queue, reclaimed = now, jid, worker, expires, expires_s, tstr, whole, wentry,
          special, queue, reclaimed == 1
--@ lua/pop.lua:193-209
          -- Job.fetch's layout, without reading the three fields pop overwrites (state, worker,
          -- expires): every field read costs a scan of the job hash and a reply string. A job
          -- that uses an extension has a `throttles` field (Job.store_flow); only then are its key
          -- and ttl read.
          local g = rcall('HMGET', 'ql:j:' .. jid, 'jid', 'klass', 'queue', 'priority', 'retries',
            'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time',
            'throttles')
          if not g[1] then do inl_51, inl_52 = nil, false break end end
          local okey, ttl = nil, nil
          if g[13] then
            local why
            why, okey, ttl = M.Queue_flow_out(now, jid, queue, g[13], reclaimed)
            if why then do inl_51, inl_52 = nil, why break end end
          end
          local f = { g[1], g[2], 'running', g[3], worker, g[4], expires, g[5], g[6], g[7], g[8],
            g[9], g[10], false, g[12], g[13], okey, ttl }
          repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"popped"', wentry, g[11] or false, whole
--@ lua/job/history.lua:36-42
            if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
            if legacy then M.Job_migrate(jid, legacy) end
            -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
            -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
            local entry
            if not whole then
              local inl_53 repeat local t, tstr = when
--@ lua/num.lua:21-22
                if tstr and t >= 0 and t < 1e14 then do inl_53 = tstr:sub(1, -22) break end end
                do inl_53 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
              until true whole = inl_53
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
            local inl_54 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
              if cfg == false then do inl_54 = fallback break end end
              local inl_55 repeat local name = name
--@ lua/config.lua:15-22
                if cfg == false then do inl_55 = false break end end
                if cfg == nil then cfg = {} end
                local v = cfg[name]
                if v == nil then
                  v = rcall('HGET', 'ql:config', name)
                  cfg[name] = v
                end
                do inl_55 = v break end
--@ lua/config.lua:30-31
              until true local raw = inl_55
              local inl_56 repeat local v = raw
--@ lua/num.lua:6-9
                local n = tonumber(v)
                -- n - n is 0 for every finite number, and nan for nan and for +-inf.
                if n and n - n == 0 then do inl_56 = n break end end
                do inl_56 = nil break end
--@ lua/config.lua:31-33
              until true local n = inl_56
              if n == nil then do inl_54 = fallback break end end
              do inl_54 = n break end
--@ lua/job/history.lua:54-67
            until true local cap = inl_54
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
--@ lua/pop.lua:209-214
          until true
          rcall('HSET', 'ql:j:' .. jid, 'time', tstr, 'worker', worker, 'expires', expires_s,
            'state', 'running')
          local tracked = special and rcall('ZSCORE', 'ql:tracked', jid) ~= false
          if tracked then rcall('PUBLISH', 'ql:' .. 'popped', jid) end
          do inl_51, inl_52 = f, tracked break end
--@ lua/pop.lua:128-131
        until true local f, tracked = inl_51, inl_52
        if f then
          local put_t = tonumber(f[15]) or now
          repeat local now, kind, queue, v = now, 'wait', queue, now - put_t
--@ lua/stats.lua:110-110
            local inl_57 repeat local t = now
--@ lua/stats.lua:22-22
             do inl_57 = t - (t % 86400) break end
--@ lua/stats.lua:110-111
            until true local day = inl_57
            local inl_58 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
              if day >= 1 and day < 1e14 then
                do inl_58 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
              end
              do inl_58 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:111-112
            until true local k = inl_58
            local inl_59, inl_60 repeat local v = v
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
                if f >= 10 then do inl_59, inl_60 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
                if f >= 1 then do inl_59, inl_60 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
                -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
                if f == 0 and 1 / f > 0 then do inl_59, inl_60 = 's0', fine break end end
                do inl_59, inl_60 = 's' .. f, fine break end
              end
              if f < 3600 then
                local m = floor(f / 60)
                if m >= 10 then do inl_59, inl_60 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
                do inl_59, inl_60 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
              end
              if f < 86400 then
                local h = floor(f / 3600)
                if h >= 10 then do inl_59, inl_60 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
                do inl_59, inl_60 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
              end
              do inl_59, inl_60 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:112-114
            until true local bin, fine = inl_59, inl_60
            local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
            local inl_61, inl_62, inl_63 repeat local total, mean, vk, v = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v
--@ lua/stats.lua:91-96
              if total == nil then do inl_61, inl_62, inl_63 = 1, v, 0 break end end
              mean, vk = mean or 0, vk or 0
              total = total + 1
              local old = mean
              mean = old + (v - old) / total
              do inl_61, inl_62, inl_63 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:114-124
            until true local total, mean, vk = inl_61, inl_62, inl_63
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
--@ lua/pop.lua:131-139
          until true
          rcall('ZADD', wjk, expires_s, jid)
          rcall('ZADD', lk, expires_s, jid)
          -- The entry the job's put wrote, predicted from its time and queue, and its
          -- rendering: an entry that is exactly this text is rendered without being parsed.
          local seen, shown
          local q = encode(f[4])
          if put_t >= 1 and put_t < 1e14 then
            local inl_64 repeat local t, tstr = put_t, f[15]
--@ lua/num.lua:21-22
              if tstr and t >= 0 and t < 1e14 then do inl_64 = tstr:sub(1, -22) break end end
              do inl_64 = tostring(floor(t)) break end
--@ lua/pop.lua:139-143
            until true local w = inl_64
            seen = '[' .. w .. ',"put",{"q":' .. q .. '}]'
            shown = '{"when":' .. w .. ',"what":"put","q":' .. q .. '}'
          end
          do local inl_65 repeat local jid, f, tracked, wrap, last, seen, shown, wjson, qjson = jid, f, tracked, true, last, seen, shown, wjson, q
--@ lua/job/render.lua:58-100
            if not f then f = M.Job_fetch(jid) end
            if not f[1] then do inl_65 = nil break end end
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
            local inl_66 repeat local v, whole = f[6]
--@ lua/json.lua:16-23
              if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                  or v == '7' or v == '8' or v == '9' then
                do inl_66 = v break end
              end
              local n = tonumber(v)
              if n == nil then do inl_66 = nil break end end
              if whole then n = floor(n) end
              do inl_66 = encode(n) break end
--@ lua/job/render.lua:100-101
            until true local priority = inl_66
            local inl_67 repeat local v, whole = f[8]
--@ lua/json.lua:16-23
              if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                  or v == '7' or v == '8' or v == '9' then
                do inl_67 = v break end
              end
              local n = tonumber(v)
              if n == nil then do inl_67 = nil break end end
              if whole then n = floor(n) end
              do inl_67 = encode(n) break end
--@ lua/job/render.lua:101-102
            until true local retries = inl_67
            local inl_68 repeat local v, whole = f[9], true
--@ lua/json.lua:16-23
              if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                  or v == '7' or v == '8' or v == '9' then
                do inl_68 = v break end
              end
              local n = tonumber(v)
              if n == nil then do inl_68 = nil break end end
              if whole then n = floor(n) end
              do inl_68 = encode(n) break end
--@ lua/job/render.lua:102-105
            until true local remaining = inl_68
            -- Every part as a statement of its own, so that the build can inline the helpers into
            -- pop's common path; then one concatenation expression builds the result in one step.
            local inl_69 repeat local v = f[2]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_69 = 'false' break end end
              do inl_69 = encode(v) break end
--@ lua/job/render.lua:105-108
            until true local klass = inl_69
            local state = '"running"'
            if f[3] ~= 'running' then
              local inl_70 repeat local v = f[3]
--@ lua/json.lua:7-8
                if v == false or v == nil then do inl_70 = 'false' break end end
                do inl_70 = encode(v) break end
--@ lua/job/render.lua:108-112
              until true state = inl_70
            end
            local queue = qjson
            if not queue then
              local inl_71 repeat local v = f[4]
--@ lua/json.lua:7-8
                if v == false or v == nil then do inl_71 = 'false' break end end
                do inl_71 = encode(v) break end
--@ lua/job/render.lua:112-114
              until true queue = inl_71
            end
            local inl_72 repeat local v = f[10]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_72 = 'false' break end end
              do inl_72 = encode(v) break end
--@ lua/job/render.lua:114-115
            until true local data = inl_72
            local inl_73 repeat local v = f[13]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_73 = 'false' break end end
              do inl_73 = encode(v) break end
--@ lua/job/render.lua:115-123
            until true local spawned = inl_73
            -- The history's brackets go into the one concatenation below (cjson writes {} for none).
            local history, hopen, hclose = '{}', '', ''
            if #hist > 0 then
              history, hopen, hclose = concat(hist, ','), '[', ']'
            end
            local tags, failure = f[11], f[12]
            if tags ~= '{}' then
              local inl_74 repeat local text = tags
--@ lua/job/render.lua:36-39
                if not text or text == '{}' or text == '[]' then do inl_74 = '{}' break end end
                local ok, v = pcall(decode, text)
                if not ok or type(v) ~= 'table' then do inl_74 = '{}' break end end
                do inl_74 = encode(v) break end
--@ lua/job/render.lua:123-126
              until true tags = inl_74
            end
            if failure ~= '{}' then
              local inl_75 repeat local text = failure
--@ lua/job/render.lua:36-39
                if not text or text == '{}' or text == '[]' then do inl_75 = '{}' break end end
                local ok, v = pcall(decode, text)
                if not ok or type(v) ~= 'table' then do inl_75 = '{}' break end end
                do inl_75 = encode(v) break end
--@ lua/job/render.lua:126-144
              until true failure = inl_75
            end
            -- The extensions' fields, only on jobs that use them (docs/compatibility.md).
            local flow = ''
            if f[16] or f[17] or f[18] then
              flow = M.Job_flow_fields(f)
            end
            do inl_65 = (wrap and '[{"jid":' or '{"jid":') .. encode(f[1]) .. ',"klass":' .. klass ..
              ',"state":' .. state .. ',"queue":' .. queue ..
              ',"worker":' .. (wjson or encode(f[5] or '')) .. ',"tracked":' .. (tracked and 'true' or 'false') ..
              ',"expires":' .. encode(tonumber(f[7]) or 0) .. ',"data":' .. data ..
              ',"tags":' .. tags .. ',"failure":' .. failure ..
              ',"spawned_from_jid":' .. spawned .. ',"history":' .. hopen .. history .. hclose ..
              ',"dependents":' .. (#dependents == 0 and '{}' or M.Job_encoded_members(dependents)) ..
              ',"dependencies":' .. dependencies ..
              (priority and ',"priority":' or '') .. (priority or '') ..
              (retries and ',"retries":' or '') .. (retries or '') ..
              (remaining and ',"remaining":' or '') .. (remaining or '') .. flow ..
              (wrap and '}]' or '}') break end
--@ lua/pop.lua:143-151
          until true inl_43 = inl_65 break end
        end
        if tracked then skipped = tracked end
        popped = {}
      else
        popped = {}
        for i, jid in ipairs(jids) do
          local inl_76, inl_77 repeat local now, jid, worker, expires, expires_s, tstr, whole, wentry, special, queue, reclaimed = now, jid, worker, expires, expires_s, tstr, whole,
            wentry, special, queue, i <= reclaimed
--@ lua/pop.lua:193-209
            -- Job.fetch's layout, without reading the three fields pop overwrites (state, worker,
            -- expires): every field read costs a scan of the job hash and a reply string. A job
            -- that uses an extension has a `throttles` field (Job.store_flow); only then are its key
            -- and ttl read.
            local g = rcall('HMGET', 'ql:j:' .. jid, 'jid', 'klass', 'queue', 'priority', 'retries',
              'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time',
              'throttles')
            if not g[1] then do inl_76, inl_77 = nil, false break end end
            local okey, ttl = nil, nil
            if g[13] then
              local why
              why, okey, ttl = M.Queue_flow_out(now, jid, queue, g[13], reclaimed)
              if why then do inl_76, inl_77 = nil, why break end end
            end
            local f = { g[1], g[2], 'running', g[3], worker, g[4], expires, g[5], g[6], g[7], g[8],
              g[9], g[10], false, g[12], g[13], okey, ttl }
            repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"popped"', wentry, g[11] or false, whole
--@ lua/job/history.lua:36-42
              if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
              if legacy then M.Job_migrate(jid, legacy) end
              -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
              -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
              local entry
              if not whole then
                local inl_78 repeat local t, tstr = when
--@ lua/num.lua:21-22
                  if tstr and t >= 0 and t < 1e14 then do inl_78 = tstr:sub(1, -22) break end end
                  do inl_78 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
                until true whole = inl_78
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
              local inl_79 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
                if cfg == false then do inl_79 = fallback break end end
                local inl_80 repeat local name = name
--@ lua/config.lua:15-22
                  if cfg == false then do inl_80 = false break end end
                  if cfg == nil then cfg = {} end
                  local v = cfg[name]
                  if v == nil then
                    v = rcall('HGET', 'ql:config', name)
                    cfg[name] = v
                  end
                  do inl_80 = v break end
--@ lua/config.lua:30-31
                until true local raw = inl_80
                local inl_81 repeat local v = raw
--@ lua/num.lua:6-9
                  local n = tonumber(v)
                  -- n - n is 0 for every finite number, and nan for nan and for +-inf.
                  if n and n - n == 0 then do inl_81 = n break end end
                  do inl_81 = nil break end
--@ lua/config.lua:31-33
                until true local n = inl_81
                if n == nil then do inl_79 = fallback break end end
                do inl_79 = n break end
--@ lua/job/history.lua:54-67
              until true local cap = inl_79
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
--@ lua/pop.lua:209-214
            until true
            rcall('HSET', 'ql:j:' .. jid, 'time', tstr, 'worker', worker, 'expires', expires_s,
              'state', 'running')
            local tracked = special and rcall('ZSCORE', 'ql:tracked', jid) ~= false
            if tracked then rcall('PUBLISH', 'ql:' .. 'popped', jid) end
            do inl_76, inl_77 = f, tracked break end
--@ lua/pop.lua:151-173
          until true local f, tracked = inl_76, inl_77
          if f then
            popped[#popped + 1] = { jid, f, tracked }
          elseif tracked and (not skipped or tracked < skipped) then
            skipped = tracked
          end
        end
      end
      if skipped and #popped < total then
        M.Queue_pop_again(now, queue, worker, total, popped, expires, expires_s, tstr, whole, wentry,
          special, skipped)
      end
      if #popped < count then M.Queue_revisit(now, queue) end
      if #popped == 0 then do inl_43 = '{}' break end end
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
            local inl_82 repeat local t = now
--@ lua/stats.lua:22-22
             do inl_82 = t - (t % 86400) break end
--@ lua/stats.lua:110-111
            until true local day = inl_82
            local inl_83 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
              if day >= 1 and day < 1e14 then
                do inl_83 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
              end
              do inl_83 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:111-112
            until true local k = inl_83
            local inl_84, inl_85 repeat local v = v
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
                if f >= 10 then do inl_84, inl_85 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
                if f >= 1 then do inl_84, inl_85 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
                -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
                if f == 0 and 1 / f > 0 then do inl_84, inl_85 = 's0', fine break end end
                do inl_84, inl_85 = 's' .. f, fine break end
              end
              if f < 3600 then
                local m = floor(f / 60)
                if m >= 10 then do inl_84, inl_85 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
                do inl_84, inl_85 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
              end
              if f < 86400 then
                local h = floor(f / 3600)
                if h >= 10 then do inl_84, inl_85 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
                do inl_84, inl_85 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
              end
              do inl_84, inl_85 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:112-114
            until true local bin, fine = inl_84, inl_85
            local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
            local inl_86, inl_87, inl_88 repeat local total, mean, vk, v = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v
--@ lua/stats.lua:91-96
              if total == nil then do inl_86, inl_87, inl_88 = 1, v, 0 break end end
              mean, vk = mean or 0, vk or 0
              total = total + 1
              local old = mean
              mean = old + (v - old) / total
              do inl_86, inl_87, inl_88 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:114-124
            until true local total, mean, vk = inl_86, inl_87, inl_88
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
        local inl_89 repeat local t = now
--@ lua/stats.lua:22-22
         do inl_89 = t - (t % 86400) break end
--@ lua/stats.lua:138-139
        until true local day = inl_89
        local inl_90 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
          if day >= 1 and day < 1e14 then
            do inl_90 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
          end
          do inl_90 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:139-142
        until true local k = inl_90
        local fields, slot, bins, fines = { 'total', 'mean', 'vk' }, {}, {}, {}
        for i, v in ipairs(vs) do
          local inl_91, inl_92 repeat local v = v
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
              if f >= 10 then do inl_91, inl_92 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
              if f >= 1 then do inl_91, inl_92 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
              -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
              if f == 0 and 1 / f > 0 then do inl_91, inl_92 = 's0', fine break end end
              do inl_91, inl_92 = 's' .. f, fine break end
            end
            if f < 3600 then
              local m = floor(f / 60)
              if m >= 10 then do inl_91, inl_92 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
              do inl_91, inl_92 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
            end
            if f < 86400 then
              local h = floor(f / 3600)
              if h >= 10 then do inl_91, inl_92 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
              do inl_91, inl_92 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
            end
            do inl_91, inl_92 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:142-154
          until true local bin, fine = inl_91, inl_92
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
          local inl_93, inl_94, inl_95 repeat local total, mean, vk, v = total, mean, vk, v
--@ lua/stats.lua:91-96
            if total == nil then do inl_93, inl_94, inl_95 = 1, v, 0 break end end
            mean, vk = mean or 0, vk or 0
            total = total + 1
            local old = mean
            mean = old + (v - old) / total
            do inl_93, inl_94, inl_95 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:154-176
          until true total, mean, vk = inl_93, inl_94, inl_95
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
--@ lua/pop.lua:173-174
      until true
      repeat local cmd, k, list, step, first = 'ZADD', wjk, scored, 2000
--@ lua/queue.lua:7-12
        local n = #list
        for i = first or 1, n, step do
          local j = i + step - 1
          if j > n then j = n end
          rcall(cmd, k, unpack(list, i, j))
        end
--@ lua/pop.lua:174-175
      until true
      repeat local cmd, k, list, step, first = 'ZADD', lk, scored, 2000
--@ lua/queue.lua:7-12
        local n = #list
        for i = first or 1, n, step do
          local j = i + step - 1
          if j > n then j = n end
          rcall(cmd, k, unpack(list, i, j))
        end
--@ lua/pop.lua:175-178
      until true
      local parts = {}
      for i, p in ipairs(popped) do
        local inl_96 repeat local jid, f, tracked, wrap, last, seen, shown, wjson, qjson = p[1], p[2], p[3], false, last, nil, nil, wjson
--@ lua/job/render.lua:58-100
          if not f then f = M.Job_fetch(jid) end
          if not f[1] then do inl_96 = nil break end end
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
          local inl_97 repeat local v, whole = f[6]
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_97 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_97 = nil break end end
            if whole then n = floor(n) end
            do inl_97 = encode(n) break end
--@ lua/job/render.lua:100-101
          until true local priority = inl_97
          local inl_98 repeat local v, whole = f[8]
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_98 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_98 = nil break end end
            if whole then n = floor(n) end
            do inl_98 = encode(n) break end
--@ lua/job/render.lua:101-102
          until true local retries = inl_98
          local inl_99 repeat local v, whole = f[9], true
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_99 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_99 = nil break end end
            if whole then n = floor(n) end
            do inl_99 = encode(n) break end
--@ lua/job/render.lua:102-105
          until true local remaining = inl_99
          -- Every part as a statement of its own, so that the build can inline the helpers into
          -- pop's common path; then one concatenation expression builds the result in one step.
          local inl_100 repeat local v = f[2]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_100 = 'false' break end end
            do inl_100 = encode(v) break end
--@ lua/job/render.lua:105-108
          until true local klass = inl_100
          local state = '"running"'
          if f[3] ~= 'running' then
            local inl_101 repeat local v = f[3]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_101 = 'false' break end end
              do inl_101 = encode(v) break end
--@ lua/job/render.lua:108-112
            until true state = inl_101
          end
          local queue = qjson
          if not queue then
            local inl_102 repeat local v = f[4]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_102 = 'false' break end end
              do inl_102 = encode(v) break end
--@ lua/job/render.lua:112-114
            until true queue = inl_102
          end
          local inl_103 repeat local v = f[10]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_103 = 'false' break end end
            do inl_103 = encode(v) break end
--@ lua/job/render.lua:114-115
          until true local data = inl_103
          local inl_104 repeat local v = f[13]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_104 = 'false' break end end
            do inl_104 = encode(v) break end
--@ lua/job/render.lua:115-123
          until true local spawned = inl_104
          -- The history's brackets go into the one concatenation below (cjson writes {} for none).
          local history, hopen, hclose = '{}', '', ''
          if #hist > 0 then
            history, hopen, hclose = concat(hist, ','), '[', ']'
          end
          local tags, failure = f[11], f[12]
          if tags ~= '{}' then
            local inl_105 repeat local text = tags
--@ lua/job/render.lua:36-39
              if not text or text == '{}' or text == '[]' then do inl_105 = '{}' break end end
              local ok, v = pcall(decode, text)
              if not ok or type(v) ~= 'table' then do inl_105 = '{}' break end end
              do inl_105 = encode(v) break end
--@ lua/job/render.lua:123-126
            until true tags = inl_105
          end
          if failure ~= '{}' then
            local inl_106 repeat local text = failure
--@ lua/job/render.lua:36-39
              if not text or text == '{}' or text == '[]' then do inl_106 = '{}' break end end
              local ok, v = pcall(decode, text)
              if not ok or type(v) ~= 'table' then do inl_106 = '{}' break end end
              do inl_106 = encode(v) break end
--@ lua/job/render.lua:126-144
            until true failure = inl_106
          end
          -- The extensions' fields, only on jobs that use them (docs/compatibility.md).
          local flow = ''
          if f[16] or f[17] or f[18] then
            flow = M.Job_flow_fields(f)
          end
          do inl_96 = (wrap and '[{"jid":' or '{"jid":') .. encode(f[1]) .. ',"klass":' .. klass ..
            ',"state":' .. state .. ',"queue":' .. queue ..
            ',"worker":' .. (wjson or encode(f[5] or '')) .. ',"tracked":' .. (tracked and 'true' or 'false') ..
            ',"expires":' .. encode(tonumber(f[7]) or 0) .. ',"data":' .. data ..
            ',"tags":' .. tags .. ',"failure":' .. failure ..
            ',"spawned_from_jid":' .. spawned .. ',"history":' .. hopen .. history .. hclose ..
            ',"dependents":' .. (#dependents == 0 and '{}' or M.Job_encoded_members(dependents)) ..
            ',"dependencies":' .. dependencies ..
            (priority and ',"priority":' or '') .. (priority or '') ..
            (retries and ',"retries":' or '') .. (retries or '') ..
            (remaining and ',"remaining":' or '') .. (remaining or '') .. flow ..
            (wrap and '}]' or '}') break end
--@ lua/pop.lua:178-181
        until true local text = inl_96
        parts[i] = text
      end
      do local inl_107 repeat local parts = parts
--@ lua/json.lua:29-30
        if #parts == 0 then do inl_107 = '{}' break end end
        do inl_107 = '[' .. concat(parts, ',') .. ']' break end
--@ lua/pop.lua:181-181
      until true inl_43 = inl_107 break end
--@ lua/api.lua:73-75
    until true result = inl_43
  elseif cmd == 'complete' then
    local inl_108 repeat local now = now
--@ lua/job/complete.lua:20-30
      local jid, worker, queue, data = A[3], A[4], A[5], A[6]
      if jid == nil then error('Job(): no jid provided') end
      if worker == nil then error('Complete(): Arg "worker" missing') end
      if queue == nil then error('Complete(): Arg "queue" missing') end
      if data ~= '{}' and decode(data) == false then
        error('Complete(): Arg "data" missing or not JSON: ' .. tostring(data))
      end
      local nextq, delay, depends, handoff = nil, 0, nil, nil
      -- Options are read only when given (most completes have none: no table is made).
      if #A > 6 then
        local inl_109 repeat local first, last = 7, #A
--@ lua/job/put.lua:6-8
          local opts = {}
          for i = first, last - 1, 2 do opts[A[i]] = A[i + 1] end
          do inl_109 = opts break end
--@ lua/job/complete.lua:30-33
        until true local opts = inl_109
        nextq = opts.next
        if opts.delay ~= nil then
          local inl_110 repeat local v = opts.delay
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_110 = n break end end
            do inl_110 = nil break end
--@ lua/job/complete.lua:33-98
          until true delay = inl_110
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
        if opts.namespace ~= nil then
          if nextq == nil then error('Complete(): "namespace" cannot be used without a "next".') end
          local ns = opts.namespace
          -- the shape of a prefix, `ql:` or `ql:{<name>}:` (key names are the prelude's alone)
          if not (ns:match('^%l%l:$') or ns:match('^%l%l:{[^{}]+}:$')) then
            error('Complete(): Arg "namespace" is not a namespace prefix: ' .. ns)
          end
          handoff = { p = opts.namespace, queue = nextq, delay = delay, depends = depends }
          nextq, depends = nil, nil
        end
      end
      -- The priority is read only for a next queue (each field read scans the job's hash).
      local jk = 'ql:j:' .. jid
      -- 1 state, 2 worker, 3 queue, 4 history, 5 time, 6 retries, 7 throttles, 8 priority. A
      -- job that uses an extension has a `throttles` field (Job.store_flow); only then are its
      -- key and ttl read.
      local f
      if nextq == nil then
        f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries',
          'throttles')
      else
        f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries',
          'throttles', 'priority')
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
      local inl_111 repeat local t = now
--@ lua/num.lua:14-14
       do inl_111 = format('%.20f', t) break end
--@ lua/job/complete.lua:98-99
      until true local tstr = inl_111
      local inl_112 repeat local t, tstr = now, tstr
--@ lua/num.lua:21-22
        if tstr and t >= 0 and t < 1e14 then do inl_112 = tstr:sub(1, -22) break end end
        do inl_112 = tostring(floor(t)) break end
--@ lua/job/complete.lua:99-100
      until true local whole = inl_112
      repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"done"', nil, f[4] or false, whole
--@ lua/job/history.lua:36-42
        if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
        if legacy then M.Job_migrate(jid, legacy) end
        -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
        -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
        local entry
        if not whole then
          local inl_113 repeat local t, tstr = when
--@ lua/num.lua:21-22
            if tstr and t >= 0 and t < 1e14 then do inl_113 = tstr:sub(1, -22) break end end
            do inl_113 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
          until true whole = inl_113
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
        local inl_114 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
          if cfg == false then do inl_114 = fallback break end end
          local inl_115 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_115 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_115 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_115
          local inl_116 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_116 = n break end end
            do inl_116 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_116
          if n == nil then do inl_114 = fallback break end end
          do inl_114 = n break end
--@ lua/job/history.lua:54-67
        until true local cap = inl_114
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
--@ lua/job/complete.lua:100-101
      until true
      repeat local queue, jid, exist = queue, jid, probe
--@ lua/queue.lua:65-68
        local qk = 'ql:q:' .. queue
        rcall('ZREM', qk .. '-locks', jid)
        if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
        if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
--@ lua/job/complete.lua:101-102
      until true
      repeat local now, kind, queue, v = now, 'run', queue, now - (tonumber(f[5]) or now)
--@ lua/stats.lua:110-110
        local inl_117 repeat local t = now
--@ lua/stats.lua:22-22
         do inl_117 = t - (t % 86400) break end
--@ lua/stats.lua:110-111
        until true local day = inl_117
        local inl_118 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
          if day >= 1 and day < 1e14 then
            do inl_118 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
          end
          do inl_118 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:111-112
        until true local k = inl_118
        local inl_119, inl_120 repeat local v = v
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
            if f >= 10 then do inl_119, inl_120 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
            if f >= 1 then do inl_119, inl_120 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
            -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
            if f == 0 and 1 / f > 0 then do inl_119, inl_120 = 's0', fine break end end
            do inl_119, inl_120 = 's' .. f, fine break end
          end
          if f < 3600 then
            local m = floor(f / 60)
            if m >= 10 then do inl_119, inl_120 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
            do inl_119, inl_120 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
          end
          if f < 86400 then
            local h = floor(f / 3600)
            if h >= 10 then do inl_119, inl_120 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
            do inl_119, inl_120 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
          end
          do inl_119, inl_120 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:112-114
        until true local bin, fine = inl_119, inl_120
        local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
        local inl_121, inl_122, inl_123 repeat local total, mean, vk, v = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v
--@ lua/stats.lua:91-96
          if total == nil then do inl_121, inl_122, inl_123 = 1, v, 0 break end end
          mean, vk = mean or 0, vk or 0
          total = total + 1
          local old = mean
          mean = old + (v - old) / total
          do inl_121, inl_122, inl_123 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:114-124
        until true local total, mean, vk = inl_121, inl_122, inl_123
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
--@ lua/job/complete.lua:102-116
      until true
      rcall('ZREM', 'ql:w:' .. worker .. ':jobs', jid)
      if special and rcall('ZSCORE', 'ql:tracked', jid) then
        rcall('PUBLISH', 'ql:' .. 'completed', jid)
      end
      -- The job gives back its throttles and lets the next job of its ordering key start.
      local okey, ttl_s = nil, nil
      if f[7] then
        okey, ttl_s = M.Job_flow_leave(now, jid, queue, f[7])
      end
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
            local inl_124 repeat local t, tstr = when
--@ lua/num.lua:21-22
              if tstr and t >= 0 and t < 1e14 then do inl_124 = tstr:sub(1, -22) break end end
              do inl_124 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
            until true whole = inl_124
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
          local inl_125 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
            if cfg == false then do inl_125 = fallback break end end
            local inl_126 repeat local name = name
--@ lua/config.lua:15-22
              if cfg == false then do inl_126 = false break end end
              if cfg == nil then cfg = {} end
              local v = cfg[name]
              if v == nil then
                v = rcall('HGET', 'ql:config', name)
                cfg[name] = v
              end
              do inl_126 = v break end
--@ lua/config.lua:30-31
            until true local raw = inl_126
            local inl_127 repeat local v = raw
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_127 = n break end end
              do inl_127 = nil break end
--@ lua/config.lua:31-33
            until true local n = inl_127
            if n == nil then do inl_125 = fallback break end end
            do inl_125 = n break end
--@ lua/job/history.lua:54-67
          until true local cap = inl_125
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
--@ lua/job/complete.lua:116-117
        until true
        local inl_128 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
          if now >= 1 then do inl_128 = tstr break end end
          do inl_128 = now break end
--@ lua/job/complete.lua:117-145
        until true local now_arg = inl_128
        rcall('ZADD', 'ql:queues', 'NX', now_arg, nextq)
        rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'waiting', 'worker', '',
          'failure', '{}', 'queue', nextq, 'expires', '0', 'remaining', retries)
        local flow = f[7]
        if delay > 0 and (depends == nil or #depends == 0) then
          if flow then M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, 0, false) end
          rcall('ZADD', 'ql:q:' .. nextq .. '-scheduled', now + delay, jid)
          do inl_108 = 'scheduled' break end
        end
        local linked = 0
        for _, d in ipairs(depends or {}) do
          if M.Job_link(jid, d) then linked = linked + 1 end
        end
        if linked > 0 then
          if flow then M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, 0, false) end
          rcall('ZADD', 'ql:q:' .. nextq .. '-depends', now, jid)
          rcall('HSET', jk, 'state', 'depends')
          if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
          do inl_108 = 'depends' break end
        end
        local priority = tonumber(f[8]) or 0
        if flow then
          if M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, priority, true) then
            do inl_108 = 'throttled' break end
          end
          do inl_108 = 'waiting' break end
        end
        repeat local queue, jid, priority, t = nextq, jid, priority, now
--@ lua/job/state.lua:7-8
          local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
          rcall('ZADD', 'ql:q:' .. queue .. '-work', score, jid)
--@ lua/job/complete.lua:145-153
        until true
        do inl_108 = 'waiting' break end
      end
      if handoff then M.Job_hand_off(jid, data, handoff) end
      rcall('PUBLISH', 'ql:' .. 'log',
        '{"jid":' .. encode(jid) .. ',"event":"completed","queue":' .. encode(queue) .. '}')
      rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'complete', 'worker', '',
        'failure', '{}', 'queue', '', 'expires', '0', 'remaining', retries)
      local inl_129 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
        if now >= 1 then do inl_129 = tstr break end end
        do inl_129 = now break end
--@ lua/job/complete.lua:153-155
      until true local now_arg = inl_129
      rcall('ZADD', 'ql:completed', now_arg, jid)
      repeat local now = now
--@ lua/job/complete.lua:176-176
        local inl_130 repeat local name, fallback = 'jobs-history', 604800
--@ lua/config.lua:29-30
          if cfg == false then do inl_130 = fallback break end end
          local inl_131 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_131 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_131 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_131
          local inl_132 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_132 = n break end end
            do inl_132 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_132
          if n == nil then do inl_130 = fallback break end end
          do inl_130 = n break end
--@ lua/job/complete.lua:176-177
        until true local age = inl_130
        local inl_133 repeat local name, fallback = 'jobs-history-count', 50000
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
--@ lua/job/complete.lua:177-191
        until true local keep = inl_133
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
--@ lua/job/complete.lua:155-160
      until true
      if special then
        local dependents = rcall('SMEMBERS', dk)
        if #dependents > 0 then M.Job_release_dependents(now, jid, dependents) end
      end
      do inl_108 = 'complete' break end
--@ lua/api.lua:75-77
    until true result = inl_108
  elseif cmd == 'heartbeat' then
    local inl_136 repeat local now = now
--@ lua/job/lease.lua:10-17
      local jid, worker, data = A[3], A[4], A[5]
      if jid == nil then error('Job(): no jid provided') end
      if worker == nil then error('Heatbeat(): Arg "worker" missing') end
      local decoded
      if data ~= nil then decoded = decode(data) end
      local f = rcall('HMGET', 'ql:j:' .. jid, 'worker', 'state', 'queue')
      local queue = f[3] or ''
      local inl_137 repeat local queue = queue
--@ lua/config.lua:39-39
        local inl_138 repeat local name = queue .. '-heartbeat'
--@ lua/config.lua:15-22
          if cfg == false then do inl_138 = false break end end
          if cfg == nil then cfg = {} end
          local v = cfg[name]
          if v == nil then
            v = rcall('HGET', 'ql:config', name)
            cfg[name] = v
          end
          do inl_138 = v break end
--@ lua/config.lua:39-40
        until true local raw = inl_138
        local inl_139 repeat local v = raw
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_139 = n break end end
          do inl_139 = nil break end
--@ lua/config.lua:40-42
        until true local n = inl_139
        if n ~= nil then do inl_137 = n break end end
        do local inl_140 repeat local name, fallback = 'heartbeat', 60
--@ lua/config.lua:29-30
          if cfg == false then do inl_140 = fallback break end end
          local inl_141 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_141 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_141 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_141
          local inl_142 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_142 = n break end end
            do inl_142 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_142
          if n == nil then do inl_140 = fallback break end end
          do inl_140 = n break end
--@ lua/config.lua:42-42
        until true inl_137 = inl_140 break end
--@ lua/job/lease.lua:17-35
      until true local lock = inl_137
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
      do inl_136 = expires break end
--@ lua/api.lua:77-79
    until true result = inl_136
  elseif cmd == 'fail' then
    local inl_143 repeat local now = now
--@ lua/job/fail_retry.lua:12-30
      local jid, worker, group, message, data = A[3], A[4], A[5], A[6], A[7]
      if jid == nil then error('Job(): no jid provided') end
      if worker == nil then error('Fail(): Arg "worker" missing') end
      if group == nil then error('Fail(): Arg "group" missing') end
      if message == nil then error('Fail(): Arg "message" missing') end
      local decoded
      if data ~= nil then decoded = decode(data) end
      local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'worker', 'queue', 'history', 'throttles',
        'key')
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
--@ lua/job/fields.lua:32-33
        if tracked == nil then
          local inl_144 repeat local jid = jid
--@ lua/job/fields.lua:27-27
           do inl_144 = rcall('ZSCORE', 'ql:tracked', jid) ~= false break end
--@ lua/job/fields.lua:33-35
          until true tracked = inl_144
        end
        if tracked then rcall('PUBLISH', 'ql:' .. channel, jid) end
--@ lua/job/fail_retry.lua:30-32
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
          local inl_145 repeat local t, tstr = when
--@ lua/num.lua:21-22
            if tstr and t >= 0 and t < 1e14 then do inl_145 = tstr:sub(1, -22) break end end
            do inl_145 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
          until true whole = inl_145
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
        local inl_146 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
          if cfg == false then do inl_146 = fallback break end end
          local inl_147 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_147 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', 'ql:config', name)
              cfg[name] = v
            end
            do inl_147 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_147
          local inl_148 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_148 = n break end end
            do inl_148 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_148
          if n == nil then do inl_146 = fallback break end end
          do inl_146 = n break end
--@ lua/job/history.lua:54-67
        until true local cap = inl_146
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
--@ lua/job/fail_retry.lua:32-33
      until true
      repeat local now, when, queue, field, by, field2, by2 = now, now, queue, 'failures', 1, 'failed', 1
--@ lua/stats.lua:182-182
        local inl_149 repeat local t = when
--@ lua/stats.lua:22-22
         do inl_149 = t - (t % 86400) break end
--@ lua/stats.lua:182-183
        until true local day = inl_149
        local inl_150 repeat local kind, day, queue = 'stats', day, queue
--@ lua/stats.lua:29-32
          if day >= 1 and day < 1e14 then
            do inl_150 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
          end
          do inl_150 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:183-186
        until true local k = inl_150
        rcall('HINCRBY', k, field, by)
        if field2 then rcall('HINCRBY', k, field2, by2) end
        M.Stats_expire(k, now, day)
--@ lua/job/fail_retry.lua:33-34
      until true
      repeat local queue, jid, exist = queue, jid
--@ lua/queue.lua:65-68
        local qk = 'ql:q:' .. queue
        rcall('ZREM', qk .. '-locks', jid)
        if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
        if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
--@ lua/job/fail_retry.lua:34-38
      until true
      if f[5] or f[6] then M.Job_leave(now, jid, queue, f[5], f[6] or nil) end
      if decoded ~= nil and decoded ~= false then rcall('HSET', 'ql:j:' .. jid, 'data', encode(decoded)) end
      repeat local jid, group, failure = jid, group,
        { group = group, message = message, when = floor(now), worker = worker }
--@ lua/job/state.lua:22-25
        rcall('HSET', 'ql:j:' .. jid, 'state', 'failed', 'worker', '', 'expires', '',
          'failure', encode(failure))
        rcall('SADD', 'ql:failures', group)
        rcall('LPUSH', 'ql:f:' .. group, jid)
--@ lua/job/fail_retry.lua:38-39
      until true
      do inl_143 = jid break end
--@ lua/api.lua:79-81
    until true result = inl_143
  elseif cmd == 'retry' then
    local inl_151 repeat local now = now
--@ lua/job/fail_retry.lua:52-58
      local jid, queue, worker, delay_s, group, message = A[3], A[4], A[5], A[6], A[7], A[8]
      if jid == nil then error('Job(): no jid provided') end
      if queue == nil then error('Retry(): Arg "queue" missing') end
      if worker == nil then error('Retry(): Arg "worker" missing') end
      local delay = 0
      if delay_s ~= nil then
        local inl_152 repeat local v = delay_s
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_152 = n break end end
          do inl_152 = nil break end
--@ lua/job/fail_retry.lua:58-83
        until true delay = inl_152
        if delay == nil then error('Retry(): Arg "delay" not a number: ' .. delay_s) end
      end
      local f = rcall('HMGET', 'ql:j:' .. jid, 'state', 'worker', 'queue', 'priority', 'history',
        'throttles', 'key', 'ttl')
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
      -- The job gives back its throttles: it takes them again when it is popped again, behind
      -- the jobs waiting for them. It keeps its ordering key's turn unless it fails here.
      if f[6] then M.Job_leave(now, jid, f[3], f[6], nil) end
      if remaining < 0 then
        if f[7] then M.Job_leave(now, jid, f[3], nil, f[7]) end
        group = group or ('failed-retries-' .. queue)
        repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"failed"', { group = group }, f[5] or false
--@ lua/job/history.lua:36-42
          if legacy == nil then legacy = rcall('HGET', 'ql:j:' .. jid, 'history') end
          if legacy then M.Job_migrate(jid, legacy) end
          -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
          -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
          local entry
          if not whole then
            local inl_153 repeat local t, tstr = when
--@ lua/num.lua:21-22
              if tstr and t >= 0 and t < 1e14 then do inl_153 = tstr:sub(1, -22) break end end
              do inl_153 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
            until true whole = inl_153
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
          local inl_154 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
            if cfg == false then do inl_154 = fallback break end end
            local inl_155 repeat local name = name
--@ lua/config.lua:15-22
              if cfg == false then do inl_155 = false break end end
              if cfg == nil then cfg = {} end
              local v = cfg[name]
              if v == nil then
                v = rcall('HGET', 'ql:config', name)
                cfg[name] = v
              end
              do inl_155 = v break end
--@ lua/config.lua:30-31
            until true local raw = inl_155
            local inl_156 repeat local v = raw
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_156 = n break end end
              do inl_156 = nil break end
--@ lua/config.lua:31-33
            until true local n = inl_156
            if n == nil then do inl_154 = fallback break end end
            do inl_154 = n break end
--@ lua/job/history.lua:54-67
          until true local cap = inl_154
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
--@ lua/job/fail_retry.lua:83-91
        until true
        local failure
        if message ~= nil then
          failure = { group = group, message = message, when = floor(now), worker = worker }
        else
          failure = { group = group, worker = '', when = now,
            message = 'Job exhausted retries in queue "' .. tostring(f[3]) .. '"' }
        end
        repeat local jid, channel, tracked = jid, 'failed'
--@ lua/job/fields.lua:32-33
          if tracked == nil then
            local inl_157 repeat local jid = jid
--@ lua/job/fields.lua:27-27
             do inl_157 = rcall('ZSCORE', 'ql:tracked', jid) ~= false break end
--@ lua/job/fields.lua:33-35
            until true tracked = inl_157
          end
          if tracked then rcall('PUBLISH', 'ql:' .. channel, jid) end
--@ lua/job/fail_retry.lua:91-92
        until true
        repeat local jid, group, failure = jid, group, failure
--@ lua/job/state.lua:22-25
          rcall('HSET', 'ql:j:' .. jid, 'state', 'failed', 'worker', '', 'expires', '',
            'failure', encode(failure))
          rcall('SADD', 'ql:failures', group)
          rcall('LPUSH', 'ql:f:' .. group, jid)
--@ lua/job/fail_retry.lua:92-93
        until true
        repeat local now, when, queue, field, by, field2, by2 = now, now, queue, 'failures', 1, 'failed', 1
--@ lua/stats.lua:182-182
          local inl_158 repeat local t = when
--@ lua/stats.lua:22-22
           do inl_158 = t - (t % 86400) break end
--@ lua/stats.lua:182-183
          until true local day = inl_158
          local inl_159 repeat local kind, day, queue = 'stats', day, queue
--@ lua/stats.lua:29-32
            if day >= 1 and day < 1e14 then
              do inl_159 = 'ql:s:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
            end
            do inl_159 = 'ql:s:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:183-186
          until true local k = inl_159
          rcall('HINCRBY', k, field, by)
          if field2 then rcall('HINCRBY', k, field2, by2) end
          M.Stats_expire(k, now, day)
--@ lua/job/fail_retry.lua:93-104
        until true
      else
        if delay > 0 then
          rcall('ZADD', 'ql:q:' .. queue .. '-scheduled', now + delay, jid)
          rcall('HSET', jk, 'state', 'scheduled')
        elseif f[6] or f[7] or f[8] then
          if not M.Job_ready(now, queue, jid, tonumber(f[4]) or 0, f[6], f[7] or nil,
              tonumber(f[8]), now, 'running') then
            rcall('HSET', jk, 'state', 'waiting')
          end
        else
          repeat local queue, jid, priority, t = queue, jid, tonumber(f[4]) or 0, now
--@ lua/job/state.lua:7-8
            local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
            rcall('ZADD', 'ql:q:' .. queue .. '-work', score, jid)
--@ lua/job/fail_retry.lua:104-112
          until true
          rcall('HSET', jk, 'state', 'waiting')
        end
        if group ~= nil and message ~= nil then
          rcall('HSET', jk, 'failure',
            encode({ group = group, message = message, when = floor(now), worker = worker }))
        end
      end
      do inl_151 = floor(remaining) break end
--@ lua/api.lua:81-95
    until true result = inl_151
  else
    fast = false
  end
  if fast then
    return result
  end
end

local cmd = A[1]
if cmd == nil then error('Must provide a command') end
local command = M['Api_' .. (cmd)]
if not command then error('Unknown command ' .. cmd) end
if #A < 2 then error("bad argument #1 to 'tonumber' (value expected)") end
local inl_160 repeat local v = A[2]
--@ lua/num.lua:6-9
  local n = tonumber(v)
  -- n - n is 0 for every finite number, and nan for nan and for +-inf.
  if n and n - n == 0 then do inl_160 = n break end end
  do inl_160 = nil break end
--@ lua/api.lua:95-98
until true local now = inl_160
if now == nil then error('Arg "now" missing or not a number: nil') end
local result = command(now)
return result
end

-- A namespace: its prefix `ql:{<name>}:` is the one key; every key and channel of the
-- call starts with it (P), so the call touches one slot of a cluster.
local P = KEYS[1]
if #KEYS ~= 1 or #P > 70 or not P:find('^ql:{[^{}]+}:$') then
  error('No Keys should be provided (or one, a namespace prefix ql:{<name>}: of 1 to 64 characters without braces): ' .. tostring(P))
end
-- Its events go by sharded pub/sub where the server has it (Redis 7.0, Valkey 7.2), so
-- that on a cluster they reach the namespace's node only; PUBLISH before that.
local PUB = (redis.REDIS_VERSION_NUM or 0) >= 0x070000 and 'SPUBLISH' or 'PUBLISH'

--@ lua/prelude.lua:1-56
-- qless_py Lua core: the shared locals every file uses. Built into one script by
-- scripts/build_lua.py (read its docstring for what the build does to these sources).
--
-- Called as EVALSHA <sha> 0 <command> <now> <args...> (or with one key, a namespace's
-- prefix: scripts/build_lua.py builds the body for both). Positional argument n of a
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
local M = {}  -- Api, Check, Config, Expire, Job, Json, Num, Order, Queue, Recur, Remote, Stats, Tags, Throttle, Track, Worker: see define()
--   Throttle, Track, Worker = {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}

-- Per-call state, made only when a call needs it: `cfg` holds the configuration values
-- already read (false: the call knows the config hash does not exist).
local cfg

-- Key names: the only place they are spelled. Job keys are key.job .. jid (.. suffix),
-- queue keys key.queue .. queue .. suffix, worker keys key.worker .. worker (.. key.jobs),
-- statistics hashes key.stats .. kind .. ':' .. day .. ':' .. queue, the fine histograms
-- (extension) key.fine followed by the name of a wait or run hash. Throttle keys are
-- key.throttle .. tid (.. suffix); a queue's own throttle has the tid key.queue .. queue.
-- An ordering key's set is key.queue .. queue .. key.order .. name.
-- local key = {
--   config = 'ql:config', queues = 'ql:queues', paused = 'ql:paused_queues',
--   workers = 'ql:workers', tracked = 'ql:tracked', tags = 'ql:tags',
--   failures = 'ql:failures', completed = 'ql:completed',
--   job = 'ql:j:', history = '-history', dependencies = '-dependencies', dependents = '-dependents',
--   queue = 'ql:q:', work = '-work', locks = '-locks', scheduled = '-scheduled',
--   depends = '-depends', recurring = '-recur',
--   worker = 'ql:w:', jobs = ':jobs', tag = 'ql:t:', failure_group = 'ql:f:', recur = 'ql:r:',
--   stats = 'ql:s:', channel = 'ql:', fine = 'ql:fine:',
--   throttle = 'ql:th:', pending = '-pending', ready = '-ready', throttled = '-throttled',
--   order = '-key:', expiring = '-expiring',
--   -- qless_py's own keys (not the protocol's): the last check's summary (qlpy.check), and a
--   -- sharded namespace's number of shards, in its base namespace (written by its clients).
--   check = 'ql:check', shards = 'ql:shards',
--   -- ... and what one namespace owes another (lua/remote.lua): the outbox, its messages
--   -- being relayed, its message counter, the hand-offs applied here, and a job's releases
--   -- that came before the job (key.job .. jid .. key.released).
--   outbox = 'ql:outbox', outbox_taken = 'ql:outbox-taken', outbox_seq = 'ql:outbox-seq',
--   applied = 'ql:applied', released = '-released',
-- }

--@ lua/check.lua:1-27
-- Checking and repairing the data (extension, docs/protocol.md "Checking the data"):
-- qlpy.check walks the keyspace in bounded steps and reports every broken invariant it
-- meets; qlpy.repair checks one finding again and fixes it the way the core would have.
-- A finding is { invariant, key, member, detail, repair }: `key` is the key it is about
-- (a job's hash for the job's own invariants), `member` the member, set or dependency
-- concerned ('' when none), `repair` what qlpy.repair does ('' when it leaves it alone).
--
-- A step is bounded by the server calls it makes, and it makes few, and little garbage:
-- the server runs a step of the Lua collector inside every call that allocates (and after
-- every 50th script call), and those steps, longer the bigger the heap, were most of a
-- check step's longest calls (docs/performance.md, "Check and memory per job"). So a step
-- asks each queue's facts once (`cx.q`), reads no set it only needs to know is empty,
-- builds no table or key name per key or member that it can do without, and makes a
-- finding's strings only when there is a finding.

-- Server calls per step when the caller gives none: BUDGET where the server lends
-- scripts a clock (os.clock, the server's CPU time: Valkey, Redis 8), and then a step also
-- ends once it has run for STEP_S seconds (the clock read every TIME_EVERY calls),
-- whichever comes first; BUDGET_NO_CLOCK on Redis 6.2 and 7, where the count alone bounds
-- a step. The calls a job or a set member needs vary, and a count of 40 alone let some
-- steps run three times the median (docs/performance.md, "Check and memory per job").
-- local BUDGET = 40
-- local BUDGET_NO_CLOCK = 25
-- local STEP_S = 0.0003
-- local TIME_EVERY = 4
-- local SCAN_MAX = 10

--@ lua/check.lua:437-437
-- The invariants of key `k` as a whole (`d` its classification). Returns the units spent.

--@ lua/config.lua:1-2
-- Configuration: ql:config overrides over built-in defaults (protocol section 7), read
-- once per call.

--@ lua/expiry.lua:1-9
-- Expiring jobs (extension, docs/protocol.md "Expiring jobs"): a job put with a ttl must
-- start within ttl seconds of becoming ready to run, or the core removes it as cancel would
-- and publishes `expired`. key.queue .. queue .. key.expiring holds the queue's jobs that
-- have such a deadline and have not started, scored by the deadline. The listings, peek
-- and a pop that comes up short or meets a due job remove the due ones, at most REAP per
-- call; pop and the gate check a job's own deadline before they let it on, so that a due
-- job never starts however many expire at once.

-- local REAP = 25

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

--@ lua/job/fields.lua:1-8
-- The job hash: its field layout, the one read of every field, its tags, whether it is
-- tracked, and the tracked-job events.

-- Field order of Job.fetch; the indexes below name the positions.
-- local F_JID, F_KLASS, F_STATE, F_QUEUE, F_WORKER, F_PRIORITY, F_EXPIRES = 1, 2, 3, 4, 5, 6, 7
-- local F_RETRIES, F_REMAINING, F_DATA, F_TAGS, F_FAILURE, F_SPAWNED, F_HISTORY, F_TIME =
--   8, 9, 10, 11, 12, 13, 14, 15
-- local F_THROTTLES, F_KEY, F_TTL = 16, 17, 18

--@ lua/job/gate.lua:1-5
-- The gate a job passes when it becomes ready to run (put without delay, end of a delay,
-- last dependency released, retry, timeout, unfail, advance, spawn): its ordering key and
-- its named throttles decide whether it goes into the work set or waits as `throttled`,
-- and a ttl starts its deadline. Jobs without key, throttles or ttl never come here: their
-- callers enqueue them directly (Job.enqueue).

--@ lua/job/giveback.lua:1-1
-- qlpy.giveback: a worker hands a job it holds back to its queue (extension, not qless's).

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

--@ lua/job/put_many.lua:1-5
-- qlpy.put_many: many puts into one queue in one call (extension, docs/protocol.md).

-- Seconds between the puts of one call: well above the work-set score's resolution (about
-- 3e-7 s of time at today's clock), so that jobs of equal priority keep batch order.
-- local STEP = 0.00001

--@ lua/job/render.lua:1-1
-- The job object (protocol 2.10) as JSON text, and the commands that return it.

--@ lua/job/state.lua:1-2
-- Steps of a job's state changes that several commands share: entering a queue's work
-- set, leaving a running slot, parking in a failure group.

--@ lua/json.lua:1-1
-- JSON texts written by hand, exactly as cjson would write them, where that is cheaper.

--@ lua/num.lua:1-1
-- Numbers: parsing arguments, and writing numbers as the exact texts Redis and Lua would.

--@ lua/ordering.lua:1-9
-- Ordering keys (extension, docs/protocol.md "Ordering keys"): the jobs of one queue that
-- share a key run one at a time, in the order they were put. key.queue .. queue ..
-- key.order .. name holds the key's unfinished jobs, scored 1, 2, 3, ... in put order. Only
-- the first (the head) may run; it stays the head through retries, lost locks and
-- timeouts, and gives way when it completes, advances, fails, is cancelled, expires or is
-- put again. A job behind the head waits in state `throttled`.

-- Stale heads dropped per look (a head whose job is gone or finished without a release).
-- local STALE = 5

--@ lua/pop.lua:1-5
-- pop: hand waiting jobs to a worker, with the queue's caps (max-concurrency, its own
-- throttle), the jobs' named throttles and deadlines checked on the way.

-- Rounds a pop takes beyond the first when it met only expired jobs.
-- local EXPIRED_ROUNDS = 5

--@ lua/queue.lua:1-1
-- Queues: peek, counts, listings, pause, forget; the P-PROMOTE / P-RECLAIM steps pop.lua shares.

--@ lua/recurring.lua:1-1
-- Recurring templates: recur, unrecur, recur.get, recur.update, recur.tag/untag, P-SPAWN.

--@ lua/remote.lua:1-12
-- Dependencies and hand-offs between namespaces (docs/protocol.md, "Across namespaces").
--
-- A namespace cannot write another's keys in one call (on a cluster they are on another
-- node), so what one namespace owes another goes through its outbox: a list of messages
-- that a relay (any qless_py worker serving the namespace) takes, applies to the other
-- namespace, then acknowledges. Applying is idempotent, so a message applied twice (the
-- relay died before its acknowledgement) changes nothing the second time.
--
-- A namespace is named by its key prefix (key.channel: 'ql:' or 'ql:{<name>}:'). A remote
-- member of a set starts with byte 1, then JSON {"p": prefix, "jid": jid}: in a job's
-- dependencies set, a job of another namespace it waits for; in its dependents set, a job
-- of another namespace waiting for it. Local members are jids, as always.

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

--@ lua/throttle.lua:1-16
-- Throttles, the qless throttle dialect (docs/protocol.md, "Throttles"): named counters of
-- locks with a maximum. A job's `throttles` field lists the tids it needs, its queue's own
-- tid (key.queue .. queue) last. The named throttles are the others: the queue's own
-- throttle gates pop as a whole (Queue.pop counts the queue's running jobs), so it never
-- makes one job wait.
--
-- Beside the dialect's keys (hash, -locks, -pending), ql:th:<tid>-ready holds the jobs let
-- into a work set on the throttle's account that no pop has taken yet: a throttle lets no
-- more jobs into the work set than it has room for (locks + ready < maximum), so the work
-- set never fills with jobs that cannot run. Pop checks the room again before it takes a
-- lock, so a job that was not let in (a dialect core's, a reclaimed one) cannot take room
-- promised to others, and locks never outnumber the maximum.

-- Jobs handed out per release (the dialect's 10 for an unlimited throttle is too few to
-- drain a throttle that was deleted or raised), and entries checked per recovery.
-- local HAND_OUT, VERIFY = 100, 3

--@ lua/track.lua:1-1
-- Tracking: the track listing and track/untrack.

--@ lua/worker.lua:1-1
-- Workers: the registry listing and deregistration.


-- Module functions: M's __index creates each on its first use in a call.
local function define(M, name)
  local rcall = redis.call
  local encode, decode = cjson.encode, cjson.decode
  local floor = math.floor
  local format, concat = string.format, table.concat
  local A = ARGV
  local name_len = #name
  if name_len < 15 then
    if name_len < 11 then
      if name_len < 9 then
        if name_len < 8 then
          if name_len == 7 then
            if name == 'Job_log' then
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
  if rcall('EXISTS', P .. 'j:' .. jid) == 0 then error('Log(): Job ' .. jid .. ' does not exist') end
  -- Pass the extra as JSON text: a decoded JSON string must not be taken for JSON text.
  if extra ~= nil then extra = encode(extra) end
  M.Job_hist(jid, now, encode(message), extra)
  return nil
end
            elseif name == 'Job_put' then
--@ lua/job/put.lua:11-48
-- put <now> <worker> <queue> <jid> <klass> <data> <delay> [priority p] [tags t] [retries r]
--     [depends d] [throttles t] [key k] [ttl s] [unique 0|1]
-- Reply: the jid; with unique 1, nil when a job with this jid exists and is not complete
-- (nothing is written then). Events: ql:log put; ql:w:<old> + ql:log lock_lost when taken
-- from another worker; ql:put (tracked). Every argument is validated before the first write
-- (the reference detaches the old tags before checking retries/tags/priority/depends).
-- `throttles`, `key` and `ttl` are the extensions of docs/protocol.md; a put sets them
-- afresh (a job put again without them has none), and a put of a job that is in another
-- queue drops that queue's tid from the `throttles` it is given (a move, as the dialect's).
-- Errors: Queue(): no queue name provided / Put(): Arg "jid" missing / Put(): Arg "klass"
-- missing / Put(): Arg "data" missing or not JSON: <x> / Put(): Arg "delay" not a number: <x>
-- / Odd number of additional args / Put(): Arg "retries" not a number: <x> / Put(): Arg
-- "tags" not JSON<x> / Put(): Arg "priority" not a number<x> / Put(): Arg "depends" not JSON:
-- <x> / Put(): Arg "throttles" not JSON array: <x> / Put(): Arg "key" is empty / Put(): Arg
-- "ttl" not a number: <x> / Put(): Arg "ttl" must be greater than 0: <x> / Put(): Arg
-- "unique" must be 0 or 1: <x>; requeue first: Job(): no jid provided / Requeue(): Job
-- <jid> does not exist
--@inline
function M.Job_put(now, requeue)
  local worker, queue, jid, klass, data, delay_s = A[3], A[4], A[5], A[6], A[7], A[8]
  if requeue then
    if jid == nil then error('Job(): no jid provided') end
    if rcall('EXISTS', P .. 'j:' .. jid) == 0 then
      error('Requeue(): Job ' .. jid .. ' does not exist')
    end
  end
  local n = #A
  if n == 8 then
    -- No options (the common put): nothing to parse, and no values to pass along.
    local delay = M.Job_put_check(queue, jid, klass, data, delay_s)
    return M.Job_put_write(now, worker, queue, jid, klass, data, delay, nil, nil, nil, false,
      nil, nil, nil, false, nil, nil)
  end
  local delay, retries, tags, priority, depends, throttles, okey, ttl, unique =
    M.Job_put_args(queue, jid, klass, data, delay_s, 9, n)
  return M.Job_put_write(now, worker, queue, jid, klass, data, delay, retries, tags, priority,
    depends, throttles, okey, ttl, unique, nil, nil)
end
            elseif name == 'Job_get' then
--@ lua/job/render.lua:158-163
-- get <now> <jid>: the job object, or nil. Error: Job(): no jid provided
function M.Job_get(now)
  local jid = A[3]
  if jid == nil then error('Job(): no jid provided') end
  return M.Job_render(jid) or false
end
            elseif name == 'Api_get' then
--@ lua/api.lua:3-3
M['Api_get'] = M.Job_get
            elseif name == 'Api_tag' then
--@ lua/api.lua:18-18
M['Api_tag'] = M.Tags_tag
            elseif name == 'Api_log' then
--@ lua/api.lua:21-21
M['Api_log'] = M.Job_log
            elseif name == 'Api_pop' then
--@ lua/api.lua:23-23
M['Api_pop'] = M.Queue_pop
            elseif name == 'Api_put' then
--@ lua/api.lua:28-28
M['Api_put'] = M.Job_put
            end
          end
        else
          if name_len == 8 then
            if name == 'Job_link' then
--@ lua/job/depends.lua:3-19
-- Record that job `jid` waits for `dep` when `dep` exists and is not complete.
function M.Job_link(jid, dep)
  if M.Remote_is(dep) then
    -- A job of another namespace, registered there (lua/remote.lua): waited for unless
    -- its release came first.
    if M.Remote_early(jid, dep) then return false end
    rcall('SADD', P .. 'j:' .. jid .. '-dependencies', dep)
    return true
  end
  local st = rcall('HGET', P .. 'j:' .. dep, 'state')
  if st and st ~= 'complete' then
    rcall('SADD', P .. 'j:' .. jid .. '-dependencies', dep)
    rcall('SADD', P .. 'j:' .. dep .. '-dependents', jid)
    return true
  end
  return false
end
            elseif name == 'Job_fail' then
--@ lua/job/fail_retry.lua:3-40
-- fail <now> <jid> <worker> <group> <message> [data]
-- Reply: the jid. Events: ql:log failed, then ql:failed (tracked). The job gives back its
-- throttles and its ordering key's turn.
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
  local f = rcall('HMGET', P .. 'j:' .. jid, 'state', 'worker', 'queue', 'history', 'throttles',
    'key')
  local state, queue = f[1], f[3]
  if not state then error('Fail(): Job ' .. jid .. 'does not exist') end
  if state ~= 'running' then error('Fail(): Job ' .. jid .. 'not currently running: ' .. state) end
  if f[2] ~= worker then
    error('Fail(): Job ' .. jid .. ' running with another worker: ' .. tostring(f[2]))
  end
  queue = queue or ''
  rcall(PUB, P .. 'log', encode({ jid = jid, event = 'failed', worker = worker,
    group = group, message = message }))
  M.Job_notify(jid, 'failed')
  rcall('ZREM', P .. 'w:' .. worker .. ':jobs', jid)
  M.Job_hist(jid, now, '"failed"', { worker = worker, group = group }, f[4] or false)
  M.Stats_count(now, now, queue, 'failures', 1, 'failed', 1)
  M.Queue_unlist(queue, jid)
  if f[5] or f[6] then M.Job_leave(now, jid, queue, f[5], f[6] or nil) end
  if decoded ~= nil and decoded ~= false then rcall('HSET', P .. 'j:' .. jid, 'data', encode(decoded)) end
  M.Job_park_failed(jid, group,
    { group = group, message = message, when = floor(now), worker = worker })
  return jid
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
  if legacy == nil then legacy = rcall('HGET', P .. 'j:' .. jid, 'history') end
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
  local hk = P .. 'j:' .. jid .. '-history'
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
            elseif name == 'Json_str' then
--@ lua/json.lua:3-9
-- A JSON string for `v`, or the literal false for a missing value (cjson's rendering of a
-- missing hash field that was copied into an object).
--@inline
function M.Json_str(v)
  if v == false or v == nil then return 'false' end
  return encode(v)
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
    local jk = P .. 'j:' .. jid
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
        rcall('ZADD', P .. 't:' .. t, now, jid)
        rcall('ZINCRBY', P .. 'tags', 1, t)
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
        rcall('ZREM', P .. 't:' .. A[i], jid)
        rcall('ZINCRBY', P .. 'tags', -1, A[i])
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
    local tk = P .. 't:' .. tag
    return encode({
      total = rcall('ZCARD', tk),
      jobs = rcall('ZRANGE', tk, offset, offset + count - 1),
    })
  elseif command == 'top' then
    local offset = M.Queue_page_arg(A[4], 0, 'Tag(): Arg "offset" not a number: ')
    local count = M.Queue_page_arg(A[5], 25, 'Tag(): Arg "count" not a number: ')
    return encode(rcall('ZREVRANGEBYSCORE', P .. 'tags', '+inf', 2, 'LIMIT', offset, count))
  end
  error('Tag(): First argument must be "add", "remove" or "get"')
end
            elseif name == 'Api_fail' then
--@ lua/api.lua:11-11
M['Api_fail'] = M.Job_fail
            elseif name == 'Api_jobs' then
--@ lua/api.lua:12-12
M['Api_jobs'] = M.Queue_jobs
            elseif name == 'Api_peek' then
--@ lua/api.lua:22-22
M['Api_peek'] = M.Queue_peek
            end
          end
        end
      else
        if name_len < 10 then
          if name_len == 9 then
            if name == 'Check_job' then
--@ lua/check.lua:161-201
-- The job's own invariants (`jk` its hash, `f` its fields when already read): the sets its
-- state names and no other set of its queue, its lock, worker set and throttle locks when
-- running, its dependencies, failure group, tags, ordering key, and its queue in
-- ql:queues.
function M.Check_job(now, jk, jid, cx, f)
  f = f or M.Check_job_fields(cx, jk)
  local state, queue = f[2], f[3]
  local known = state == 'waiting' or state == 'stalled' or state == 'running' or
    state == 'scheduled' or state == 'depends' or state == 'throttled' or state == 'failed' or
    state == 'complete'
  if f[1] ~= jid or not known or not queue or not f[11] then
    M.Check_found(cx, 'job-malformed', jk, '', 'the job hash lacks jid, klass, a known state ' ..
      'or queue', '')
    return
  end
  if state == 'complete' then
    if not M.Check_call(cx, 'ZSCORE', P .. 'completed', jid) then
      M.Check_found(cx, 'not-in-state-set', jk, P .. 'completed', 'complete but not in ' ..
        P .. 'completed', 'add it to ' .. P .. 'completed')
    end
  else
    M.Check_job_sets(jid, jk, state, queue, f, cx)
  end
  if state == 'running' then M.Check_running(jid, jk, queue, f, cx) end
  M.Check_job_dependencies(jid, jk, state, cx)
  if f[7] then
    for t in pairs(M.Check_tags(cx, f[7])) do
      if not M.Check_call(cx, 'ZSCORE', P .. 't:' .. t, jid) then
        M.Check_found(cx, 'tag-unindexed', jk, t, 'tagged ' .. t .. ' but not in ' ..
          P .. 't:' .. t, 'add it to ' .. P .. 't:' .. t)
      end
    end
  end
  if f[9] and state ~= 'complete' and state ~= 'failed' then
    local ok = M.Order_set(queue, f[9])
    if not M.Check_call(cx, 'ZSCORE', ok, jid) then
      M.Check_found(cx, 'order-missing', jk, f[9], 'has ordering key ' .. f[9] ..
        ' but is not in ' .. ok, 'append it to ' .. ok)
    end
  end
end
            elseif name == 'Check_key' then
--@ lua/check.lua:589-607
-- Check key `k`: its own invariants now, and its members later (a walk is queued in `walks`
-- as { key, cursor }).
function M.Check_key(now, k, cx, walks)
  -- Most keys are jobs' hashes: such a name is read as one first, and its type asked only
  -- when that fails or finds none of a job's fields (no key, or not a job's hash).
  if k:find(P .. 'j:', 1, true) == 1 and not (M.Check_ends(k, '-history') or
      M.Check_ends(k, '-dependencies') or M.Check_ends(k, '-dependents')) then
    local f = M.Check_job_fields(cx, k)
    if not f.err and (f[1] or f[2] or f[3] or f[11]) then
      M.Check_job(now, k, k:sub(#(P .. 'j:') + 1), cx, f)
      return
    end
  end
  local kind = M.Check_call(cx, 'TYPE', k).ok
  if kind == 'none' then return end
  local d = M.Check_classify(k, kind)
  M.Check_head(now, k, d, kind, cx)
  if d.walk and kind == d.want then walks[#walks + 1] = { k, '0' } end
end
            elseif name == 'Job_erase' then
--@ lua/job/cancel.lua:16-48
-- Remove a job that is not complete with everything that refers to it (cancel, expiry) but
-- its dependents, which the caller handles. `f` is the job's state, queue, failure, worker,
-- tags, throttles, key and ttl fields.
function M.Job_erase(now, jid, f)
  local state, queue, failure = f[1], f[2], f[3]
  if queue then
    M.Queue_unlist(queue, jid)
    rcall('ZREM', P .. 'q:' .. queue .. '-depends', jid)
    if state == 'throttled' then rcall('ZREM', P .. 'q:' .. queue .. '-throttled', jid) end
    if f[8] then rcall('ZREM', P .. 'q:' .. queue .. '-expiring', jid) end
  end
  if f[6] or f[7] then M.Job_leave(now, jid, queue, f[6], f[7] or nil) end
  local depk = P .. 'j:' .. jid .. '-dependencies'
  for _, b in ipairs(rcall('SMEMBERS', depk)) do M.Job_unlink(jid, b) end
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
    rcall('ZREM', P .. 't:' .. t, jid)
    rcall('ZINCRBY', P .. 'tags', -1, t)
  end
  rcall('DEL', P .. 'j:' .. jid, P .. 'j:' .. jid .. '-history')
end
            elseif name == 'Job_retry' then
--@ lua/job/fail_retry.lua:42-113
-- retry <now> <jid> <queue> <worker> [delay] [group] [message]
-- Reply: integer, retries remaining (-1 when the job failed). Events: ql:failed (tracked) on
-- exhaustion (no ql:log event there, as in the reference). The job gives back its
-- throttles, and keeps its ordering key's turn (it runs again before the key's next job)
-- unless its retries are exhausted. A job with a ttl must start again within it.
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
  local f = rcall('HMGET', P .. 'j:' .. jid, 'state', 'worker', 'queue', 'priority', 'history',
    'throttles', 'key', 'ttl')
  local state = f[1]
  if not state then error('Retry(): Job ' .. jid .. ' does not exist') end
  if state ~= 'running' then
    error('Retry(): Job ' .. jid .. ' is not currently running: ' .. state)
  end
  if f[2] ~= worker then
    error('Retry(): Job ' .. jid .. ' has been given to another worker: ' .. tostring(f[2]))
  end
  local jk = P .. 'j:' .. jid
  -- HINCRBYFLOAT: a fractional budget (retries 2.5) must not make this fail.
  local remaining = tonumber(rcall('HINCRBYFLOAT', jk, 'remaining', -1))
  rcall('HDEL', jk, 'grace')
  rcall('ZREM', P .. 'q:' .. (f[3] or '') .. '-locks', jid)
  rcall('ZREM', P .. 'w:' .. worker .. ':jobs', jid)
  -- The job gives back its throttles: it takes them again when it is popped again, behind
  -- the jobs waiting for them. It keeps its ordering key's turn unless it fails here.
  if f[6] then M.Job_leave(now, jid, f[3], f[6], nil) end
  if remaining < 0 then
    if f[7] then M.Job_leave(now, jid, f[3], nil, f[7]) end
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
      rcall('ZADD', P .. 'q:' .. queue .. '-scheduled', now + delay, jid)
      rcall('HSET', jk, 'state', 'scheduled')
    elseif f[6] or f[7] or f[8] then
      if not M.Job_ready(now, queue, jid, tonumber(f[4]) or 0, f[6], f[7] or nil,
          tonumber(f[8]), now, 'running') then
        rcall('HSET', jk, 'state', 'waiting')
      end
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
--@ lua/job/fields.lua:10-15
-- Every field a command or the job object needs, in one HMGET.
function M.Job_fetch(jid)
  return rcall('HMGET', P .. 'j:' .. jid, 'jid', 'klass', 'state', 'queue', 'worker', 'priority',
    'expires', 'retries', 'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history',
    'time', 'throttles', 'key', 'ttl')
end
            elseif name == 'Job_ready' then
--@ lua/job/gate.lua:7-35
-- Job `jid` of `queue` becomes ready to run. It goes into the work set with `priority`, or
-- waits in state throttled when an earlier job of its ordering key `okey` is unfinished or
-- one of the named throttles in `text` (its stored list) has no room. `at`, when given, is
-- when it became ready: with a `ttl` it must start by at + ttl (Expire.arm). `state` is the
-- job's state as stored (a throttled job that tries again keeps its place and history).
-- `since`, when given, is the time its work-set score counts from (else `now`): a job that
-- waited keeps its place among the jobs put after it. Returns true when the job waits (its
-- state is written here), false when it went into the work set (the caller writes the
-- state).
function M.Job_ready(now, queue, jid, priority, text, okey, ttl, at, state, since)
  if ttl and at then M.Expire_arm(queue, jid, at + ttl) end
  local all = M.Throttle_list(text)
  if okey and not M.Order_is_head(queue, okey, jid) then
    M.Job_throttle(now, jid, queue, nil, state, all)
    return true
  end
  local own = M.Throttle_own(all, queue)
  if own then
    local tid = M.Throttle_full(now, own)
    if tid then
      M.Job_throttle(now, jid, queue, tid, state, all)
      return true
    end
    if state == 'throttled' then M.Job_unpend(jid, all, nil) end
    M.Throttle_admit(now, jid, own)
  end
  M.Job_enqueue(queue, jid, priority, since or now)
  return false
end
            elseif name == 'Job_leave' then
--@ lua/job/gate.lua:103-110
-- Job `jid` leaves its place in `queue` for good (complete, advance, fail, cancel, expiry,
-- put, retries exhausted): it gives back its throttles (`text`, its stored list) and leaves
-- its ordering key `okey`, so that waiting jobs may start.
function M.Job_leave(now, jid, queue, text, okey)
  local all = M.Throttle_list(text)
  if all then M.Throttle_release(now, jid, all) end
  if okey and queue then M.Order_leave(now, queue, okey, jid) end
end
            elseif name == 'Job_enter' then
--@ lua/job/gate.lua:120-143
-- The job's throttle, key and ttl fields (`text`, `okey`, `ttl_s` as stored) for a job that
-- moves from queue `old` to `new` and becomes ready there at `now` (advance, unfail): its
-- list names the new queue's tid, it joins the new queue's key at the end, and it passes the
-- gate unless `ready` is false. Returns true when it waits (state written), false when it
-- went into the work set.
function M.Job_enter(now, jid, old, new, text, okey, ttl_s, priority, ready)
  if text then
    local moved = M.Throttle_moved(M.Throttle_list(text), old, new)
    if moved then
      text = encode(moved)
    elseif okey or ttl_s then
      text = encode({ P .. 'q:' .. new })
    end
    if moved or okey or ttl_s then
      rcall('HSET', P .. 'j:' .. jid, 'throttles', text)
    else
      text = nil
      rcall('HDEL', P .. 'j:' .. jid, 'throttles')
    end
  end
  if okey then M.Order_join(new, okey, jid) end
  if not ready then return false end
  return M.Job_ready(now, new, jid, priority, text, okey, tonumber(ttl_s), now, nil)
end
            elseif name == 'Json_list' then
--@ lua/json.lua:26-31
-- A JSON array built from already-encoded elements; cjson writes an empty list as {}.
--@inline
function M.Json_list(parts)
  if #parts == 0 then return '{}' end
  return '[' .. concat(parts, ',') .. ']'
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
            elseif name == 'Order_set' then
--@ lua/ordering.lua:11-14
-- The sorted set of ordering key `name` of `queue`.
function M.Order_set(queue, name)
  return P .. 'q:' .. queue .. '-key:' .. name
end
            elseif name == 'Queue_pop' then
--@ lua/pop.lua:17-182
-- pop <now> <queue> <worker> <count>
-- Reply: JSON array of the popped jobs ({} when none). Events: reclaim events (4.2), then
-- ql:popped per tracked job. A work-set jid whose job hash is gone is dropped from the work
-- set and skipped (the reference fails with a Lua error). A negative count counts as 0.
-- The throttle dialect's steps (docs/protocol.md): when the queue's own throttle is full
-- (its running jobs, stalled ones included, at its maximum) only reclaimed jobs are handed
-- out; a job whose named throttle is full is throttled instead of handed out, and a job
-- whose ttl deadline has passed is expired; then more rounds look at more jobs
-- (Queue.pop_again). A pop that comes up short expires due jobs and looks at one throttled
-- job of the queue again (Queue.revisit).
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
  -- delayed jobs in this queue, nothing tracked, no queue throttle) and saves the reads it
  -- would otherwise take.
  local qk = P .. 'q:' .. queue
  local rk, sk = qk .. '-recur', qk .. '-scheduled'
  local special = rcall('EXISTS', P .. 'config', P .. 'paused_queues', rk, sk, P .. 'tracked',
    P .. 'th:' .. qk) > 0
  local expires, maxc = now + 60, 0
  if special then
    local c = rcall('HMGET', P .. 'config', queue .. '-heartbeat', 'heartbeat',
      queue .. '-max-concurrency')
    local lock = M.Num_parse(c[1])
    if lock == nil then
      lock = M.Num_parse(c[2])
    end
    expires = now + (lock or 60)
    if rcall('SISMEMBER', P .. 'paused_queues', queue) == 1 then return '{}' end
    maxc = M.Num_parse(c[3])
    if maxc == nil then maxc = 0 end
  else
    cfg = false
  end
  -- `now` goes to Redis as its Num.time_text (see Num.score_arg), made once for every use.
  local tstr = M.Num_time_text(now)
  local now_arg = M.Num_score_arg(now, tstr)
  rcall('ZADD', P .. 'workers', now_arg, worker)
  local lk = qk .. '-locks'
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
  local reclaimed = #jids
  local want = count - reclaimed
  if special and want > 0 then
    local room = M.Queue_throttle_room(queue, lk)
    if room and room < want then want = room end
  end
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
  if #jids == 0 then
    M.Queue_revisit(now, queue)
    return '{}'
  end
  -- The lock expiry as Redis would format the number itself (%.17g, exact), made once:
  -- each job's hash and both lock sets get this text instead of formatting it again.
  local expires_s = format('%.17g', expires)
  -- Every handed-out jid leaves the work set (step 10): the ones just taken, and any
  -- reclaimed job, which is normally not in the work set but can be (see Queue.unlist).
  local wk = qk .. '-work'
  if #jids == 1 then
    rcall('ZREM', wk, jids[1])
  else
    M.Queue_call_list('ZREM', wk, jids, 1000)
  end
  local wjk = P .. 'w:' .. worker .. ':jobs'
  -- The history entry every job gets, as stored and as rendered (the rendering Job.render
  -- would make of the stored text), so that no job's render parses it back.
  local wjson = encode(worker)
  local wentry = '{"worker":' .. wjson .. '}'
  local whole = M.Num_whole_text(now, tstr)
  local last = '{"when":' .. whole .. ',"what":"popped","worker":' .. wjson .. '}'
  -- Why jobs were not handed out: 1 = one was throttled, 2 = only expired ones.
  local total, popped, skipped = #jids, nil, nil
  if total == 1 then
    -- One job (the common case): its writes in place, without the batch lists below.
    local jid = jids[1]
    local f, tracked = M.Queue_hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry,
      special, queue, reclaimed == 1)
    if f then
      local put_t = tonumber(f[15]) or now
      M.Stats_sample(now, 'wait', queue, now - put_t)
      rcall('ZADD', wjk, expires_s, jid)
      rcall('ZADD', lk, expires_s, jid)
      -- The entry the job's put wrote, predicted from its time and queue, and its
      -- rendering: an entry that is exactly this text is rendered without being parsed.
      local seen, shown
      local q = encode(f[4])
      if put_t >= 1 and put_t < 1e14 then
        local w = M.Num_whole_text(put_t, f[15])
        seen = '[' .. w .. ',"put",{"q":' .. q .. '}]'
        shown = '{"when":' .. w .. ',"what":"put","q":' .. q .. '}'
      end
      return M.Job_render(jid, f, tracked, true, last, seen, shown, wjson, q)
    end
    if tracked then skipped = tracked end
    popped = {}
  else
    popped = {}
    for i, jid in ipairs(jids) do
      local f, tracked = M.Queue_hand_out(now, jid, worker, expires, expires_s, tstr, whole,
        wentry, special, queue, i <= reclaimed)
      if f then
        popped[#popped + 1] = { jid, f, tracked }
      elseif tracked and (not skipped or tracked < skipped) then
        skipped = tracked
      end
    end
  end
  if skipped and #popped < total then
    M.Queue_pop_again(now, queue, worker, total, popped, expires, expires_s, tstr, whole, wentry,
      special, skipped)
  end
  if #popped < count then M.Queue_revisit(now, queue) end
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
            elseif name == 'Recur_get' then
--@ lua/recurring.lua:143-160
-- recur.get <now> <jid>: the recurring object (protocol 2.11), or nil. It has `throttles`
-- (the stored list) when the template names a throttle besides its queue's own, and `key`
-- and `ttl` when they are set. Error: Recurring(): no jid provided
function M.Recur_get(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local r = rcall('HMGET', P .. 'r:' .. jid, 'jid', 'klass', 'state', 'queue', 'priority',
    'interval', 'retries', 'count', 'data', 'tags', 'backlog', 'throttles', 'key', 'ttl')
  if not r[1] then return false end
  local all = M.Throttle_list(r[12])
  return encode({
    jid = r[1], klass = r[2], state = r[3], queue = r[4], priority = tonumber(r[5]),
    interval = tonumber(r[6]), retries = tonumber(r[7]), count = tonumber(r[8]), data = r[9],
    tags = M.Job_tag_list(r[10]), backlog = tonumber(r[11]) or 0,
    throttles = M.Throttle_own(all, r[4] or '') and all or nil, ['key'] = r[13] or nil,
    ttl = tonumber(r[14]),
  })
end
            elseif name == 'Recur_tag' then
--@ lua/recurring.lua:247-265
-- recur.tag <now> <jid> <tag>...: append tags not already on the template (duplicates given
-- in the same call are all appended, as in the reference). Reply: the tag list JSON.
-- Errors: Recurring(): no jid provided / Tag(): Job <jid> does not exist
function M.Recur_tag(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = P .. 'r:' .. jid
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
            elseif name == 'Remote_is' then
--@ lua/remote.lua:14-18
-- Whether `member` of a dependencies or dependents set names a job of another namespace.
--@inline
function M.Remote_is(member)
  return member:byte(1) == 1
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
    return P .. 's:' .. kind .. ':' .. format('%d', day) .. ':' .. queue
  end
  return P .. 's:' .. kind .. ':' .. day .. ':' .. queue
end
            elseif name == 'Stats_ttl' then
--@ lua/stats.lua:35-39
-- Seconds from `now` until a stats hash of day `day` should disappear.
function M.Stats_ttl(now, day)
  local days = M.Config_number('stats-history', 30)
  return math.ceil(day + 86400 * days - now)
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
            elseif name == 'Stats_get' then
--@ lua/stats.lua:225-246
-- stats <now> <queue> <date>
-- Reply: {"retries","failed","failures","wait":{...},"run":{...}} for the day of `date`,
-- and "expired" (jobs whose ttl ran out, an extension) only when there were some.
-- Errors: Queue(): no queue name provided / Stats(): Arg "date" missing or not a number: <x>
function M.Stats_get(now)
  local queue, date_s = A[3], A[4]
  if queue == nil then error('Queue(): no queue name provided') end
  local date = M.Num_parse(date_s)
  if date == nil then error('Stats(): Arg "date" missing or not a number: ' .. tostring(date_s)) end
  local day = M.Stats_day(date)
  local counters = rcall('HMGET', M.Stats_key('stats', day, queue), 'retries', 'failed', 'failures',
    'expired')
  local expired = tonumber(counters[4])
  return encode({
    retries = tonumber(counters[1]) or 0,
    failed = tonumber(counters[2]) or 0,
    failures = tonumber(counters[3]) or 0,
    expired = expired and expired > 0 and expired or nil,
    wait = M.Stats_summary(M.Stats_key('wait', day, queue)),
    run = M.Stats_summary(M.Stats_key('run', day, queue)),
  })
end
            elseif name == 'Api_retry' then
--@ lua/api.lua:13-13
M['Api_retry'] = M.Job_retry
            elseif name == 'Api_track' then
--@ lua/api.lua:17-17
M['Api_track'] = M.Track_track
            elseif name == 'Api_stats' then
--@ lua/api.lua:19-19
M['Api_stats'] = M.Stats_get
            elseif name == 'Api_pause' then
--@ lua/api.lua:24-24
M['Api_pause'] = M.Queue_pause
            elseif name == 'Api_recur' then
--@ lua/api.lua:31-31
M['Api_recur'] = M.Recur_recur
            end
          end
        else
          if name_len == 10 then
            if name == 'Check_call' then
--@ lua/check.lua:73-76
function M.Check_call(cx, ...)
  cx.n = cx.n + 1
  return rcall(...)
end
            elseif name == 'Check_tags' then
--@ lua/check.lua:134-144
-- A job's `tags` field as a table tag -> true, decoded once a step for each text (most
-- jobs carry one of a few).
function M.Check_tags(cx, text)
  local tags = cx.t[text]
  if tags == nil then
    tags = {}
    for _, t in ipairs(M.Job_tag_list(text)) do tags[t] = true end
    cx.t[text] = tags
  end
  return tags
end
            elseif name == 'Check_ends' then
--@ lua/check.lua:377-383
-- Whether `s` ends with `suffix`, and `s` without it.
function M.Check_ends(s, suffix)
  if #s > #suffix and s:find(suffix, #s - #suffix + 1, true) then
    return s:sub(1, -#suffix - 1)
  end
  return nil
end
            elseif name == 'Check_head' then
--@ lua/check.lua:439-463
-- The invariants of key `k` as a whole (`d` its classification).
function M.Check_head(now, k, d, kind, cx)
  if d.what == 'unknown' or (d.want and d.want ~= kind) then
    M.Check_found(cx, 'unknown-key', k, '', 'no invariant explains a ' .. kind .. ' named ' .. k,
      '')
  elseif d.what == 'job' then
    M.Check_job(now, k, d.jid, cx)
  elseif d.what == 'history' then
    -- (Check.settle asks whether the job exists, for all the step's histories at once.)
    local n = #cx.h + 1
    cx.h[n], cx.hk[n] = P .. 'j:' .. d.jid, k
  elseif d.what == 'dependencies' then
    if M.Check_call(cx, 'EXISTS', P .. 'j:' .. d.jid) == 0 then
      M.Check_found(cx, 'dependencies-orphan', k, '', 'the dependencies of a job that is gone',
        'remove it from their dependents and delete it')
    end
  elseif d.what == 'group' then
    if M.Check_call(cx, 'SISMEMBER', P .. 'failures', d.group) == 0 then
      M.Check_found(cx, 'failure-group-unlisted', k, d.group, 'failure group ' .. d.group ..
        ' is not in ' .. P .. 'failures', 'add it to ' .. P .. 'failures')
    end
  elseif d.what == 'recur' then
    M.Check_recur(k, d.jid, cx)
  end
end
            elseif name == 'Check_walk' then
--@ lua/check.lua:609-663
-- Walk the members of `item` ({ key, cursor, members left over }) until the step has made
-- `budget` calls (one member at least). A scan may answer more members than asked for
-- (Valkey's hashtable answers whole buckets): those left over wait in the item. Returns
-- whether the walk is done.
function M.Check_walk(now, item, budget, cx)
  local k = item[1]
  local kind = M.Check_call(cx, 'TYPE', k).ok
  local d = M.Check_classify(k, kind)
  if kind ~= d.want then return true end
  local members, first, stride = item[3], nil, 1
  local carried = members and #members > 0
  if not carried then
    -- a member takes a call at least (a failure group's two): no more than the budget left,
    -- nor than BUDGET (the members left over travel in the token)
    local count = math.max(1, math.min(40, budget - cx.n - 1))
    if d.walk == 'l' then
      count = math.max(1, floor(count / 2))
      first = tonumber(item[2]) or 0
      members = M.Check_call(cx, 'LRANGE', k, first, first + count - 1)
      item[2] = #members == count and tostring(first + count) or '0'
    elseif d.walk == 's' then
      local r = M.Check_call(cx, 'SSCAN', k, item[2], 'COUNT', count)
      item[2], members = r[1], r[2]
    else
      -- Without the scores where the server can (Valkey 8 on): a score is a number the
      -- server formats and the script only throws away.
      local r = cx.z and M.Check_zscan_noscores(cx, k, item[2], count)
      if not r then
        r = M.Check_call(cx, 'ZSCAN', k, item[2], 'COUNT', count)
        stride = 2 -- member, score, member, score...
      end
      item[2], members = r[1], r[2]
    end
  end
  -- A list's members never wait for a later step (LRANGE answers no more than asked, and
  -- all are looked at), so their indexes are known.
  -- Members carried over from an earlier step may have left the key since: those are
  -- looked at only if still there.
  local i, n = 1, #members
  repeat
    if i > n then break end
    local m = members[i]
    if not carried or M.Check_still_member(cx, k, d, m) then
      M.Check_member(now, k, d, m, cx, first and first + i - 1)
    end
    i = i + stride
  until not first and M.Check_spent(cx, budget)
  local rest = nil
  if i <= n then
    rest = {}
    for j = i, n, stride do rest[#rest + 1] = members[j] end
  end
  item[3] = rest
  return rest == nil and item[2] == '0'
end
            elseif name == 'Check_step' then
--@ lua/check.lua:693-753
-- qlpy.check <now> <token> [budget]
-- One bounded step of a check of the whole database: walks on from `token` ('0' starts a
-- check) until it has made about `budget` server calls (default 40, 25 where the server
-- lends scripts no clock: a job's hash costs about four, most other keys one, a member of
-- a set one or two) or, where it lends one, run for STEP_S, and replies {"token":
-- <token of the next step, or "0" when the check is done>, "findings": [[invariant, key,
-- member, detail, repair]...], "keys": <keys seen so far>, "counts": {<invariant>: n, ...}
-- (findings so far)}. The last step writes the summary hash ql:check (started, finished,
-- keys, findings as JSON). Reads nothing else: a step writes only that summary.
-- Errors: qlpy.check(): Arg "token" missing / qlpy.check(): Arg "token" not a check token:
-- <x> / qlpy.check(): Arg "budget" not a whole number above 0: <x>
function M.Check_step(now)
  local token, budget_s = A[3], A[4]
  if token == nil then error('qlpy.check(): Arg "token" missing') end
  local lib = rawget(_G, 'os')  -- nil on Redis 6.2 and 7
  local clock = lib and lib.clock
  local budget = clock and 40 or 25
  if budget_s ~= nil then
    budget = tonumber(budget_s)
    -- (b - b is nan for nan and for +-inf)
    if budget == nil or budget - budget ~= 0 or budget < 1 or budget ~= floor(budget) then
      error('qlpy.check(): Arg "budget" not a whole number above 0: ' .. budget_s)
    end
  end
  local st = M.Check_state(token, now)
  local cx = M.Check_context()
  cx.z = st.z ~= false
  if clock then cx.clock, cx.t0 = clock, clock() end
  -- A SCAN may answer more keys than asked for (Valkey's hashtable answers whole buckets):
  -- the keys found wait in `p`, so that a step looks at no more than its budget.
  while not M.Check_spent(cx, budget) do
    local pk = st.p[#st.p]
    if pk then
      st.p[#st.p] = nil
      M.Check_key(now, pk, cx, st.q)
    elseif st.q[1] then
      if M.Check_walk(now, st.q[1], budget, cx) then table.remove(st.q, 1) end
    elseif st.s then
      -- a key costs about four calls; no more than SCAN_MAX keys a SCAN, whatever the
      -- budget (the keys found and not looked at travel in the token)
      local r = M.Check_call(cx, 'SCAN', st.s, 'MATCH', P .. '*', 'COUNT',
        math.max(1, math.min(10, floor((budget - cx.n) / 4))))
      st.s = r[1] ~= '0' and r[1]
      st.k = st.k + #r[2]
      st.p = r[2]
    else
      break
    end
  end
  M.Check_settle(cx)
  if not cx.z then st.z = false end
  local out = cx.out
  for _, f in ipairs(out) do st.n[f[1]] = (st.n[f[1]] or 0) + 1 end
  local finished = not st.s and not st.q[1] and not st.p[1]
  if finished then
    rcall('HSET', P .. 'check', 'started', st.t, 'finished', now, 'keys', st.k,
      'findings', encode(st.n))
  end
  return encode({ token = finished and '0' or encode(st), findings = out, keys = st.k,
    counts = st.n })
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
    v = rcall('HGET', P .. 'config', name)
    cfg[name] = v
  end
  return v
end
            elseif name == 'Config_get' then
--@ lua/config.lua:53-67
-- config.get <now> [key]
-- Reply: the stored value (bulk), the built-in default (integer for numbers, bulk for
-- `application`) or nil; without a key, a JSON object of defaults overlaid with ql:config.
function M.Config_get(now)
  local name = A[3]
  if name ~= nil then
    local v = rcall('HGET', P .. 'config', name)
    if v then return v end
    return M.Config_defaults()[name]
  end
  local out = M.Config_defaults()
  local stored = rcall('HGETALL', P .. 'config')
  for i = 1, #stored, 2 do out[stored[i]] = stored[i + 1] end
  return encode(out)
end
            elseif name == 'Config_set' then
--@ lua/config.lua:69-79
-- config.set <now> <key> <value>
-- Publishes {"event":"config_set","option","value"} on ql:log, then stores. Reply nil.
-- Errors: config.set(): Arg "option" missing / config.set(): Arg "value" missing
function M.Config_set(now)
  local name, value = A[3], A[4]
  if name == nil then error('config.set(): Arg "option" missing') end
  if value == nil then error('config.set(): Arg "value" missing') end
  rcall(PUB, P .. 'log', encode({ event = 'config_set', option = name, value = value }))
  rcall('HSET', P .. 'config', name, value)
  return nil
end
            elseif name == 'Expire_arm' then
--@ lua/expiry.lua:11-14
-- Job `jid` of `queue` must start by `deadline`.
function M.Expire_arm(queue, jid, deadline)
  rcall('ZADD', P .. 'q:' .. queue .. '-expiring', deadline, jid)
end
            elseif name == 'Expire_due' then
--@ lua/expiry.lua:28-36
-- Expire `jid` of `queue` when its deadline has passed: true then.
function M.Expire_due(now, queue, jid)
  local deadline = tonumber(rcall('ZSCORE', P .. 'q:' .. queue .. '-expiring', jid))
  if deadline and deadline <= now then
    M.Job_expire(now, jid, queue)
    return true
  end
  return false
end
            elseif name == 'Job_expire' then
--@ lua/expiry.lua:38-55
-- Expire job `jid`, due in `queue`: removed as cancel removes a job (its dependents keep
-- waiting for it), counted in the queue's daily `expired` statistic. Events: ql:log
-- {"jid","event":"expired","queue"}, then ql:expired (the bare jid) for a tracked job. An
-- entry whose job is gone, started or moved is only dropped.
function M.Job_expire(now, jid, queue)
  rcall('ZREM', P .. 'q:' .. queue .. '-expiring', jid)
  local f = rcall('HMGET', P .. 'j:' .. jid, 'state', 'queue', 'failure', 'worker', 'tags',
    'throttles', 'key', 'ttl')
  local state = f[1]
  if f[2] ~= queue or (state ~= 'waiting' and state ~= 'throttled' and state ~= 'stalled') then
    return
  end
  rcall(PUB, P .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"expired","queue":' .. encode(queue) .. '}')
  M.Job_erase(now, jid, f)
  M.Stats_count(now, now, queue, 'expired', 1)
  M.Job_notify(jid, 'expired')
end
            elseif name == 'Job_cancel' then
--@ lua/job/cancel.lua:50-79
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
    for _, d in ipairs(rcall('SMEMBERS', P .. 'j:' .. jid .. '-dependents')) do
      if M.Remote_is(d) then
        local p, dependent = M.Remote_parse(d)
        error('Cancel(): ' .. jid .. ' is a dependency of ' .. tostring(dependent) ..
          ' in namespace ' .. tostring(p) .. ', which must be canceled first')
      elseif not listed[d] then
        error('Cancel(): ' .. jid .. ' is a dependency of ' .. d ..
          ' but is not mentioned to be canceled')
      end
    end
  end
  for i = 3, n do
    local jid = A[i]
    out[#out + 1] = jid
    local f = rcall('HMGET', P .. 'j:' .. jid, 'state', 'queue', 'failure', 'worker', 'tags',
      'throttles', 'key', 'ttl')
    if f[1] ~= 'complete' then M.Job_cancel_one(now, jid, f) end
  end
  return out
end
            elseif name == 'Job_delete' then
--@ lua/job/complete.lua:194-202
-- Delete a job entirely (completed-job expiry): its tags, hash and history.
function M.Job_delete(jid)
  local tags = M.Job_tag_list(rcall('HGET', P .. 'j:' .. jid, 'tags'))
  for _, t in ipairs(tags) do
    rcall('ZREM', P .. 't:' .. t, jid)
    rcall('ZINCRBY', P .. 'tags', -1, t)
  end
  rcall('DEL', P .. 'j:' .. jid, P .. 'j:' .. jid .. '-history')
end
            elseif name == 'Job_unlink' then
--@ lua/job/depends.lua:21-29
-- Job `jid` no longer waits for `dep`: `dep` forgets it (through the outbox when `dep` is
-- of another namespace).
function M.Job_unlink(jid, dep)
  if M.Remote_is(dep) then
    M.Remote_forget(jid, dep)
  else
    rcall('SREM', P .. 'j:' .. dep .. '-dependents', jid)
  end
end
            elseif name == 'Job_notify' then
--@ lua/job/fields.lua:29-36
-- Publish `payload` on ql:<channel> when the job is tracked.
--@inline
function M.Job_notify(jid, channel, tracked)
  if tracked == nil then
    tracked = M.Job_is_tracked(jid)
  end
  if tracked then rcall(PUB, P .. channel, jid) end
end
            elseif name == 'Job_unpend' then
--@ lua/job/gate.lua:68-74
-- Remove `jid` from the pending sets of the throttles in `all` but `keep`.
function M.Job_unpend(jid, all, keep)
  if not all then return end
  for _, tid in ipairs(all) do
    if tid ~= keep then rcall('ZREM', P .. 'th:' .. tid .. '-pending', jid) end
  end
end
            elseif name == 'Job_render' then
--@ lua/job/render.lua:48-145
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
  if tracked == nil then tracked = rcall('ZSCORE', P .. 'tracked', jid) ~= false end
  local hist = rcall('LRANGE', P .. 'j:' .. jid .. '-history', '0', last and '-2' or '-1')
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
  local jk = P .. 'j:' .. jid
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
  -- The extensions' fields, only on jobs that use them (docs/compatibility.md).
  local flow = ''
  if f[16] or f[17] or f[18] then
    flow = M.Job_flow_fields(f)
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
    (remaining and ',"remaining":' or '') .. (remaining or '') .. flow ..
    (wrap and '}]' or '}')
end
            elseif name == 'Order_join' then
--@ lua/ordering.lua:16-23
-- Append `jid` to key `name` of `queue` (after the last job; the first has score 1).
function M.Order_join(queue, name, jid)
  local ok = M.Order_set(queue, name)
  local last = rcall('ZREVRANGE', ok, 0, 0, 'WITHSCORES')
  local seq = 1
  if last[2] then seq = tonumber(last[2]) + 1 end
  rcall('ZADD', ok, seq, jid)
end
            elseif name == 'Order_head' then
--@ lua/ordering.lua:25-40
-- The head of key `name` of `queue`: its first job that still belongs there (a job that is
-- gone, complete, failed, or now in another queue or key is dropped, at most STALE per
-- call; false when more were stale). nil when the key has no job.
function M.Order_head(queue, name)
  local ok = M.Order_set(queue, name)
  for _ = 1, 5 do
    local head = rcall('ZRANGE', ok, 0, 0)[1]
    if not head then return nil end
    local f = rcall('HMGET', P .. 'j:' .. head, 'queue', 'key', 'state')
    if f[1] == queue and f[2] == name and f[3] ~= 'complete' and f[3] ~= 'failed' then
      return head
    end
    rcall('ZREM', ok, head)
  end
  return false
end
            elseif name == 'Order_next' then
--@ lua/ordering.lua:59-66
-- The key's new head, when it is waiting for its turn (throttled), goes through the gate.
-- A new head that is scheduled or depends on other jobs goes through it when it is ready.
function M.Order_next(now, queue, name)
  local head = M.Order_head(queue, name)
  if head and rcall('HGET', P .. 'j:' .. head, 'state') == 'throttled' then
    M.Job_unthrottle(now, head)
  end
end
            elseif name == 'Queue_take' then
--@ lua/pop.lua:7-15
-- Append up to `want` jids from the work set (highest score first) to `jids`. A want of
-- 1 (the common pop) goes as text: Redis would format the number first.
--@inline
function M.Queue_take(queue, jids, want)
  if want <= 0 then return end
  local top = rcall('ZREVRANGE', P .. 'q:' .. queue .. '-work', '0',
    want == 1 and '0' or want - 1)
  for i = 1, #top do jids[#jids + 1] = top[i] end
end
            elseif name == 'Queue_peek' then
--@ lua/queue.lua:150-174
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
  M.Expire_check(now, queue)
  local jids = {}
  if count > 0 then
    jids = rcall('ZRANGEBYSCORE', P .. 'q:' .. queue .. '-locks', '-inf', now, 'LIMIT', 0, count)
  end
  local want = count - #jids
  if want > 0 then
    M.Recur_spawn(now, queue, want)
    M.Queue_promote(now, queue, want)
    M.Queue_take(queue, jids, want)
  end
  return M.Queue_render(jids)
end
            elseif name == 'Queue_jobs' then
--@ lua/queue.lua:226-264
-- jobs <now> complete [offset] [count] | jobs <now> <state> <queue> [offset] [count]
-- States: running, stalled, scheduled, depends, recurring, throttled (the dialect's, oldest
-- first). Reply: array of jids. Errors: Jobs(): Arg "state" missing / Jobs(): Arg "queue" missing /
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
  if state == 'complete' then return rcall('ZREVRANGE', P .. 'completed', offset, last) end
  if state ~= 'running' and state ~= 'stalled' and state ~= 'scheduled' and state ~= 'depends'
      and state ~= 'recurring' and state ~= 'throttled' then
    error('Jobs(): Unknown type "' .. state .. '"')
  end
  M.Expire_check(now, queue)
  if state == 'running' then
    return rcall('ZRANGEBYSCORE', P .. 'q:' .. queue .. '-locks', now, '+inf', 'LIMIT', offset, count)
  elseif state == 'stalled' then
    return rcall('ZRANGEBYSCORE', P .. 'q:' .. queue .. '-locks', '-inf', now, 'LIMIT', offset, count)
  elseif state == 'scheduled' then
    local sk = P .. 'q:' .. queue .. '-scheduled'
    M.Queue_promote(now, queue, rcall('ZCARD', sk))
    return rcall('ZRANGE', sk, offset, last)
  elseif state == 'depends' then
    return rcall('ZRANGE', P .. 'q:' .. queue .. '-depends', offset, last)
  elseif state == 'recurring' then
    return rcall('ZRANGEBYSCORE', P .. 'q:' .. queue .. '-recur', 0, '+inf', 'LIMIT', offset, count)
  end
  return rcall('ZRANGE', P .. 'q:' .. queue .. '-throttled', offset, last)
end
            elseif name == 'Remote_put' then
--@ lua/remote.lua:141-155
function M.Remote_put(now)
  local id = A[4]
  if id == nil then error('Remote(): Arg "id" missing') end
  -- Messages applied in the last week are remembered; older ones are forgotten.
  -- put's arguments, two places further on (Job.put reads them from 3 on).
  local worker, queue, jid, klass, data, delay_s = A[5], A[6], A[7], A[8], A[9], A[10]
  local delay, retries, tags, priority, depends, throttles, okey, ttl, unique =
    M.Job_put_args(queue, jid, klass, data, delay_s, 11, #A)
  if rcall('ZSCORE', P .. 'applied', id) then return 'already' end
  jid = M.Job_put_write(now, worker or '', queue, jid, klass, data, delay, retries, tags,
    priority, depends, throttles, okey, ttl, unique, nil, nil)
  rcall('ZADD', P .. 'applied', now, id)
  rcall('ZREMRANGEBYSCORE', P .. 'applied', '-inf', now - 604800)
  return jid
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
            elseif name == 'Stats_fine' then
--@ lua/stats.lua:248-276
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
    local raw = rcall('HGETALL', P .. 'fine:' .. k)
    local fine = {}
    for i = 1, #raw, 2 do fine[raw[i]] = tonumber(raw[i + 1]) end
    reply[kind] = { count = count, mean = mean, std = std, fine = fine }
  end
  return encode(reply)
end
            elseif name == 'Api_queues' then
--@ lua/api.lua:8-8
M['Api_queues'] = M.Queue_queues
            elseif name == 'Api_failed' then
--@ lua/api.lua:10-10
M['Api_failed'] = M.Queue_failed
            elseif name == 'Api_cancel' then
--@ lua/api.lua:26-26
M['Api_cancel'] = M.Job_cancel
            elseif name == 'Api_unfail' then
--@ lua/api.lua:30-30
M['Api_unfail'] = M.Queue_unfail
            elseif name == 'Api_length' then
--@ lua/api.lua:37-37
M['Api_length'] = M.Queue_length
            end
          end
        end
      end
    else
      if name_len < 13 then
        if name_len < 12 then
          if name_len == 11 then
            if name == 'Check_spent' then
--@ lua/check.lua:39-47
-- Whether the step has made `budget` calls or, where there is a clock (`cx.clock`), run
-- for STEP_S (the clock is read every TIME_EVERY calls). TIME cannot serve: a script sees
-- the time its call began.
function M.Check_spent(cx, budget)
  if cx.n >= budget then return true end
  if not cx.clock or cx.n < cx.tn then return false end
  cx.tn = cx.n + 4
  return cx.clock() - cx.t0 >= 0.0003
end
            elseif name == 'Check_found' then
--@ lua/check.lua:90-94
-- Record a finding.
function M.Check_found(cx, inv, k, member, detail, fix)
  local out = cx.out
  out[#out + 1] = { inv, k, member or '', detail, fix or '' }
end
            elseif name == 'Check_group' then
--@ lua/check.lua:146-151
-- The failure group named by a job's `failure` field, or nil.
function M.Check_group(text)
  local ok, v = pcall(decode, text or '')
  if ok and type(v) == 'table' and type(v.group) == 'string' then return v.group end
  return nil
end
            elseif name == 'Check_under' then
--@ lua/check.lua:371-375
-- Check.classify_in for key `k` when it starts with prefix `p`, else nil.
function M.Check_under(k, p, kind)
  if k:find(p, 1, true) ~= 1 then return nil end
  return M.Check_classify_in(p, k:sub(#p + 1), kind)
end
            elseif name == 'Check_recur' then
--@ lua/check.lua:465-481
-- A recurring template: well formed, and in its queue's recur set.
function M.Check_recur(k, jid, cx)
  local r = M.Check_call(cx, 'HMGET', k, 'jid', 'klass', 'queue', 'interval', 'data', 'state')
  local ok = pcall(decode, r[5] or '')
  local interval = M.Num_parse(r[4])
  if r[1] ~= jid or not r[2] or not r[3] or r[6] ~= 'recur' or not interval or interval <= 0
      or not ok then
    M.Check_found(cx, 'recur-malformed', k, '', 'the template lacks jid, klass, queue, a ' ..
      'positive interval or JSON data', '')
    return
  end
  local rk = P .. 'q:' .. r[3] .. '-recur'
  if not M.Check_call(cx, 'ZSCORE', rk, jid) then
    M.Check_found(cx, 'recur-unlisted', k, rk, 'a template of ' .. r[3] .. ' not in ' .. rk,
      'add it to ' .. rk .. ', due now')
  end
end
            elseif name == 'Check_state' then
--@ lua/check.lua:671-691
-- The state of a check: the SCAN cursor `s` (false once the scan is done), keys found and
-- not looked at yet `p`, the walks still to make `q`, the findings so far by invariant
-- `n`, keys seen `k`, its start `t`, and `z` false once the server has refused ZSCAN's
-- NOSCORES.
function M.Check_state(token, now)
  if token == '0' then return { s = '0', p = {}, q = {}, n = {}, k = 0, t = now } end
  local ok, st = pcall(decode, token)
  if not ok or type(st) ~= 'table' or type(st.q) ~= 'table' or type(st.n) ~= 'table' or
      type(st.p) ~= 'table' or (st.s ~= false and type(st.s) ~= 'string') or
      type(st.k) ~= 'number' or type(st.t) ~= 'number' or (st.z ~= nil and st.z ~= false)
  then
    error('qlpy.check(): Arg "token" not a check token: ' .. token)
  end
  for _, item in ipairs(st.q) do
    if type(item) ~= 'table' or type(item[1]) ~= 'string' or type(item[2]) ~= 'string' or
        (item[3] ~= nil and type(item[3]) ~= 'table') then
      error('qlpy.check(): Arg "token" not a check token: ' .. token)
    end
  end
  return st
end
            elseif name == 'Expire_reap' then
--@ lua/expiry.lua:16-21
-- Remove up to REAP jobs of `queue` whose deadline has passed.
function M.Expire_reap(now, queue)
  local due = rcall('ZRANGEBYSCORE', P .. 'q:' .. queue .. '-expiring', '-inf', now, 'LIMIT',
    0, 25)
  for _, jid in ipairs(due) do M.Job_expire(now, jid, queue) end
end
            elseif name == 'Job_unblock' then
--@ lua/job/depends.lua:47-62
-- Job `d`, whose last dependency is gone, leaves its queue's depends set: scheduled when a
-- delay is still to run (its `scheduled` field), else ready to run.
function M.Job_unblock(now, d)
  local f = rcall('HMGET', P .. 'j:' .. d, 'queue', 'scheduled', 'priority', 'throttles', 'key',
    'ttl')
  local q = f[1]
  if not q then return end
  rcall('ZREM', P .. 'q:' .. q .. '-depends', d)
  if f[2] then
    rcall('ZADD', P .. 'q:' .. q .. '-scheduled', f[2], d)
    rcall('HSET', P .. 'j:' .. d, 'state', 'scheduled')
    rcall('HDEL', P .. 'j:' .. d, 'scheduled')
  else
    M.Job_ready_or_enqueue(now, q, d, tonumber(f[3]) or 0, f[4], f[5], f[6], 'depends')
  end
end
            elseif name == 'Job_depends' then
--@ lua/job/depends.lua:74-103
-- depends <now> <jid> on <jid>... | off <jid>... | off all
-- Reply: 1. Errors: Job(): no jid provided / Depends(): Arg "command" missing / Depends(): Job
-- <jid> not in the depends state: <state> / Depends(): Argument "command" must be "on" or "off"
function M.Job_depends(now)
  local jid, command = A[3], A[4]
  if jid == nil then error('Job(): no jid provided') end
  if command == nil then error('Depends(): Arg "command" missing') end
  local f = rcall('HMGET', P .. 'j:' .. jid, 'state', 'queue', 'priority', 'throttles', 'key', 'ttl')
  if f[1] ~= 'depends' then
    error('Depends(): Job ' .. jid .. ' not in the depends state: ' .. tostring(f[1]))
  end
  local depk = P .. 'j:' .. jid .. '-dependencies'
  if command == 'on' then
    for i = 5, #A do M.Job_link(jid, A[i]) end
  elseif command == 'off' then
    if A[5] == 'all' then
      for _, b in ipairs(rcall('SMEMBERS', depk)) do M.Job_unlink(jid, b) end
      rcall('DEL', depk)
      M.Job_undepend(now, jid, f)
    elseif #A >= 5 then
      for i = 5, #A do
        if rcall('SREM', depk, A[i]) == 1 or not M.Remote_is(A[i]) then M.Job_unlink(jid, A[i]) end
      end
      if rcall('SCARD', depk) == 0 then M.Job_undepend(now, jid, f) end
    end
  else
    error('Depends(): Argument "command" must be "on" or "off"')
  end
  return 1
end
            elseif name == 'Job_migrate' then
--@ lua/job/history.lua:3-26
-- Legacy history (a JSON field of jobs written by very old versions) becomes list entries,
-- appended after the existing ones; the field is then deleted (protocol 2.4).
function M.Job_migrate(jid, legacy)
  local hk = P .. 'j:' .. jid .. '-history'
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
  rcall('HDEL', P .. 'j:' .. jid, 'history')
end
            elseif name == 'Job_timeout' then
--@ lua/job/lease.lua:38-80
-- timeout <now> <jid>...
-- Every jid is checked before any is timed out. Reply nil. Events per job:
-- ql:w:<worker> lock_lost, then ql:log lock_lost. A job gives back its throttles and keeps
-- its ordering key's turn.
-- Errors: Timeout(): Job <jid> does not exist / Timeout(): Job <jid> not running
function M.Job_timeout(now)
  local n = #A
  local rows, seen = {}, {}
  for i = 3, n do
    local jid = A[i]
    local f = rcall('HMGET', P .. 'j:' .. jid, 'queue', 'state', 'worker', 'history', 'priority',
      'throttles', 'key', 'ttl')
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
    rcall('ZREM', P .. 'q:' .. queue .. '-locks', jid)
    if f[6] or f[7] or f[8] then
      -- It gives back its throttles and keeps its ordering key's turn; ahead of every job
      -- when the gate lets it into the work set.
      if f[6] then M.Job_leave(now, jid, queue, f[6], nil) end
      if M.Job_ready(now, queue, jid, math.huge, f[6], f[7] or nil, tonumber(f[8]), now,
          'running') then
        rcall('HSET', P .. 'j:' .. jid, 'expires', 0)
      else
        rcall('HSET', P .. 'j:' .. jid, 'state', 'stalled', 'expires', 0)
      end
    else
      rcall('ZADD', P .. 'q:' .. queue .. '-work', '+inf', jid)
      rcall('HSET', P .. 'j:' .. jid, 'state', 'stalled', 'expires', 0)
    end
    local msg = encode({ jid = jid, event = 'lock_lost', worker = f[3] })
    rcall(PUB, P .. 'w:' .. (f[3] or ''), msg)
    rcall(PUB, P .. 'log', msg)
  end
  return nil
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
            elseif name == 'Job_requeue' then
--@ lua/job/put.lua:324-325
-- requeue: exactly put, for a job that must already exist.
function M.Job_requeue(now) return M.Job_put(now, true) end
            elseif name == 'Job_enqueue' then
--@ lua/job/state.lua:4-9
-- P-WORK: make `jid` waiting in `queue` as of time `t`.
--@inline
function M.Job_enqueue(queue, jid, priority, t)
  local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
  rcall('ZADD', P .. 'q:' .. queue .. '-work', score, jid)
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
            elseif name == 'Order_leave' then
--@ lua/ordering.lua:51-57
-- `jid` leaves key `name` of `queue`; when it was the head, the next job may start.
function M.Order_leave(now, queue, name, jid)
  local ok = M.Order_set(queue, name)
  local head = rcall('ZRANGE', ok, 0, 0)[1]
  rcall('ZREM', ok, jid)
  if head == jid then M.Order_next(now, queue, name) end
end
            elseif name == 'Queue_whole' then
--@ lua/queue.lua:23-28
-- A non-negative whole count from a validated number.
function M.Queue_whole(n)
  n = floor(n)
  if n < 0 then return 0 end
  return n
end
            elseif name == 'Queue_pause' then
--@ lua/queue.lua:266-270
-- pause <now> <queue>...: reply nil.
function M.Queue_pause(now)
  M.Queue_with_names('SADD', P .. 'paused_queues', 3)
  return nil
end
            elseif name == 'Recur_spawn' then
--@ lua/recurring.lua:3-56
-- P-SPAWN: create the jobs of due templates of `queue`, at most `limit` in this call.
-- Each child is stamped with its slot time and enters the work set scored by it. `due` is
-- the caller's ZRANGEBYSCORE ... WITHSCORES result when it already has one.
function M.Recur_spawn(now, queue, limit, due)
  if limit <= 0 then return end
  local rk = P .. 'q:' .. queue .. '-recur'
  due = due or rcall('ZRANGEBYSCORE', rk, 0, now, 'WITHSCORES', 'LIMIT', 0, limit)
  local moved = 0
  for i = 1, #due, 2 do
    if moved >= limit then break end
    local rjid = due[i]
    local tk = P .. 'r:' .. rjid
    local r = rcall('HMGET', tk, 'klass', 'data', 'priority', 'tags', 'retries', 'interval',
      'backlog', 'throttles', 'key', 'ttl')
    local flow = r[8] or r[9] or r[10]
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
        rcall('ZADD', P .. 't:' .. t, now, child)
        rcall('ZINCRBY', P .. 'tags', 1, t)
      end
      rcall('HSET', P .. 'j:' .. child, 'jid', child, 'klass', r[1] or '', 'data', r[2] or '{}',
        'priority', r[3] or 0, 'tags', r[4] or '{}', 'state', 'waiting', 'worker', '',
        'expires', 0, 'queue', queue, 'retries', retries, 'remaining', retries,
        'time', M.Num_time_text(s), 'spawned_from_jid', rjid)
      M.Job_hist(child, s, '"put"', { q = queue })
      if flow then
        -- The template's throttles, key and ttl go to each child, which joins the key and
        -- passes the gate as put at its slot time.
        local text = M.Job_store_flow(child, queue, r[8] or nil, r[9] or nil, r[10] or nil)
        if r[9] then M.Order_join(queue, r[9], child) end
        M.Job_ready(s, queue, child, priority, text, r[9] or nil, tonumber(r[10]), s, 'waiting')
      else
        M.Job_enqueue(queue, child, priority, s)
      end
      s = s + interval
      rcall('ZADD', rk, s, rjid)
    end
  end
end
            elseif name == 'Recur_recur' then
--@ lua/recurring.lua:67-120
-- recur <now> <queue> <jid> <klass> <data> interval <seconds> <offset> [priority p]
--       [tags t] [retries r] [backlog b] [throttles t] [key k] [ttl s]
-- Reply: the template jid. Re-issuing replaces every attribute but keeps `count`. Spawned
-- jobs get the template's throttles (the dialect's), ordering key and ttl (extensions).
-- Errors: Queue(): no queue name provided / RecurringJob On(): Arg "jid" missing /
-- RecurringJob On(): Arg "klass" missing / RecurringJob On(): Arg "spec" missing /
-- RecurringJob On(): Arg "data" not JSON: <x> / Recur(): schedule type "<x>" unknown /
-- Recur(): Arg "interval" not a number: <x> / Recur(): Arg "offset" not a number: <x> /
-- Recur(): Arg "interval" must be greater than 0 / Odd number of additional args / Recur():
-- Arg "tags" must be JSON string array: <x> / Recur(): Arg "<name>" not a number: <x> /
-- Recur(): Arg "throttles" not JSON array: <x> / Recur(): Arg "key" is empty / Recur(): Arg
-- "ttl" not a number: <x> / Recur(): Arg "ttl" must be greater than 0: <x>
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
  local throttles, okey, ttl = M.Job_flow_options(opts, 'Recur()')
  local stored = throttles and M.Throttle_stored(throttles, queue)

  local tk = P .. 'r:' .. jid
  local old = rcall('HMGET', tk, 'count', 'queue')
  if old[2] then rcall('ZREM', P .. 'q:' .. old[2] .. '-recur', jid) end
  rcall('HSET', tk, 'jid', jid, 'klass', klass, 'data', data, 'priority', priority,
    'tags', encode(tags), 'state', 'recur', 'queue', queue, 'type', 'interval',
    'count', old[1] or 0, 'interval', interval, 'retries', retries, 'backlog', backlog)
  rcall('HDEL', tk, 'throttles', 'key', 'ttl')
  if stored or okey or ttl then
    M.Recur_store_flow(tk, stored and encode(stored), okey, ttl)
  end
  rcall('ZADD', P .. 'q:' .. queue .. '-recur', now + offset, jid)
  rcall('ZADD', P .. 'queues', 'NX', now, queue)
  return jid
end
            elseif name == 'Recur_untag' then
--@ lua/recurring.lua:267-284
-- recur.untag <now> <jid> <tag>...: remove the listed tags. Reply: the tag list JSON.
-- Errors: Recurring(): no jid provided / Untag(): Job <jid> does not exist
function M.Recur_untag(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = P .. 'r:' .. jid
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
            elseif name == 'Remote_send' then
--@ lua/remote.lua:29-34
-- Queue a message for another namespace (its fields `m`, to which an id is added).
function M.Remote_send(m)
  m.id = P .. rcall('INCR', P .. 'outbox-seq')
  m.from = P
  rcall('RPUSH', P .. 'outbox', encode(m))
end
            elseif name == 'Remote_find' then
--@ lua/remote.lua:50-59
-- The remote member of `dependencies` that names job `dep` of the namespace `p`, if any.
function M.Remote_find(set, p, dep)
  for _, member in ipairs(rcall('SMEMBERS', set)) do
    if M.Remote_is(member) then
      local mp, mj = M.Remote_parse(member)
      if mp == p and mj == dep then return member end
    end
  end
  return nil
end
            elseif name == 'Remote_call' then
--@ lua/remote.lua:61-116
-- qlpy.remote <now> depend <jid> <member>: job <jid> (here) gets a dependent of another
-- namespace, `member` (remote form). Reply: "pending" (recorded: <jid> tells it when it
-- completes), "complete" (nothing to wait for) or "missing" (no such job: as within a
-- namespace, a dependency that does not exist is not waited for).
-- qlpy.remote <now> release <jid> <prefix> <dep>: job <dep> of namespace <prefix>, which
-- job <jid> (here) waited for, completed. Reply: "released" (it was the last: the job
-- waits, or is scheduled), "waiting" (other dependencies remain), "already" (done before)
-- or "early" (no such job yet: kept for a day, and a put that names the dependency
-- skips it).
-- qlpy.remote <now> releases <jid> <prefix> <dep> [<jid> <prefix> <dep>...]: several
-- releases in one call (a relay's batch). Reply: each one's reply, in order.
-- qlpy.remote <now> forget <jid> <prefix> <dependent>: job <dependent> of namespace
-- <prefix> no longer waits for <jid>. Reply: 1 if it was recorded, else 0.
-- qlpy.remote <now> put <id> <worker> <queue> <jid> <klass> <data> <delay> [options...]:
-- a hand-off from another namespace, message <id>: put's arguments. Reply: the jid, or
-- "already" when message <id> was applied (within the last week).
-- Errors: Remote(): Arg "<name>" missing / Remote(): unknown action "<x>" / Remote(): Arg
-- "member" is not a remote member / put's own.
function M.Remote_call(now)
  local action = A[3]
  if action == 'put' then return M.Remote_put(now) end
  if action == 'releases' then
    local n = #A - 3
    if n < 3 or n % 3 ~= 0 then
      error('Remote(): "releases" takes <jid> <prefix> <dep> triplets')
    end
    local out = {}
    for i = 4, #A, 3 do out[#out + 1] = M.Remote_release(now, A[i], A[i + 1], A[i + 2]) end
    return out
  end
  local jid, a, b = A[4], A[5], A[6]
  if action == nil then error('Remote(): Arg "action" missing') end
  if jid == nil then error('Remote(): Arg "jid" missing') end
  if action == 'depend' then
    if a == nil then error('Remote(): Arg "member" missing') end
    if not M.Remote_is(a) or not M.Remote_parse(a) then
      error('Remote(): Arg "member" is not a remote member')
    end
    local st = rcall('HGET', P .. 'j:' .. jid, 'state')
    if not st then return 'missing' end
    if st == 'complete' then return 'complete' end
    rcall('SADD', P .. 'j:' .. jid .. '-dependents', a)
    return 'pending'
  end
  if a == nil then error('Remote(): Arg "prefix" missing') end
  if b == nil then error('Remote(): Arg "' .. (action == 'forget' and 'dependent' or 'dep') ..
    '" missing') end
  if action == 'release' then return M.Remote_release(now, jid, a, b) end
  if action == 'forget' then
    local dk = P .. 'j:' .. jid .. '-dependents'
    local member = M.Remote_find(dk, a, b)
    if member then rcall('SREM', dk, member) return 1 end
    return 0
  end
  error('Remote(): unknown action "' .. action .. '"')
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
    for _, j in ipairs(rcall('ZRANGE', P .. 'tracked', 0, -1)) do
      local r = M.Job_render(j, nil, true)
      if r then jobs[#jobs + 1] = r else expired[#expired + 1] = encode(j) end
    end
    return '{"jobs":' .. M.Json_list(jobs) .. ',"expired":' .. M.Json_list(expired) .. '}'
  end
  if jid == nil then error('Track(): Arg "jid" missing') end
  if rcall('EXISTS', P .. 'j:' .. jid) == 0 then error('Track(): Job does not exist') end
  local a = string.lower(action)
  if a == 'track' then
    rcall(PUB, P .. 'track', jid)
    return encode(rcall('ZADD', P .. 'tracked', now, jid))
  elseif a == 'untrack' then
    rcall(PUB, P .. 'untrack', jid)
    return encode(rcall('ZREM', P .. 'tracked', jid))
  end
  error('Track(): Unknown action "' .. action .. '"')
end
            elseif name == 'Api_depends' then
--@ lua/api.lua:14-14
M['Api_depends'] = M.Job_depends
            elseif name == 'Api_workers' then
--@ lua/api.lua:16-16
M['Api_workers'] = M.Worker_workers
            elseif name == 'Api_unpause' then
--@ lua/api.lua:25-25
M['Api_unpause'] = M.Queue_unpause
            elseif name == 'Api_timeout' then
--@ lua/api.lua:27-27
M['Api_timeout'] = M.Job_timeout
            elseif name == 'Api_requeue' then
--@ lua/api.lua:29-29
M['Api_requeue'] = M.Job_requeue
            elseif name == 'Api_unrecur' then
--@ lua/api.lua:32-32
M['Api_unrecur'] = M.Recur_unrecur
            end
          end
        else
          if name_len == 12 then
            if name == 'Check_settle' then
--@ lua/check.lua:49-71
-- Ask the questions put off, one EXISTS for each kind: a dependency set should exist for
-- no job that is not in state depends, and a history only for a job that exists; only
-- when the answer says that some key breaks that is each one asked about alone.
function M.Check_settle(cx)
  local d, h = cx.d, cx.h
  if d[1] and M.Check_call(cx, 'EXISTS', unpack(d)) > 0 then
    for i, depk in ipairs(d) do
      if M.Check_call(cx, 'SCARD', depk) > 0 then
        M.Check_found(cx, 'dependencies-not-depends', cx.dj[i], depk, cx.ds[i] .. ' but ' ..
          depk .. ' is not empty', 'drop its dependencies')
      end
    end
  end
  if h[1] and M.Check_call(cx, 'EXISTS', unpack(h)) < #h then
    for i, jk in ipairs(h) do
      if M.Check_call(cx, 'EXISTS', jk) == 0 then
        M.Check_found(cx, 'history-orphan', cx.hk[i], '', 'the history of a job that is gone',
          'delete it')
      end
    end
  end
  cx.d, cx.dj, cx.ds, cx.h, cx.hk = {}, {}, {}, {}, {}
end
            elseif name == 'Check_in_set' then
--@ lua/check.lua:123-132
-- Whether job `jid` is in set `i` of a queue (`qf` its facts).
function M.Check_in_set(cx, qf, i, jid)
  local sk = qf[i]
  local exists = qf[sk]
  if exists == nil then
    exists = M.Check_call(cx, 'EXISTS', sk) == 1
    qf[sk] = exists
  end
  return exists and M.Check_call(cx, 'ZSCORE', sk, jid) ~= false
end
            elseif name == 'Check_member' then
--@ lua/check.lua:483-528
-- The invariant of one member `m` of collection key `k` (`d` its classification); `at` is
-- its index when a walk of a list met it (nil when a repair asks).
function M.Check_member(now, k, d, m, cx, at)
  local w = d.what
  if w == 'queue' then
    M.Check_queue_member(k, d, m, cx)
  elseif w == 'order' then
    local f = M.Check_call(cx, 'HMGET', P .. 'j:' .. m, 'queue', 'key', 'state')
    if f[1] ~= d.queue or f[2] ~= d.name or f[3] == 'complete' or f[3] == 'failed' then
      M.Check_found(cx, 'order-stale', k, m, m .. ' is gone, finished or not of this key',
        'remove it from the key (the next job may start)')
    end
  elseif w == 'tag' then
    local tags = M.Check_call(cx, 'HGET', P .. 'j:' .. m, 'tags')
    if not (tags and M.Check_tags(cx, tags)[d.tag]) then
      M.Check_found(cx, 'tag-stale', k, m, m .. ' is gone or not tagged ' .. d.tag,
        'remove it from ' .. k)
    end
  elseif w == 'group' then
    local f = M.Check_call(cx, 'HMGET', P .. 'j:' .. m, 'state', 'failure')
    if f[1] ~= 'failed' or (M.Check_group(f[2]) or 'failed') ~= d.group then
      M.Check_found(cx, 'failure-stale', k, m, m .. ' is gone or not failed in ' .. d.group,
        'remove it from ' .. k)
    else
      M.Check_failure_twice(k, d, m, at, cx)
    end
  elseif w == 'failures' then
    if M.Check_call(cx, 'LLEN', P .. 'f:' .. m) == 0 then
      M.Check_found(cx, 'failure-group-empty', k, m, 'failure group ' .. m .. ' has no jobs',
        'remove it from ' .. k)
    end
  elseif w == 'completed' then
    if M.Check_call(cx, 'HGET', P .. 'j:' .. m, 'state') ~= 'complete' then
      M.Check_found(cx, 'completed-stale', k, m, m .. ' is gone or not complete',
        'remove it from ' .. k)
    end
  elseif w == 'dependents' then
    if not M.Remote_is(m) and
        M.Check_call(cx, 'SISMEMBER', P .. 'j:' .. m .. '-dependencies', d.jid) == 0 then
      M.Check_found(cx, 'dependent-stale', k, m, m .. ' is gone or does not depend on ' ..
        d.jid, 'remove it from ' .. k)
    end
  elseif w == 'throttle-set' then
    M.Check_throttle_member(k, d, m, cx)
  end
end
            elseif name == 'Check_repair' then
--@ lua/check.lua:755-787
-- qlpy.repair <now> <key> <invariant> [member]
-- Checks the finding again and, when it still stands, fixes it as the core would have
-- (the finding's `repair` says how), writing a history entry {"what": "repaired",
-- "invariant", "about"} on the job concerned when it exists. Reply: 1 repaired, 0 nothing to
-- repair (already fixed, or a finding qlpy.repair leaves alone). Idempotent.
-- Errors: qlpy.repair(): Arg "key" missing / qlpy.repair(): Arg "invariant" missing
function M.Check_repair(now)
  local k, inv, member = A[3], A[4], A[5] or ''
  if k == nil then error('qlpy.repair(): Arg "key" missing') end
  if inv == nil then error('qlpy.repair(): Arg "invariant" missing') end
  local kind = rcall('TYPE', k).ok
  if kind == 'none' then return 0 end
  local d = M.Check_classify(k, kind)
  local cx = M.Check_context()
  if d.what == 'job' or member == '' or not d.walk then
    M.Check_head(now, k, d, kind, cx)
  else
    M.Check_member(now, k, d, member, cx)
  end
  M.Check_settle(cx)
  for _, f in ipairs(cx.out) do
    if f[1] == inv and f[3] == member and f[5] ~= '' then
      if d.what == 'job' then
        M.Check_fix_job(now, d.jid, inv, member)
        M.Job_hist(d.jid, now, '"repaired"', { invariant = inv, about = member })
      else
        M.Check_fix_key(now, k, d, inv, member)
      end
      return 1
    end
  end
  return 0
end
            elseif name == 'Check_relist' then
--@ lua/check.lua:831-852
-- Put job `jid` back into the set its state names (`sk`): a running job gets a lock that
-- has expired, which the next pop of its queue reclaims as a lost lock.
function M.Check_relist(now, jid, state, queue, f, sk)
  if state == 'complete' then
    rcall('ZADD', P .. 'completed', tonumber(f[7]) or now, jid)
  elseif state == 'failed' then
    local group = M.Check_group(f[6]) or 'failed'
    rcall('LPUSH', P .. 'f:' .. group, jid)
    rcall('SADD', P .. 'failures', group)
  elseif state == 'running' then
    -- Its lock, worker set entry and expires all say the lock ran out now.
    rcall('HSET', P .. 'j:' .. jid, 'expires', now)
    rcall('ZADD', P .. 'q:' .. queue .. '-locks', now, jid)
    if f[5] and f[5] ~= '' then rcall('ZADD', P .. 'w:' .. f[5] .. ':jobs', now, jid) end
  elseif state == 'waiting' then
    M.Job_enqueue(queue, jid, tonumber(f[3]) or 0, now)
  elseif state == 'stalled' then
    rcall('ZADD', sk, '+inf', jid)
  else
    rcall('ZADD', sk, now, jid)
  end
end
            elseif name == 'Config_unset' then
--@ lua/config.lua:81-90
-- config.unset <now> <key>
-- Publishes {"event":"config_unset","option"} on ql:log, then deletes. Reply nil.
-- Error: config.unset(): Arg "option" missing
function M.Config_unset(now)
  local name = A[3]
  if name == nil then error('config.unset(): Arg "option" missing') end
  rcall(PUB, P .. 'log', encode({ event = 'config_unset', option = name }))
  rcall('HDEL', P .. 'config', name)
  return nil
end
            elseif name == 'Expire_check' then
--@ lua/expiry.lua:23-26
-- Reap `queue` when its deadline set exists (the listings' check).
function M.Expire_check(now, queue)
  if rcall('EXISTS', P .. 'q:' .. queue .. '-expiring') == 1 then M.Expire_reap(now, queue) end
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
    for _, g in ipairs(rcall('SMEMBERS', P .. 'failures')) do
      out[g] = rcall('LLEN', P .. 'f:' .. g)
    end
    return encode(out)
  end
  local start = M.Queue_page_arg(A[4], 0, 'Failed(): Arg "start" is not a number: ')
  local limit = M.Queue_page_arg(A[5], 25, 'Failed(): Arg "limit" is not a number: ')
  local gk = P .. 'f:' .. group
  return encode({
    total = rcall('LLEN', gk),
    jobs = rcall('LRANGE', gk, start, start + limit - 1),
  })
end
            elseif name == 'Queue_unfail' then
--@ lua/failure.lua:25-69
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
  local gk = P .. 'f:' .. group
  local jids = rcall('LRANGE', gk, -count, -1)
  local moved = 0
  for _, jid in ipairs(jids) do
    local jk = P .. 'j:' .. jid
    local f = rcall('HMGET', jk, 'state', 'priority', 'retries', 'history', 'queue',
      'throttles', 'key', 'ttl')
    if f[1] then
      M.Job_hist(jid, now, '"put"', { q = queue }, f[4] or false)
      rcall('HSET', jk, 'state', 'waiting', 'worker', '', 'expires', 0, 'queue', queue,
        'remaining', f[3] or 0)
      local priority = tonumber(f[2]) or 0
      if f[6] or f[7] or f[8] then
        -- Back into a queue: it joins its ordering key there and passes the gate.
        M.Job_enter(now, jid, f[5] or queue, queue, f[6], f[7] or nil, f[8], priority, true)
      else
        M.Job_enqueue(queue, jid, priority, now)
      end
      moved = moved + 1
    end
  end
  rcall('LTRIM', gk, 0, -count - 1)
  if rcall('LLEN', gk) == 0 then rcall('SREM', P .. 'failures', group) end
  return moved
end
            elseif name == 'Job_complete' then
--@ lua/job/complete.lua:3-161
-- complete <now> <jid> <worker> <queue> <data> [next q] [delay d] [depends json]
--   [namespace prefix]
-- Reply: complete | waiting | scheduled | depends (| throttled: the job's ordering key or a
-- named throttle makes it wait in the next queue). Events: ql:completed (tracked), then
-- ql:log completed or advanced. A dangling option name is ignored. The job gives back its
-- throttles and its ordering key's turn; advancing, it joins its key in the next queue.
-- Errors: Job(): no jid provided / Complete(): Arg "worker" missing / Complete(): Arg "queue"
-- missing / Complete(): Arg "data" missing or not JSON: <x> / assertion failed! (delay) /
-- Complete(): Arg "depends" not JSON: <x> / Complete(): "delay" cannot be used without a
-- "next". / Complete(): "depends" cannot be used without a "next". / Complete(): Job <jid>
-- does not exist / ... is not currently running: <state> / ... has been handed out to another
-- worker: <w> / ... running in another queue: <q> / Complete(): "namespace" cannot be used
-- without a "next". With `namespace` (a namespace's key prefix, qless_py's extension), the
-- job completes here and its next stage is put in queue q of that namespace, through the
-- outbox (lua/remote.lua): the reply is then "complete".
--@inline
function M.Job_complete(now)
  local jid, worker, queue, data = A[3], A[4], A[5], A[6]
  if jid == nil then error('Job(): no jid provided') end
  if worker == nil then error('Complete(): Arg "worker" missing') end
  if queue == nil then error('Complete(): Arg "queue" missing') end
  if data ~= '{}' and decode(data) == false then
    error('Complete(): Arg "data" missing or not JSON: ' .. tostring(data))
  end
  local nextq, delay, depends, handoff = nil, 0, nil, nil
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
    if opts.namespace ~= nil then
      if nextq == nil then error('Complete(): "namespace" cannot be used without a "next".') end
      local ns = opts.namespace
      -- the shape of a prefix, `ql:` or `ql:{<name>}:` (key names are the prelude's alone)
      if not (ns:match('^%l%l:$') or ns:match('^%l%l:{[^{}]+}:$')) then
        error('Complete(): Arg "namespace" is not a namespace prefix: ' .. ns)
      end
      handoff = { p = opts.namespace, queue = nextq, delay = delay, depends = depends }
      nextq, depends = nil, nil
    end
  end
  -- The priority is read only for a next queue (each field read scans the job's hash).
  local jk = P .. 'j:' .. jid
  -- 1 state, 2 worker, 3 queue, 4 history, 5 time, 6 retries, 7 throttles, 8 priority. A
  -- job that uses an extension has a `throttles` field (Job.store_flow); only then are its
  -- key and ttl read.
  local f
  if nextq == nil then
    f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries',
      'throttles')
  else
    f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries',
      'throttles', 'priority')
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
  local sk = P .. 'q:' .. queue .. '-scheduled'
  local probe = rcall('EXISTS', P .. 'q:' .. queue .. '-work', sk, sk)
  local dk = jk .. '-dependents'
  local special = rcall('EXISTS', P .. 'config', P .. 'tracked', dk) > 0
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
  rcall('ZREM', P .. 'w:' .. worker .. ':jobs', jid)
  if special and rcall('ZSCORE', P .. 'tracked', jid) then
    rcall(PUB, P .. 'completed', jid)
  end
  -- The job gives back its throttles and lets the next job of its ordering key start.
  local okey, ttl_s = nil, nil
  if f[7] then
    okey, ttl_s = M.Job_flow_leave(now, jid, queue, f[7])
  end
  local retries = f[6] or 0
  if nextq ~= nil then
    rcall(PUB, P .. 'log',
      encode({ jid = jid, event = 'advanced', queue = queue, to = nextq }))
    M.Job_hist(jid, now, '"put"', '{"q":' .. encode(nextq) .. '}', false, whole)
    local now_arg = M.Num_score_arg(now, tstr)
    rcall('ZADD', P .. 'queues', 'NX', now_arg, nextq)
    rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'waiting', 'worker', '',
      'failure', '{}', 'queue', nextq, 'expires', '0', 'remaining', retries)
    local flow = f[7]
    if delay > 0 and (depends == nil or #depends == 0) then
      if flow then M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, 0, false) end
      rcall('ZADD', P .. 'q:' .. nextq .. '-scheduled', now + delay, jid)
      return 'scheduled'
    end
    local linked = 0
    for _, d in ipairs(depends or {}) do
      if M.Job_link(jid, d) then linked = linked + 1 end
    end
    if linked > 0 then
      if flow then M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, 0, false) end
      rcall('ZADD', P .. 'q:' .. nextq .. '-depends', now, jid)
      rcall('HSET', jk, 'state', 'depends')
      if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
      return 'depends'
    end
    local priority = tonumber(f[8]) or 0
    if flow then
      if M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, priority, true) then
        return 'throttled'
      end
      return 'waiting'
    end
    M.Job_enqueue(nextq, jid, priority, now)
    return 'waiting'
  end
  if handoff then M.Job_hand_off(jid, data, handoff) end
  rcall(PUB, P .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"completed","queue":' .. encode(queue) .. '}')
  rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'complete', 'worker', '',
    'failure', '{}', 'queue', '', 'expires', '0', 'remaining', retries)
  local now_arg = M.Num_score_arg(now, tstr)
  rcall('ZADD', P .. 'completed', now_arg, jid)
  M.Job_expire_completed(now)
  if special then
    local dependents = rcall('SMEMBERS', dk)
    if #dependents > 0 then M.Job_release_dependents(now, jid, dependents) end
  end
  return 'complete'
end
            elseif name == 'Job_hand_off' then
--@ lua/job/complete.lua:163-170
-- The next stage of completed job `jid` goes to another namespace: a put there, through the
-- outbox, with the job's class, priority, tags and retries and the completing data.
function M.Job_hand_off(jid, data, h)
  local f = rcall('HMGET', P .. 'j:' .. jid, 'klass', 'priority', 'tags', 'retries')
  M.Remote_send({ op = 'put', p = h.p, jid = jid, queue = h.queue, klass = f[1], data = data,
    priority = f[2] or '0', tags = f[3] or '{}', retries = f[4] or '5',
    delay = h.delay, depends = h.depends and encode(h.depends) or nil })
end
            elseif name == 'Job_undepend' then
--@ lua/job/depends.lua:64-72
-- Move a job out of the depends state into its queue's work set (depends off); `f` is its
-- state, queue, priority, throttles, key and ttl.
function M.Job_undepend(now, jid, f)
  local queue = f[2]
  if queue then
    rcall('ZREM', P .. 'q:' .. queue .. '-depends', jid)
    M.Job_ready_or_enqueue(now, queue, jid, tonumber(f[3]) or 0, f[4], f[5], f[6], 'depends')
  end
end
            elseif name == 'Job_tag_list' then
--@ lua/job/fields.lua:17-23
-- Decoded tag list of a job's stored `tags` text ({} when absent or unreadable).
function M.Job_tag_list(text)
  if not text then return {} end
  local ok, v = pcall(decode, text)
  if ok and M.Json_strings(v) then return v end
  return {}
end
            elseif name == 'Job_throttle' then
--@ lua/job/gate.lua:52-66
-- Make `jid` wait in state throttled in `queue`: in the queue's -throttled set and in the
-- pending set of `tid`, the throttle it waits for (none when it waits for its ordering
-- key). A job that was throttled already keeps its places, leaves the pending sets of its
-- other throttles (`all`, its stored list) and gets no second history entry. `state` nil:
-- read it here.
function M.Job_throttle(now, jid, queue, tid, state, all)
  if state == nil then state = rcall('HGET', P .. 'j:' .. jid, 'state') end
  if state == 'throttled' then M.Job_unpend(jid, all, tid) end
  if tid then rcall('ZADD', P .. 'th:' .. tid .. '-pending', 'NX', now, jid) end
  rcall('ZADD', P .. 'q:' .. queue .. '-throttled', 'NX', now, jid)
  if state ~= 'throttled' then
    rcall('HSET', P .. 'j:' .. jid, 'state', 'throttled')
    M.Job_hist(jid, now, '"throttled"', '{"queue":' .. encode(queue) .. '}')
  end
end
            elseif name == 'Job_giveback' then
--@ lua/job/giveback.lua:3-47
-- qlpy.giveback <now> <jid> <worker>
-- If `jid` is running under `worker`: the job becomes waiting in its own queue again, as a
-- put of it by that worker would make it (history entry `put` with {"q": queue}, out of
-- the queue's lock set and the worker's job set, `worker` "", `expires` 0, `time` now,
-- back in the work set by its priority and now), without spending or restoring a retry:
-- `remaining`, `retries`, priority, tags and data stay as they are. Nothing happens if the
-- job is missing, not running, or held by another worker: a command that ended the lease
-- (complete, fail, retry, a move, a timeout, a lock expiry) came first.
-- A job that uses an extension (its `throttles` field) gives back its throttles' locks and
-- passes the gate again, as a timed-out job does: it keeps its ordering key's turn, waits
-- `throttled` behind the jobs already waiting when a throttle has no room, and must start
-- within its ttl again.
-- Reply: 1 when given back, 0 when the job was not that worker's to give.
-- Events (as the owner's put): ql:log put, then ql:put (tracked).
-- Errors: qlpy.giveback(): Arg "jid" missing / qlpy.giveback(): Arg "worker" missing
function M.Job_giveback(now)
  local jid, worker = A[3], A[4]
  if jid == nil then error('qlpy.giveback(): Arg "jid" missing') end
  if worker == nil then error('qlpy.giveback(): Arg "worker" missing') end
  local jk = P .. 'j:' .. jid
  local f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'priority', 'history', 'throttles')
  if f[1] ~= 'running' or f[2] ~= worker then return 0 end
  local queue = f[3] or ''
  local qjson = encode(queue)
  rcall(PUB, P .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
  M.Job_hist(jid, now, '"put"', '{"q":' .. qjson .. '}', f[5] or false)
  M.Queue_unlist(queue, jid)
  rcall('ZREM', P .. 'w:' .. worker .. ':jobs', jid)
  if f[6] then
    rcall('HSET', jk, 'worker', '', 'expires', '0', 'time', M.Num_time_text(now))
    local g = rcall('HMGET', jk, 'key', 'ttl')
    M.Job_leave(now, jid, queue, f[6], nil)
    if not M.Job_ready(now, queue, jid, tonumber(f[4]) or 0, f[6], g[1] or nil, tonumber(g[2]),
        now, 'running') then
      rcall('HSET', jk, 'state', 'waiting')
    end
  else
    rcall('HSET', jk, 'state', 'waiting', 'worker', '', 'expires', '0',
      'time', M.Num_time_text(now))
    M.Job_enqueue(queue, jid, tonumber(f[4]) or 0, now)
  end
  M.Job_notify(jid, 'put')
  return 1
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
  local queue = rcall('HGET', P .. 'j:' .. jid, 'queue')
  if not queue then error('Priority(): Job ' .. jid .. ' does not exist') end
  rcall('HSET', P .. 'j:' .. jid, 'priority', p)
  local wk = P .. 'q:' .. queue .. '-work'
  if rcall('ZSCORE', wk, jid) then rcall('ZADD', wk, p, jid) end
  return p
end
            elseif name == 'Job_put_args' then
--@ lua/job/put.lua:68-79
-- The checked arguments of one put whose options are ARGV[first..last]: delay, then the
-- options given (nil when not given; depends false, unique false).
--@inline
function M.Job_put_args(queue, jid, klass, data, delay_s, first, last)
  local delay = M.Job_put_check(queue, jid, klass, data, delay_s)
  if (last - first + 1) % 2 == 1 then error('Odd number of additional args') end
  -- No table at all when there are no options (the common case).
  if last < first then return delay, nil, nil, nil, false, nil, nil, nil, false end
  local opts = M.Job_options(first, last)
  local retries, tags, priority, depends, throttles, okey, ttl, unique = M.Job_put_options(opts)
  return delay, retries, tags, priority, depends, throttles, okey, ttl, unique
end
            elseif name == 'Job_put_many' then
--@ lua/job/put_many.lua:7-55
-- qlpy.put_many <now> <worker> <queue> (<jid> <klass> <data> <delay> <n> [name value]*n)...
-- Each job is put exactly as `put <now + 0.00001 (i - 1)> <worker> <queue> <jid> <klass>
-- <data> <delay>` with its n option pairs would put it (every put option, unique included):
-- job i is put 10 us after job i - 1, so that jobs of equal priority pop in batch order.
-- Every job is checked before the first write: when one is refused, nothing is written.
-- Reply: array of the jids in order, nil in place of a unique job left alone ({} when no
-- job is given). Events: those of each put, in order.
-- Errors: Queue(): no queue name provided / qlpy.put_many(): job <i>: <put's phrase> (i
-- counts from 1) / qlpy.put_many(): job <i>: option count missing or not a whole number:
-- <x>
function M.Job_put_many(now)
  local worker, queue = A[3], A[4]
  if queue == nil then error('Queue(): no queue name provided') end
  local jobs = {}
  local ok, err = pcall(M.Job_put_many_args, queue, jobs)
  if not ok then
    -- put's own message, with the job named after the position Lua gave it (if any).
    local at, message = tostring(err):match('^(user_script:%d+: )(.*)$')
    if not at then at, message = '', tostring(err) end
    error(at .. 'qlpy.put_many(): job ' .. (#jobs + 1) .. ': ' .. message, 0)
  end
  if #jobs == 0 then return {} end
  -- One EXISTS for every jid: when none exists and none repeats (the common batch), no job
  -- needs an EXISTS of its own, and the waiting ones go into the work set in one ZADD.
  local fresh = not jobs.repeated and M.Job_none_exist(jobs)
  local probe, batch = nil, nil
  if fresh then
    probe = 2 * rcall('EXISTS', P .. 'tracked')
    batch = {}
  end
  local out
  if fresh and jobs.plain then
    out = M.Job_put_plain(now, queue, jobs, probe, batch)
  else
    out = {}
    for i, j in ipairs(jobs) do
      if type(j) ~= 'table' then j = { A[j], A[j + 1], A[j + 2], 0, nil, nil, nil, false } end
      out[i] = M.Job_put_write(now + 0.00001 * (i - 1), worker, queue, j[1], j[2], j[3], j[4],
        j[5], j[6], j[7], j[8], j[9], j[10], j[11], j[12], probe, batch)
    end
  end
  if batch then
    if #batch > 0 then
      M.Queue_call_list('ZADD', P .. 'q:' .. queue .. '-work', batch, 1000)
    end
    rcall('ZADD', P .. 'queues', 'NX', M.Num_score_arg(now, M.Num_time_text(now)), queue)
  end
  return out
end
            elseif name == 'Job_multiget' then
--@ lua/job/render.lua:165-170
-- multiget <now> [jid...]: JSON array of the existing jobs, in argument order ({} if none).
function M.Job_multiget(now)
  local parts = {}
  for i = 3, #A do parts[#parts + 1] = M.Job_render(A[i]) end
  return M.Json_list(parts)
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
            elseif name == 'Queue_unlist' then
--@ lua/queue.lua:56-69
-- Remove `jid` from the queue's work, locks and scheduled sets (complete, lock expiry that
-- exhausts the retries; put and cancel, which also take it out of the depends set). A
-- running job is normally in the locks set only. It can also sit in the other two after a
-- retry into another queue: the lock left behind there expires and is reclaimed, handing
-- out a job that is still listed in its own queue.
-- `exist`, when the caller probed, is an EXISTS bit set (1 = the work set exists, 2 = the
-- scheduled set exists), and a set that does not exist is skipped.
--@inline
function M.Queue_unlist(queue, jid, exist)
  local qk = P .. 'q:' .. queue
  rcall('ZREM', qk .. '-locks', jid)
  if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
  if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
end
            elseif name == 'Queue_render' then
--@ lua/queue.lua:143-148
-- Render a list of jids as a JSON array of job objects, skipping missing jobs.
function M.Queue_render(jids)
  local parts = {}
  for _, jid in ipairs(jids) do parts[#parts + 1] = M.Job_render(jid) end
  return M.Json_list(parts)
end
            elseif name == 'Queue_counts' then
--@ lua/queue.lua:176-196
-- The counts object of one queue (protocol 2.11); promotes every due scheduled job and
-- expires due jobs (Expire.check). `throttled` (the dialect's count) is there only when the
-- queue has throttled jobs, so that the object keeps qless-core's shape otherwise.
function M.Queue_counts(now, queue)
  local lk, sk = P .. 'q:' .. queue .. '-locks', P .. 'q:' .. queue .. '-scheduled'
  local stalled = rcall('ZCOUNT', lk, 0, now)
  M.Queue_promote(now, queue, rcall('ZCARD', sk))
  M.Expire_check(now, queue)
  local throttled = rcall('ZCARD', P .. 'q:' .. queue .. '-throttled')
  return {
    name = queue,
    waiting = rcall('ZCARD', P .. 'q:' .. queue .. '-work'),
    stalled = stalled,
    running = rcall('ZCARD', lk) - stalled,
    scheduled = rcall('ZCARD', sk),
    depends = rcall('ZCARD', P .. 'q:' .. queue .. '-depends'),
    recurring = rcall('ZCARD', P .. 'q:' .. queue .. '-recur'),
    paused = rcall('SISMEMBER', P .. 'paused_queues', queue) == 1,
    throttled = throttled > 0 and throttled or nil,
  }
end
            elseif name == 'Queue_queues' then
--@ lua/queue.lua:198-206
-- queues <now> [queue]
-- Reply: the counts object of one queue, or an array for every known queue ({} if none).
function M.Queue_queues(now)
  local queue = A[3]
  if queue ~= nil then return encode(M.Queue_counts(now, queue)) end
  local out = {}
  for _, q in ipairs(rcall('ZRANGE', P .. 'queues', 0, -1)) do out[#out + 1] = M.Queue_counts(now, q) end
  return encode(out)
end
            elseif name == 'Queue_length' then
--@ lua/queue.lua:208-216
-- length <now> <queue>: integer, running + waiting + scheduled jobs.
-- Error: Queue(): no queue name provided
function M.Queue_length(now)
  local queue = A[3]
  if queue == nil then error('Queue(): no queue name provided') end
  M.Expire_check(now, queue)
  return rcall('ZCARD', P .. 'q:' .. queue .. '-locks') + rcall('ZCARD', P .. 'q:' .. queue .. '-work') +
    rcall('ZCARD', P .. 'q:' .. queue .. '-scheduled')
end
            elseif name == 'Queue_forget' then
--@ lua/queue.lua:278-282
-- queue.forget <now> <queue>...: drop the names from ql:queues only. Reply nil.
function M.Queue_forget(now)
  M.Queue_with_names('ZREM', P .. 'queues', 3)
  return nil
end
            elseif name == 'Recur_update' then
--@ lua/recurring.lua:186-234
-- recur.update <now> <jid> [name value]...
-- Names: priority, retries, interval, data, klass, queue, backlog; throttles (the dialect's:
-- a JSON array, the queue's own tid is appended), key ('' removes it), ttl (0 removes it).
-- Every pair is validated before the first is applied (the reference applies them one by
-- one). Reply 1. Errors: Recurring(): no jid provided / Recur(): No recurring job <jid> /
-- No value provided for <name> / Recur(): Arg "<name>" must be a number: <x> / Recur(): Arg
-- "backlog" not a number: <x> / Recur(): Arg "data" is not JSON-encoded: <x> / Recur():
-- Unrecognized option "<name>" / Recur(): Arg "throttles" is not JSON-encoded: <x> / Recur():
-- Arg "ttl" must be a number: <x>
function M.Recur_update(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = P .. 'r:' .. jid
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
      rcall('ZINCRBY', P .. 'q:' .. queue .. '-recur', new - interval, jid)
      rcall('HSET', tk, 'interval', new)
      interval = new
    elseif name == 'queue' then
      local old_rk = P .. 'q:' .. queue .. '-recur'
      local score = rcall('ZSCORE', old_rk, jid)
      rcall('ZREM', old_rk, jid)
      if score then rcall('ZADD', P .. 'q:' .. value .. '-recur', score, jid) end
      rcall('HSET', tk, 'queue', value)
      rcall('ZADD', P .. 'queues', 'NX', now, value)
      M.Recur_set_throttles(tk, M.Throttle_own(M.Throttle_list(rcall('HGET', tk, 'throttles')), queue),
        value)
      queue = value
    elseif name == 'throttles' then
      M.Recur_set_throttles(tk, M.Throttle_list(value), queue)
    elseif (name == 'key' and value == '') or (name == 'ttl' and M.Num_parse(value) == 0) then
      rcall('HDEL', tk, name)
    elseif name == 'ttl' then
      rcall('HSET', tk, 'ttl', M.Num_parse(value))
    else
      rcall('HSET', tk, name, value)
    end
  end
  return 1
end
            elseif name == 'Remote_parse' then
--@ lua/remote.lua:20-27
-- The prefix and jid of a remote member (nil, nil when it does not read as one).
function M.Remote_parse(member)
  local ok, v = pcall(decode, member:sub(2))
  if not ok or type(v) ~= 'table' or type(v.p) ~= 'string' or type(v.jid) ~= 'string' then
    return nil, nil
  end
  return v.p, v.jid
end
            elseif name == 'Remote_early' then
--@ lua/remote.lua:135-139
-- Whether a put may skip remote dependency `member` of job `jid`: its release came first.
function M.Remote_early(jid, member)
  local p, dep = M.Remote_parse(member)
  return p ~= nil and rcall('SISMEMBER', P .. 'j:' .. jid .. '-released', p .. '\0' .. dep) == 1
end
            elseif name == 'Stats_expire' then
--@ lua/stats.lua:41-46
-- Keep a stats hash only for the configured history.
function M.Stats_expire(k, now, day)
  local ttl = M.Stats_ttl(now, day)
  if ttl < 1 then ttl = 1 end
  rcall('EXPIRE', k, ttl)
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
  local fk = P .. 'fine:' .. k
  local n = redis.pcall('HINCRBY', fk, fine, '1')
  if n == 1 then
    local ttl = rcall('TTL', k)
    if ttl > 0 then rcall('EXPIRE', fk, ttl) end
  elseif type(n) == 'table' then
    redis.pcall('HSET', fk, fine, '1')
  end
end
            elseif name == 'Throttle_own' then
--@ lua/throttle.lua:29-40
-- The named throttles in list `all`: every tid but `queue`'s own (nil when none).
function M.Throttle_own(all, queue)
  if not all then return nil end
  local qtid, out = P .. 'q:' .. queue, nil
  for _, tid in ipairs(all) do
    if tid ~= qtid then
      out = out or {}
      out[#out + 1] = tid
    end
  end
  return out
end
            elseif name == 'Throttle_set' then
--@ lua/throttle.lua:226-244
-- throttle.set <now> <tid> <maximum> [expiration]
-- Sets the maximum (0: unlimited); with expiration > 0, that many seconds of TTL on the
-- throttle's hash only. Jobs waiting for the throttle start at once as far as the new
-- maximum has room (the dialect waits for the next release). Reply nil.
-- Errors: Throttle(): no tid provided / Throttle(): Arg "maximum" missing or not a number:
-- <x> / Throttle(): Arg "maximum" must not be negative: <x> / Throttle(): Arg "expiration"
-- not a number: <x>
function M.Throttle_set(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  local max = M.Throttle_max_arg(A[4])
  local expiration = 0
  if A[5] ~= nil then
    expiration = M.Num_parse(A[5])
    if expiration == nil then error('Throttle(): Arg "expiration" not a number: ' .. A[5]) end
  end
  M.Throttle_write(now, tid, max, expiration)
  return nil
end
            elseif name == 'Throttle_get' then
--@ lua/throttle.lua:246-252
-- throttle.get <now> <tid>: {"id": tid, "maximum": n}, maximum 0 when the throttle does not
-- exist. Error: Throttle(): no tid provided
function M.Throttle_get(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  return M.Throttle_object(tid)
end
            elseif name == 'Throttle_ttl' then
--@ lua/throttle.lua:290-296
-- throttle.ttl <now> <tid>: the TTL of the throttle's hash (-1 none, -2 no such throttle).
-- Error: Throttle(): no tid provided
function M.Throttle_ttl(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  return rcall('TTL', P .. 'th:' .. tid)
end
            elseif name == 'Api_multiget' then
--@ lua/api.lua:4-4
M['Api_multiget'] = M.Job_multiget
            elseif name == 'Api_complete' then
--@ lua/api.lua:9-9
M['Api_complete'] = M.Job_complete
            elseif name == 'Api_priority' then
--@ lua/api.lua:20-20
M['Api_priority'] = M.Job_priority
            end
          end
        end
      else
        if name_len < 14 then
          if name_len == 13 then
            if name == 'Check_context' then
--@ lua/check.lua:28-37
-- A step's context `cx`: its findings `out`, the server calls made `n`, the facts of
-- each queue met (`q`, see Check.queue_facts), the tag lists read (`t`, see Check.tags),
-- and the questions put off to Check.settle: the dependency sets that must not exist (`d`,
-- with the job's hash in `dj` and state in `ds`) and the jobs whose history was met (`h`,
-- the history key in `hk`). Every server call of a check goes through Check.call, which
-- counts it.
function M.Check_context()
  return { out = {}, n = 0, q = {}, t = {}, d = {}, dj = {}, ds = {}, h = {}, hk = {},
    clock = false, t0 = 0, tn = 4 }
end
            elseif name == 'Check_running' then
--@ lua/check.lua:282-313
-- A running job: its lock and its worker's job set scored by its `expires` (not while in
-- the grace period after a lost lock, when pop has moved both), a worker, and a lock of
-- each of its named throttles.
function M.Check_running(jid, jk, queue, f, cx)
  local lk = P .. 'q:' .. queue .. '-locks'
  if f[4] == '' then
    M.Check_found(cx, 'running-without-worker', jk, lk, 'running but no worker holds it',
      'it gives back its lock and throttles and waits again, as after a timeout')
    return
  end
  local lock = tonumber(M.Check_call(cx, 'ZSCORE', lk, jid))
  local expires = tonumber(f[5])
  if lock and f[10] ~= '1' then
    if not expires or math.abs(lock - expires) > 0.001 then
      M.Check_found(cx, 'lock-mismatch', jk, lk, 'its lock in ' .. lk .. ' is not scored by ' ..
        'its expires', 'score the lock by its expires')
    end
    local wk = P .. 'w:' .. f[4] .. ':jobs'
    local held = tonumber(M.Check_call(cx, 'ZSCORE', wk, jid))
    if expires and (not held or math.abs(held - expires) > 0.001) then
      M.Check_found(cx, 'worker-set-missing', jk, wk, 'running under ' .. f[4] ..
        ' but not in ' .. wk .. ' at its expires', 'add it to ' .. wk .. ' at its expires')
    end
  end
  for _, tid in ipairs(M.Throttle_own(M.Throttle_list(f[8]), queue) or {}) do
    local tk = P .. 'th:' .. tid .. '-locks'
    if not M.Check_call(cx, 'ZSCORE', tk, jid) then
      M.Check_found(cx, 'throttle-lock-missing', jk, tid, 'running under throttle ' .. tid ..
        ' without a lock in ' .. tk, 'add it to ' .. tk)
    end
  end
end
            elseif name == 'Check_fix_job' then
--@ lua/check.lua:789-829
-- Fix finding `inv` of job `jid` (`member` as the finding names it).
function M.Check_fix_job(now, jid, inv, member)
  local jk = P .. 'j:' .. jid
  local f = rcall('HMGET', jk, 'state', 'queue', 'priority', 'expires', 'worker', 'failure',
    'time')
  local state, queue = f[1], f[2]
  if inv == 'queue-unlisted' then
    rcall('ZADD', P .. 'queues', 'NX', now, queue)
  elseif inv == 'not-in-state-set' then
    M.Check_relist(now, jid, state, queue, f, member)
  elseif inv == 'running-without-worker' then
    M.Check_requeue(now, jid, queue)
  elseif inv == 'in-other-set' then
    rcall('ZREM', member, jid)
  elseif inv == 'lock-mismatch' then
    rcall('ZADD', member, f[4], jid)
  elseif inv == 'worker-set-missing' then
    rcall('ZADD', member, f[4], jid)
  elseif inv == 'throttle-lock-missing' then
    rcall('ZADD', P .. 'th:' .. member .. '-locks', 1, jid)
  elseif inv == 'tag-unindexed' then
    rcall('ZADD', P .. 't:' .. member, now, jid)
    rcall('ZINCRBY', P .. 'tags', 1, member)
  elseif inv == 'order-missing' then
    M.Order_join(queue, member, jid)
  elseif inv == 'expiring-missing' then
    local ttl = tonumber(rcall('HGET', jk, 'ttl'))
    if ttl then M.Expire_arm(queue, jid, now + ttl) end
  elseif inv == 'dependency-one-sided' then
    rcall('SADD', P .. 'j:' .. member .. '-dependents', jid)
  elseif inv == 'dependency-gone' or inv == 'dependency-complete' then
    local depk = jk .. '-dependencies'
    rcall('SREM', depk, member)
    rcall('SREM', P .. 'j:' .. member .. '-dependents', jid)
    if rcall('SCARD', depk) == 0 then M.Job_unblock(now, jid) end
  elseif inv == 'depends-without-dependency' then
    M.Job_unblock(now, jid)
  elseif inv == 'dependencies-not-depends' then
    M.Check_drop_dependencies(jid)
  end
end
            elseif name == 'Check_requeue' then
--@ lua/check.lua:854-863
-- A running job that no worker holds waits again, as a timed-out one does: out of the
-- locks set, its throttles given back (its ordering key's turn kept), through the gate.
function M.Check_requeue(now, jid, queue)
  local jk = P .. 'j:' .. jid
  local f = rcall('HMGET', jk, 'priority', 'throttles', 'key', 'ttl')
  rcall('ZREM', P .. 'q:' .. queue .. '-locks', jid)
  if f[2] then M.Job_leave(now, jid, queue, f[2], nil) end
  rcall('HSET', jk, 'worker', '', 'expires', 0)
  M.Job_ready_or_enqueue(now, queue, jid, tonumber(f[1]) or 0, f[2], f[3], f[4], 'running')
end
            elseif name == 'Check_fix_key' then
--@ lua/check.lua:872-901
-- Fix finding `inv` of key `k` (classified `d`) and its `member`.
function M.Check_fix_key(now, k, d, inv, member)
  if inv == 'history-orphan' then
    rcall('DEL', k)
  elseif inv == 'dependencies-orphan' then
    M.Check_drop_dependencies(d.jid)
  elseif inv == 'failure-group-unlisted' then
    rcall('SADD', P .. 'failures', d.group)
  elseif inv == 'recur-unlisted' then
    rcall('ZADD', member, now, d.jid)
  elseif inv == 'order-stale' then
    M.Order_leave(now, d.queue, d.name, member)
  elseif inv == 'tag-stale' then
    rcall('ZREM', k, member)
    rcall('ZINCRBY', P .. 'tags', -1, d.tag)
  elseif inv == 'failure-stale' then
    M.Job_unlist_failure(member, d.group)
  elseif inv == 'throttle-stale' then
    M.Throttle_release(now, member, { d.tid })
  elseif inv == 'failure-duplicate' then
    local n = #rcall('LPOS', k, member, 'COUNT', 0)
    rcall('LREM', k, 1 - n, member)
  elseif inv == 'failure-group-empty' or inv == 'dependent-stale' then
    rcall('SREM', k, member)
  else
    -- member-without-job, member-of-other-queue, expiring-stale, recur-stale,
    -- completed-stale: the entry goes.
    rcall('ZREM', k, member)
  end
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
  local f = rcall('HMGET', P .. 'j:' .. jid, 'worker', 'state', 'queue')
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
  local jk = P .. 'j:' .. jid
  if decoded ~= nil and decoded ~= false then
    rcall('HSET', jk, 'expires', expires, 'worker', worker, 'data', encode(decoded))
  else
    rcall('HSET', jk, 'expires', expires, 'worker', worker)
  end
  rcall('ZADD', P .. 'w:' .. worker .. ':jobs', expires, jid)
  rcall('ZADD', P .. 'workers', now, worker)
  rcall('ZADD', P .. 'q:' .. queue .. '-locks', expires, jid)
  return expires
end
            elseif name == 'Job_put_check' then
--@ lua/job/put.lua:50-66
-- The checked positional arguments of one put; returns its delay.
--@inline
function M.Job_put_check(queue, jid, klass, data, delay_s)
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
  return delay
end
            elseif name == 'Job_put_write' then
--@ lua/job/put.lua:154-322
-- The writes of one put, after Job.put_args. `probe` is the put's EXISTS bit set when the
-- caller knows it (qlpy.put_many); with `batch` (a list) a job that becomes waiting is not
-- added to the work set but appended to it as score, jid, and ql:queues is left to the
-- caller. Returns the jid, or false when `unique` left an unfinished job alone.
--@inline
function M.Job_put_write(now, worker, queue, jid, klass, data, delay, o_retries, o_tags,
    o_priority, depends, given, okey, ttl, unique, probe, batch)
  -- One EXISTS tells whether the job exists (1) and whether any job is tracked (2): it
  -- counts a key once per mention. A new job then needs no HMGET, and an empty ql:tracked
  -- no ZSCORE.
  local jk = P .. 'j:' .. jid
  if not probe then
    probe = rcall('EXISTS', jk, P .. 'tracked', P .. 'tracked')
  end
  -- 1 jid, 2 state, 3 queue, 4 worker, 5 priority, 6 retries, 7 tags, 8 failure, 9 history,
  -- 10 throttles, 11 key, 12 ttl
  local f
  if probe % 2 == 1 then
    f = rcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'priority', 'retries', 'tags',
      'failure', 'history', 'throttles', 'key', 'ttl')
    if unique and f[2] ~= 'complete' then return false end
  else
    -- A new job has none of those fields. KEYS serves as the empty list, so nothing has
    -- to be made for it: it is empty, or holds the namespace prefix at [1] (the `jid`
    -- field, which is never read: the job's `state` says whether it exists).
    f = KEYS
  end
  local retries = o_retries
  if retries == nil then
    retries = f[6] and tonumber(f[6]) or 5
  end
  -- Tag and dependency lists stay false when there are none.
  local old_tags = f[7] and M.Job_tag_list(f[7])
  local tags = old_tags
  if o_tags ~= nil then tags = o_tags end
  local priority = o_priority
  if priority == nil then
    priority = f[5] and tonumber(f[5]) or 0
  end
  -- The throttle list to store: the named throttles, then the queue's own tid. The
  -- dialect's clients move a job by putting it into its new queue with its stored list, so
  -- the old queue's tid goes, as the dialect's put drops it: left in, the old queue's
  -- throttle would hold the job for ever. Only a job that exists in another queue pays.
  local stored = nil
  if given then
    if f[3] and f[3] ~= queue then
      stored = M.Throttle_moved(given, f[3], queue)
    else
      stored = M.Throttle_stored(given, queue)
    end
    if stored then stored = encode(stored) end
  end

  -- Writes begin here.
  local tagk = P .. 'tags'
  if f[7] then
    for _, t in ipairs(old_tags) do
      rcall('ZREM', P .. 't:' .. t, jid)
      rcall('ZINCRBY', tagk, -1, t)
    end
  end
  local depk = P .. 'j:' .. jid .. '-dependencies'
  if depends and #depends > 0 then
    local wanted = {}
    for _, d in ipairs(depends) do wanted[d] = true end
    for _, d in ipairs(rcall('SMEMBERS', depk)) do
      if not wanted[d] then
        rcall('SREM', depk, d)
        rcall('SREM', P .. 'j:' .. d .. '-dependents', jid)
      end
    end
  end
  local qjson = encode(queue)
  local tstr = M.Num_time_text(now)
  local whole = M.Num_whole_text(now, tstr)
  -- The history entry comes before the event: at the memory limit the server refuses a
  -- script's first write that needs memory, and a refused put must not have announced
  -- itself (docs/operations.md, "At the memory limit").
  M.Job_hist(jid, now, '"put"', '{"q":' .. qjson .. '}', f[9] or false, whole)
  -- The JSON text cjson writes for { jid, event, queue } (key order is not significant).
  rcall(PUB, P .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
  local old_queue, old_state, old_worker = f[3], f[2], f[4]
  if old_queue then
    M.Queue_unlist(old_queue, jid)
    rcall('ZREM', P .. 'q:' .. old_queue .. '-depends', jid)
    if old_state == 'throttled' then
      rcall('ZREM', P .. 'q:' .. old_queue .. '-throttled', jid)
    end
    if f[12] then rcall('ZREM', P .. 'q:' .. old_queue .. '-expiring', jid) end
  end
  if f[10] or f[11] or f[12] then
    -- The job gives back its throttles and its place in its ordering key; a put sets them
    -- afresh.
    M.Job_leave(now, jid, old_queue, f[10], f[11] or nil)
    rcall('HDEL', jk, 'throttles', 'key', 'ttl')
  end
  if old_worker and old_worker ~= '' then
    rcall('ZREM', P .. 'w:' .. old_worker .. ':jobs', jid)
    if old_worker ~= worker then
      local msg = encode({ jid = jid, event = 'lock_lost', worker = old_worker })
      rcall(PUB, P .. 'w:' .. old_worker, msg)
      rcall(PUB, P .. 'log', msg)
    end
  end
  if old_state == 'complete' then rcall('ZREM', P .. 'completed', jid) end
  if tags then
    for _, t in ipairs(tags) do
      rcall('ZADD', P .. 't:' .. t, now, jid)
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
        rcall('SADD', P .. 'j:' .. d .. '-dependents', jid)
      else
        M.Job_link(jid, d)
      end
    end
  end
  local has_deps = (f[2] or (depends and #depends > 0)) and rcall('SCARD', depk) > 0
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
  local flow = stored or okey or ttl
  if flow then
    stored = M.Job_store_flow(jid, queue, stored, okey, ttl)
    if okey then M.Order_join(queue, okey, jid) end
  end
  if has_deps then
    rcall('ZADD', P .. 'q:' .. queue .. '-depends', now, jid)
    if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
  elseif delay > 0 then
    rcall('ZADD', P .. 'q:' .. queue .. '-scheduled', now + delay, jid)
  elseif flow then
    M.Job_ready(now, queue, jid, priority, stored, okey, ttl, now, state)
  elseif batch then
    -- The work-set score of Job.enqueue (protocol 2.8).
    batch[#batch + 1] = priority - (now / 10000000000)
    batch[#batch + 1] = jid
  else
    M.Job_enqueue(queue, jid, priority, now)
  end
  if not batch then
    local now_arg = M.Num_score_arg(now, tstr)
    rcall('ZADD', P .. 'queues', 'NX', now_arg, queue)
  end
  if probe >= 2 and rcall('ZSCORE', P .. 'tracked', jid) then
    rcall(PUB, P .. 'put', jid)
  end
  return jid
end
            elseif name == 'Job_put_plain' then
--@ lua/job/put_many.lua:99-128
-- The writes of a batch of plain jobs (no options, no delay) none of which exists: exactly
-- what Job.put_write writes for each (the same events, history entry, hash and score),
-- without what only other jobs need. `jobs` holds the ARGV index of each jid; `tracked` is
-- 2 when any job is tracked; the work-set entries go to `batch`.
function M.Job_put_plain(now, queue, jobs, tracked, batch)
  local out = {}
  local qjson = encode(queue)
  local log_tail = ',"event":"put","queue":' .. qjson .. '}'
  local hist_tail = ',"put",{"q":' .. qjson .. '}]'
  local logk = P .. 'log'
  for n, i in ipairs(jobs) do
    local jid = A[i]
    local t = now + 0.00001 * (n - 1)
    local tstr = format('%.20f', t)
    local whole = M.Num_whole_text(t, tstr)
    local jk = P .. 'j:' .. jid
    rcall(PUB, logk, '{"jid":' .. encode(jid) .. log_tail)
    rcall('RPUSH', jk .. '-history', '[' .. whole .. hist_tail)
    rcall('HSET', jk, 'jid', jid, 'klass', A[i + 1], 'data', A[i + 2], 'priority', '0',
      'tags', '{}', 'state', 'waiting', 'worker', '', 'expires', '0', 'queue', queue,
      'retries', '5', 'remaining', '5', 'time', tstr)
    batch[#batch + 1] = 0 - (t / 10000000000)
    batch[#batch + 1] = jid
    if tracked >= 2 and rcall('ZSCORE', P .. 'tracked', jid) then
      rcall(PUB, P .. 'put', jid)
    end
    out[n] = jid
  end
  return out
end
            elseif name == 'Num_time_text' then
--@ lua/num.lua:12-14
-- The `time` field format: C %.20f.
--@inline
function M.Num_time_text(t) return format('%.20f', t) end
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
            elseif name == 'Order_is_head' then
--@ lua/ordering.lua:42-49
-- Whether `jid` is the head of key `name` of `queue` (it needs no check when it is first). A
-- job missing from the key (retried into another queue) joins it at the end.
function M.Order_is_head(queue, name, jid)
  local ok = M.Order_set(queue, name)
  if rcall('ZRANGE', ok, 0, 0)[1] == jid then return true end
  if not rcall('ZSCORE', ok, jid) then M.Order_join(queue, name, jid) end
  return M.Order_head(queue, name) == jid
end
            elseif name == 'Queue_revisit' then
--@ lua/pop.lua:290-308
-- A pop that came up short expires the queue's due jobs (a bounded number), and looks at
-- one throttled job of the queue (which one moves with `now`) and lets it go through the
-- gate again. A job waits for a release that never comes
-- when its lock holders went away without one (deleted by another program, or moved by a
-- dialect core's put): this finds it, and the gate drops the stale locks it meets.
function M.Queue_revisit(now, queue)
  M.Expire_check(now, queue)
  local tk = P .. 'q:' .. queue .. '-throttled'
  local n = rcall('ZCARD', tk)
  if n == 0 then return end
  local i = floor(now * 1000) % n
  local jid = rcall('ZRANGE', tk, i, i)[1]
  local f = rcall('HMGET', P .. 'j:' .. jid, 'state', 'queue')
  if f[1] ~= 'throttled' or f[2] ~= queue then
    rcall('ZREM', tk, jid)
    return
  end
  M.Job_unthrottle(now, jid)
end
            elseif name == 'Queue_promote' then
--@ lua/queue.lua:30-54
-- P-PROMOTE: move up to `limit` due scheduled jobs into the work set, scored at `now`.
-- `due` is the caller's ZRANGEBYSCORE result when it already has one.
function M.Queue_promote(now, queue, limit, due)
  if limit <= 0 then return end
  local sk = P .. 'q:' .. queue .. '-scheduled'
  due = due or rcall('ZRANGEBYSCORE', sk, 0, now, 'LIMIT', 0, limit)
  for _, jid in ipairs(due) do
    local jk = P .. 'j:' .. jid
    local f = rcall('HMGET', jk, 'priority', 'throttles', 'key', 'ttl')
    local priority = tonumber(f[1]) or 0
    if f[2] or f[3] or f[4] then
      -- The job became ready when its delay ended: its ttl counts from then.
      local at = tonumber(rcall('ZSCORE', sk, jid)) or now
      rcall('ZREM', sk, jid)
      if not M.Job_ready(now, queue, jid, priority, f[2], f[3] or nil, tonumber(f[4]), at,
          'scheduled') then
        rcall('HSET', jk, 'state', 'waiting')
      end
    else
      M.Job_enqueue(queue, jid, priority, now)
      rcall('ZREM', sk, jid)
      rcall('HSET', jk, 'state', 'waiting')
    end
  end
end
            elseif name == 'Queue_reclaim' then
--@ lua/queue.lua:89-108
-- P-RECLAIM: handle the expired locks `expired` of `queue` (pop reads at most its count);
-- returns the jids that may be handed out again. First expiry: courtesy notice and grace
-- period; next: retry consumed.
function M.Queue_reclaim(now, queue, expired)
  local out = {}
  local lk = P .. 'q:' .. queue .. '-locks'
  local grace = M.Config_number('grace-period', 10)
  for _, jid in ipairs(expired) do
    local f = rcall('HMGET', P .. 'j:' .. jid, 'worker', 'grace', 'queue', 'history', 'jid',
      'throttles', 'key')
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
            elseif name == 'Queue_unpause' then
--@ lua/queue.lua:272-276
-- unpause <now> <queue>...: reply nil.
function M.Queue_unpause(now)
  M.Queue_with_names('SREM', P .. 'paused_queues', 3)
  return nil
end
            elseif name == 'Recur_unrecur' then
--@ lua/recurring.lua:131-141
-- unrecur <now> <jid>: delete the template (spawned jobs stay). Reply 1.
-- Error: Recurring(): no jid provided
function M.Recur_unrecur(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = P .. 'r:' .. jid
  local queue = rcall('HGET', tk, 'queue')
  if queue then rcall('ZREM', P .. 'q:' .. queue .. '-recur', jid) end
  rcall('DEL', tk)
  return 1
end
            elseif name == 'Remote_forget' then
--@ lua/remote.lua:43-48
-- Job `jid`, a dependent, is gone (cancelled): tell the namespace of its remote dependency
-- `member` to forget it, so that the dependency may be cancelled in turn.
function M.Remote_forget(jid, member)
  local p, dep = M.Remote_parse(member)
  if p then M.Remote_send({ op = 'forget', p = p, jid = dep, dependent = jid }) end
end
            elseif name == 'Remote_outbox' then
--@ lua/remote.lua:157-190
-- qlpy.outbox <now> take <lease> <count>: up to <count> messages to relay, each leased for
-- <lease> seconds: first those whose lease ran out (their relay died), then new ones.
-- Reply: the messages (JSON texts). qlpy.outbox <now> ack <message>...: the messages were
-- applied; they are forgotten. Reply: how many were still leased. qlpy.outbox <now>
-- length: messages not yet acknowledged.
-- Errors: Outbox(): Arg "lease" / "count" not a number: <x> / Outbox(): unknown action
function M.Remote_outbox(now)
  local action = A[3]
  if action == 'take' then
    local lease, count = M.Num_parse(A[4]), tonumber(A[5])
    if lease == nil or lease <= 0 then
      error('Outbox(): Arg "lease" not a number: ' .. tostring(A[4]))
    end
    if count == nil or count < 1 then
      error('Outbox(): Arg "count" not a number: ' .. tostring(A[5]))
    end
    count = floor(count)
    local out = rcall('ZRANGEBYSCORE', P .. 'outbox-taken', '-inf', now, 'LIMIT', 0, count)
    while #out < count do
      local m = rcall('LPOP', P .. 'outbox')
      if not m then break end
      out[#out + 1] = m
    end
    for _, m in ipairs(out) do rcall('ZADD', P .. 'outbox-taken', now + lease, m) end
    return out
  elseif action == 'ack' then
    local n = 0
    for i = 4, #A do n = n + rcall('ZREM', P .. 'outbox-taken', A[i]) end
    return n
  elseif action == 'length' then
    return rcall('LLEN', P .. 'outbox') + rcall('ZCARD', P .. 'outbox-taken')
  end
  error('Outbox(): unknown action "' .. tostring(action) .. '"')
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
  local fk = P .. 'fine:' .. k
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
            elseif name == 'Throttle_list' then
--@ lua/throttle.lua:18-27
-- The stored tid list `text` as a list of strings, or nil when absent, empty or unreadable.
function M.Throttle_list(text)
  if not text then return nil end
  local ok, v = pcall(decode, text)
  if not ok then return nil end
  v = M.Json_strings(v)
  if not v or #v == 0 then return nil end
  for i = 1, #v do v[i] = tostring(v[i]) end
  return v
end
            elseif name == 'Throttle_full' then
--@ lua/throttle.lua:100-116
-- The first of `tids` that has no room for one more job in a work set (locks and admissions
-- at its maximum, after dropping stale ones), or nil.
function M.Throttle_full(now, tids)
  for _, tid in ipairs(tids) do
    local max = M.Throttle_maximum(tid)
    if max ~= 0 then
      local base = P .. 'th:' .. tid
      local lk, rk = base .. '-locks', base .. '-ready'
      local used = rcall('ZCARD', lk) + rcall('ZCARD', rk)
      if used >= max then
        used = used - M.Throttle_verify(now, lk, true) - M.Throttle_verify(now, rk, false)
        if used >= max then return tid end
      end
    end
  end
  return nil
end
            elseif name == 'Throttle_take' then
--@ lua/throttle.lua:332-342
-- pop: job `jid` of `queue` (stored list `text`) takes a lock of each of its named
-- throttles. When one is full it takes none and is throttled instead: true.
function M.Throttle_take(now, jid, queue, text)
  local all = M.Throttle_list(text)
  local own = M.Throttle_own(all, queue)
  if not own then return false end
  local tid = M.Throttle_acquire(now, jid, own)
  if not tid then return false end
  M.Job_throttle(now, jid, queue, tid, nil, all)
  return true
end
            elseif name == 'Api_heartbeat' then
--@ lua/api.lua:15-15
M['Api_heartbeat'] = M.Job_heartbeat
            elseif name == 'Api_recur.get' then
--@ lua/api.lua:33-33
M['Api_recur.get'] = M.Recur_get
            elseif name == 'Api_recur.tag' then
--@ lua/api.lua:35-35
M['Api_recur.tag'] = M.Recur_tag
            end
          end
        else
          if name_len == 14 then
            if name == 'Check_job_sets' then
--@ lua/check.lua:203-260
-- A job that is not complete: in the set its state names, in no other set of its queue,
-- and its queue in ql:queues.
function M.Check_job_sets(jid, jk, state, queue, f, cx)
  local qf = M.Check_queue_facts(cx, queue)
  if not qf.listed then
    M.Check_found(cx, 'queue-unlisted', jk, queue, 'its queue ' .. queue .. ' is not in ' ..
      P .. 'queues', 'add the queue to ' .. P .. 'queues')
  end
  local own = M.Check_state_index(state)
  -- The dialect's throttle release moves a throttled job into the work set and leaves its
  -- state throttled (the pop that takes it says running): one set or the other, then.
  local alt, in_own, in_alt = nil, nil, nil
  if state == 'throttled' then
    alt = 1
    in_own = M.Check_call(cx, 'ZSCORE', qf[own], jid) ~= false
    in_alt = M.Check_call(cx, 'ZSCORE', qf[alt], jid) ~= false
    if not in_own and in_alt then own, alt, in_own, in_alt = alt, own, in_alt, in_own end
  elseif own then
    in_own = M.Check_call(cx, 'ZSCORE', qf[own], jid) ~= false
  end
  for i = 1, 5 do
    local sk = qf[i]
    if i == alt then
      -- the state's other set: the job is in the one or the other
      if in_alt and in_own then
        M.Check_found(cx, 'in-other-set', jk, sk, state .. ' but listed in ' .. sk,
          'remove it from ' .. sk)
      end
    elseif i == own then
      if not in_own and not (state == 'running' and f[4] == '') then
        -- (Check.running reports a running job that no worker holds.)
        local fix = 'add it to ' .. sk
        if state == 'running' then
          fix = 'give it an expired lock: the next pop of ' .. queue .. ' reclaims it'
        end
        M.Check_found(cx, 'not-in-state-set', jk, sk, state .. ' but not in ' .. sk, fix)
      end
    elseif M.Check_in_set(cx, qf, i, jid) then
      M.Check_found(cx, 'in-other-set', jk, sk, state .. ' but listed in ' .. sk,
        'remove it from ' .. sk)
    end
  end
  if state == 'failed' then
    local group = M.Check_group(f[6]) or 'failed'
    local gk = P .. 'f:' .. group
    if not M.Check_call(cx, 'LPOS', gk, jid) then
      M.Check_found(cx, 'not-in-state-set', jk, gk, 'failed but not in ' .. gk,
        'add it to ' .. gk)
    end
  end
  if f[12] and (state == 'waiting' or state == 'throttled') then
    local ek = P .. 'q:' .. queue .. '-expiring'
    if not M.Check_call(cx, 'ZSCORE', ek, jid) and M.Check_unstarted(cx, jid) then
      M.Check_found(cx, 'expiring-missing', jk, ek, state .. ' with a ttl, not started since ' ..
        'it was put, but without a deadline in ' .. ek, 'add it, due in its ttl from now')
    end
  end
end
            elseif name == 'Check_classify' then
--@ lua/check.lua:351-369
-- What key `k` is: { what = kind, ... the names in it }, and the kind of walk its members
-- need ('z' sorted set, 's' set, 'l' list; nil: none). `kind` is the key's TYPE.
function M.Check_classify(k, kind)
  if k == P .. 'queues' or k == P .. 'paused_queues' or k == P .. 'workers' or k == P .. 'config' or
      k == P .. 'tracked' or k == P .. 'tags' or k == P .. 'check' or k == P .. 'shards' or
      k == P .. 'outbox' or k == P .. 'outbox-taken' or k == P .. 'outbox-seq' or k == P .. 'applied' then
    return { what = 'known' }
  end
  -- `ql:{<name>}:...`: a key of a namespace (the default namespace's scan matches them)
  if k:byte(#P + 1) == 123 then return { what = 'known' } end
  if k == P .. 'failures' then return { what = 'failures', walk = 's', want = 'set' } end
  if k == P .. 'completed' then return { what = 'completed', walk = 'z', want = 'zset' } end
  -- The prefixes, the job's first: most keys are a job's.
  return M.Check_under(k, P .. 'j:', kind) or M.Check_under(k, P .. 'q:', kind) or
    M.Check_under(k, P .. 'w:', kind) or M.Check_under(k, P .. 't:', kind) or
    M.Check_under(k, P .. 'f:', kind) or M.Check_under(k, P .. 'r:', kind) or
    M.Check_under(k, P .. 's:', kind) or M.Check_under(k, P .. 'fine:', kind) or
    M.Check_under(k, P .. 'th:', kind) or { what = 'unknown' }
end
            elseif name == 'Job_cancel_one' then
--@ lua/job/cancel.lua:3-14
-- Cancel one job that is not complete (protocol 3.10, per-jid part). `f` is Job.erase's.
function M.Job_cancel_one(now, jid, f)
  local queue, worker = f[2], f[4]
  local msg = encode({ jid = jid, worker = worker, event = 'canceled', queue = queue })
  rcall(PUB, P .. 'log', msg)
  if worker and worker ~= '' then
    rcall('ZREM', P .. 'w:' .. worker .. ':jobs', jid)
    rcall(PUB, P .. 'w:' .. worker, msg)
  end
  M.Job_erase(now, jid, f)
  M.Job_notify(jid, 'canceled')
end
            elseif name == 'Job_is_tracked' then
--@ lua/job/fields.lua:25-27
-- Whether the job is tracked (in ql:tracked).
--@inline
function M.Job_is_tracked(jid) return rcall('ZSCORE', P .. 'tracked', jid) ~= false end
            elseif name == 'Job_unthrottle' then
--@ lua/job/gate.lua:76-101
-- A throttled job tries the gate again: a throttle it waited for has room, its ordering key
-- came to it, or a pop looks at it again. In the work set it is scored as of the time it
-- began to wait, so that jobs let in together keep their order. Its ttl deadline stays (a
-- job past it is expired here). A job that is gone or not throttled any more (a stale
-- entry of the pending set of `tid`, when it comes from one) only leaves the pending sets.
-- Returns true when the job went into the work set.
function M.Job_unthrottle(now, jid, tid)
  local f = rcall('HMGET', P .. 'j:' .. jid, 'state', 'queue', 'priority', 'throttles', 'key',
    'ttl')
  local state, queue = f[1], f[2]
  if state ~= 'throttled' or not queue then
    M.Job_unpend(jid, M.Throttle_list(f[4]), nil)
    if tid then rcall('ZREM', P .. 'th:' .. tid .. '-pending', jid) end
    return false
  end
  if f[6] and M.Expire_due(now, queue, jid) then return false end
  local tk = P .. 'q:' .. queue .. '-throttled'
  local since = tonumber(rcall('ZSCORE', tk, jid))
  if M.Job_ready(now, queue, jid, tonumber(f[3]) or 0, f[4], f[5] or nil, nil, nil, state,
      since) then
    return false
  end
  rcall('ZREM', tk, jid)
  rcall('HSET', P .. 'j:' .. jid, 'state', 'waiting')
  return true
end
            elseif name == 'Job_flow_leave' then
--@ lua/job/gate.lua:112-118
-- A job that uses an extension (stored list `text`) leaves its place in `queue` for good
-- (Job.leave); returns its key and ttl as stored.
function M.Job_flow_leave(now, jid, queue, text)
  local g = rcall('HMGET', P .. 'j:' .. jid, 'key', 'ttl')
  M.Job_leave(now, jid, queue, text, g[1] or nil)
  return g[1] or nil, g[2] or nil
end
            elseif name == 'Job_store_flow' then
--@ lua/job/put.lua:140-152
-- Store the throttle list `text` (JSON), ordering key and ttl of job `jid` of `queue`, those
-- given. A job with a key or a ttl always has a `throttles` field (the queue's own tid
-- alone, as a dialect core writes for every job): the commands a worker sends for every
-- job read that one field to learn whether the job uses any extension. Returns the list
-- stored.
function M.Job_store_flow(jid, queue, text, okey, ttl)
  if not text then text = encode({ P .. 'q:' .. queue }) end
  local args = { 'throttles', text }
  if okey then args[#args + 1], args[#args + 2] = 'key', okey end
  if ttl then args[#args + 1], args[#args + 2] = 'ttl', ttl end
  rcall('HSET', P .. 'j:' .. jid, unpack(args))
  return text
end
            elseif name == 'Job_none_exist' then
--@ lua/job/put_many.lua:130-140
-- Whether none of the jobs' hashes exists (one EXISTS per 1000 jids).
function M.Job_none_exist(jobs)
  local keys = {}
  for i, j in ipairs(jobs) do keys[i] = P .. 'j:' .. (type(j) == 'table' and j[1] or A[j]) end
  for i = 1, #keys, 1000 do
    local last = i + 999
    if last > #keys then last = #keys end
    if rcall('EXISTS', unpack(keys, i, last)) > 0 then return false end
  end
  return true
end
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
            elseif name == 'Queue_hand_out' then
--@ lua/pop.lua:184-215
-- Hand job `jid` to `worker` (pop's per-job writes: history, job fields, the tracked
-- ql:popped event). Returns the job's fields in Job.fetch's layout (as they were before
-- this pop, apart from state, worker and expires) and whether it is tracked. When it is not
-- handed out: nil, false when the job hash is gone; nil, 1 when it was throttled and nil, 2
-- when it was expired (Queue.flow_out). The lock expiry is stored as `expires_s` (its text), and the
-- layout holds the number `expires` itself, which Job.render would otherwise parse back.
--@inline
function M.Queue_hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry, special,
    queue, reclaimed)
  -- Job.fetch's layout, without reading the three fields pop overwrites (state, worker,
  -- expires): every field read costs a scan of the job hash and a reply string. A job
  -- that uses an extension has a `throttles` field (Job.store_flow); only then are its key
  -- and ttl read.
  local g = rcall('HMGET', P .. 'j:' .. jid, 'jid', 'klass', 'queue', 'priority', 'retries',
    'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time',
    'throttles')
  if not g[1] then return nil, false end
  local okey, ttl = nil, nil
  if g[13] then
    local why
    why, okey, ttl = M.Queue_flow_out(now, jid, queue, g[13], reclaimed)
    if why then return nil, why end
  end
  local f = { g[1], g[2], 'running', g[3], worker, g[4], expires, g[5], g[6], g[7], g[8],
    g[9], g[10], false, g[12], g[13], okey, ttl }
  M.Job_hist(jid, now, '"popped"', wentry, g[11] or false, whole)
  rcall('HSET', P .. 'j:' .. jid, 'time', tstr, 'worker', worker, 'expires', expires_s,
    'state', 'running')
  local tracked = special and rcall('ZSCORE', P .. 'tracked', jid) ~= false
  if tracked then rcall(PUB, P .. 'popped', jid) end
  return f, tracked
end
            elseif name == 'Queue_flow_out' then
--@ lua/pop.lua:255-277
-- pop's checks of a job that uses an extension (stored list `text`): one whose ttl deadline
-- has passed is expired (then the due jobs of the queue too, a bounded number), one whose
-- named throttle is full is throttled; otherwise it takes its throttles' locks and its
-- deadline goes. A `reclaimed` job (its lock expired; it gave its throttles back) has no
-- deadline; when it cannot take its throttles again it leaves the queue's locks set and
-- waits. Returns nil when it may be handed out (1 when it was throttled, 2 when it
-- expired), then its key and ttl as stored.
function M.Queue_flow_out(now, jid, queue, text, reclaimed)
  local g = rcall('HMGET', P .. 'j:' .. jid, 'key', 'ttl')
  if g[2] and not reclaimed and M.Expire_due(now, queue, jid) then
    M.Expire_reap(now, queue)
    return 2
  end
  if M.Throttle_take(now, jid, queue, text) then
    if reclaimed then
      rcall('ZREM', P .. 'q:' .. queue .. '-locks', jid)
      rcall('HSET', P .. 'j:' .. jid, 'worker', '', 'expires', 0)
    end
    return 1
  end
  if g[2] and not reclaimed then rcall('ZREM', P .. 'q:' .. queue .. '-expiring', jid) end
  return nil, g[1] or nil, g[2] or nil
end
            elseif name == 'Queue_page_arg' then
--@ lua/queue.lua:218-224
-- Pagination argument: default when absent, else a number (fractions are floored).
function M.Queue_page_arg(v, default, msg)
  if v == nil then return default end
  local n = M.Num_parse(v)
  if n == nil then error(msg .. v) end
  return floor(n)
end
            elseif name == 'Remote_release' then
--@ lua/remote.lua:118-133
function M.Remote_release(now, jid, p, dep)
  local st = rcall('HGET', P .. 'j:' .. jid, 'state')
  if not st then
    local early = P .. 'j:' .. jid .. '-released'
    rcall('SADD', early, p .. '\0' .. dep)
    rcall('EXPIRE', early, 86400)
    return 'early'
  end
  local depk = P .. 'j:' .. jid .. '-dependencies'
  local member = M.Remote_find(depk, p, dep)
  if not member then return 'already' end
  rcall('SREM', depk, member)
  if rcall('SCARD', depk) > 0 then return 'waiting' end
  if st == 'depends' then M.Job_unblock(now, jid) end
  return 'released'
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
            elseif name == 'Throttle_moved' then
--@ lua/throttle.lua:58-64
-- The list `all` (a job's, a template's, or the one a put moving a job is given) for a job
-- that moves from `old` to queue `new`: the old queue's tid is replaced by the new one's. nil when it names no other throttle.
function M.Throttle_moved(all, old, new)
  local own = M.Throttle_own(all, old)
  if not own then return nil end
  return M.Throttle_stored(own, new)
end
            elseif name == 'Throttle_admit' then
--@ lua/throttle.lua:118-121
-- Let job `jid` into a work set on the account of each of `tids`.
function M.Throttle_admit(now, jid, tids)
  for _, tid in ipairs(tids) do rcall('ZADD', P .. 'th:' .. tid .. '-ready', now, jid) end
end
            elseif name == 'Throttle_write' then
--@ lua/throttle.lua:212-219
-- Store a throttle's maximum (and a TTL on its hash when `expiration` > 0), then let the
-- jobs waiting for it start as far as the new maximum has room.
function M.Throttle_write(now, tid, max, expiration)
  local tk = P .. 'th:' .. tid
  rcall('HSET', tk, 'id', tid, 'maximum', max)
  if expiration > 0 then rcall('EXPIRE', tk, math.ceil(expiration)) end
  M.Throttle_hand_out(now, tid)
end
            elseif name == 'Throttle_locks' then
--@ lua/throttle.lua:265-280
-- throttle.locks <now> <tid>: the jids holding a lock of the throttle. For a queue's own tid
-- (ql:q:<queue>) also the jobs running in that queue, which qless_py counts for it.
-- Error: Throttle(): no tid provided
function M.Throttle_locks(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  local out = rcall('ZRANGE', P .. 'th:' .. tid .. '-locks', 0, -1)
  if tid:sub(1, #(P .. 'q:')) == P .. 'q:' then
    local seen = {}
    for _, jid in ipairs(out) do seen[jid] = true end
    for _, jid in ipairs(rcall('ZRANGE', tid .. '-locks', 0, -1)) do
      if not seen[jid] then out[#out + 1] = jid end
    end
  end
  return out
end
            elseif name == 'Worker_cleanup' then
--@ lua/worker.lua:3-9
-- Purge workers idle for longer than `max-worker-age` (default 86400), with their job sets.
function M.Worker_cleanup(now)
  local cutoff = now - M.Config_number('max-worker-age', 86400)
  local stale = rcall('ZRANGEBYSCORE', P .. 'workers', 0, cutoff)
  for _, w in ipairs(stale) do rcall('DEL', P .. 'w:' .. w .. ':jobs') end
  if #stale > 0 then rcall('ZREMRANGEBYSCORE', P .. 'workers', 0, cutoff) end
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
    local wk = P .. 'w:' .. name .. ':jobs'
    return encode({
      jobs = rcall('ZREVRANGEBYSCORE', wk, now + 8640000, now),
      stalled = rcall('ZREVRANGEBYSCORE', wk, now, 0),
    })
  end
  local out = {}
  for _, w in ipairs(rcall('ZREVRANGE', P .. 'workers', 0, -1)) do
    local wk = P .. 'w:' .. w .. ':jobs'
    out[#out + 1] = {
      name = w,
      jobs = rcall('ZCOUNT', wk, now, now + 8640000),
      stalled = rcall('ZCOUNT', wk, 0, now),
    }
  end
  return encode(out)
end
            elseif name == 'Api_config.get' then
--@ lua/api.lua:5-5
M['Api_config.get'] = M.Config_get
            elseif name == 'Api_config.set' then
--@ lua/api.lua:6-6
M['Api_config.set'] = M.Config_set
            elseif name == 'Api_qlpy.stats' then
--@ lua/api.lua:55-55
M['Api_qlpy.stats'] = M.Stats_fine
            elseif name == 'Api_qlpy.check' then
--@ lua/api.lua:56-56
M['Api_qlpy.check'] = M.Check_step
            end
          end
        end
      end
    end
  else
    if name_len < 19 then
      if name_len < 17 then
        if name_len < 16 then
          if name_len == 15 then
            if name == 'Check_unstarted' then
--@ lua/check.lua:262-280
-- Whether job `jid` has not started since it was last put: the newest of its history's
-- `put` and `popped` entries is a `put`. A job that started may wait without a deadline
-- (pop reclaims a job whose lock ran out without one; when a throttle then holds it, it
-- waits and is let in so), and so may any job whose history the cap has trimmed (the
-- answer is then false: it cannot be told).
function M.Check_unstarted(cx, jid)
  local hk = P .. 'j:' .. jid .. '-history'
  local n = M.Check_call(cx, 'LLEN', hk)
  local cap = floor(M.Config_number('max-job-history', 100))
  if cap >= 3 and n >= cap then return false end
  local entries = M.Check_call(cx, 'LRANGE', hk, 0, -1)
  for i = #entries, 1, -1 do
    local ok, e = pcall(decode, entries[i])
    local what = ok and type(e) == 'table' and (e[2] or e.what)
    if what == 'put' then return true end
    if what == 'popped' then return false end
  end
  return false
end
            elseif name == 'Config_prefetch' then
--@ lua/config.lua:4-10
-- Read several config fields with one HMGET and remember them for this call.
function M.Config_prefetch(...)
  local values = rcall('HMGET', P .. 'config', ...)
  local names = { ... }
  if not cfg then cfg = {} end
  for i = 1, #names do cfg[names[i]] = values[i] end
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
            elseif name == 'Job_put_options' then
--@ lua/job/put.lua:81-114
-- A put's options, checked in this order: retries, tags, priority, depends (false when not
-- given), throttles (a list), key, ttl, unique (a boolean).
--@inline
function M.Job_put_options(opts)
  local retries, tags, priority, depends = nil, nil, nil, false
  if opts.retries ~= nil then
    retries = M.Num_parse(opts.retries)
    if retries == nil then error('Put(): Arg "retries" not a number: ' .. opts.retries) end
  end
  if opts.tags ~= nil then
    tags = M.Json_strings(decode(opts.tags))
    if tags == nil then error('Put(): Arg "tags" not JSON' .. opts.tags) end
  end
  if opts.priority ~= nil then
    priority = M.Num_parse(opts.priority)
    if priority == nil then error('Put(): Arg "priority" not a number' .. opts.priority) end
  end
  if opts.depends ~= nil then
    depends = M.Json_strings(decode(opts.depends))
    if depends == nil then error('Put(): Arg "depends" not JSON: ' .. opts.depends) end
  end
  local throttles, okey, ttl, unique = nil, nil, nil, false
  if opts.throttles ~= nil or opts.key ~= nil or opts.ttl ~= nil then
    throttles, okey, ttl, unique = M.Job_flow_options(opts, 'Put()')
  end
  if opts.unique ~= nil then
    if opts.unique == '1' then
      unique = true
    elseif opts.unique ~= '0' then
      error('Put(): Arg "unique" must be 0 or 1: ' .. opts.unique)
    end
  end
  return retries, tags, priority, depends, throttles, okey, ttl, unique
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
            elseif name == 'Job_flow_fields' then
--@ lua/job/render.lua:147-156
-- The job object's extension fields as ',"name":value' texts: "throttles" (the stored list,
-- when it names a throttle besides the queue's own), "key" and "ttl" (when set).
function M.Job_flow_fields(f)
  local out = ''
  local all = M.Throttle_list(f[16])
  if M.Throttle_own(all, f[4] or '') then out = ',"throttles":' .. encode(all) end
  if f[17] then out = out .. ',"key":' .. encode(f[17]) end
  if f[18] then out = out .. ',"ttl":' .. (M.Json_number(f[18]) or '0') end
  return out
end
            elseif name == 'Job_park_failed' then
--@ lua/job/state.lua:19-26
-- Park a job in failure group `group` with failure object `failure`.
--@inline
function M.Job_park_failed(jid, group, failure)
  rcall('HSET', P .. 'j:' .. jid, 'state', 'failed', 'worker', '', 'expires', '',
    'failure', encode(failure))
  rcall('SADD', P .. 'failures', group)
  rcall('LPUSH', P .. 'f:' .. group, jid)
end
            elseif name == 'Queue_pop_again' then
--@ lua/pop.lua:217-253
-- More rounds of a pop whose round left jobs out (`why`: 1 throttled, 2 expired), each
-- taking as many jobs as are still wanted of `total`: the dialect's rounds after throttled
-- jobs, up to `<queue>-max-pop-retry` (else `max-pop-retry`, default 1) in all, and up to
-- EXPIRED_ROUNDS more after expired ones (each expiry also removes REAP due jobs, so the
-- next round rarely meets one). Appends to `popped` as Queue.pop does.
function M.Queue_pop_again(now, queue, worker, total, popped, expires, expires_s, tstr, whole,
    wentry, special, why)
  local wk = P .. 'q:' .. queue .. '-work'
  local rounds, extra = nil, 5
  while why and #popped < total do
    if why == 2 then
      extra = extra - 1
      if extra < 0 then return end
    else
      if rounds == nil then
        rounds = M.Config_number(queue .. '-max-pop-retry', 0)
        if rounds <= 0 then rounds = M.Config_number('max-pop-retry', 1) end
      end
      rounds = rounds - 1
      if rounds < 1 then return end
    end
    local jids = {}
    M.Queue_take(queue, jids, total - #popped)
    if #jids == 0 then return end
    M.Queue_call_list('ZREM', wk, jids, 1000)
    why = nil
    for _, jid in ipairs(jids) do
      local f, tracked = M.Queue_hand_out(now, jid, worker, expires, expires_s, tstr, whole,
        wentry, special, queue, false)
      if f then
        popped[#popped + 1] = { jid, f, tracked }
      elseif tracked and (not why or tracked < why) then
        why = tracked
      end
    end
  end
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
            elseif name == 'Queue_exhausted' then
--@ lua/queue.lua:71-87
-- Lock expiry that exhausted the job's retries: fail it (protocol 4.2); it gives back its
-- throttles and its ordering key's turn.
function M.Queue_exhausted(now, queue, jid, f)
  local jq = f[3] or queue
  M.Queue_unlist(queue, jid)
  if f[6] or f[7] then M.Job_leave(now, jid, jq, f[6], f[7] or nil) end
  -- The group names the job's own queue, the message the queue being popped (they differ
  -- after a retry into another queue).
  local group = 'failed-retries-' .. jq
  local message = 'Job exhausted retries in queue "' .. queue .. '"'
  M.Job_hist(jid, now, '"failed"', { group = group }, f[4] or false)
  M.Job_park_failed(jid, group, { group = group, message = message, when = now, worker = '' })
  M.Job_notify(jid, 'failed')
  rcall(PUB, P .. 'log', encode({ jid = jid, event = 'failed', group = group,
    worker = f[1], message = message }))
  M.Stats_count(now, now, queue, 'failures', 1, 'failed', 1)
end
            elseif name == 'Remote_released' then
--@ lua/remote.lua:36-41
-- Job `jid` completed: tell each remote dependent's namespace (P-RELEASE-DEPENDENTS for
-- the members Job.release_dependents passes here).
function M.Remote_released(jid, member)
  local p, dependent = M.Remote_parse(member)
  if p then M.Remote_send({ op = 'release', p = p, jid = dependent, dep = jid }) end
end
            elseif name == 'Throttle_stored' then
--@ lua/throttle.lua:42-56
-- A put's `throttles` option as the list to store: the named tids once each, in order, then
-- `queue`'s own tid (the dialect's layout). nil when the option names no throttle.
function M.Throttle_stored(given, queue)
  local own = M.Throttle_own(given, queue)
  if not own then return nil end
  local seen, out = {}, {}
  for _, tid in ipairs(own) do
    if not seen[tid] then
      seen[tid] = true
      out[#out + 1] = tid
    end
  end
  out[#out + 1] = P .. 'q:' .. queue
  return out
end
            elseif name == 'Throttle_verify' then
--@ lua/throttle.lua:75-98
-- Check VERIFY entries of the sorted set `zk` (a throttle's -locks when `running`, else its
-- -ready) and drop those whose job is gone, or no longer running (locks), or no longer
-- waiting to be popped (admissions). Which entries are checked moves with `now`, so that
-- calls over time look at all of them. Returns how many were dropped.
function M.Throttle_verify(now, zk, running)
  local n = rcall('ZCARD', zk)
  if n == 0 then return 0 end
  local first = floor(now * 1000) % n
  local freed = 0
  for _, jid in ipairs(rcall('ZRANGE', zk, first, first + 3 - 1)) do
    local state = rcall('HGET', P .. 'j:' .. jid, 'state')
    local valid
    if running then
      valid = state == 'running'
    else
      valid = state == 'waiting' or state == 'stalled'
    end
    if not valid then
      rcall('ZREM', zk, jid)
      freed = freed + 1
    end
  end
  return freed
end
            elseif name == 'Throttle_object' then
--@ lua/throttle.lua:221-224
-- The throttle object of the dialect: {"id": tid, "maximum": n}.
function M.Throttle_object(tid)
  return encode({ id = tid, maximum = M.Throttle_maximum(tid) })
end
            elseif name == 'Throttle_delete' then
--@ lua/throttle.lua:254-263
-- throttle.delete <now> <tid>: delete the throttle's hash (it becomes unlimited; its locks
-- and pending sets stay), and let its waiting jobs start. Reply nil.
-- Error: Throttle(): no tid provided
function M.Throttle_delete(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  rcall('DEL', P .. 'th:' .. tid)
  M.Throttle_hand_out(now, tid)
  return nil
end
            elseif name == 'Api_recur.untag' then
--@ lua/api.lua:36-36
M['Api_recur.untag'] = M.Recur_untag
            elseif name == 'Api_qlpy.remote' then
--@ lua/api.lua:52-52
M['Api_qlpy.remote'] = M.Remote_call
            elseif name == 'Api_qlpy.outbox' then
--@ lua/api.lua:53-53
M['Api_qlpy.outbox'] = M.Remote_outbox
            elseif name == 'Api_qlpy.repair' then
--@ lua/api.lua:57-57
M['Api_qlpy.repair'] = M.Check_repair
            end
          end
        else
          if name_len == 16 then
            if name == 'Check_job_fields' then
--@ lua/check.lua:153-159
-- The fields of job hash `jk` that Check.job reads, with redis.pcall (Check.key reads a
-- job's hash before it knows the key's type).
function M.Check_job_fields(cx, jk)
  cx.n = cx.n + 1
  return redis.pcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'expires', 'failure',
    'tags', 'throttles', 'key', 'grace', 'klass', 'ttl')
end
            elseif name == 'Check_dependency' then
--@ lua/check.lua:336-349
-- Job `jid` (hash `jk`) depends on job `d` of its own namespace.
function M.Check_dependency(jid, jk, d, cx)
  local st = M.Check_call(cx, 'HGET', P .. 'j:' .. d, 'state')
  if not st then
    M.Check_found(cx, 'dependency-gone', jk, d, 'depends on ' .. d .. ', which is gone',
      'release the dependency')
  elseif st == 'complete' then
    M.Check_found(cx, 'dependency-complete', jk, d, 'depends on ' .. d ..
      ', which is complete', 'release the dependency')
  elseif M.Check_call(cx, 'SISMEMBER', P .. 'j:' .. d .. '-dependents', jid) == 0 then
    M.Check_found(cx, 'dependency-one-sided', jk, d, 'depends on ' .. d .. ', whose ' ..
      'dependents do not list it', 'add it to the dependents of ' .. d)
  end
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
            elseif name == 'Job_flow_options' then
--@ lua/job/put.lua:116-138
-- The throttles, key and ttl options of put or recur (`who`: 'Put()' or 'Recur()'), and
-- false for unique. throttles is the list given (possibly empty), nil when absent.
function M.Job_flow_options(opts, who)
  local throttles, okey, ttl
  if opts.throttles ~= nil then
    local ok, v = pcall(decode, opts.throttles)
    throttles = ok and M.Json_strings(v)
    if not throttles then
      error(who .. ': Arg "throttles" not JSON array: ' .. opts.throttles)
    end
    for i = 1, #throttles do throttles[i] = tostring(throttles[i]) end
  end
  if opts.key ~= nil then
    okey = opts.key
    if okey == '' then error(who .. ': Arg "key" is empty') end
  end
  if opts.ttl ~= nil then
    ttl = M.Num_parse(opts.ttl)
    if ttl == nil then error(who .. ': Arg "ttl" not a number: ' .. opts.ttl) end
    if ttl <= 0 then error(who .. ': Arg "ttl" must be greater than 0: ' .. opts.ttl) end
  end
  return throttles, okey, ttl, false
end
            elseif name == 'Job_put_many_job' then
--@ lua/job/put_many.lua:91-97
-- The checked arguments of the job at ARGV[i] whose options end at ARGV[last].
function M.Job_put_many_job(queue, i, last)
  local delay, retries, tags, priority, depends, throttles, okey, ttl, unique =
    M.Job_put_args(queue, A[i], A[i + 1], A[i + 2], A[i + 3], i + 5, last)
  return { A[i], A[i + 1], A[i + 2], delay, retries, tags, priority, depends, throttles, okey,
    ttl, unique }
end
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
            elseif name == 'Queue_with_names' then
--@ lua/queue.lua:15-21
-- Call a variadic Redis command on ARGV[first..].
function M.Queue_with_names(cmd, k, first)
  -- The reference leaves this to Redis's arity check; its wording differs between servers
  -- (Valkey drops "Redis"), so the protocol's phrase is raised here, before any write.
  if #A < first then error('Wrong number of args calling Redis command from script') end
  M.Queue_call_list(cmd, k, A, 1000, first)
end
            elseif name == 'Recur_store_flow' then
--@ lua/recurring.lua:122-129
-- Store a template's throttle list (JSON text), ordering key and ttl, those given.
function M.Recur_store_flow(tk, text, okey, ttl)
  local args = {}
  if text then args[#args + 1], args[#args + 2] = 'throttles', text end
  if okey then args[#args + 1], args[#args + 2] = 'key', okey end
  if ttl then args[#args + 1], args[#args + 2] = 'ttl', ttl end
  rcall('HSET', tk, unpack(args))
end
            elseif name == 'Throttle_maximum' then
--@ lua/throttle.lua:66-73
-- A throttle's maximum: the stored number, 0 (unlimited) when the hash or the field is
-- missing or not a number. The dialect's rule applies as stored: a throttle is available
-- when its maximum is 0 or its locks number fewer.
function M.Throttle_maximum(tid)
  local m = M.Num_parse(rcall('HGET', P .. 'th:' .. tid, 'maximum'))
  if m == nil then return 0 end
  return m
end
            elseif name == 'Throttle_acquire' then
--@ lua/throttle.lua:123-150
-- pop: take one lock of each of `tids` for `jid`, or return the first tid that has no room
-- for it and take none. The job gives up its admissions either way. A job a throttle let
-- into the work set takes a lock when the locks are fewer than the maximum (the dialect's
-- rule; fewer than it was promised only after the maximum was lowered); a job it did not
-- let in (a reclaimed one, or one a dialect core put) must also leave the room promised to
-- the jobs it did (locks + admissions).
function M.Throttle_acquire(now, jid, tids)
  local admitted = {}
  for i, tid in ipairs(tids) do
    admitted[i] = rcall('ZREM', P .. 'th:' .. tid .. '-ready', jid) == 1
  end
  for i, tid in ipairs(tids) do
    local max = M.Throttle_maximum(tid)
    local base = P .. 'th:' .. tid
    local lk, rk = base .. '-locks', base .. '-ready'
    if max ~= 0 then
      local used = rcall('ZCARD', lk)
      if not admitted[i] then used = used + rcall('ZCARD', rk) end
      if used >= max then
        used = used - M.Throttle_verify(now, lk, true)
        if not admitted[i] then used = used - M.Throttle_verify(now, rk, false) end
        if used >= max then return tid end
      end
    end
  end
  for _, t in ipairs(tids) do rcall('ZADD', P .. 'th:' .. t .. '-locks', 1, jid) end
  return nil
end
            elseif name == 'Throttle_release' then
--@ lua/throttle.lua:152-164
-- Job `jid` stops holding or waiting for the throttles `all` (its whole stored list: the
-- queue's own tid is returned too, for jobs a dialect core locked): it leaves each one's
-- locks set, or else its pending set, and its admissions; each throttle that it held a lock
-- or an admission of then lets waiting jobs in.
function M.Throttle_release(now, jid, all)
  for _, tid in ipairs(all) do
    local base = P .. 'th:' .. tid
    local freed = rcall('ZREM', base .. '-locks', jid)
    if freed == 0 then rcall('ZREM', base .. '-pending', jid) end
    freed = freed + rcall('ZREM', base .. '-ready', jid)
    if freed > 0 then M.Throttle_hand_out(now, tid) end
  end
end
            elseif name == 'Throttle_max_arg' then
--@ lua/throttle.lua:201-210
-- The maximum argument of throttle.set and queue.throttle.set: a number of at least 0,
-- floored.
function M.Throttle_max_arg(v)
  local max = M.Num_parse(v)
  if max == nil then
    error('Throttle(): Arg "maximum" missing or not a number: ' .. tostring(v))
  end
  if max < 0 then error('Throttle(): Arg "maximum" must not be negative: ' .. v) end
  return floor(max)
end
            elseif name == 'Throttle_pending' then
--@ lua/throttle.lua:282-288
-- throttle.pending <now> <tid>: the jids waiting for the throttle, oldest first.
-- Error: Throttle(): no tid provided
function M.Throttle_pending(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  return rcall('ZRANGE', P .. 'th:' .. tid .. '-pending', 0, -1)
end
            elseif name == 'Api_config.unset' then
--@ lua/api.lua:7-7
M['Api_config.unset'] = M.Config_unset
            elseif name == 'Api_recur.update' then
--@ lua/api.lua:34-34
M['Api_recur.update'] = M.Recur_update
            elseif name == 'Api_queue.forget' then
--@ lua/api.lua:39-39
M['Api_queue.forget'] = M.Queue_forget
            elseif name == 'Api_throttle.set' then
--@ lua/api.lua:40-40
M['Api_throttle.set'] = M.Throttle_set
            elseif name == 'Api_throttle.get' then
--@ lua/api.lua:41-41
M['Api_throttle.get'] = M.Throttle_get
            elseif name == 'Api_throttle.ttl' then
--@ lua/api.lua:45-45
M['Api_throttle.ttl'] = M.Throttle_ttl
            end
          end
        end
      else
        if name_len < 18 then
          if name_len == 17 then
            if name == 'Check_state_index' then
--@ lua/check.lua:96-105
-- The index in a queue's facts (Check.queue_facts) of the set a job in `state` belongs
-- to, or nil.
function M.Check_state_index(state)
  if state == 'waiting' or state == 'stalled' then return 1 end
  if state == 'running' then return 2 end
  if state == 'scheduled' then return 3 end
  if state == 'depends' then return 4 end
  if state == 'throttled' then return 5 end
  return nil
end
            elseif name == 'Check_queue_facts' then
--@ lua/check.lua:107-121
-- What a step knows of `queue`, asked once a step (a call sees the keyspace still): its
-- sets' names (1 work, 2 locks, 3 scheduled, 4 depends, 5 throttled), `listed` whether it
-- is in ql:queues, and, keyed by a set's name, whether that set exists (asked when first
-- needed: a job in none of its queue's other sets, the common case, costs no call for a
-- set that does not exist).
function M.Check_queue_facts(cx, queue)
  local qf = cx.q[queue]
  if qf == nil then
    local qk = P .. 'q:' .. queue
    qf = { qk .. '-work', qk .. '-locks', qk .. '-scheduled', qk .. '-depends',
      qk .. '-throttled', listed = M.Check_call(cx, 'ZSCORE', P .. 'queues', queue) ~= false }
    cx.q[queue] = qf
  end
  return qf
end
            elseif name == 'Check_classify_in' then
--@ lua/check.lua:385-435
-- Check.classify for a key under prefix `p` (`rest` follows it).
function M.Check_classify_in(p, rest, kind)
  if p == P .. 'j:' then
    if kind == 'hash' then return { what = 'job', jid = rest } end
    local jid = M.Check_ends(rest, '-history')
    if jid and kind == 'list' then return { what = 'history', jid = jid } end
    jid = M.Check_ends(rest, '-dependencies')
    if jid and kind == 'set' then return { what = 'dependencies', jid = jid } end
    if M.Check_ends(rest, '-released') and kind == 'set' then return { what = 'known' } end
    jid = M.Check_ends(rest, '-dependents')
    if jid and kind == 'set' then
      return { what = 'dependents', jid = jid, walk = 's', want = 'set' }
    end
    return { what = 'unknown' }
  elseif p == P .. 'q:' then
    for _, suffix in ipairs({ '-work', '-locks', '-scheduled', '-depends', '-throttled',
        '-expiring', '-recur' }) do
      local queue = M.Check_ends(rest, suffix)
      if queue then
        return { what = 'queue', queue = queue, suffix = suffix, walk = 'z', want = 'zset' }
      end
    end
    local at = rest:find('-key:', 1, true)
    if at and at > 1 then
      return { what = 'order', queue = rest:sub(1, at - 1), name = rest:sub(at + #'-key:'),
        walk = 'z', want = 'zset' }
    end
  elseif p == P .. 'w:' then
    if M.Check_ends(rest, ':jobs') then return { what = 'known', want = 'zset' } end
  elseif p == P .. 't:' then
    return { what = 'tag', tag = rest, walk = 'z', want = 'zset' }
  elseif p == P .. 'f:' then
    return { what = 'group', group = rest, walk = 'l', want = 'list' }
  elseif p == P .. 'r:' then
    return { what = 'recur', jid = rest, want = 'hash' }
  elseif p == P .. 's:' or p == P .. 'fine:' then
    return { what = 'known', want = 'hash' }
  elseif p == P .. 'th:' then
    -- -ready is not walked: a dialect core's pop takes a job our core let in without
    -- knowing its admission, and Throttle.verify drops such entries as it meets them.
    if M.Check_ends(rest, '-ready') then return { what = 'known', want = 'zset' } end
    for _, suffix in ipairs({ '-locks', '-pending' }) do
      local tid = M.Check_ends(rest, suffix)
      if tid then
        return { what = 'throttle-set', tid = tid, suffix = suffix, walk = 'z', want = 'zset' }
      end
    end
    return { what = 'known', want = 'hash' }
  end
  return { what = 'unknown' }
end
            elseif name == 'Job_put_many_args' then
--@ lua/job/put_many.lua:57-89
-- Check every job of a qlpy.put_many call (ARGV from 5 on), appending each one's arguments
-- to `jobs` as it passes: a plain job (no options, no delay) as the ARGV index of its jid,
-- another as the list of its checked arguments. `jobs.repeated` is set when a jid occurs
-- twice, `jobs.plain` while every job is plain. Raises put's error for the first job
-- refused (the caller names it by #jobs + 1).
function M.Job_put_many_args(queue, jobs)
  local i, n, seen = 5, #A, {}
  jobs.plain = true
  while i <= n do
    local count_s = A[i + 4]
    local jid = A[i]
    if count_s == '0' then
      if M.Job_put_check(queue, jid, A[i + 1], A[i + 2], A[i + 3]) == 0 and i + 4 <= n then
        jobs[#jobs + 1] = i
      else
        jobs.plain = false
        jobs[#jobs + 1] = M.Job_put_many_job(queue, i, i + 4)
      end
      i = i + 5
    else
      local count = M.Num_parse(count_s)
      if count == nil or count < 0 or count % 1 ~= 0 or i + 4 + 2 * count > n then
        error('option count missing or not a whole number: ' .. tostring(count_s), 0)
      end
      jobs.plain = false
      local last = i + 4 + 2 * count
      jobs[#jobs + 1] = M.Job_put_many_job(queue, i, last)
      i = last + 1
    end
    if seen[jid] then jobs.repeated = true end
    seen[jid] = true
  end
end
            elseif name == 'Queue_reclaim_one' then
--@ lua/queue.lua:110-141
-- P-RECLAIM for one expired lock; `f` is the job's worker, grace, queue, history, jid,
-- throttles, key. True when the job may be handed out again: it gives back its throttle
-- locks (pop hands it out only when it can take them again) and keeps its ordering key's
-- turn.
function M.Queue_reclaim_one(now, queue, lk, grace, jid, f)
  local jk = P .. 'j:' .. jid
  rcall('ZREM', P .. 'w:' .. (f[1] or '') .. ':jobs', jid)
  local sent = f[2] == '1'
  if not sent or grace <= 0 then
    M.Job_notify(jid, 'stalled')
    M.Job_hist(jid, now, '"timed-out"', nil, f[4] or false)
    f[4] = false
    rcall('HSET', jk, 'grace', 1)
    local msg = encode({ jid = jid, event = 'lock_lost', worker = f[1] })
    rcall(PUB, P .. 'w:' .. (f[1] or ''), msg)
    rcall(PUB, P .. 'log', msg)
    rcall('ZADD', lk, now + grace, jid)
    M.Stats_count(now, now, queue, 'retries', 1)
  end
  if sent or grace <= 0 then
    rcall('HDEL', jk, 'grace')
    local remaining = tonumber(rcall('HINCRBYFLOAT', jk, 'remaining', -1))
    if remaining >= 0 then
      -- Its lock is lost: it gives back its throttles, and pop hands it out again only
      -- when it can take them again (Queue.flow_out).
      if f[6] then M.Job_leave(now, jid, f[3] or queue, f[6], nil) end
      return true
    end
    M.Queue_exhausted(now, queue, jid, f)
  end
  return false
end
            elseif name == 'Throttle_hand_out' then
--@ lua/throttle.lua:166-199
-- Handing out free locks: jobs waiting for `tid` go through the gate again (Job.unthrottle),
-- oldest first, until as many as the throttle has room for went into the work set. A job
-- that expires, or waits for another throttle instead, takes no room. At most HAND_OUT
-- jobs are looked at per call.
function M.Throttle_hand_out(now, tid)
  local base = P .. 'th:' .. tid
  local pk = base .. '-pending'
  if rcall('EXISTS', pk) == 0 then return end
  local room = 100
  local max = M.Throttle_maximum(tid)
  if max ~= 0 then
    local lk, rk = base .. '-locks', base .. '-ready'
    room = math.ceil(max) - rcall('ZCARD', lk) - rcall('ZCARD', rk)
    if room < 1 then
      room = room + M.Throttle_verify(now, lk, true) + M.Throttle_verify(now, rk, false)
      if room < 1 then return end
    end
    if room > 100 then room = 100 end
  end
  -- `skip`: jobs looked at that still wait here (they come first in the set).
  local looked, skip = 0, 0
  while room > 0 and looked < 100 do
    local jids = rcall('ZRANGE', pk, skip, skip + room - 1)
    if #jids == 0 then return end
    for _, jid in ipairs(jids) do
      if M.Job_unthrottle(now, jid, tid) then
        room = room - 1
      elseif rcall('ZSCORE', pk, jid) then
        skip = skip + 1
      end
    end
    looked = looked + #jids
  end
end
            elseif name == 'Worker_deregister' then
--@ lua/worker.lua:36-40
-- worker.deregister <now> <worker>...: remove from ql:workers only. Reply nil.
function M.Worker_deregister(now)
  M.Queue_with_names('ZREM', P .. 'workers', 3)
  return nil
end
            elseif name == 'Api_qlpy.giveback' then
--@ lua/api.lua:49-51
-- The throttle dialect's commands keep its names (above); qless_py's own extension commands
-- (docs/protocol.md) are prefixed, so no qless name can clash.
M['Api_qlpy.giveback'] = M.Job_giveback
            elseif name == 'Api_qlpy.put_many' then
--@ lua/api.lua:54-54
M['Api_qlpy.put_many'] = M.Job_put_many
            end
          end
        else
          if name_len == 18 then
            if name == 'Check_queue_member' then
--@ lua/check.lua:541-569
-- A member of a queue's set: a job of that queue (its state is checked from the job's
-- side), for -expiring one that waits with a ttl, for -recur a template of the queue.
function M.Check_queue_member(k, d, m, cx)
  if d.suffix == '-recur' then
    if M.Check_call(cx, 'HGET', P .. 'r:' .. m, 'queue') ~= d.queue then
      M.Check_found(cx, 'recur-stale', k, m, 'template ' .. m .. ' is gone or of another queue',
        'remove it from ' .. k)
    end
    return
  end
  if d.suffix == '-expiring' then
    local f = M.Check_call(cx, 'HMGET', P .. 'j:' .. m, 'queue', 'state', 'ttl')
    local s = f[2]
    if f[1] ~= d.queue or not f[3] or (s ~= 'waiting' and s ~= 'throttled' and s ~= 'stalled')
    then
      M.Check_found(cx, 'expiring-stale', k, m, m .. ' is gone or not waiting with a ttl',
        'remove it from ' .. k)
    end
    return
  end
  local queue = M.Check_call(cx, 'HGET', P .. 'j:' .. m, 'queue')
  if not queue then
    M.Check_found(cx, 'member-without-job', k, m, m .. ' has no job hash',
      'remove it from ' .. k)
  elseif queue ~= d.queue then
    M.Check_found(cx, 'member-of-other-queue', k, m, m .. ' is a job of queue ' .. queue,
      'remove it from ' .. k)
  end
end
            elseif name == 'Check_still_member' then
--@ lua/check.lua:665-669
-- Whether `m` is still a member of `k` (a sorted set or a set, as `d` walks it).
function M.Check_still_member(cx, k, d, m)
  if d.walk == 'z' then return M.Check_call(cx, 'ZSCORE', k, m) ~= false end
  return M.Check_call(cx, 'SISMEMBER', k, m) == 1
end
            elseif name == 'Job_unlist_failure' then
--@ lua/job/state.lua:11-17
-- Remove a job from a failure group (and the group from ql:failures when it empties).
function M.Job_unlist_failure(jid, group)
  if type(group) ~= 'string' then return end
  local gk = P .. 'f:' .. group
  rcall('LREM', gk, 0, jid)
  if rcall('LLEN', gk) == 0 then rcall('SREM', P .. 'failures', group) end
end
            elseif name == 'Recur_recur_number' then
--@ lua/recurring.lua:58-65
-- Option value that must be a finite number (default when absent).
function M.Recur_recur_number(opts, name, default)
  local v = opts[name]
  if v == nil then return default end
  local n = M.Num_parse(v)
  if n == nil then error('Recur(): Arg "' .. name .. '" not a number: ' .. v) end
  return n
end
            elseif name == 'Recur_check_update' then
--@ lua/recurring.lua:162-184
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
  elseif name == 'throttles' then
    local ok, v = pcall(decode, value)
    if not ok or not M.Json_strings(v) then
      error('Recur(): Arg "throttles" is not JSON-encoded: ' .. value)
    end
  elseif name == 'ttl' then
    local ttl = M.Num_parse(value)
    if ttl == nil or ttl < 0 then error('Recur(): Arg "ttl" must be a number: ' .. value) end
  elseif name ~= 'klass' and name ~= 'queue' and name ~= 'key' then
    error('Recur(): Unrecognized option "' .. name .. '"')
  end
end
            elseif name == 'Throttle_queue_get' then
--@ lua/throttle.lua:311-317
-- queue.throttle.get <now> <queue>: the throttle object of the queue's own throttle.
-- Error: Queue(): no queue name provided
function M.Throttle_queue_get(now)
  local queue = A[3]
  if queue == nil then error('Queue(): no queue name provided') end
  return M.Throttle_object(P .. 'q:' .. queue)
end
            elseif name == 'Throttle_queue_set' then
--@ lua/throttle.lua:319-330
-- queue.throttle.set <now> <queue> <maximum>: the most jobs of the queue running at once
-- (0: unlimited), no TTL. Reply nil. (Workers learn of it from the write to the throttle's
-- hash, which they track: docs/workers.md.)
-- Errors: Queue(): no queue name provided / Throttle(): Arg "maximum" missing or not a
-- number: <x> / Throttle(): Arg "maximum" must not be negative: <x>
function M.Throttle_queue_set(now)
  local queue = A[3]
  if queue == nil then error('Queue(): no queue name provided') end
  local max = M.Throttle_max_arg(A[4])
  M.Throttle_write(now, P .. 'q:' .. queue, max, 0)
  return nil
end
            elseif name == 'Api_throttle.locks' then
--@ lua/api.lua:43-43
M['Api_throttle.locks'] = M.Throttle_locks
            end
          end
        end
      end
    else
      if name_len < 21 then
        if name_len < 20 then
          if name_len == 19 then
            if name == 'Check_failure_twice' then
--@ lua/check.lua:530-539
-- A failure group's list names job `m` once: the group's count (`failed`) is the list's
-- length. A walk (`at` its index) reports a job named twice or more at its second entry,
-- so once; a list that moved meanwhile (a new failure pushed) may hide it from this walk.
function M.Check_failure_twice(k, d, m, at, cx)
  local pos = M.Check_call(cx, 'LPOS', k, m, 'COUNT', 0)
  if #pos > 1 and (at == nil or at == pos[2]) then
    M.Check_found(cx, 'failure-duplicate', k, m, m .. ' is listed ' .. #pos .. ' times in ' ..
      d.group, 'keep its newest entry')
  end
end
            elseif name == 'Job_encoded_members' then
--@ lua/job/render.lua:42-46
-- Encoded JSON strings of a Redis reply list.
function M.Job_encoded_members(list)
  for i = 1, #list do list[i] = encode(list[i]) end
  return M.Json_list(list)
end
            elseif name == 'Queue_throttle_room' then
--@ lua/pop.lua:279-288
-- Room left under the queue's own throttle (tid ql:q:<queue>): its maximum less the jobs
-- in the queue's locks set (running and stalled, whichever core popped them). nil when the
-- throttle is unlimited.
function M.Queue_throttle_room(queue, lk)
  local max = M.Throttle_maximum(P .. 'q:' .. queue)
  if max == 0 then return nil end
  local room = math.ceil(max) - rcall('ZCARD', lk)
  if room < 0 then return 0 end
  return room
end
            elseif name == 'Recur_set_throttles' then
--@ lua/recurring.lua:236-245
-- Store the named throttles `given` on template `tk` of `queue` (with the queue's own tid),
-- or remove the field when there are none.
function M.Recur_set_throttles(tk, given, queue)
  local stored = given and M.Throttle_stored(given, queue)
  if stored then
    rcall('HSET', tk, 'throttles', encode(stored))
  else
    rcall('HDEL', tk, 'throttles')
  end
end
            elseif name == 'Api_throttle.delete' then
--@ lua/api.lua:42-42
M['Api_throttle.delete'] = M.Throttle_delete
            end
          end
        else
          if name_len == 20 then
            if name == 'Check_zscan_noscores' then
--@ lua/check.lua:78-88
-- ZSCAN ... NOSCORES, or false where the server does not know NOSCORES (Redis): `cx.z`
-- says so from then on (the check's token keeps it).
function M.Check_zscan_noscores(cx, k, cursor, count)
  cx.n = cx.n + 1
  local r = redis.pcall('ZSCAN', k, cursor, 'COUNT', count, 'NOSCORES')
  if r.err then
    cx.z = false
    return false
  end
  return r
end
            elseif name == 'Job_expire_completed' then
--@ lua/job/complete.lua:172-192
-- P-EXPIRE-COMPLETED, in bounded batches: at most 100 jobs older than `jobs-history` and at
-- most 100 beyond `jobs-history-count` per call (the reference deletes all at once).
--@inline
function M.Job_expire_completed(now)
  local age = M.Config_number('jobs-history', 604800)
  local keep = M.Config_number('jobs-history-count', 50000)
  keep = floor(keep)
  local old = rcall('ZRANGEBYSCORE', P .. 'completed', '0', now - age, 'LIMIT', '0', '100')
  if #old > 0 then
    for _, j in ipairs(old) do M.Job_delete(j) end
    rcall('ZREM', P .. 'completed', unpack(old))
  end
  -- ZRANGE 0 .. -N-1: everything but the newest N; a negative N reaches only the -N oldest.
  local card = rcall('ZCARD', P .. 'completed')
  local excess = keep >= 0 and card - keep or math.min(card, -keep)
  if excess > 0 then
    if excess > 100 then excess = 100 end
    for _, j in ipairs(rcall('ZRANGE', P .. 'completed', 0, excess - 1)) do M.Job_delete(j) end
    rcall('ZREMRANGEBYRANK', P .. 'completed', 0, excess - 1)
  end
end
            elseif name == 'Job_ready_or_enqueue' then
--@ lua/job/gate.lua:37-50
-- Job `jid`, in state `state`, becomes ready to run in `queue` now: through the gate when it
-- has throttles, a key or a ttl (their stored fields), else straight into the work set.
-- Writes its new state.
function M.Job_ready_or_enqueue(now, queue, jid, priority, text, okey, ttl_s, state)
  local jk = P .. 'j:' .. jid
  if text or okey or ttl_s then
    if M.Job_ready(now, queue, jid, priority, text, okey or nil, tonumber(ttl_s), now, state) then
      return
    end
  else
    M.Job_enqueue(queue, jid, priority, now)
  end
  rcall('HSET', jk, 'state', 'waiting')
end
            elseif name == 'Throttle_release_cmd' then
--@ lua/throttle.lua:298-309
-- throttle.release <now> <tid> [jid...]: for each jid in turn, remove it from the locks set
-- (or, when it held no lock, from the pending set), then let waiting jobs in. Reply nil.
-- Error: Throttle(): no tid provided
function M.Throttle_release_cmd(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  for i = 4, #A do
    M.Throttle_release(now, A[i], { tid })
    M.Throttle_hand_out(now, tid)
  end
  return nil
end
            elseif name == 'Api_throttle.pending' then
--@ lua/api.lua:44-44
M['Api_throttle.pending'] = M.Throttle_pending
            elseif name == 'Api_throttle.release' then
--@ lua/api.lua:46-46
M['Api_throttle.release'] = M.Throttle_release_cmd
            end
          end
        end
      else
        if name_len < 22 then
          if name_len == 21 then
            if name == 'Check_throttle_member' then
--@ lua/check.lua:571-587
-- A member of a throttle's locks (a running job that names the throttle) or pending (a
-- throttled one).
function M.Check_throttle_member(k, d, m, cx)
  local f = M.Check_call(cx, 'HMGET', P .. 'j:' .. m, 'state', 'throttles')
  local named = false
  for _, tid in ipairs(M.Throttle_list(f[2]) or {}) do if tid == d.tid then named = true end end
  local s, valid = f[1], false
  if d.suffix == '-locks' then
    valid = s == 'running'
  else
    valid = s == 'throttled'
  end
  if not (named and valid) then
    M.Check_found(cx, 'throttle-stale', k, m, m .. ' is gone, does not name throttle ' ..
      d.tid .. ' or is ' .. tostring(s), 'release it from the throttle')
  end
end
            elseif name == 'Api_worker.deregister' then
--@ lua/api.lua:38-38
M['Api_worker.deregister'] = M.Worker_deregister
            end
          end
        else
          if name_len < 23 then
            if name_len == 22 then
              if name == 'Check_job_dependencies' then
--@ lua/check.lua:315-334
-- Dependencies: each one is a job that exists, is not complete and lists this job among its
-- dependents; a job in state depends has at least one, a job in another state none (asked
-- by Check.settle, for all the step's jobs at once).
function M.Check_job_dependencies(jid, jk, state, cx)
  local depk = jk .. '-dependencies'
  if state ~= 'depends' then
    local n = #cx.d + 1
    cx.d[n], cx.dj[n], cx.ds[n] = depk, jk, state
    return
  end
  local deps = M.Check_call(cx, 'SMEMBERS', depk)
  if #deps == 0 then
    M.Check_found(cx, 'depends-without-dependency', jk, '', 'depends on no job',
      'release it: it becomes waiting (or scheduled)')
  end
  for _, d in ipairs(deps) do
    -- A job of another namespace (lua/remote.lua) is that namespace's to check.
    if not M.Remote_is(d) then M.Check_dependency(jid, jk, d, cx) end
  end
end
              elseif name == 'Job_release_dependents' then
--@ lua/job/depends.lua:31-45
-- P-RELEASE-DEPENDENTS: jobs waiting only for `jid` become waiting (or scheduled).
-- `dependents` is the members of its dependents set, read by the caller.
function M.Job_release_dependents(now, jid, dependents)
  local dk = P .. 'j:' .. jid .. '-dependents'
  for _, d in ipairs(dependents) do
    if M.Remote_is(d) then
      M.Remote_released(jid, d)
    else
      local depk = P .. 'j:' .. d .. '-dependencies'
      rcall('SREM', depk, jid)
      if rcall('SCARD', depk) == 0 then M.Job_unblock(now, d) end
    end
  end
  if #dependents > 0 then rcall('DEL', dk) end
end
              elseif name == 'Api_queue.throttle.get' then
--@ lua/api.lua:47-47
M['Api_queue.throttle.get'] = M.Throttle_queue_get
              elseif name == 'Api_queue.throttle.set' then
--@ lua/api.lua:48-48
M['Api_queue.throttle.set'] = M.Throttle_queue_set
              end
            end
          else
            if name_len == 23 then
              if name == 'Check_drop_dependencies' then
--@ lua/check.lua:865-870
-- Job `jid` stops depending on anything: out of its dependencies' dependents, its set gone.
function M.Check_drop_dependencies(jid)
  local depk = P .. 'j:' .. jid .. '-dependencies'
  for _, b in ipairs(rcall('SMEMBERS', depk)) do M.Job_unlink(jid, b) end
  rcall('DEL', depk)
end
              end
            end
          end
        end
      end
    end
  end
  return rawget(M, name)
end
M.__index = define  -- M is its own metatable: one table less
setmetatable(M, M)

--@ lua/api.lua:1-2
-- The command table and the dispatcher (protocol 1.1). The build puts this file last.

--@ lua/api.lua:59-66
-- Dispatch. The build has checked KEYS already (no key: the default namespace, `ql:`; one
-- key: a namespace, whose prefix it is; see scripts/build_lua.py). The commands a worker
-- sends for every job come first, as plain calls of their functions: those are --@inline,
-- so the build copies them into this block and their common path runs as straight code
-- that creates no function. A call this block does not take (no `now`, another command)
-- goes on to the checks below, which are made in the protocol's order.
if #A >= 2 then
  local inl_1 repeat local v = A[2]
--@ lua/num.lua:6-9
    local n = tonumber(v)
    -- n - n is 0 for every finite number, and nan for nan and for +-inf.
    if n and n - n == 0 then do inl_1 = n break end end
    do inl_1 = nil break end
--@ lua/api.lua:66-71
  until true local now = inl_1
  local cmd, fast, result = A[1], true, nil
  if now == nil then
    fast = false
  elseif cmd == 'put' then
    local inl_2 repeat local now, requeue = now
--@ lua/job/put.lua:30-40
      local worker, queue, jid, klass, data, delay_s = A[3], A[4], A[5], A[6], A[7], A[8]
      if requeue then
        if jid == nil then error('Job(): no jid provided') end
        if rcall('EXISTS', P .. 'j:' .. jid) == 0 then
          error('Requeue(): Job ' .. jid .. ' does not exist')
        end
      end
      local n = #A
      if n == 8 then
        -- No options (the common put): nothing to parse, and no values to pass along.
        local inl_3 repeat local queue, jid, klass, data, delay_s = queue, jid, klass, data, delay_s
--@ lua/job/put.lua:53-62
          if queue == nil then error('Queue(): no queue name provided') end
          if jid == nil then error('Put(): Arg "jid" missing') end
          if klass == nil then error('Put(): Arg "klass" missing') end
          if data ~= '{}' and decode(data) == false then
            error('Put(): Arg "data" missing or not JSON: ' .. tostring(data))
          end
          -- A delay of '0' (the common put) needs no parsing: tonumber converts a text twice.
          local delay = 0
          if delay_s ~= '0' then
            local inl_4 repeat local v = delay_s
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_4 = n break end end
              do inl_4 = nil break end
--@ lua/job/put.lua:62-65
            until true delay = inl_4
            if delay == nil then error('Put(): Arg "delay" not a number: ' .. tostring(delay_s)) end
          end
          do inl_3 = delay break end
--@ lua/job/put.lua:40-42
        until true local delay = inl_3
        do local inl_5 repeat local now, worker, queue, jid, klass, data, delay, o_retries, o_tags, o_priority, depends, given, okey, ttl, unique, probe, batch = now, worker, queue, jid, klass, data, delay, nil, nil, nil, false,
          nil, nil, nil, false, nil, nil
--@ lua/job/put.lua:161-227
          -- One EXISTS tells whether the job exists (1) and whether any job is tracked (2): it
          -- counts a key once per mention. A new job then needs no HMGET, and an empty ql:tracked
          -- no ZSCORE.
          local jk = P .. 'j:' .. jid
          if not probe then
            probe = rcall('EXISTS', jk, P .. 'tracked', P .. 'tracked')
          end
          -- 1 jid, 2 state, 3 queue, 4 worker, 5 priority, 6 retries, 7 tags, 8 failure, 9 history,
          -- 10 throttles, 11 key, 12 ttl
          local f
          if probe % 2 == 1 then
            f = rcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'priority', 'retries', 'tags',
              'failure', 'history', 'throttles', 'key', 'ttl')
            if unique and f[2] ~= 'complete' then do inl_5 = false break end end
          else
            -- A new job has none of those fields. KEYS serves as the empty list, so nothing has
            -- to be made for it: it is empty, or holds the namespace prefix at [1] (the `jid`
            -- field, which is never read: the job's `state` says whether it exists).
            f = KEYS
          end
          local retries = o_retries
          if retries == nil then
            retries = f[6] and tonumber(f[6]) or 5
          end
          -- Tag and dependency lists stay false when there are none.
          local old_tags = f[7] and M.Job_tag_list(f[7])
          local tags = old_tags
          if o_tags ~= nil then tags = o_tags end
          local priority = o_priority
          if priority == nil then
            priority = f[5] and tonumber(f[5]) or 0
          end
          -- The throttle list to store: the named throttles, then the queue's own tid. The
          -- dialect's clients move a job by putting it into its new queue with its stored list, so
          -- the old queue's tid goes, as the dialect's put drops it: left in, the old queue's
          -- throttle would hold the job for ever. Only a job that exists in another queue pays.
          local stored = nil
          if given then
            if f[3] and f[3] ~= queue then
              stored = M.Throttle_moved(given, f[3], queue)
            else
              stored = M.Throttle_stored(given, queue)
            end
            if stored then stored = encode(stored) end
          end

          -- Writes begin here.
          local tagk = P .. 'tags'
          if f[7] then
            for _, t in ipairs(old_tags) do
              rcall('ZREM', P .. 't:' .. t, jid)
              rcall('ZINCRBY', tagk, -1, t)
            end
          end
          local depk = P .. 'j:' .. jid .. '-dependencies'
          if depends and #depends > 0 then
            local wanted = {}
            for _, d in ipairs(depends) do wanted[d] = true end
            for _, d in ipairs(rcall('SMEMBERS', depk)) do
              if not wanted[d] then
                rcall('SREM', depk, d)
                rcall('SREM', P .. 'j:' .. d .. '-dependents', jid)
              end
            end
          end
          local qjson = encode(queue)
          local inl_6 repeat local t = now
--@ lua/num.lua:14-14
           do inl_6 = format('%.20f', t) break end
--@ lua/job/put.lua:227-228
          until true local tstr = inl_6
          local inl_7 repeat local t, tstr = now, tstr
--@ lua/num.lua:21-22
            if tstr and t >= 0 and t < 1e14 then do inl_7 = tstr:sub(1, -22) break end end
            do inl_7 = tostring(floor(t)) break end
--@ lua/job/put.lua:228-232
          until true local whole = inl_7
          -- The history entry comes before the event: at the memory limit the server refuses a
          -- script's first write that needs memory, and a refused put must not have announced
          -- itself (docs/operations.md, "At the memory limit").
          repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"put"', '{"q":' .. qjson .. '}', f[9] or false, whole
--@ lua/job/history.lua:36-42
            if legacy == nil then legacy = rcall('HGET', P .. 'j:' .. jid, 'history') end
            if legacy then M.Job_migrate(jid, legacy) end
            -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
            -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
            local entry
            if not whole then
              local inl_8 repeat local t, tstr = when
--@ lua/num.lua:21-22
                if tstr and t >= 0 and t < 1e14 then do inl_8 = tstr:sub(1, -22) break end end
                do inl_8 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
              until true whole = inl_8
            end
            if extra == nil then
              entry = '[' .. whole .. ',' .. what_json .. ']'
            else
              if type(extra) ~= 'string' then extra = encode(extra) end
              entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
            end
            local hk = P .. 'j:' .. jid .. '-history'
            local len = rcall('RPUSH', hk, entry)
            -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
            if len < 3 then do break end end
            local inl_9 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
              if cfg == false then do inl_9 = fallback break end end
              local inl_10 repeat local name = name
--@ lua/config.lua:15-22
                if cfg == false then do inl_10 = false break end end
                if cfg == nil then cfg = {} end
                local v = cfg[name]
                if v == nil then
                  v = rcall('HGET', P .. 'config', name)
                  cfg[name] = v
                end
                do inl_10 = v break end
--@ lua/config.lua:30-31
              until true local raw = inl_10
              local inl_11 repeat local v = raw
--@ lua/num.lua:6-9
                local n = tonumber(v)
                -- n - n is 0 for every finite number, and nan for nan and for +-inf.
                if n and n - n == 0 then do inl_11 = n break end end
                do inl_11 = nil break end
--@ lua/config.lua:31-33
              until true local n = inl_11
              if n == nil then do inl_9 = fallback break end end
              do inl_9 = n break end
--@ lua/job/history.lua:54-67
            until true local cap = inl_9
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
--@ lua/job/put.lua:232-238
          until true
          -- The JSON text cjson writes for { jid, event, queue } (key order is not significant).
          rcall(PUB, P .. 'log',
            '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
          local old_queue, old_state, old_worker = f[3], f[2], f[4]
          if old_queue then
            repeat local queue, jid, exist = old_queue, jid
--@ lua/queue.lua:65-68
              local qk = P .. 'q:' .. queue
              rcall('ZREM', qk .. '-locks', jid)
              if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
              if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
--@ lua/job/put.lua:238-312
            until true
            rcall('ZREM', P .. 'q:' .. old_queue .. '-depends', jid)
            if old_state == 'throttled' then
              rcall('ZREM', P .. 'q:' .. old_queue .. '-throttled', jid)
            end
            if f[12] then rcall('ZREM', P .. 'q:' .. old_queue .. '-expiring', jid) end
          end
          if f[10] or f[11] or f[12] then
            -- The job gives back its throttles and its place in its ordering key; a put sets them
            -- afresh.
            M.Job_leave(now, jid, old_queue, f[10], f[11] or nil)
            rcall('HDEL', jk, 'throttles', 'key', 'ttl')
          end
          if old_worker and old_worker ~= '' then
            rcall('ZREM', P .. 'w:' .. old_worker .. ':jobs', jid)
            if old_worker ~= worker then
              local msg = encode({ jid = jid, event = 'lock_lost', worker = old_worker })
              rcall(PUB, P .. 'w:' .. old_worker, msg)
              rcall(PUB, P .. 'log', msg)
            end
          end
          if old_state == 'complete' then rcall('ZREM', P .. 'completed', jid) end
          if tags then
            for _, t in ipairs(tags) do
              rcall('ZADD', P .. 't:' .. t, now, jid)
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
                rcall('SADD', P .. 'j:' .. d .. '-dependents', jid)
              else
                M.Job_link(jid, d)
              end
            end
          end
          local has_deps = (f[2] or (depends and #depends > 0)) and rcall('SCARD', depk) > 0
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
          local flow = stored or okey or ttl
          if flow then
            stored = M.Job_store_flow(jid, queue, stored, okey, ttl)
            if okey then M.Order_join(queue, okey, jid) end
          end
          if has_deps then
            rcall('ZADD', P .. 'q:' .. queue .. '-depends', now, jid)
            if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
          elseif delay > 0 then
            rcall('ZADD', P .. 'q:' .. queue .. '-scheduled', now + delay, jid)
          elseif flow then
            M.Job_ready(now, queue, jid, priority, stored, okey, ttl, now, state)
          elseif batch then
            -- The work-set score of Job.enqueue (protocol 2.8).
            batch[#batch + 1] = priority - (now / 10000000000)
            batch[#batch + 1] = jid
          else
            repeat local queue, jid, priority, t = queue, jid, priority, now
--@ lua/job/state.lua:7-8
              local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
              rcall('ZADD', P .. 'q:' .. queue .. '-work', score, jid)
--@ lua/job/put.lua:312-315
            until true
          end
          if not batch then
            local inl_12 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
              if now >= 1 then do inl_12 = tstr break end end
              do inl_12 = now break end
--@ lua/job/put.lua:315-321
            until true local now_arg = inl_12
            rcall('ZADD', P .. 'queues', 'NX', now_arg, queue)
          end
          if probe >= 2 and rcall('ZSCORE', P .. 'tracked', jid) then
            rcall(PUB, P .. 'put', jid)
          end
          do inl_5 = jid break end
--@ lua/job/put.lua:42-44
        until true inl_2 = inl_5 break end
      end
      local inl_13, inl_14, inl_15, inl_16, inl_17, inl_18, inl_19, inl_20, inl_21 repeat local queue, jid, klass, data, delay_s, first, last = queue, jid, klass, data, delay_s, 9, n
--@ lua/job/put.lua:72-72
        local inl_22 repeat local queue, jid, klass, data, delay_s = queue, jid, klass, data, delay_s
--@ lua/job/put.lua:53-62
          if queue == nil then error('Queue(): no queue name provided') end
          if jid == nil then error('Put(): Arg "jid" missing') end
          if klass == nil then error('Put(): Arg "klass" missing') end
          if data ~= '{}' and decode(data) == false then
            error('Put(): Arg "data" missing or not JSON: ' .. tostring(data))
          end
          -- A delay of '0' (the common put) needs no parsing: tonumber converts a text twice.
          local delay = 0
          if delay_s ~= '0' then
            local inl_23 repeat local v = delay_s
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_23 = n break end end
              do inl_23 = nil break end
--@ lua/job/put.lua:62-65
            until true delay = inl_23
            if delay == nil then error('Put(): Arg "delay" not a number: ' .. tostring(delay_s)) end
          end
          do inl_22 = delay break end
--@ lua/job/put.lua:72-76
        until true local delay = inl_22
        if (last - first + 1) % 2 == 1 then error('Odd number of additional args') end
        -- No table at all when there are no options (the common case).
        if last < first then do inl_13, inl_14, inl_15, inl_16, inl_17, inl_18, inl_19, inl_20, inl_21 = delay, nil, nil, nil, false, nil, nil, nil, false break end end
        local inl_24 repeat local first, last = first, last
--@ lua/job/put.lua:6-8
          local opts = {}
          for i = first, last - 1, 2 do opts[A[i]] = A[i + 1] end
          do inl_24 = opts break end
--@ lua/job/put.lua:76-77
        until true local opts = inl_24
        local inl_25, inl_26, inl_27, inl_28, inl_29, inl_30, inl_31, inl_32 repeat local opts = opts
--@ lua/job/put.lua:85-87
          local retries, tags, priority, depends = nil, nil, nil, false
          if opts.retries ~= nil then
            local inl_33 repeat local v = opts.retries
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_33 = n break end end
              do inl_33 = nil break end
--@ lua/job/put.lua:87-95
            until true retries = inl_33
            if retries == nil then error('Put(): Arg "retries" not a number: ' .. opts.retries) end
          end
          if opts.tags ~= nil then
            tags = M.Json_strings(decode(opts.tags))
            if tags == nil then error('Put(): Arg "tags" not JSON' .. opts.tags) end
          end
          if opts.priority ~= nil then
            local inl_34 repeat local v = opts.priority
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_34 = n break end end
              do inl_34 = nil break end
--@ lua/job/put.lua:95-113
            until true priority = inl_34
            if priority == nil then error('Put(): Arg "priority" not a number' .. opts.priority) end
          end
          if opts.depends ~= nil then
            depends = M.Json_strings(decode(opts.depends))
            if depends == nil then error('Put(): Arg "depends" not JSON: ' .. opts.depends) end
          end
          local throttles, okey, ttl, unique = nil, nil, nil, false
          if opts.throttles ~= nil or opts.key ~= nil or opts.ttl ~= nil then
            throttles, okey, ttl, unique = M.Job_flow_options(opts, 'Put()')
          end
          if opts.unique ~= nil then
            if opts.unique == '1' then
              unique = true
            elseif opts.unique ~= '0' then
              error('Put(): Arg "unique" must be 0 or 1: ' .. opts.unique)
            end
          end
          do inl_25, inl_26, inl_27, inl_28, inl_29, inl_30, inl_31, inl_32 = retries, tags, priority, depends, throttles, okey, ttl, unique break end
--@ lua/job/put.lua:77-78
        until true local retries, tags, priority, depends, throttles, okey, ttl, unique = inl_25, inl_26, inl_27, inl_28, inl_29, inl_30, inl_31, inl_32
        do inl_13, inl_14, inl_15, inl_16, inl_17, inl_18, inl_19, inl_20, inl_21 = delay, retries, tags, priority, depends, throttles, okey, ttl, unique break end
--@ lua/job/put.lua:45-47
      until true local delay, retries, tags, priority, depends, throttles, okey, ttl, unique = inl_13, inl_14, inl_15, inl_16, inl_17, inl_18, inl_19, inl_20, inl_21
      do local inl_35 repeat local now, worker, queue, jid, klass, data, delay, o_retries, o_tags, o_priority, depends, given, okey, ttl, unique, probe, batch = now, worker, queue, jid, klass, data, delay, retries, tags, priority,
        depends, throttles, okey, ttl, unique, nil, nil
--@ lua/job/put.lua:161-227
        -- One EXISTS tells whether the job exists (1) and whether any job is tracked (2): it
        -- counts a key once per mention. A new job then needs no HMGET, and an empty ql:tracked
        -- no ZSCORE.
        local jk = P .. 'j:' .. jid
        if not probe then
          probe = rcall('EXISTS', jk, P .. 'tracked', P .. 'tracked')
        end
        -- 1 jid, 2 state, 3 queue, 4 worker, 5 priority, 6 retries, 7 tags, 8 failure, 9 history,
        -- 10 throttles, 11 key, 12 ttl
        local f
        if probe % 2 == 1 then
          f = rcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'priority', 'retries', 'tags',
            'failure', 'history', 'throttles', 'key', 'ttl')
          if unique and f[2] ~= 'complete' then do inl_35 = false break end end
        else
          -- A new job has none of those fields. KEYS serves as the empty list, so nothing has
          -- to be made for it: it is empty, or holds the namespace prefix at [1] (the `jid`
          -- field, which is never read: the job's `state` says whether it exists).
          f = KEYS
        end
        local retries = o_retries
        if retries == nil then
          retries = f[6] and tonumber(f[6]) or 5
        end
        -- Tag and dependency lists stay false when there are none.
        local old_tags = f[7] and M.Job_tag_list(f[7])
        local tags = old_tags
        if o_tags ~= nil then tags = o_tags end
        local priority = o_priority
        if priority == nil then
          priority = f[5] and tonumber(f[5]) or 0
        end
        -- The throttle list to store: the named throttles, then the queue's own tid. The
        -- dialect's clients move a job by putting it into its new queue with its stored list, so
        -- the old queue's tid goes, as the dialect's put drops it: left in, the old queue's
        -- throttle would hold the job for ever. Only a job that exists in another queue pays.
        local stored = nil
        if given then
          if f[3] and f[3] ~= queue then
            stored = M.Throttle_moved(given, f[3], queue)
          else
            stored = M.Throttle_stored(given, queue)
          end
          if stored then stored = encode(stored) end
        end

        -- Writes begin here.
        local tagk = P .. 'tags'
        if f[7] then
          for _, t in ipairs(old_tags) do
            rcall('ZREM', P .. 't:' .. t, jid)
            rcall('ZINCRBY', tagk, -1, t)
          end
        end
        local depk = P .. 'j:' .. jid .. '-dependencies'
        if depends and #depends > 0 then
          local wanted = {}
          for _, d in ipairs(depends) do wanted[d] = true end
          for _, d in ipairs(rcall('SMEMBERS', depk)) do
            if not wanted[d] then
              rcall('SREM', depk, d)
              rcall('SREM', P .. 'j:' .. d .. '-dependents', jid)
            end
          end
        end
        local qjson = encode(queue)
        local inl_36 repeat local t = now
--@ lua/num.lua:14-14
         do inl_36 = format('%.20f', t) break end
--@ lua/job/put.lua:227-228
        until true local tstr = inl_36
        local inl_37 repeat local t, tstr = now, tstr
--@ lua/num.lua:21-22
          if tstr and t >= 0 and t < 1e14 then do inl_37 = tstr:sub(1, -22) break end end
          do inl_37 = tostring(floor(t)) break end
--@ lua/job/put.lua:228-232
        until true local whole = inl_37
        -- The history entry comes before the event: at the memory limit the server refuses a
        -- script's first write that needs memory, and a refused put must not have announced
        -- itself (docs/operations.md, "At the memory limit").
        repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"put"', '{"q":' .. qjson .. '}', f[9] or false, whole
--@ lua/job/history.lua:36-42
          if legacy == nil then legacy = rcall('HGET', P .. 'j:' .. jid, 'history') end
          if legacy then M.Job_migrate(jid, legacy) end
          -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
          -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
          local entry
          if not whole then
            local inl_38 repeat local t, tstr = when
--@ lua/num.lua:21-22
              if tstr and t >= 0 and t < 1e14 then do inl_38 = tstr:sub(1, -22) break end end
              do inl_38 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
            until true whole = inl_38
          end
          if extra == nil then
            entry = '[' .. whole .. ',' .. what_json .. ']'
          else
            if type(extra) ~= 'string' then extra = encode(extra) end
            entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
          end
          local hk = P .. 'j:' .. jid .. '-history'
          local len = rcall('RPUSH', hk, entry)
          -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
          if len < 3 then do break end end
          local inl_39 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
            if cfg == false then do inl_39 = fallback break end end
            local inl_40 repeat local name = name
--@ lua/config.lua:15-22
              if cfg == false then do inl_40 = false break end end
              if cfg == nil then cfg = {} end
              local v = cfg[name]
              if v == nil then
                v = rcall('HGET', P .. 'config', name)
                cfg[name] = v
              end
              do inl_40 = v break end
--@ lua/config.lua:30-31
            until true local raw = inl_40
            local inl_41 repeat local v = raw
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_41 = n break end end
              do inl_41 = nil break end
--@ lua/config.lua:31-33
            until true local n = inl_41
            if n == nil then do inl_39 = fallback break end end
            do inl_39 = n break end
--@ lua/job/history.lua:54-67
          until true local cap = inl_39
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
--@ lua/job/put.lua:232-238
        until true
        -- The JSON text cjson writes for { jid, event, queue } (key order is not significant).
        rcall(PUB, P .. 'log',
          '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
        local old_queue, old_state, old_worker = f[3], f[2], f[4]
        if old_queue then
          repeat local queue, jid, exist = old_queue, jid
--@ lua/queue.lua:65-68
            local qk = P .. 'q:' .. queue
            rcall('ZREM', qk .. '-locks', jid)
            if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
            if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
--@ lua/job/put.lua:238-312
          until true
          rcall('ZREM', P .. 'q:' .. old_queue .. '-depends', jid)
          if old_state == 'throttled' then
            rcall('ZREM', P .. 'q:' .. old_queue .. '-throttled', jid)
          end
          if f[12] then rcall('ZREM', P .. 'q:' .. old_queue .. '-expiring', jid) end
        end
        if f[10] or f[11] or f[12] then
          -- The job gives back its throttles and its place in its ordering key; a put sets them
          -- afresh.
          M.Job_leave(now, jid, old_queue, f[10], f[11] or nil)
          rcall('HDEL', jk, 'throttles', 'key', 'ttl')
        end
        if old_worker and old_worker ~= '' then
          rcall('ZREM', P .. 'w:' .. old_worker .. ':jobs', jid)
          if old_worker ~= worker then
            local msg = encode({ jid = jid, event = 'lock_lost', worker = old_worker })
            rcall(PUB, P .. 'w:' .. old_worker, msg)
            rcall(PUB, P .. 'log', msg)
          end
        end
        if old_state == 'complete' then rcall('ZREM', P .. 'completed', jid) end
        if tags then
          for _, t in ipairs(tags) do
            rcall('ZADD', P .. 't:' .. t, now, jid)
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
              rcall('SADD', P .. 'j:' .. d .. '-dependents', jid)
            else
              M.Job_link(jid, d)
            end
          end
        end
        local has_deps = (f[2] or (depends and #depends > 0)) and rcall('SCARD', depk) > 0
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
        local flow = stored or okey or ttl
        if flow then
          stored = M.Job_store_flow(jid, queue, stored, okey, ttl)
          if okey then M.Order_join(queue, okey, jid) end
        end
        if has_deps then
          rcall('ZADD', P .. 'q:' .. queue .. '-depends', now, jid)
          if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
        elseif delay > 0 then
          rcall('ZADD', P .. 'q:' .. queue .. '-scheduled', now + delay, jid)
        elseif flow then
          M.Job_ready(now, queue, jid, priority, stored, okey, ttl, now, state)
        elseif batch then
          -- The work-set score of Job.enqueue (protocol 2.8).
          batch[#batch + 1] = priority - (now / 10000000000)
          batch[#batch + 1] = jid
        else
          repeat local queue, jid, priority, t = queue, jid, priority, now
--@ lua/job/state.lua:7-8
            local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
            rcall('ZADD', P .. 'q:' .. queue .. '-work', score, jid)
--@ lua/job/put.lua:312-315
          until true
        end
        if not batch then
          local inl_42 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
            if now >= 1 then do inl_42 = tstr break end end
            do inl_42 = now break end
--@ lua/job/put.lua:315-321
          until true local now_arg = inl_42
          rcall('ZADD', P .. 'queues', 'NX', now_arg, queue)
        end
        if probe >= 2 and rcall('ZSCORE', P .. 'tracked', jid) then
          rcall(PUB, P .. 'put', jid)
        end
        do inl_35 = jid break end
--@ lua/job/put.lua:47-47
      until true inl_2 = inl_35 break end
--@ lua/api.lua:71-73
    until true result = inl_2
  elseif cmd == 'pop' then
    local inl_43 repeat local now = now
--@ lua/pop.lua:31-37
      local queue, worker, count_s = A[3], A[4], A[5]
      if queue == nil then error('Queue(): no queue name provided') end
      if worker == nil then error('Pop(): Arg "worker" missing') end
      -- A count of '1' (the common pop) needs no parsing: tonumber converts a text twice.
      local count = 1
      if count_s ~= '1' then
        local inl_44 repeat local v = count_s
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_44 = n break end end
          do inl_44 = nil break end
--@ lua/pop.lua:37-54
        until true count = inl_44
        if count == nil then
          error('Pop(): Arg "count" missing or not a number: ' .. tostring(count_s))
        end
        count = floor(count)
      end
      -- One EXISTS answers the common case (no config, no paused queue, no templates, no
      -- delayed jobs in this queue, nothing tracked, no queue throttle) and saves the reads it
      -- would otherwise take.
      local qk = P .. 'q:' .. queue
      local rk, sk = qk .. '-recur', qk .. '-scheduled'
      local special = rcall('EXISTS', P .. 'config', P .. 'paused_queues', rk, sk, P .. 'tracked',
        P .. 'th:' .. qk) > 0
      local expires, maxc = now + 60, 0
      if special then
        local c = rcall('HMGET', P .. 'config', queue .. '-heartbeat', 'heartbeat',
          queue .. '-max-concurrency')
        local inl_45 repeat local v = c[1]
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_45 = n break end end
          do inl_45 = nil break end
--@ lua/pop.lua:54-56
        until true local lock = inl_45
        if lock == nil then
          local inl_46 repeat local v = c[2]
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_46 = n break end end
            do inl_46 = nil break end
--@ lua/pop.lua:56-60
          until true lock = inl_46
        end
        expires = now + (lock or 60)
        if rcall('SISMEMBER', P .. 'paused_queues', queue) == 1 then do inl_43 = '{}' break end end
        local inl_47 repeat local v = c[3]
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_47 = n break end end
          do inl_47 = nil break end
--@ lua/pop.lua:60-66
        until true maxc = inl_47
        if maxc == nil then maxc = 0 end
      else
        cfg = false
      end
      -- `now` goes to Redis as its Num.time_text (see Num.score_arg), made once for every use.
      local inl_48 repeat local t = now
--@ lua/num.lua:14-14
       do inl_48 = format('%.20f', t) break end
--@ lua/pop.lua:66-67
      until true local tstr = inl_48
      local inl_49 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
        if now >= 1 then do inl_49 = tstr break end end
        do inl_49 = now break end
--@ lua/pop.lua:67-98
      until true local now_arg = inl_49
      rcall('ZADD', P .. 'workers', now_arg, worker)
      local lk = qk .. '-locks'
      if maxc > 0 then
        local allowed = floor(maxc - rcall('ZCOUNT', lk, now, '+inf'))
        if count > allowed then count = allowed end
      end
      if count <= 0 then do inl_43 = '{}' break end end
      -- The range queries are made here so that the helpers run only when there is work.
      -- A count of 1 (the common pop) goes as text: Redis would format the number first.
      -- `jids` is the expired locks, then every jid to hand out (the reply is a list of our
      -- own, so none has to be made).
      local jids = rcall('ZRANGEBYSCORE', lk, '-inf', now_arg, 'LIMIT', '0',
        count == 1 and '1' or count)
      if #jids > 0 then jids = M.Queue_reclaim(now, queue, jids) end
      local reclaimed = #jids
      local want = count - reclaimed
      if special and want > 0 then
        local room = M.Queue_throttle_room(queue, lk)
        if room and room < want then want = room end
      end
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
--@ lua/pop.lua:11-14
          if want <= 0 then do break end end
          local top = rcall('ZREVRANGE', P .. 'q:' .. queue .. '-work', '0',
            want == 1 and '0' or want - 1)
          for i = 1, #top do jids[#jids + 1] = top[i] end
--@ lua/pop.lua:98-113
        until true
      end
      if #jids == 0 then
        M.Queue_revisit(now, queue)
        do inl_43 = '{}' break end
      end
      -- The lock expiry as Redis would format the number itself (%.17g, exact), made once:
      -- each job's hash and both lock sets get this text instead of formatting it again.
      local expires_s = format('%.17g', expires)
      -- Every handed-out jid leaves the work set (step 10): the ones just taken, and any
      -- reclaimed job, which is normally not in the work set but can be (see Queue.unlist).
      local wk = qk .. '-work'
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
--@ lua/pop.lua:113-120
        until true
      end
      local wjk = P .. 'w:' .. worker .. ':jobs'
      -- The history entry every job gets, as stored and as rendered (the rendering Job.render
      -- would make of the stored text), so that no job's render parses it back.
      local wjson = encode(worker)
      local wentry = '{"worker":' .. wjson .. '}'
      local inl_50 repeat local t, tstr = now, tstr
--@ lua/num.lua:21-22
        if tstr and t >= 0 and t < 1e14 then do inl_50 = tstr:sub(1, -22) break end end
        do inl_50 = tostring(floor(t)) break end
--@ lua/pop.lua:120-128
      until true local whole = inl_50
      local last = '{"when":' .. whole .. ',"what":"popped","worker":' .. wjson .. '}'
      -- Why jobs were not handed out: 1 = one was throttled, 2 = only expired ones.
      local total, popped, skipped = #jids, nil, nil
      if total == 1 then
        -- One job (the common case): its writes in place, without the batch lists below.
        local jid = jids[1]
        local inl_51, inl_52 repeat local now, jid, worker, expires, expires_s, tstr, whole, wentry, special, queue, reclaimed = now, jid, worker, expires, expires_s, tstr, whole, wentry,
          special, queue, reclaimed == 1
--@ lua/pop.lua:193-209
          -- Job.fetch's layout, without reading the three fields pop overwrites (state, worker,
          -- expires): every field read costs a scan of the job hash and a reply string. A job
          -- that uses an extension has a `throttles` field (Job.store_flow); only then are its key
          -- and ttl read.
          local g = rcall('HMGET', P .. 'j:' .. jid, 'jid', 'klass', 'queue', 'priority', 'retries',
            'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time',
            'throttles')
          if not g[1] then do inl_51, inl_52 = nil, false break end end
          local okey, ttl = nil, nil
          if g[13] then
            local why
            why, okey, ttl = M.Queue_flow_out(now, jid, queue, g[13], reclaimed)
            if why then do inl_51, inl_52 = nil, why break end end
          end
          local f = { g[1], g[2], 'running', g[3], worker, g[4], expires, g[5], g[6], g[7], g[8],
            g[9], g[10], false, g[12], g[13], okey, ttl }
          repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"popped"', wentry, g[11] or false, whole
--@ lua/job/history.lua:36-42
            if legacy == nil then legacy = rcall('HGET', P .. 'j:' .. jid, 'history') end
            if legacy then M.Job_migrate(jid, legacy) end
            -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
            -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
            local entry
            if not whole then
              local inl_53 repeat local t, tstr = when
--@ lua/num.lua:21-22
                if tstr and t >= 0 and t < 1e14 then do inl_53 = tstr:sub(1, -22) break end end
                do inl_53 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
              until true whole = inl_53
            end
            if extra == nil then
              entry = '[' .. whole .. ',' .. what_json .. ']'
            else
              if type(extra) ~= 'string' then extra = encode(extra) end
              entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
            end
            local hk = P .. 'j:' .. jid .. '-history'
            local len = rcall('RPUSH', hk, entry)
            -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
            if len < 3 then do break end end
            local inl_54 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
              if cfg == false then do inl_54 = fallback break end end
              local inl_55 repeat local name = name
--@ lua/config.lua:15-22
                if cfg == false then do inl_55 = false break end end
                if cfg == nil then cfg = {} end
                local v = cfg[name]
                if v == nil then
                  v = rcall('HGET', P .. 'config', name)
                  cfg[name] = v
                end
                do inl_55 = v break end
--@ lua/config.lua:30-31
              until true local raw = inl_55
              local inl_56 repeat local v = raw
--@ lua/num.lua:6-9
                local n = tonumber(v)
                -- n - n is 0 for every finite number, and nan for nan and for +-inf.
                if n and n - n == 0 then do inl_56 = n break end end
                do inl_56 = nil break end
--@ lua/config.lua:31-33
              until true local n = inl_56
              if n == nil then do inl_54 = fallback break end end
              do inl_54 = n break end
--@ lua/job/history.lua:54-67
            until true local cap = inl_54
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
--@ lua/pop.lua:209-214
          until true
          rcall('HSET', P .. 'j:' .. jid, 'time', tstr, 'worker', worker, 'expires', expires_s,
            'state', 'running')
          local tracked = special and rcall('ZSCORE', P .. 'tracked', jid) ~= false
          if tracked then rcall(PUB, P .. 'popped', jid) end
          do inl_51, inl_52 = f, tracked break end
--@ lua/pop.lua:128-131
        until true local f, tracked = inl_51, inl_52
        if f then
          local put_t = tonumber(f[15]) or now
          repeat local now, kind, queue, v = now, 'wait', queue, now - put_t
--@ lua/stats.lua:110-110
            local inl_57 repeat local t = now
--@ lua/stats.lua:22-22
             do inl_57 = t - (t % 86400) break end
--@ lua/stats.lua:110-111
            until true local day = inl_57
            local inl_58 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
              if day >= 1 and day < 1e14 then
                do inl_58 = P .. 's:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
              end
              do inl_58 = P .. 's:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:111-112
            until true local k = inl_58
            local inl_59, inl_60 repeat local v = v
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
                if f >= 10 then do inl_59, inl_60 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
                if f >= 1 then do inl_59, inl_60 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
                -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
                if f == 0 and 1 / f > 0 then do inl_59, inl_60 = 's0', fine break end end
                do inl_59, inl_60 = 's' .. f, fine break end
              end
              if f < 3600 then
                local m = floor(f / 60)
                if m >= 10 then do inl_59, inl_60 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
                do inl_59, inl_60 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
              end
              if f < 86400 then
                local h = floor(f / 3600)
                if h >= 10 then do inl_59, inl_60 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
                do inl_59, inl_60 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
              end
              do inl_59, inl_60 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:112-114
            until true local bin, fine = inl_59, inl_60
            local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
            local inl_61, inl_62, inl_63 repeat local total, mean, vk, v = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v
--@ lua/stats.lua:91-96
              if total == nil then do inl_61, inl_62, inl_63 = 1, v, 0 break end end
              mean, vk = mean or 0, vk or 0
              total = total + 1
              local old = mean
              mean = old + (v - old) / total
              do inl_61, inl_62, inl_63 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:114-124
            until true local total, mean, vk = inl_61, inl_62, inl_63
            rcall('HSET', k, 'total', total, 'mean', mean, 'vk', vk, bin, (tonumber(cur[4]) or 0) + 1)
            if total == 1 then M.Stats_expire(k, now, day) end
            local fk = P .. 'fine:' .. k
            local n = redis.pcall('HINCRBY', fk, fine, '1')
            if n == 1 then
              local ttl = rcall('TTL', k)
              if ttl > 0 then rcall('EXPIRE', fk, ttl) end
            elseif type(n) == 'table' then
              redis.pcall('HSET', fk, fine, '1')
            end
--@ lua/pop.lua:131-139
          until true
          rcall('ZADD', wjk, expires_s, jid)
          rcall('ZADD', lk, expires_s, jid)
          -- The entry the job's put wrote, predicted from its time and queue, and its
          -- rendering: an entry that is exactly this text is rendered without being parsed.
          local seen, shown
          local q = encode(f[4])
          if put_t >= 1 and put_t < 1e14 then
            local inl_64 repeat local t, tstr = put_t, f[15]
--@ lua/num.lua:21-22
              if tstr and t >= 0 and t < 1e14 then do inl_64 = tstr:sub(1, -22) break end end
              do inl_64 = tostring(floor(t)) break end
--@ lua/pop.lua:139-143
            until true local w = inl_64
            seen = '[' .. w .. ',"put",{"q":' .. q .. '}]'
            shown = '{"when":' .. w .. ',"what":"put","q":' .. q .. '}'
          end
          do local inl_65 repeat local jid, f, tracked, wrap, last, seen, shown, wjson, qjson = jid, f, tracked, true, last, seen, shown, wjson, q
--@ lua/job/render.lua:58-100
            if not f then f = M.Job_fetch(jid) end
            if not f[1] then do inl_65 = nil break end end
            if f[14] then
              M.Job_migrate(jid, f[14])
              f[14] = false
            end
            if tracked == nil then tracked = rcall('ZSCORE', P .. 'tracked', jid) ~= false end
            local hist = rcall('LRANGE', P .. 'j:' .. jid .. '-history', '0', last and '-2' or '-1')
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
            local jk = P .. 'j:' .. jid
            local dtk, dck = jk .. '-dependents', jk .. '-dependencies'
            local sets = rcall('EXISTS', dtk, dck, dck)
            local dependents = sets % 2 == 1 and rcall('SMEMBERS', dtk) or {}
            local dependencies = sets >= 2 and M.Job_encoded_members(rcall('SMEMBERS', dck)) or '{}'
            -- Numbers absent from the hash are left out, as cjson leaves out nil values.
            local inl_66 repeat local v, whole = f[6]
--@ lua/json.lua:16-23
              if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                  or v == '7' or v == '8' or v == '9' then
                do inl_66 = v break end
              end
              local n = tonumber(v)
              if n == nil then do inl_66 = nil break end end
              if whole then n = floor(n) end
              do inl_66 = encode(n) break end
--@ lua/job/render.lua:100-101
            until true local priority = inl_66
            local inl_67 repeat local v, whole = f[8]
--@ lua/json.lua:16-23
              if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                  or v == '7' or v == '8' or v == '9' then
                do inl_67 = v break end
              end
              local n = tonumber(v)
              if n == nil then do inl_67 = nil break end end
              if whole then n = floor(n) end
              do inl_67 = encode(n) break end
--@ lua/job/render.lua:101-102
            until true local retries = inl_67
            local inl_68 repeat local v, whole = f[9], true
--@ lua/json.lua:16-23
              if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                  or v == '7' or v == '8' or v == '9' then
                do inl_68 = v break end
              end
              local n = tonumber(v)
              if n == nil then do inl_68 = nil break end end
              if whole then n = floor(n) end
              do inl_68 = encode(n) break end
--@ lua/job/render.lua:102-105
            until true local remaining = inl_68
            -- Every part as a statement of its own, so that the build can inline the helpers into
            -- pop's common path; then one concatenation expression builds the result in one step.
            local inl_69 repeat local v = f[2]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_69 = 'false' break end end
              do inl_69 = encode(v) break end
--@ lua/job/render.lua:105-108
            until true local klass = inl_69
            local state = '"running"'
            if f[3] ~= 'running' then
              local inl_70 repeat local v = f[3]
--@ lua/json.lua:7-8
                if v == false or v == nil then do inl_70 = 'false' break end end
                do inl_70 = encode(v) break end
--@ lua/job/render.lua:108-112
              until true state = inl_70
            end
            local queue = qjson
            if not queue then
              local inl_71 repeat local v = f[4]
--@ lua/json.lua:7-8
                if v == false or v == nil then do inl_71 = 'false' break end end
                do inl_71 = encode(v) break end
--@ lua/job/render.lua:112-114
              until true queue = inl_71
            end
            local inl_72 repeat local v = f[10]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_72 = 'false' break end end
              do inl_72 = encode(v) break end
--@ lua/job/render.lua:114-115
            until true local data = inl_72
            local inl_73 repeat local v = f[13]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_73 = 'false' break end end
              do inl_73 = encode(v) break end
--@ lua/job/render.lua:115-123
            until true local spawned = inl_73
            -- The history's brackets go into the one concatenation below (cjson writes {} for none).
            local history, hopen, hclose = '{}', '', ''
            if #hist > 0 then
              history, hopen, hclose = concat(hist, ','), '[', ']'
            end
            local tags, failure = f[11], f[12]
            if tags ~= '{}' then
              local inl_74 repeat local text = tags
--@ lua/job/render.lua:36-39
                if not text or text == '{}' or text == '[]' then do inl_74 = '{}' break end end
                local ok, v = pcall(decode, text)
                if not ok or type(v) ~= 'table' then do inl_74 = '{}' break end end
                do inl_74 = encode(v) break end
--@ lua/job/render.lua:123-126
              until true tags = inl_74
            end
            if failure ~= '{}' then
              local inl_75 repeat local text = failure
--@ lua/job/render.lua:36-39
                if not text or text == '{}' or text == '[]' then do inl_75 = '{}' break end end
                local ok, v = pcall(decode, text)
                if not ok or type(v) ~= 'table' then do inl_75 = '{}' break end end
                do inl_75 = encode(v) break end
--@ lua/job/render.lua:126-144
              until true failure = inl_75
            end
            -- The extensions' fields, only on jobs that use them (docs/compatibility.md).
            local flow = ''
            if f[16] or f[17] or f[18] then
              flow = M.Job_flow_fields(f)
            end
            do inl_65 = (wrap and '[{"jid":' or '{"jid":') .. encode(f[1]) .. ',"klass":' .. klass ..
              ',"state":' .. state .. ',"queue":' .. queue ..
              ',"worker":' .. (wjson or encode(f[5] or '')) .. ',"tracked":' .. (tracked and 'true' or 'false') ..
              ',"expires":' .. encode(tonumber(f[7]) or 0) .. ',"data":' .. data ..
              ',"tags":' .. tags .. ',"failure":' .. failure ..
              ',"spawned_from_jid":' .. spawned .. ',"history":' .. hopen .. history .. hclose ..
              ',"dependents":' .. (#dependents == 0 and '{}' or M.Job_encoded_members(dependents)) ..
              ',"dependencies":' .. dependencies ..
              (priority and ',"priority":' or '') .. (priority or '') ..
              (retries and ',"retries":' or '') .. (retries or '') ..
              (remaining and ',"remaining":' or '') .. (remaining or '') .. flow ..
              (wrap and '}]' or '}') break end
--@ lua/pop.lua:143-151
          until true inl_43 = inl_65 break end
        end
        if tracked then skipped = tracked end
        popped = {}
      else
        popped = {}
        for i, jid in ipairs(jids) do
          local inl_76, inl_77 repeat local now, jid, worker, expires, expires_s, tstr, whole, wentry, special, queue, reclaimed = now, jid, worker, expires, expires_s, tstr, whole,
            wentry, special, queue, i <= reclaimed
--@ lua/pop.lua:193-209
            -- Job.fetch's layout, without reading the three fields pop overwrites (state, worker,
            -- expires): every field read costs a scan of the job hash and a reply string. A job
            -- that uses an extension has a `throttles` field (Job.store_flow); only then are its key
            -- and ttl read.
            local g = rcall('HMGET', P .. 'j:' .. jid, 'jid', 'klass', 'queue', 'priority', 'retries',
              'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time',
              'throttles')
            if not g[1] then do inl_76, inl_77 = nil, false break end end
            local okey, ttl = nil, nil
            if g[13] then
              local why
              why, okey, ttl = M.Queue_flow_out(now, jid, queue, g[13], reclaimed)
              if why then do inl_76, inl_77 = nil, why break end end
            end
            local f = { g[1], g[2], 'running', g[3], worker, g[4], expires, g[5], g[6], g[7], g[8],
              g[9], g[10], false, g[12], g[13], okey, ttl }
            repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"popped"', wentry, g[11] or false, whole
--@ lua/job/history.lua:36-42
              if legacy == nil then legacy = rcall('HGET', P .. 'j:' .. jid, 'history') end
              if legacy then M.Job_migrate(jid, legacy) end
              -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
              -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
              local entry
              if not whole then
                local inl_78 repeat local t, tstr = when
--@ lua/num.lua:21-22
                  if tstr and t >= 0 and t < 1e14 then do inl_78 = tstr:sub(1, -22) break end end
                  do inl_78 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
                until true whole = inl_78
              end
              if extra == nil then
                entry = '[' .. whole .. ',' .. what_json .. ']'
              else
                if type(extra) ~= 'string' then extra = encode(extra) end
                entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
              end
              local hk = P .. 'j:' .. jid .. '-history'
              local len = rcall('RPUSH', hk, entry)
              -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
              if len < 3 then do break end end
              local inl_79 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
                if cfg == false then do inl_79 = fallback break end end
                local inl_80 repeat local name = name
--@ lua/config.lua:15-22
                  if cfg == false then do inl_80 = false break end end
                  if cfg == nil then cfg = {} end
                  local v = cfg[name]
                  if v == nil then
                    v = rcall('HGET', P .. 'config', name)
                    cfg[name] = v
                  end
                  do inl_80 = v break end
--@ lua/config.lua:30-31
                until true local raw = inl_80
                local inl_81 repeat local v = raw
--@ lua/num.lua:6-9
                  local n = tonumber(v)
                  -- n - n is 0 for every finite number, and nan for nan and for +-inf.
                  if n and n - n == 0 then do inl_81 = n break end end
                  do inl_81 = nil break end
--@ lua/config.lua:31-33
                until true local n = inl_81
                if n == nil then do inl_79 = fallback break end end
                do inl_79 = n break end
--@ lua/job/history.lua:54-67
              until true local cap = inl_79
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
--@ lua/pop.lua:209-214
            until true
            rcall('HSET', P .. 'j:' .. jid, 'time', tstr, 'worker', worker, 'expires', expires_s,
              'state', 'running')
            local tracked = special and rcall('ZSCORE', P .. 'tracked', jid) ~= false
            if tracked then rcall(PUB, P .. 'popped', jid) end
            do inl_76, inl_77 = f, tracked break end
--@ lua/pop.lua:151-173
          until true local f, tracked = inl_76, inl_77
          if f then
            popped[#popped + 1] = { jid, f, tracked }
          elseif tracked and (not skipped or tracked < skipped) then
            skipped = tracked
          end
        end
      end
      if skipped and #popped < total then
        M.Queue_pop_again(now, queue, worker, total, popped, expires, expires_s, tstr, whole, wentry,
          special, skipped)
      end
      if #popped < count then M.Queue_revisit(now, queue) end
      if #popped == 0 then do inl_43 = '{}' break end end
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
            local inl_82 repeat local t = now
--@ lua/stats.lua:22-22
             do inl_82 = t - (t % 86400) break end
--@ lua/stats.lua:110-111
            until true local day = inl_82
            local inl_83 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
              if day >= 1 and day < 1e14 then
                do inl_83 = P .. 's:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
              end
              do inl_83 = P .. 's:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:111-112
            until true local k = inl_83
            local inl_84, inl_85 repeat local v = v
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
                if f >= 10 then do inl_84, inl_85 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
                if f >= 1 then do inl_84, inl_85 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
                -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
                if f == 0 and 1 / f > 0 then do inl_84, inl_85 = 's0', fine break end end
                do inl_84, inl_85 = 's' .. f, fine break end
              end
              if f < 3600 then
                local m = floor(f / 60)
                if m >= 10 then do inl_84, inl_85 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
                do inl_84, inl_85 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
              end
              if f < 86400 then
                local h = floor(f / 3600)
                if h >= 10 then do inl_84, inl_85 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
                do inl_84, inl_85 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
              end
              do inl_84, inl_85 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:112-114
            until true local bin, fine = inl_84, inl_85
            local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
            local inl_86, inl_87, inl_88 repeat local total, mean, vk, v = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v
--@ lua/stats.lua:91-96
              if total == nil then do inl_86, inl_87, inl_88 = 1, v, 0 break end end
              mean, vk = mean or 0, vk or 0
              total = total + 1
              local old = mean
              mean = old + (v - old) / total
              do inl_86, inl_87, inl_88 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:114-124
            until true local total, mean, vk = inl_86, inl_87, inl_88
            rcall('HSET', k, 'total', total, 'mean', mean, 'vk', vk, bin, (tonumber(cur[4]) or 0) + 1)
            if total == 1 then M.Stats_expire(k, now, day) end
            local fk = P .. 'fine:' .. k
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
        local inl_89 repeat local t = now
--@ lua/stats.lua:22-22
         do inl_89 = t - (t % 86400) break end
--@ lua/stats.lua:138-139
        until true local day = inl_89
        local inl_90 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
          if day >= 1 and day < 1e14 then
            do inl_90 = P .. 's:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
          end
          do inl_90 = P .. 's:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:139-142
        until true local k = inl_90
        local fields, slot, bins, fines = { 'total', 'mean', 'vk' }, {}, {}, {}
        for i, v in ipairs(vs) do
          local inl_91, inl_92 repeat local v = v
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
              if f >= 10 then do inl_91, inl_92 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
              if f >= 1 then do inl_91, inl_92 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
              -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
              if f == 0 and 1 / f > 0 then do inl_91, inl_92 = 's0', fine break end end
              do inl_91, inl_92 = 's' .. f, fine break end
            end
            if f < 3600 then
              local m = floor(f / 60)
              if m >= 10 then do inl_91, inl_92 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
              do inl_91, inl_92 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
            end
            if f < 86400 then
              local h = floor(f / 3600)
              if h >= 10 then do inl_91, inl_92 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
              do inl_91, inl_92 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
            end
            do inl_91, inl_92 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:142-154
          until true local bin, fine = inl_91, inl_92
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
          local inl_93, inl_94, inl_95 repeat local total, mean, vk, v = total, mean, vk, v
--@ lua/stats.lua:91-96
            if total == nil then do inl_93, inl_94, inl_95 = 1, v, 0 break end end
            mean, vk = mean or 0, vk or 0
            total = total + 1
            local old = mean
            mean = old + (v - old) / total
            do inl_93, inl_94, inl_95 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:154-176
          until true total, mean, vk = inl_93, inl_94, inl_95
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
        local fk = P .. 'fine:' .. k
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
--@ lua/pop.lua:173-174
      until true
      repeat local cmd, k, list, step, first = 'ZADD', wjk, scored, 2000
--@ lua/queue.lua:7-12
        local n = #list
        for i = first or 1, n, step do
          local j = i + step - 1
          if j > n then j = n end
          rcall(cmd, k, unpack(list, i, j))
        end
--@ lua/pop.lua:174-175
      until true
      repeat local cmd, k, list, step, first = 'ZADD', lk, scored, 2000
--@ lua/queue.lua:7-12
        local n = #list
        for i = first or 1, n, step do
          local j = i + step - 1
          if j > n then j = n end
          rcall(cmd, k, unpack(list, i, j))
        end
--@ lua/pop.lua:175-178
      until true
      local parts = {}
      for i, p in ipairs(popped) do
        local inl_96 repeat local jid, f, tracked, wrap, last, seen, shown, wjson, qjson = p[1], p[2], p[3], false, last, nil, nil, wjson
--@ lua/job/render.lua:58-100
          if not f then f = M.Job_fetch(jid) end
          if not f[1] then do inl_96 = nil break end end
          if f[14] then
            M.Job_migrate(jid, f[14])
            f[14] = false
          end
          if tracked == nil then tracked = rcall('ZSCORE', P .. 'tracked', jid) ~= false end
          local hist = rcall('LRANGE', P .. 'j:' .. jid .. '-history', '0', last and '-2' or '-1')
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
          local jk = P .. 'j:' .. jid
          local dtk, dck = jk .. '-dependents', jk .. '-dependencies'
          local sets = rcall('EXISTS', dtk, dck, dck)
          local dependents = sets % 2 == 1 and rcall('SMEMBERS', dtk) or {}
          local dependencies = sets >= 2 and M.Job_encoded_members(rcall('SMEMBERS', dck)) or '{}'
          -- Numbers absent from the hash are left out, as cjson leaves out nil values.
          local inl_97 repeat local v, whole = f[6]
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_97 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_97 = nil break end end
            if whole then n = floor(n) end
            do inl_97 = encode(n) break end
--@ lua/job/render.lua:100-101
          until true local priority = inl_97
          local inl_98 repeat local v, whole = f[8]
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_98 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_98 = nil break end end
            if whole then n = floor(n) end
            do inl_98 = encode(n) break end
--@ lua/job/render.lua:101-102
          until true local retries = inl_98
          local inl_99 repeat local v, whole = f[9], true
--@ lua/json.lua:16-23
            if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
                or v == '7' or v == '8' or v == '9' then
              do inl_99 = v break end
            end
            local n = tonumber(v)
            if n == nil then do inl_99 = nil break end end
            if whole then n = floor(n) end
            do inl_99 = encode(n) break end
--@ lua/job/render.lua:102-105
          until true local remaining = inl_99
          -- Every part as a statement of its own, so that the build can inline the helpers into
          -- pop's common path; then one concatenation expression builds the result in one step.
          local inl_100 repeat local v = f[2]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_100 = 'false' break end end
            do inl_100 = encode(v) break end
--@ lua/job/render.lua:105-108
          until true local klass = inl_100
          local state = '"running"'
          if f[3] ~= 'running' then
            local inl_101 repeat local v = f[3]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_101 = 'false' break end end
              do inl_101 = encode(v) break end
--@ lua/job/render.lua:108-112
            until true state = inl_101
          end
          local queue = qjson
          if not queue then
            local inl_102 repeat local v = f[4]
--@ lua/json.lua:7-8
              if v == false or v == nil then do inl_102 = 'false' break end end
              do inl_102 = encode(v) break end
--@ lua/job/render.lua:112-114
            until true queue = inl_102
          end
          local inl_103 repeat local v = f[10]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_103 = 'false' break end end
            do inl_103 = encode(v) break end
--@ lua/job/render.lua:114-115
          until true local data = inl_103
          local inl_104 repeat local v = f[13]
--@ lua/json.lua:7-8
            if v == false or v == nil then do inl_104 = 'false' break end end
            do inl_104 = encode(v) break end
--@ lua/job/render.lua:115-123
          until true local spawned = inl_104
          -- The history's brackets go into the one concatenation below (cjson writes {} for none).
          local history, hopen, hclose = '{}', '', ''
          if #hist > 0 then
            history, hopen, hclose = concat(hist, ','), '[', ']'
          end
          local tags, failure = f[11], f[12]
          if tags ~= '{}' then
            local inl_105 repeat local text = tags
--@ lua/job/render.lua:36-39
              if not text or text == '{}' or text == '[]' then do inl_105 = '{}' break end end
              local ok, v = pcall(decode, text)
              if not ok or type(v) ~= 'table' then do inl_105 = '{}' break end end
              do inl_105 = encode(v) break end
--@ lua/job/render.lua:123-126
            until true tags = inl_105
          end
          if failure ~= '{}' then
            local inl_106 repeat local text = failure
--@ lua/job/render.lua:36-39
              if not text or text == '{}' or text == '[]' then do inl_106 = '{}' break end end
              local ok, v = pcall(decode, text)
              if not ok or type(v) ~= 'table' then do inl_106 = '{}' break end end
              do inl_106 = encode(v) break end
--@ lua/job/render.lua:126-144
            until true failure = inl_106
          end
          -- The extensions' fields, only on jobs that use them (docs/compatibility.md).
          local flow = ''
          if f[16] or f[17] or f[18] then
            flow = M.Job_flow_fields(f)
          end
          do inl_96 = (wrap and '[{"jid":' or '{"jid":') .. encode(f[1]) .. ',"klass":' .. klass ..
            ',"state":' .. state .. ',"queue":' .. queue ..
            ',"worker":' .. (wjson or encode(f[5] or '')) .. ',"tracked":' .. (tracked and 'true' or 'false') ..
            ',"expires":' .. encode(tonumber(f[7]) or 0) .. ',"data":' .. data ..
            ',"tags":' .. tags .. ',"failure":' .. failure ..
            ',"spawned_from_jid":' .. spawned .. ',"history":' .. hopen .. history .. hclose ..
            ',"dependents":' .. (#dependents == 0 and '{}' or M.Job_encoded_members(dependents)) ..
            ',"dependencies":' .. dependencies ..
            (priority and ',"priority":' or '') .. (priority or '') ..
            (retries and ',"retries":' or '') .. (retries or '') ..
            (remaining and ',"remaining":' or '') .. (remaining or '') .. flow ..
            (wrap and '}]' or '}') break end
--@ lua/pop.lua:178-181
        until true local text = inl_96
        parts[i] = text
      end
      do local inl_107 repeat local parts = parts
--@ lua/json.lua:29-30
        if #parts == 0 then do inl_107 = '{}' break end end
        do inl_107 = '[' .. concat(parts, ',') .. ']' break end
--@ lua/pop.lua:181-181
      until true inl_43 = inl_107 break end
--@ lua/api.lua:73-75
    until true result = inl_43
  elseif cmd == 'complete' then
    local inl_108 repeat local now = now
--@ lua/job/complete.lua:20-30
      local jid, worker, queue, data = A[3], A[4], A[5], A[6]
      if jid == nil then error('Job(): no jid provided') end
      if worker == nil then error('Complete(): Arg "worker" missing') end
      if queue == nil then error('Complete(): Arg "queue" missing') end
      if data ~= '{}' and decode(data) == false then
        error('Complete(): Arg "data" missing or not JSON: ' .. tostring(data))
      end
      local nextq, delay, depends, handoff = nil, 0, nil, nil
      -- Options are read only when given (most completes have none: no table is made).
      if #A > 6 then
        local inl_109 repeat local first, last = 7, #A
--@ lua/job/put.lua:6-8
          local opts = {}
          for i = first, last - 1, 2 do opts[A[i]] = A[i + 1] end
          do inl_109 = opts break end
--@ lua/job/complete.lua:30-33
        until true local opts = inl_109
        nextq = opts.next
        if opts.delay ~= nil then
          local inl_110 repeat local v = opts.delay
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_110 = n break end end
            do inl_110 = nil break end
--@ lua/job/complete.lua:33-98
          until true delay = inl_110
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
        if opts.namespace ~= nil then
          if nextq == nil then error('Complete(): "namespace" cannot be used without a "next".') end
          local ns = opts.namespace
          -- the shape of a prefix, `ql:` or `ql:{<name>}:` (key names are the prelude's alone)
          if not (ns:match('^%l%l:$') or ns:match('^%l%l:{[^{}]+}:$')) then
            error('Complete(): Arg "namespace" is not a namespace prefix: ' .. ns)
          end
          handoff = { p = opts.namespace, queue = nextq, delay = delay, depends = depends }
          nextq, depends = nil, nil
        end
      end
      -- The priority is read only for a next queue (each field read scans the job's hash).
      local jk = P .. 'j:' .. jid
      -- 1 state, 2 worker, 3 queue, 4 history, 5 time, 6 retries, 7 throttles, 8 priority. A
      -- job that uses an extension has a `throttles` field (Job.store_flow); only then are its
      -- key and ttl read.
      local f
      if nextq == nil then
        f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries',
          'throttles')
      else
        f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries',
          'throttles', 'priority')
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
      local sk = P .. 'q:' .. queue .. '-scheduled'
      local probe = rcall('EXISTS', P .. 'q:' .. queue .. '-work', sk, sk)
      local dk = jk .. '-dependents'
      local special = rcall('EXISTS', P .. 'config', P .. 'tracked', dk) > 0
      if special then
        M.Config_prefetch('max-job-history', 'jobs-history', 'jobs-history-count',
          queue .. '-max-concurrency')
      else
        cfg = false
      end
      local inl_111 repeat local t = now
--@ lua/num.lua:14-14
       do inl_111 = format('%.20f', t) break end
--@ lua/job/complete.lua:98-99
      until true local tstr = inl_111
      local inl_112 repeat local t, tstr = now, tstr
--@ lua/num.lua:21-22
        if tstr and t >= 0 and t < 1e14 then do inl_112 = tstr:sub(1, -22) break end end
        do inl_112 = tostring(floor(t)) break end
--@ lua/job/complete.lua:99-100
      until true local whole = inl_112
      repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"done"', nil, f[4] or false, whole
--@ lua/job/history.lua:36-42
        if legacy == nil then legacy = rcall('HGET', P .. 'j:' .. jid, 'history') end
        if legacy then M.Job_migrate(jid, legacy) end
        -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
        -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
        local entry
        if not whole then
          local inl_113 repeat local t, tstr = when
--@ lua/num.lua:21-22
            if tstr and t >= 0 and t < 1e14 then do inl_113 = tstr:sub(1, -22) break end end
            do inl_113 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
          until true whole = inl_113
        end
        if extra == nil then
          entry = '[' .. whole .. ',' .. what_json .. ']'
        else
          if type(extra) ~= 'string' then extra = encode(extra) end
          entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
        end
        local hk = P .. 'j:' .. jid .. '-history'
        local len = rcall('RPUSH', hk, entry)
        -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
        if len < 3 then do break end end
        local inl_114 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
          if cfg == false then do inl_114 = fallback break end end
          local inl_115 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_115 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', P .. 'config', name)
              cfg[name] = v
            end
            do inl_115 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_115
          local inl_116 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_116 = n break end end
            do inl_116 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_116
          if n == nil then do inl_114 = fallback break end end
          do inl_114 = n break end
--@ lua/job/history.lua:54-67
        until true local cap = inl_114
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
--@ lua/job/complete.lua:100-101
      until true
      repeat local queue, jid, exist = queue, jid, probe
--@ lua/queue.lua:65-68
        local qk = P .. 'q:' .. queue
        rcall('ZREM', qk .. '-locks', jid)
        if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
        if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
--@ lua/job/complete.lua:101-102
      until true
      repeat local now, kind, queue, v = now, 'run', queue, now - (tonumber(f[5]) or now)
--@ lua/stats.lua:110-110
        local inl_117 repeat local t = now
--@ lua/stats.lua:22-22
         do inl_117 = t - (t % 86400) break end
--@ lua/stats.lua:110-111
        until true local day = inl_117
        local inl_118 repeat local kind, day, queue = kind, day, queue
--@ lua/stats.lua:29-32
          if day >= 1 and day < 1e14 then
            do inl_118 = P .. 's:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
          end
          do inl_118 = P .. 's:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:111-112
        until true local k = inl_118
        local inl_119, inl_120 repeat local v = v
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
            if f >= 10 then do inl_119, inl_120 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(3 * f - 9, 3 * f - 7), fine break end end
            if f >= 1 then do inl_119, inl_120 = ('s0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'):sub(2 * f + 1, 2 * f + 2), fine break end end
            -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
            if f == 0 and 1 / f > 0 then do inl_119, inl_120 = 's0', fine break end end
            do inl_119, inl_120 = 's' .. f, fine break end
          end
          if f < 3600 then
            local m = floor(f / 60)
            if m >= 10 then do inl_119, inl_120 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(3 * m - 11, 3 * m - 9), fine break end end
            do inl_119, inl_120 = ('m1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'):sub(2 * m - 1, 2 * m), fine break end
          end
          if f < 86400 then
            local h = floor(f / 3600)
            if h >= 10 then do inl_119, inl_120 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(3 * h - 11, 3 * h - 9), fine break end end
            do inl_119, inl_120 = ('h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'):sub(2 * h - 1, 2 * h), fine break end
          end
          do inl_119, inl_120 = 'd' .. floor(f / 86400), fine break end
--@ lua/stats.lua:112-114
        until true local bin, fine = inl_119, inl_120
        local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
        local inl_121, inl_122, inl_123 repeat local total, mean, vk, v = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v
--@ lua/stats.lua:91-96
          if total == nil then do inl_121, inl_122, inl_123 = 1, v, 0 break end end
          mean, vk = mean or 0, vk or 0
          total = total + 1
          local old = mean
          mean = old + (v - old) / total
          do inl_121, inl_122, inl_123 = total, mean, vk + (v - mean) * (v - old) break end
--@ lua/stats.lua:114-124
        until true local total, mean, vk = inl_121, inl_122, inl_123
        rcall('HSET', k, 'total', total, 'mean', mean, 'vk', vk, bin, (tonumber(cur[4]) or 0) + 1)
        if total == 1 then M.Stats_expire(k, now, day) end
        local fk = P .. 'fine:' .. k
        local n = redis.pcall('HINCRBY', fk, fine, '1')
        if n == 1 then
          local ttl = rcall('TTL', k)
          if ttl > 0 then rcall('EXPIRE', fk, ttl) end
        elseif type(n) == 'table' then
          redis.pcall('HSET', fk, fine, '1')
        end
--@ lua/job/complete.lua:102-116
      until true
      rcall('ZREM', P .. 'w:' .. worker .. ':jobs', jid)
      if special and rcall('ZSCORE', P .. 'tracked', jid) then
        rcall(PUB, P .. 'completed', jid)
      end
      -- The job gives back its throttles and lets the next job of its ordering key start.
      local okey, ttl_s = nil, nil
      if f[7] then
        okey, ttl_s = M.Job_flow_leave(now, jid, queue, f[7])
      end
      local retries = f[6] or 0
      if nextq ~= nil then
        rcall(PUB, P .. 'log',
          encode({ jid = jid, event = 'advanced', queue = queue, to = nextq }))
        repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"put"', '{"q":' .. encode(nextq) .. '}', false, whole
--@ lua/job/history.lua:36-42
          if legacy == nil then legacy = rcall('HGET', P .. 'j:' .. jid, 'history') end
          if legacy then M.Job_migrate(jid, legacy) end
          -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
          -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
          local entry
          if not whole then
            local inl_124 repeat local t, tstr = when
--@ lua/num.lua:21-22
              if tstr and t >= 0 and t < 1e14 then do inl_124 = tstr:sub(1, -22) break end end
              do inl_124 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
            until true whole = inl_124
          end
          if extra == nil then
            entry = '[' .. whole .. ',' .. what_json .. ']'
          else
            if type(extra) ~= 'string' then extra = encode(extra) end
            entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
          end
          local hk = P .. 'j:' .. jid .. '-history'
          local len = rcall('RPUSH', hk, entry)
          -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
          if len < 3 then do break end end
          local inl_125 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
            if cfg == false then do inl_125 = fallback break end end
            local inl_126 repeat local name = name
--@ lua/config.lua:15-22
              if cfg == false then do inl_126 = false break end end
              if cfg == nil then cfg = {} end
              local v = cfg[name]
              if v == nil then
                v = rcall('HGET', P .. 'config', name)
                cfg[name] = v
              end
              do inl_126 = v break end
--@ lua/config.lua:30-31
            until true local raw = inl_126
            local inl_127 repeat local v = raw
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_127 = n break end end
              do inl_127 = nil break end
--@ lua/config.lua:31-33
            until true local n = inl_127
            if n == nil then do inl_125 = fallback break end end
            do inl_125 = n break end
--@ lua/job/history.lua:54-67
          until true local cap = inl_125
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
--@ lua/job/complete.lua:116-117
        until true
        local inl_128 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
          if now >= 1 then do inl_128 = tstr break end end
          do inl_128 = now break end
--@ lua/job/complete.lua:117-145
        until true local now_arg = inl_128
        rcall('ZADD', P .. 'queues', 'NX', now_arg, nextq)
        rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'waiting', 'worker', '',
          'failure', '{}', 'queue', nextq, 'expires', '0', 'remaining', retries)
        local flow = f[7]
        if delay > 0 and (depends == nil or #depends == 0) then
          if flow then M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, 0, false) end
          rcall('ZADD', P .. 'q:' .. nextq .. '-scheduled', now + delay, jid)
          do inl_108 = 'scheduled' break end
        end
        local linked = 0
        for _, d in ipairs(depends or {}) do
          if M.Job_link(jid, d) then linked = linked + 1 end
        end
        if linked > 0 then
          if flow then M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, 0, false) end
          rcall('ZADD', P .. 'q:' .. nextq .. '-depends', now, jid)
          rcall('HSET', jk, 'state', 'depends')
          if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
          do inl_108 = 'depends' break end
        end
        local priority = tonumber(f[8]) or 0
        if flow then
          if M.Job_enter(now, jid, queue, nextq, f[7], okey, ttl_s, priority, true) then
            do inl_108 = 'throttled' break end
          end
          do inl_108 = 'waiting' break end
        end
        repeat local queue, jid, priority, t = nextq, jid, priority, now
--@ lua/job/state.lua:7-8
          local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
          rcall('ZADD', P .. 'q:' .. queue .. '-work', score, jid)
--@ lua/job/complete.lua:145-153
        until true
        do inl_108 = 'waiting' break end
      end
      if handoff then M.Job_hand_off(jid, data, handoff) end
      rcall(PUB, P .. 'log',
        '{"jid":' .. encode(jid) .. ',"event":"completed","queue":' .. encode(queue) .. '}')
      rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'complete', 'worker', '',
        'failure', '{}', 'queue', '', 'expires', '0', 'remaining', retries)
      local inl_129 repeat local now, tstr = now, tstr
--@ lua/num.lua:30-31
        if now >= 1 then do inl_129 = tstr break end end
        do inl_129 = now break end
--@ lua/job/complete.lua:153-155
      until true local now_arg = inl_129
      rcall('ZADD', P .. 'completed', now_arg, jid)
      repeat local now = now
--@ lua/job/complete.lua:176-176
        local inl_130 repeat local name, fallback = 'jobs-history', 604800
--@ lua/config.lua:29-30
          if cfg == false then do inl_130 = fallback break end end
          local inl_131 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_131 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', P .. 'config', name)
              cfg[name] = v
            end
            do inl_131 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_131
          local inl_132 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_132 = n break end end
            do inl_132 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_132
          if n == nil then do inl_130 = fallback break end end
          do inl_130 = n break end
--@ lua/job/complete.lua:176-177
        until true local age = inl_130
        local inl_133 repeat local name, fallback = 'jobs-history-count', 50000
--@ lua/config.lua:29-30
          if cfg == false then do inl_133 = fallback break end end
          local inl_134 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_134 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', P .. 'config', name)
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
--@ lua/job/complete.lua:177-191
        until true local keep = inl_133
        keep = floor(keep)
        local old = rcall('ZRANGEBYSCORE', P .. 'completed', '0', now - age, 'LIMIT', '0', '100')
        if #old > 0 then
          for _, j in ipairs(old) do M.Job_delete(j) end
          rcall('ZREM', P .. 'completed', unpack(old))
        end
        -- ZRANGE 0 .. -N-1: everything but the newest N; a negative N reaches only the -N oldest.
        local card = rcall('ZCARD', P .. 'completed')
        local excess = keep >= 0 and card - keep or math.min(card, -keep)
        if excess > 0 then
          if excess > 100 then excess = 100 end
          for _, j in ipairs(rcall('ZRANGE', P .. 'completed', 0, excess - 1)) do M.Job_delete(j) end
          rcall('ZREMRANGEBYRANK', P .. 'completed', 0, excess - 1)
        end
--@ lua/job/complete.lua:155-160
      until true
      if special then
        local dependents = rcall('SMEMBERS', dk)
        if #dependents > 0 then M.Job_release_dependents(now, jid, dependents) end
      end
      do inl_108 = 'complete' break end
--@ lua/api.lua:75-77
    until true result = inl_108
  elseif cmd == 'heartbeat' then
    local inl_136 repeat local now = now
--@ lua/job/lease.lua:10-17
      local jid, worker, data = A[3], A[4], A[5]
      if jid == nil then error('Job(): no jid provided') end
      if worker == nil then error('Heatbeat(): Arg "worker" missing') end
      local decoded
      if data ~= nil then decoded = decode(data) end
      local f = rcall('HMGET', P .. 'j:' .. jid, 'worker', 'state', 'queue')
      local queue = f[3] or ''
      local inl_137 repeat local queue = queue
--@ lua/config.lua:39-39
        local inl_138 repeat local name = queue .. '-heartbeat'
--@ lua/config.lua:15-22
          if cfg == false then do inl_138 = false break end end
          if cfg == nil then cfg = {} end
          local v = cfg[name]
          if v == nil then
            v = rcall('HGET', P .. 'config', name)
            cfg[name] = v
          end
          do inl_138 = v break end
--@ lua/config.lua:39-40
        until true local raw = inl_138
        local inl_139 repeat local v = raw
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_139 = n break end end
          do inl_139 = nil break end
--@ lua/config.lua:40-42
        until true local n = inl_139
        if n ~= nil then do inl_137 = n break end end
        do local inl_140 repeat local name, fallback = 'heartbeat', 60
--@ lua/config.lua:29-30
          if cfg == false then do inl_140 = fallback break end end
          local inl_141 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_141 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', P .. 'config', name)
              cfg[name] = v
            end
            do inl_141 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_141
          local inl_142 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_142 = n break end end
            do inl_142 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_142
          if n == nil then do inl_140 = fallback break end end
          do inl_140 = n break end
--@ lua/config.lua:42-42
        until true inl_137 = inl_140 break end
--@ lua/job/lease.lua:17-35
      until true local lock = inl_137
      local expires = now + lock
      if not f[1] then error('Heartbeat(): Job ' .. jid .. ' does not exist') end
      if f[2] ~= 'running' then
        error('Heartbeat(): Job ' .. jid .. ' not currently running: ' .. tostring(f[2]))
      end
      if f[1] ~= worker or f[1] == '' then
        error('Heartbeat(): Job ' .. jid .. ' given out to another worker: ' .. f[1])
      end
      local jk = P .. 'j:' .. jid
      if decoded ~= nil and decoded ~= false then
        rcall('HSET', jk, 'expires', expires, 'worker', worker, 'data', encode(decoded))
      else
        rcall('HSET', jk, 'expires', expires, 'worker', worker)
      end
      rcall('ZADD', P .. 'w:' .. worker .. ':jobs', expires, jid)
      rcall('ZADD', P .. 'workers', now, worker)
      rcall('ZADD', P .. 'q:' .. queue .. '-locks', expires, jid)
      do inl_136 = expires break end
--@ lua/api.lua:77-79
    until true result = inl_136
  elseif cmd == 'fail' then
    local inl_143 repeat local now = now
--@ lua/job/fail_retry.lua:12-30
      local jid, worker, group, message, data = A[3], A[4], A[5], A[6], A[7]
      if jid == nil then error('Job(): no jid provided') end
      if worker == nil then error('Fail(): Arg "worker" missing') end
      if group == nil then error('Fail(): Arg "group" missing') end
      if message == nil then error('Fail(): Arg "message" missing') end
      local decoded
      if data ~= nil then decoded = decode(data) end
      local f = rcall('HMGET', P .. 'j:' .. jid, 'state', 'worker', 'queue', 'history', 'throttles',
        'key')
      local state, queue = f[1], f[3]
      if not state then error('Fail(): Job ' .. jid .. 'does not exist') end
      if state ~= 'running' then error('Fail(): Job ' .. jid .. 'not currently running: ' .. state) end
      if f[2] ~= worker then
        error('Fail(): Job ' .. jid .. ' running with another worker: ' .. tostring(f[2]))
      end
      queue = queue or ''
      rcall(PUB, P .. 'log', encode({ jid = jid, event = 'failed', worker = worker,
        group = group, message = message }))
      repeat local jid, channel, tracked = jid, 'failed'
--@ lua/job/fields.lua:32-33
        if tracked == nil then
          local inl_144 repeat local jid = jid
--@ lua/job/fields.lua:27-27
           do inl_144 = rcall('ZSCORE', P .. 'tracked', jid) ~= false break end
--@ lua/job/fields.lua:33-35
          until true tracked = inl_144
        end
        if tracked then rcall(PUB, P .. channel, jid) end
--@ lua/job/fail_retry.lua:30-32
      until true
      rcall('ZREM', P .. 'w:' .. worker .. ':jobs', jid)
      repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"failed"', { worker = worker, group = group }, f[4] or false
--@ lua/job/history.lua:36-42
        if legacy == nil then legacy = rcall('HGET', P .. 'j:' .. jid, 'history') end
        if legacy then M.Job_migrate(jid, legacy) end
        -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
        -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
        local entry
        if not whole then
          local inl_145 repeat local t, tstr = when
--@ lua/num.lua:21-22
            if tstr and t >= 0 and t < 1e14 then do inl_145 = tstr:sub(1, -22) break end end
            do inl_145 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
          until true whole = inl_145
        end
        if extra == nil then
          entry = '[' .. whole .. ',' .. what_json .. ']'
        else
          if type(extra) ~= 'string' then extra = encode(extra) end
          entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
        end
        local hk = P .. 'j:' .. jid .. '-history'
        local len = rcall('RPUSH', hk, entry)
        -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
        if len < 3 then do break end end
        local inl_146 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
          if cfg == false then do inl_146 = fallback break end end
          local inl_147 repeat local name = name
--@ lua/config.lua:15-22
            if cfg == false then do inl_147 = false break end end
            if cfg == nil then cfg = {} end
            local v = cfg[name]
            if v == nil then
              v = rcall('HGET', P .. 'config', name)
              cfg[name] = v
            end
            do inl_147 = v break end
--@ lua/config.lua:30-31
          until true local raw = inl_147
          local inl_148 repeat local v = raw
--@ lua/num.lua:6-9
            local n = tonumber(v)
            -- n - n is 0 for every finite number, and nan for nan and for +-inf.
            if n and n - n == 0 then do inl_148 = n break end end
            do inl_148 = nil break end
--@ lua/config.lua:31-33
          until true local n = inl_148
          if n == nil then do inl_146 = fallback break end end
          do inl_146 = n break end
--@ lua/job/history.lua:54-67
        until true local cap = inl_146
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
--@ lua/job/fail_retry.lua:32-33
      until true
      repeat local now, when, queue, field, by, field2, by2 = now, now, queue, 'failures', 1, 'failed', 1
--@ lua/stats.lua:182-182
        local inl_149 repeat local t = when
--@ lua/stats.lua:22-22
         do inl_149 = t - (t % 86400) break end
--@ lua/stats.lua:182-183
        until true local day = inl_149
        local inl_150 repeat local kind, day, queue = 'stats', day, queue
--@ lua/stats.lua:29-32
          if day >= 1 and day < 1e14 then
            do inl_150 = P .. 's:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
          end
          do inl_150 = P .. 's:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:183-186
        until true local k = inl_150
        rcall('HINCRBY', k, field, by)
        if field2 then rcall('HINCRBY', k, field2, by2) end
        M.Stats_expire(k, now, day)
--@ lua/job/fail_retry.lua:33-34
      until true
      repeat local queue, jid, exist = queue, jid
--@ lua/queue.lua:65-68
        local qk = P .. 'q:' .. queue
        rcall('ZREM', qk .. '-locks', jid)
        if not exist or exist % 2 == 1 then rcall('ZREM', qk .. '-work', jid) end
        if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. '-scheduled', jid) end
--@ lua/job/fail_retry.lua:34-38
      until true
      if f[5] or f[6] then M.Job_leave(now, jid, queue, f[5], f[6] or nil) end
      if decoded ~= nil and decoded ~= false then rcall('HSET', P .. 'j:' .. jid, 'data', encode(decoded)) end
      repeat local jid, group, failure = jid, group,
        { group = group, message = message, when = floor(now), worker = worker }
--@ lua/job/state.lua:22-25
        rcall('HSET', P .. 'j:' .. jid, 'state', 'failed', 'worker', '', 'expires', '',
          'failure', encode(failure))
        rcall('SADD', P .. 'failures', group)
        rcall('LPUSH', P .. 'f:' .. group, jid)
--@ lua/job/fail_retry.lua:38-39
      until true
      do inl_143 = jid break end
--@ lua/api.lua:79-81
    until true result = inl_143
  elseif cmd == 'retry' then
    local inl_151 repeat local now = now
--@ lua/job/fail_retry.lua:52-58
      local jid, queue, worker, delay_s, group, message = A[3], A[4], A[5], A[6], A[7], A[8]
      if jid == nil then error('Job(): no jid provided') end
      if queue == nil then error('Retry(): Arg "queue" missing') end
      if worker == nil then error('Retry(): Arg "worker" missing') end
      local delay = 0
      if delay_s ~= nil then
        local inl_152 repeat local v = delay_s
--@ lua/num.lua:6-9
          local n = tonumber(v)
          -- n - n is 0 for every finite number, and nan for nan and for +-inf.
          if n and n - n == 0 then do inl_152 = n break end end
          do inl_152 = nil break end
--@ lua/job/fail_retry.lua:58-83
        until true delay = inl_152
        if delay == nil then error('Retry(): Arg "delay" not a number: ' .. delay_s) end
      end
      local f = rcall('HMGET', P .. 'j:' .. jid, 'state', 'worker', 'queue', 'priority', 'history',
        'throttles', 'key', 'ttl')
      local state = f[1]
      if not state then error('Retry(): Job ' .. jid .. ' does not exist') end
      if state ~= 'running' then
        error('Retry(): Job ' .. jid .. ' is not currently running: ' .. state)
      end
      if f[2] ~= worker then
        error('Retry(): Job ' .. jid .. ' has been given to another worker: ' .. tostring(f[2]))
      end
      local jk = P .. 'j:' .. jid
      -- HINCRBYFLOAT: a fractional budget (retries 2.5) must not make this fail.
      local remaining = tonumber(rcall('HINCRBYFLOAT', jk, 'remaining', -1))
      rcall('HDEL', jk, 'grace')
      rcall('ZREM', P .. 'q:' .. (f[3] or '') .. '-locks', jid)
      rcall('ZREM', P .. 'w:' .. worker .. ':jobs', jid)
      -- The job gives back its throttles: it takes them again when it is popped again, behind
      -- the jobs waiting for them. It keeps its ordering key's turn unless it fails here.
      if f[6] then M.Job_leave(now, jid, f[3], f[6], nil) end
      if remaining < 0 then
        if f[7] then M.Job_leave(now, jid, f[3], nil, f[7]) end
        group = group or ('failed-retries-' .. queue)
        repeat local jid, when, what_json, extra, legacy, whole = jid, now, '"failed"', { group = group }, f[5] or false
--@ lua/job/history.lua:36-42
          if legacy == nil then legacy = rcall('HGET', P .. 'j:' .. jid, 'history') end
          if legacy then M.Job_migrate(jid, legacy) end
          -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
          -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
          local entry
          if not whole then
            local inl_153 repeat local t, tstr = when
--@ lua/num.lua:21-22
              if tstr and t >= 0 and t < 1e14 then do inl_153 = tstr:sub(1, -22) break end end
              do inl_153 = tostring(floor(t)) break end
--@ lua/job/history.lua:42-54
            until true whole = inl_153
          end
          if extra == nil then
            entry = '[' .. whole .. ',' .. what_json .. ']'
          else
            if type(extra) ~= 'string' then extra = encode(extra) end
            entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
          end
          local hk = P .. 'j:' .. jid .. '-history'
          local len = rcall('RPUSH', hk, entry)
          -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
          if len < 3 then do break end end
          local inl_154 repeat local name, fallback = 'max-job-history', 100
--@ lua/config.lua:29-30
            if cfg == false then do inl_154 = fallback break end end
            local inl_155 repeat local name = name
--@ lua/config.lua:15-22
              if cfg == false then do inl_155 = false break end end
              if cfg == nil then cfg = {} end
              local v = cfg[name]
              if v == nil then
                v = rcall('HGET', P .. 'config', name)
                cfg[name] = v
              end
              do inl_155 = v break end
--@ lua/config.lua:30-31
            until true local raw = inl_155
            local inl_156 repeat local v = raw
--@ lua/num.lua:6-9
              local n = tonumber(v)
              -- n - n is 0 for every finite number, and nan for nan and for +-inf.
              if n and n - n == 0 then do inl_156 = n break end end
              do inl_156 = nil break end
--@ lua/config.lua:31-33
            until true local n = inl_156
            if n == nil then do inl_154 = fallback break end end
            do inl_154 = n break end
--@ lua/job/history.lua:54-67
          until true local cap = inl_154
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
--@ lua/job/fail_retry.lua:83-91
        until true
        local failure
        if message ~= nil then
          failure = { group = group, message = message, when = floor(now), worker = worker }
        else
          failure = { group = group, worker = '', when = now,
            message = 'Job exhausted retries in queue "' .. tostring(f[3]) .. '"' }
        end
        repeat local jid, channel, tracked = jid, 'failed'
--@ lua/job/fields.lua:32-33
          if tracked == nil then
            local inl_157 repeat local jid = jid
--@ lua/job/fields.lua:27-27
             do inl_157 = rcall('ZSCORE', P .. 'tracked', jid) ~= false break end
--@ lua/job/fields.lua:33-35
            until true tracked = inl_157
          end
          if tracked then rcall(PUB, P .. channel, jid) end
--@ lua/job/fail_retry.lua:91-92
        until true
        repeat local jid, group, failure = jid, group, failure
--@ lua/job/state.lua:22-25
          rcall('HSET', P .. 'j:' .. jid, 'state', 'failed', 'worker', '', 'expires', '',
            'failure', encode(failure))
          rcall('SADD', P .. 'failures', group)
          rcall('LPUSH', P .. 'f:' .. group, jid)
--@ lua/job/fail_retry.lua:92-93
        until true
        repeat local now, when, queue, field, by, field2, by2 = now, now, queue, 'failures', 1, 'failed', 1
--@ lua/stats.lua:182-182
          local inl_158 repeat local t = when
--@ lua/stats.lua:22-22
           do inl_158 = t - (t % 86400) break end
--@ lua/stats.lua:182-183
          until true local day = inl_158
          local inl_159 repeat local kind, day, queue = 'stats', day, queue
--@ lua/stats.lua:29-32
            if day >= 1 and day < 1e14 then
              do inl_159 = P .. 's:' .. kind .. ':' .. format('%d', day) .. ':' .. queue break end
            end
            do inl_159 = P .. 's:' .. kind .. ':' .. day .. ':' .. queue break end
--@ lua/stats.lua:183-186
          until true local k = inl_159
          rcall('HINCRBY', k, field, by)
          if field2 then rcall('HINCRBY', k, field2, by2) end
          M.Stats_expire(k, now, day)
--@ lua/job/fail_retry.lua:93-104
        until true
      else
        if delay > 0 then
          rcall('ZADD', P .. 'q:' .. queue .. '-scheduled', now + delay, jid)
          rcall('HSET', jk, 'state', 'scheduled')
        elseif f[6] or f[7] or f[8] then
          if not M.Job_ready(now, queue, jid, tonumber(f[4]) or 0, f[6], f[7] or nil,
              tonumber(f[8]), now, 'running') then
            rcall('HSET', jk, 'state', 'waiting')
          end
        else
          repeat local queue, jid, priority, t = queue, jid, tonumber(f[4]) or 0, now
--@ lua/job/state.lua:7-8
            local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
            rcall('ZADD', P .. 'q:' .. queue .. '-work', score, jid)
--@ lua/job/fail_retry.lua:104-112
          until true
          rcall('HSET', jk, 'state', 'waiting')
        end
        if group ~= nil and message ~= nil then
          rcall('HSET', jk, 'failure',
            encode({ group = group, message = message, when = floor(now), worker = worker }))
        end
      end
      do inl_151 = floor(remaining) break end
--@ lua/api.lua:81-95
    until true result = inl_151
  else
    fast = false
  end
  if fast then
    return result
  end
end

local cmd = A[1]
if cmd == nil then error('Must provide a command') end
local command = M['Api_' .. (cmd)]
if not command then error('Unknown command ' .. cmd) end
if #A < 2 then error("bad argument #1 to 'tonumber' (value expected)") end
local inl_160 repeat local v = A[2]
--@ lua/num.lua:6-9
  local n = tonumber(v)
  -- n - n is 0 for every finite number, and nan for nan and for +-inf.
  if n and n - n == 0 then do inl_160 = n break end end
  do inl_160 = nil break end
--@ lua/api.lua:95-98
until true local now = inl_160
if now == nil then error('Arg "now" missing or not a number: nil') end
local result = command(now)
return result
