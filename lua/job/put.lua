-- put and requeue: create a job, or move an existing one, into a queue.

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
    if rcall('EXISTS', key.job .. jid) == 0 then
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
