-- Queues: pop, peek, counts, listings, pause, and the shared P-PROMOTE / P-RECLAIM steps.

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
    Job.enqueue(queue, jid, tonumber(rcall('HGET', jk, 'priority')) or 0, now)
    rcall('ZREM', sk, jid)
    rcall('HSET', jk, 'state', 'waiting')
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

-- Lock expiry that exhausted the job's retries: fail it (protocol 4.2).
function Queue.exhausted(now, queue, jid, f)
  local jq = f[3] or queue
  Queue.unlist(queue, jid)
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
  Job.left_running(queue)
end

-- P-RECLAIM: handle the expired locks `expired` of `queue` (pop reads at most its count);
-- returns the jids that may be handed out again. First expiry: courtesy notice and grace
-- period; next: retry consumed.
function Queue.reclaim(now, queue, expired)
  local out = {}
  local lk = key.queue .. queue .. key.locks
  local grace = Config.number('grace-period', 10)
  for _, jid in ipairs(expired) do
    local f = rcall('HMGET', key.job .. jid, 'worker', 'grace', 'queue', 'history', 'jid')
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

-- P-RECLAIM for one expired lock; `f` is the job's worker, grace, queue, history. True when
-- the job may be handed out again.
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
    if remaining >= 0 then return true end
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

-- Append up to `want` jids from the work set (highest score first) to `jids`. A want of
-- 1 (the common pop) goes as text: Redis would format the number first.
--@inline
function Queue.take(queue, jids, want)
  if want <= 0 then return end
  local top = rcall('ZREVRANGE', key.queue .. queue .. key.work, '0',
    want == 1 and '0' or want - 1)
  for i = 1, #top do jids[#jids + 1] = top[i] end
end

