-- qlpy.put_many: many puts into one queue in one call (extension, docs/protocol.md).

-- Seconds between the puts of one call: well above the work-set score's resolution (about
-- 3e-7 s of time at today's clock), so that jobs of equal priority keep batch order.
local STEP = 0.00001

-- qlpy.put_many <now> <worker> <queue> (<jid> <klass> <data> <delay> <n> [name value]*n)...
-- Each job is put exactly as `put <now + 0.00001 (i - 1)> <worker> <queue> <jid> <klass>
-- <data> <delay>` with its n option pairs would put it (every put option, unique included):
-- job i is put 10 us after job i - 1, so that jobs of equal priority pop in batch order.
-- Every job is checked before the first write: when one is refused, nothing is written.
-- Reply: array of the jids in order, nil in place of a unique job left alone ({} when no
-- job is given). Events: those of each put, in order.
-- Errors: Queue(): no queue name provided / qlpy.put_many(): job <i>: <put's phrase> (i
-- counts from 1) / qlpy.put_many(): job <i>: option count missing or not a whole number:
-- <x>
function Job.put_many(now)
  local worker, queue = A[3], A[4]
  if queue == nil then error('Queue(): no queue name provided') end
  local jobs = {}
  local ok, err = pcall(Job.put_many_args, queue, jobs)
  if not ok then
    -- put's own message, with the job named after the position Lua gave it (if any).
    local at, message = tostring(err):match('^(user_script:%d+: )(.*)$')
    if not at then at, message = '', tostring(err) end
    error(at .. 'qlpy.put_many(): job ' .. (#jobs + 1) .. ': ' .. message, 0)
  end
  if #jobs == 0 then return {} end
  -- One EXISTS for every jid: when none exists and none repeats (the common batch), no job
  -- needs an EXISTS of its own, and the waiting ones go into the work set in one ZADD.
  local fresh = not jobs.repeated and Job.none_exist(jobs)
  local probe, batch = nil, nil
  if fresh then
    probe = 2 * rcall('EXISTS', key.tracked)
    batch = {}
  end
  local out
  if fresh and jobs.plain then
    out = Job.put_plain(now, queue, jobs, probe, batch)
  else
    out = {}
    for i, j in ipairs(jobs) do
      if type(j) ~= 'table' then j = { A[j], A[j + 1], A[j + 2], 0, nil, nil, nil, false } end
      out[i] = Job.put_write(now + STEP * (i - 1), worker, queue, j[1], j[2], j[3], j[4],
        j[5], j[6], j[7], j[8], j[9], j[10], j[11], j[12], probe, batch)
    end
  end
  if batch then
    if #batch > 0 then
      Queue.call_list('ZADD', key.queue .. queue .. key.work, batch, 1000)
    end
    rcall('ZADD', key.queues, 'NX', Num.score_arg(now, Num.time_text(now)), queue)
  end
  return out
end

-- Check every job of a qlpy.put_many call (ARGV from 5 on), appending each one's arguments
-- to `jobs` as it passes: a plain job (no options, no delay) as the ARGV index of its jid,
-- another as the list of its checked arguments. `jobs.repeated` is set when a jid occurs
-- twice, `jobs.plain` while every job is plain. Raises put's error for the first job
-- refused (the caller names it by #jobs + 1).
function Job.put_many_args(queue, jobs)
  local i, n, seen = 5, #A, {}
  jobs.plain = true
  while i <= n do
    local count_s = A[i + 4]
    local jid = A[i]
    if count_s == '0' then
      if Job.put_check(queue, jid, A[i + 1], A[i + 2], A[i + 3]) == 0 and i + 4 <= n then
        jobs[#jobs + 1] = i
      else
        jobs.plain = false
        jobs[#jobs + 1] = Job.put_many_job(queue, i, i + 4)
      end
      i = i + 5
    else
      local count = Num.parse(count_s)
      if count == nil or count < 0 or count % 1 ~= 0 or i + 4 + 2 * count > n then
        error('option count missing or not a whole number: ' .. tostring(count_s), 0)
      end
      jobs.plain = false
      local last = i + 4 + 2 * count
      jobs[#jobs + 1] = Job.put_many_job(queue, i, last)
      i = last + 1
    end
    if seen[jid] then jobs.repeated = true end
    seen[jid] = true
  end
end

-- The checked arguments of the job at ARGV[i] whose options end at ARGV[last].
function Job.put_many_job(queue, i, last)
  local delay, retries, tags, priority, depends, throttles, okey, ttl, unique =
    Job.put_args(queue, A[i], A[i + 1], A[i + 2], A[i + 3], i + 5, last)
  return { A[i], A[i + 1], A[i + 2], delay, retries, tags, priority, depends, throttles, okey,
    ttl, unique }
end

-- The writes of a batch of plain jobs (no options, no delay) none of which exists: exactly
-- what Job.put_write writes for each (the same events, history entry, hash and score),
-- without what only other jobs need. `jobs` holds the ARGV index of each jid; `tracked` is
-- 2 when any job is tracked; the work-set entries go to `batch`.
function Job.put_plain(now, queue, jobs, tracked, batch)
  local out = {}
  local qjson = encode(queue)
  local log_tail = ',"event":"put","queue":' .. qjson .. '}'
  local hist_tail = ',"put",{"q":' .. qjson .. '}]'
  local logk = key.channel .. 'log'
  for n, i in ipairs(jobs) do
    local jid = A[i]
    local t = now + STEP * (n - 1)
    local tstr = format('%.20f', t)
    local whole = Num.whole_text(t, tstr)
    local jk = key.job .. jid
    rcall('PUBLISH', logk, '{"jid":' .. encode(jid) .. log_tail)
    rcall('RPUSH', jk .. key.history, '[' .. whole .. hist_tail)
    rcall('HSET', jk, 'jid', jid, 'klass', A[i + 1], 'data', A[i + 2], 'priority', '0',
      'tags', '{}', 'state', 'waiting', 'worker', '', 'expires', '0', 'queue', queue,
      'retries', '5', 'remaining', '5', 'time', tstr)
    batch[#batch + 1] = 0 - (t / 10000000000)
    batch[#batch + 1] = jid
    if tracked >= 2 and rcall('ZSCORE', key.tracked, jid) then
      rcall('PUBLISH', key.channel .. 'put', jid)
    end
    out[n] = jid
  end
  return out
end

-- Whether none of the jobs' hashes exists (one EXISTS per 1000 jids).
function Job.none_exist(jobs)
  local keys = {}
  for i, j in ipairs(jobs) do keys[i] = key.job .. (type(j) == 'table' and j[1] or A[j]) end
  for i = 1, #keys, 1000 do
    local last = i + 999
    if last > #keys then last = #keys end
    if rcall('EXISTS', unpack(keys, i, last)) > 0 then return false end
  end
  return true
end
