"""scripts/lua_inline.py: copies of function bodies behave like the calls they replace, and
what a copy would get wrong is refused."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]


def load_inliner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lua_inline", ROOT / "scripts" / "lua_inline.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["lua_inline"] = module
    spec.loader.exec_module(module)
    return module


inline = load_inliner()

# Function bodies as build_lua.py hands them over (a define() entry), by flattened name.
SPLIT = ["-- quotient and remainder", "lazy_f = function(a, b)",
         "  if b == 0 then return nil, 'by zero' end", "  return floor(a / b), a % b", "end"]
COUNT = ["lazy_f = function(t)", "  local n = 0", "  for _ in pairs(t) do n = n + 1 end",
         "  return n", "end"]
TWICE = ["lazy_f = function(x) return M.Op_split(x * 2, 3) end"]
BUMP = ["lazy_f = function(t, k)", "  if t[k] then return end", "  t[k] = (t.n or 0) + 1",
        "  t.n = t[k]", "end"]


def inliner(**bodies: list[str]):  # type: ignore[no-untyped-def]
    return inline.Inliner({name: inline.parse_function(name, lines)
                           for name, lines in bodies.items()})


# The same program twice: with the functions as closures, and with their calls inlined.
PRELUDE = """
local floor = math.floor
local M = {}
M.Op_split = function(a, b)
  if b == 0 then return nil, 'by zero' end
  return floor(a / b), a % b
end
M.Op_count = function(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end
M.Op_twice = function(x) return M.Op_split(x * 2, 3) end
M.Op_bump = function(t, k)
  if t[k] then return end
  t[k] = (t.n or 0) + 1
  t.n = t[k]
end
"""
PROGRAM = """
local out = {}
local q, r = M.Op_split(17, 5)
out[#out + 1] = q .. ':' .. r
local q2, why = M.Op_split(1, 0)
out[#out + 1] = tostring(q2) .. ':' .. why
local seen = { x = 1 }
M.Op_bump(seen, 'a')
M.Op_bump(seen, 'a')
M.Op_bump(seen, 'b')
for i = 1, 3 do
  local n = M.Op_count(seen)
  out[#out + 1] = 'n' .. n .. '/' .. i
end
local t1, t2 = M.Op_twice(7)
out[#out + 1] = t1 .. ',' .. t2
local function first() return M.Op_split(9, 2) end
out[#out + 1] = select('#', first())
return out
"""


def test_inlined_calls_give_what_the_calls_give(redis_conn: redis.Redis) -> None:
    expanded = inliner(Op_split=SPLIT, Op_count=COUNT, Op_twice=TWICE,
                       Op_bump=BUMP).expand(PROGRAM)
    assert "M.Op_split(17, 5)" not in expanded and "M.Op_count(" not in expanded
    assert "M.Op_twice(" not in expanded and "M.Op_bump(" not in expanded
    # A call inside a nested function is left as a call.
    assert "return M.Op_split(9, 2)" in expanded
    plain = redis_conn.eval(PRELUDE + PROGRAM, 0)
    copied = redis_conn.eval(PRELUDE + expanded, 0)
    assert copied == plain
    assert plain == [b"3:2", b"nil:by zero", b"n4/1", b"n4/2", b"n4/3", b"4,2", 2]


def test_a_call_inside_an_expression_stays_a_call() -> None:
    text = "local x = M.Op_count(t) + 1\nlocal y = M.Op_count(t)\n  or 0\n"
    assert inliner(Op_count=COUNT).expand(text) == text


@pytest.mark.parametrize("body, phrase", [
    (["lazy_f = function(t)", "  for k in pairs(t) do return k end", "end"],
     "'return' inside a loop"),
    (["lazy_f = function(t)", "  return function() return t end", "end"], "nested function"),
    (["lazy_f = function(...)", "  return select('#', ...)", "end"], "takes ..."),
])
def test_bodies_a_copy_would_get_wrong_are_refused(body: list[str], phrase: str) -> None:
    with pytest.raises(inline.InlineError, match=phrase):
        inline.parse_function("Op_bad", body)


def test_a_caller_local_that_shadows_a_script_level_name_is_refused() -> None:
    # The body uses `floor` from the script level; the caller has a local of that name.
    text = "local floor = 3\nlocal q, r = M.Op_split(7, 2)\n"
    with pytest.raises(inline.InlineError, match="floor"):
        inliner(Op_split=SPLIT).expand(text)


def test_a_call_taking_more_results_than_the_function_returns_is_refused() -> None:
    with pytest.raises(inline.InlineError, match="returns 1 values"):
        inliner(Op_count=COUNT).expand("local a, b = M.Op_count(t)\n")


def test_field_names_and_table_keys_are_not_taken_for_variables() -> None:
    # `{ n = ... }` and `t.n` name fields, not the caller's `n`; `floor` is a variable.
    body = ["lazy_f = function(t)", "  return { n = t.n, m = floor(t.n) }", "end"]
    fn = inline.parse_function("Op_wrap", body)
    assert fn.free == {"floor"}
    assert "repeat" in inliner(Op_wrap=body).expand("local n = 1\nlocal w = M.Op_wrap(t)\n")
