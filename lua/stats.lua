-- Statistics: wait/run samples and failure counters per day bin (protocol section 5).
--
-- Extension: every stats hash expires `stats-history` days (default 30) after the start of
-- its day bin. The TTL is given relative to the caller's `now` (EXPIRE day + days*86400 -
-- now), never as an absolute EXPIREAT: the core never reads the server clock, and a client
-- whose `now` differs from the server's clock (tests, replays, skew) must not see its fresh
-- statistics vanish at once. It is set only when a sample hash is created (no extra call
-- per sample).

-- The day bin of a timestamp (UTC midnight, floored modulo).
--@inline
function Stats.day(t) return t - (t % 86400) end

-- Statistics hash of `kind` (wait | run | stats) for a day bin and a queue. A day bin is
-- whole (Stats.day), and below 1e14 %d writes the digits that %.14g (Lua's number text)
-- does, for a fraction of the cost; -0 and the rest keep Lua's own text.
--@inline
function Stats.key(kind, day, queue)
  if day >= 1 and day < 1e14 then
    return key.stats .. kind .. ':' .. format('%d', day) .. ':' .. queue
  end
  return key.stats .. kind .. ':' .. day .. ':' .. queue
end

-- Seconds from `now` until a stats hash of day `day` should disappear.
function Stats.ttl(now, day)
  local days = Config.number('stats-history', 30)
  return math.ceil(day + 86400 * days - now)
end

-- Keep a stats hash only for the configured history.
function Stats.expire(k, now, day)
  local ttl = Stats.ttl(now, day)
  if ttl < 1 then ttl = 1 end
  rcall('EXPIRE', k, ttl)
end

-- Histogram field of a sample (s0..s59, m1..m59, h1..h23, d1...). A whole count from 1 to
-- 59 (or 23) gets the digits %.14g would write from %d, which costs less; zero, negative
-- and day counts keep Lua's own number text.
--@inline
function Stats.bin(v)
  local f = floor(v)
  if f < 60 then
    if f >= 1 then return format('s%d', f) end
    return 's' .. f
  end
  if f < 3600 then return format('m%d', floor(f / 60)) end
  if f < 86400 then return format('h%d', floor(f / 3600)) end
  return 'd' .. floor(f / 86400)
end

-- One step of Welford's streaming update (protocol 5.2): count, mean and vk after `v`.
--@inline
function Stats.step(total, mean, vk, v)
  if total == nil then return 1, v, 0 end
  mean, vk = mean or 0, vk or 0
  total = total + 1
  local old = mean
  mean = old + (v - old) / total
  return total, mean, vk + (v - mean) * (v - old)
end

-- P-STAT: record sample `v` of `kind` (wait|run) for `queue` in the day bin of `now`.
-- The histogram bucket is read and written with the running totals (two calls, not three).
--@inline
function Stats.sample(now, kind, queue, v)
  local day = Stats.day(now)
  local k = Stats.key(kind, day, queue)
  local bin = Stats.bin(v)
  local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
  local total, mean, vk = Stats.step(tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v)
  rcall('HSET', k, 'total', total, 'mean', mean, 'vk', vk, bin, (tonumber(cur[4]) or 0) + 1)
  if total == 1 then Stats.expire(k, now, day) end
end

-- P-STAT for the samples `vs` of one pop, in order: one read and one write of the hash
-- instead of two calls per sample, with the same arithmetic, so the same stored values.
--@inline
function Stats.samples(now, kind, queue, vs)
  -- More samples than a call may carry (histogram fields) go one by one. (Pop records a
  -- single sample with Stats.sample itself.)
  if #vs > 1000 then
    for _, v in ipairs(vs) do Stats.sample(now, kind, queue, v) end
    return
  end
  local day = Stats.day(now)
  local k = Stats.key(kind, day, queue)
  local fields, slot, bins = { 'total', 'mean', 'vk' }, {}, {}
  for i, v in ipairs(vs) do
    local bin = Stats.bin(v)
    bins[i] = bin
    if not slot[bin] then
      fields[#fields + 1] = bin
      slot[bin] = #fields
    end
  end
  local cur = rcall('HMGET', k, unpack(fields))
  local total, mean, vk = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3])
  local fresh = false
  for _, v in ipairs(vs) do
    total, mean, vk = Stats.step(total, mean, vk, v)
    if total == 1 then fresh = true end
  end
  local counts = {}
  for _, bin in ipairs(bins) do counts[bin] = (counts[bin] or tonumber(cur[slot[bin]]) or 0) + 1 end
  local args = { 'total', total, 'mean', mean, 'vk', vk }
  for i = 4, #fields do
    args[#args + 1] = fields[i]
    args[#args + 1] = counts[fields[i]]
  end
  rcall('HSET', k, unpack(args))
  if fresh then Stats.expire(k, now, day) end
end

-- Adjust the failure counters of `queue` for the day containing `when`.
--@inline
function Stats.count(now, when, queue, field, by, field2, by2)
  local day = Stats.day(when)
  local k = Stats.key('stats', day, queue)
  rcall('HINCRBY', k, field, by)
  if field2 then rcall('HINCRBY', k, field2, by2) end
  Stats.expire(k, now, day)
end

-- Decrement `failed` for a job that leaves the failed state (`failure` is its JSON text).
-- A failure object without a usable `when` adjusts nothing.
function Stats.unfailed(now, failure, queue)
  local ok, f = pcall(decode, failure or '{}')
  if not ok or type(f) ~= 'table' then return nil end
  local when = Num.parse(f['when'])
  if when == nil then return nil end
  local day = Stats.day(when)
  local k = Stats.key('stats', day, queue)
  rcall('HINCRBY', k, 'failed', -1)
  Stats.expire(k, now, day)
  return f
end

-- The `wait`/`run` part of the stats reply.
function Stats.summary(k)
  local raw = rcall('HGETALL', k)
  local h = {}
  for i = 1, #raw, 2 do h[raw[i]] = raw[i + 1] end
  local count = tonumber(h.total) or 0
  local mean = tonumber(h.mean) or 0
  local vk = tonumber(h.vk) or 0
  local std = 0
  if count > 1 then std = math.sqrt(vk / (count - 1)) end
  local histogram = {}
  for i = 0, 59 do histogram[#histogram + 1] = tonumber(h['s' .. i]) or 0 end
  for i = 1, 59 do histogram[#histogram + 1] = tonumber(h['m' .. i]) or 0 end
  for i = 1, 23 do histogram[#histogram + 1] = tonumber(h['h' .. i]) or 0 end
  for i = 1, 6 do histogram[#histogram + 1] = tonumber(h['d' .. i]) or 0 end
  return { count = count, mean = mean, std = std, histogram = histogram }
end

-- stats <now> <queue> <date>
-- Reply: {"retries","failed","failures","wait":{...},"run":{...}} for the day of `date`,
-- and "expired" (jobs whose ttl ran out, an extension) only when there were some.
-- Errors: Queue(): no queue name provided / Stats(): Arg "date" missing or not a number: <x>
function Stats.get(now)
  local queue, date_s = A[3], A[4]
  if queue == nil then error('Queue(): no queue name provided') end
  local date = Num.parse(date_s)
  if date == nil then error('Stats(): Arg "date" missing or not a number: ' .. tostring(date_s)) end
  local day = Stats.day(date)
  local counters = rcall('HMGET', Stats.key('stats', day, queue), 'retries', 'failed', 'failures',
    'expired')
  local expired = tonumber(counters[4])
  return encode({
    retries = tonumber(counters[1]) or 0,
    failed = tonumber(counters[2]) or 0,
    failures = tonumber(counters[3]) or 0,
    expired = expired and expired > 0 and expired or nil,
    wait = Stats.summary(Stats.key('wait', day, queue)),
    run = Stats.summary(Stats.key('run', day, queue)),
  })
end
