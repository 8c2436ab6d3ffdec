-- fail and retry: a worker gives a job up, for good or for another try.

-- fail <now> <jid> <worker> <group> <message> [data]
-- Reply: the jid. Events: ql:log failed, then ql:failed (tracked). The job gives back its
-- throttles and its ordering key's turn.
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
  local f = rcall('HMGET', key.job .. jid, 'state', 'worker', 'queue', 'history', 'throttles',
    'key')
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
  if f[5] or f[6] then Job.leave(now, jid, queue, f[5], f[6] or nil) end
  if decoded ~= nil and decoded ~= false then rcall('HSET', key.job .. jid, 'data', encode(decoded)) end
  Job.park_failed(jid, group,
    { group = group, message = message, when = floor(now), worker = worker })
  return jid
end

-- retry <now> <jid> <queue> <worker> [delay] [group] [message]
-- Reply: integer, retries remaining (-1 when the job failed). Events: ql:failed (tracked) on
-- exhaustion (no ql:log event there, as in the reference). The job gives back its
-- throttles, and keeps its ordering key's turn (it runs again before the key's next job)
-- unless its retries are exhausted. A job with a ttl must start again within it.
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
  local f = rcall('HMGET', key.job .. jid, 'state', 'worker', 'queue', 'priority', 'history',
    'throttles', 'key', 'ttl')
  local state = f[1]
  if not state then error('Retry(): Job ' .. jid .. ' does not exist') end
  if state ~= 'running' then
    error('Retry(): Job ' .. jid .. ' is not currently running: ' .. state)
  end
  if f[2] ~= worker then
    error('Retry(): Job ' .. jid .. ' has been given to another worker: ' .. tostring(f[2]))
  end
  local jk = key.job .. jid
  -- HINCRBYFLOAT: a fractional budget (retries 2.5) must not make this fail.
  local remaining = tonumber(rcall('HINCRBYFLOAT', jk, 'remaining', -1))
  rcall('HDEL', jk, 'grace')
  rcall('ZREM', key.queue .. (f[3] or '') .. key.locks, jid)
  rcall('ZREM', key.worker .. worker .. key.jobs, jid)
  -- The job gives back its throttles: it takes them again when it is popped again, behind
  -- the jobs waiting for them. It keeps its ordering key's turn unless it fails here.
  if f[6] then Job.leave(now, jid, f[3], f[6], nil) end
  if remaining < 0 then
    if f[7] then Job.leave(now, jid, f[3], nil, f[7]) end
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
    elseif f[6] or f[7] or f[8] then
      if not Job.ready(now, queue, jid, tonumber(f[4]) or 0, f[6], f[7] or nil,
          tonumber(f[8]), now, 'running') then
        rcall('HSET', jk, 'state', 'waiting')
      end
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
