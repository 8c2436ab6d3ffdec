"""A documented import path (``qless_py.config.check_setting``; see docs/client.md), kept
for users: the sync client's config lives in :mod:`qless_py.client.config`."""

from qless_py.client.config import Config, check_setting

__all__ = ["Config", "check_setting"]
