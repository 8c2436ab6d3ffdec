-- Checking and repairing the data (extension, docs/protocol.md "Checking the data"):
-- qlpy.check walks the keyspace in bounded steps and reports every broken invariant it
-- meets; qlpy.repair checks one finding again and fixes it the way the core would have.
-- A finding is { invariant, key, member, detail, repair }: `key` is the key it is about
-- (a job's hash for the job's own invariants), `member` the member, set or dependency
-- concerned ('' when none), `repair` what qlpy.repair does ('' when it leaves it alone).

-- Units of work per step when the caller gives none: a key or member looked at is one.
local BUDGET = 40

-- Record a finding in `out`.
function Check.found(out, inv, k, member, detail, fix)
  out[#out + 1] = { inv, k, member or '', detail, fix or '' }
end

-- The key of the set of `queue` that a job in `state` belongs to, or nil.
function Check.state_key(queue, state)
  local qk = key.queue .. queue
  if state == 'waiting' or state == 'stalled' then return qk .. key.work end
  if state == 'running' then return qk .. key.locks end
  if state == 'scheduled' then return qk .. key.scheduled end
  if state == 'depends' then return qk .. key.depends end
  if state == 'throttled' then return qk .. key.throttled end
  return nil
end

-- The failure group named by a job's `failure` field, or nil.
function Check.group(text)
  local ok, v = pcall(decode, text or '')
  if ok and type(v) == 'table' and type(v.group) == 'string' then return v.group end
  return nil
end

-- The job's own invariants: the sets its state names and no other set of its queue, its
-- lock, worker set and throttle locks when running, its dependencies, failure group, tags,
-- ordering key, and its queue in ql:queues. Returns the units of work spent.
function Check.job(now, jid, out)
  local jk = key.job .. jid
  local f = rcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'expires', 'failure', 'tags',
    'throttles', 'key', 'grace', 'klass', 'ttl')
  local state, queue = f[2], f[3]
  local known = state == 'waiting' or state == 'stalled' or state == 'running' or
    state == 'scheduled' or state == 'depends' or state == 'throttled' or state == 'failed' or
    state == 'complete'
  if f[1] ~= jid or not known or not queue or not f[11] then
    Check.found(out, 'job-malformed', jk, '', 'the job hash lacks jid, klass, a known state ' ..
      'or queue', '')
    return 1
  end
  if state == 'complete' then
    if not rcall('ZSCORE', key.completed, jid) then
      Check.found(out, 'not-in-state-set', jk, key.completed, 'complete but not in ' ..
        key.completed, 'add it to ' .. key.completed)
    end
  else
    Check.job_sets(jid, jk, state, queue, f, out)
  end
  if state == 'running' then Check.running(jid, jk, queue, f, out) end
  Check.job_dependencies(jid, jk, state, out)
  for _, t in ipairs(Job.tag_list(f[7])) do
    if not rcall('ZSCORE', key.tag .. t, jid) then
      Check.found(out, 'tag-unindexed', jk, t, 'tagged ' .. t .. ' but not in ' .. key.tag .. t,
        'add it to ' .. key.tag .. t)
    end
  end
  if f[9] and state ~= 'complete' and state ~= 'failed' then
    local ok = Order.set(queue, f[9])
    if not rcall('ZSCORE', ok, jid) then
      Check.found(out, 'order-missing', jk, f[9], 'has ordering key ' .. f[9] ..
        ' but is not in ' .. ok, 'append it to ' .. ok)
    end
  end
  return 1
end

