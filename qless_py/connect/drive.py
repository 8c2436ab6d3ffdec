"""The one driver of the generators that do no I/O themselves: a Sentinel search, a core
call's recovery, a batch, an operation of several calls. Each yields what to send; the
driver has it performed and sends back the answer, or throws the ``RespError`` in.

One coroutine serves blocking and asyncio code alike: an asyncio caller awaits it, and a
blocking caller, whose ``perform`` never waits, runs it to its end with :func:`at_once`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any, TypeVar

from qless_py.connect.wire import RespError

T = TypeVar("T")


async def drive(steps: Generator[Any, Any, T], perform: Callable[[Any], Awaitable[Any]]) -> T:
    """Run ``steps`` to its end: ``perform`` each item it yields and send back the result.
    A RespError is thrown into ``steps``; any other error is raised out."""
    try:
        item = next(steps)
        while True:
            try:
                result = await perform(item)
            except RespError as exc:
                item = steps.throw(exc)
            else:
                item = steps.send(result)
    except StopIteration as done:
        value: T = done.value
        return value


def at_once(coroutine: Coroutine[Any, Any, T]) -> T:
    """The value of a coroutine that never waits (no event loop needed)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        value: T = done.value
        return value
    coroutine.close()
    raise RuntimeError("a blocking caller's perform waited for an event loop")
