-- Dependencies between jobs: linking, releasing dependents, and the depends command.

-- Record that job `jid` waits for `dep` when `dep` exists and is not complete.
function Job.link(jid, dep)
  if Remote.is(dep) then
    -- A job of another namespace, registered there (lua/remote.lua): waited for unless
    -- its release came first.
    if Remote.early(jid, dep) then return false end
    rcall('SADD', key.job .. jid .. key.dependencies, dep)
    return true
  end
  local st = rcall('HGET', key.job .. dep, 'state')
  if st and st ~= 'complete' then
    rcall('SADD', key.job .. jid .. key.dependencies, dep)
    rcall('SADD', key.job .. dep .. key.dependents, jid)
    return true
  end
  return false
end

-- Job `jid` no longer waits for `dep`: `dep` forgets it (through the outbox when `dep` is
-- of another namespace).
function Job.unlink(jid, dep)
  if Remote.is(dep) then
    Remote.forget(jid, dep)
  else
    rcall('SREM', key.job .. dep .. key.dependents, jid)
  end
end

-- P-RELEASE-DEPENDENTS: jobs waiting only for `jid` become waiting (or scheduled).
-- `dependents` is the members of its dependents set, read by the caller.
function Job.release_dependents(now, jid, dependents)
  local dk = key.job .. jid .. key.dependents
  for _, d in ipairs(dependents) do
    if Remote.is(d) then
      Remote.released(jid, d)
    else
      local depk = key.job .. d .. key.dependencies
      rcall('SREM', depk, jid)
      if rcall('SCARD', depk) == 0 then Job.unblock(now, d) end
    end
  end
  if #dependents > 0 then rcall('DEL', dk) end
end

-- Job `d`, whose last dependency is gone, leaves its queue's depends set: scheduled when a
-- delay is still to run (its `scheduled` field), else ready to run.
function Job.unblock(now, d)
  local f = rcall('HMGET', key.job .. d, 'queue', 'scheduled', 'priority', 'throttles', 'key',
    'ttl')
  local q = f[1]
  if not q then return end
  rcall('ZREM', key.queue .. q .. key.depends, d)
  if f[2] then
    rcall('ZADD', key.queue .. q .. key.scheduled, f[2], d)
    rcall('HSET', key.job .. d, 'state', 'scheduled')
    rcall('HDEL', key.job .. d, 'scheduled')
  else
    Job.ready_or_enqueue(now, q, d, tonumber(f[3]) or 0, f[4], f[5], f[6], 'depends')
  end
end

-- Move a job out of the depends state into its queue's work set (depends off); `f` is its
-- state, queue, priority, throttles, key and ttl.
function Job.undepend(now, jid, f)
  local queue = f[2]
  if queue then
    rcall('ZREM', key.queue .. queue .. key.depends, jid)
    Job.ready_or_enqueue(now, queue, jid, tonumber(f[3]) or 0, f[4], f[5], f[6], 'depends')
  end
end

-- depends <now> <jid> on <jid>... | off <jid>... | off all
-- Reply: 1. Errors: Job(): no jid provided / Depends(): Arg "command" missing / Depends(): Job
-- <jid> not in the depends state: <state> / Depends(): Argument "command" must be "on" or "off"
function Job.depends(now)
  local jid, command = A[3], A[4]
  if jid == nil then error('Job(): no jid provided') end
  if command == nil then error('Depends(): Arg "command" missing') end
  local f = rcall('HMGET', key.job .. jid, 'state', 'queue', 'priority', 'throttles', 'key', 'ttl')
  if f[1] ~= 'depends' then
    error('Depends(): Job ' .. jid .. ' not in the depends state: ' .. tostring(f[1]))
  end
  local depk = key.job .. jid .. key.dependencies
  if command == 'on' then
    for i = 5, #A do Job.link(jid, A[i]) end
  elseif command == 'off' then
    if A[5] == 'all' then
      for _, b in ipairs(rcall('SMEMBERS', depk)) do Job.unlink(jid, b) end
      rcall('DEL', depk)
      Job.undepend(now, jid, f)
    elseif #A >= 5 then
      for i = 5, #A do
        if rcall('SREM', depk, A[i]) == 1 or not Remote.is(A[i]) then Job.unlink(jid, A[i]) end
      end
      if rcall('SCARD', depk) == 0 then Job.undepend(now, jid, f) end
    end
  else
    error('Depends(): Argument "command" must be "on" or "off"')
  end
  return 1
end