-- A job that is not complete: in the set its state names, in no other set of its queue,
-- and its queue in ql:queues.
function Check.job_sets(jid, jk, state, queue, f, out)
  if not rcall('ZSCORE', key.queues, queue) then
    Check.found(out, 'queue-unlisted', jk, queue, 'its queue ' .. queue .. ' is not in ' ..
      key.queues, 'add the queue to ' .. key.queues)
  end
  local own = Check.state_key(queue, state)
  local qk = key.queue .. queue
  -- The dialect's throttle release moves a throttled job into the work set and leaves its
  -- state throttled (the pop that takes it says running): one set or the other, then.
  local alt = state == 'throttled' and qk .. key.work
  if alt and not rcall('ZSCORE', own, jid) and rcall('ZSCORE', alt, jid) then
    own, alt = alt, own
  end
  for _, sk in ipairs({ qk .. key.work, qk .. key.locks, qk .. key.scheduled, qk .. key.depends,
      qk .. key.throttled }) do
    local listed = rcall('ZSCORE', sk, jid)
    if sk == alt and not listed then
      listed = false -- the state's other set, and the job is in the one
    elseif sk == own and not listed and state == 'running' and f[4] == '' then
      -- Check.running reports it: a running job that no worker holds.
      listed = false
    elseif sk == own and not listed then
      local fix = 'add it to ' .. sk
      if state == 'running' then
        fix = 'give it an expired lock: the next pop of ' .. queue .. ' reclaims it'
      end
      Check.found(out, 'not-in-state-set', jk, sk, state .. ' but not in ' .. sk, fix)
    elseif sk ~= own and listed then
      Check.found(out, 'in-other-set', jk, sk, state .. ' but listed in ' .. sk,
        'remove it from ' .. sk)
    end
  end
  if state == 'failed' then
    local group = Check.group(f[6]) or 'failed'
    local gk = key.failure_group .. group
    if not rcall('LPOS', gk, jid) then
      Check.found(out, 'not-in-state-set', jk, gk, 'failed but not in ' .. gk,
        'add it to ' .. gk)
    end
  end
  if f[12] and (state == 'waiting' or state == 'throttled') then
    local ek = qk .. key.expiring
    if not rcall('ZSCORE', ek, jid) and Check.unstarted(jid) then
      Check.found(out, 'expiring-missing', jk, ek, state .. ' with a ttl, not started since ' ..
        'it was put, but without a deadline in ' .. ek, 'add it, due in its ttl from now')
    end
  end
end

-- Whether job `jid` has not started since it was last put: the newest of its history's
-- `put` and `popped` entries is a `put`. A job that started may wait without a deadline
-- (pop reclaims a job whose lock ran out without one; when a throttle then holds it, it
-- waits and is let in so), and so may any job whose history the cap has trimmed (the
-- answer is then false: it cannot be told).
function Check.unstarted(jid)
  local hk = key.job .. jid .. key.history
  local n = rcall('LLEN', hk)
  local cap = floor(Config.number('max-job-history', 100))
  if cap >= 3 and n >= cap then return false end
  local entries = rcall('LRANGE', hk, 0, -1)
  for i = #entries, 1, -1 do
    local ok, e = pcall(decode, entries[i])
    local what = ok and type(e) == 'table' and (e[2] or e.what)
    if what == 'put' then return true end
    if what == 'popped' then return false end
  end
  return false
end

-- A running job: its lock and its worker's job set scored by its `expires` (not while in
-- the grace period after a lost lock, when pop has moved both), a worker, and a lock of
-- each of its named throttles.
function Check.running(jid, jk, queue, f, out)
  local lk = key.queue .. queue .. key.locks
  local lock = tonumber(rcall('ZSCORE', lk, jid))
  if f[4] == '' then
    Check.found(out, 'running-without-worker', jk, lk, 'running but no worker holds it',
      'it gives back its lock and throttles and waits again, as after a timeout')
    return
  end
  local expires = tonumber(f[5])
  if lock and f[10] ~= '1' then
    if not expires or math.abs(lock - expires) > 0.001 then
      Check.found(out, 'lock-mismatch', jk, lk, 'its lock in ' .. lk .. ' is not scored by ' ..
        'its expires', 'score the lock by its expires')
    end
    local wk = key.worker .. f[4] .. key.jobs
    local held = tonumber(rcall('ZSCORE', wk, jid))
    if expires and (not held or math.abs(held - expires) > 0.001) then
      Check.found(out, 'worker-set-missing', jk, wk, 'running under ' .. f[4] ..
        ' but not in ' .. wk .. ' at its expires', 'add it to ' .. wk .. ' at its expires')
    end
  end
  for _, tid in ipairs(Throttle.own(Throttle.list(f[8]), queue) or {}) do
    local tk = key.throttle .. tid .. key.locks
    if not rcall('ZSCORE', tk, jid) then
      Check.found(out, 'throttle-lock-missing', jk, tid, 'running under throttle ' .. tid ..
        ' without a lock in ' .. tk, 'add it to ' .. tk)
    end
  end
