"""``qless-py worker``: placeholder until the worker lands."""
