-- Failure groups: failed (overview and pages) and unfail.

-- failed <now> [group [start [limit]]]
-- Reply: {"<group>": count, ...} ({} if none), or {"total","jobs":[jid...]} for one group,
-- most recently failed first. Errors: Failed(): Arg "start" is not a number: <x> / Failed():
-- Arg "limit" is not a number: <x>
function Queue.failed(now)
  local group = A[3]
  if group == nil then
    local out = {}
    for _, g in ipairs(rcall('SMEMBERS', key.failures)) do
      out[g] = rcall('LLEN', key.failure_group .. g)
    end
    return encode(out)
  end
  local start = Queue.page_arg(A[4], 0, 'Failed(): Arg "start" is not a number: ')
  local limit = Queue.page_arg(A[5], 25, 'Failed(): Arg "limit" is not a number: ')
  local gk = key.failure_group .. group
  return encode({
    total = rcall('LLEN', gk),
    jobs = rcall('LRANGE', gk, start, start + limit - 1),
  })
end

-- unfail <now> <queue> <group> [count]
-- Moves the oldest `count` (default 25) jobs of a failure group into `queue` as waiting.
-- Reply: integer, jobs moved. A listed jid whose job is gone is dropped from the group and
-- not counted (the reference fails). count <= 0 is rejected before any write (the reference
-- raises a Redis range error for 0).
-- Errors: Queue(): no queue name provided / Unfail(): Arg "group" missing / Unfail(): Arg
-- "count" not a number: <x>
function Queue.unfail(now)
  local queue, group, count_s = A[3], A[4], A[5]
  if queue == nil then error('Queue(): no queue name provided') end
  if group == nil then error('Unfail(): Arg "group" missing') end
  local count = 25
  if count_s ~= nil then
    count = Num.parse(count_s)
    if count == nil then error('Unfail(): Arg "count" not a number: ' .. count_s) end
    count = floor(count)
    if count <= 0 then
      error('Unfail(): Arg "count" must be at least 1: value is not an integer or out of range')
    end
  end
  local gk = key.failure_group .. group
  local jids = rcall('LRANGE', gk, -count, -1)
  local moved = 0
  for _, jid in ipairs(jids) do
    local jk = key.job .. jid
    local f = rcall('HMGET', jk, 'state', 'priority', 'retries', 'history', 'queue',
      'throttles', 'key', 'ttl')
    if f[1] then
      Job.hist(jid, now, '"put"', { q = queue }, f[4] or false)
      rcall('HSET', jk, 'state', 'waiting', 'worker', '', 'expires', 0, 'queue', queue,
        'remaining', f[3] or 0)
      local priority = tonumber(f[2]) or 0
      if f[6] or f[7] or f[8] then
        -- Back into a queue: it joins its ordering key there and passes the gate.
        Job.enter(now, jid, f[5] or queue, queue, f[6], f[7] or nil, f[8], priority, true)
      else
        Job.enqueue(queue, jid, priority, now)
      end
      moved = moved + 1
    end
  end
  rcall('LTRIM', gk, 0, -count - 1)
  if rcall('LLEN', gk) == 0 then rcall('SREM', key.failures, group) end
  return moved
end
