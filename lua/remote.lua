-- Dependencies and hand-offs between namespaces (docs/protocol.md, "Across namespaces").
--
-- A namespace cannot write another's keys in one call (on a cluster they are on another
-- node), so what one namespace owes another goes through its outbox: a list of messages
-- that a relay (any qless_py worker serving the namespace) takes, applies to the other
-- namespace, then acknowledges. Applying is idempotent, so a message applied twice (the
-- relay died before its acknowledgement) changes nothing the second time.
--
-- A namespace is named by its key prefix (key.channel: 'ql:' or 'ql:{<name>}:'). A remote
-- member of a set starts with byte 1, then JSON {"p": prefix, "jid": jid}: in a job's
-- dependencies set, a job of another namespace it waits for; in its dependents set, a job
-- of another namespace waiting for it. Local members are jids, as always.

-- Whether `member` of a dependencies or dependents set names a job of another namespace.
--@inline
function Remote.is(member)
  return member:byte(1) == 1
end

-- The prefix and jid of a remote member (nil, nil when it does not read as one).
function Remote.parse(member)
  local ok, v = pcall(decode, member:sub(2))
  if not ok or type(v) ~= 'table' or type(v.p) ~= 'string' or type(v.jid) ~= 'string' then
    return nil, nil
  end
  return v.p, v.jid
end

-- Queue a message for another namespace (its fields `m`, to which an id is added).
function Remote.send(m)
  m.id = key.channel .. rcall('INCR', key.outbox_seq)
  m.from = key.channel
  rcall('RPUSH', key.outbox, encode(m))
end

-- Job `jid` completed: tell each remote dependent's namespace (P-RELEASE-DEPENDENTS for
-- the members Job.release_dependents passes here).
function Remote.released(jid, member)
  local p, dependent = Remote.parse(member)
  if p then Remote.send({ op = 'release', p = p, jid = dependent, dep = jid }) end
end

-- Job `jid`, a dependent, is gone (cancelled): tell the namespace of its remote dependency
-- `member` to forget it, so that the dependency may be cancelled in turn.
function Remote.forget(jid, member)
  local p, dep = Remote.parse(member)
  if p then Remote.send({ op = 'forget', p = p, jid = dep, dependent = jid }) end
end

-- The remote member of `dependencies` that names job `dep` of the namespace `p`, if any.
function Remote.find(set, p, dep)
  for _, member in ipairs(rcall('SMEMBERS', set)) do
    if Remote.is(member) then
      local mp, mj = Remote.parse(member)
      if mp == p and mj == dep then return member end
    end
  end
  return nil
end