-- pop <now> <queue> <worker> <count>
-- Reply: JSON array of the popped jobs ({} when none). Events: reclaim events (4.2), then
-- ql:popped per tracked job. A work-set jid whose job hash is gone is dropped from the work
-- set and skipped (the reference fails with a Lua error). A negative count counts as 0.
-- Errors: Queue(): no queue name provided / Pop(): Arg "worker" missing / Pop(): Arg "count"
-- missing or not a number: <x>
--@inline
function Queue.pop(now)
  local queue, worker, count_s = A[3], A[4], A[5]
  if queue == nil then error('Queue(): no queue name provided') end
  if worker == nil then error('Pop(): Arg "worker" missing') end
  -- A count of '1' (the common pop) needs no parsing: tonumber converts a text twice.
  local count = 1
  if count_s ~= '1' then
    count = Num.parse(count_s)
    if count == nil then
      error('Pop(): Arg "count" missing or not a number: ' .. tostring(count_s))
    end
    count = floor(count)
  end
  -- One EXISTS answers the common case (no config, no paused queue, no templates, no
  -- delayed jobs in this queue, nothing tracked) and saves the reads it would otherwise take.
  local rk, sk = key.queue .. queue .. key.recurring, key.queue .. queue .. key.scheduled
  local special = rcall('EXISTS', key.config, key.paused, rk, sk, key.tracked) > 0
  local expires, maxc = now + 60, 0
  if special then
    local c = rcall('HMGET', key.config, queue .. '-heartbeat', 'heartbeat',
      queue .. '-max-concurrency')
    local lock = Num.parse(c[1])
    if lock == nil then
      lock = Num.parse(c[2])
    end
    expires = now + (lock or 60)
    if rcall('SISMEMBER', key.paused, queue) == 1 then return '{}' end
    maxc = Num.parse(c[3])
    if maxc == nil then maxc = 0 end
  else
    cfg = false
  end
  -- `now` goes to Redis as its Num.time_text (see Num.score_arg), made once for every use.
  local tstr = Num.time_text(now)
  local now_arg = Num.score_arg(now, tstr)
  rcall('ZADD', key.workers, now_arg, worker)
  local lk = key.queue .. queue .. key.locks
  if maxc > 0 then
    local allowed = floor(maxc - rcall('ZCOUNT', lk, now, '+inf'))
    if count > allowed then count = allowed end
  end
  if count <= 0 then return '{}' end
  -- The range queries are made here so that the helpers run only when there is work.
  -- A count of 1 (the common pop) goes as text: Redis would format the number first.
  -- `jids` is the expired locks, then every jid to hand out (the reply is a list of our
  -- own, so none has to be made).
  local jids = rcall('ZRANGEBYSCORE', lk, '-inf', now_arg, 'LIMIT', '0',
    count == 1 and '1' or count)
  if #jids > 0 then jids = Queue.reclaim(now, queue, jids) end
  local want = count - #jids
  if want > 0 then
    if special then
      local due = rcall('ZRANGEBYSCORE', rk, 0, now, 'WITHSCORES', 'LIMIT', 0, want)
      if #due > 0 then Recur.spawn(now, queue, want, due) end
      due = rcall('ZRANGEBYSCORE', sk, 0, now, 'LIMIT', 0, want)
      if #due > 0 then Queue.promote(now, queue, want, due) end
    end
    -- The reference's ZREVRANGE, then one ZREM below. ZPOPMAX would take the same jids in
    -- one call, but it replies with each score, which Redis 6.2 and 7.0 format with %.17g:
    -- about 0.3 us more for one job and 2.7 times the time for 16 (docs/performance.md).
    Queue.take(queue, jids, want)
  end
  if #jids == 0 then return '{}' end
  -- The lock expiry as Redis would format the number itself (%.17g, exact), made once:
  -- each job's hash and both lock sets get this text instead of formatting it again.
  local expires_s = format('%.17g', expires)
  -- Every handed-out jid leaves the work set (step 10): the ones just taken, and any
  -- reclaimed job, which is normally not in the work set but can be (see Queue.unlist).
  local wk = key.queue .. queue .. key.work
  if #jids == 1 then
    rcall('ZREM', wk, jids[1])
  else
    Queue.call_list('ZREM', wk, jids, 1000)
  end
  local wjk = key.worker .. worker .. key.jobs
  -- The history entry every job gets, as stored and as rendered (the rendering Job.render
  -- would make of the stored text), so that no job's render parses it back.
  local wjson = encode(worker)
  local wentry = '{"worker":' .. wjson .. '}'
  local whole = Num.whole_text(now, tstr)
  local last = '{"when":' .. whole .. ',"what":"popped","worker":' .. wjson .. '}'
  if #jids == 1 then
    -- One job (the common case): its writes in place, without the batch lists below.
    local jid = jids[1]
    local f, tracked = Queue.hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry,
      special)
    if not f then return '{}' end
    local put_t = tonumber(f[F_TIME]) or now
    Stats.sample(now, 'wait', queue, now - put_t)
    rcall('ZADD', wjk, expires_s, jid)
    rcall('ZADD', lk, expires_s, jid)
    -- The entry the job's put wrote, predicted from its time and queue, and its rendering:
    -- an entry that is exactly this text is rendered without being parsed.
    local seen, shown
    local q = encode(f[F_QUEUE])
    if put_t >= 1 and put_t < 1e14 then
      local w = Num.whole_text(put_t, f[F_TIME])
      seen = '[' .. w .. ',"put",{"q":' .. q .. '}]'
      shown = '{"when":' .. w .. ',"what":"put","q":' .. q .. '}'
    end
    return Job.render(jid, f, tracked, true, last, seen, shown, wjson, q)
  end
  local popped = {}
  for _, jid in ipairs(jids) do
    local f, tracked = Queue.hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry,
      special)
    if f then popped[#popped + 1] = { jid, f, tracked } end
  end
  if #popped == 0 then return '{}' end
  -- The wait samples and the two lock sets are written once for the whole batch: the same
  -- values as one write per job (samples in pop order), in two calls per set fewer per job.
  local waits, scored = {}, {}
  for i, p in ipairs(popped) do
    waits[i] = now - (tonumber(p[2][F_TIME]) or now)
    scored[2 * i - 1] = expires_s
    scored[2 * i] = p[1]
  end
  Stats.samples(now, 'wait', queue, waits)
  Queue.call_list('ZADD', wjk, scored, 2000)
  Queue.call_list('ZADD', lk, scored, 2000)
  local parts = {}
  for i, p in ipairs(popped) do
    local text = Job.render(p[1], p[2], p[3], false, last, nil, nil, wjson)
    parts[i] = text
  end
  return Json.list(parts)
end

-- Hand job `jid` to `worker` (pop's per-job writes: history, job fields, the tracked
-- ql:popped event). Returns the job's fields in Job.fetch's layout (as they were before
-- this pop, apart from state, worker and expires) and whether it is tracked; nil when the
-- job hash is gone. The lock expiry is stored as `expires_s` (its text), and the layout
-- holds the number `expires` itself, which Job.render would otherwise parse back.
--@inline
function Queue.hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry, special)
  -- Job.fetch's layout, without reading the three fields pop overwrites (state, worker,
  -- expires): every field read costs a scan of the job hash and a reply string.
  local g = rcall('HMGET', key.job .. jid, 'jid', 'klass', 'queue', 'priority', 'retries',
    'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time')
  if not g[1] then return nil end
  local f = { g[1], g[2], 'running', g[3], worker, g[4], expires, g[5], g[6], g[7], g[8],
    g[9], g[10], false, g[12] }
  Job.hist(jid, now, '"popped"', wentry, g[11] or false, whole)
  rcall('HSET', key.job .. jid, 'time', tstr, 'worker', worker, 'expires', expires_s,
    'state', 'running')
  local tracked = special and rcall('ZSCORE', key.tracked, jid) ~= false
  if tracked then rcall('PUBLISH', key.channel .. 'popped', jid) end
  return f, tracked
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

-- The counts object of one queue (protocol 2.11); promotes every due scheduled job.
function Queue.counts(now, queue)
  local lk, sk = key.queue .. queue .. key.locks, key.queue .. queue .. key.scheduled
  local stalled = rcall('ZCOUNT', lk, 0, now)
  Queue.promote(now, queue, rcall('ZCARD', sk))
  return {
    name = queue,
    waiting = rcall('ZCARD', key.queue .. queue .. key.work),
    stalled = stalled,
    running = rcall('ZCARD', lk) - stalled,
    scheduled = rcall('ZCARD', sk),
    depends = rcall('ZCARD', key.queue .. queue .. key.depends),
    recurring = rcall('ZCARD', key.queue .. queue .. key.recurring),
    paused = rcall('SISMEMBER', key.paused, queue) == 1,
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
-- Reply: array of jids. Errors: Jobs(): Arg "state" missing / Jobs(): Arg "queue" missing /
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
  error('Jobs(): Unknown type "' .. state .. '"')
end

-- pause <now> <queue>...: reply nil.
function Queue.pause(now)
  Queue.with_names('SADD', key.paused, 3)
  return nil
end

-- unpause <now> <queue>...: reply nil; wakes workers waiting on those queues.
function Queue.unpause(now)
  Queue.with_names('SREM', key.paused, 3)
  for i = 3, #A do Wake.queue(A[i]) end
  return nil
end

-- queue.forget <now> <queue>...: drop the names from ql:queues only. Reply nil.
function Queue.forget(now)
  Queue.with_names('ZREM', key.queues, 3)
  return nil
end
