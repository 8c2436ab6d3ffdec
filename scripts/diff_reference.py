#!/usr/bin/env python3
"""Differential fuzzer: qless_py's Lua core versus the reference qless-core script.

Starts two private redis-server processes (same binary; the reference script only
runs on Redis <= 6.2.6), loads the reference script into one and our built core
(qless_py/_lua/qless.lua) into the other, and subscribes to ``ql:*`` on each.

It then generates random, mostly valid command sequences over a small pool of jids,
queues, workers, tags and groups (seeded: every sequence prints/records its seed),
runs each command on both servers with the same ``now`` and compares after every
call:

* the reply (JSON parsed and compared as data; errors reduced to their message:
  the ``Error running script ... user_script:N:`` decoration, line numbers and Lua
  table addresses are stripped);
* the events published during the call (channel + payload, JSON payloads as data,
  in order);
* the whole keyspace (every key, type and value; TTLs and ``qlpy:*`` keys ignored;
  hash fields that both parse as numbers are compared numerically, and a textual
  difference between equal numbers is reported as a separate low-priority class).

The first occurrence of every new difference class is shrunk (commands dropped while
the same class still shows) to a minimal repro and written to a JSON-lines file.
After any difference our server's keyspace is overwritten with the reference's
(DUMP/RESTORE) so the sequence continues from a common state; known classes are
then suppressed.

Calling convention adapter: the bundled reference (qless-py 0.11.4) is an older
qless-core whose ``put`` has no ``worker`` argument and which has no ``requeue``
command. The harness sends protocol-conformant calls to our core and, for the
reference, drops ``put``'s worker argument and emulates ``requeue`` as ``put`` of an
existing job (or the protocol's ``Requeue(): Job <jid> does not exist`` error).

This is a development tool; it is not imported by the test-suite.

Example:
    python scripts/diff_reference.py --seed 1 --runs 2000 \\
        --ref /path/to/qless-core/qless.lua --redis-binary /path/to/redis-server
"""

import argparse
import contextlib
import json
import math
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time

import redis

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OURS_DEFAULT = os.path.join(REPO, "qless_py", "_lua", "qless.lua")

DUMP_LUA = """
local out = {}
for _, k in ipairs(redis.call('keys', '*')) do
  local t = redis.call('type', k).ok
  local v = {}
  if t == 'hash' then v = redis.call('hgetall', k)
  elseif t == 'zset' then v = redis.call('zrange', k, 0, -1, 'withscores')
  elseif t == 'list' then v = redis.call('lrange', k, 0, -1)
  elseif t == 'set' then v = redis.call('smembers', k)
  elseif t == 'string' then v = {redis.call('get', k)}
  end
  out[#out + 1] = {k, t, v}
end
return out
"""

MARK = "ql:__fuzzmark__"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    def __init__(self, binary, script_path, name):
        self.name = name
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix=f"fuzz-{name}-")
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--bind",
                "127.0.0.1",
                "--dir",
                self.dir,
                "--daemonize",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.r = redis.Redis(port=self.port)
        for _ in range(100):
            try:
                self.r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        with open(script_path) as f:
            self.sha = self.r.script_load(f.read())
        self.dump_sha = self.r.script_load(DUMP_LUA)
        self.ps = self.r.pubsub()
        self.ps.psubscribe("ql:*")
        # wait for the subscription confirmation
        while True:
            m = self.ps.get_message(timeout=1)
            if m and m["type"] == "psubscribe":
                break
        self.seq = 0

    def call(self, args):
        try:
            rep = self.r.evalsha(self.sha, 0, *args)
            return ("ok", rep)
        except redis.ResponseError as e:
            return ("err", str(e))

    def events(self):
        self.seq += 1
        token = str(self.seq)
        self.r.publish(MARK, token)
        out = []
        while True:
            m = self.ps.get_message(timeout=5)
            if m is None:
                raise RuntimeError(f"{self.name}: lost pubsub marker")
            if m["type"] != "pmessage":
                continue
            ch = m["channel"].decode()
            data = m["data"].decode("utf-8", "replace")
            if ch == MARK:
                if data == token:
                    return out
                continue
            out.append((ch, data))

    def dump(self):
        res = {}
        for k, t, v in self.r.evalsha(self.dump_sha, 0):
            k = k.decode("utf-8", "replace")
            if k.startswith("qlpy:"):
                continue
            t = t.decode()
            v = [x.decode("utf-8", "replace") for x in v]
            res[k] = (t, v)
        return res

    def flush(self):
        self.r.flushall()

    def stop(self):
        with contextlib.suppress(Exception):
            self.ps.close()
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# ---------------------------------------------------------------- normalisation

