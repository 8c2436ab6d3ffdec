-- cancel: delete jobs that are not complete, with everything that refers to them.

-- Cancel one job that is not complete (protocol 3.10, per-jid part). `f` is Job.erase's.
function Job.cancel_one(now, jid, f)
  local queue, worker = f[2], f[4]
  local msg = encode({ jid = jid, worker = worker, event = 'canceled', queue = queue })
  rcall('PUBLISH', key.channel .. 'log', msg)
  if worker and worker ~= '' then
    rcall('ZREM', key.worker .. worker .. key.jobs, jid)
    rcall('PUBLISH', key.worker .. worker, msg)
  end
  Job.erase(now, jid, f)
  Job.notify(jid, 'canceled')
end

-- Remove a job that is not complete with everything that refers to it (cancel, expiry) but
-- its dependents, which the caller handles. `f` is the job's state, queue, failure, worker,
-- tags, throttles, key and ttl fields.
function Job.erase(now, jid, f)
  local state, queue, failure = f[1], f[2], f[3]
  if queue then
    Queue.unlist(queue, jid)
    rcall('ZREM', key.queue .. queue .. key.depends, jid)
    if state == 'throttled' then rcall('ZREM', key.queue .. queue .. key.throttled, jid) end
    if f[8] then rcall('ZREM', key.queue .. queue .. key.expiring, jid) end
  end
  if f[6] or f[7] then Job.leave(now, jid, queue, f[6], f[7] or nil) end
  local depk = key.job .. jid .. key.dependencies
  for _, b in ipairs(rcall('SMEMBERS', depk)) do Job.unlink(jid, b) end
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
      if Remote.is(d) then
        local p, dependent = Remote.parse(d)
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
    local f = rcall('HMGET', key.job .. jid, 'state', 'queue', 'failure', 'worker', 'tags',
      'throttles', 'key', 'ttl')
    if f[1] ~= 'complete' then Job.cancel_one(now, jid, f) end
  end
  return out
end
