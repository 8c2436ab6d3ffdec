-- Queues: peek, counts, listings, pause, forget; the P-PROMOTE / P-RECLAIM steps pop.lua shares.

-- Call a variadic Redis command on key `k` with the items of `list` from `first` (default
-- 1), `step` at a time (no unpack() ceiling); `step` is even for score/member pairs.
--@inline
function Queue.call_list(cmd, k, list, step, first)
  local n = #list
  for i = first or 1, n, step do
    local j = i + step - 1
    if j > n then j = n end
    rcall(cmd, k, unpack(list, i, j))
  end
end

-- Call a variadic Redis command on ARGV[first..].
function Queue.with_names(cmd, k, first)
  -- The reference leaves this to Redis's arity check; its wording differs between servers
  -- (Valkey drops "Redis"), so the protocol's phrase is raised here, before any write.
  if #A < first then error('Wrong number of args calling Redis command from script') end
  Queue.call_list(cmd, k, A, 1000, first)
end

-- A non-negative whole count from a validated number.
function Queue.whole(n)
  n = floor(n)
  if n < 0 then return 0 end
  return n
end

-- P-PROMOTE: move up to `limit` due scheduled jobs into the work set, scored at `now`.
-- `due` is the caller's ZRANGEBYSCORE result when it already has one.
function Queue.promote(now, queue, limit, due)
  if limit <= 0 then return end
  local sk = key.queue .. queue .. key.scheduled
  due = due or rcall('ZRANGEBYSCORE', sk, 0, now, 'LIMIT', 0, limit)
  for _, jid in ipairs(due) do
    local jk = key.job .. jid
    local f = rcall('HMGET', jk, 'priority', 'throttles', 'key', 'ttl')
    local priority = tonumber(f[1]) or 0
    if f[2] or f[3] or f[4] then
      -- The job became ready when its delay ended: its ttl counts from then.
      local at = tonumber(rcall('ZSCORE', sk, jid)) or now
      rcall('ZREM', sk, jid)
      if not Job.ready(now, queue, jid, priority, f[2], f[3] or nil, tonumber(f[4]), at,
          'scheduled') then
        rcall('HSET', jk, 'state', 'waiting')
      end
    else
      Job.enqueue(queue, jid, priority, now)
      rcall('ZREM', sk, jid)
      rcall('HSET', jk, 'state', 'waiting')
    end
  end
end

-- Remove `jid` from the queue's work, locks and scheduled sets (complete, lock expiry that
-- exhausts the retries; put and cancel, which also take it out of the depends set). A
-- running job is normally in the locks set only. It can also sit in the other two after a
-- retry into another queue: the lock left behind there expires and is reclaimed, handing
-- out a job that is still listed in its own queue.
-- `exist`, when the caller probed, is an EXISTS bit set (1 = the work set exists, 2 = the
-- scheduled set exists), and a set that does not exist is skipped.
--@inline
function Queue.unlist(queue, jid, exist)
  local qk = key.queue .. queue
  rcall('ZREM', qk .. key.locks, jid)
  if not exist or exist % 2 == 1 then rcall('ZREM', qk .. key.work, jid) end
  if not exist or exist % 4 >= 2 then rcall('ZREM', qk .. key.scheduled, jid) end
end

-- Lock expiry that exhausted the job's retries: fail it (protocol 4.2); it gives back its
-- throttles and its ordering key's turn.
function Queue.exhausted(now, queue, jid, f)
  local jq = f[3] or queue
  Queue.unlist(queue, jid)
  if f[6] or f[7] then Job.leave(now, jid, jq, f[6], f[7] or nil) end
  -- The group names the job's own queue, the message the queue being popped (they differ
  -- after a retry into another queue).
  local group = 'failed-retries-' .. jq
  local message = 'Job exhausted retries in queue "' .. queue .. '"'
  Job.hist(jid, now, '"failed"', { group = group }, f[4] or false)
  Job.park_failed(jid, group, { group = group, message = message, when = now, worker = '' })
  Job.notify(jid, 'failed')
  rcall('PUBLISH', key.channel .. 'log', encode({ jid = jid, event = 'failed', group = group,
    worker = f[1], message = message }))
  Stats.count(now, now, queue, 'failures', 1, 'failed', 1)
end

