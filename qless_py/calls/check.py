"""Checking and repairing the data without the sending: one bounded step of a check
(``qlpy.check``), the repair of one finding (``qlpy.repair``), the whole walk as
:data:`~qless_py.calls.base.Steps`, and the last finished check's summary.
``Client.check`` and ``AsyncClient.check`` drive them.

A check token is the core's state of a walk, base64url-encoded so that it can be passed on
a command line (``qless-py check --resume TOKEN``).
"""

from __future__ import annotations

import binascii
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from qless_py import keys
from qless_py.calls.base import Call, Steps
from qless_py.errors import QlessError
from qless_py.keys import Keys

DEFAULT_BUDGET: int | None = None
"""The most server calls a step makes (a job's hash costs about four, most other keys and
the members of sets one or two); None leaves it to the core: 40 on Valkey and Redis 8,
whose steps also end after 0.3 ms of the server's CPU, and 25 on Redis 6.2 and 7, where
the count alone bounds a step (docs/performance.md, "Check and memory per job")."""


class CheckTokenError(QlessError, ValueError):
    """A ``--resume`` token that no check step wrote."""


@dataclass(frozen=True)
class Finding:
    """One broken invariant: ``key`` is the key it is about (a job's hash for the job's
    own invariants), ``member`` the member, set or dependency concerned ('' if none),
    ``repair`` what :meth:`Client.check` with ``repair=True`` does ('' : left alone)."""

    invariant: str
    key: str
    member: str
    detail: str
    repair: str

    @classmethod
    def from_core(cls, raw: list[Any]) -> Finding:
        return cls(*(str(item) for item in raw[:5]))

    @property
    def jid(self) -> str | None:
        """The job concerned, when the finding is about a job's own invariants."""
        return Keys(keys.namespace_of(self.key)).job_of(self.key)

    def as_dict(self) -> dict[str, str]:
        return {"invariant": self.invariant, "key": self.key, "member": self.member,
                "detail": self.detail, "repair": self.repair}


@dataclass(frozen=True)
class CheckStep:
    """What one ``qlpy.check`` step found: its findings, the token of the next step ('' once
    the check is done), keys seen and findings by invariant so far."""

    findings: list[Finding]
    token: str
    keys: int
    counts: dict[str, int]


@dataclass
class CheckReport:
    """A check's result: every finding, how many were repaired, keys seen, and ``token``
    to resume it ('' when it ran to the end)."""

    findings: list[Finding] = field(default_factory=list)
    repaired: int = 0
    keys: int = 0
    token: str = ""

    @property
    def counts(self) -> dict[str, int]:
        """Findings by invariant."""
        out: dict[str, int] = {}
        for finding in self.findings:
            out[finding.invariant] = out.get(finding.invariant, 0) + 1
        return out

    @property
    def clean(self) -> bool:
        return not self.findings and not self.token


def encode_token(raw: str) -> str:
    import base64  # only a check needs it: a worker never imports it (test_resp.py)

    return "" if raw == "0" else base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_token(token: str) -> str:
    """The core's token from a printed one ('' or None: start a new check)."""
    if not token:
        return "0"
    try:
        import base64

        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        json.loads(raw)
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise CheckTokenError(f"not a check token: {token[:40]!r}") from exc
    return raw


def _step(reply: Any) -> CheckStep:
    raw = json.loads(reply)
    found = raw.get("findings")
    counts = raw.get("counts")
    return CheckStep(
        findings=[Finding.from_core(f) for f in found] if isinstance(found, list) else [],
        token=encode_token(str(raw.get("token", "0"))),
        keys=int(raw.get("keys", 0)),
        counts={str(k): int(v) for k, v in counts.items()} if isinstance(counts, dict) else {})


def check_call(token: str, budget: int | None = DEFAULT_BUDGET) -> Call[CheckStep]:
    """One bounded step of a check from ``token`` ('' starts one)."""
    if budget is None:
        return ("qlpy.check", (decode_token(token),), _step)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"budget must be a whole number above 0, got {budget!r}")
    return ("qlpy.check", (decode_token(token), budget), _step)


def repair_call(finding: Finding) -> Call[bool]:
    """Check ``finding`` again and fix it when it still stands; True when repaired."""
    args = (finding.key, finding.invariant, finding.member) if finding.member else (
        finding.key, finding.invariant)
    return ("qlpy.repair", args, lambda reply: int(reply) == 1)


Progress = Callable[[CheckStep], None]


def check_steps(repair: bool = False, resume: str = "", budget: int | None = DEFAULT_BUDGET,
                progress: Progress | None = None, steps: int | None = None) -> Steps[CheckReport]:
    """A whole check (or ``steps`` steps of it, then ``report.token`` resumes it),
    repairing each finding at once when ``repair``; ``progress`` is told of every step."""
    report = CheckReport(token=resume)
    done = 0
    while True:
        step: CheckStep = yield check_call(report.token, budget)
        report.findings += step.findings
        report.keys, report.token = step.keys, step.token
        if repair:
            for finding in step.findings:
                if finding.repair and (yield repair_call(finding)):
                    report.repaired += 1
        if progress is not None:
            progress(step)
        done += 1
        if not report.token or (steps is not None and done >= steps):
            return report


@dataclass(frozen=True)
class CheckSummary:
    """The last finished check: when it started and finished, keys seen, findings by
    invariant."""

    started: float
    finished: float
    keys: int
    counts: dict[str, int]


def summary_from_hash(raw: Mapping[Any, Any]) -> CheckSummary | None:
    """The summary hash (``keys.CHECK_SUMMARY``) as read with HGETALL."""
    if not raw:
        return None
    text = {(k.decode() if isinstance(k, bytes) else str(k)):
            (v.decode() if isinstance(v, bytes) else str(v)) for k, v in raw.items()}
    try:
        counts = json.loads(text.get("findings", "{}"))
        return CheckSummary(started=float(text.get("started", 0)),
                            finished=float(text.get("finished", 0)),
                            keys=int(float(text.get("keys", 0))),
                            counts={str(k): int(v) for k, v in counts.items()}
                            if isinstance(counts, dict) else {})
    except ValueError:
        return None
