"""The dashboard's actions: each checks its fields, acts through the client, and says what
it did and which page shows the result.

Every action is a POST under ``/api/`` and reaches this module only through the gate in
``security.py`` (same origin, CSRF token, not read-only). Bad input raises ``ValueError``
(a 400) before anything is written; a job, queue or template that does not exist raises
``Missing`` (a 404); what the core refuses comes back as its ``QlessError`` (a 409).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

from qless_py import Client, Job, RecurringJob
from qless_py.client.config import KNOWN_KEYS, check_setting, describe
from qless_py.failures import retry_job
from qless_py.web.data import Missing

Form = dict[str, str]


@dataclass(frozen=True)
class Done:
    """What an action did, in one line, and the app path of the page that shows it."""

    message: str
    then: str
    result: object = None


def path(*parts: str) -> str:
    """An app path with every part quoted (names may hold ``/``, ``?`` or anything)."""
    return "/" + "/".join(quote(part, safe="") for part in parts)


def _job(client: Client, jid: str) -> Job:
    found = client.jobs[jid]
    if isinstance(found, RecurringJob):
        raise ValueError(f"{jid} is a recurring job, not a job")
    if found is None:
        raise Missing(f"no such job: {jid}")
    return found


def _template(client: Client, jid: str) -> RecurringJob:
    found = client.jobs[jid]
    if not isinstance(found, RecurringJob):
        raise Missing(f"no such recurring job: {jid}")
    return found


def _field(form: Form, name: str) -> str:
    value = form.get(name, "").strip()
    if not value:
        raise ValueError(f"{name} is required")
    return value


def _number(form: Form, name: str, *, whole: bool = False, minimum: float | None = None,
            above: float | None = None) -> float:
    text = _field(form, name)
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, not {text!r}")
    if whole and not value.is_integer():
        raise ValueError(f"{name} must be a whole number, not {text!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum:g}, not {text!r}")
    if above is not None and value <= above:
        raise ValueError(f"{name} must be greater than {above:g}, not {text!r}")
    return value


def _tags(form: Form) -> list[str]:
    tags = [t for t in re.split(r"[,\s]+", form.get("tags", "")) if t]
    if not tags:
        raise ValueError("tags is required (separate several with commas or spaces)")
    return tags


def retry(client: Client, form: Form, jid: str) -> Done:
    found = _job(client, jid)
    retry_job(found)
    return Done(f"{jid} put back into {found.queue_name}", path("jobs", jid))


def cancel(client: Client, form: Form, jid: str) -> Done:
    found = _job(client, jid)
    found.cancel()
    return Done(f"canceled {jid}", path("queues", found.queue_name) if found.queue_name else "/")


def move(client: Client, form: Form, jid: str) -> Done:
    queue = _field(form, "queue")
    _job(client, jid).move(queue)
    return Done(f"{jid} moved to {queue}", path("jobs", jid))


def priority(client: Client, form: Form, jid: str) -> Done:
    value = _number(form, "priority", whole=True)
    _job(client, jid).priority = int(value)
    return Done(f"{jid} priority {int(value)}", path("jobs", jid))


def track(client: Client, form: Form, jid: str) -> Done:
    _job(client, jid).track()
    return Done(f"{jid} tracked", path("jobs", jid))


def untrack(client: Client, form: Form, jid: str) -> Done:
    _job(client, jid).untrack()
    return Done(f"{jid} untracked", path("jobs", jid))


def tag(client: Client, form: Form, jid: str) -> Done:
    tags = _tags(form)
    result = _job(client, jid).tag(*tags)
    return Done(f"{jid} tagged {', '.join(tags)}", path("jobs", jid), result)


def untag(client: Client, form: Form, jid: str) -> Done:
    tags = _tags(form)
    result = _job(client, jid).untag(*tags)
    return Done(f"{jid} untagged {', '.join(tags)}", path("jobs", jid), result)


def timeout(client: Client, form: Form, jid: str) -> Done:
    found = _job(client, jid)
    if found.state != "running":
        raise ValueError(f"job {jid} is not running (state: {found.state})")
    found.timeout()
    return Done(f"{jid} timed out", path("jobs", jid))


def undepend(client: Client, form: Form, jid: str) -> Done:
    found = _job(client, jid)
    if form.get("all") == "yes":
        found.undepend(all=True)
        return Done(f"{jid} depends on nothing now", path("jobs", jid))
    dependency = _field(form, "dependency")
    if dependency not in found.dependencies:
        raise ValueError(f"{jid} does not depend on {dependency}")
    found.undepend(dependency)
    return Done(f"{jid} no longer depends on {dependency}", path("jobs", jid))


def _known_queue(client: Client, queue: str) -> None:
    if queue not in client.queues.names():
        raise Missing(f"no such queue: {queue}")


def pause(client: Client, form: Form, queue: str) -> Done:
    _known_queue(client, queue)
    client.queues[queue].pause()
    return Done(f"paused {queue}", path("queues", queue))


def unpause(client: Client, form: Form, queue: str) -> Done:
    _known_queue(client, queue)
    client.queues[queue].unpause()
    return Done(f"unpaused {queue}", path("queues", queue))


def _confirmed(client: Client, form: Form, group: str) -> None:
    if form.get("confirm") != "yes":
        raise ValueError("confirm=yes is required to act on a whole failure group")
    if client.jobs.failed().get(group, 0) == 0:
        raise Missing(f"no failed jobs in group {group}")


def _group_done(verb: str, group: str, done: int, refused: int, errors: list[str]) -> str:
    text = f"{verb} {done} job{'s' if done != 1 else ''} of {group}"
    if refused:
        text += f"; {refused} refused ({errors[0]})"
    return text


def retry_group(client: Client, form: Form, group: str, batch: int = 100) -> Done:
    _confirmed(client, form, group)
    result = client.jobs.retry_group(group, batch)
    message = _group_done("put back", group, result.done, result.refused, result.errors)
    return Done(message, "/failed", {"done": result.done, "refused": result.refused})


def cancel_group(client: Client, form: Form, group: str, batch: int = 100) -> Done:
    _confirmed(client, form, group)
    result = client.jobs.cancel_group(group, batch)
    message = _group_done("canceled", group, result.done, result.refused, result.errors)
    return Done(message, "/failed", {"done": result.done, "refused": result.refused})


def update_recurring(client: Client, form: Form, jid: str) -> Done:
    """Change any of interval, priority and retries (empty fields stay as they are)."""
    template = _template(client, jid)
    changes: dict[str, float] = {}
    if form.get("interval", "").strip():
        changes["interval"] = _number(form, "interval", above=0)
    if form.get("priority", "").strip():
        changes["priority"] = _number(form, "priority", whole=True)
    if form.get("retries", "").strip():
        changes["retries"] = _number(form, "retries", whole=True, minimum=0)
    if not changes:
        raise ValueError("give at least one of interval, priority and retries")
    if "interval" in changes:
        template.interval = changes["interval"]
    if "priority" in changes:
        template.priority = int(changes["priority"])
    if "retries" in changes:
        template.retries = int(changes["retries"])
    shown = ", ".join(f"{k} {v:g}" for k, v in changes.items())
    return Done(f"{jid}: {shown}", path("recurring", jid))


def cancel_recurring(client: Client, form: Form, jid: str) -> Done:
    _template(client, jid).cancel()
    return Done(f"{jid} no longer recurs", "/recurring")


def set_config(client: Client, form: Form) -> Done:
    """Set a key; one qless_py does not know needs ``force=yes`` (as ``config set``)."""
    key = _field(form, "key")
    value = form.get("value", "").strip()
    if not value:
        raise ValueError("value is required")
    if describe(key) is None and form.get("force") != "yes":
        raise ValueError(f"unknown config key {key!r}: known are {', '.join(sorted(KNOWN_KEYS))}"
                         " and <queue>-heartbeat, <queue>-max-concurrency (force=yes sets it "
                         "anyway)")
    client.config[key] = check_setting(key, value)
    return Done(f"{key} = {value}", "/config")


def unset_config(client: Client, form: Form) -> Done:
    key = _field(form, "key")
    del client.config[key]
    return Done(f"{key} unset", "/config")


Action = Callable[..., Done]

JOB_ACTIONS: dict[str, Action] = {
    "retry": retry, "cancel": cancel, "move": move, "priority": priority, "track": track,
    "untrack": untrack, "tag": tag, "untag": untag, "timeout": timeout, "undepend": undepend,
}
QUEUE_ACTIONS: dict[str, Action] = {"pause": pause, "unpause": unpause}
GROUP_ACTIONS: dict[str, Action] = {"retry": retry_group, "cancel": cancel_group}
RECURRING_ACTIONS: dict[str, Action] = {"update": update_recurring, "cancel": cancel_recurring}
CONFIG_ACTIONS: dict[str, Action] = {"set": set_config, "unset": unset_config}
