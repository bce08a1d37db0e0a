"""The one timer of the benchmark scripts: the best of a few runs of a call (the least disturbed by
other work on a shared machine). Every table that uses it also prints the load average."""

from __future__ import annotations

import os
import time

__all__ = ["best_time", "load_average"]


def best_time(fn, repeat: int = 3) -> float:
    """The smallest wall-clock time, in seconds, of ``repeat`` calls of ``fn()``."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def load_average() -> str:
    """The 1, 5 and 15-minute load averages as ``"0.4 / 0.6 / 0.8"``, printed beside every table."""
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())
