-- priority: change a job's priority, and its place in its queue's work set.

-- priority <now> <jid> <priority>
-- Reply: the priority truncated toward zero. Errors: Job(): no jid provided / Priority(): Arg
-- "priority" missing or not a number: <x> / Priority(): Job <jid> does not exist
function Job.priority(now)
  local jid, p_s = A[3], A[4]
  if jid == nil then error('Job(): no jid provided') end
  local p = Num.parse(p_s)
  if p == nil then
    error('Priority(): Arg "priority" missing or not a number: ' .. tostring(p_s))
  end
  local queue = rcall('HGET', key.job .. jid, 'queue')
  if not queue then error('Priority(): Job ' .. jid .. ' does not exist') end
  rcall('HSET', key.job .. jid, 'priority', p)
  local wk = key.queue .. queue .. key.work
  if rcall('ZSCORE', wk, jid) then rcall('ZADD', wk, p, jid) end
  return p
end
