-- Throttles, the qless throttle dialect (docs/protocol.md, "Throttles"): named counters of
-- locks with a maximum. A job's `throttles` field lists the tids it needs, its queue's own
-- tid (key.queue .. queue) last. The named throttles are the others: the queue's own
-- throttle gates pop as a whole (Queue.pop counts the queue's running jobs), so it never
-- makes one job wait.
--
-- Beside the dialect's keys (hash, -locks, -pending), ql:th:<tid>-ready holds the jobs let
-- into a work set on the throttle's account that no pop has taken yet: a throttle lets no
-- more jobs into the work set than it has room for (locks + ready < maximum), so the work
-- set never fills with jobs that cannot run. Pop checks the room again before it takes a
-- lock, so a job that was not let in (a dialect core's, a reclaimed one) cannot take room
-- promised to others, and locks never outnumber the maximum.

-- Jobs handed out per release (the dialect's 10 for an unlimited throttle is too few to
-- drain a throttle that was deleted or raised), and entries checked per recovery.
local HAND_OUT, VERIFY = 100, 3

-- The stored tid list `text` as a list of strings, or nil when absent, empty or unreadable.
function Throttle.list(text)
  if not text then return nil end
  local ok, v = pcall(decode, text)
  if not ok then return nil end
  v = Json.strings(v)
  if not v or #v == 0 then return nil end
  for i = 1, #v do v[i] = tostring(v[i]) end
  return v
end

-- The named throttles in list `all`: every tid but `queue`'s own (nil when none).
function Throttle.own(all, queue)
  if not all then return nil end
  local qtid, out = key.queue .. queue, nil
  for _, tid in ipairs(all) do
    if tid ~= qtid then
      out = out or {}
      out[#out + 1] = tid
    end
  end
  return out
end

-- A put's `throttles` option as the list to store: the named tids once each, in order, then
-- `queue`'s own tid (the dialect's layout). nil when the option names no throttle.
function Throttle.stored(given, queue)
  local own = Throttle.own(given, queue)
  if not own then return nil end
  local seen, out = {}, {}
  for _, tid in ipairs(own) do
    if not seen[tid] then
      seen[tid] = true
      out[#out + 1] = tid
    end
  end
  out[#out + 1] = key.queue .. queue
  return out
end

-- The list `all` (a job's, a template's, or the one a put moving a job is given) for a job
-- that moves from `old` to queue `new`: the old queue's tid is replaced by the new one's. nil when it names no other throttle.
function Throttle.moved(all, old, new)
  local own = Throttle.own(all, old)
  if not own then return nil end
  return Throttle.stored(own, new)
end

-- A throttle's maximum: the stored number, 0 (unlimited) when the hash or the field is
-- missing or not a number. The dialect's rule applies as stored: a throttle is available
-- when its maximum is 0 or its locks number fewer.
function Throttle.maximum(tid)
  local m = Num.parse(rcall('HGET', key.throttle .. tid, 'maximum'))
  if m == nil then return 0 end
  return m
end

-- Check VERIFY entries of the sorted set `zk` (a throttle's -locks when `running`, else its
-- -ready) and drop those whose job is gone, or no longer running (locks), or no longer
-- waiting to be popped (admissions). Which entries are checked moves with `now`, so that
-- calls over time look at all of them. Returns how many were dropped.
function Throttle.verify(now, zk, running)
  local n = rcall('ZCARD', zk)
  if n == 0 then return 0 end
  local first = floor(now * 1000) % n
  local freed = 0
  for _, jid in ipairs(rcall('ZRANGE', zk, first, first + VERIFY - 1)) do
    local state = rcall('HGET', key.job .. jid, 'state')
    local valid
    if running then
      valid = state == 'running'
    else
      valid = state == 'waiting' or state == 'stalled'
    end
    if not valid then
      rcall('ZREM', zk, jid)
      freed = freed + 1
    end
  end
  return freed
end

-- The first of `tids` that has no room for one more job in a work set (locks and admissions
-- at its maximum, after dropping stale ones), or nil.
function Throttle.full(now, tids)
  for _, tid in ipairs(tids) do
    local max = Throttle.maximum(tid)
    if max ~= 0 then
      local base = key.throttle .. tid
      local lk, rk = base .. key.locks, base .. key.ready
      local used = rcall('ZCARD', lk) + rcall('ZCARD', rk)
      if used >= max then
        used = used - Throttle.verify(now, lk, true) - Throttle.verify(now, rk, false)
        if used >= max then return tid end
      end
    end
  end
  return nil
end

-- Let job `jid` into a work set on the account of each of `tids`.
function Throttle.admit(now, jid, tids)
  for _, tid in ipairs(tids) do rcall('ZADD', key.throttle .. tid .. key.ready, now, jid) end
end

-- pop: take one lock of each of `tids` for `jid`, or return the first tid that has no room
-- for it and take none. The job gives up its admissions either way. A job a throttle let
-- into the work set takes a lock when the locks are fewer than the maximum (the dialect's
-- rule; fewer than it was promised only after the maximum was lowered); a job it did not
-- let in (a reclaimed one, or one a dialect core put) must also leave the room promised to
-- the jobs it did (locks + admissions).
function Throttle.acquire(now, jid, tids)
  local admitted = {}
  for i, tid in ipairs(tids) do
    admitted[i] = rcall('ZREM', key.throttle .. tid .. key.ready, jid) == 1
  end
  for i, tid in ipairs(tids) do
    local max = Throttle.maximum(tid)
    local base = key.throttle .. tid
    local lk, rk = base .. key.locks, base .. key.ready
    if max ~= 0 then
      local used = rcall('ZCARD', lk)
      if not admitted[i] then used = used + rcall('ZCARD', rk) end
      if used >= max then
        used = used - Throttle.verify(now, lk, true)
        if not admitted[i] then used = used - Throttle.verify(now, rk, false) end
        if used >= max then return tid end
      end
    end
  end
  for _, t in ipairs(tids) do rcall('ZADD', key.throttle .. t .. key.locks, 1, jid) end
  return nil
end

-- Job `jid` stops holding or waiting for the throttles `all` (its whole stored list: the
-- queue's own tid is returned too, for jobs a dialect core locked): it leaves each one's
-- locks set, or else its pending set, and its admissions; each throttle that it held a lock
-- or an admission of then lets waiting jobs in.
function Throttle.release(now, jid, all)
  for _, tid in ipairs(all) do
    local base = key.throttle .. tid
    local freed = rcall('ZREM', base .. key.locks, jid)
    if freed == 0 then rcall('ZREM', base .. key.pending, jid) end
    freed = freed + rcall('ZREM', base .. key.ready, jid)
    if freed > 0 then Throttle.hand_out(now, tid) end
  end
end

-- Handing out free locks: jobs waiting for `tid` go through the gate again (Job.unthrottle),
-- oldest first, until as many as the throttle has room for went into the work set. A job
-- that expires, or waits for another throttle instead, takes no room. At most HAND_OUT
-- jobs are looked at per call.
function Throttle.hand_out(now, tid)
  local base = key.throttle .. tid
  local pk = base .. key.pending
  if rcall('EXISTS', pk) == 0 then return end
  local room = HAND_OUT
  local max = Throttle.maximum(tid)
  if max ~= 0 then
    local lk, rk = base .. key.locks, base .. key.ready
    room = math.ceil(max) - rcall('ZCARD', lk) - rcall('ZCARD', rk)
    if room < 1 then
      room = room + Throttle.verify(now, lk, true) + Throttle.verify(now, rk, false)
      if room < 1 then return end
    end
    if room > HAND_OUT then room = HAND_OUT end
  end
  -- `skip`: jobs looked at that still wait here (they come first in the set).
  local looked, skip = 0, 0
  while room > 0 and looked < HAND_OUT do
    local jids = rcall('ZRANGE', pk, skip, skip + room - 1)
    if #jids == 0 then return end
    for _, jid in ipairs(jids) do
      if Job.unthrottle(now, jid, tid) then
        room = room - 1
      elseif rcall('ZSCORE', pk, jid) then
        skip = skip + 1
      end
    end
    looked = looked + #jids
  end
end

-- The maximum argument of throttle.set and queue.throttle.set: a number of at least 0,
-- floored.
function Throttle.max_arg(v)
  local max = Num.parse(v)
  if max == nil then
    error('Throttle(): Arg "maximum" missing or not a number: ' .. tostring(v))
  end
  if max < 0 then error('Throttle(): Arg "maximum" must not be negative: ' .. v) end
  return floor(max)
end

-- Store a throttle's maximum (and a TTL on its hash when `expiration` > 0), then let the
-- jobs waiting for it start as far as the new maximum has room.
function Throttle.write(now, tid, max, expiration)
  local tk = key.throttle .. tid
  rcall('HSET', tk, 'id', tid, 'maximum', max)
  if expiration > 0 then rcall('EXPIRE', tk, math.ceil(expiration)) end
  Throttle.hand_out(now, tid)
end

-- The throttle object of the dialect: {"id": tid, "maximum": n}.
function Throttle.object(tid)
  return encode({ id = tid, maximum = Throttle.maximum(tid) })
end

-- throttle.set <now> <tid> <maximum> [expiration]
-- Sets the maximum (0: unlimited); with expiration > 0, that many seconds of TTL on the
-- throttle's hash only. Jobs waiting for the throttle start at once as far as the new
-- maximum has room (the dialect waits for the next release). Reply nil.
-- Errors: Throttle(): no tid provided / Throttle(): Arg "maximum" missing or not a number:
-- <x> / Throttle(): Arg "maximum" must not be negative: <x> / Throttle(): Arg "expiration"
-- not a number: <x>
function Throttle.set(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  local max = Throttle.max_arg(A[4])
  local expiration = 0
  if A[5] ~= nil then
    expiration = Num.parse(A[5])
    if expiration == nil then error('Throttle(): Arg "expiration" not a number: ' .. A[5]) end
  end
  Throttle.write(now, tid, max, expiration)
  return nil
end

-- throttle.get <now> <tid>: {"id": tid, "maximum": n}, maximum 0 when the throttle does not
-- exist. Error: Throttle(): no tid provided
function Throttle.get(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  return Throttle.object(tid)
end

-- throttle.delete <now> <tid>: delete the throttle's hash (it becomes unlimited; its locks
-- and pending sets stay), and let its waiting jobs start. Reply nil.
-- Error: Throttle(): no tid provided
function Throttle.delete(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  rcall('DEL', key.throttle .. tid)
  Throttle.hand_out(now, tid)
  return nil
end

-- throttle.locks <now> <tid>: the jids holding a lock of the throttle. For a queue's own tid
-- (ql:q:<queue>) also the jobs running in that queue, which qless_py counts for it.
-- Error: Throttle(): no tid provided
function Throttle.locks(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  local out = rcall('ZRANGE', key.throttle .. tid .. key.locks, 0, -1)
  if tid:sub(1, #key.queue) == key.queue then
    local seen = {}
    for _, jid in ipairs(out) do seen[jid] = true end
    for _, jid in ipairs(rcall('ZRANGE', tid .. key.locks, 0, -1)) do
      if not seen[jid] then out[#out + 1] = jid end
    end
  end
  return out
end

-- throttle.pending <now> <tid>: the jids waiting for the throttle, oldest first.
-- Error: Throttle(): no tid provided
function Throttle.pending(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  return rcall('ZRANGE', key.throttle .. tid .. key.pending, 0, -1)
end

-- throttle.ttl <now> <tid>: the TTL of the throttle's hash (-1 none, -2 no such throttle).
-- Error: Throttle(): no tid provided
function Throttle.ttl(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  return rcall('TTL', key.throttle .. tid)
end

-- throttle.release <now> <tid> [jid...]: for each jid in turn, remove it from the locks set
-- (or, when it held no lock, from the pending set), then let waiting jobs in. Reply nil.
-- Error: Throttle(): no tid provided
function Throttle.release_cmd(now)
  local tid = A[3]
  if tid == nil then error('Throttle(): no tid provided') end
  for i = 4, #A do
    Throttle.release(now, A[i], { tid })
    Throttle.hand_out(now, tid)
  end
  return nil
end

-- queue.throttle.get <now> <queue>: the throttle object of the queue's own throttle.
-- Error: Queue(): no queue name provided
function Throttle.queue_get(now)
  local queue = A[3]
  if queue == nil then error('Queue(): no queue name provided') end
  return Throttle.object(key.queue .. queue)
end

-- queue.throttle.set <now> <queue> <maximum>: the most jobs of the queue running at once
-- (0: unlimited), no TTL. Reply nil. (Workers learn of it from the write to the throttle's
-- hash, which they track: docs/workers.md.)
-- Errors: Queue(): no queue name provided / Throttle(): Arg "maximum" missing or not a
-- number: <x> / Throttle(): Arg "maximum" must not be negative: <x>
function Throttle.queue_set(now)
  local queue = A[3]
  if queue == nil then error('Queue(): no queue name provided') end
  local max = Throttle.max_arg(A[4])
  Throttle.write(now, key.queue .. queue, max, 0)
  return nil
end

-- pop: job `jid` of `queue` (stored list `text`) takes a lock of each of its named
-- throttles. When one is full it takes none and is throttled instead: true.
function Throttle.take(now, jid, queue, text)
  local all = Throttle.list(text)
  local own = Throttle.own(all, queue)
  if not own then return false end
  local tid = Throttle.acquire(now, jid, own)
  if not tid then return false end
  Job.throttle(now, jid, queue, tid, nil, all)
  return true
end
