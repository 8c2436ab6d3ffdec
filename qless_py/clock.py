"""The one place qless_py reads the wall clock.

Every ``now`` sent to the core comes from :func:`now`, so tests drive all timing (leases,
schedules, retries) with freezegun instead of sleeping.
"""

from __future__ import annotations

import time


def now() -> float:
    """Seconds since the Unix epoch, as a float."""
    return time.time()