-- qlpy.remote <now> depend <jid> <member>: job <jid> (here) gets a dependent of another
-- namespace, `member` (remote form). Reply: "pending" (recorded: <jid> tells it when it
-- completes), "complete" (nothing to wait for) or "missing" (no such job: as within a
-- namespace, a dependency that does not exist is not waited for).
-- qlpy.remote <now> release <jid> <prefix> <dep>: job <dep> of namespace <prefix>, which
-- job <jid> (here) waited for, completed. Reply: "released" (it was the last: the job
-- waits, or is scheduled), "waiting" (other dependencies remain), "already" (done before)
-- or "early" (no such job yet: kept for a day, and a put that names the dependency
-- skips it).
-- qlpy.remote <now> releases <jid> <prefix> <dep> [<jid> <prefix> <dep>...]: several
-- releases in one call (a relay's batch). Reply: each one's reply, in order.
-- qlpy.remote <now> forget <jid> <prefix> <dependent>: job <dependent> of namespace
-- <prefix> no longer waits for <jid>. Reply: 1 if it was recorded, else 0.
-- qlpy.remote <now> put <id> <worker> <queue> <jid> <klass> <data> <delay> [options...]:
-- a hand-off from another namespace, message <id>: put's arguments. Reply: the jid, or
-- "already" when message <id> was applied (within the last week).
-- Errors: Remote(): Arg "<name>" missing / Remote(): unknown action "<x>" / Remote(): Arg
-- "member" is not a remote member / put's own.
function Remote.call(now)
  local action = A[3]
  if action == 'put' then return Remote.put(now) end
  if action == 'releases' then
    local n = #A - 3
    if n < 3 or n % 3 ~= 0 then
      error('Remote(): "releases" takes <jid> <prefix> <dep> triplets')
    end
    local out = {}
    for i = 4, #A, 3 do out[#out + 1] = Remote.release(now, A[i], A[i + 1], A[i + 2]) end
    return out
  end
  local jid, a, b = A[4], A[5], A[6]
  if action == nil then error('Remote(): Arg "action" missing') end
  if jid == nil then error('Remote(): Arg "jid" missing') end
  if action == 'depend' then
    if a == nil then error('Remote(): Arg "member" missing') end
    if not Remote.is(a) or not Remote.parse(a) then
      error('Remote(): Arg "member" is not a remote member')
    end
    local st = rcall('HGET', key.job .. jid, 'state')
    if not st then return 'missing' end
    if st == 'complete' then return 'complete' end
    rcall('SADD', key.job .. jid .. key.dependents, a)
    return 'pending'
  end
  if a == nil then error('Remote(): Arg "prefix" missing') end
  if b == nil then error('Remote(): Arg "' .. (action == 'forget' and 'dependent' or 'dep') ..
    '" missing') end
  if action == 'release' then return Remote.release(now, jid, a, b) end
  if action == 'forget' then
    local dk = key.job .. jid .. key.dependents
    local member = Remote.find(dk, a, b)
    if member then rcall('SREM', dk, member) return 1 end
    return 0
  end
  error('Remote(): unknown action "' .. action .. '"')
end

function Remote.release(now, jid, p, dep)
  local st = rcall('HGET', key.job .. jid, 'state')
  if not st then
    local early = key.job .. jid .. key.released
    rcall('SADD', early, p .. '\0' .. dep)
    rcall('EXPIRE', early, 86400)
    return 'early'
  end
  local depk = key.job .. jid .. key.dependencies
  local member = Remote.find(depk, p, dep)
  if not member then return 'already' end
  rcall('SREM', depk, member)
  if rcall('SCARD', depk) > 0 then return 'waiting' end
  if st == 'depends' then Job.unblock(now, jid) end
  return 'released'
end

-- Whether a put may skip remote dependency `member` of job `jid`: its release came first.
function Remote.early(jid, member)
  local p, dep = Remote.parse(member)
  return p ~= nil and rcall('SISMEMBER', key.job .. jid .. key.released, p .. '\0' .. dep) == 1
end

function Remote.put(now)
  local id = A[4]
  if id == nil then error('Remote(): Arg "id" missing') end
  -- Messages applied in the last week are remembered; older ones are forgotten.
  -- put's arguments, two places further on (Job.put reads them from 3 on).
  local worker, queue, jid, klass, data, delay_s = A[5], A[6], A[7], A[8], A[9], A[10]
  local delay, retries, tags, priority, depends, throttles, okey, ttl, unique =
    Job.put_args(queue, jid, klass, data, delay_s, 11, #A)
  if rcall('ZSCORE', key.applied, id) then return 'already' end
  jid = Job.put_write(now, worker or '', queue, jid, klass, data, delay, retries, tags,
    priority, depends, throttles, okey, ttl, unique, nil, nil)
  rcall('ZADD', key.applied, now, id)
  rcall('ZREMRANGEBYSCORE', key.applied, '-inf', now - 604800)
  return jid
end

-- qlpy.outbox <now> take <lease> <count>: up to <count> messages to relay, each leased for
-- <lease> seconds: first those whose lease ran out (their relay died), then new ones.
-- Reply: the messages (JSON texts). qlpy.outbox <now> ack <message>...: the messages were
-- applied; they are forgotten. Reply: how many were still leased. qlpy.outbox <now>
-- length: messages not yet acknowledged.
-- Errors: Outbox(): Arg "lease" / "count" not a number: <x> / Outbox(): unknown action
function Remote.outbox(now)
  local action = A[3]
  if action == 'take' then
    local lease, count = Num.parse(A[4]), tonumber(A[5])
    if lease == nil or lease <= 0 then
      error('Outbox(): Arg "lease" not a number: ' .. tostring(A[4]))
    end
    if count == nil or count < 1 then
      error('Outbox(): Arg "count" not a number: ' .. tostring(A[5]))
    end
    count = floor(count)
    local out = rcall('ZRANGEBYSCORE', key.outbox_taken, '-inf', now, 'LIMIT', 0, count)
    while #out < count do
      local m = rcall('LPOP', key.outbox)
      if not m then break end
      out[#out + 1] = m
    end
    for _, m in ipairs(out) do rcall('ZADD', key.outbox_taken, now + lease, m) end
    return out
  elseif action == 'ack' then
    local n = 0
    for i = 4, #A do n = n + rcall('ZREM', key.outbox_taken, A[i]) end
    return n
  elseif action == 'length' then
    return rcall('LLEN', key.outbox) + rcall('ZCARD', key.outbox_taken)
  end
  error('Outbox(): unknown action "' .. tostring(action) .. '"')
end
