-- log: append a custom entry to a job's history.

-- log <now> <jid> <message> [data]
-- Appends a history entry (what = message, extra = decoded data). Reply nil.
-- Errors: Log(): Argument 'jid' missing / Log(): Argument 'message' missing / cjson error /
-- Log(): Argument 'data' not cjson: <x> / Log(): Job <jid> does not exist
function Job.log(now)
  local jid, message, data = A[3], A[4], A[5]
  if jid == nil then error("Log(): Argument 'jid' missing") end
  if message == nil then error("Log(): Argument 'message' missing") end
  local extra
  if data ~= nil then
    extra = decode(data)
    if extra == false then error("Log(): Argument 'data' not cjson: " .. data) end
  end
  if rcall('EXISTS', key.job .. jid) == 0 then error('Log(): Job ' .. jid .. ' does not exist') end
  -- Pass the extra as JSON text: a decoded JSON string must not be taken for JSON text.
  if extra ~= nil then extra = encode(extra) end
  Job.hist(jid, now, encode(message), extra)
  return nil
end
