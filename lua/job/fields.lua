-- The job hash: its field layout, the one read of every field, its tags, whether it is
-- tracked, and the tracked-job events.

-- Field order of Job.fetch; the indexes below name the positions.
local F_JID, F_KLASS, F_STATE, F_QUEUE, F_WORKER, F_PRIORITY, F_EXPIRES = 1, 2, 3, 4, 5, 6, 7
local F_RETRIES, F_REMAINING, F_DATA, F_TAGS, F_FAILURE, F_SPAWNED, F_HISTORY, F_TIME =
  8, 9, 10, 11, 12, 13, 14, 15
local F_THROTTLES, F_KEY, F_TTL = 16, 17, 18

-- Every field a command or the job object needs, in one HMGET.
function Job.fetch(jid)
  return rcall('HMGET', key.job .. jid, 'jid', 'klass', 'state', 'queue', 'worker', 'priority',
    'expires', 'retries', 'remaining', 'data', 'tags', 'failure', 'spawned_from_jid', 'history',
    'time', 'throttles', 'key', 'ttl')
end

-- Decoded tag list of a job's stored `tags` text ({} when absent or unreadable).
function Job.tag_list(text)
  if not text then return {} end
  local ok, v = pcall(decode, text)
  if ok and Json.strings(v) then return v end
  return {}
end

-- Whether the job is tracked (in ql:tracked).
--@inline
function Job.is_tracked(jid) return rcall('ZSCORE', key.tracked, jid) ~= false end

-- Publish `payload` on ql:<channel> when the job is tracked.
--@inline
function Job.notify(jid, channel, tracked)
  if tracked == nil then
    tracked = Job.is_tracked(jid)
  end
  if tracked then rcall('PUBLISH', key.channel .. channel, jid) end
end
