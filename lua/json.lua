-- JSON texts written by hand, exactly as cjson would write them, where that is cheaper.

-- A JSON string for `v`, or the literal false for a missing value (cjson's rendering of a
-- missing hash field that was copied into an object).
--@inline
function Json.str(v)
  if v == false or v == nil then return 'false' end
  return encode(v)
end

-- The JSON text of a number stored as text `v` (floored when `whole`), or nil when `v` is
-- not a number. A single digit, as priority, retries and remaining usually are, is its own
-- JSON text: parsing and formatting it again would cost several string conversions.
--@inline
function Json.number(v, whole)
  if v == '0' or v == '5' or v == '1' or v == '2' or v == '3' or v == '4' or v == '6'
      or v == '7' or v == '8' or v == '9' then
    return v
  end
  local n = tonumber(v)
  if n == nil then return nil end
  if whole then n = floor(n) end
  return encode(n)
end

-- A JSON array built from already-encoded elements; cjson writes an empty list as {}.
--@inline
function Json.list(parts)
  if #parts == 0 then return '{}' end
  return '[' .. concat(parts, ',') .. ']'
end

-- Decoded JSON list of strings, or nil when the value is not a list of strings/numbers.
function Json.strings(v)
  if type(v) ~= 'table' then return nil end
  local n = 0
  for k, item in pairs(v) do
    local t = type(item)
    if type(k) ~= 'number' or (t ~= 'string' and t ~= 'number') then return nil end
    n = n + 1
  end
  if n ~= #v then return nil end
  return v
end
