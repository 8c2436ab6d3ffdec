-- Numbers: parsing arguments, and writing numbers as the exact texts Redis and Lua would.

-- A finite number parsed like Lua's tonumber, or nil. nan and +-inf are rejected.
--@inline
function Num.parse(v)
  local n = tonumber(v)
  -- n - n is 0 for every finite number, and nan for nan and for +-inf.
  if n and n - n == 0 then return n end
  return nil
end

-- The `time` field format: C %.20f.
--@inline
function Num.time_text(t) return format('%.20f', t) end

-- Lua's text for floor(t) (%.14g), cut from `tstr` (t's Num.time_text) when the caller has
-- it: for 0 <= t < 1e14 the integer part of %.20f has the same digits (no exponent, and no
-- fraction of a double rounds up into it). Cutting a string costs a fifth of formatting.
--@inline
function Num.whole_text(t, tstr)
  if tstr and t >= 0 and t < 1e14 then return tstr:sub(1, -22) end
  return tostring(floor(t))
end

-- `now` as a score or range bound for Redis: its Num.time_text `tstr` when that parses back
-- to exactly `now` (|now| >= 1, where 20 decimals are far finer than the spacing of
-- doubles), which spares Redis formatting the number with %.17g; else the number.
--@inline
function Num.score_arg(now, tstr)
  if now >= 1 then return tstr end
  return now
end
