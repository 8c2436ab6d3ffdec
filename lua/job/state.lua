-- Steps of a job's state changes that several commands share: entering a queue's work
-- set, leaving a running slot, parking in a failure group.

-- P-WORK: make `jid` waiting in `queue` as of time `t`.
--@inline
function Job.enqueue(queue, jid, priority, t)
  local score = priority - (t / 10000000000)  -- the work-set score (protocol 2.8)
  rcall('ZADD', key.queue .. queue .. key.work, score, jid)
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
