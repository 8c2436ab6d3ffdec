-- The job object (protocol 2.10) as JSON text, and the commands that return it.

-- One rendered history entry: the extra object's keys plus "when" and "what".
-- Stored entries are cjson output ([when,"what"] or [when,"what",{...}]), so the common
-- shapes are rewritten as text; anything else (an extra with keys named when/what, escaped
-- text, null or array extras) is decoded and re-encoded.
function Job.render_entry(text)
  local when, what, rest = text:match('^%[([%d%.eE+%-]+),("[^"\\]*")(.*)%]$')
  if when then
    if rest == '' or rest == ',{}' then return '{"when":' .. when .. ',"what":' .. what .. '}' end
    -- Only a flat extra object: braces inside could mean more values after it.
    if rest:sub(1, 2) == ',{' and rest:sub(-1) == '}' and not rest:find('"wh', 1, true)
        and not rest:sub(3, -2):find('[{}]') then
      return '{"when":' .. when .. ',"what":' .. what .. ',' .. rest:sub(3)
    end
  end
  local ok, e = pcall(decode, text)
  if not ok or type(e) ~= 'table' then return '{}' end
  local parts = {}
  if e[1] ~= nil then parts[#parts + 1] = '"when":' .. encode(e[1]) end
  if e[2] ~= nil then parts[#parts + 1] = '"what":' .. encode(e[2]) end
  local extra = e[3]
  if type(extra) == 'table' then
    for k, v in pairs(extra) do
      if k ~= 'when' and k ~= 'what' then
        parts[#parts + 1] = encode(tostring(k)) .. ':' .. encode(v)
      end
    end
  end
  return '{' .. concat(parts, ',') .. '}'
end

-- A JSON list stored in a hash field, re-encoded the way cjson writes it ({} when empty).
--@inline
function Job.stored_list(text)
  if not text or text == '{}' or text == '[]' then return '{}' end
  local ok, v = pcall(decode, text)
  if not ok or type(v) ~= 'table' then return '{}' end
  return encode(v)
end

-- Encoded JSON strings of a Redis reply list.
function Job.encoded_members(list)
  for i = 1, #list do list[i] = encode(list[i]) end
  return Json.list(list)
end

-- The job object (protocol 2.10) as JSON text, or nil when the job has no `jid` field.
-- `f` is a Job.fetch result when the caller has one; `tracked` is known or nil.
-- `wrap` true renders a one-element JSON array instead (pop of one job), in the same
-- concatenation. `last`, when given, is the rendering of the newest history entry, which
-- the caller has just appended: the list is then read without it. `seen` and `shown` are
-- an entry's stored text that the caller can predict and its rendering (the rendering
-- below makes of that text): a stored entry equal to `seen` is not parsed. `wjson` and
-- `qjson`, when the caller has them, are the JSON texts of f's worker and queue.
--@inline
function Job.render(jid, f, tracked, wrap, last, seen, shown, wjson, qjson)
  if not f then f = Job.fetch(jid) end
  if not f[F_JID] then return nil end
  if f[F_HISTORY] then
    Job.migrate(jid, f[F_HISTORY])
    f[F_HISTORY] = false
  end
  if tracked == nil then tracked = rcall('ZSCORE', key.tracked, jid) ~= false end
  local hist = rcall('LRANGE', key.job .. jid .. key.history, '0', last and '-2' or '-1')
  for i = 1, #hist do
    -- Inline fast path of Job.render_entry for the two shapes every command writes.
    local text = hist[i]
    if text == seen then
      hist[i] = shown
    else
      -- A flat extra object only: braces inside could mean more values after it.
      local when, what, inner = text:match('^%[(%d+),("[%w%-]*"),{([^{}]*)}%]$')
      if when and not inner:find('"wh', 1, true) then
        if inner == '' then
          hist[i] = '{"when":' .. when .. ',"what":' .. what .. '}'
        else
          hist[i] = '{"when":' .. when .. ',"what":' .. what .. ',' .. inner .. '}'
        end
      else
        when, what = text:match('^%[(%d+),("[%w%-]*")%]$')
        if when then
          hist[i] = '{"when":' .. when .. ',"what":' .. what .. '}'
        else
          hist[i] = Job.render_entry(text)
        end
      end
    end
  end
  -- The caller's own new entry (pop), already rendered, was left out of the LRANGE.
  if last then hist[#hist + 1] = last end
  -- Most jobs have neither dependents nor dependencies: one EXISTS tells (it counts a key
  -- once per mention, so 1 = dependents, 2 = dependencies), and only existing sets are read.
  local jk = key.job .. jid
  local dtk, dck = jk .. key.dependents, jk .. key.dependencies
  local sets = rcall('EXISTS', dtk, dck, dck)
  local dependents = sets % 2 == 1 and rcall('SMEMBERS', dtk) or {}
  local dependencies = sets >= 2 and Job.encoded_members(rcall('SMEMBERS', dck)) or '{}'
  -- Numbers absent from the hash are left out, as cjson leaves out nil values.
  local priority = Json.number(f[F_PRIORITY])
  local retries = Json.number(f[F_RETRIES])
  local remaining = Json.number(f[F_REMAINING], true)
  -- Every part as a statement of its own, so that the build can inline the helpers into
  -- pop's common path; then one concatenation expression builds the result in one step.
  local klass = Json.str(f[F_KLASS])
  local state = '"running"'
  if f[F_STATE] ~= 'running' then
    state = Json.str(f[F_STATE])
  end
  local queue = qjson
  if not queue then
    queue = Json.str(f[F_QUEUE])
  end
  local data = Json.str(f[F_DATA])
  local spawned = Json.str(f[F_SPAWNED])
  -- The history's brackets go into the one concatenation below (cjson writes {} for none).
  local history, hopen, hclose = '{}', '', ''
  if #hist > 0 then
    history, hopen, hclose = concat(hist, ','), '[', ']'
  end
  local tags, failure = f[F_TAGS], f[F_FAILURE]
  if tags ~= '{}' then
    tags = Job.stored_list(tags)
  end
  if failure ~= '{}' then
    failure = Job.stored_list(failure)
  end
  -- The extensions' fields, only on jobs that use them (docs/compatibility.md).
  local flow = ''
  if f[F_THROTTLES] or f[F_KEY] or f[F_TTL] then
    flow = Job.flow_fields(f)
  end
  return (wrap and '[{"jid":' or '{"jid":') .. encode(f[F_JID]) .. ',"klass":' .. klass ..
    ',"state":' .. state .. ',"queue":' .. queue ..
    ',"worker":' .. (wjson or encode(f[F_WORKER] or '')) .. ',"tracked":' .. (tracked and 'true' or 'false') ..
    ',"expires":' .. encode(tonumber(f[F_EXPIRES]) or 0) .. ',"data":' .. data ..
    ',"tags":' .. tags .. ',"failure":' .. failure ..
    ',"spawned_from_jid":' .. spawned .. ',"history":' .. hopen .. history .. hclose ..
    ',"dependents":' .. (#dependents == 0 and '{}' or Job.encoded_members(dependents)) ..
    ',"dependencies":' .. dependencies ..
    (priority and ',"priority":' or '') .. (priority or '') ..
    (retries and ',"retries":' or '') .. (retries or '') ..
    (remaining and ',"remaining":' or '') .. (remaining or '') .. flow ..
    (wrap and '}]' or '}')
end

-- The job object's extension fields as ',"name":value' texts: "throttles" (the stored list,
-- when it names a throttle besides the queue's own), "key" and "ttl" (when set).
function Job.flow_fields(f)
  local out = ''
  local all = Throttle.list(f[F_THROTTLES])
  if Throttle.own(all, f[F_QUEUE] or '') then out = ',"throttles":' .. encode(all) end
  if f[F_KEY] then out = out .. ',"key":' .. encode(f[F_KEY]) end
  if f[F_TTL] then out = out .. ',"ttl":' .. (Json.number(f[F_TTL]) or '0') end
  return out
end

-- get <now> <jid>: the job object, or nil. Error: Job(): no jid provided
function Job.get(now)
  local jid = A[3]
  if jid == nil then error('Job(): no jid provided') end
  return Job.render(jid) or false
end

-- multiget <now> [jid...]: JSON array of the existing jobs, in argument order ({} if none).
function Job.multiget(now)
  local parts = {}
  for i = 3, #A do parts[#parts + 1] = Job.render(A[i]) end
  return Json.list(parts)
end
