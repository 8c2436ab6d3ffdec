-- Recurring templates: recur, unrecur, recur.get, recur.update, recur.tag/untag, P-SPAWN.

-- P-SPAWN: create the jobs of due templates of `queue`, at most `limit` in this call.
-- Each child is stamped with its slot time and enters the work set scored by it. `due` is
-- the caller's ZRANGEBYSCORE ... WITHSCORES result when it already has one.
function Recur.spawn(now, queue, limit, due)
  if limit <= 0 then return end
  local rk = key.queue .. queue .. key.recurring
  due = due or rcall('ZRANGEBYSCORE', rk, 0, now, 'WITHSCORES', 'LIMIT', 0, limit)
  local moved = 0
  for i = 1, #due, 2 do
    if moved >= limit then break end
    local rjid = due[i]
    local tk = key.recur .. rjid
    local r = rcall('HMGET', tk, 'klass', 'data', 'priority', 'tags', 'retries', 'interval',
      'backlog', 'throttles', 'key', 'ttl')
    local flow = r[8] or r[9] or r[10]
    local s = floor(tonumber(due[i + 1]))
    local interval = tonumber(r[6]) or 0
    local backlog = tonumber(r[7]) or 0
    -- Literal arithmetic, as the protocol gives it: with an interval of 0 (recur.update does
    -- not check it) and a slot in the past, the skipped-ahead slot is nan and nothing spawns.
    if backlog ~= 0 then
      local n = (now - s) / interval
      if n > backlog then s = s + math.ceil(n - backlog) * interval end
    end
    local tags = Job.tag_list(r[4])
    local priority = tonumber(r[3]) or 0
    local retries = r[5] or 0
    while s <= now and moved < limit do
      local c = rcall('HINCRBY', tk, 'count', 1)
      moved = moved + 1
      local child = rjid .. '-' .. c
      for _, t in ipairs(tags) do
        rcall('ZADD', key.tag .. t, now, child)
        rcall('ZINCRBY', key.tags, 1, t)
      end
      rcall('HSET', key.job .. child, 'jid', child, 'klass', r[1] or '', 'data', r[2] or '{}',
        'priority', r[3] or 0, 'tags', r[4] or '{}', 'state', 'waiting', 'worker', '',
        'expires', 0, 'queue', queue, 'retries', retries, 'remaining', retries,
        'time', Num.time_text(s), 'spawned_from_jid', rjid)
      Job.hist(child, s, '"put"', { q = queue })
      if flow then
        -- The template's throttles, key and ttl go to each child, which joins the key and
        -- passes the gate as put at its slot time.
        local text = Job.store_flow(child, queue, r[8] or nil, r[9] or nil, r[10] or nil)
        if r[9] then Order.join(queue, r[9], child) end
        Job.ready(s, queue, child, priority, text, r[9] or nil, tonumber(r[10]), s, 'waiting')
      else
        Job.enqueue(queue, child, priority, s)
      end
      s = s + interval
      rcall('ZADD', rk, s, rjid)
    end
  end
end

-- Option value that must be a finite number (default when absent).
function Recur.recur_number(opts, name, default)
  local v = opts[name]
  if v == nil then return default end
  local n = Num.parse(v)
  if n == nil then error('Recur(): Arg "' .. name .. '" not a number: ' .. v) end
  return n
end

