-- pop: hand waiting jobs to a worker, with the queue's caps (max-concurrency, its own
-- throttle), the jobs' named throttles and deadlines checked on the way.

-- Rounds a pop takes beyond the first when it met only expired jobs.
local EXPIRED_ROUNDS = 5

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
-- The throttle dialect's steps (docs/protocol.md): when the queue's own throttle is full
-- (its running jobs, stalled ones included, at its maximum) only reclaimed jobs are handed
-- out; a job whose named throttle is full is throttled instead of handed out, and a job
-- whose ttl deadline has passed is expired; then more rounds look at more jobs
-- (Queue.pop_again). A pop that comes up short expires due jobs and looks at one throttled
-- job of the queue again (Queue.revisit).
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
  -- delayed jobs in this queue, nothing tracked, no queue throttle) and saves the reads it
  -- would otherwise take.
  local qk = key.queue .. queue
  local rk, sk = qk .. key.recurring, qk .. key.scheduled
  local special = rcall('EXISTS', key.config, key.paused, rk, sk, key.tracked,
    key.throttle .. qk) > 0
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
  local lk = qk .. key.locks
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
  local reclaimed = #jids
  local want = count - reclaimed
  if special and want > 0 then
    local room = Queue.throttle_room(queue, lk)
    if room and room < want then want = room end
  end
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
  if #jids == 0 then
    Queue.revisit(now, queue)
    return '{}'
  end
  -- The lock expiry as Redis would format the number itself (%.17g, exact), made once:
  -- each job's hash and both lock sets get this text instead of formatting it again.
  local expires_s = format('%.17g', expires)
  -- Every handed-out jid leaves the work set (step 10): the ones just taken, and any
  -- reclaimed job, which is normally not in the work set but can be (see Queue.unlist).
  local wk = qk .. key.work
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
  -- Why jobs were not handed out: 1 = one was throttled, 2 = only expired ones.
  local total, popped, skipped = #jids, nil, nil
  if total == 1 then
    -- One job (the common case): its writes in place, without the batch lists below.
    local jid = jids[1]
    local f, tracked = Queue.hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry,
      special, queue, reclaimed == 1)
    if f then
      local put_t = tonumber(f[F_TIME]) or now
      Stats.sample(now, 'wait', queue, now - put_t)
      rcall('ZADD', wjk, expires_s, jid)
      rcall('ZADD', lk, expires_s, jid)
      -- The entry the job's put wrote, predicted from its time and queue, and its
      -- rendering: an entry that is exactly this text is rendered without being parsed.
      local seen, shown
      local q = encode(f[F_QUEUE])
      if put_t >= 1 and put_t < 1e14 then
        local w = Num.whole_text(put_t, f[F_TIME])
        seen = '[' .. w .. ',"put",{"q":' .. q .. '}]'
        shown = '{"when":' .. w .. ',"what":"put","q":' .. q .. '}'
      end
      return Job.render(jid, f, tracked, true, last, seen, shown, wjson, q)
    end
    if tracked then skipped = tracked end
    popped = {}
  else
    popped = {}
    for i, jid in ipairs(jids) do
      local f, tracked = Queue.hand_out(now, jid, worker, expires, expires_s, tstr, whole,
        wentry, special, queue, i <= reclaimed)
      if f then
        popped[#popped + 1] = { jid, f, tracked }
      elseif tracked and (not skipped or tracked < skipped) then
        skipped = tracked
      end
    end
  end
  if skipped and #popped < total then
    Queue.pop_again(now, queue, worker, total, popped, expires, expires_s, tstr, whole, wentry,
      special, skipped)
  end
  if #popped < count then Queue.revisit(now, queue) end
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
-- this pop, apart from state, worker and expires) and whether it is tracked. When it is not
-- handed out: nil, false when the job hash is gone; nil, 1 when it was throttled and nil, 2
-- when it was expired (Queue.flow_out). The lock expiry is stored as `expires_s` (its text), and the
-- layout holds the number `expires` itself, which Job.render would otherwise parse back.
--@inline
function Queue.hand_out(now, jid, worker, expires, expires_s, tstr, whole, wentry, special,
    queue, reclaimed)
  -- Job.fetch's layout, without reading the three fields pop overwrites (state, worker,
  -- expires): every field read costs a scan of the job hash and a reply string. A job
  -- that uses an extension has a `throttles` field (Job.store_flow); only then are its key
  -- and ttl read.
  local g = rcall('HMGET', key.job .. jid, 'jid', 'klass', 'queue', 'priority', 'retries',
    'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time',
    'throttles')
  if not g[1] then return nil, false end
  local okey, ttl = nil, nil
  if g[13] then
    local why
    why, okey, ttl = Queue.flow_out(now, jid, queue, g[13], reclaimed)
    if why then return nil, why end
  end
  local f = { g[1], g[2], 'running', g[3], worker, g[4], expires, g[5], g[6], g[7], g[8],
    g[9], g[10], false, g[12], g[13], okey, ttl }
  Job.hist(jid, now, '"popped"', wentry, g[11] or false, whole)
  rcall('HSET', key.job .. jid, 'time', tstr, 'worker', worker, 'expires', expires_s,
    'state', 'running')
  local tracked = special and rcall('ZSCORE', key.tracked, jid) ~= false
  if tracked then rcall('PUBLISH', key.channel .. 'popped', jid) end
  return f, tracked
