"""tag and track (3.16, 3.17, 2.6, 4.8)."""

from __future__ import annotations

import json

from tests.core.support import T0, Core


def test_tag_add_and_remove(core: Core) -> None:
    core.put("a", T0, "q", "tags", '["x"]')
    reply = core("tag", T0 + 1, "add", "a", "x", "y")
    assert json.loads(reply) == ["x", "y"]
    assert core.zset("ql:t:x") == [("a", T0 + 1)] and core.zset("ql:t:y") == [("a", T0 + 1)]
    # quirk 18: counters bump for every listed tag, present or not
    assert dict(core.zset("ql:tags")) == {"x": 2.0, "y": 1.0}
    assert core.job("a")["tags"] == ["x", "y"]
    assert json.loads(core("tag", T0 + 2, "remove", "a", "x", "zz")) == ["y"]
    assert dict(core.zset("ql:tags")) == {"x": 1.0, "y": 1.0, "zz": -1.0}
    assert core("tag", T0 + 3, "remove", "a", "y") == b"{}"
    assert core.hget("ql:j:a", "tags") == "{}"
    assert core.zset("ql:t:y") == []


def test_tag_add_collapses_duplicates_in_call(core: Core) -> None:
    core.put("a")
    assert json.loads(core("tag", T0, "add", "a", "z", "z")) == ["z"]


def test_tag_get_pagination_index_range(core: Core) -> None:
    for i in range(5):
        core.put(f"j{i}", T0 + i, "q", "tags", '["t"]')
    page = core.json("tag", T0, "get", "t")
    assert page == {"total": 5, "jobs": ["j0", "j1", "j2", "j3", "j4"]}
    assert core.json("tag", T0, "get", "t", 1, 2)["jobs"] == ["j1", "j2"]
    assert core.json("tag", T0, "get", "t", 0, 0)["jobs"] == ["j0", "j1", "j2", "j3", "j4"]
    assert core.json("tag", T0, "get", "none") == {"total": 0, "jobs": {}}


def test_tag_top(core: Core) -> None:
    core.put("a", T0, "q", "tags", '["hot","warm","cold"]')
    core.put("b", T0, "q", "tags", '["hot","warm"]')
    core.put("c", T0, "q", "tags", '["hot"]')
    assert core.json("tag", T0, "top") == ["hot", "warm"]
    assert core.json("tag", T0, "top", 1, 1) == ["warm"]
    assert core("tag", T0, "top", 0, 0) == b"{}"
    assert core.json("tag", T0, "top", 0, -1) == ["hot", "warm"]


def test_tag_errors(populated: Core) -> None:
    c = populated
    c.rejects('Tag(): Arg "command" must be "add", "remove", "get" or "top"', "tag", T0)
    c.rejects('Tag(): First argument must be "add", "remove" or "get"', "tag", T0, "ADD", "a")
    c.rejects('Tag(): Arg "jid" missing', "tag", T0, "add")
    c.rejects('Tag(): Arg "jid" missing', "tag", T0, "remove")
    c.rejects("Tag(): Job zz does not exist", "tag", T0, "add", "zz", "t")
    c.rejects("Tag(): Job zz does not exist", "tag", T0, "remove", "zz", "t")
    c.rejects('Tag(): Arg "tag" missing', "tag", T0, "get")
    c.rejects('Tag(): Arg "offset" not a number: x', "tag", T0, "get", "red", "x")
    c.rejects('Tag(): Arg "count" not a number: y', "tag", T0, "get", "red", 0, "y")
    c.rejects('Tag(): Arg "offset" not a number: x', "tag", T0, "top", "x")
    c.rejects('Tag(): Arg "count" not a number: y', "tag", T0, "top", 0, "y")


def test_track_and_untrack(core: Core) -> None:
    core.put("a")
    core.put("b")
    assert core("track", T0 + 1, "track", "a") == b"1"
    assert core("track", T0 + 2, "TRACK", "a") == b"0"
    assert core.zset("ql:tracked") == [("a", T0 + 2)]
    assert core.job("a")["tracked"] is True
    core("track", T0 + 1.5, "track", "b")
    listing = core.json("track", T0)
    assert [j["jid"] for j in listing["jobs"]] == ["b", "a"]
    assert listing["expired"] == {}
    assert core("track", T0, "untrack", "b") == b"1"
    assert core("track", T0, "Untrack", "b") == b"0"


def test_track_listing_expired(core: Core) -> None:
    core.put("a")
    core("track", T0, "track", "a")
    core("cancel", T0, "a")
    assert core.json("track", T0) == {"jobs": {}, "expired": ["a"]}
    core.rejects("Track(): Job does not exist", "track", T0, "untrack", "a")


def test_track_empty_listing(core: Core) -> None:
    assert core("track", T0) in (b'{"jobs":{},"expired":{}}', b'{"expired":{},"jobs":{}}')


def test_track_errors(populated: Core) -> None:
    populated.rejects('Track(): Arg "jid" missing', "track", T0, "track")
    populated.rejects("Track(): Job does not exist", "track", T0, "track", "zz")
    populated.rejects('Track(): Unknown action "watch"', "track", T0, "watch", "wait1")


def test_track_listing_holds_full_job_objects(populated: Core) -> None:
    listing = populated.json("track", T0)
    [job] = listing["jobs"]
    assert job["jid"] == "wait1" and job["tracked"] is True and job["tags"] == ["red"]
    assert listing["expired"] == {}


def server_cjson_list(core: Core, items: list[str]) -> bytes:
    reply = core.conn.eval("return cjson.encode(ARGV)", 0, *items)
    assert isinstance(reply, bytes)
    return reply


def test_list_replies_are_byte_exact_cjson(core: Core) -> None:
    tags = ["a/b", 'q"x', "\u00e9", "t\x02"]
    core.put("a")
    assert core("tag", T0, "add", "a", *tags) == server_cjson_list(core, tags)
    core("recur", T0, "q", "r", "K", "{}", "interval", 60, 0)
    assert core("recur.tag", T0, "r", *tags) == server_cjson_list(core, tags)
    core.put("b", T0, "q", "tags", '["a/b","a/b"]')
    core.put("c", T0, "q", "tags", '["a/b"]')
    assert core("tag", T0, "top") == server_cjson_list(core, ["a/b"])
    stored = core.conn.hget("ql:j:a", "tags")
    assert stored == server_cjson_list(core, tags)
