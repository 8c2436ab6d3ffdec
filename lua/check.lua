-- Checking and repairing the data (extension, docs/protocol.md "Checking the data"):
-- qlpy.check walks the keyspace in bounded steps and reports every broken invariant it
-- meets; qlpy.repair checks one finding again and fixes it the way the core would have.
-- A finding is { invariant, key, member, detail, repair }: `key` is the key it is about
-- (a job's hash for the job's own invariants), `member` the member, set or dependency
-- concerned ('' when none), `repair` what qlpy.repair does ('' when it leaves it alone).
--
-- A step is bounded by the server calls it makes, and it makes few, and little garbage:
-- the server runs a step of the Lua collector inside every call that allocates (and after
-- every 50th script call), and those steps, longer the bigger the heap, were most of a
-- check step's longest calls (docs/performance.md, "Check and memory per job"). So a step
-- asks each queue's facts once (`cx.q`), reads no set it only needs to know is empty,
-- builds no table or key name per key or member that it can do without, and makes a
-- finding's strings only when there is a finding.

-- Server calls per step when the caller gives none: BUDGET where the server lends
-- scripts a clock (os.clock, the server's CPU time: Valkey, Redis 8), and then a step also
-- ends once it has run for STEP_S seconds (the clock read every TIME_EVERY calls),
-- whichever comes first; BUDGET_NO_CLOCK on Redis 6.2 and 7, where the count alone bounds
-- a step. The calls a job or a set member needs vary, and a count of 40 alone let some
-- steps run three times the median (docs/performance.md, "Check and memory per job").
local BUDGET = 40
local BUDGET_NO_CLOCK = 25
local STEP_S = 0.0003
local TIME_EVERY = 4
local SCAN_MAX = 10

-- A step's context `cx`: its findings `out`, the server calls made `n`, the facts of
-- each queue met (`q`, see Check.queue_facts), the tag lists read (`t`, see Check.tags),
-- and the questions put off to Check.settle: the dependency sets that must not exist (`d`,
-- with the job's hash in `dj` and state in `ds`) and the jobs whose history was met (`h`,
-- the history key in `hk`). Every server call of a check goes through Check.call, which
-- counts it.
function Check.context()
  return { out = {}, n = 0, q = {}, t = {}, d = {}, dj = {}, ds = {}, h = {}, hk = {},
    clock = false, t0 = 0, tn = TIME_EVERY }
end

-- Whether the step has made `budget` calls or, where there is a clock (`cx.clock`), run
-- for STEP_S (the clock is read every TIME_EVERY calls). TIME cannot serve: a script sees
-- the time its call began.
function Check.spent(cx, budget)
  if cx.n >= budget then return true end
  if not cx.clock or cx.n < cx.tn then return false end
  cx.tn = cx.n + TIME_EVERY
  return cx.clock() - cx.t0 >= STEP_S
end

-- Ask the questions put off, one EXISTS for each kind: a dependency set should exist for
-- no job that is not in state depends, and a history only for a job that exists; only
-- when the answer says that some key breaks that is each one asked about alone.
function Check.settle(cx)
  local d, h = cx.d, cx.h
  if d[1] and Check.call(cx, 'EXISTS', unpack(d)) > 0 then
    for i, depk in ipairs(d) do
      if Check.call(cx, 'SCARD', depk) > 0 then
        Check.found(cx, 'dependencies-not-depends', cx.dj[i], depk, cx.ds[i] .. ' but ' ..
          depk .. ' is not empty', 'drop its dependencies')
      end
    end
  end
  if h[1] and Check.call(cx, 'EXISTS', unpack(h)) < #h then
    for i, jk in ipairs(h) do
      if Check.call(cx, 'EXISTS', jk) == 0 then
        Check.found(cx, 'history-orphan', cx.hk[i], '', 'the history of a job that is gone',
          'delete it')
      end
    end
  end
  cx.d, cx.dj, cx.ds, cx.h, cx.hk = {}, {}, {}, {}, {}
end

function Check.call(cx, ...)
  cx.n = cx.n + 1
  return rcall(...)
end

-- ZSCAN ... NOSCORES, or false where the server does not know NOSCORES (Redis): `cx.z`
-- says so from then on (the check's token keeps it).
function Check.zscan_noscores(cx, k, cursor, count)
  cx.n = cx.n + 1
  local r = redis.pcall('ZSCAN', k, cursor, 'COUNT', count, 'NOSCORES')
  if r.err then
    cx.z = false
    return false
  end
  return r
end

-- Record a finding.
function Check.found(cx, inv, k, member, detail, fix)
  local out = cx.out
  out[#out + 1] = { inv, k, member or '', detail, fix or '' }
end

-- The index in a queue's facts (Check.queue_facts) of the set a job in `state` belongs
-- to, or nil.
function Check.state_index(state)
  if state == 'waiting' or state == 'stalled' then return 1 end
  if state == 'running' then return 2 end
  if state == 'scheduled' then return 3 end
  if state == 'depends' then return 4 end
  if state == 'throttled' then return 5 end
  return nil
end

-- What a step knows of `queue`, asked once a step (a call sees the keyspace still): its
-- sets' names (1 work, 2 locks, 3 scheduled, 4 depends, 5 throttled), `listed` whether it
-- is in ql:queues, and, keyed by a set's name, whether that set exists (asked when first
-- needed: a job in none of its queue's other sets, the common case, costs no call for a
-- set that does not exist).
function Check.queue_facts(cx, queue)
  local qf = cx.q[queue]
  if qf == nil then
    local qk = key.queue .. queue
    qf = { qk .. key.work, qk .. key.locks, qk .. key.scheduled, qk .. key.depends,
      qk .. key.throttled, listed = Check.call(cx, 'ZSCORE', key.queues, queue) ~= false }
    cx.q[queue] = qf
  end
  return qf
end

-- Whether job `jid` is in set `i` of a queue (`qf` its facts).
function Check.in_set(cx, qf, i, jid)
  local sk = qf[i]
  local exists = qf[sk]
  if exists == nil then
    exists = Check.call(cx, 'EXISTS', sk) == 1
    qf[sk] = exists
  end
  return exists and Check.call(cx, 'ZSCORE', sk, jid) ~= false
end

-- A job's `tags` field as a table tag -> true, decoded once a step for each text (most
-- jobs carry one of a few).
function Check.tags(cx, text)
  local tags = cx.t[text]
  if tags == nil then
    tags = {}
    for _, t in ipairs(Job.tag_list(text)) do tags[t] = true end
    cx.t[text] = tags
  end
  return tags
end

-- The failure group named by a job's `failure` field, or nil.
function Check.group(text)
  local ok, v = pcall(decode, text or '')
  if ok and type(v) == 'table' and type(v.group) == 'string' then return v.group end
  return nil
end

-- The fields of job hash `jk` that Check.job reads, with redis.pcall (Check.key reads a
-- job's hash before it knows the key's type).
function Check.job_fields(cx, jk)
  cx.n = cx.n + 1
  return redis.pcall('HMGET', jk, 'jid', 'state', 'queue', 'worker', 'expires', 'failure',
    'tags', 'throttles', 'key', 'grace', 'klass', 'ttl')
end

-- The job's own invariants (`jk` its hash, `f` its fields when already read): the sets its
-- state names and no other set of its queue, its lock, worker set and throttle locks when
-- running, its dependencies, failure group, tags, ordering key, and its queue in
-- ql:queues.
function Check.job(now, jk, jid, cx, f)
  f = f or Check.job_fields(cx, jk)
  local state, queue = f[2], f[3]
  local known = state == 'waiting' or state == 'stalled' or state == 'running' or
    state == 'scheduled' or state == 'depends' or state == 'throttled' or state == 'failed' or
    state == 'complete'
  if f[1] ~= jid or not known or not queue or not f[11] then
    Check.found(cx, 'job-malformed', jk, '', 'the job hash lacks jid, klass, a known state ' ..
      'or queue', '')
    return
  end
  if state == 'complete' then
    if not Check.call(cx, 'ZSCORE', key.completed, jid) then
      Check.found(cx, 'not-in-state-set', jk, key.completed, 'complete but not in ' ..
        key.completed, 'add it to ' .. key.completed)
    end
  else
    Check.job_sets(jid, jk, state, queue, f, cx)
  end
  if state == 'running' then Check.running(jid, jk, queue, f, cx) end
  Check.job_dependencies(jid, jk, state, cx)
  if f[7] then
    for t in pairs(Check.tags(cx, f[7])) do
      if not Check.call(cx, 'ZSCORE', key.tag .. t, jid) then
        Check.found(cx, 'tag-unindexed', jk, t, 'tagged ' .. t .. ' but not in ' ..
          key.tag .. t, 'add it to ' .. key.tag .. t)
      end
    end
  end
  if f[9] and state ~= 'complete' and state ~= 'failed' then
    local ok = Order.set(queue, f[9])
    if not Check.call(cx, 'ZSCORE', ok, jid) then
      Check.found(cx, 'order-missing', jk, f[9], 'has ordering key ' .. f[9] ..
        ' but is not in ' .. ok, 'append it to ' .. ok)
    end
  end
end

-- A job that is not complete: in the set its state names, in no other set of its queue,
-- and its queue in ql:queues.
function Check.job_sets(jid, jk, state, queue, f, cx)
  local qf = Check.queue_facts(cx, queue)
  if not qf.listed then
    Check.found(cx, 'queue-unlisted', jk, queue, 'its queue ' .. queue .. ' is not in ' ..
      key.queues, 'add the queue to ' .. key.queues)
  end
  local own = Check.state_index(state)
  -- The dialect's throttle release moves a throttled job into the work set and leaves its
  -- state throttled (the pop that takes it says running): one set or the other, then.
  local alt, in_own, in_alt = nil, nil, nil
  if state == 'throttled' then
    alt = 1
    in_own = Check.call(cx, 'ZSCORE', qf[own], jid) ~= false
    in_alt = Check.call(cx, 'ZSCORE', qf[alt], jid) ~= false
    if not in_own and in_alt then own, alt, in_own, in_alt = alt, own, in_alt, in_own end
  elseif own then
    in_own = Check.call(cx, 'ZSCORE', qf[own], jid) ~= false
  end
  for i = 1, 5 do
    local sk = qf[i]
    if i == alt then
      -- the state's other set: the job is in the one or the other
      if in_alt and in_own then
        Check.found(cx, 'in-other-set', jk, sk, state .. ' but listed in ' .. sk,
          'remove it from ' .. sk)
      end
    elseif i == own then
      if not in_own and not (state == 'running' and f[4] == '') then
        -- (Check.running reports a running job that no worker holds.)
        local fix = 'add it to ' .. sk
        if state == 'running' then
          fix = 'give it an expired lock: the next pop of ' .. queue .. ' reclaims it'
        end
        Check.found(cx, 'not-in-state-set', jk, sk, state .. ' but not in ' .. sk, fix)
      end
    elseif Check.in_set(cx, qf, i, jid) then
      Check.found(cx, 'in-other-set', jk, sk, state .. ' but listed in ' .. sk,
        'remove it from ' .. sk)
    end
  end
  if state == 'failed' then
    local group = Check.group(f[6]) or 'failed'
    local gk = key.failure_group .. group
    if not Check.call(cx, 'LPOS', gk, jid) then
      Check.found(cx, 'not-in-state-set', jk, gk, 'failed but not in ' .. gk,
        'add it to ' .. gk)
    end
  end
  if f[12] and (state == 'waiting' or state == 'throttled') then
    local ek = key.queue .. queue .. key.expiring
    if not Check.call(cx, 'ZSCORE', ek, jid) and Check.unstarted(cx, jid) then
      Check.found(cx, 'expiring-missing', jk, ek, state .. ' with a ttl, not started since ' ..
        'it was put, but without a deadline in ' .. ek, 'add it, due in its ttl from now')
    end
  end
end

-- Whether job `jid` has not started since it was last put: the newest of its history's
-- `put` and `popped` entries is a `put`. A job that started may wait without a deadline
-- (pop reclaims a job whose lock ran out without one; when a throttle then holds it, it
-- waits and is let in so), and so may any job whose history the cap has trimmed (the
-- answer is then false: it cannot be told).
function Check.unstarted(cx, jid)
  local hk = key.job .. jid .. key.history
  local n = Check.call(cx, 'LLEN', hk)
  local cap = floor(Config.number('max-job-history', 100))
  if cap >= 3 and n >= cap then return false end
  local entries = Check.call(cx, 'LRANGE', hk, 0, -1)
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
function Check.running(jid, jk, queue, f, cx)
  local lk = key.queue .. queue .. key.locks
  if f[4] == '' then
    Check.found(cx, 'running-without-worker', jk, lk, 'running but no worker holds it',
      'it gives back its lock and throttles and waits again, as after a timeout')
    return
  end
  local lock = tonumber(Check.call(cx, 'ZSCORE', lk, jid))
  local expires = tonumber(f[5])
  if lock and f[10] ~= '1' then
    if not expires or math.abs(lock - expires) > 0.001 then
      Check.found(cx, 'lock-mismatch', jk, lk, 'its lock in ' .. lk .. ' is not scored by ' ..
        'its expires', 'score the lock by its expires')
    end
    local wk = key.worker .. f[4] .. key.jobs
    local held = tonumber(Check.call(cx, 'ZSCORE', wk, jid))
    if expires and (not held or math.abs(held - expires) > 0.001) then
      Check.found(cx, 'worker-set-missing', jk, wk, 'running under ' .. f[4] ..
        ' but not in ' .. wk .. ' at its expires', 'add it to ' .. wk .. ' at its expires')
    end
  end
  for _, tid in ipairs(Throttle.own(Throttle.list(f[8]), queue) or {}) do
    local tk = key.throttle .. tid .. key.locks
    if not Check.call(cx, 'ZSCORE', tk, jid) then
      Check.found(cx, 'throttle-lock-missing', jk, tid, 'running under throttle ' .. tid ..
        ' without a lock in ' .. tk, 'add it to ' .. tk)
    end
  end
end

-- Dependencies: each one is a job that exists, is not complete and lists this job among its
-- dependents; a job in state depends has at least one, a job in another state none (asked
-- by Check.settle, for all the step's jobs at once).
function Check.job_dependencies(jid, jk, state, cx)
  local depk = jk .. key.dependencies
  if state ~= 'depends' then
    local n = #cx.d + 1
    cx.d[n], cx.dj[n], cx.ds[n] = depk, jk, state
    return
  end
  local deps = Check.call(cx, 'SMEMBERS', depk)
  if #deps == 0 then
    Check.found(cx, 'depends-without-dependency', jk, '', 'depends on no job',
      'release it: it becomes waiting (or scheduled)')
  end
  for _, d in ipairs(deps) do
    -- A job of another namespace (lua/remote.lua) is that namespace's to check.
    if not Remote.is(d) then Check.dependency(jid, jk, d, cx) end
  end
end

-- Job `jid` (hash `jk`) depends on job `d` of its own namespace.
function Check.dependency(jid, jk, d, cx)
  local st = Check.call(cx, 'HGET', key.job .. d, 'state')
  if not st then
    Check.found(cx, 'dependency-gone', jk, d, 'depends on ' .. d .. ', which is gone',
      'release the dependency')
  elseif st == 'complete' then
    Check.found(cx, 'dependency-complete', jk, d, 'depends on ' .. d ..
      ', which is complete', 'release the dependency')
  elseif Check.call(cx, 'SISMEMBER', key.job .. d .. key.dependents, jid) == 0 then
    Check.found(cx, 'dependency-one-sided', jk, d, 'depends on ' .. d .. ', whose ' ..
      'dependents do not list it', 'add it to the dependents of ' .. d)
  end
end

-- What key `k` is: { what = kind, ... the names in it }, and the kind of walk its members
-- need ('z' sorted set, 's' set, 'l' list; nil: none). `kind` is the key's TYPE.
function Check.classify(k, kind)
  if k == key.queues or k == key.paused or k == key.workers or k == key.config or
      k == key.tracked or k == key.tags or k == key.check or k == key.shards or
      k == key.outbox or k == key.outbox_taken or k == key.outbox_seq or k == key.applied then
    return { what = 'known' }
  end
  -- `ql:{<name>}:...`: a key of a namespace (the default namespace's scan matches them)
  if k:byte(#key.channel + 1) == 123 then return { what = 'known' } end
  if k == key.failures then return { what = 'failures', walk = 's', want = 'set' } end
  if k == key.completed then return { what = 'completed', walk = 'z', want = 'zset' } end
  -- The prefixes, the job's first: most keys are a job's.
  return Check.under(k, key.job, kind) or Check.under(k, key.queue, kind) or
    Check.under(k, key.worker, kind) or Check.under(k, key.tag, kind) or
    Check.under(k, key.failure_group, kind) or Check.under(k, key.recur, kind) or
    Check.under(k, key.stats, kind) or Check.under(k, key.fine, kind) or
    Check.under(k, key.throttle, kind) or { what = 'unknown' }
end

-- Check.classify_in for key `k` when it starts with prefix `p`, else nil.
function Check.under(k, p, kind)
  if k:find(p, 1, true) ~= 1 then return nil end
  return Check.classify_in(p, k:sub(#p + 1), kind)
end

-- Whether `s` ends with `suffix`, and `s` without it.
function Check.ends(s, suffix)
  if #s > #suffix and s:find(suffix, #s - #suffix + 1, true) then
    return s:sub(1, -#suffix - 1)
  end
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
    if Check.ends(rest, key.released) and kind == 'set' then return { what = 'known' } end
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

-- The invariants of key `k` as a whole (`d` its classification).
function Check.head(now, k, d, kind, cx)
  if d.what == 'unknown' or (d.want and d.want ~= kind) then
    Check.found(cx, 'unknown-key', k, '', 'no invariant explains a ' .. kind .. ' named ' .. k,
      '')
  elseif d.what == 'job' then
    Check.job(now, k, d.jid, cx)
  elseif d.what == 'history' then
    -- (Check.settle asks whether the job exists, for all the step's histories at once.)
    local n = #cx.h + 1
    cx.h[n], cx.hk[n] = key.job .. d.jid, k
  elseif d.what == 'dependencies' then
    if Check.call(cx, 'EXISTS', key.job .. d.jid) == 0 then
      Check.found(cx, 'dependencies-orphan', k, '', 'the dependencies of a job that is gone',
        'remove it from their dependents and delete it')
    end
  elseif d.what == 'group' then
    if Check.call(cx, 'SISMEMBER', key.failures, d.group) == 0 then
      Check.found(cx, 'failure-group-unlisted', k, d.group, 'failure group ' .. d.group ..
        ' is not in ' .. key.failures, 'add it to ' .. key.failures)
    end
  elseif d.what == 'recur' then
    Check.recur(k, d.jid, cx)
  end
end

-- A recurring template: well formed, and in its queue's recur set.
function Check.recur(k, jid, cx)
  local r = Check.call(cx, 'HMGET', k, 'jid', 'klass', 'queue', 'interval', 'data', 'state')
  local ok = pcall(decode, r[5] or '')
  local interval = Num.parse(r[4])
  if r[1] ~= jid or not r[2] or not r[3] or r[6] ~= 'recur' or not interval or interval <= 0
      or not ok then
    Check.found(cx, 'recur-malformed', k, '', 'the template lacks jid, klass, queue, a ' ..
      'positive interval or JSON data', '')
    return
  end
  local rk = key.queue .. r[3] .. key.recurring
  if not Check.call(cx, 'ZSCORE', rk, jid) then
    Check.found(cx, 'recur-unlisted', k, rk, 'a template of ' .. r[3] .. ' not in ' .. rk,
      'add it to ' .. rk .. ', due now')
  end
end

-- The invariant of one member `m` of collection key `k` (`d` its classification); `at` is
-- its index when a walk of a list met it (nil when a repair asks).
function Check.member(now, k, d, m, cx, at)
  local w = d.what
  if w == 'queue' then
    Check.queue_member(k, d, m, cx)
  elseif w == 'order' then
    local f = Check.call(cx, 'HMGET', key.job .. m, 'queue', 'key', 'state')
    if f[1] ~= d.queue or f[2] ~= d.name or f[3] == 'complete' or f[3] == 'failed' then
      Check.found(cx, 'order-stale', k, m, m .. ' is gone, finished or not of this key',
        'remove it from the key (the next job may start)')
    end
  elseif w == 'tag' then
    local tags = Check.call(cx, 'HGET', key.job .. m, 'tags')
    if not (tags and Check.tags(cx, tags)[d.tag]) then
      Check.found(cx, 'tag-stale', k, m, m .. ' is gone or not tagged ' .. d.tag,
        'remove it from ' .. k)
    end
  elseif w == 'group' then
    local f = Check.call(cx, 'HMGET', key.job .. m, 'state', 'failure')
    if f[1] ~= 'failed' or (Check.group(f[2]) or 'failed') ~= d.group then
      Check.found(cx, 'failure-stale', k, m, m .. ' is gone or not failed in ' .. d.group,
        'remove it from ' .. k)
    else
      Check.failure_twice(k, d, m, at, cx)
    end
  elseif w == 'failures' then
    if Check.call(cx, 'LLEN', key.failure_group .. m) == 0 then
      Check.found(cx, 'failure-group-empty', k, m, 'failure group ' .. m .. ' has no jobs',
        'remove it from ' .. k)
    end
  elseif w == 'completed' then
    if Check.call(cx, 'HGET', key.job .. m, 'state') ~= 'complete' then
      Check.found(cx, 'completed-stale', k, m, m .. ' is gone or not complete',
        'remove it from ' .. k)
    end
  elseif w == 'dependents' then
    if not Remote.is(m) and
        Check.call(cx, 'SISMEMBER', key.job .. m .. key.dependencies, d.jid) == 0 then
      Check.found(cx, 'dependent-stale', k, m, m .. ' is gone or does not depend on ' ..
        d.jid, 'remove it from ' .. k)
    end
  elseif w == 'throttle-set' then
    Check.throttle_member(k, d, m, cx)
  end
end

-- A failure group's list names job `m` once: the group's count (`failed`) is the list's
-- length. A walk (`at` its index) reports a job named twice or more at its second entry,
-- so once; a list that moved meanwhile (a new failure pushed) may hide it from this walk.
function Check.failure_twice(k, d, m, at, cx)
  local pos = Check.call(cx, 'LPOS', k, m, 'COUNT', 0)
  if #pos > 1 and (at == nil or at == pos[2]) then
    Check.found(cx, 'failure-duplicate', k, m, m .. ' is listed ' .. #pos .. ' times in ' ..
      d.group, 'keep its newest entry')
  end
end

-- A member of a queue's set: a job of that queue (its state is checked from the job's
-- side), for -expiring one that waits with a ttl, for -recur a template of the queue.
function Check.queue_member(k, d, m, cx)
  if d.suffix == key.recurring then
    if Check.call(cx, 'HGET', key.recur .. m, 'queue') ~= d.queue then
      Check.found(cx, 'recur-stale', k, m, 'template ' .. m .. ' is gone or of another queue',
        'remove it from ' .. k)
    end
    return
  end
  if d.suffix == key.expiring then
    local f = Check.call(cx, 'HMGET', key.job .. m, 'queue', 'state', 'ttl')
    local s = f[2]
    if f[1] ~= d.queue or not f[3] or (s ~= 'waiting' and s ~= 'throttled' and s ~= 'stalled')
    then
      Check.found(cx, 'expiring-stale', k, m, m .. ' is gone or not waiting with a ttl',
        'remove it from ' .. k)
    end
    return
  end
  local queue = Check.call(cx, 'HGET', key.job .. m, 'queue')
  if not queue then
    Check.found(cx, 'member-without-job', k, m, m .. ' has no job hash',
      'remove it from ' .. k)
  elseif queue ~= d.queue then
    Check.found(cx, 'member-of-other-queue', k, m, m .. ' is a job of queue ' .. queue,
      'remove it from ' .. k)
  end
end

-- A member of a throttle's locks (a running job that names the throttle) or pending (a
-- throttled one).
function Check.throttle_member(k, d, m, cx)
  local f = Check.call(cx, 'HMGET', key.job .. m, 'state', 'throttles')
  local named = false
  for _, tid in ipairs(Throttle.list(f[2]) or {}) do if tid == d.tid then named = true end end
  local s, valid = f[1], false
  if d.suffix == key.locks then
    valid = s == 'running'
  else
    valid = s == 'throttled'
  end
  if not (named and valid) then
    Check.found(cx, 'throttle-stale', k, m, m .. ' is gone, does not name throttle ' ..
      d.tid .. ' or is ' .. tostring(s), 'release it from the throttle')
  end
end

-- Check key `k`: its own invariants now, and its members later (a walk is queued in `walks`
-- as { key, cursor }).
function Check.key(now, k, cx, walks)
  -- Most keys are jobs' hashes: such a name is read as one first, and its type asked only
  -- when that fails or finds none of a job's fields (no key, or not a job's hash).
  if k:find(key.job, 1, true) == 1 and not (Check.ends(k, key.history) or
      Check.ends(k, key.dependencies) or Check.ends(k, key.dependents)) then
    local f = Check.job_fields(cx, k)
    if not f.err and (f[1] or f[2] or f[3] or f[11]) then
      Check.job(now, k, k:sub(#key.job + 1), cx, f)
      return
    end
  end
  local kind = Check.call(cx, 'TYPE', k).ok
  if kind == 'none' then return end
  local d = Check.classify(k, kind)
  Check.head(now, k, d, kind, cx)
  if d.walk and kind == d.want then walks[#walks + 1] = { k, '0' } end
end

-- Walk the members of `item` ({ key, cursor, members left over }) until the step has made
-- `budget` calls (one member at least). A scan may answer more members than asked for
-- (Valkey's hashtable answers whole buckets): those left over wait in the item. Returns
-- whether the walk is done.
function Check.walk(now, item, budget, cx)
  local k = item[1]
  local kind = Check.call(cx, 'TYPE', k).ok
  local d = Check.classify(k, kind)
  if kind ~= d.want then return true end
  local members, first, stride = item[3], nil, 1
  local carried = members and #members > 0
  if not carried then
    -- a member takes a call at least (a failure group's two): no more than the budget left,
    -- nor than BUDGET (the members left over travel in the token)
    local count = math.max(1, math.min(BUDGET, budget - cx.n - 1))
    if d.walk == 'l' then
      count = math.max(1, floor(count / 2))
      first = tonumber(item[2]) or 0
      members = Check.call(cx, 'LRANGE', k, first, first + count - 1)
      item[2] = #members == count and tostring(first + count) or '0'
    elseif d.walk == 's' then
      local r = Check.call(cx, 'SSCAN', k, item[2], 'COUNT', count)
      item[2], members = r[1], r[2]
    else
      -- Without the scores where the server can (Valkey 8 on): a score is a number the
      -- server formats and the script only throws away.
      local r = cx.z and Check.zscan_noscores(cx, k, item[2], count)
      if not r then
        r = Check.call(cx, 'ZSCAN', k, item[2], 'COUNT', count)
        stride = 2 -- member, score, member, score...
      end
      item[2], members = r[1], r[2]
    end
  end
  -- A list's members never wait for a later step (LRANGE answers no more than asked, and
  -- all are looked at), so their indexes are known.
  -- Members carried over from an earlier step may have left the key since: those are
  -- looked at only if still there.
  local i, n = 1, #members
  repeat
    if i > n then break end
    local m = members[i]
    if not carried or Check.still_member(cx, k, d, m) then
      Check.member(now, k, d, m, cx, first and first + i - 1)
    end
    i = i + stride
  until not first and Check.spent(cx, budget)
  local rest = nil
  if i <= n then
    rest = {}
    for j = i, n, stride do rest[#rest + 1] = members[j] end
  end
  item[3] = rest
  return rest == nil and item[2] == '0'
end

-- Whether `m` is still a member of `k` (a sorted set or a set, as `d` walks it).
function Check.still_member(cx, k, d, m)
  if d.walk == 'z' then return Check.call(cx, 'ZSCORE', k, m) ~= false end
  return Check.call(cx, 'SISMEMBER', k, m) == 1
end

-- The state of a check: the SCAN cursor `s` (false once the scan is done), keys found and
-- not looked at yet `p`, the walks still to make `q`, the findings so far by invariant
-- `n`, keys seen `k`, its start `t`, and `z` false once the server has refused ZSCAN's
-- NOSCORES.
function Check.state(token, now)
  if token == '0' then return { s = '0', p = {}, q = {}, n = {}, k = 0, t = now } end
  local ok, st = pcall(decode, token)
  if not ok or type(st) ~= 'table' or type(st.q) ~= 'table' or type(st.n) ~= 'table' or
      type(st.p) ~= 'table' or (st.s ~= false and type(st.s) ~= 'string') or
      type(st.k) ~= 'number' or type(st.t) ~= 'number' or (st.z ~= nil and st.z ~= false)
  then
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
-- check) until it has made about `budget` server calls (default 40, 25 where the server
-- lends scripts no clock: a job's hash costs about four, most other keys one, a member of
-- a set one or two) or, where it lends one, run for STEP_S, and replies {"token":
-- <token of the next step, or "0" when the check is done>, "findings": [[invariant, key,
-- member, detail, repair]...], "keys": <keys seen so far>, "counts": {<invariant>: n, ...}
-- (findings so far)}. The last step writes the summary hash ql:check (started, finished,
-- keys, findings as JSON). Reads nothing else: a step writes only that summary.
-- Errors: qlpy.check(): Arg "token" missing / qlpy.check(): Arg "token" not a check token:
-- <x> / qlpy.check(): Arg "budget" not a whole number above 0: <x>
function Check.step(now)
  local token, budget_s = A[3], A[4]
  if token == nil then error('qlpy.check(): Arg "token" missing') end
  local lib = rawget(_G, 'os')  -- nil on Redis 6.2 and 7
  local clock = lib and lib.clock
  local budget = clock and BUDGET or BUDGET_NO_CLOCK
  if budget_s ~= nil then
    budget = tonumber(budget_s)
    -- (b - b is nan for nan and for +-inf)
    if budget == nil or budget - budget ~= 0 or budget < 1 or budget ~= floor(budget) then
      error('qlpy.check(): Arg "budget" not a whole number above 0: ' .. budget_s)
    end
  end
  local st = Check.state(token, now)
  local cx = Check.context()
  cx.z = st.z ~= false
  if clock then cx.clock, cx.t0 = clock, clock() end
  -- A SCAN may answer more keys than asked for (Valkey's hashtable answers whole buckets):
  -- the keys found wait in `p`, so that a step looks at no more than its budget.
  while not Check.spent(cx, budget) do
    local pk = st.p[#st.p]
    if pk then
      st.p[#st.p] = nil
      Check.key(now, pk, cx, st.q)
    elseif st.q[1] then
      if Check.walk(now, st.q[1], budget, cx) then table.remove(st.q, 1) end
    elseif st.s then
      -- a key costs about four calls; no more than SCAN_MAX keys a SCAN, whatever the
      -- budget (the keys found and not looked at travel in the token)
      local r = Check.call(cx, 'SCAN', st.s, 'MATCH', key.channel .. '*', 'COUNT',
        math.max(1, math.min(SCAN_MAX, floor((budget - cx.n) / 4))))
      st.s = r[1] ~= '0' and r[1]
      st.k = st.k + #r[2]
      st.p = r[2]
    else
      break
    end
  end
  Check.settle(cx)
  if not cx.z then st.z = false end
  local out = cx.out
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
  local cx = Check.context()
  if d.what == 'job' or member == '' or not d.walk then
    Check.head(now, k, d, kind, cx)
  else
    Check.member(now, k, d, member, cx)
  end
  Check.settle(cx)
  for _, f in ipairs(cx.out) do
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
  for _, b in ipairs(rcall('SMEMBERS', depk)) do Job.unlink(jid, b) end
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
