"""The web handler of docs/asyncio.md, run as written (FastAPI's decorators stood in for:
the handler is a plain coroutine function)."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "asyncio.md"


def _handler_code() -> str:
    section = DOC.read_text().split("## In a web handler", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None
    return match.group(1)


class _FastAPI:
    """What the example uses of FastAPI: the lifespan argument and the route decorator."""

    def __init__(self, lifespan: Any = None) -> None:
        self.lifespan = lifespan
        self.routes: dict[str, Any] = {}

    def post(self, path: str) -> Any:
        def register(handler: Any) -> Any:
            self.routes[path] = handler
            return handler

        return register


@pytest.mark.asyncio
async def test_the_handler_puts_a_job(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fastapi = types.ModuleType("fastapi")
    monkeypatch.setattr(fastapi, "FastAPI", _FastAPI, raising=False)
    monkeypatch.setitem(sys.modules, "fastapi", fastapi)
    code = _handler_code().replace('"redis://127.0.0.1:6379/0"', repr(server_url))
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code, str(DOC), "exec"), namespace)
    app, client = namespace["app"], namespace["client"]
    assert set(app.routes) == {"/invoices/{customer}"}
    async with app.lifespan(app):
        reply = await app.routes["/invoices/{customer}"](42)
        job = await client.jobs[reply["jid"]]
        assert job is not None and job.queue_name == "invoices"
        assert job.data == {"customer": 42} and job.priority == 5 and job.tags == ["web"]
