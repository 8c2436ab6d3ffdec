-- qlpy.giveback: a worker hands a job it holds back to its queue (extension, not qless's).

-- qlpy.giveback <now> <jid> <worker>
-- If `jid` is running under `worker`: the job becomes waiting in its own queue again, as a
-- put of it by that worker would make it (history entry `put` with {"q": queue}, out of
-- the queue's lock set and the worker's job set, `worker` "", `expires` 0, `time` now,
-- back in the work set by its priority and now), without spending or restoring a retry:
-- `remaining`, `retries`, priority, tags and data stay as they are. Nothing happens if the
-- job is missing, not running, or held by another worker: a command that ended the lease
-- (complete, fail, retry, a move, a timeout, a lock expiry) came first.
-- A job that uses an extension (its `throttles` field) gives back its throttles' locks and
-- passes the gate again, as a timed-out job does: it keeps its ordering key's turn, waits
-- `throttled` behind the jobs already waiting when a throttle has no room, and must start
-- within its ttl again.
-- Reply: 1 when given back, 0 when the job was not that worker's to give.
-- Events (as the owner's put): ql:log put, then ql:put (tracked).
-- Errors: qlpy.giveback(): Arg "jid" missing / qlpy.giveback(): Arg "worker" missing
function Job.giveback(now)
  local jid, worker = A[3], A[4]
  if jid == nil then error('qlpy.giveback(): Arg "jid" missing') end
  if worker == nil then error('qlpy.giveback(): Arg "worker" missing') end
  local jk = key.job .. jid
  local f = rcall('HMGET', jk, 'state', 'worker', 'queue', 'priority', 'history', 'throttles')
  if f[1] ~= 'running' or f[2] ~= worker then return 0 end
  local queue = f[3] or ''
  local qjson = encode(queue)
  rcall('PUBLISH', key.channel .. 'log',
    '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qjson .. '}')
  Job.hist(jid, now, '"put"', '{"q":' .. qjson .. '}', f[5] or false)
  Queue.unlist(queue, jid)
  rcall('ZREM', key.worker .. worker .. key.jobs, jid)
  if f[6] then
    rcall('HSET', jk, 'worker', '', 'expires', '0', 'time', Num.time_text(now))
    local g = rcall('HMGET', jk, 'key', 'ttl')
    Job.leave(now, jid, queue, f[6], nil)
    if not Job.ready(now, queue, jid, tonumber(f[4]) or 0, f[6], g[1] or nil, tonumber(g[2]),
        now, 'running') then
      rcall('HSET', jk, 'state', 'waiting')
    end
  else
    rcall('HSET', jk, 'state', 'waiting', 'worker', '', 'expires', '0',
      'time', Num.time_text(now))
    Job.enqueue(queue, jid, tonumber(f[4]) or 0, now)
  end
  Job.notify(jid, 'put')
  return 1
end
