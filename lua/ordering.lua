-- Ordering keys (extension, docs/protocol.md "Ordering keys"): the jobs of one queue that
-- share a key run one at a time, in the order they were put. key.queue .. queue ..
-- key.order .. name holds the key's unfinished jobs, scored 1, 2, 3, ... in put order. Only
-- the first (the head) may run; it stays the head through retries, lost locks and
-- timeouts, and gives way when it completes, advances, fails, is cancelled, expires or is
-- put again. A job behind the head waits in state `throttled`.

-- Stale heads dropped per look (a head whose job is gone or finished without a release).
local STALE = 5

-- The sorted set of ordering key `name` of `queue`.
function Order.set(queue, name)
  return key.queue .. queue .. key.order .. name
end

-- Append `jid` to key `name` of `queue` (after the last job; the first has score 1).
function Order.join(queue, name, jid)
  local ok = Order.set(queue, name)
  local last = rcall('ZREVRANGE', ok, 0, 0, 'WITHSCORES')
  local seq = 1
  if last[2] then seq = tonumber(last[2]) + 1 end
  rcall('ZADD', ok, seq, jid)
end

-- The head of key `name` of `queue`: its first job that still belongs there (a job that is
-- gone, complete, failed, or now in another queue or key is dropped, at most STALE per
-- call; false when more were stale). nil when the key has no job.
function Order.head(queue, name)
  local ok = Order.set(queue, name)
  for _ = 1, STALE do
    local head = rcall('ZRANGE', ok, 0, 0)[1]
    if not head then return nil end
    local f = rcall('HMGET', key.job .. head, 'queue', 'key', 'state')
    if f[1] == queue and f[2] == name and f[3] ~= 'complete' and f[3] ~= 'failed' then
      return head
    end
    rcall('ZREM', ok, head)
  end
  return false
end

-- Whether `jid` is the head of key `name` of `queue` (it needs no check when it is first). A
-- job missing from the key (retried into another queue) joins it at the end.
function Order.is_head(queue, name, jid)
  local ok = Order.set(queue, name)
  if rcall('ZRANGE', ok, 0, 0)[1] == jid then return true end
  if not rcall('ZSCORE', ok, jid) then Order.join(queue, name, jid) end
  return Order.head(queue, name) == jid
end

-- `jid` leaves key `name` of `queue`; when it was the head, the next job may start.
function Order.leave(now, queue, name, jid)
  local ok = Order.set(queue, name)
  local head = rcall('ZRANGE', ok, 0, 0)[1]
  rcall('ZREM', ok, jid)
  if head == jid then Order.next(now, queue, name) end
end

-- The key's new head, when it is waiting for its turn (throttled), goes through the gate.
-- A new head that is scheduled or depends on other jobs goes through it when it is ready.
function Order.next(now, queue, name)
  local head = Order.head(queue, name)
  if head and rcall('HGET', key.job .. head, 'state') == 'throttled' then
    Job.unthrottle(now, head)
  end
end
