-- The command table and the dispatcher (protocol 1.1). Always concatenated last.

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
Api['qlpy.stats'] = Stats.fine

-- Dispatch in the protocol's order, then wake workers of queues that gained poppable work.
local function main()
  if #KEYS > 0 then fail('No Keys should be provided') end
  local cmd = A[1]
  if cmd == nil then fail('Must provide a command') end
  local command = Api[cmd]
  if not command then fail('Unknown command ' .. cmd) end
  if #A < 2 then error("bad argument #1 to 'tonumber' (value expected)") end
  local now = num(A[2])
  if now == nil then fail('Arg "now" missing or not a number: nil') end
  local result = command(now)
  wake_workers()
  return result
end

return main()