ERR_PREFIX = re.compile(r"^(ERR )?Error running script \(call to f_[0-9a-f]+\): ")
UDECOR = re.compile(r"@?user_script:\d+: ?")
TABLE_ADDR = re.compile(r":? ?table: 0x[0-9a-f]+")


def norm_err(s):
    s = ERR_PREFIX.sub("", s)
    s = UDECOR.sub("", s)
    s = TABLE_ADDR.sub("", s)
    s = re.sub(r"script: [0-9a-f]{40}, on @user_script:\d+\.?", "", s)
    return s.strip()


def try_json(b):
    if isinstance(b, bytes):
        try:
            s = b.decode()
        except UnicodeDecodeError:
            return ("bytes", b)
        try:
            return ("json", json.loads(s))
        except ValueError:
            return ("str", s)
    return (type(b).__name__, b)


def sort_sets(v):
    """Sort 'dependents'/'dependencies' lists inside job objects (sets: order unspecified)."""
    if isinstance(v, dict):
        return {
            k: (
                sorted(x, key=str)
                if k in ("dependents", "dependencies") and isinstance(x, list)
                else sort_sets(x)
            )
            for k, x in v.items()
        }
    if isinstance(v, list):
        return [sort_sets(x) for x in v]
    return v


def norm_reply(r):
    kind, v = r
    if kind == "err":
        return ("err", norm_err(v))
    if isinstance(v, list):
        return ("list", [try_json(x) for x in v])
    k, x = try_json(v)
    return (k, sort_sets(x)) if k == "json" else (k, x)


def is_num(s):
    try:
        f = float(s)
    except (ValueError, TypeError):
        return False
    return not math.isnan(f)


def json_or_none(s):
    try:
        return ("j", json.loads(s))
    except ValueError:
        return None


def eq_text(a, b):
    """Compare two stored texts. Returns 'eq', 'numtext' or 'diff'."""
    if a == b:
        return "eq"
    if is_num(a) and is_num(b):
        return "numtext" if float(a) == float(b) else "diff"
    ja, jb = json_or_none(a), json_or_none(b)
    if ja is not None and jb is not None and ja == jb:
        return "eq"
    return "diff"


# Placeholders for signatures: names of the pools used by the generator.
NAME_SUBS = [
    (re.compile(r"(?<=Job )([a-f]|r[12]-\d+|r[12])(?=does|not)"), "<J>"),
    (
        re.compile(
            r"(?<=: )(waiting|scheduled|depends|running|stalled|failed|complete|recur|false)$"
        ),
        "<STATE>",
    ),
    (re.compile(r"\b(r[12])-\d+\b"), "<J>"),
    (re.compile(r"\b(r[12])\b"), "<R>"),
    (re.compile(r"^[a-f]$"), "<J>"),
    (re.compile(r"(?<=Cancel\(\): )[a-f]\b"), "<J>"),
    (re.compile(r"(?<=dependency of )[a-f]\b"), "<J>"),
    (re.compile(r"(?<=Job )[a-f]\b"), "<J>"),
    (re.compile(r"\bq[123]\b"), "<Q>"),
    (re.compile(r"\bw[12]\b"), "<W>"),
    (re.compile(r"\bt[123]\b"), "<T>"),
    (re.compile(r"\bg[12]\b"), "<G>"),
    (re.compile(r"failed-retries-<Q>"), "<G>"),
    (re.compile(r"\b1\d{9}(\.\d+)?\b"), "<TS>"),
    (re.compile(r"0x[0-9a-f]+"), "<ADDR>"),
]


def gen(s):
    for rx, rep in NAME_SUBS:
        s = rx.sub(rep, s)
    return s


