-- complete: a job is done, or advances to its next queue; completed jobs expire.

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
function Job.complete(now)
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
  local jk = key.job .. jid
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
  -- The job gives back its throttles and lets the next job of its ordering key start.
  local okey, ttl_s = nil, nil
  if f[7] then
    okey, ttl_s = Job.flow_leave(now, jid, queue, f[7])
  end
  local retries = f[6] or 0
  if nextq ~= nil then
    rcall('PUBLISH', key.channel .. 'log',
      encode({ jid = jid, event = 'advanced', queue = queue, to = nextq }))
    Job.hist(jid, now, '"put"', '{"q":' .. encode(nextq) .. '}', false, whole)
    local now_arg = Num.score_arg(now, tstr)
    rcall('ZADD', key.queues, 'NX', now_arg, nextq)
    rcall('HSET', jk, 'data', data, 'time', tstr, 'state', 'waiting', 'worker', '',
      'failure', '{}', 'queue', nextq, 'expires', '0', 'remaining', retries)
    local flow = f[7]
    if delay > 0 and (depends == nil or #depends == 0) then
      if flow then Job.enter(now, jid, queue, nextq, f[7], okey, ttl_s, 0, false) end
      rcall('ZADD', key.queue .. nextq .. key.scheduled, now + delay, jid)
      return 'scheduled'
    end
    local linked = 0
    for _, d in ipairs(depends or {}) do
      if Job.link(jid, d) then linked = linked + 1 end
    end
    if linked > 0 then
      if flow then Job.enter(now, jid, queue, nextq, f[7], okey, ttl_s, 0, false) end
      rcall('ZADD', key.queue .. nextq .. key.depends, now, jid)
      rcall('HSET', jk, 'state', 'depends')
      if delay > 0 then rcall('HSET', jk, 'scheduled', now + delay) end
      return 'depends'
    end
    local priority = tonumber(f[8]) or 0
    if flow then
      if Job.enter(now, jid, queue, nextq, f[7], okey, ttl_s, priority, true) then
        return 'throttled'
      end
      return 'waiting'
    end
    Job.enqueue(nextq, jid, priority, now)
    return 'waiting'
  end
  if handoff then Job.hand_off(jid, data, handoff) end
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

-- The next stage of completed job `jid` goes to another namespace: a put there, through the
-- outbox, with the job's class, priority, tags and retries and the completing data.
function Job.hand_off(jid, data, h)
  local f = rcall('HMGET', key.job .. jid, 'klass', 'priority', 'tags', 'retries')
  Remote.send({ op = 'put', p = h.p, jid = jid, queue = h.queue, klass = f[1], data = data,
    priority = f[2] or '0', tags = f[3] or '{}', retries = f[4] or '5',
    delay = h.delay, depends = h.depends and encode(h.depends) or nil })
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

-- Delete a job entirely (completed-job expiry): its tags, hash and history.
function Job.delete(jid)
  local tags = Job.tag_list(rcall('HGET', key.job .. jid, 'tags'))
  for _, t in ipairs(tags) do
    rcall('ZREM', key.tag .. t, jid)
    rcall('ZINCRBY', key.tags, -1, t)
  end
  rcall('DEL', key.job .. jid, key.job .. jid .. key.history)
end
