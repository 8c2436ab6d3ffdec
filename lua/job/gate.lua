-- The gate a job passes when it becomes ready to run (put without delay, end of a delay,
-- last dependency released, retry, timeout, unfail, advance, spawn): its ordering key and
-- its named throttles decide whether it goes into the work set or waits as `throttled`,
-- and a ttl starts its deadline. Jobs without key, throttles or ttl never come here: their
-- callers enqueue them directly (Job.enqueue).

-- Job `jid` of `queue` becomes ready to run. It goes into the work set with `priority`, or
-- waits in state throttled when an earlier job of its ordering key `okey` is unfinished or
-- one of the named throttles in `text` (its stored list) has no room. `at`, when given, is
-- when it became ready: with a `ttl` it must start by at + ttl (Expire.arm). `state` is the
-- job's state as stored (a throttled job that tries again keeps its place and history).
-- `since`, when given, is the time its work-set score counts from (else `now`): a job that
-- waited keeps its place among the jobs put after it. Returns true when the job waits (its
-- state is written here), false when it went into the work set (the caller writes the
-- state).
function Job.ready(now, queue, jid, priority, text, okey, ttl, at, state, since)
  if ttl and at then Expire.arm(queue, jid, at + ttl) end
  local all = Throttle.list(text)
  if okey and not Order.is_head(queue, okey, jid) then
    Job.throttle(now, jid, queue, nil, state, all)
    return true
  end
  local own = Throttle.own(all, queue)
  if own then
    local tid = Throttle.full(now, own)
    if tid then
      Job.throttle(now, jid, queue, tid, state, all)
      return true
    end
    if state == 'throttled' then Job.unpend(jid, all, nil) end
    Throttle.admit(now, jid, own)
  end
  Job.enqueue(queue, jid, priority, since or now)
  return false
end

-- Job `jid`, in state `state`, becomes ready to run in `queue` now: through the gate when it
-- has throttles, a key or a ttl (their stored fields), else straight into the work set.
-- Writes its new state.
function Job.ready_or_enqueue(now, queue, jid, priority, text, okey, ttl_s, state)
  local jk = key.job .. jid
  if text or okey or ttl_s then
    if Job.ready(now, queue, jid, priority, text, okey or nil, tonumber(ttl_s), now, state) then
      return
    end
  else
    Job.enqueue(queue, jid, priority, now)
  end
  rcall('HSET', jk, 'state', 'waiting')
end

-- Make `jid` wait in state throttled in `queue`: in the queue's -throttled set and in the
-- pending set of `tid`, the throttle it waits for (none when it waits for its ordering
-- key). A job that was throttled already keeps its places, leaves the pending sets of its
-- other throttles (`all`, its stored list) and gets no second history entry. `state` nil:
-- read it here.
function Job.throttle(now, jid, queue, tid, state, all)
  if state == nil then state = rcall('HGET', key.job .. jid, 'state') end
  if state == 'throttled' then Job.unpend(jid, all, tid) end
  if tid then rcall('ZADD', key.throttle .. tid .. key.pending, 'NX', now, jid) end
  rcall('ZADD', key.queue .. queue .. key.throttled, 'NX', now, jid)
  if state ~= 'throttled' then
    rcall('HSET', key.job .. jid, 'state', 'throttled')
    Job.hist(jid, now, '"throttled"', '{"queue":' .. encode(queue) .. '}')
  end
end

-- Remove `jid` from the pending sets of the throttles in `all` but `keep`.
function Job.unpend(jid, all, keep)
  if not all then return end
  for _, tid in ipairs(all) do
    if tid ~= keep then rcall('ZREM', key.throttle .. tid .. key.pending, jid) end
  end
end

-- A throttled job tries the gate again: a throttle it waited for has room, its ordering key
-- came to it, or a pop looks at it again. In the work set it is scored as of the time it
-- began to wait, so that jobs let in together keep their order. Its ttl deadline stays (a
-- job past it is expired here). A job that is gone or not throttled any more (a stale
-- entry of the pending set of `tid`, when it comes from one) only leaves the pending sets.
-- Returns true when the job went into the work set.
function Job.unthrottle(now, jid, tid)
  local f = rcall('HMGET', key.job .. jid, 'state', 'queue', 'priority', 'throttles', 'key',
    'ttl')
  local state, queue = f[1], f[2]
  if state ~= 'throttled' or not queue then
    Job.unpend(jid, Throttle.list(f[4]), nil)
    if tid then rcall('ZREM', key.throttle .. tid .. key.pending, jid) end
    return false
  end
  if f[6] and Expire.due(now, queue, jid) then return false end
  local tk = key.queue .. queue .. key.throttled
  local since = tonumber(rcall('ZSCORE', tk, jid))
  if Job.ready(now, queue, jid, tonumber(f[3]) or 0, f[4], f[5] or nil, nil, nil, state,
      since) then
    return false
  end
  rcall('ZREM', tk, jid)
  rcall('HSET', key.job .. jid, 'state', 'waiting')
  return true
end

-- Job `jid` leaves its place in `queue` for good (complete, advance, fail, cancel, expiry,
-- put, retries exhausted): it gives back its throttles (`text`, its stored list) and leaves
-- its ordering key `okey`, so that waiting jobs may start.
function Job.leave(now, jid, queue, text, okey)
  local all = Throttle.list(text)
  if all then Throttle.release(now, jid, all) end
  if okey and queue then Order.leave(now, queue, okey, jid) end
end

-- A job that uses an extension (stored list `text`) leaves its place in `queue` for good
-- (Job.leave); returns its key and ttl as stored.
function Job.flow_leave(now, jid, queue, text)
  local g = rcall('HMGET', key.job .. jid, 'key', 'ttl')
  Job.leave(now, jid, queue, text, g[1] or nil)
  return g[1] or nil, g[2] or nil
end

-- The job's throttle, key and ttl fields (`text`, `okey`, `ttl_s` as stored) for a job that
-- moves from queue `old` to `new` and becomes ready there at `now` (advance, unfail): its
-- list names the new queue's tid, it joins the new queue's key at the end, and it passes the
-- gate unless `ready` is false. Returns true when it waits (state written), false when it
-- went into the work set.
function Job.enter(now, jid, old, new, text, okey, ttl_s, priority, ready)
  if text then
    local moved = Throttle.moved(Throttle.list(text), old, new)
    if moved then
      text = encode(moved)
    elseif okey or ttl_s then
      text = encode({ key.queue .. new })
    end
    if moved or okey or ttl_s then
      rcall('HSET', key.job .. jid, 'throttles', text)
    else
      text = nil
      rcall('HDEL', key.job .. jid, 'throttles')
    end
  end
  if okey then Order.join(new, okey, jid) end
  if not ready then return false end
  return Job.ready(now, new, jid, priority, text, okey, tonumber(ttl_s), now, nil)
end