KEY_RX = [
    (re.compile(r"^ql:j:(?:r[12]-\d+|[a-f])(-.*)?$"), lambda m: "ql:j:<J>" + (m.group(1) or "")),
    (re.compile(r"^ql:r:r[12]$"), lambda m: "ql:r:<R>"),
    (re.compile(r"^ql:q:q[123](-.*)$"), lambda m: "ql:q:<Q>" + m.group(1)),
    (re.compile(r"^ql:w:w[12]:jobs$"), lambda m: "ql:w:<W>:jobs"),
    (re.compile(r"^ql:t:t[123]$"), lambda m: "ql:t:<T>"),
    (re.compile(r"^ql:f:.*$"), lambda m: "ql:f:<G>"),
    (re.compile(r"^ql:s:(\w+):[-\d.e+]+:q[123]$"), lambda m: f"ql:s:{m.group(1)}:<DAY>:<Q>"),
]


def keypat(k):
    for rx, f in KEY_RX:
        m = rx.match(k)
        if m:
            return f(m)
    return k


def shape(v):
    """A coarse structural description of a JSON value for signatures."""
    if isinstance(v, dict):
        return "{" + ",".join(sorted(gen(str(k)) for k in v)) + "}"
    if isinstance(v, list):
        return "[%s]" % ("" if not v else shape(v[0]))
    return type(v).__name__


def json_diffs(a, b, path="", out=None):
    """Set of paths (names generalised) where two decoded JSON values differ."""
    if out is None:
        out = set()
    if type(a) is not type(b) and not (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    ):
        out.add(path + ":type")
        return out
    if isinstance(a, dict):
        for k in set(a) | set(b):
            if k not in a:
                out.add(path + "." + gen(str(k)) + ":extra-in-ours")
            elif k not in b:
                out.add(path + "." + gen(str(k)) + ":missing-in-ours")
            else:
                json_diffs(a[k], b[k], path + "." + gen(str(k)), out)
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            out.add(path + "[]:len")
        for x, y in zip(a, b, strict=False):
            json_diffs(x, y, path + "[]", out)
        return out
    if a != b:
        out.add(path + ":value")
    return out


def reply_diff(cmd, ra, rb):
    """Return a list of (signature, detail) for reply differences."""
    if ra == rb:
        return []
    if ra[0] == "err" or rb[0] == "err":
        if ra[0] == "err" and rb[0] == "err":
            return [(("reply", cmd, "errtext", gen(ra[1]), gen(rb[1])), None)]
        if ra[0] == "err":
            return [(("reply", cmd, "ref-error-only", gen(ra[1])), None)]
        return [(("reply", cmd, "ours-error-only", gen(rb[1])), None)]
    if ra[0] != rb[0]:
        return [(("reply", cmd, "kind", ra[0], rb[0]), None)]
    if ra[0] in ("json", "list"):
        return [(("reply", cmd, "json", d), None) for d in sorted(json_diffs(ra[1], rb[1]))]
    return [(("reply", cmd, "value", ra[0]), None)]


def ev_norm(ev):
    out = []
    for ch, data in ev:
        j = json_or_none(data)
        out.append((ch, j[1] if j else data))
    return out


def ev_diff(cmd, ea, eb):
    if ea == eb:
        return []
    chans_a = [
        gen(c) + ("/" + x["event"] if isinstance(x, dict) and "event" in x else "") for c, x in ea
    ]
    chans_b = [
        gen(c) + ("/" + x["event"] if isinstance(x, dict) and "event" in x else "") for c, x in eb
    ]
    if chans_a != chans_b:
        return [(("events", cmd, "channels", tuple(chans_a), tuple(chans_b)), None)]
    for (c, x), (_, y) in zip(ea, eb, strict=False):
        if x != y:
            ds = json_diffs(x, y) if isinstance(x, dict) and isinstance(y, dict) else {"value"}
            return [(("events", cmd, "payload", gen(c), d), None) for d in sorted(ds)]
    return []


