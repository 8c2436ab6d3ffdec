-- Jobs: history, rendering, and the commands that act on one job at a time.

-- Field order of Job.fetch; the indexes below name the positions.
local F_JID, F_KLASS, F_STATE, F_QUEUE, F_WORKER, F_PRIORITY, F_EXPIRES = 1, 2, 3, 4, 5, 6, 7
local F_RETRIES, F_REMAINING, F_DATA, F_TAGS, F_FAILURE, F_SPAWNED, F_HISTORY, F_TIME =
  8, 9, 10, 11, 12, 13, 14, 15

-- Every field a command or the job object needs, in one HMGET.
function Job.fetch(jid)
  return rcall('HMGET', key.job .. jid, 'jid', 'klass', 'state', 'queue', 'worker', 'priority',
    'expires', 'retries', 'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history',
    'time')
end

-- Legacy history (a JSON field of jobs written by very old versions) becomes list entries,
-- appended after the existing ones; the field is then deleted (protocol 2.4).
function Job.migrate(jid, legacy)
  local hk = key.job .. jid .. key.history
  local ok, stages = pcall(decode, legacy)
  if ok and type(stages) == 'table' then
    for _, st in ipairs(stages) do
      if type(st) == 'table' then
        rcall('RPUSH', hk, encode({ floor(Num.parse(st.put) or 0), 'put', { q = st.q } }))
        if Num.parse(st.popped) then
          rcall('RPUSH', hk, encode({ floor(Num.parse(st.popped)), 'popped', { worker = st.worker } }))
        end
        if Num.parse(st.failed) then rcall('RPUSH', hk, encode({ floor(Num.parse(st.failed)), 'failed' })) end
        if Num.parse(st.done) then rcall('RPUSH', hk, encode({ floor(Num.parse(st.done)), 'done' })) end
      end
    end
  end
  rcall('HDEL', key.job .. jid, 'history')
end

-- P-HIST: append [floor(when), what, extra?]. `what` comes as its JSON text (the callers'
-- names are constants, so none has to be encoded per call). `legacy` is the job's `history`
-- field when the caller already read it (false: known absent; nil: read it here).
-- The cap `max-job-history` (N) reproduces the reference's keep-first-plus-newest result
-- without reading the list: RPUSH first, then trim only when over the cap. `whole`, when
-- the caller has it, is Lua's text for floor(when) (Num.whole_text).
--@inline
function Job.hist(jid, when, what_json, extra, legacy, whole)
  if legacy == nil then legacy = rcall('HGET', key.job .. jid, 'history') end
  if legacy then Job.migrate(jid, legacy) end
  -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
  -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
  local entry
  if not whole then
    whole = Num.whole_text(when)
  end
  if extra == nil then
    entry = '[' .. whole .. ',' .. what_json .. ']'
  else
    if type(extra) ~= 'string' then extra = encode(extra) end
    entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
  end
  local hk = key.job .. jid .. key.history
  local len = rcall('RPUSH', hk, entry)
  -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
  if len < 3 then return end
  local cap = Config.number('max-job-history', 100)
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

-- One rendered history entry: the extra object's keys plus "when" and "what".
-- Stored entries are cjson output ([when,"what"] or [when,"what",{...}]), so the common
-- shapes are rewritten as text; anything else (an extra with keys named when/what, escaped
-- text, null or array extras) is decoded and re-encoded.
function Job.render_entry(text)
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

-- A JSON list stored in a hash field, re-encoded the way cjson writes it ({} when empty).
--@inline
function Job.stored_list(text)
  if not text or text == '{}' or text == '[]' then return '{}' end
  local ok, v = pcall(decode, text)
  if not ok or type(v) ~= 'table' then return '{}' end
  return encode(v)
end

-- Encoded JSON strings of a Redis reply list.
function Job.encoded_members(list)
  for i = 1, #list do list[i] = encode(list[i]) end
  return Json.list(list)
end

