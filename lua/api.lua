-- The command table and the dispatcher (protocol 1.1). The build puts this file last.

Api['get'] = Job.get
Api['multiget'] = Job.multiget
Api['config.get'] = Config.get
Api['config.set'] = Config.set
Api['config.unset'] = Config.unset
Api['queues'] = Queue.queues
Api['complete'] = Job.complete
Api['failed'] = Queue.failed
Api['fail'] = Job.fail
Api['jobs'] = Queue.jobs
Api['retry'] = Job.retry
Api['depends'] = Job.depends
Api['heartbeat'] = Job.heartbeat
Api['workers'] = Worker.workers
Api['track'] = Track.track
Api['tag'] = Tags.tag
Api['stats'] = Stats.get
Api['priority'] = Job.priority
Api['log'] = Job.log
Api['peek'] = Queue.peek
Api['pop'] = Queue.pop
Api['pause'] = Queue.pause
Api['unpause'] = Queue.unpause
Api['cancel'] = Job.cancel
Api['timeout'] = Job.timeout
Api['put'] = Job.put
Api['requeue'] = Job.requeue
Api['unfail'] = Queue.unfail
Api['recur'] = Recur.recur
Api['unrecur'] = Recur.unrecur
Api['recur.get'] = Recur.get
Api['recur.update'] = Recur.update
Api['recur.tag'] = Recur.tag
Api['recur.untag'] = Recur.untag
Api['length'] = Queue.length
Api['worker.deregister'] = Worker.deregister
Api['queue.forget'] = Queue.forget
Api['throttle.set'] = Throttle.set
Api['throttle.get'] = Throttle.get
Api['throttle.delete'] = Throttle.delete
Api['throttle.locks'] = Throttle.locks
Api['throttle.pending'] = Throttle.pending
Api['throttle.ttl'] = Throttle.ttl
Api['throttle.release'] = Throttle.release_cmd
Api['queue.throttle.get'] = Throttle.queue_get
Api['queue.throttle.set'] = Throttle.queue_set
-- The throttle dialect's commands keep its names (above); qless_py's own extension commands
-- (docs/protocol.md) are prefixed, so no qless name can clash.
Api['qlpy.giveback'] = Job.giveback
Api['qlpy.remote'] = Remote.call
Api['qlpy.outbox'] = Remote.outbox
Api['qlpy.put_many'] = Job.put_many
Api['qlpy.stats'] = Stats.fine
Api['qlpy.check'] = Check.step
Api['qlpy.repair'] = Check.repair

-- Dispatch. The build has checked KEYS already (no key: the default namespace, `ql:`; one
-- key: a namespace, whose prefix it is; see scripts/build_lua.py). The commands a worker
-- sends for every job come first, as plain calls of their functions: those are --@inline,
-- so the build copies them into this block and their common path runs as straight code
-- that creates no function. A call this block does not take (no `now`, another command)
-- goes on to the checks below, which are made in the protocol's order.
if #A >= 2 then
  local now = Num.parse(A[2])
  local cmd, fast, result = A[1], true, nil
  if now == nil then
    fast = false
  elseif cmd == 'put' then
    result = Job.put(now)
  elseif cmd == 'pop' then
    result = Queue.pop(now)
  elseif cmd == 'complete' then
    result = Job.complete(now)
  elseif cmd == 'heartbeat' then
    result = Job.heartbeat(now)
  elseif cmd == 'fail' then
    result = Job.fail(now)
  elseif cmd == 'retry' then
    result = Job.retry(now)
  else
    fast = false
  end
  if fast then
    return result
  end
end

local cmd = A[1]
if cmd == nil then error('Must provide a command') end
local command = Api[cmd]
if not command then error('Unknown command ' .. cmd) end
if #A < 2 then error("bad argument #1 to 'tonumber' (value expected)") end
local now = Num.parse(A[2])
if now == nil then error('Arg "now" missing or not a number: nil') end
local result = command(now)
return result