def ks_diff(cmd, da, db):
    out = []
    for k in sorted(set(da) | set(db)):
        if k not in db:
            out.append((("keys", cmd, keypat(k), "missing-in-ours"), k))
            continue
        if k not in da:
            out.append((("keys", cmd, keypat(k), "extra-in-ours"), k))
            continue
        (ta, va), (tb, vb) = da[k], db[k]
        if ta != tb:
            out.append((("keys", cmd, keypat(k), "type"), k))
            continue
        if ta == "hash":
            ha = dict(zip(va[::2], va[1::2], strict=False))
            hb = dict(zip(vb[::2], vb[1::2], strict=False))
            for f in sorted(set(ha) | set(hb)):
                if f not in hb:
                    out.append((("keys", cmd, keypat(k), "field-missing-in-ours", f), k))
                elif f not in ha:
                    out.append((("keys", cmd, keypat(k), "field-extra-in-ours", f), k))
                else:
                    e = eq_text(ha[f], hb[f])
                    if e == "diff":
                        out.append((("keys", cmd, keypat(k), "field", f), k))
                    elif e == "numtext":
                        out.append((("numtext", cmd, keypat(k), f), k))
        elif ta == "zset":
            za = dict(zip(va[::2], va[1::2], strict=False))
            zb = dict(zip(vb[::2], vb[1::2], strict=False))
            if set(za) != set(zb):
                out.append((("keys", cmd, keypat(k), "members"), k))
            elif any(float(za[m]) != float(zb[m]) for m in za):
                out.append((("keys", cmd, keypat(k), "scores"), k))
        elif ta == "set":
            if set(va) != set(vb):
                out.append((("keys", cmd, keypat(k), "members"), k))
        elif ta == "list":
            if len(va) != len(vb):
                out.append((("keys", cmd, keypat(k), "list-len"), k))
            elif any(eq_text(x, y) == "diff" for x, y in zip(va, vb, strict=False)):
                out.append((("keys", cmd, keypat(k), "list-items"), k))
        else:
            if va != vb:
                out.append((("keys", cmd, keypat(k), "value"), k))
    return out


# ---------------------------------------------------------------- generator

JIDS = list("abcdef")
QUEUES = ["q1", "q2"]
WORKERS = ["w1", "w2"]
TAGS = ["t1", "t2", "t3"]
GROUPS = ["g1", "g2"]
RJIDS = ["r1", "r2"]


