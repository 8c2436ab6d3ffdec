"""A documented import path (``qless_py.endpoint.Endpoint``, the type of
``client.settings``; see docs/client.md), kept for users: it lives in
:mod:`qless_py.connect.endpoint`."""

from qless_py.connect.endpoint import Endpoint

__all__ = ["Endpoint"]
