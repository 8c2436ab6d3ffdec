-- Statistics: wait/run samples and failure counters per day bin (protocol section 5).
--
-- Extension: every stats hash expires `stats-history` days (default 30) after the start of
-- its day bin. The TTL is given relative to the caller's `now` (EXPIRE day + days*86400 -
-- now), never as an absolute EXPIREAT: the core never reads the server clock, and a client
-- whose `now` differs from the server's clock (tests, replays, skew) must not see its fresh
-- statistics vanish at once. It is set only when a sample hash is created (no extra call
-- per sample).

-- The fine histogram's field names (extension): the bucket number zero-padded to three
-- characters, -81 to 199 (bucket b at 3 * (b + 81) + 1).
local FINE_FIELDS = '-81-80-79-78-77-76-75-74-73-72-71-70-69-68-67-66-65-64-63-62-61-60-59-58-57-56-55-54-53-52-51-50-49-48-47-46-45-44-43-42-41-40-39-38-37-36-35-34-33-32-31-30-29-28-27-26-25-24-23-22-21-20-19-18-17-16-15-14-13-12-11-10-09-08-07-06-05-04-03-02-01000001002003004005006007008009010011012013014015016017018019020021022023024025026027028029030031032033034035036037038039040041042043044045046047048049050051052053054055056057058059060061062063064065066067068069070071072073074075076077078079080081082083084085086087088089090091092093094095096097098099100101102103104105106107108109110111112113114115116117118119120121122123124125126127128129130131132133134135136137138139140141142143144145146147148149150151152153154155156157158159160161162163164165166167168169170171172173174175176177178179180181182183184185186187188189190191192193194195196197198199'

-- qless's histogram fields, s0..s59, m1..m59 and h1..h23: those below 10 take two
-- characters, the others three.
local BIN_S = 's0s1s2s3s4s5s6s7s8s9s10s11s12s13s14s15s16s17s18s19s20s21s22s23s24s25s26s27s28s29s30s31s32s33s34s35s36s37s38s39s40s41s42s43s44s45s46s47s48s49s50s51s52s53s54s55s56s57s58s59'
local BIN_M = 'm1m2m3m4m5m6m7m8m9m10m11m12m13m14m15m16m17m18m19m20m21m22m23m24m25m26m27m28m29m30m31m32m33m34m35m36m37m38m39m40m41m42m43m44m45m46m47m48m49m50m51m52m53m54m55m56m57m58m59'
local BIN_H = 'h1h2h3h4h5h6h7h8h9h10h11h12h13h14h15h16h17h18h19h20h21h22h23'

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

-- The histogram fields of sample `v` (seconds): qless's bin (s0..s59, m1..m59, h1..h23,
-- d1...) and the fine histogram's bucket (extension, protocol.md): floor(20 * log10(v)), so
-- bucket b holds 10^(b/20) <= v < 10^((b+1)/20), 20 buckets per decade, each 12.2 % wide;
-- bucket -81 holds everything below 0.1 ms, zero and negative samples included, and
-- bucket 199 everything from 10^10 s on. Both are field names (text); the fine one is cut
-- from FINE_FIELDS, which costs half of formatting it (and Redis would format a number
-- argument with %.17g, which costs more still). qless's fields are cut from BIN_S, BIN_M
-- and BIN_H the same way (the texts 's' .. f would give); negative and day counts keep
-- Lua's own number text.
--@inline
function Stats.bin(v)
  local fine = '-81'
  if v >= 0.0001 then
    local b = floor(math.log10(v) * 20)
    if b > 199 then b = 199 end
    -- (parenthesised: the build writes the constant's literal here, and Lua only calls a
    -- method of a literal in parentheses)
    fine = (FINE_FIELDS):sub(3 * b + 244, 3 * b + 246)
  end
  local f = floor(v)
  if f < 60 then
    if f >= 10 then return (BIN_S):sub(3 * f - 9, 3 * f - 7), fine end
    if f >= 1 then return (BIN_S):sub(2 * f + 1, 2 * f + 2), fine end
    -- -0 (a wait of -0) keeps Lua's text, s-0, as the reference writes it.
    if f == 0 and 1 / f > 0 then return 's0', fine end
    return 's' .. f, fine
  end
  if f < 3600 then
    local m = floor(f / 60)
    if m >= 10 then return (BIN_M):sub(3 * m - 11, 3 * m - 9), fine end
    return (BIN_M):sub(2 * m - 1, 2 * m), fine
  end
  if f < 86400 then
    local h = floor(f / 3600)
    if h >= 10 then return (BIN_H):sub(3 * h - 11, 3 * h - 9), fine end
    return (BIN_H):sub(2 * h - 1, 2 * h), fine
  end
  return 'd' .. floor(f / 86400), fine
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
-- The fine histogram (extension) lives in its own hash, so qless's hash keeps exactly the
-- fields other clients read: ql:fine:<the qless hash's name>, one concatenation away. A
-- bucket's first sample gives that hash the TTL of qless's hash, so both disappear
-- together (and neither does when the hash was made without one). It is written with
-- pcall, like the stored totals are read with tonumber: pop writes it after the job left
-- the work set, so a corrupt field must not raise there (the job would be in no set at
-- all); a field that is not a number starts again from this sample.
--@inline
function Stats.sample(now, kind, queue, v)
  local day = Stats.day(now)
  local k = Stats.key(kind, day, queue)
  local bin, fine = Stats.bin(v)
  local cur = rcall('HMGET', k, 'total', 'mean', 'vk', bin)
  local total, mean, vk = Stats.step(tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]), v)
  rcall('HSET', k, 'total', total, 'mean', mean, 'vk', vk, bin, (tonumber(cur[4]) or 0) + 1)
  if total == 1 then Stats.expire(k, now, day) end
  local fk = key.fine .. k
  local n = redis.pcall('HINCRBY', fk, fine, '1')
  if n == 1 then
    local ttl = rcall('TTL', k)
    if ttl > 0 then rcall('EXPIRE', fk, ttl) end
  elseif type(n) == 'table' then
    redis.pcall('HSET', fk, fine, '1')
  end