class Gen:
    def __init__(self, rnd, ref):
        self.R = rnd
        self.ref = ref  # Server used to look at state for "mostly valid" choices
        day = 1700006400  # a UTC midnight (1700006400 % 86400 == 0)
        self.now = day - self.R.uniform(0, 900) + self.R.choice([0, 0, 0.5, 0.123456])

    def adv(self):
        R = self.R
        x = R.random()
        if x < 0.45:
            d = R.uniform(0, 3)
        elif x < 0.75:
            d = R.uniform(3, 20)
        elif x < 0.93:
            d = R.uniform(20, 90)
        elif x < 0.985:
            d = R.uniform(90, 2000)
        else:
            d = R.uniform(20000, 90000)
        if R.random() < 0.05:
            d = 0
        self.now += d
        # keep a realistic number of digits (microseconds)
        self.now = round(self.now, R.choice([0, 3, 6, 6]))
        return self.now

    # helpers
    def jid(self):
        return self.R.choice(JIDS)

    def jidlist(self, lo=0, hi=3):
        return [self.jid() for _ in range(self.R.randint(lo, hi))]

    def tags(self):
        return json.dumps(
            self.R.sample(TAGS, self.R.randint(0, 2))
            + ([self.R.choice(TAGS)] if self.R.random() < 0.1 else [])
        )

    def num(self, lo, hi, frac=0.2):
        v = self.R.randint(lo, hi)
        if self.R.random() < frac:
            return str(v + self.R.choice([0.5, 0.25, 0.7]))
        return str(v)

    def data(self):
        return self.R.choice(["{}", '{"x":1}', '{"a":[1,2],"b":"s/t"}', '{"k":1.5}', "[]"])

    def running(self):
        """(jid, worker, queue) of a job the reference says is running, if any."""
        r = self.ref.r
        cands = []
        for j in [*JIDS, "r1-1", "r1-2", "r2-1"]:
            st, w, q = r.hmget("ql:j:" + j, "state", "worker", "queue")
            if st == b"running":
                cands.append((j, w.decode(), q.decode()))
        return self.R.choice(cands) if cands else None

    def job_ref(self):
        """(jid, worker, queue) biased to running jobs (exact owner most of the time)."""
        R = self.R
        rj = self.running() if R.random() < 0.8 else None
        if rj:
            j, w, q = rj
            if R.random() < 0.1:
                w = R.choice(WORKERS)
            if R.random() < 0.05:
                q = R.choice(QUEUES)
            return j, w, q
        return self.jid(), R.choice(WORKERS), R.choice(QUEUES)

    def put_opts(self, requeue=False):
        R = self.R
        o = []
        if R.random() < 0.3:
            o += ["priority", self.num(-2, 3)]
        if R.random() < 0.3:
            o += ["tags", self.tags()]
        if R.random() < 0.3:
            o += ["retries", str(R.randint(0, 3))]
        if R.random() < 0.25:
            o += ["depends", json.dumps(self.jidlist(0, 2))]
        if R.random() < 0.02:
            o += ["priority"]  # odd
        return o

    def command(self):
        R = self.R
        c = R.choices(
            [
                "put",
                "requeue",
                "pop",
                "peek",
                "heartbeat",
                "complete",
                "fail",
                "retry",
                "cancel",
                "depends",
                "priority",
                "timeout",
                "track",
                "tag",
                "log",
                "get",
                "multiget",
                "queues",
                "length",
                "jobs",
                "failed",
                "unfail",
                "pause",
                "unpause",
                "recur",
                "unrecur",
                "recur.get",
                "recur.update",
                "recur.tag",
                "recur.untag",
                "workers",
                "worker.deregister",
                "config.get",
                "config.set",
                "config.unset",
                "stats",
                "queue.forget",
            ],
            weights=[
                14,
                3,
                14,
                3,
                5,
                10,
                4,
                5,
                2,
                3,
                2,
                2,
                3,
                3,
                2,
                2,
                1,
                2,
                1,
                3,
                2,
                2,
                1,
                1,
                2,
                1,
                1,
                2,
                1,
                1,
                2,
                1,
                1,
                3,
                1,
                2,
                1,
            ],
        )[0]
        q = R.choice(QUEUES)
        w = R.choice(WORKERS)
        if c in ("put", "requeue"):
            delay = R.choice(["0", "0", "0", "0", self.num(1, 30, 0.5), "-1"])
            return [
                c,
                w,
                q,
                self.jid(),
                R.choice(["K", "K2"]),
                self.data(),
                delay,
                *self.put_opts(),
            ]
        if c == "pop":
            return [c, q, w, str(R.randint(1, 3))]
        if c == "peek":
            return [c, q, str(R.randint(1, 3))]
        if c == "heartbeat":
            j, w, _ = self.job_ref()
            return [c, j, w] + ([self.data()] if R.random() < 0.2 else [])
        if c == "complete":
            j, w, q = self.job_ref()
            o = []
            if R.random() < 0.35:
                o += ["next", R.choice(QUEUES)]
                if R.random() < 0.3:
                    o += ["delay", self.num(0, 30, 0.5)]
                if R.random() < 0.3:
                    o += ["depends", json.dumps(self.jidlist(0, 2))]
            elif R.random() < 0.03:
                o += [R.choice(["delay", "depends"]), R.choice(["5", '["a"]'])]
            return [c, j, w, q, self.data(), *o]
        if c == "fail":
            j, w, _ = self.job_ref()
            return [c, j, w, R.choice(GROUPS), "boom"] + ([self.data()] if R.random() < 0.2 else [])
        if c == "retry":
            j, w, q = self.job_ref()
            a = [c, j, q, w]
            x = R.random()
            if x < 0.5:
                a += [R.choice(["0", self.num(1, 20, 0.5)])]
                if R.random() < 0.3:
                    a += [R.choice(GROUPS)]
                    if R.random() < 0.6:
                        a += ["retry msg"]
            return a
        if c == "cancel":
            return [c, *self.jidlist(0, 3)]
        if c == "depends":
            if R.random() < 0.5:
                return [c, self.jid(), "on", *self.jidlist(1, 2)]
            if R.random() < 0.5:
                return [c, self.jid(), "off", "all"]
            return [c, self.jid(), "off", *self.jidlist(1, 2)]
        if c == "priority":
            return [c, self.jid(), self.num(-2, 5)]
        if c == "timeout":
            rj = self.running()
            js = [rj[0]] if rj and R.random() < 0.8 else self.jidlist(1, 2)
            return [c, *js]
        if c == "track":
            x = R.random()
            if x < 0.3:
                return [c]
            return [c, R.choice(["track", "track", "untrack", "TRACK"]), self.jid()]
        if c == "tag":
            x = R.random()
            if x < 0.35:
                return [c, "add", self.jid(), *R.sample(TAGS, R.randint(1, 2))]
            if x < 0.6:
                return [c, "remove", self.jid(), *R.sample(TAGS, R.randint(1, 2))]
            if x < 0.8:
                return [c, "get", R.choice(TAGS), *R.choice([[], ["0", "0"], ["1", "2"]])]
            return [c, "top", *R.choice([[], ["0", "10"], ["1", "1"]])]
        if c == "log":
            return [c, self.jid(), "msg"] + (
                [R.choice(['{"k":"v"}', '{"when":5}'])] if R.random() < 0.5 else []
            )
        if c == "get":
            return [c, self.jid()]
        if c == "multiget":
            return [c, *self.jidlist(0, 3)]
        if c == "queues":
            return [c] + ([q] if R.random() < 0.5 else [])
        if c == "length":
            return [c, q]
        if c == "jobs":
            st = R.choice(["complete", "running", "stalled", "scheduled", "depends", "recurring"])
            pg = R.choice([[], [], ["0", "0"], ["1", "2"], ["0", "1"]])
            if st == "complete":
                return [c, st, *pg]
            return [c, st, q, *pg]
        if c == "failed":
            x = R.random()
            if x < 0.4:
                return [c]
            return [
                c,
                R.choice([*GROUPS, "failed-retries-q1"]),
                *R.choice([[], ["0", "1"], ["1", "5"]]),
            ]
        if c == "unfail":
            return [
                c,
                q,
                R.choice([*GROUPS, "failed-retries-q1", "failed-retries-q2"]),
                *R.choice([[], ["1"], ["2"]]),
            ]
        if c in ("pause", "unpause"):
            return [c, q]
        if c == "recur":
            a = [
                c,
                q,
                R.choice(RJIDS),
                "K",
                self.data(),
                "interval",
                self.num(5, 60, 0.3),
                R.choice(["0", "0", self.num(-30, 30, 0.3)]),
            ]
            if R.random() < 0.3:
                a += ["priority", self.num(-1, 3)]
            if R.random() < 0.3:
                a += ["tags", self.tags()]
            if R.random() < 0.4:
                a += ["retries", str(R.randint(0, 2))]
            if R.random() < 0.3:
                a += ["backlog", str(R.randint(0, 3))]
            return a
        if c in ("unrecur", "recur.get"):
            return [c, R.choice(RJIDS)]
        if c == "recur.update":
            a = [c, R.choice(RJIDS)]
            for _ in range(R.randint(1, 2)):
                k = R.choice(
                    ["priority", "retries", "interval", "data", "klass", "queue", "backlog"]
                )
                v = {
                    "priority": self.num(-1, 3),
                    "retries": str(R.randint(0, 3)),
                    "interval": self.num(5, 50, 0.3),
                    "data": self.data(),
                    "klass": "K3",
                    "queue": R.choice(QUEUES),
                    "backlog": str(R.randint(0, 2)),
                }[k]
                a += [k, v]
            return a
        if c in ("recur.tag", "recur.untag"):
            return [c, R.choice(RJIDS)] + [R.choice(TAGS) for _ in range(R.randint(1, 2))]
        if c == "workers":
            return [c] + ([w] if R.random() < 0.5 else [])
        if c == "worker.deregister":
            return [c, w]
        if c == "config.get":
            return [c] + (
                [
                    R.choice(
                        [
                            "heartbeat",
                            "grace-period",
                            "jobs-history",
                            "application",
                            "q1-max-concurrency",
                        ]
                    )
                ]
                if R.random() < 0.6
                else []
            )
        if c == "config.set":
            k, v = R.choice(
                [
                    ("heartbeat", lambda: str(R.choice([5, 10, 30, 60]))),
                    ("grace-period", lambda: str(R.choice([0, 1, 5, 10]))),
                    ("max-job-history", lambda: str(R.choice([1, 2, 3, 4, 100]))),
                    ("jobs-history-count", lambda: str(R.choice([0, 1, 2, 3, 5]))),
                    ("jobs-history", lambda: str(R.choice([10, 100, 604800]))),
                    ("q1-max-concurrency", lambda: str(R.choice([0, 1, 2]))),
                    ("q2-max-concurrency", lambda: str(R.choice([0, 1, 2]))),
                    ("q1-heartbeat", lambda: str(R.choice([5, 20]))),
                    ("max-worker-age", lambda: str(R.choice([100, 1000, 86400]))),
                ]
            )
            return [c, k, v()]
        if c == "config.unset":
            return [
                c,
                R.choice(
                    [
                        "heartbeat",
                        "grace-period",
                        "max-job-history",
                        "jobs-history-count",
                        "q1-max-concurrency",
                        "q1-heartbeat",
                    ]
                ),
            ]
        if c == "stats":
            return [c, q, str(round(self.now - R.choice([0, 0, 86400]), 3))]
        if c == "queue.forget":
            return [c, q]
        raise AssertionError(c)


