"""The package logger: every qless_py logger ("qless_py.worker", "qless_py.events", ...)
is a child of it, so one ``logger.setLevel(...)`` quiets or opens them all."""

from __future__ import annotations

import logging

logger = logging.getLogger("qless_py")
