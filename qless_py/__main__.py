"""``python -m qless_py`` runs the ``qless-py`` command."""

from qless_py.cli import main

main()
