-- The floor of the core's cost: exactly the Redis calls that qless_py's put, pop and
-- complete make in their common case (6 + 15 + 14), with constant arguments and no Lua
-- logic. Not a core (it keeps no real state); a yardstick for how much of a command's
-- time is Lua work around the calls:
--
--   python scripts/bench_core.py --server redis --script scripts/floor.lua --versus qless_py/_lua/qless.lua
--
-- Argument layout as bench_core.py sends it (put <now> <worker> <queue> <jid> ...,
-- pop <now> <queue> <worker> <count>, complete <now> <jid> <worker> <queue> <data>).
local rcall = redis.call
local A = ARGV
local cmd = A[1]
local now = tonumber(A[2])
if cmd == 'pop' then
  local q, w = A[3], A[4]
  rcall('EXISTS', 'ql:config', 'ql:paused_queues', 'ql:q:' .. q .. '-recur', 'ql:q:' .. q .. '-scheduled', 'ql:tracked')
  rcall('ZADD', 'ql:workers', now, w)
  rcall('ZRANGEBYSCORE', 'ql:q:' .. q .. '-locks', '-inf', now, 'LIMIT', '0', 1)
  local top = rcall('ZREVRANGE', 'ql:q:' .. q .. '-work', '0', '0')
  local jid = top[1]
  rcall('ZREM', 'ql:q:' .. q .. '-work', jid)
  local jk = 'ql:j:' .. jid
  local g = rcall('HMGET', jk, 'jid', 'klass', 'queue', 'priority', 'retries',
      'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history', 'time')
  rcall('RPUSH', jk .. '-history', '[1700000010,"popped",{"worker":"w"}]')
  local sk = 'ql:s:wait:1699920000:' .. q
  local cur = rcall('HMGET', sk, 'total', 'mean', 'vk', 's10')
  rcall('HSET', sk, 'total', 5, 'mean', 10.5, 'vk', 0.25, 's10', 6)
  rcall('HINCRBY', 'ql:fine:' .. sk, '-40', 1)
  rcall('HSET', jk, 'time', '1700000010.12345600128173828125', 'worker', w, 'expires', now + 60, 'state', 'running')
  rcall('ZADD', 'ql:w:' .. w .. ':jobs', now + 60, jid)
  rcall('ZADD', 'ql:q:' .. q .. '-locks', now + 60, jid)
  rcall('LRANGE', jk .. '-history', '0', '-1')
  rcall('EXISTS', jk .. '-dependents', jk .. '-dependencies', jk .. '-dependencies')
  return '[{"jid":"x"}]'
end
if cmd == 'complete' then
  local jid, w, q = A[3], A[4], A[5]
  local jk = 'ql:j:' .. jid
  rcall('HMGET', jk, 'state', 'worker', 'queue', 'history', 'time', 'retries')
  local sk = 'ql:q:' .. q .. '-scheduled'
  rcall('EXISTS', 'ql:q:' .. q .. '-work', sk, sk)
  rcall('EXISTS', 'ql:config', 'ql:tracked', jk .. '-dependents')
  rcall('RPUSH', jk .. '-history', '[1700000020,"done"]')
  rcall('ZREM', 'ql:q:' .. q .. '-locks', jid)
  local sk = 'ql:s:run:1699920000:' .. q
  local cur = rcall('HMGET', sk, 'total', 'mean', 'vk', 's10')
  rcall('HSET', sk, 'total', 5, 'mean', 10.5, 'vk', 0.25, 's10', 6)
  rcall('HINCRBY', 'ql:fine:' .. sk, '-40', 1)
  rcall('ZREM', 'ql:w:' .. w .. ':jobs', jid)
  rcall('PUBLISH', 'ql:log', '{"jid":"x","event":"completed","queue":"q"}')
  rcall('HSET', jk, 'data', '{}', 'time', '1700000020.12345600128173828125', 'state', 'complete', 'worker', '',
      'failure', '{}', 'queue', '', 'expires', '0', 'remaining', '5')
  rcall('ZADD', 'ql:completed', now, jid)
  rcall('ZRANGEBYSCORE', 'ql:completed', '0', now - 604800, 'LIMIT', '0', '100')
  rcall('ZCARD', 'ql:completed')
  return 'complete'
end
-- put
local q, jid = A[4], A[5]
local jk = 'ql:j:' .. jid
rcall('EXISTS', jk, 'ql:tracked', 'ql:tracked')
rcall('PUBLISH', 'ql:log', '{"jid":"x","event":"put","queue":"q"}')
rcall('RPUSH', jk .. '-history', '[1700000000,"put",{"q":"q"}]')
rcall('HSET', jk, 'jid', jid, 'klass', A[6], 'data', A[7], 'priority', '0', 'tags', '{}', 'state', 'waiting',
  'worker', '', 'expires', '0', 'queue', q, 'retries', '5', 'remaining', '5', 'time', '1700000000.12345600128173828125')
rcall('ZADD', 'ql:q:' .. q .. '-work', 0 - now / 10000000000, jid)
rcall('ZADD', 'ql:queues', 'NX', now, q)
return jid