# ---------------------------------------------------------------- runner


def ref_args(srv, cmd):
    """Adapt a protocol call to the older reference's calling convention."""
    name, now, args = cmd[0], cmd[1], list(cmd[2:])
    if name == "put":
        return ("call", ["put", now, *args[1:]])
    if name == "requeue":
        if len(args) >= 3 and srv.r.exists("ql:j:" + args[2]):
            return ("call", ["put", now, *args[1:]])
        return ("fake", ("err", f"Requeue(): Job {args[2]} does not exist"))
    return ("call", [name, now, *args])


class Harness:
    def __init__(self, binary, ref_path, ours_path):
        self.ref = Server(binary, ref_path, "ref")
        self.ours = Server(binary, ours_path, "ours")

    def reset(self):
        self.ref.flush()
        self.ours.flush()

    def resync(self):
        """Make our keyspace a copy of the reference's."""
        self.ours.flush()
        r = self.ref.r
        for k in r.keys("*"):
            d = r.dump(k)
            if d is not None:
                self.ours.r.restore(k, 0, d, replace=True)

    def step(self, cmd):
        """Run cmd (a list: name, now, args...) on both; return (diffs, outputs)."""
        name = cmd[0]
        mode, x = ref_args(self.ref, cmd)
        ra = self.ref.call(x) if mode == "call" else x
        rb = self.ours.call(list(cmd))
        ea, eb = self.ref.events(), self.ours.events()
        da, db = self.ref.dump(), self.ours.dump()
        na, nb = norm_reply(ra), norm_reply(rb)
        diffs = reply_diff(name, na, nb)
        if any(d[0][2] in ("ref-error-only", "ours-error-only") for d in diffs):
            # one side refused the call, the other ran it: the event and keyspace
            # differences are consequences of the reply difference.
            pass
        else:
            diffs += ev_diff(name, ev_norm(ea), ev_norm(eb))
            diffs += ks_diff(name, da, db)
        return diffs, dict(
            ref_reply=ra, ours_reply=rb, ref_events=ea, ours_events=eb, ref_keys=da, ours_keys=db
        )

    def replay_has(self, cmds, target):
        """Replay cmds from an empty db; index of the first step showing `target`, else None."""
        self.reset()
        for i, cmd in enumerate(cmds):
            diffs, _ = self.step(cmd)
            sigs = {tup(jsonable(d[0])) for d in diffs}
            if target in sigs:
                return i
            if sigs:
                self.resync()
        return None

    def shrink(self, cmds, target, budget=300):
        """Drop commands (chunks, then single ones) while `target` still shows."""
        cur = list(cmds)
        idx = self.replay_has(cur, target)
        if idx is None:
            return cur, 1
        cur = cur[: idx + 1]
        tries = 1
        chunk = max(1, len(cur) // 2)
        while tries < budget:
            progressed = False
            i = 0
            while i < len(cur) and tries < budget and len(cur) > 1:
                cand = cur[:i] + cur[i + chunk :]
                if not cand:
                    i += chunk
                    continue
                tries += 1
                idx = self.replay_has(cand, target)
                if idx is not None:
                    cur = cand[: idx + 1]
                    progressed = True
                else:
                    i += chunk
            if chunk == 1 and not progressed:
                break
            chunk = max(1, chunk // 2) if not progressed else max(1, min(chunk, len(cur) // 2))
        return cur, tries

    def stop(self):
        self.ref.stop()
        self.ours.stop()


def sig_str(sig):
    return " | ".join(str(s) for s in sig)


def describe(h, cmds):
    """Replay and capture full outputs of every step (for the report)."""
    h.reset()
    steps = []
    for cmd in cmds:
        diffs, out = h.step(cmd)
        steps.append((cmd, diffs, out))
        if diffs:
            h.resync()
    return steps


def tup(o):
    if isinstance(o, (list, tuple)):
        return tuple(tup(x) for x in o)
    return o


def jsonable(o):
    if isinstance(o, bytes):
        return o.decode("utf-8", "replace")
    if isinstance(o, (list, tuple)):
        return [jsonable(x) for x in o]
    if isinstance(o, dict):
        return {str(k): jsonable(v) for k, v in o.items()}
    return o


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1, help="first sequence seed")
    ap.add_argument("--runs", type=int, default=200, help="number of sequences")
    ap.add_argument("--length", type=int, default=40, help="commands per sequence")
    ap.add_argument("--ref", required=True, help="reference qless-core qless.lua")
    ap.add_argument("--ours", default=OURS_DEFAULT, help="our built qless.lua")
    ap.add_argument("--redis-binary", default="redis-server", help="redis-server <= 6.2.6")
    ap.add_argument("--out", default="diff_classes.jsonl", help="JSON-lines file of classes found")
    ap.add_argument(
        "--known", default=None, help="JSON-lines file of already known classes to suppress"
    )
    ap.add_argument(
        "--ignore-numtext", action="store_true", help="do not report number-text-only differences"
    )
    args = ap.parse_args()

    h = Harness(args.redis_binary, args.ref, args.ours)
    # make SIGTERM run the cleanup below (stops both redis-server processes)
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    known = {}
    if args.known and os.path.exists(args.known):
        with open(args.known) as f:
            for line in f:
                rec = json.loads(line)
                known[tup(rec["sig"])] = rec
                for c in rec.get("diffs_at_last", []):
                    known.setdefault(tup(c), rec)
    counts = {}
    classes = []
    out = open(args.out, "a")  # noqa: SIM115 - appended to for the whole run
    t0 = time.time()
    steps_total = 0
    try:
        for seed in range(args.seed, args.seed + args.runs):
            rnd = random.Random(seed)
            h.reset()
            g = Gen(rnd, h.ref)
            cmds = []
            for _ in range(args.length):
                now = g.adv()
                c = g.command()
                cmd = [c[0], repr(now) if now != int(now) else str(int(now)), *c[1:]]
                cmds.append(cmd)
                diffs, _outp = h.step(cmd)
                steps_total += 1
                if not diffs:
                    continue
                new = []
                for sig, _k in diffs:
                    sig = tup(jsonable(sig))
                    counts[sig] = counts.get(sig, 0) + 1
                    if args.ignore_numtext and sig[0] == "numtext":
                        continue
                    if sig not in known and sig not in new:
                        new.append(sig)
                order = {"reply": 0, "events": 1, "keys": 2, "numtext": 3}
                new.sort(key=lambda s: order.get(s[0], 9))
                handled = False
                while new:
                    sig = new.pop(0)
                    if sig in known:
                        continue
                    handled = True
                    print(f"seed {seed} step {len(cmds)}: NEW {sig_str(sig)}", flush=True)
                    mini, tries = h.shrink(cmds, sig)
                    steps = describe(h, mini)
                    last = steps[-1]
                    covered = [tup(jsonable(d[0])) for d in last[1]]
                    rec = dict(
                        id=len(classes) + 1,
                        sig=list(sig),
                        seed=seed,
                        step=len(cmds),
                        repro=mini,
                        shrink_tries=tries,
                        diffs_at_last=[list(c) for c in covered],
                        ref_reply=jsonable(last[2]["ref_reply"]),
                        ours_reply=jsonable(last[2]["ours_reply"]),
                        ref_events=jsonable(last[2]["ref_events"]),
                        ours_events=jsonable(last[2]["ours_events"]),
                        keydiff={
                            k: [
                                jsonable(last[2]["ref_keys"].get(k)),
                                jsonable(last[2]["ours_keys"].get(k)),
                            ]
                            for k in {d[1] for d in last[1] if d[1]}
                        },
                    )
                    classes.append(rec)
                    known[sig] = rec
                    for c in covered:
                        known.setdefault(c, rec)
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
                    print(
                        f"   repro ({len(mini)} cmds, {tries} tries): {json.dumps(mini)}",
                        flush=True,
                    )
                if handled:
                    # restore the sequence's state: replay the prefix
                    h.reset()
                    for c2 in cmds:
                        d2, _ = h.step(c2)
                        if d2:
                            h.resync()
                h.resync()
            if (seed - args.seed) % 50 == 0:
                print(
                    f"seed {seed} done, {steps_total} steps, {time.time() - t0:.0f}s, "
                    f"{len(known)} classes",
                    flush=True,
                )
    finally:
        h.stop()
        out.close()
    print("\nclass counts:")
    for sig, n in sorted(counts.items(), key=lambda x: -x[1]):
        print(f"{n:6d}  {sig_str(sig)}")


if __name__ == "__main__":
    main()
