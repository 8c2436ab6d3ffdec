-- Workers: the registry listing and deregistration.

-- Purge workers idle for longer than `max-worker-age` (default 86400), with their job sets.
function Worker.cleanup(now)
  local cutoff = now - Config.number('max-worker-age', 86400)
  local stale = rcall('ZRANGEBYSCORE', key.workers, 0, cutoff)
  for _, w in ipairs(stale) do rcall('DEL', key.worker .. w .. key.jobs) end
  if #stale > 0 then rcall('ZREMRANGEBYSCORE', key.workers, 0, cutoff) end
end

-- workers <now> [worker]
-- Reply: [{"name","jobs","stalled"}...] most recently active first ({} if none), or for one
-- worker {"jobs":[jid...],"stalled":[jid...]}.
function Worker.workers(now)
  Worker.cleanup(now)
  local name = A[3]
  if name ~= nil then
    local wk = key.worker .. name .. key.jobs
    return encode({
      jobs = rcall('ZREVRANGEBYSCORE', wk, now + 8640000, now),
      stalled = rcall('ZREVRANGEBYSCORE', wk, now, 0),
    })
  end
  local out = {}
  for _, w in ipairs(rcall('ZREVRANGE', key.workers, 0, -1)) do
    local wk = key.worker .. w .. key.jobs
    out[#out + 1] = {
      name = w,
      jobs = rcall('ZCOUNT', wk, now, now + 8640000),
      stalled = rcall('ZCOUNT', wk, 0, now),
    }
  end
  return encode(out)
end

-- worker.deregister <now> <worker>...: remove from ql:workers only. Reply nil.
function Worker.deregister(now)
  Queue.with_names('ZREM', key.workers, 3)
  return nil
end