-- The job object (protocol 2.10) as JSON text, or nil when the job has no `jid` field.
-- `f` is a Job.fetch result when the caller has one; `tracked` is known or nil.
-- `wrap` true renders a one-element JSON array instead (pop of one job), in the same
-- concatenation. `last`, when given, is the rendering of the newest history entry, which
-- the caller has just appended: the list is then read without it. `seen` and `shown` are
-- an entry's stored text that the caller can predict and its rendering (the rendering
-- below makes of that text): a stored entry equal to `seen` is not parsed. `wjson` and
-- `qjson`, when the caller has them, are the JSON texts of f's worker and queue.
--@inline
function Job.render(jid, f, tracked, wrap, last, seen, shown, wjson, qjson)
  if not f then f = Job.fetch(jid) end
  if not f[F_JID] then return nil end
  if f[F_HISTORY] then
    Job.migrate(jid, f[F_HISTORY])
    f[F_HISTORY] = false
  end
  if tracked == nil then tracked = rcall('ZSCORE', key.tracked, jid) ~= false end
  local hist = rcall('LRANGE', key.job .. jid .. key.history, '0', last and '-2' or '-1')
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
          hist[i] = Job.render_entry(text)
        end
      end
    end
  end
  -- The caller's own new entry (pop), already rendered, was left out of the LRANGE.
  if last then hist[#hist + 1] = last end
  -- Most jobs have neither dependents nor dependencies: one EXISTS tells (it counts a key
  -- once per mention, so 1 = dependents, 2 = dependencies), and only existing sets are read.
  local jk = key.job .. jid
  local dtk, dck = jk .. key.dependents, jk .. key.dependencies
  local sets = rcall('EXISTS', dtk, dck, dck)
  local dependents = sets % 2 == 1 and rcall('SMEMBERS', dtk) or {}
  local dependencies = sets >= 2 and Job.encoded_members(rcall('SMEMBERS', dck)) or '{}'
  -- Numbers absent from the hash are left out, as cjson leaves out nil values.
  local priority = Json.number(f[F_PRIORITY])
  local retries = Json.number(f[F_RETRIES])
  local remaining = Json.number(f[F_REMAINING], true)
  -- Every part as a statement of its own, so that the build can inline the helpers into
  -- pop's common path; then one concatenation expression builds the result in one step.
  local klass = Json.str(f[F_KLASS])
  local state = '"running"'
  if f[F_STATE] ~= 'running' then
    state = Json.str(f[F_STATE])
  end
  local queue = qjson
  if not queue then
    queue = Json.str(f[F_QUEUE])
  end
  local data = Json.str(f[F_DATA])
  local spawned = Json.str(f[F_SPAWNED])
  -- The history's brackets go into the one concatenation below (cjson writes {} for none).
  local history, hopen, hclose = '{}', '', ''
  if #hist > 0 then
    history, hopen, hclose = concat(hist, ','), '[', ']'
  end
  local tags, failure = f[F_TAGS], f[F_FAILURE]
  if tags ~= '{}' then
    tags = Job.stored_list(tags)
  end
  if failure ~= '{}' then
    failure = Job.stored_list(failure)
  end
  return (wrap and '[{"jid":' or '{"jid":') .. encode(f[F_JID]) .. ',"klass":' .. klass ..
    ',"state":' .. state .. ',"queue":' .. queue ..
    ',"worker":' .. (wjson or encode(f[F_WORKER] or '')) .. ',"tracked":' .. (tracked and 'true' or 'false') ..
    ',"expires":' .. encode(tonumber(f[F_EXPIRES]) or 0) .. ',"data":' .. data ..
    ',"tags":' .. tags .. ',"failure":' .. failure ..
    ',"spawned_from_jid":' .. spawned .. ',"history":' .. hopen .. history .. hclose ..
    ',"dependents":' .. (#dependents == 0 and '{}' or Job.encoded_members(dependents)) ..
    ',"dependencies":' .. dependencies ..
    (priority and ',"priority":' or '') .. (priority or '') ..
    (retries and ',"retries":' or '') .. (retries or '') ..
    (remaining and ',"remaining":' or '') .. (remaining or '') ..
    (wrap and '}]' or '}')
end

-- Decoded tag list of a job's stored `tags` text ({} when absent or unreadable).
function Job.tag_list(text)
  if not text then return {} end
  local ok, v = pcall(decode, text)
  if ok and Json.strings(v) then return v end
  return {}
end

-- Whether the job is tracked (in ql:tracked).
--@inline
function Job.is_tracked(jid) return rcall('ZSCORE', key.tracked, jid) ~= false end

-- Publish `payload` on ql:<channel> when the job is tracked.
--@inline
function Job.notify(jid, channel, tracked)
  if tracked == nil then
    tracked = Job.is_tracked(jid)
  end
  if tracked then rcall('PUBLISH', key.channel .. channel, jid) end
end

-- Record that job `jid` waits for `dep` when `dep` exists and is not complete.
function Job.link(jid, dep)
  local st = rcall('HGET', key.job .. dep, 'state')
  if st and st ~= 'complete' then
    rcall('SADD', key.job .. jid .. key.dependencies, dep)
    rcall('SADD', key.job .. dep .. key.dependents, jid)
    return true
  end
  return false
end

-- P-WORK: make `jid` waiting in `queue` as of time `t`, and wake that queue's workers.
--@inline
function Job.enqueue(queue, jid, priority, t)
  local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
  rcall('ZADD', key.queue .. queue .. key.work, score, jid)
  Wake.queue(queue)
end

-- A running job leaving `queue` frees a slot when the queue has a concurrency cap.
--@inline
function Job.left_running(queue)
  -- cfg false: the call found no config hash, so no queue has a cap. Config.number would
  -- say so too; asking here first spares building the field's name on every complete.
  if not queue or cfg == false then return end
  local cap = Config.number(queue .. '-max-concurrency', 0)
  if cap > 0 then Wake.queue(queue) end
end

-- Remove a job from a failure group (and the group from ql:failures when it empties).
function Job.unlist_failure(jid, group)
  if type(group) ~= 'string' then return end
  local gk = key.failure_group .. group
  rcall('LREM', gk, 0, jid)
  if rcall('LLEN', gk) == 0 then rcall('SREM', key.failures, group) end
end

-- Park a job in failure group `group` with failure object `failure`.
--@inline
function Job.park_failed(jid, group, failure)
  rcall('HSET', key.job .. jid, 'state', 'failed', 'worker', '', 'expires', '',
    'failure', encode(failure))
  rcall('SADD', key.failures, group)
  rcall('LPUSH', key.failure_group .. group, jid)
end

-- Delete a job entirely (completed-job expiry): its tags, hash and history.
function Job.delete(jid)
  local tags = Job.tag_list(rcall('HGET', key.job .. jid, 'tags'))
  for _, t in ipairs(tags) do
    rcall('ZREM', key.tag .. t, jid)
    rcall('ZINCRBY', key.tags, -1, t)
  end
  rcall('DEL', key.job .. jid, key.job .. jid .. key.history)
end

-- P-EXPIRE-COMPLETED, in bounded batches: at most 100 jobs older than `jobs-history` and at
-- most 100 beyond `jobs-history-count` per call (the reference deletes all at once).
--@inline
function Job.expire_completed(now)
  local age = Config.number('jobs-history', 604800)
  local keep = Config.number('jobs-history-count', 50000)
  keep = floor(keep)
  local old = rcall('ZRANGEBYSCORE', key.completed, '0', now - age, 'LIMIT', '0', '100')
  if #old > 0 then
    for _, j in ipairs(old) do Job.delete(j) end
    rcall('ZREM', key.completed, unpack(old))
  end
  -- ZRANGE 0 .. -N-1: everything but the newest N; a negative N reaches only the -N oldest.
  local card = rcall('ZCARD', key.completed)
  local excess = keep >= 0 and card - keep or math.min(card, -keep)
  if excess > 0 then
    if excess > 100 then excess = 100 end
    for _, j in ipairs(rcall('ZRANGE', key.completed, 0, excess - 1)) do Job.delete(j) end
    rcall('ZREMRANGEBYRANK', key.completed, 0, excess - 1)
  end
end

-- P-RELEASE-DEPENDENTS: jobs waiting only for `jid` become waiting (or scheduled).
-- `dependents` is the members of its dependents set, read by the caller.
function Job.release_dependents(now, jid, dependents)
  local dk = key.job .. jid .. key.dependents
  for _, d in ipairs(dependents) do
    local depk = key.job .. d .. key.dependencies
    rcall('SREM', depk, jid)
    if rcall('SCARD', depk) == 0 then
      local f = rcall('HMGET', key.job .. d, 'queue', 'scheduled', 'priority')
      local q = f[1]
      if q then
        rcall('ZREM', key.queue .. q .. key.depends, d)
        if f[2] then
          rcall('ZADD', key.queue .. q .. key.scheduled, f[2], d)
          rcall('HSET', key.job .. d, 'state', 'scheduled')
          rcall('HDEL', key.job .. d, 'scheduled')
        else
          Job.enqueue(q, d, tonumber(f[3]) or 0, now)
          rcall('HSET', key.job .. d, 'state', 'waiting')
        end
      end
    end
  end
  if #dependents > 0 then rcall('DEL', dk) end
end

-- Parse `name value` pairs from ARGV[first..] (the last value of a repeated name wins).
--@inline
function Job.options(first, last)
  local opts = {}
  for i = first, last - 1, 2 do opts[A[i]] = A[i + 1] end
  return opts
end

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
function Job.put(now, requeue)
  local worker, queue, jid, klass, data, delay_s = A[3], A[4], A[5], A[6], A[7], A[8]
  if requeue then
    if jid == nil then error('Job(): no jid provided') end
    if rcall('EXISTS', key.job .. jid) == 0 then error('Requeue(): Job ' .. jid .. ' does not exist') end
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
    delay = Num.parse(delay_s)
    if delay == nil then error('Put(): Arg "delay" not a number: ' .. tostring(delay_s)) end
  end
  local n = #A
  if (n - 8) % 2 == 1 then error('Odd number of additional args') end
  -- No table at all when there are no options (the common case).
  local o_retries, o_tags, o_priority, o_depends
  if n > 8 then
    local opts = Job.options(9, n)
    o_retries, o_tags, o_priority, o_depends = opts.retries, opts.tags, opts.priority, opts.depends
  end
  -- One EXISTS tells whether the job exists (1) and whether any job is tracked (2): it
  -- counts a key once per mention. A new job then needs no HMGET, and an empty ql:tracked
  -- no ZSCORE.
  local jk = key.job .. jid
  local probe = rcall('EXISTS', jk, key.tracked, key.tracked)
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
    retries = Num.parse(o_retries)
    if retries == nil then error('Put(): Arg "retries" not a number: ' .. o_retries) end
  end
  -- Tag and dependency lists stay false when there are none.
  local old_tags = f[7] and Job.tag_list(f[7])
  local tags = old_tags
  if o_tags ~= nil then
    tags = Json.strings(decode(o_tags))
    if tags == nil then error('Put(): Arg "tags" not JSON' .. o_tags) end
  end
  local priority = f[5] and tonumber(f[5]) or 0
  if o_priority ~= nil then
    priority = Num.parse(o_priority)
    if priority == nil then error('Put(): Arg "priority" not a number' .. o_priority) end
  end
  local depends = false
  if o_depends ~= nil then
    depends = Json.strings(decode(o_depends))
    if depends == nil then error('Put(): Arg "depends" not JSON: ' .. o_depends) end
  end

  -- Writes begin here.
  local tagk = key.tags
  if f[7] then
    for _, t in ipairs(old_tags) do
      rcall('ZREM', key.tag .. t, jid)
      rcall('ZINCRBY', tagk, -1, t)
    end
  end
  local depk = key.job .. jid .. key.dependencies
  if depends and #depends > 0 then
    local wanted = {}
    for _, d in ipairs(depends) do wanted[d] = true end
    for _, d in ipairs(rcall('SMEMBERS', depk)) do
      if not wanted[d] then
        rcall('SREM', depk, d)
        rcall('SREM', key.job .. d .. key.dependents, jid)
      end
    end
  end
  -- The JSON text cjson writes for { jid, event, queue } (key order is not significant).
  local qjson = encode(queue)
  rcall('PUBLISH', key.channel .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
  local tstr = Num.time_text(now)
  local whole = Num.whole_text(now, tstr)
  Job.hist(jid, now, '"put"', '{"q":' .. qjson .. '}', f[9] or false, whole)
  local old_queue, old_state, old_worker = f[3], f[2], f[4]
  if old_queue then
    Queue.unlist(old_queue, jid)
    rcall('ZREM', key.queue .. old_queue .. key.depends, jid)
    if old_state == 'running' then Job.left_running(old_queue) end
  end
  if old_worker and old_worker ~= '' then
    rcall('ZREM', key.worker .. old_worker .. key.jobs, jid)
    if old_worker ~= worker then
      local msg = encode({ jid = jid, event = 'lock_lost', worker = old_worker })
      rcall('PUBLISH', key.worker .. old_worker, msg)
      rcall('PUBLISH', key.channel .. 'log', msg)
    end
  end
  if old_state == 'complete' then rcall('ZREM', key.completed, jid) end
  if tags then
    for _, t in ipairs(tags) do
      rcall('ZADD', key.tag .. t, now, jid)
      rcall('ZINCRBY', tagk, 1, t)
    end
  end
  if old_state == 'failed' then
    local failure = Stats.unfailed(now, f[8], queue)
    if failure then Job.unlist_failure(jid, failure.group) end
  end
  if depends then
    for _, d in ipairs(depends) do
      if d == jid then
        -- The reference writes the hash before linking, so a job may depend on itself.
        rcall('SADD', depk, d)
        rcall('SADD', key.job .. d .. key.dependents, jid)
      else
        Job.link(jid, d)
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
    rcall('ZADD', key.queue .. queue .. key.depends, now, jid)
    if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
  elseif delay > 0 then
    rcall('ZADD', key.queue .. queue .. key.scheduled, now + delay, jid)
  else
    Job.enqueue(queue, jid, priority, now)
  end
  local now_arg = Num.score_arg(now, tstr)
  rcall('ZADD', key.queues, 'NX', now_arg, queue)
  if probe >= 2 and rcall('ZSCORE', key.tracked, jid) then
    rcall('PUBLISH', key.channel .. 'put', jid)
  end
  return jid
end

-- requeue: exactly put, for a job that must already exist.
function Job.requeue(now) return Job.put(now, true) end

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
function Job.complete(now)
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
    local opts = Job.options(7, #A)
    nextq = opts.next
    if opts.delay ~= nil then
      delay = Num.parse(opts.delay)
      if delay == nil then error('assertion failed!') end
    end
    if opts.depends ~= nil then
      depends = Json.strings(decode(opts.depends))
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
  local jk = key.job .. jid
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
  local sk = key.queue .. queue .. key.scheduled
  local probe = rcall('EXISTS', key.queue .. queue .. key.work, sk, sk)
  local dk = jk .. key.dependents
  local special = rcall('EXISTS', key.config, key.tracked, dk) > 0
  if special then
    Config.prefetch('max-job-history', 'jobs-history', 'jobs-history-count',
      queue .. '-max-concurrency')
  else
    cfg = false
  end
  local tstr = Num.time_text(now)
  local whole = Num.whole_text(now, tstr)
  Job.hist(jid, now, '"done"', nil, f[4] or false, whole)
  Queue.unlist(queue, jid, probe)
  Stats.sample(now, 'run', queue, now - (tonumber(f[5]) or now))
  rcall('ZREM', key.worker .. worker .. key.jobs, jid)
  if special and rcall('ZSCORE', key.tracked, jid) then
    rcall('PUBLISH', key.channel .. 'completed', jid)
  end
  Job.left_running(queue)
  local retries = f[6] or 0
  if nextq ~= nil then
    rcall('PUBLISH', key.channel .. 'log',
      encode({ jid = jid, event = 'advanced', queue = queue, to = nextq }))
    Job.hist(jid, now, '"put"', '{"q":' .. encode(nextq) .. '}', false, whole)
    local now_arg = Num.score_arg(now, tstr)
    rcall('ZADD', key.queues, 'NX', now_arg, nextq)
    rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'waiting', 'worker', '',
      'failure', '{}', 'queue', nextq, 'expires', '0', 'remaining', retries)
    if delay > 0 and (depends == nil or #depends == 0) then
      rcall('ZADD', key.queue .. nextq .. key.scheduled, now + delay, jid)
      return 'scheduled'
    end
    local linked = 0
    for _, d in ipairs(depends or {}) do
      if Job.link(jid, d) then linked = linked + 1 end
    end
    if linked > 0 then
      rcall('ZADD', key.queue .. nextq .. key.depends, now, jid)
      rcall('HSET', jk, 'state', 'depends')
      if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
      return 'depends'
    end
    Job.enqueue(nextq, jid, tonumber(f[7]) or 0, now)
    return 'waiting'
  end
  rcall('PUBLISH', key.channel .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"completed","queue":' .. encode(queue) .. '}')
  rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'complete', 'worker', '',
    'failure', '{}', 'queue', '', 'expires', '0', 'remaining', retries)
  local now_arg = Num.score_arg(now, tstr)
  rcall('ZADD', key.completed, now_arg, jid)
  Job.expire_completed(now)
  if special then
    local dependents = rcall('SMEMBERS', dk)
    if #dependents > 0 then Job.release_dependents(now, jid, dependents) end
  end
  return 'complete'
end

-- fail <now> <jid> <worker> <group> <message> [data]
-- Reply: the jid. Events: ql:log failed, then ql:failed (tracked).
-- Errors: Job(): no jid provided / Fail(): Arg "worker" missing / Fail(): Arg "group" missing /
-- Fail(): Arg "message" missing / cjson error (data) / Fail(): Job <jid>does not exist /
-- Fail(): Job <jid>not currently running: <state> / Fail(): Job <jid> running with another
-- worker: <w>
--@inline
function Job.fail(now)
  local jid, worker, group, message, data = A[3], A[4], A[5], A[6], A[7]
  if jid == nil then error('Job(): no jid provided') end
  if worker == nil then error('Fail(): Arg "worker" missing') end
  if group == nil then error('Fail(): Arg "group" missing') end
  if message == nil then error('Fail(): Arg "message" missing') end
  local decoded
  if data ~= nil then decoded = decode(data) end
  local f = rcall('HMGET', key.job .. jid, 'state', 'worker', 'queue', 'history')
  local state, queue = f[1], f[3]
  if not state then error('Fail(): Job ' .. jid .. 'does not exist') end
  if state ~= 'running' then error('Fail(): Job ' .. jid .. 'not currently running: ' .. state) end
  if f[2] ~= worker then
    error('Fail(): Job ' .. jid .. ' running with another worker: ' .. tostring(f[2]))
  end
  queue = queue or ''
  rcall('PUBLISH', key.channel .. 'log', encode({ jid = jid, event = 'failed', worker = worker,
    group = group, message = message }))
  Job.notify(jid, 'failed')
  rcall('ZREM', key.worker .. worker .. key.jobs, jid)
  Job.hist(jid, now, '"failed"', { worker = worker, group = group }, f[4] or false)
  Stats.count(now, now, queue, 'failures', 1, 'failed', 1)
  Queue.unlist(queue, jid)
  Job.left_running(queue)
  if decoded ~= nil and decoded ~= false then rcall('HSET', key.job .. jid, 'data', encode(decoded)) end
  Job.park_failed(jid, group,
    { group = group, message = message, when = floor(now), worker = worker })
  return jid
end

-- retry <now> <jid> <queue> <worker> [delay] [group] [message]
-- Reply: integer, retries remaining (-1 when the job failed). Events: ql:failed (tracked) on
-- exhaustion (no ql:log event there, as in the reference).
-- Errors: Job(): no jid provided / Retry(): Arg "queue" missing / Retry(): Arg "worker"
-- missing / Retry(): Arg "delay" not a number: <x> / Retry(): Job <jid> does not exist /
-- ... is not currently running: <state> / ... has been given to another worker: <w>
--@inline
function Job.retry(now)
  local jid, queue, worker, delay_s, group, message = A[3], A[4], A[5], A[6], A[7], A[8]
  if jid == nil then error('Job(): no jid provided') end
  if queue == nil then error('Retry(): Arg "queue" missing') end
  if worker == nil then error('Retry(): Arg "worker" missing') end
  local delay = 0
  if delay_s ~= nil then
    delay = Num.parse(delay_s)
    if delay == nil then error('Retry(): Arg "delay" not a number: ' .. delay_s) end
  end
  local f = rcall('HMGET', key.job .. jid, 'state', 'worker', 'queue', 'priority', 'history')
  local state = f[1]
  if not state then error('Retry(): Job ' .. jid .. ' does not exist') end
  if state ~= 'running' then error('Retry(): Job ' .. jid .. ' is not currently running: ' .. state) end
  if f[2] ~= worker then
    error('Retry(): Job ' .. jid .. ' has been given to another worker: ' .. tostring(f[2]))
  end
  local jk = key.job .. jid
  -- HINCRBYFLOAT: a fractional budget (retries 2.5) must not make this fail.
  local remaining = tonumber(rcall('HINCRBYFLOAT', jk, 'remaining', -1))
  rcall('HDEL', jk, 'grace')
  rcall('ZREM', key.queue .. (f[3] or '') .. key.locks, jid)
  rcall('ZREM', key.worker .. worker .. key.jobs, jid)
  Job.left_running(f[3])
  if remaining < 0 then
    group = group or ('failed-retries-' .. queue)
    Job.hist(jid, now, '"failed"', { group = group }, f[5] or false)
    local failure
    if message ~= nil then
      failure = { group = group, message = message, when = floor(now), worker = worker }
    else
      failure = { group = group, worker = '', when = now,
        message = 'Job exhausted retries in queue "' .. tostring(f[3]) .. '"' }
    end
    Job.notify(jid, 'failed')
    Job.park_failed(jid, group, failure)
    Stats.count(now, now, queue, 'failures', 1, 'failed', 1)
  else
    if delay > 0 then
      rcall('ZADD', key.queue .. queue .. key.scheduled, now + delay, jid)
      rcall('HSET', jk, 'state', 'scheduled')
    else
      Job.enqueue(queue, jid, tonumber(f[4]) or 0, now)
      rcall('HSET', jk, 'state', 'waiting')
    end
    if group ~= nil and message ~= nil then
      rcall('HSET', jk, 'failure',
        encode({ group = group, message = message, when = floor(now), worker = worker }))
    end
  end
  return floor(remaining)
end

-- heartbeat <now> <jid> <worker> [data]
-- Reply: integer, the new lock expiry truncated to seconds.
-- Errors: Job(): no jid provided / Heatbeat(): Arg "worker" missing (sic) / cjson error (data)
-- / Heartbeat(): Job <jid> does not exist / ... not currently running: <state> / ... given out
-- to another worker: <w>
--@inline
function Job.heartbeat(now)
  local jid, worker, data = A[3], A[4], A[5]
  if jid == nil then error('Job(): no jid provided') end
  if worker == nil then error('Heatbeat(): Arg "worker" missing') end
  local decoded
  if data ~= nil then decoded = decode(data) end
  local f = rcall('HMGET', key.job .. jid, 'worker', 'state', 'queue')
  local queue = f[3] or ''
  local lock = Config.heartbeat(queue)
  local expires = now + lock
  if not f[1] then error('Heartbeat(): Job ' .. jid .. ' does not exist') end
  if f[2] ~= 'running' then
    error('Heartbeat(): Job ' .. jid .. ' not currently running: ' .. tostring(f[2]))
  end
  if f[1] ~= worker or f[1] == '' then
    error('Heartbeat(): Job ' .. jid .. ' given out to another worker: ' .. f[1])
  end
  local jk = key.job .. jid
  if decoded ~= nil and decoded ~= false then
    rcall('HSET', jk, 'expires', expires, 'worker', worker, 'data', encode(decoded))
  else
    rcall('HSET', jk, 'expires', expires, 'worker', worker)
  end
  rcall('ZADD', key.worker .. worker .. key.jobs, expires, jid)
  rcall('ZADD', key.workers, now, worker)
  rcall('ZADD', key.queue .. queue .. key.locks, expires, jid)
  return expires
end

-- get <now> <jid>: the job object, or nil. Error: Job(): no jid provided
function Job.get(now)
  local jid = A[3]
  if jid == nil then error('Job(): no jid provided') end
  return Job.render(jid) or false
end

-- multiget <now> [jid...]: JSON array of the existing jobs, in argument order ({} if none).
function Job.multiget(now)
  local parts = {}
  for i = 3, #A do parts[#parts + 1] = Job.render(A[i]) end
  return Json.list(parts)
end

-- Cancel one job that is not complete (protocol 3.10, per-jid part).
function Job.cancel_one(jid, f)
  local state, queue, failure, worker = f[1], f[2], f[3], f[4]
  local msg = encode({ jid = jid, worker = worker, event = 'canceled', queue = queue })
  rcall('PUBLISH', key.channel .. 'log', msg)
  if worker and worker ~= '' then
    rcall('ZREM', key.worker .. worker .. key.jobs, jid)
    rcall('PUBLISH', key.worker .. worker, msg)
  end
  if queue then
    Queue.unlist(queue, jid)
    rcall('ZREM', key.queue .. queue .. key.depends, jid)
    if state == 'running' then Job.left_running(queue) end
  end
  local depk = key.job .. jid .. key.dependencies
  for _, b in ipairs(rcall('SMEMBERS', depk)) do rcall('SREM', key.job .. b .. key.dependents, jid) end
  rcall('DEL', depk)
  if state == 'failed' then
    local ok, fo = pcall(decode, failure or '{}')
    if ok and type(fo) == 'table' then
      Job.unlist_failure(jid, fo.group)
      local when = Num.parse(fo.when)
      if when then
        -- The reference fails with a Lua error when the counter is missing; leave it alone.
        local sk = Stats.key('stats', Stats.day(when), queue or '')
        if rcall('HEXISTS', sk, 'failed') == 1 then rcall('HINCRBY', sk, 'failed', -1) end
      end
    end
  end
  for _, t in ipairs(Job.tag_list(f[5])) do
    rcall('ZREM', key.tag .. t, jid)
    rcall('ZINCRBY', key.tags, -1, t)
  end
  Job.notify(jid, 'canceled')
  rcall('DEL', key.job .. jid, key.job .. jid .. key.history)
end

-- cancel <now> [jid...]
-- Reply: array of the jids passed. Events per job: ql:log canceled, ql:w:<worker> canceled,
-- ql:canceled (tracked). Error: Cancel(): <jid> is a dependency of <dependent> but is not
-- mentioned to be canceled (checked before any write).
function Job.cancel(now)
  local n = #A
  local listed, out = {}, {}
  for i = 3, n do listed[A[i]] = true end
  for i = 3, n do
    local jid = A[i]
    for _, d in ipairs(rcall('SMEMBERS', key.job .. jid .. key.dependents)) do
      if not listed[d] then
        error('Cancel(): ' .. jid .. ' is a dependency of ' .. d ..
          ' but is not mentioned to be canceled')
      end
    end
  end
  for i = 3, n do
    local jid = A[i]
    out[#out + 1] = jid
    local f = rcall('HMGET', key.job .. jid, 'state', 'queue', 'failure', 'worker', 'tags')
    if f[1] ~= 'complete' then Job.cancel_one(jid, f) end
  end
  return out
end

-- timeout <now> <jid>...
-- Every jid is checked before any is timed out. Reply nil. Events per job:
-- ql:w:<worker> lock_lost, then ql:log lock_lost.
-- Errors: Timeout(): Job <jid> does not exist / Timeout(): Job <jid> not running
function Job.timeout(now)
  local n = #A
  local rows, seen = {}, {}
  for i = 3, n do
    local jid = A[i]
    local f = rcall('HMGET', key.job .. jid, 'queue', 'state', 'worker', 'history')
    if not f[1] then error('Timeout(): Job ' .. jid .. ' does not exist') end
    -- A jid listed twice would no longer be running the second time.
    if f[2] ~= 'running' or seen[jid] then error('Timeout(): Job ' .. jid .. ' not running') end
    seen[jid] = true
    rows[i] = f
  end
  for i = 3, n do
    local jid, f = A[i], rows[i]
    local queue = f[1]
    Job.hist(jid, now, '"timed-out"', nil, f[4] or false)
    rcall('ZREM', key.queue .. queue .. key.locks, jid)
    rcall('ZADD', key.queue .. queue .. key.work, '+inf', jid)
    Wake.queue(queue)
    rcall('HSET', key.job .. jid, 'state', 'stalled', 'expires', 0)
    local msg = encode({ jid = jid, event = 'lock_lost', worker = f[3] })
    rcall('PUBLISH', key.worker .. (f[3] or ''), msg)
    rcall('PUBLISH', key.channel .. 'log', msg)
  end
  return nil
end

-- Move a job out of the depends state into its queue's work set (depends off).
function Job.undepend(now, jid, f)
  local queue = f[2]
  if queue then
    rcall('ZREM', key.queue .. queue .. key.depends, jid)
    Job.enqueue(queue, jid, tonumber(f[3]) or 0, now)
    rcall('HSET', key.job .. jid, 'state', 'waiting')
  end
end

-- depends <now> <jid> on <jid>... | off <jid>... | off all
-- Reply: 1. Errors: Job(): no jid provided / Depends(): Arg "command" missing / Depends(): Job
-- <jid> not in the depends state: <state> / Depends(): Argument "command" must be "on" or "off"
function Job.depends(now)
  local jid, command = A[3], A[4]
  if jid == nil then error('Job(): no jid provided') end
  if command == nil then error('Depends(): Arg "command" missing') end
  local f = rcall('HMGET', key.job .. jid, 'state', 'queue', 'priority')
  if f[1] ~= 'depends' then
    error('Depends(): Job ' .. jid .. ' not in the depends state: ' .. tostring(f[1]))
  end
  local depk = key.job .. jid .. key.dependencies
  if command == 'on' then
    for i = 5, #A do Job.link(jid, A[i]) end
  elseif command == 'off' then
    if A[5] == 'all' then
      for _, b in ipairs(rcall('SMEMBERS', depk)) do rcall('SREM', key.job .. b .. key.dependents, jid) end
      rcall('DEL', depk)
      Job.undepend(now, jid, f)
    elseif #A >= 5 then
      for i = 5, #A do
        rcall('SREM', depk, A[i])
        rcall('SREM', key.job .. A[i] .. key.dependents, jid)
      end
      if rcall('SCARD', depk) == 0 then Job.undepend(now, jid, f) end
    end
  else
    error('Depends(): Argument "command" must be "on" or "off"')
  end
  return 1
end

-- priority <now> <jid> <priority>
-- Reply: the priority truncated toward zero. Errors: Job(): no jid provided / Priority(): Arg
-- "priority" missing or not a number: <x> / Priority(): Job <jid> does not exist
function Job.priority(now)
  local jid, p_s = A[3], A[4]
  if jid == nil then error('Job(): no jid provided') end
  local p = Num.parse(p_s)
  if p == nil then error('Priority(): Arg "priority" missing or not a number: ' .. tostring(p_s)) end
  local queue = rcall('HGET', key.job .. jid, 'queue')
  if not queue then error('Priority(): Job ' .. jid .. ' does not exist') end
  rcall('HSET', key.job .. jid, 'priority', p)
  local wk = key.queue .. queue .. key.work
  if rcall('ZSCORE', wk, jid) then rcall('ZADD', wk, p, jid) end
  return p
end

-- log <now> <jid> <message> [data]
-- Appends a history entry (what = message, extra = decoded data). Reply nil.
-- Errors: Log(): Argument 'jid' missing / Log(): Argument 'message' missing / cjson error /
-- Log(): Argument 'data' not cjson: <x> / Log(): Job <jid> does not exist
function Job.log(now)
  local jid, message, data = A[3], A[4], A[5]
  if jid == nil then error("Log(): Argument 'jid' missing") end
  if message == nil then error("Log(): Argument 'message' missing") end
  local extra
  if data ~= nil then
    extra = decode(data)
    if extra == false then error("Log(): Argument 'data' not cjson: " .. data) end
  end
  if rcall('EXISTS', key.job .. jid) == 0 then error('Log(): Job ' .. jid .. ' does not exist') end
  -- Pass the extra as JSON text: a decoded JSON string must not be taken for JSON text.
  if extra ~= nil then extra = encode(extra) end
  Job.hist(jid, now, encode(message), extra)
  return nil
end
