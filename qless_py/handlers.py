"""A job's handler: its class, imported by dotted name, and the method that runs it.

The handler is the class's static method named after the job's queue, else its
``process``. ``Job.process()`` and the worker both find handlers here, so a job whose
handler cannot be found fails the same way under both, into:

* ``<queue>-ImportError`` when the class's module cannot be imported (``ModuleNotFoundError``
  included) or the name has no dot;
* ``<queue>-<ExceptionName>`` when importing raised anything else (``AttributeError``: the
  module has no such class; an exception raised by the module's own code);
* ``<queue>-method-missing`` when the class has neither method.

The message names the class; an import failure's carries the traceback too. Classes are
imported once per process; ``forget`` drops one, so that the next job imports it again.
"""

from __future__ import annotations

import importlib
import traceback
from collections.abc import Callable
from typing import Any

Handler = Callable[[Any], Any]

_classes: dict[str, Any] = {}


class HandlerError(Exception):
    """No handler could be found; ``group_suffix`` ends the failure group's name."""

    def __init__(self, group_suffix: str, message: str) -> None:
        super().__init__(message)
        self.group_suffix = group_suffix


def import_class(dotted: str) -> Any:
    """The class named ``package.module.Class`` (ImportError / AttributeError propagate)."""
    found = _classes.get(dotted)
    if found is None:
        module_name, _, attr = dotted.rpartition(".")
        if not module_name:
            raise ImportError(f"{dotted!r} is not a dotted 'module.Class' name")
        found = getattr(importlib.import_module(module_name), attr)
        _classes[dotted] = found
    return found


def forget(dotted: str) -> None:
    """Import ``dotted`` afresh the next time a job needs it."""
    _classes.pop(dotted, None)


def find_handler(klass_name: str, queue_name: str) -> Handler:
    """The handler of a job of class ``klass_name`` in queue ``queue_name``.

    Raises HandlerError (see the module's docstring for its groups and messages)."""
    try:
        klass = import_class(klass_name)
    except Exception as exc:
        kind = "ImportError" if isinstance(exc, ImportError) else type(exc).__name__
        raise HandlerError(kind, f"Failed to import {klass_name}: {exc}\n"
                                 f"{traceback.format_exc()}") from exc
    handler = getattr(klass, queue_name, None)
    if not callable(handler):
        handler = getattr(klass, "process", None)
    if not callable(handler):
        raise HandlerError("method-missing",
                           f'{klass_name} is missing a method "{queue_name}" or "process"')
    return handler  # type: ignore[no-any-return]
