-- Steps of a job's state changes that several commands share: entering a queue's work
-- set, leaving a running slot, parking in a failure group.

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
