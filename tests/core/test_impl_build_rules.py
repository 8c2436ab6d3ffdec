"""scripts/build_lua.py on small source trees: what it rewrites, what it leaves alone, what
it refuses (naming the file and line), and that an inlined copy does what the call did."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_lua  # noqa: E402

PRELUDE = """\
local rcall = redis.call
local floor = math.floor
local A = ARGV
local Api, Op = {}, {}
local state
local key = { job = 'ql:j:', tag = 'ql:t:' }
"""
DISPATCH = """\
Api['one'] = Op.one
local command = Api[A[1]]
return command(0)
"""


def tree(tmp_path: Path, files: dict[str, str], prelude: str = PRELUDE) -> Path:
    root = tmp_path / "lua"
    for name, text in {"prelude.lua": prelude, "api.lua": DISPATCH, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


ONE = "function Op.one(now) return 1 end\n"


def test_text_in_strings_and_comments_is_never_rewritten(tmp_path: Path,
                                                         redis_conn: redis.Redis) -> None:
    texts = """\
-- key.job, Op.texts(), F_ONE and M.Op_texts in a comment stay as they are.
local F_ONE = 1

--[[ Op.texts() key.job ]]
--@inline
function Op.texts()
  local s = 'key.job Op.texts() F_ONE return M.Op_texts'
  local long = [[Op.texts( key.job ]] .. "F_ONE inl_1" -- key.job Op.texts F_ONE
  return s, long, key.job, F_ONE
end
"""
    api = """\
Api['texts'] = Op.texts
local a, b, c, d = Op.texts()
local lazy = { Api['texts']() }
return { a, b, c, d, lazy[1], lazy[2], lazy[3], lazy[4] }
"""
    root = tree(tmp_path, {"op.lua": ONE + texts, "api.lua": api})
    script = build_lua.build(root)
    # each text is in both bodies (the default namespace's and the namespaced one)
    for text in ("-- key.job, Op.texts(), F_ONE and M.Op_texts in a comment stay as they are.",
                 "--[[ Op.texts() key.job ]]"):
        assert script.count(text) == 2, text
    for text in ("-- key.job Op.texts F_ONE", "'key.job Op.texts() F_ONE return M.Op_texts'",
                 '"F_ONE inl_1"', "[[Op.texts( key.job ]]"):
        assert script.count(text) == 4, text  # in define(), and in the inlined copy
    strings = [b"key.job Op.texts() F_ONE return M.Op_texts", b"Op.texts( key.job F_ONE inl_1",
               b"ql:j:", 1]
    assert redis_conn.eval(script, 0) == strings * 2
    spaced = [*strings[:2], b"ql:{n}:j:", 1]
    assert redis_conn.eval(script, 1, "ql:{n}:") == spaced * 2


# Functions whose copies must behave exactly like their calls: several results and an
# early return (split), a loop without a return inside (count), a tail call of another
# inline function (twice), a bare return (bump), a parameter that shadows a script-level
# name (shadow), arguments evaluated once, before the body (twice(i) with i changing).
OPS = """\
--@inline
function Op.split(a, b)
  if b == 0 then return nil, 'by zero' end
  return floor(a / b), a % b
end

--@inline
function Op.count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

--@inline
function Op.twice(x) return Op.split(x * 2, 3) end

--@inline
function Op.bump(t, k)
  if t[k] then return end
  t[k] = (t.n or 0) + 1
  t.n = t[k]
end

--@inline
function Op.shadow(floor) return floor + 1 end

function Op.tick()
  state = (state or 0) + 1
  return state
end
"""
PROGRAM = """\
local out = {}
local q, r = Op.split(17, 5)
out[#out + 1] = q .. ':' .. r
local q2, why = Op.split(1, 0)
out[#out + 1] = tostring(q2) .. ':' .. why
local seen = { x = 1 }
Op.bump(seen, 'a')
Op.bump(seen, 'a')
Op.bump(seen, 'b')
for i = 1, 3 do
  local n = Op.count(seen)
  out[#out + 1] = 'n' .. n .. '/' .. i
end
local t1, t2 = Op.twice(7)
out[#out + 1] = t1 .. ',' .. t2
local s = Op.shadow(41)
out[#out + 1] = s .. ',' .. floor(2.5)
local v1, v2 = Op.twice(Op.tick() + 1)
out[#out + 1] = v1 .. ',' .. v2 .. ',' .. state
q, r = Op.split(q, 2)
out[#out + 1] = q .. ':' .. r
return out
"""


def test_inlined_copies_do_what_the_calls_do(tmp_path: Path, redis_conn: redis.Redis) -> None:
    inlined = build_lua.build(tree(tmp_path / "a", {"op.lua": ONE + OPS, "api.lua": PROGRAM}))
    called = build_lua.build(tree(tmp_path / "b", {"op.lua": ONE + OPS.replace("--@inline\n", ""),
                                                   "api.lua": PROGRAM}))
    parts = inlined.split("setmetatable(M, M)")
    assert len(parts) == 3  # the default namespace's body, then the namespaced one
    for top in (parts[1].split("local P = KEYS[1]")[0], parts[2]):
        assert "M.Op_split(" not in top and "M.Op_count(" not in top \
            and "M.Op_bump(" not in top
        assert "M.Op_tick(" in top  # not --@inline: a call, inside the copy's arguments
    want = [b"3:2", b"nil:by zero", b"n4/1", b"n4/2", b"n4/3", b"4,2", b"42,2", b"1,1,1",
            b"1:1"]
    for keys in ((), ("ql:{n}:",)):
        assert redis_conn.eval(called, len(keys), *keys) == want
        assert redis_conn.eval(inlined, len(keys), *keys) == want


# Each source breaks one rule; the build names the file and line, and what is wrong.
REFUSED = [
    ({"op.lua": ONE + "\nlocal function helper() end\n"}, "lua/op.lua:3",
     "top-level `local function`"),
    ({"op.lua": ONE + "function helper() end\n"}, "lua/op.lua:2", "function Module.name"),
    ({"op.lua": ONE + "function Op.two()\n  return Op\nend\n"}, "lua/op.lua:3",
     "module table Op is used only as"),
    ({"op.lua": ONE + "function Op.two()\n  return Op.three()\nend\n"}, "lua/op.lua:3",
     "Op.three is not defined"),
    ({"op.lua": ONE + "function Op.two()\n  return key.nope\nend\n"}, "lua/op.lua:3",
     "key.nope is not in the key table"),
    ({"op.lua": "local LIMIT = 3\n" + ONE + "function Op.two()\n  LIMIT = 4\nend\n"},
     "lua/op.lua:4", "constant LIMIT is assigned"),
    ({"op.lua": "local LIMIT = 3 + 1\n" + ONE}, "lua/op.lua:1", "one literal value"),
    ({"op.lua": ONE + "function Op.two()\n  local key = 1\nend\n"}, "lua/op.lua:3",
     "local key hides a name"),
    ({"op.lua": ONE + "function Op.two()\n  local inl_3 = 1\nend\n"}, "lua/op.lua:3",
     "inl_3 belongs to the build"),
    ({"op.lua": ONE + "function Op.one(x) end\n"}, "lua/op.lua:2", "also defined at lua/op.lua:1"),
    ({"op.lua": "--@inlined\n" + ONE}, "lua/op.lua:1", "unknown build directive"),
    ({"op.lua": "--@inline\nfunction Op.one(t)\n  for k in pairs(t) do\n    return k\n  end\n"
      "end\n"}, "lua/op.lua:4", "returns from inside a loop"),
    ({"op.lua": "--@inline\nfunction Op.one(...)\n  return 1\nend\n"}, "lua/op.lua:2",
     "takes `...`"),
    ({"op.lua": "--@inline\nfunction Op.one()\n  return function() end\nend\n"},
     "lua/op.lua:3", "defines a function"),
    ({"op.lua": "--@inline\n" + ONE,
      "api.lua": "Api['one'] = Op.one\nlocal x = 1 + Op.one(0)\nreturn x\n"},
     "lua/api.lua:2", "must be a statement of its own"),
    ({"op.lua": "--@inline\n" + ONE,
      "api.lua": "Api['one'] = Op.one\nlocal t = {}\nt.x = Op.one(0)\nreturn t.x\n"},
     "lua/api.lua:3", "assign its results to local names"),
    ({"op.lua": "--@inline\nfunction Op.one(now) return rcall('TIME') end\n",
      "api.lua": "Api['one'] = Op.one\nlocal rcall = 1\nlocal x = Op.one(0)\nreturn x\n"},
     "lua/api.lua:3", "would see this code's local rcall"),
    ({"op.lua": "--@inline\nfunction Op.one(now)\n  return rcall('TIME')\nend\n",
      "api.lua": "Api['one'] = Op.one\nreturn Op.one(0)\n"},
     "lua/op.lua:3", "`return f(...)` where f is not --@inline"),
    ({"op.lua": ONE, "api.lua": "Api['one'] = Op.one return 1\n"}, "lua/api.lua:1",
     "a line of its own"),
    ({"op.lua": "local LIMIT = 3 local y = 2\n" + ONE}, "lua/op.lua:1", "must end its line"),
    ({"op.lua": ONE + "function Op.two()\n  if x then\nend\n"}, "lua/op.lua:2",
     "nothing closes this 'function'"),
    ({"op.lua": ONE + "end\n"}, "lua/op.lua:2", "'end' closes nothing open"),
    ({"op.lua": ONE + "local s = 'open\n"}, "lua/op.lua:2", "cannot read Lua at"),
    ({"op.lua": "--@inline\nfunction Op.one(now)\n  local x = Op.one(now)\n  return x\nend\n",
      "api.lua": "Api['one'] = Op.one\nlocal x = Op.one(0)\nreturn x\n"},
     "lua/op.lua:3", "copied into itself"),
]


@pytest.mark.parametrize("files, where, phrase", REFUSED)
def test_the_build_refuses_what_breaks_a_rule(tmp_path: Path, files: dict[str, str],
                                              where: str, phrase: str) -> None:
    with pytest.raises(build_lua.BuildError) as info:
        build_lua.build(tree(tmp_path, files))
    assert str(info.value).startswith(f"{where}: "), str(info.value)
    assert phrase in str(info.value)


def test_a_local_named_like_defines_parameter_is_refused(tmp_path: Path) -> None:
    with pytest.raises(build_lua.BuildError, match=r"lua/prelude\.lua:7: a top-level local named"):
        build_lua.build(tree(tmp_path, {"op.lua": ONE}, PRELUDE + "local name = 'x'\n"))


def test_command_line_names_the_broken_rule(tmp_path: Path) -> None:
    import subprocess

    copy = tmp_path / "tree"
    (copy / "scripts").mkdir(parents=True)
    for script in ("build_lua.py", "lua_inline.py", "lua_tokens.py"):
        (copy / "scripts" / script).write_text((ROOT / "scripts" / script).read_text())
    tree(copy, {"op.lua": ONE + "function Op.two()\n  return Op.three()\nend\n"})
    result = subprocess.run([sys.executable, str(copy / "scripts" / "build_lua.py")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert result.stderr == "build_lua: lua/op.lua:3: Op.three is not defined\n"
