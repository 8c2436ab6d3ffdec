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
  local out = {}
  for i, j in ipairs(jobs) do
    out[i] = Job.put_write(now + STEP * (i - 1), worker, queue, j[1], j[2], j[3], j[4], j[5],
      j[6], j[7], j[8], j[9], j[10], j[11], j[12], probe, batch)
  end
  if batch then
    if #batch > 0 then
      Queue.call_list('ZADD', key.queue .. queue .. key.work, batch, 1000)
      Wake.queue(queue)
    end
    rcall('ZADD', key.queues, 'NX', Num.score_arg(now, Num.time_text(now)), queue)
  end
  return out
end

-- Check every job of a qlpy.put_many call (ARGV from 5 on), appending each one's arguments
-- to `jobs` as it passes; `jobs.repeated` is set when a jid occurs twice. Raises put's error
-- for the first job refused (the caller names it by #jobs + 1).
function Job.put_many_args(queue, jobs)
  local i, n, seen = 5, #A, {}
  while i <= n do
    local count_s = A[i + 4]
    local count = Num.parse(count_s)
    if count == nil or count < 0 or count % 1 ~= 0 or i + 4 + 2 * count > n then
      error('option count missing or not a whole number: ' .. tostring(count_s), 0)
    end
    local jid, last = A[i], i + 4 + 2 * count
    local delay, retries, tags, priority, depends, throttles, okey, ttl, unique =
      Job.put_args(queue, jid, A[i + 1], A[i + 2], A[i + 3], i + 5, last)
    if seen[jid] then jobs.repeated = true end
    seen[jid] = true
    jobs[#jobs + 1] = { jid, A[i + 1], A[i + 2], delay, retries, tags, priority, depends,
      throttles, okey, ttl, unique }
    i = last + 1
  end
end

-- Whether none of the jobs' hashes exists (one EXISTS per 1000 jids).
function Job.none_exist(jobs)
  local keys = {}
  for i, j in ipairs(jobs) do keys[i] = key.job .. j[1] end
  for i = 1, #keys, 1000 do
    local last = i + 999
    if last > #keys then last = #keys end
    if rcall('EXISTS', unpack(keys, i, last)) > 0 then return false end
  end
  return true
end
