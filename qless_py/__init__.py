"""qless_py: a qless-compatible job engine for Python on current Redis and Valkey."""

__version__ = "0.1.0"