end

-- Dependencies: each one is a job that exists, is not complete and lists this job among its
-- dependents; a job in state depends has at least one, a job in another state none.
function Check.job_dependencies(jid, jk, state, out)
  local depk = jk .. key.dependencies
  local deps = rcall('SMEMBERS', depk)
  if state ~= 'depends' then
    if #deps > 0 then
      Check.found(out, 'dependencies-not-depends', jk, depk, state .. ' but ' .. depk ..
        ' is not empty', 'drop its dependencies')
    end
    return
  end
  if #deps == 0 then
    Check.found(out, 'depends-without-dependency', jk, '', 'depends on no job',
      'release it: it becomes waiting (or scheduled)')
  end
  for _, d in ipairs(deps) do
    local st = rcall('HGET', key.job .. d, 'state')
    if not st then
      Check.found(out, 'dependency-gone', jk, d, 'depends on ' .. d .. ', which is gone',
        'release the dependency')
    elseif st == 'complete' then
      Check.found(out, 'dependency-complete', jk, d, 'depends on ' .. d ..
        ', which is complete', 'release the dependency')
    elseif rcall('SISMEMBER', key.job .. d .. key.dependents, jid) == 0 then
      Check.found(out, 'dependency-one-sided', jk, d, 'depends on ' .. d .. ', whose ' ..
        'dependents do not list it', 'add it to the dependents of ' .. d)
    end
  end
end

