"""A job module whose import raises (test_worker: a handler that cannot be imported)."""

raise RuntimeError("this module cannot be imported")