-- recur <now> <queue> <jid> <klass> <data> interval <seconds> <offset> [priority p]
--       [tags t] [retries r] [backlog b] [throttles t] [key k] [ttl s]
-- Reply: the template jid. Re-issuing replaces every attribute but keeps `count`. Spawned
-- jobs get the template's throttles (the dialect's), ordering key and ttl (extensions).
-- Errors: Queue(): no queue name provided / RecurringJob On(): Arg "jid" missing /
-- RecurringJob On(): Arg "klass" missing / RecurringJob On(): Arg "spec" missing /
-- RecurringJob On(): Arg "data" not JSON: <x> / Recur(): schedule type "<x>" unknown /
-- Recur(): Arg "interval" not a number: <x> / Recur(): Arg "offset" not a number: <x> /
-- Recur(): Arg "interval" must be greater than 0 / Odd number of additional args / Recur():
-- Arg "tags" must be JSON string array: <x> / Recur(): Arg "<name>" not a number: <x> /
-- Recur(): Arg "throttles" not JSON array: <x> / Recur(): Arg "key" is empty / Recur(): Arg
-- "ttl" not a number: <x> / Recur(): Arg "ttl" must be greater than 0: <x>
function Recur.recur(now)
  local queue, jid, klass, data, spec = A[3], A[4], A[5], A[6], A[7]
  if queue == nil then error('Queue(): no queue name provided') end
  if jid == nil then error('RecurringJob On(): Arg "jid" missing') end
  if klass == nil then error('RecurringJob On(): Arg "klass" missing') end
  if spec == nil then error('RecurringJob On(): Arg "spec" missing') end
  if decode(data) == false then error('RecurringJob On(): Arg "data" not JSON: ' .. data) end
  if spec ~= 'interval' then error('Recur(): schedule type "' .. spec .. '" unknown') end
  local interval = Num.parse(A[8])
  if interval == nil then error('Recur(): Arg "interval" not a number: ' .. tostring(A[8])) end
  local offset = Num.parse(A[9])
  if offset == nil then error('Recur(): Arg "offset" not a number: ' .. tostring(A[9])) end
  if interval <= 0 then error('Recur(): Arg "interval" must be greater than 0') end
  local n = #A
  if (n - 7) % 2 == 1 then error('Odd number of additional args') end
  local opts = {}
  for i = 10, n - 1, 2 do opts[A[i]] = A[i + 1] end
  local tags = {}
  if opts.tags ~= nil then
    tags = Json.strings(decode(opts.tags))
    if tags == nil then error('Recur(): Arg "tags" must be JSON string array: ' .. opts.tags) end
  end
  local priority = Recur.recur_number(opts, 'priority', 0)
  local retries = Recur.recur_number(opts, 'retries', 0)
  local backlog = Recur.recur_number(opts, 'backlog', 0)
  local throttles, okey, ttl = Job.flow_options(opts, 'Recur()')
  local stored = throttles and Throttle.stored(throttles, queue)

  local tk = key.recur .. jid
  local old = rcall('HMGET', tk, 'count', 'queue')
  if old[2] then rcall('ZREM', key.queue .. old[2] .. key.recurring, jid) end
  rcall('HSET', tk, 'jid', jid, 'klass', klass, 'data', data, 'priority', priority,
    'tags', encode(tags), 'state', 'recur', 'queue', queue, 'type', 'interval',
    'count', old[1] or 0, 'interval', interval, 'retries', retries, 'backlog', backlog)
  rcall('HDEL', tk, 'throttles', 'key', 'ttl')
  if stored or okey or ttl then
    Recur.store_flow(tk, stored and encode(stored), okey, ttl)
  end
  rcall('ZADD', key.queue .. queue .. key.recurring, now + offset, jid)
  rcall('ZADD', key.queues, 'NX', now, queue)
  return jid
end