-- What key `k` is: { what = kind, ... the names in it }, and the kind of walk its members
-- need ('z' sorted set, 's' set, 'l' list; nil: none). `kind` is the key's TYPE.
function Check.classify(k, kind)
  if k == key.queues or k == key.paused or k == key.workers or k == key.config or
      k == key.tracked or k == key.tags or k == key.check then
    return { what = 'known' }
  end
  -- `ql:{<name>}:...`: a key of a namespace (the default namespace's scan matches them)
  if k:byte(#key.channel + 1) == 123 then return { what = 'known' } end
  if k == key.failures then return { what = 'failures', walk = 's', want = 'set' } end
  if k == key.completed then return { what = 'completed', walk = 'z', want = 'zset' } end
  local prefixes = { key.job, key.queue, key.worker, key.tag, key.failure_group, key.recur,
    key.stats, key.fine, key.throttle }
  for _, p in ipairs(prefixes) do
    if k:sub(1, #p) == p then return Check.classify_in(p, k:sub(#p + 1), kind) end
  end
  return { what = 'unknown' }
end

-- Whether `s` ends with `suffix`, and `s` without it.
function Check.ends(s, suffix)
  if #s > #suffix and s:sub(-#suffix) == suffix then return s:sub(1, -#suffix - 1) end
  return nil
end

-- Check.classify for a key under prefix `p` (`rest` follows it).
function Check.classify_in(p, rest, kind)
  if p == key.job then
    if kind == 'hash' then return { what = 'job', jid = rest } end
    local jid = Check.ends(rest, key.history)
    if jid and kind == 'list' then return { what = 'history', jid = jid } end
    jid = Check.ends(rest, key.dependencies)
    if jid and kind == 'set' then return { what = 'dependencies', jid = jid } end
    jid = Check.ends(rest, key.dependents)
    if jid and kind == 'set' then
      return { what = 'dependents', jid = jid, walk = 's', want = 'set' }
    end
    return { what = 'unknown' }
  elseif p == key.queue then
    for _, suffix in ipairs({ key.work, key.locks, key.scheduled, key.depends, key.throttled,
        key.expiring, key.recurring }) do
      local queue = Check.ends(rest, suffix)
      if queue then
        return { what = 'queue', queue = queue, suffix = suffix, walk = 'z', want = 'zset' }
      end
    end
    local at = rest:find(key.order, 1, true)
    if at and at > 1 then
      return { what = 'order', queue = rest:sub(1, at - 1), name = rest:sub(at + #key.order),
        walk = 'z', want = 'zset' }
    end
  elseif p == key.worker then
    if Check.ends(rest, key.jobs) then return { what = 'known', want = 'zset' } end
  elseif p == key.tag then
    return { what = 'tag', tag = rest, walk = 'z', want = 'zset' }
  elseif p == key.failure_group then
    return { what = 'group', group = rest, walk = 'l', want = 'list' }
  elseif p == key.recur then
    return { what = 'recur', jid = rest, want = 'hash' }
  elseif p == key.stats or p == key.fine then
    return { what = 'known', want = 'hash' }
  elseif p == key.throttle then
    -- -ready is not walked: a dialect core's pop takes a job our core let in without
    -- knowing its admission, and Throttle.verify drops such entries as it meets them.
    if Check.ends(rest, key.ready) then return { what = 'known', want = 'zset' } end
    for _, suffix in ipairs({ key.locks, key.pending }) do
      local tid = Check.ends(rest, suffix)
      if tid then
        return { what = 'throttle-set', tid = tid, suffix = suffix, walk = 'z', want = 'zset' }
      end
    end
    return { what = 'known', want = 'hash' }
  end
  return { what = 'unknown' }
end

-- The invariants of key `k` as a whole (`d` its classification). Returns the units spent.
function Check.head(now, k, d, kind, out)
  if d.what == 'unknown' or (d.want and d.want ~= kind) then
    Check.found(out, 'unknown-key', k, '', 'no invariant explains a ' .. kind .. ' named ' .. k,
      '')
  elseif d.what == 'job' then
    return Check.job(now, d.jid, out)
  elseif d.what == 'history' then
    if rcall('EXISTS', key.job .. d.jid) == 0 then
      Check.found(out, 'history-orphan', k, '', 'the history of a job that is gone',
        'delete it')
    end
  elseif d.what == 'dependencies' then
    if rcall('EXISTS', key.job .. d.jid) == 0 then
      Check.found(out, 'dependencies-orphan', k, '', 'the dependencies of a job that is gone',
        'remove it from their dependents and delete it')
    end
  elseif d.what == 'group' then
    if rcall('SISMEMBER', key.failures, d.group) == 0 then
      Check.found(out, 'failure-group-unlisted', k, d.group, 'failure group ' .. d.group ..
        ' is not in ' .. key.failures, 'add it to ' .. key.failures)
    end
  elseif d.what == 'recur' then
    Check.recur(k, d.jid, out)
  end
  return 1
end

-- A recurring template: well formed, and in its queue's recur set.
function Check.recur(k, jid, out)
  local r = rcall('HMGET', k, 'jid', 'klass', 'queue', 'interval', 'data', 'state')
  local ok = pcall(decode, r[5] or '')
  local interval = Num.parse(r[4])
  if r[1] ~= jid or not r[2] or not r[3] or r[6] ~= 'recur' or not interval or interval <= 0
      or not ok then
    Check.found(out, 'recur-malformed', k, '', 'the template lacks jid, klass, queue, a ' ..
      'positive interval or JSON data', '')
    return
  end
  local rk = key.queue .. r[3] .. key.recurring
  if not rcall('ZSCORE', rk, jid) then
    Check.found(out, 'recur-unlisted', k, rk, 'a template of ' .. r[3] .. ' not in ' .. rk,
      'add it to ' .. rk .. ', due now')
  end
end

-- The invariant of one member `m` of collection key `k` (`d` its classification); `at` is
-- its index when a walk of a list met it (nil when a repair asks).
function Check.member(now, k, d, m, out, at)
  local w = d.what
  if w == 'queue' then
    Check.queue_member(k, d, m, out)
  elseif w == 'order' then
    local f = rcall('HMGET', key.job .. m, 'queue', 'key', 'state')
    if f[1] ~= d.queue or f[2] ~= d.name or f[3] == 'complete' or f[3] == 'failed' then
      Check.found(out, 'order-stale', k, m, m .. ' is gone, finished or not of this key',
        'remove it from the key (the next job may start)')
    end
  elseif w == 'tag' then
    local tags = rcall('HGET', key.job .. m, 'tags')
    local has = false
    for _, t in ipairs(Job.tag_list(tags)) do if t == d.tag then has = true end end
    if not has then
      Check.found(out, 'tag-stale', k, m, m .. ' is gone or not tagged ' .. d.tag,
        'remove it from ' .. k)
    end
  elseif w == 'group' then
    local f = rcall('HMGET', key.job .. m, 'state', 'failure')
    if f[1] ~= 'failed' or (Check.group(f[2]) or 'failed') ~= d.group then
      Check.found(out, 'failure-stale', k, m, m .. ' is gone or not failed in ' .. d.group,
        'remove it from ' .. k)
    else
      Check.failure_twice(k, d, m, at, out)
    end
  elseif w == 'failures' then
    if rcall('LLEN', key.failure_group .. m) == 0 then
      Check.found(out, 'failure-group-empty', k, m, 'failure group ' .. m .. ' has no jobs',
        'remove it from ' .. k)
    end
  elseif w == 'completed' then
    if rcall('HGET', key.job .. m, 'state') ~= 'complete' then
      Check.found(out, 'completed-stale', k, m, m .. ' is gone or not complete',
        'remove it from ' .. k)
    end
  elseif w == 'dependents' then
    if rcall('SISMEMBER', key.job .. m .. key.dependencies, d.jid) == 0 then
      Check.found(out, 'dependent-stale', k, m, m .. ' is gone or does not depend on ' ..
        d.jid, 'remove it from ' .. k)
    end
  elseif w == 'throttle-set' then
    Check.throttle_member(k, d, m, out)
  end
  return 1
end

-- A failure group's list names job `m` once: the group's count (`failed`) is the list's
-- length. A walk (`at` its index) reports a job named twice or more at its second entry,
-- so once; a list that moved meanwhile (a new failure pushed) may hide it from this walk.
function Check.failure_twice(k, d, m, at, out)
  local pos = rcall('LPOS', k, m, 'COUNT', 0)
  if #pos > 1 and (at == nil or at == pos[2]) then
    Check.found(out, 'failure-duplicate', k, m, m .. ' is listed ' .. #pos .. ' times in ' ..
      d.group, 'keep its newest entry')
  end
end

-- A member of a queue's set: a job of that queue (its state is checked from the job's
-- side), for -expiring one that waits with a ttl, for -recur a template of the queue.
function Check.queue_member(k, d, m, out)
  if d.suffix == key.recurring then
    if rcall('HGET', key.recur .. m, 'queue') ~= d.queue then
      Check.found(out, 'recur-stale', k, m, 'template ' .. m .. ' is gone or of another queue',
        'remove it from ' .. k)
    end
    return
  end
  local f = rcall('HMGET', key.job .. m, 'queue', 'state', 'ttl')
  if d.suffix == key.expiring then
    local s = f[2]
    if f[1] ~= d.queue or not f[3] or (s ~= 'waiting' and s ~= 'throttled' and s ~= 'stalled')
    then
      Check.found(out, 'expiring-stale', k, m, m .. ' is gone or not waiting with a ttl',
        'remove it from ' .. k)
    end
  elseif f[1] == nil or f[1] == false then
    Check.found(out, 'member-without-job', k, m, m .. ' has no job hash',
      'remove it from ' .. k)
  elseif f[1] ~= d.queue then
    Check.found(out, 'member-of-other-queue', k, m, m .. ' is a job of queue ' .. f[1],
      'remove it from ' .. k)
  end
end

-- A member of a throttle's locks (a running job that names the throttle) or pending (a
-- throttled one).
function Check.throttle_member(k, d, m, out)
  local f = rcall('HMGET', key.job .. m, 'state', 'throttles')
  local named = false
  for _, tid in ipairs(Throttle.list(f[2]) or {}) do if tid == d.tid then named = true end end
  local s, valid = f[1], false
  if d.suffix == key.locks then
    valid = s == 'running'
  else
    valid = s == 'throttled'
  end
  if not (named and valid) then
    Check.found(out, 'throttle-stale', k, m, m .. ' is gone, does not name throttle ' ..
      d.tid .. ' or is ' .. tostring(s), 'release it from the throttle')
  end
end

-- Check key `k`: its own invariants now, and its members later (a walk is queued in `walks`
-- as { key, cursor }). Returns the units spent.
function Check.key(now, k, out, walks)
  local kind = rcall('TYPE', k).ok
  if kind == 'none' then return 1 end
  local d = Check.classify(k, kind)
  local spent = Check.head(now, k, d, kind, out)
  if d.walk and kind == d.want then walks[#walks + 1] = { k, '0' } end
  return spent
end

-- Walk the members of `item` ({ key, cursor, members left over }) for at most `budget`
-- units. A scan may answer more members than asked for (Valkey's hashtable answers whole
-- buckets): those beyond the budget wait in the item. Returns whether the walk is done,
-- and the units spent.
function Check.walk(now, item, budget, out)
  local k = item[1]
  local kind = rcall('TYPE', k).ok
  local d = Check.classify(k, kind)
  if kind ~= d.want then return true, 1 end
  local members, spent, first = item[3], 0, nil
  local carried = members and #members > 0
  if not carried then
    members, spent = {}, 1
    if d.walk == 'l' then
      first = tonumber(item[2]) or 0
      members = rcall('LRANGE', k, first, first + budget - 1)
      item[2] = #members == budget and tostring(first + budget) or '0'
    else
      local r = rcall(d.walk == 'z' and 'ZSCAN' or 'SSCAN', k, item[2], 'COUNT', budget)
      item[2] = r[1]
      local step = d.walk == 'z' and 2 or 1
      for i = 1, #r[2], step do members[#members + 1] = r[2][i] end
    end
  end
  local n = #members
  if n > budget then n = budget end
  -- A list's members never wait for a later step (LRANGE answers no more than asked), so
  -- their indexes are known.
  -- Members carried over from an earlier step may have left the key since: those are
  -- looked at only if still there.
  for i = 1, n do
    local m = members[i]
    if not carried or Check.still_member(k, d, m) then
      Check.member(now, k, d, m, out, first and first + i - 1)
    end
  end
  local rest = {}
  for i = n + 1, #members do rest[#rest + 1] = members[i] end
  item[3] = rest
  return #rest == 0 and item[2] == '0', spent + n
end

-- Whether `m` is still a member of `k` (a sorted set or a set, as `d` walks it).
function Check.still_member(k, d, m)
  if d.walk == 'z' then return rcall('ZSCORE', k, m) ~= false end
  return rcall('SISMEMBER', k, m) == 1
end

-- The state of a check: the SCAN cursor `s` (false once the scan is done), keys found and
-- not looked at yet `p`, the walks still to make `q`, the findings so far by invariant
-- `n`, keys seen `k`, and its start `t`.
function Check.state(token, now)
  if token == '0' then return { s = '0', p = {}, q = {}, n = {}, k = 0, t = now } end
  local ok, st = pcall(decode, token)
  if not ok or type(st) ~= 'table' or type(st.q) ~= 'table' or type(st.n) ~= 'table' or
      type(st.p) ~= 'table' or (st.s ~= false and type(st.s) ~= 'string') or
      type(st.k) ~= 'number' or type(st.t) ~= 'number' then
    error('qlpy.check(): Arg "token" not a check token: ' .. token)
  end
  for _, item in ipairs(st.q) do
    if type(item) ~= 'table' or type(item[1]) ~= 'string' or type(item[2]) ~= 'string' or
        (item[3] ~= nil and type(item[3]) ~= 'table') then
      error('qlpy.check(): Arg "token" not a check token: ' .. token)
    end
  end
  return st
end

-- qlpy.check <now> <token> [budget]
-- One bounded step of a check of the whole database: walks on from `token` ('0' starts a
-- check) for about `budget` units of work (default 40; a key or a member looked at is
-- one), and replies {"token": <token of the next step, or "0" when the check is done>,
-- "findings": [[invariant, key, member, detail, repair]...], "keys": <keys seen so far>,
-- "counts": {<invariant>: n, ...} (findings so far)}. The last step writes the summary
-- hash ql:check (started, finished, keys, findings as JSON). Reads nothing else: a step
-- writes only that summary.
-- Errors: qlpy.check(): Arg "token" missing / qlpy.check(): Arg "token" not a check token:
-- <x> / qlpy.check(): Arg "budget" not a whole number above 0: <x>
function Check.step(now)
  local token, budget_s = A[3], A[4]
  if token == nil then error('qlpy.check(): Arg "token" missing') end
  local budget = BUDGET
  if budget_s ~= nil then
    budget = Num.parse(budget_s)
    if budget == nil or budget < 1 or budget ~= floor(budget) then
      error('qlpy.check(): Arg "budget" not a whole number above 0: ' .. budget_s)
    end
  end
  local st = Check.state(token, now)
  local out, spent = {}, 0
  -- A SCAN may answer more keys than asked for (Valkey's hashtable answers whole buckets):
  -- the keys found wait in `p`, so that a step looks at no more than its budget.
  while spent < budget do
    local pk = st.p[#st.p]
    if pk then
      st.p[#st.p] = nil
      spent = spent + Check.key(now, pk, out, st.q)
    elseif st.q[1] then
      local done, cost = Check.walk(now, st.q[1], budget - spent, out)
      spent = spent + cost
      if done then table.remove(st.q, 1) end
    elseif st.s then
      local r = rcall('SCAN', st.s, 'MATCH', key.channel .. '*', 'COUNT',
        math.max(1, floor((budget - spent) / 8)))
      st.s = r[1] ~= '0' and r[1]
      st.k = st.k + #r[2]
      spent = spent + 1
      st.p = r[2]
    else
      break
    end
  end
  for _, f in ipairs(out) do st.n[f[1]] = (st.n[f[1]] or 0) + 1 end
  local finished = not st.s and not st.q[1] and not st.p[1]
  if finished then
    rcall('HSET', key.check, 'started', st.t, 'finished', now, 'keys', st.k,
      'findings', encode(st.n))
  end
  return encode({ token = finished and '0' or encode(st), findings = out, keys = st.k,
    counts = st.n })
end

-- qlpy.repair <now> <key> <invariant> [member]
-- Checks the finding again and, when it still stands, fixes it as the core would have
-- (the finding's `repair` says how), writing a history entry {"what": "repaired",
-- "invariant", "about"} on the job concerned when it exists. Reply: 1 repaired, 0 nothing to
-- repair (already fixed, or a finding qlpy.repair leaves alone). Idempotent.
-- Errors: qlpy.repair(): Arg "key" missing / qlpy.repair(): Arg "invariant" missing
function Check.repair(now)
  local k, inv, member = A[3], A[4], A[5] or ''
  if k == nil then error('qlpy.repair(): Arg "key" missing') end
  if inv == nil then error('qlpy.repair(): Arg "invariant" missing') end
  local kind = rcall('TYPE', k).ok
  if kind == 'none' then return 0 end
  local d = Check.classify(k, kind)
  local out = {}
  if d.what == 'job' or member == '' or not d.walk then
    Check.head(now, k, d, kind, out)
  else
    Check.member(now, k, d, member, out)
  end
  for _, f in ipairs(out) do
    if f[1] == inv and f[3] == member and f[5] ~= '' then
      if d.what == 'job' then
        Check.fix_job(now, d.jid, inv, member)
        Job.hist(d.jid, now, '"repaired"', { invariant = inv, about = member })
      else
        Check.fix_key(now, k, d, inv, member)
      end
      return 1
    end
  end
  return 0
end

-- Fix finding `inv` of job `jid` (`member` as the finding names it).
function Check.fix_job(now, jid, inv, member)
  local jk = key.job .. jid
  local f = rcall('HMGET', jk, 'state', 'queue', 'priority', 'expires', 'worker', 'failure',
    'time')
  local state, queue = f[1], f[2]
  if inv == 'queue-unlisted' then
    rcall('ZADD', key.queues, 'NX', now, queue)
  elseif inv == 'not-in-state-set' then
    Check.relist(now, jid, state, queue, f, member)
  elseif inv == 'running-without-worker' then
    Check.requeue(now, jid, queue)
  elseif inv == 'in-other-set' then
    rcall('ZREM', member, jid)
  elseif inv == 'lock-mismatch' then
    rcall('ZADD', member, f[4], jid)
  elseif inv == 'worker-set-missing' then
    rcall('ZADD', member, f[4], jid)
  elseif inv == 'throttle-lock-missing' then
    rcall('ZADD', key.throttle .. member .. key.locks, 1, jid)
  elseif inv == 'tag-unindexed' then
    rcall('ZADD', key.tag .. member, now, jid)
    rcall('ZINCRBY', key.tags, 1, member)
  elseif inv == 'order-missing' then
    Order.join(queue, member, jid)
  elseif inv == 'expiring-missing' then
    local ttl = tonumber(rcall('HGET', jk, 'ttl'))
    if ttl then Expire.arm(queue, jid, now + ttl) end
  elseif inv == 'dependency-one-sided' then
    rcall('SADD', key.job .. member .. key.dependents, jid)
  elseif inv == 'dependency-gone' or inv == 'dependency-complete' then
    local depk = jk .. key.dependencies
    rcall('SREM', depk, member)
    rcall('SREM', key.job .. member .. key.dependents, jid)
    if rcall('SCARD', depk) == 0 then Job.unblock(now, jid) end
  elseif inv == 'depends-without-dependency' then
    Job.unblock(now, jid)
  elseif inv == 'dependencies-not-depends' then
    Check.drop_dependencies(jid)
  end
end

-- Put job `jid` back into the set its state names (`sk`): a running job gets a lock that
-- has expired, which the next pop of its queue reclaims as a lost lock.
function Check.relist(now, jid, state, queue, f, sk)
  if state == 'complete' then
    rcall('ZADD', key.completed, tonumber(f[7]) or now, jid)
  elseif state == 'failed' then
    local group = Check.group(f[6]) or 'failed'
    rcall('LPUSH', key.failure_group .. group, jid)
    rcall('SADD', key.failures, group)
  elseif state == 'running' then
    -- Its lock, worker set entry and expires all say the lock ran out now.
    rcall('HSET', key.job .. jid, 'expires', now)
    rcall('ZADD', key.queue .. queue .. key.locks, now, jid)
    if f[5] and f[5] ~= '' then rcall('ZADD', key.worker .. f[5] .. key.jobs, now, jid) end
  elseif state == 'waiting' then
    Job.enqueue(queue, jid, tonumber(f[3]) or 0, now)
  elseif state == 'stalled' then
    rcall('ZADD', sk, '+inf', jid)
  else
    rcall('ZADD', sk, now, jid)
  end
end

-- A running job that no worker holds waits again, as a timed-out one does: out of the
-- locks set, its throttles given back (its ordering key's turn kept), through the gate.
function Check.requeue(now, jid, queue)
  local jk = key.job .. jid
  local f = rcall('HMGET', jk, 'priority', 'throttles', 'key', 'ttl')
  rcall('ZREM', key.queue .. queue .. key.locks, jid)
  if f[2] then Job.leave(now, jid, queue, f[2], nil) end
  rcall('HSET', jk, 'worker', '', 'expires', 0)
  Job.ready_or_enqueue(now, queue, jid, tonumber(f[1]) or 0, f[2], f[3], f[4], 'running')
end

-- Job `jid` stops depending on anything: out of its dependencies' dependents, its set gone.
function Check.drop_dependencies(jid)
  local depk = key.job .. jid .. key.dependencies
  for _, b in ipairs(rcall('SMEMBERS', depk)) do
    rcall('SREM', key.job .. b .. key.dependents, jid)
  end
  rcall('DEL', depk)
end

-- Fix finding `inv` of key `k` (classified `d`) and its `member`.
function Check.fix_key(now, k, d, inv, member)
  if inv == 'history-orphan' then
    rcall('DEL', k)
  elseif inv == 'dependencies-orphan' then
    Check.drop_dependencies(d.jid)
  elseif inv == 'failure-group-unlisted' then
    rcall('SADD', key.failures, d.group)
  elseif inv == 'recur-unlisted' then
    rcall('ZADD', member, now, d.jid)
  elseif inv == 'order-stale' then
    Order.leave(now, d.queue, d.name, member)
  elseif inv == 'tag-stale' then
    rcall('ZREM', k, member)
    rcall('ZINCRBY', key.tags, -1, d.tag)
  elseif inv == 'failure-stale' then
    Job.unlist_failure(member, d.group)
  elseif inv == 'throttle-stale' then
    Throttle.release(now, member, { d.tid })
  elseif inv == 'failure-duplicate' then
    local n = #rcall('LPOS', k, member, 'COUNT', 0)
    rcall('LREM', k, 1 - n, member)
  elseif inv == 'failure-group-empty' or inv == 'dependent-stale' then
    rcall('SREM', k, member)
  else
    -- member-without-job, member-of-other-queue, expiring-stale, recur-stale,
    -- completed-stale: the entry goes.
    rcall('ZREM', k, member)
  end
end
