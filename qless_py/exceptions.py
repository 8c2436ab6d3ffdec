"""qless-py's exception names, for code written against the old client."""

from qless_py.errors import LockLostError, QlessError

QlessException = QlessError
LostLockException = LockLostError

__all__ = ["LostLockException", "QlessException"]