end

-- P-STAT for the samples `vs` of one pop, in order: one read and one write of the hash
-- instead of two calls per sample, with the same arithmetic, so the same stored values.
-- The fine histogram gets one HINCRBY per bucket the samples fall in.
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
  local fields, slot, bins, fines = { 'total', 'mean', 'vk' }, {}, {}, {}
  for i, v in ipairs(vs) do
    local bin, fine = Stats.bin(v)
    bins[i] = bin
    fines[fine] = (fines[fine] or 0) + 1
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
  local fk = key.fine .. k
  local ttl
  for fine, n in pairs(fines) do
    local got = redis.pcall('HINCRBY', fk, fine, n)
    if got == n then
      if ttl == nil then ttl = rcall('TTL', k) end
      if ttl > 0 then rcall('EXPIRE', fk, ttl) end
    elseif type(got) == 'table' then
      redis.pcall('HSET', fk, fine, n)
    end
  end
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

-- Count, mean and sample standard deviation of a sample hash's stored totals.
function Stats.moments(total, mean, vk)
  local count = tonumber(total) or 0
  local std = 0
  if count > 1 then std = math.sqrt((tonumber(vk) or 0) / (count - 1)) end
  return count, tonumber(mean) or 0, std
end

-- The `wait`/`run` part of the stats reply.
function Stats.summary(k)
  local raw = rcall('HGETALL', k)
  local h = {}
  for i = 1, #raw, 2 do h[raw[i]] = raw[i + 1] end
  local count, mean, std = Stats.moments(h.total, h.mean, h.vk)
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

-- qlpy.stats <now> <queue> <date> (extension)
-- Reply: {"retries","failed","failures","wait":{"count","mean","std","fine":{...}},"run":{...}}
-- for the day of `date`: what `stats` replies, with the fine histogram ({"<bucket>":
-- <count>}, buckets as in Stats.bin, empty ones left out) instead of qless's 148 bins, for
-- a tenth of the cost (dashboards ask it for every queue).
-- Errors: Queue(): no queue name provided / Stats(): Arg "date" missing or not a number: <x>
function Stats.fine(now)
  local queue, date_s = A[3], A[4]
  if queue == nil then error('Queue(): no queue name provided') end
  local date = Num.parse(date_s)
  if date == nil then error('Stats(): Arg "date" missing or not a number: ' .. tostring(date_s)) end
  local day = Stats.day(date)
  local counters = rcall('HMGET', Stats.key('stats', day, queue), 'retries', 'failed', 'failures')
  local reply = {
    retries = tonumber(counters[1]) or 0,
    failed = tonumber(counters[2]) or 0,
    failures = tonumber(counters[3]) or 0,
  }
  for _, kind in ipairs({ 'wait', 'run' }) do
    local k = Stats.key(kind, day, queue)
    local totals = rcall('HMGET', k, 'total', 'mean', 'vk')
    local count, mean, std = Stats.moments(totals[1], totals[2], totals[3])
    local raw = rcall('HGETALL', key.fine .. k)
    local fine = {}
    for i = 1, #raw, 2 do fine[raw[i]] = tonumber(raw[i + 1]) end
    reply[kind] = { count = count, mean = mean, std = std, fine = fine }
  end
  return encode(reply)
end
