-- put and requeue: create a job, or move an existing one, into a queue.

-- Parse `name value` pairs from ARGV[first..] (the last value of a repeated name wins).
--@inline
function Job.options(first, last)
  local opts = {}
  for i = first, last - 1, 2 do opts[A[i]] = A[i + 1] end
  return opts
end

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
function Job.put(now, requeue)
  local worker, queue, jid, klass, data, delay_s = A[3], A[4], A[5], A[6], A[7], A[8]
  if requeue then
    if jid == nil then error('Job(): no jid provided') end
    if rcall('EXISTS', key.job .. jid) == 0 then
      error('Requeue(): Job ' .. jid .. ' does not exist')
    end
  end
  local n = #A
  if n == 8 then
    -- No options (the common put): nothing to parse, and no values to pass along.
    local delay = Job.put_check(queue, jid, klass, data, delay_s)
    return Job.put_write(now, worker, queue, jid, klass, data, delay, nil, nil, nil, false,
      nil, nil, nil, false, nil, nil)
  end
  local delay, retries, tags, priority, depends, throttles, okey, ttl, unique =
    Job.put_args(queue, jid, klass, data, delay_s, 9, n)
  return Job.put_write(now, worker, queue, jid, klass, data, delay, retries, tags, priority,
    depends, throttles, okey, ttl, unique, nil, nil)
end

-- The checked positional arguments of one put; returns its delay.
--@inline
function Job.put_check(queue, jid, klass, data, delay_s)
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
  return delay
end

-- The checked arguments of one put whose options are ARGV[first..last]: delay, then the
-- options given (nil when not given; depends false, unique false).
--@inline
function Job.put_args(queue, jid, klass, data, delay_s, first, last)
  local delay = Job.put_check(queue, jid, klass, data, delay_s)
  if (last - first + 1) % 2 == 1 then error('Odd number of additional args') end
  -- No table at all when there are no options (the common case).
  if last < first then return delay, nil, nil, nil, false, nil, nil, nil, false end
  local opts = Job.options(first, last)
  local retries, tags, priority, depends, throttles, okey, ttl, unique = Job.put_options(opts)
  return delay, retries, tags, priority, depends, throttles, okey, ttl, unique
end

-- A put's options, checked in this order: retries, tags, priority, depends (false when not
-- given), throttles (a list), key, ttl, unique (a boolean).
--@inline
function Job.put_options(opts)
  local retries, tags, priority, depends = nil, nil, nil, false
  if opts.retries ~= nil then
    retries = Num.parse(opts.retries)
    if retries == nil then error('Put(): Arg "retries" not a number: ' .. opts.retries) end
  end
  if opts.tags ~= nil then
    tags = Json.strings(decode(opts.tags))
    if tags == nil then error('Put(): Arg "tags" not JSON' .. opts.tags) end
  end
  if opts.priority ~= nil then
    priority = Num.parse(opts.priority)
    if priority == nil then error('Put(): Arg "priority" not a number' .. opts.priority) end
  end
  if opts.depends ~= nil then
    depends = Json.strings(decode(opts.depends))
    if depends == nil then error('Put(): Arg "depends" not JSON: ' .. opts.depends) end
  end
  local throttles, okey, ttl, unique = nil, nil, nil, false
  if opts.throttles ~= nil or opts.key ~= nil or opts.ttl ~= nil then
    throttles, okey, ttl, unique = Job.flow_options(opts, 'Put()')
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

-- The throttles, key and ttl options of put or recur (`who`: 'Put()' or 'Recur()'), and
-- false for unique. throttles is the list given (possibly empty), nil when absent.
function Job.flow_options(opts, who)
  local throttles, okey, ttl
  if opts.throttles ~= nil then
    local ok, v = pcall(decode, opts.throttles)
    throttles = ok and Json.strings(v)
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
    ttl = Num.parse(opts.ttl)
    if ttl == nil then error(who .. ': Arg "ttl" not a number: ' .. opts.ttl) end
    if ttl <= 0 then error(who .. ': Arg "ttl" must be greater than 0: ' .. opts.ttl) end
  end
  return throttles, okey, ttl, false
end

