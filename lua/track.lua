-- Tracking: the track listing and track/untrack.

-- track <now> | track <now> track <jid> | track <now> untrack <jid>
-- Replies: {"jobs":[job...],"expired":[jid...]}; or "1"/"0" (a JSON number, as a string).
-- Events: ql:track / ql:untrack (always). Errors: Track(): Arg "jid" missing / Track(): Job
-- does not exist / Track(): Unknown action "<x>"
function Track.track(now)
  local action, jid = A[3], A[4]
  if action == nil then
    local jobs, expired = {}, {}
    for _, j in ipairs(rcall('ZRANGE', key.tracked, 0, -1)) do
      local r = Job.render(j, nil, true)
      if r then jobs[#jobs + 1] = r else expired[#expired + 1] = encode(j) end
    end
    return '{"jobs":' .. Json.list(jobs) .. ',"expired":' .. Json.list(expired) .. '}'
  end
  if jid == nil then error('Track(): Arg "jid" missing') end
  if rcall('EXISTS', key.job .. jid) == 0 then error('Track(): Job does not exist') end
  local a = string.lower(action)
  if a == 'track' then
    rcall('PUBLISH', key.channel .. 'track', jid)
    return encode(rcall('ZADD', key.tracked, now, jid))
  elseif a == 'untrack' then
    rcall('PUBLISH', key.channel .. 'untrack', jid)
    return encode(rcall('ZREM', key.tracked, jid))
  end
  error('Track(): Unknown action "' .. action .. '"')
end
