-- qless_py Lua core: the shared locals every file uses. Built into one script by
-- scripts/build_lua.py (read its docstring for what the build does to these sources).
--
-- Called as EVALSHA <sha> 0 <command> <now> <args...> (or with one key, a namespace's
-- prefix: scripts/build_lua.py builds the body for both). Positional argument n of a
-- command is ARGV[n + 2]; commands read ARGV directly so variadic commands are not
-- limited by unpack(). Everything here is local: since Redis 6.2.7 the global
-- environment and the standard libraries are read-only.
--
-- Redis runs the whole script body on every call, so little is at the top level: here
-- the aliases, the module tables, per-call state and the key table; elsewhere constants.
-- Functions are `function Module.name(...)`, and the build creates each one only when a
-- call first uses it.

local rcall = redis.call
local encode, decode = cjson.encode, cjson.decode
local floor = math.floor
local format, concat = string.format, table.concat
-- Base functions (tonumber, pairs, ...) are read as globals: aliasing them in locals
-- costs more per call (every closure binds them) than it saves.
local A = ARGV

-- Module tables; the other files attach their functions to these.
local Api, Check, Config, Expire, Job, Json, Num, Order, Queue, Recur, Remote, Stats, Tags,
  Throttle, Track, Worker = {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}

-- Per-call state, made only when a call needs it: `cfg` holds the configuration values
-- already read (false: the call knows the config hash does not exist).
local cfg

-- Key names: the only place they are spelled. Job keys are key.job .. jid (.. suffix),
-- queue keys key.queue .. queue .. suffix, worker keys key.worker .. worker (.. key.jobs),
-- statistics hashes key.stats .. kind .. ':' .. day .. ':' .. queue, the fine histograms
-- (extension) key.fine followed by the name of a wait or run hash. Throttle keys are
-- key.throttle .. tid (.. suffix); a queue's own throttle has the tid key.queue .. queue.
-- An ordering key's set is key.queue .. queue .. key.order .. name.
local key = {
  config = 'ql:config', queues = 'ql:queues', paused = 'ql:paused_queues',
  workers = 'ql:workers', tracked = 'ql:tracked', tags = 'ql:tags',
  failures = 'ql:failures', completed = 'ql:completed',
  job = 'ql:j:', history = '-history', dependencies = '-dependencies', dependents = '-dependents',
  queue = 'ql:q:', work = '-work', locks = '-locks', scheduled = '-scheduled',
  depends = '-depends', recurring = '-recur',
  worker = 'ql:w:', jobs = ':jobs', tag = 'ql:t:', failure_group = 'ql:f:', recur = 'ql:r:',
  stats = 'ql:s:', channel = 'ql:', fine = 'ql:fine:',
  throttle = 'ql:th:', pending = '-pending', ready = '-ready', throttled = '-throttled',
  order = '-key:', expiring = '-expiring',
  -- qless_py's own keys (not the protocol's): the last check's summary (qlpy.check), and a
  -- sharded namespace's number of shards, in its base namespace (written by its clients).
  check = 'ql:check', shards = 'ql:shards',
  -- ... and what one namespace owes another (lua/remote.lua): the outbox, its messages
  -- being relayed, its message counter, the hand-offs applied here, and a job's releases
  -- that came before the job (key.job .. jid .. key.released).
  outbox = 'ql:outbox', outbox_taken = 'ql:outbox-taken', outbox_seq = 'ql:outbox-seq',
  applied = 'ql:applied', released = '-released',
}