-- Store the throttle list `text` (JSON), ordering key and ttl of job `jid` of `queue`, those
-- given. A job with a key or a ttl always has a `throttles` field (the queue's own tid
-- alone, as a dialect core writes for every job): the commands a worker sends for every
-- job read that one field to learn whether the job uses any extension. Returns the list
-- stored.
function Job.store_flow(jid, queue, text, okey, ttl)
  if not text then text = encode({ key.queue .. queue }) end
  local args = { 'throttles', text }
  if okey then args[#args + 1], args[#args + 2] = 'key', okey end
  if ttl then args[#args + 1], args[#args + 2] = 'ttl', ttl end
  rcall('HSET', key.job .. jid, unpack(args))
  return text
end

-- The writes of one put, after Job.put_args. `probe` is the put's EXISTS bit set when the
-- caller knows it (qlpy.put_many); with `batch` (a list) a job that becomes waiting is not
-- added to the work set but appended to it as score, jid, and ql:queues is left to the
-- caller. Returns the jid, or false when `unique` left an unfinished job alone.
--@inline
function Job.put_write(now, worker, queue, jid, klass, data, delay, o_retries, o_tags,
    o_priority, depends, given, okey, ttl, unique, probe, batch)
  -- One EXISTS tells whether the job exists (1) and whether any job is tracked (2): it
  -- counts a key once per mention. A new job then needs no HMGET, and an empty ql:tracked
  -- no ZSCORE.
  local jk = key.job .. jid
  if not probe then
    probe = rcall('EXISTS', jk, key.tracked, key.tracked)
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
  local old_tags = f[7] and Job.tag_list(f[7])
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
      stored = Throttle.moved(given, f[3], queue)
    else
      stored = Throttle.stored(given, queue)
    end
    if stored then stored = encode(stored) end
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
  local qjson = encode(queue)
  local tstr = Num.time_text(now)
  local whole = Num.whole_text(now, tstr)
  -- The history entry comes before the event: at the memory limit the server refuses a
  -- script's first write that needs memory, and a refused put must not have announced
  -- itself (docs/operations.md, "At the memory limit").
  Job.hist(jid, now, '"put"', '{"q":' .. qjson .. '}', f[9] or false, whole)
  -- The JSON text cjson writes for { jid, event, queue } (key order is not significant).
  rcall('PUBLISH', key.channel .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
  local old_queue, old_state, old_worker = f[3], f[2], f[4]
  if old_queue then
    Queue.unlist(old_queue, jid)
    rcall('ZREM', key.queue .. old_queue .. key.depends, jid)
    if old_state == 'throttled' then
      rcall('ZREM', key.queue .. old_queue .. key.throttled, jid)
    end
    if f[12] then rcall('ZREM', key.queue .. old_queue .. key.expiring, jid) end
  end
  if f[10] or f[11] or f[12] then
    -- The job gives back its throttles and its place in its ordering key; a put sets them
    -- afresh.
    Job.leave(now, jid, old_queue, f[10], f[11] or nil)
    rcall('HDEL', jk, 'throttles', 'key', 'ttl')
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
    stored = Job.store_flow(jid, queue, stored, okey, ttl)
    if okey then Order.join(queue, okey, jid) end
  end
  if has_deps then
    rcall('ZADD', key.queue .. queue .. key.depends, now, jid)
    if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
  elseif delay > 0 then
    rcall('ZADD', key.queue .. queue .. key.scheduled, now + delay, jid)
  elseif flow then
    Job.ready(now, queue, jid, priority, stored, okey, ttl, now, state)
  elseif batch then
    -- The work-set score of Job.enqueue (protocol 2.8).
    batch[#batch + 1] = priority - (now / 10000000000)
    batch[#batch + 1] = jid
  else
    Job.enqueue(queue, jid, priority, now)
  end
  if not batch then
    local now_arg = Num.score_arg(now, tstr)
    rcall('ZADD', key.queues, 'NX', now_arg, queue)
  end
  if probe >= 2 and rcall('ZSCORE', key.tracked, jid) then
    rcall('PUBLISH', key.channel .. 'put', jid)
  end
  return jid
end

-- requeue: exactly put, for a job that must already exist.
function Job.requeue(now) return Job.put(now, true) end
