"""The web dashboard and the ``/metrics`` endpoint (``qless-py web``); see docs/web.md.

``create_app(client)`` makes the ASGI application, which the command serves with uvicorn
and which any ASGI application can mount. Nothing of it is imported by the worker.
"""

from qless_py.web.app import create_app
from qless_py.web.security import BasicAuth, redact_url

__all__ = ["BasicAuth", "create_app", "redact_url"]