-- P-RECLAIM: handle the expired locks `expired` of `queue` (pop reads at most its count);
-- returns the jids that may be handed out again. First expiry: courtesy notice and grace
-- period; next: retry consumed.
function Queue.reclaim(now, queue, expired)
  local out = {}
  local lk = key.queue .. queue .. key.locks
  local grace = Config.number('grace-period', 10)
  for _, jid in ipairs(expired) do
    local f = rcall('HMGET', key.job .. jid, 'worker', 'grace', 'queue', 'history', 'jid',
      'throttles', 'key')
    if f[5] then
      if Queue.reclaim_one(now, queue, lk, grace, jid, f) then out[#out + 1] = jid end
    else
      -- The job is gone (cancelled after a retry into another queue, whose locks set
      -- cancel does not clean): drop the dangling lock, as pop drops a dangling work entry.
      rcall('ZREM', lk, jid)
    end
  end
  return out
end

-- P-RECLAIM for one expired lock; `f` is the job's worker, grace, queue, history, jid,
-- throttles, key. True when the job may be handed out again: it gives back its throttle
-- locks (pop hands it out only when it can take them again) and keeps its ordering key's
-- turn.
function Queue.reclaim_one(now, queue, lk, grace, jid, f)
  local jk = key.job .. jid
  rcall('ZREM', key.worker .. (f[1] or '') .. key.jobs, jid)
  local sent = f[2] == '1'
  if not sent or grace <= 0 then
    Job.notify(jid, 'stalled')
    Job.hist(jid, now, '"timed-out"', nil, f[4] or false)
    f[4] = false
    rcall('HSET', jk, 'grace', 1)
    local msg = encode({ jid = jid, event = 'lock_lost', worker = f[1] })
    rcall('PUBLISH', key.worker .. (f[1] or ''), msg)
    rcall('PUBLISH', key.channel .. 'log', msg)
    rcall('ZADD', lk, now + grace, jid)
    Stats.count(now, now, queue, 'retries', 1)
  end
  if sent or grace <= 0 then
    rcall('HDEL', jk, 'grace')
    local remaining = tonumber(rcall('HINCRBYFLOAT', jk, 'remaining', -1))
    if remaining >= 0 then
      -- Its lock is lost: it gives back its throttles, and pop hands it out again only
      -- when it can take them again (Queue.flow_out).
      if f[6] then Job.leave(now, jid, f[3] or queue, f[6], nil) end
      return true
    end
    Queue.exhausted(now, queue, jid, f)
  end
  return false
end

-- Render a list of jids as a JSON array of job objects, skipping missing jobs.
function Queue.render(jids)
  local parts = {}
  for _, jid in ipairs(jids) do parts[#parts + 1] = Job.render(jid) end
  return Json.list(parts)
end

-- peek <now> <queue> <count>
-- Reply: JSON array of job objects: expired locks first, then the work set ({} when none).
-- Spawns recurring jobs and promotes scheduled ones. Errors: Queue(): no queue name provided
-- / Peek(): Arg "count" missing or not a number: <x>
function Queue.peek(now)
  local queue, count_s = A[3], A[4]
  if queue == nil then error('Queue(): no queue name provided') end
  local count = Num.parse(count_s)
  if count == nil then
    error('Peek(): Arg "count" missing or not a number: ' .. tostring(count_s))
  end
  count = Queue.whole(count)
  Expire.check(now, queue)
  local jids = {}
  if count > 0 then
    jids = rcall('ZRANGEBYSCORE', key.queue .. queue .. key.locks, '-inf', now, 'LIMIT', 0, count)
  end
  local want = count - #jids
  if want > 0 then
    Recur.spawn(now, queue, want)
    Queue.promote(now, queue, want)
    Queue.take(queue, jids, want)
  end
  return Queue.render(jids)
end

-- The counts object of one queue (protocol 2.11); promotes every due scheduled job and
-- expires due jobs (Expire.check). `throttled` (the dialect's count) is there only when the
-- queue has throttled jobs, so that the object keeps qless-core's shape otherwise.
function Queue.counts(now, queue)
  local lk, sk = key.queue .. queue .. key.locks, key.queue .. queue .. key.scheduled
  local stalled = rcall('ZCOUNT', lk, 0, now)
  Queue.promote(now, queue, rcall('ZCARD', sk))
  Expire.check(now, queue)
  local throttled = rcall('ZCARD', key.queue .. queue .. key.throttled)
  return {
    name = queue,
    waiting = rcall('ZCARD', key.queue .. queue .. key.work),
    stalled = stalled,
    running = rcall('ZCARD', lk) - stalled,
    scheduled = rcall('ZCARD', sk),
    depends = rcall('ZCARD', key.queue .. queue .. key.depends),
    recurring = rcall('ZCARD', key.queue .. queue .. key.recurring),
    paused = rcall('SISMEMBER', key.paused, queue) == 1,
    throttled = throttled > 0 and throttled or nil,
  }
end

-- queues <now> [queue]
-- Reply: the counts object of one queue, or an array for every known queue ({} if none).
function Queue.queues(now)
  local queue = A[3]
  if queue ~= nil then return encode(Queue.counts(now, queue)) end
  local out = {}
  for _, q in ipairs(rcall('ZRANGE', key.queues, 0, -1)) do out[#out + 1] = Queue.counts(now, q) end
  return encode(out)
end

-- length <now> <queue>: integer, running + waiting + scheduled jobs.
-- Error: Queue(): no queue name provided
function Queue.length(now)
  local queue = A[3]
  if queue == nil then error('Queue(): no queue name provided') end
  Expire.check(now, queue)
  return rcall('ZCARD', key.queue .. queue .. key.locks) + rcall('ZCARD', key.queue .. queue .. key.work) +
    rcall('ZCARD', key.queue .. queue .. key.scheduled)
end

-- Pagination argument: default when absent, else a number (fractions are floored).
function Queue.page_arg(v, default, msg)
  if v == nil then return default end
  local n = Num.parse(v)
  if n == nil then error(msg .. v) end
  return floor(n)
end

-- jobs <now> complete [offset] [count] | jobs <now> <state> <queue> [offset] [count]
-- States: running, stalled, scheduled, depends, recurring, throttled (the dialect's, oldest
-- first). Reply: array of jids. Errors: Jobs(): Arg "state" missing / Jobs(): Arg "queue" missing /
-- Jobs(): Arg "offset" not a number: <x> / Jobs(): Arg "count" not a number: <x> / Jobs():
-- Unknown type "<state>"
function Queue.jobs(now)
  local state = A[3]
  if state == nil then error('Jobs(): Arg "state" missing') end
  local queue, off_s, cnt_s
  if state == 'complete' then
    off_s, cnt_s = A[4], A[5]
  else
    queue, off_s, cnt_s = A[4], A[5], A[6]
    if queue == nil then error('Jobs(): Arg "queue" missing') end
  end
  local offset = Queue.page_arg(off_s, 0, 'Jobs(): Arg "offset" not a number: ')
  local count = Queue.page_arg(cnt_s, 25, 'Jobs(): Arg "count" not a number: ')
  local last = offset + count - 1
  if state == 'complete' then return rcall('ZREVRANGE', key.completed, offset, last) end
  if state ~= 'running' and state ~= 'stalled' and state ~= 'scheduled' and state ~= 'depends'
      and state ~= 'recurring' and state ~= 'throttled' then
    error('Jobs(): Unknown type "' .. state .. '"')
  end
  Expire.check(now, queue)
  if state == 'running' then
    return rcall('ZRANGEBYSCORE', key.queue .. queue .. key.locks, now, '+inf', 'LIMIT', offset, count)
  elseif state == 'stalled' then
    return rcall('ZRANGEBYSCORE', key.queue .. queue .. key.locks, '-inf', now, 'LIMIT', offset, count)
  elseif state == 'scheduled' then
    local sk = key.queue .. queue .. key.scheduled
    Queue.promote(now, queue, rcall('ZCARD', sk))
    return rcall('ZRANGE', sk, offset, last)
  elseif state == 'depends' then
    return rcall('ZRANGE', key.queue .. queue .. key.depends, offset, last)
  elseif state == 'recurring' then
    return rcall('ZRANGEBYSCORE', key.queue .. queue .. key.recurring, 0, '+inf', 'LIMIT', offset, count)
  end
  return rcall('ZRANGE', key.queue .. queue .. key.throttled, offset, last)
end

-- pause <now> <queue>...: reply nil.
function Queue.pause(now)
  Queue.with_names('SADD', key.paused, 3)
  return nil
end

-- unpause <now> <queue>...: reply nil.
function Queue.unpause(now)
  Queue.with_names('SREM', key.paused, 3)
  return nil
end

-- queue.forget <now> <queue>...: drop the names from ql:queues only. Reply nil.
function Queue.forget(now)
  Queue.with_names('ZREM', key.queues, 3)
  return nil
end
