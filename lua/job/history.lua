-- A job's history: appending entries under the length cap, and migrating the legacy field.

-- Legacy history (a JSON field of jobs written by very old versions) becomes list entries,
-- appended after the existing ones; the field is then deleted (protocol 2.4).
function Job.migrate(jid, legacy)
  local hk = key.job .. jid .. key.history
  local ok, stages = pcall(decode, legacy)
  if ok and type(stages) == 'table' then
    for _, st in ipairs(stages) do
      if type(st) == 'table' then
        rcall('RPUSH', hk, encode({ floor(Num.parse(st.put) or 0), 'put', { q = st.q } }))
        if Num.parse(st.popped) then
          rcall('RPUSH', hk,
            encode({ floor(Num.parse(st.popped)), 'popped', { worker = st.worker } }))
        end
        if Num.parse(st.failed) then
          rcall('RPUSH', hk, encode({ floor(Num.parse(st.failed)), 'failed' }))
        end
        if Num.parse(st.done) then
          rcall('RPUSH', hk, encode({ floor(Num.parse(st.done)), 'done' }))
        end
      end
    end
  end
  rcall('HDEL', key.job .. jid, 'history')
end

-- P-HIST: append [floor(when), what, extra?]. `what` comes as its JSON text (the callers'
-- names are constants, so none has to be encoded per call). `legacy` is the job's `history`
-- field when the caller already read it (false: known absent; nil: read it here).
-- The cap `max-job-history` (N) reproduces the reference's keep-first-plus-newest result
-- without reading the list: RPUSH first, then trim only when over the cap. `whole`, when
-- the caller has it, is Lua's text for floor(when) (Num.whole_text).
--@inline
function Job.hist(jid, when, what_json, extra, legacy, whole)
  if legacy == nil then legacy = rcall('HGET', key.job .. jid, 'history') end
  if legacy then Job.migrate(jid, legacy) end
  -- The text cjson would write for [floor(when), what, extra]; `extra` may also be given
  -- as JSON text already (the hot callers build {"q":...} / {"worker":...} themselves).
  local entry
  if not whole then
    whole = Num.whole_text(when)
  end
  if extra == nil then
    entry = '[' .. whole .. ',' .. what_json .. ']'
  else
    if type(extra) ~= 'string' then extra = encode(extra) end
    entry = '[' .. whole .. ',' .. what_json .. ',' .. extra .. ']'
  end
  local hk = key.job .. jid .. key.history
  local len = rcall('RPUSH', hk, entry)
  -- No cap trims a list of two entries or fewer, so the config is read only beyond that.
  if len < 3 then return end
  local cap = Config.number('max-job-history', 100)
  cap = floor(cap)
  if cap >= 3 then
    if len > cap then
      local first = rcall('LPOP', hk)
      rcall('LTRIM', hk, 1 - cap, -1)
      rcall('LPUSH', hk, first)
    end
  elseif cap == 1 and len >= 3 then
    -- N = 1 keeps the first entry and drops the second one on every append.
    local first = rcall('LPOP', hk)
    rcall('LPOP', hk)
    rcall('LPUSH', hk, first)
  end
end