end

-- More rounds of a pop whose round left jobs out (`why`: 1 throttled, 2 expired), each
-- taking as many jobs as are still wanted of `total`: the dialect's rounds after throttled
-- jobs, up to `<queue>-max-pop-retry` (else `max-pop-retry`, default 1) in all, and up to
-- EXPIRED_ROUNDS more after expired ones (each expiry also removes REAP due jobs, so the
-- next round rarely meets one). Appends to `popped` as Queue.pop does.
function Queue.pop_again(now, queue, worker, total, popped, expires, expires_s, tstr, whole,
    wentry, special, why)
  local wk = key.queue .. queue .. key.work
  local rounds, extra = nil, EXPIRED_ROUNDS
  while why and #popped < total do
    if why == 2 then
      extra = extra - 1
      if extra < 0 then return end
    else
      if rounds == nil then
        rounds = Config.number(queue .. '-max-pop-retry', 0)
        if rounds <= 0 then rounds = Config.number('max-pop-retry', 1) end
      end
      rounds = rounds - 1
      if rounds < 1 then return end
    end
    local jids = {}
    Queue.take(queue, jids, total - #popped)
    if #jids == 0 then return end
    Queue.call_list('ZREM', wk, jids, 1000)
    why = nil
    for _, jid in ipairs(jids) do
      local f, tracked = Queue.hand_out(now, jid, worker, expires, expires_s, tstr, whole,
        wentry, special, queue, false)
      if f then
        popped[#popped + 1] = { jid, f, tracked }
      elseif tracked and (not why or tracked < why) then
        why = tracked
      end
    end
  end
end

-- pop's checks of a job that uses an extension (stored list `text`): one whose ttl deadline
-- has passed is expired (then the due jobs of the queue too, a bounded number), one whose
-- named throttle is full is throttled; otherwise it takes its throttles' locks and its
-- deadline goes. A `reclaimed` job (its lock expired; it gave its throttles back) has no
-- deadline; when it cannot take its throttles again it leaves the queue's locks set and
-- waits. Returns nil when it may be handed out (1 when it was throttled, 2 when it
-- expired), then its key and ttl as stored.
function Queue.flow_out(now, jid, queue, text, reclaimed)
  local g = rcall('HMGET', key.job .. jid, 'key', 'ttl')
  if g[2] and not reclaimed and Expire.due(now, queue, jid) then
    Expire.reap(now, queue)
    return 2
  end
  if Throttle.take(now, jid, queue, text) then
    if reclaimed then
      rcall('ZREM', key.queue .. queue .. key.locks, jid)
      rcall('HSET', key.job .. jid, 'worker', '', 'expires', 0)
    end
    return 1
  end
  if g[2] and not reclaimed then rcall('ZREM', key.queue .. queue .. key.expiring, jid) end
  return nil, g[1] or nil, g[2] or nil
end

-- Room left under the queue's own throttle (tid ql:q:<queue>): its maximum less the jobs
-- in the queue's locks set (running and stalled, whichever core popped them). nil when the
-- throttle is unlimited.
function Queue.throttle_room(queue, lk)
  local max = Throttle.maximum(key.queue .. queue)
  if max == 0 then return nil end
  local room = math.ceil(max) - rcall('ZCARD', lk)
  if room < 0 then return 0 end
  return room
end

-- A pop that came up short expires the queue's due jobs (a bounded number), and looks at
-- one throttled job of the queue (which one moves with `now`) and lets it go through the
-- gate again. A job waits for a release that never comes
-- when its lock holders went away without one (deleted by another program, or moved by a
-- dialect core's put): this finds it, and the gate drops the stale locks it meets.
function Queue.revisit(now, queue)
  Expire.check(now, queue)
  local tk = key.queue .. queue .. key.throttled
  local n = rcall('ZCARD', tk)
  if n == 0 then return end
  local i = floor(now * 1000) % n
  local jid = rcall('ZRANGE', tk, i, i)[1]
  local f = rcall('HMGET', key.job .. jid, 'state', 'queue')
  if f[1] ~= 'throttled' or f[2] ~= queue then
    rcall('ZREM', tk, jid)
    return
  end
  Job.unthrottle(now, jid)
end
