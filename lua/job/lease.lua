-- A running job's lease: heartbeat renews it, timeout ends it now.

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

-- timeout <now> <jid>...
-- Every jid is checked before any is timed out. Reply nil. Events per job:
-- ql:w:<worker> lock_lost, then ql:log lock_lost. A job gives back its throttles and keeps
-- its ordering key's turn.
-- Errors: Timeout(): Job <jid> does not exist / Timeout(): Job <jid> not running
function Job.timeout(now)
  local n = #A
  local rows, seen = {}, {}
  for i = 3, n do
    local jid = A[i]
    local f = rcall('HMGET', key.job .. jid, 'queue', 'state', 'worker', 'history', 'priority',
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
    Job.hist(jid, now, '"timed-out"', nil, f[4] or false)
    rcall('ZREM', key.queue .. queue .. key.locks, jid)
    if f[6] or f[7] or f[8] then
      -- It gives back its throttles and keeps its ordering key's turn; ahead of every job
      -- when the gate lets it into the work set.
      if f[6] then Job.leave(now, jid, queue, f[6], nil) end
      if Job.ready(now, queue, jid, math.huge, f[6], f[7] or nil, tonumber(f[8]), now,
          'running') then
        rcall('HSET', key.job .. jid, 'expires', 0)
      else
        rcall('HSET', key.job .. jid, 'state', 'stalled', 'expires', 0)
      end
    else
      rcall('ZADD', key.queue .. queue .. key.work, '+inf', jid)
      rcall('HSET', key.job .. jid, 'state', 'stalled', 'expires', 0)
    end
    local msg = encode({ jid = jid, event = 'lock_lost', worker = f[3] })
    rcall('PUBLISH', key.worker .. (f[3] or ''), msg)
    rcall('PUBLISH', key.channel .. 'log', msg)
  end
  return nil
end
