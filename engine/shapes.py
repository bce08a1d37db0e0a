"""Named dimensions of the array fields of the engine's frozen dataclasses.

A result or data class often says how large it is through the shape of one of its arrays
(``n_samples`` is the number of rows of ``X``). :func:`dimension` declares such a property in one
line instead of four, so every one of them reads, and is computed, the same way.

>>> from dataclasses import dataclass
>>> import numpy as np
>>> @dataclass(frozen=True)
... class Sample:
...     X: np.ndarray
...     n_samples = dimension("X", 0, "Number of samples (rows of X).")
...     n_vars = dimension("X", 1, "Number of variables (columns of X).")
>>> s = Sample(np.zeros((5, 3)))
>>> s.n_samples, s.n_vars
(5, 3)
"""

from __future__ import annotations

__all__ = ["dimension"]


def dimension(field: str, axis: int, doc: str = "") -> property:
    """A read-only ``int`` property: the length of axis ``axis`` of the array attribute ``field``."""
    def get(self) -> int:
        return int(getattr(self, field).shape[axis])

    return property(get, doc=doc or f"Length of axis {axis} of ``{field}``.")