-- Store a template's throttle list (JSON text), ordering key and ttl, those given.
function Recur.store_flow(tk, text, okey, ttl)
  local args = {}
  if text then args[#args + 1], args[#args + 2] = 'throttles', text end
  if okey then args[#args + 1], args[#args + 2] = 'key', okey end
  if ttl then args[#args + 1], args[#args + 2] = 'ttl', ttl end
  rcall('HSET', tk, unpack(args))
end

-- unrecur <now> <jid>: delete the template (spawned jobs stay). Reply 1.
-- Error: Recurring(): no jid provided
function Recur.unrecur(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = key.recur .. jid
  local queue = rcall('HGET', tk, 'queue')
  if queue then rcall('ZREM', key.queue .. queue .. key.recurring, jid) end
  rcall('DEL', tk)
  return 1
end

-- recur.get <now> <jid>: the recurring object (protocol 2.11), or nil. It has `throttles`
-- (the stored list) when the template names a throttle besides its queue's own, and `key`
-- and `ttl` when they are set. Error: Recurring(): no jid provided
function Recur.get(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local r = rcall('HMGET', key.recur .. jid, 'jid', 'klass', 'state', 'queue', 'priority',
    'interval', 'retries', 'count', 'data', 'tags', 'backlog', 'throttles', 'key', 'ttl')
  if not r[1] then return false end
  local all = Throttle.list(r[12])
  return encode({
    jid = r[1], klass = r[2], state = r[3], queue = r[4], priority = tonumber(r[5]),
    interval = tonumber(r[6]), retries = tonumber(r[7]), count = tonumber(r[8]), data = r[9],
    tags = Job.tag_list(r[10]), backlog = tonumber(r[11]) or 0,
    throttles = Throttle.own(all, r[4] or '') and all or nil, ['key'] = r[13] or nil,
    ttl = tonumber(r[14]),
  })
end

-- Check one recur.update pair (protocol 3.29 validation column).
function Recur.check_update(name, value)
  if value == nil then error('No value provided for ' .. tostring(name)) end
  if name == 'priority' or name == 'interval' or name == 'retries' then
    if Num.parse(value) == nil then
      error('Recur(): Arg "' .. name .. '" must be a number: ' .. value)
    end
  elseif name == 'backlog' then
    if Num.parse(value) == nil then error('Recur(): Arg "backlog" not a number: ' .. value) end
  elseif name == 'data' then
    if decode(value) == false then error('Recur(): Arg "data" is not JSON-encoded: ' .. value) end
  elseif name == 'throttles' then
    local ok, v = pcall(decode, value)
    if not ok or not Json.strings(v) then
      error('Recur(): Arg "throttles" is not JSON-encoded: ' .. value)
    end
  elseif name == 'ttl' then
    local ttl = Num.parse(value)
    if ttl == nil or ttl < 0 then error('Recur(): Arg "ttl" must be a number: ' .. value) end
  elseif name ~= 'klass' and name ~= 'queue' and name ~= 'key' then
    error('Recur(): Unrecognized option "' .. name .. '"')
  end
end

-- recur.update <now> <jid> [name value]...
-- Names: priority, retries, interval, data, klass, queue, backlog; throttles (the dialect's:
-- a JSON array, the queue's own tid is appended), key ('' removes it), ttl (0 removes it).
-- Every pair is validated before the first is applied (the reference applies them one by
-- one). Reply 1. Errors: Recurring(): no jid provided / Recur(): No recurring job <jid> /
-- No value provided for <name> / Recur(): Arg "<name>" must be a number: <x> / Recur(): Arg
-- "backlog" not a number: <x> / Recur(): Arg "data" is not JSON-encoded: <x> / Recur():
-- Unrecognized option "<name>" / Recur(): Arg "throttles" is not JSON-encoded: <x> / Recur():
-- Arg "ttl" must be a number: <x>
function Recur.update(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = key.recur .. jid
  if rcall('EXISTS', tk) == 0 then error('Recur(): No recurring job ' .. jid) end
  local n = #A
  for i = 4, n, 2 do Recur.check_update(A[i], A[i + 1]) end
  local r = rcall('HMGET', tk, 'queue', 'interval')
  local queue, interval = r[1] or '', tonumber(r[2]) or 0
  for i = 4, n, 2 do
    local name, value = A[i], A[i + 1]
    if name == 'priority' or name == 'retries' or name == 'backlog' then
      rcall('HSET', tk, name, Num.parse(value))
    elseif name == 'interval' then
      local new = Num.parse(value)
      rcall('ZINCRBY', key.queue .. queue .. key.recurring, new - interval, jid)
      rcall('HSET', tk, 'interval', new)
      interval = new
    elseif name == 'queue' then
      local old_rk = key.queue .. queue .. key.recurring
      local score = rcall('ZSCORE', old_rk, jid)
      rcall('ZREM', old_rk, jid)
      if score then rcall('ZADD', key.queue .. value .. key.recurring, score, jid) end
      rcall('HSET', tk, 'queue', value)
      rcall('ZADD', key.queues, 'NX', now, value)
      Recur.set_throttles(tk, Throttle.own(Throttle.list(rcall('HGET', tk, 'throttles')), queue),
        value)
      queue = value
    elseif name == 'throttles' then
      Recur.set_throttles(tk, Throttle.list(value), queue)
    elseif (name == 'key' and value == '') or (name == 'ttl' and Num.parse(value) == 0) then
      rcall('HDEL', tk, name)
    elseif name == 'ttl' then
      rcall('HSET', tk, 'ttl', Num.parse(value))
    else
      rcall('HSET', tk, name, value)
    end
  end
  return 1
end

-- Store the named throttles `given` on template `tk` of `queue` (with the queue's own tid),
-- or remove the field when there are none.
function Recur.set_throttles(tk, given, queue)
  local stored = given and Throttle.stored(given, queue)
  if stored then
    rcall('HSET', tk, 'throttles', encode(stored))
  else
    rcall('HDEL', tk, 'throttles')
  end
end

-- recur.tag <now> <jid> <tag>...: append tags not already on the template (duplicates given
-- in the same call are all appended, as in the reference). Reply: the tag list JSON.
-- Errors: Recurring(): no jid provided / Tag(): Job <jid> does not exist
function Recur.tag(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = key.recur .. jid
  local text = rcall('HGET', tk, 'tags')
  if not text then error('Tag(): Job ' .. jid .. ' does not exist') end
  local tags = Job.tag_list(text)
  local present = {}
  for _, t in ipairs(tags) do present[t] = true end
  for i = 4, #A do
    if not present[A[i]] then tags[#tags + 1] = A[i] end
  end
  local out = encode(tags)
  rcall('HSET', tk, 'tags', out)
  return out
end

-- recur.untag <now> <jid> <tag>...: remove the listed tags. Reply: the tag list JSON.
-- Errors: Recurring(): no jid provided / Untag(): Job <jid> does not exist
function Recur.untag(now)
  local jid = A[3]
  if jid == nil then error('Recurring(): no jid provided') end
  local tk = key.recur .. jid
  local text = rcall('HGET', tk, 'tags')
  if not text then error('Untag(): Job ' .. jid .. ' does not exist') end
  local drop = {}
  for i = 4, #A do drop[A[i]] = true end
  local tags = {}
  for _, t in ipairs(Job.tag_list(text)) do
    if not drop[t] then tags[#tags + 1] = t end
  end
  local out = encode(tags)
  rcall('HSET', tk, 'tags', out)
  return out
end
