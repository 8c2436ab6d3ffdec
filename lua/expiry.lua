-- Expiring jobs (extension, docs/protocol.md "Expiring jobs"): a job put with a ttl must
-- start within ttl seconds of becoming ready to run, or the core removes it as cancel would
-- and publishes `expired`. key.queue .. queue .. key.expiring holds the queue's jobs that
-- have such a deadline and have not started, scored by the deadline. The listings, peek
-- and a pop that comes up short or meets a due job remove the due ones, at most REAP per
-- call; pop and the gate check a job's own deadline before they let it on, so that a due
-- job never starts however many expire at once.

local REAP = 25

-- Job `jid` of `queue` must start by `deadline`.
function Expire.arm(queue, jid, deadline)
  rcall('ZADD', key.queue .. queue .. key.expiring, deadline, jid)
end

-- Remove up to REAP jobs of `queue` whose deadline has passed.
function Expire.reap(now, queue)
  local due = rcall('ZRANGEBYSCORE', key.queue .. queue .. key.expiring, '-inf', now, 'LIMIT',
    0, REAP)
  for _, jid in ipairs(due) do Job.expire(now, jid, queue) end
end

-- Reap `queue` when its deadline set exists (the listings' check).
function Expire.check(now, queue)
  if rcall('EXISTS', key.queue .. queue .. key.expiring) == 1 then Expire.reap(now, queue) end
end

-- Expire `jid` of `queue` when its deadline has passed: true then.
function Expire.due(now, queue, jid)
  local deadline = tonumber(rcall('ZSCORE', key.queue .. queue .. key.expiring, jid))
  if deadline and deadline <= now then
    Job.expire(now, jid, queue)
    return true
  end
  return false
end

-- Expire job `jid`, due in `queue`: removed as cancel removes a job (its dependents keep
-- waiting for it), counted in the queue's daily `expired` statistic. Events: ql:log
-- {"jid","event":"expired","queue"}, then ql:expired (the bare jid) for a tracked job. An
-- entry whose job is gone, started or moved is only dropped.
function Job.expire(now, jid, queue)
  rcall('ZREM', key.queue .. queue .. key.expiring, jid)
  local f = rcall('HMGET', key.job .. jid, 'state', 'queue', 'failure', 'worker', 'tags',
    'throttles', 'key', 'ttl')
  local state = f[1]
  if f[2] ~= queue or (state ~= 'waiting' and state ~= 'throttled' and state ~= 'stalled') then
    return
  end
  rcall('PUBLISH', key.channel .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"expired","queue":' .. encode(queue) .. '}')
  Job.erase(now, jid, f)
  Stats.count(now, now, queue, 'expired', 1)
  Job.notify(jid, 'expired')
end
