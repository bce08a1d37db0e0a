"""What a run worker has imported (a module that imports nothing of the engine or of the tests:
unpickling a function of it in a worker imports nothing more)."""

import sys


def imported(names: list[str]) -> list[str]:
    """The names of ``names`` already in ``sys.modules``."""
    return [n for n in names if n in sys.modules]
