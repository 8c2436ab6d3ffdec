-- Wake-up extension: after a command, PUBLISH <queue> on qlpy:wake:<queue> for each queue
-- that gained poppable work. Published whether or not anyone listens: with no subscriber
-- PUBLISH is one failed channel lookup, half the cost of asking PUBSUB NUMSUB first, and
-- with one it saves that second call.

-- Mark `queue` as having gained poppable work: its workers are woken at the end of the call.
--@inline
function Wake.queue(queue)
  if not wake or wake == queue then
    wake = queue
    return
  end
  if type(wake) == 'string' then wake = { [wake] = true } end
  wake[queue] = true
end

--@inline
function Wake.one(queue)
  rcall('PUBLISH', key.wake .. queue, queue)
end

-- Publish for every queue marked by Wake.queue during this call (api.lua, after a command).
--@inline
function Wake.workers()
  if not wake then return end
  if type(wake) == 'string' then
    Wake.one(wake)
    return
  end
  for q in pairs(wake) do
    Wake.one(q)
  end
end
