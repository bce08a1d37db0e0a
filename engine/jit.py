"""How the engine compiles its kernels: three decorators, one convention.

A kernel is a function over NumPy arrays and numbers that numba compiles. Every kernel is decorated
with one of the three below (never with ``numba.njit`` directly), so the compiler's options are
chosen in one place:

- :func:`kernel` -- compiled on its first call and cached on disk (``cache=True``): an entry point
  called from Python, or a function called by other kernels;
- :func:`inline_kernel` -- compiled into each kernel that calls it (``inline="always"``): the steps
  of a hot walk. A call between numba functions passes every array as about seven scalars, and
  LLVM will not inline a callee taking many arrays; inlining the online model's steps made an
  update at 10^6 vertices 1.1-1.3 µs faster. Large walkers stay calls: inlined into every entry
  point they made the first compilation 80 s instead of 23 s for about 0.1 µs;
- :func:`threaded_kernel` -- an entry point that releases the interpreter lock (``nogil=True``)
  because worker threads run it at once (RTA's cross-validation folds).

A module loaded a second time as plain Python (its name ends in ``_pure``, see
``engine.inference._extended.load_pure``: the reference build of the online model) gets its
functions back undecorated.

Where kernels live: in ``_kernels.py`` of the subpackage whose algorithm calls them
(``_<topic>_kernels.py`` when the subpackage has several families, as ``engine.inference`` has),
imported by the algorithm's module; they take arrays, numbers and named layouts (NamedTuples,
column constants), never engine objects. numba's own extensions (intrinsics) live in
``engine/inference/_extended.py``. ``docs/contributing.md`` says the same for contributors.
"""

from __future__ import annotations

from collections.abc import Callable

from numba import njit

__all__ = ["inline_kernel", "kernel", "threaded_kernel"]


def _compiled(f: Callable, **options) -> Callable:
    if f.__module__.endswith("_pure"):
        return f
    return njit(cache=True, **options)(f)


def kernel(f: Callable) -> Callable:
    """A compiled, disk-cached kernel."""
    return _compiled(f)


def inline_kernel(f: Callable) -> Callable:
    """A kernel compiled into each kernel that calls it."""
    return _compiled(f, inline="always")


def threaded_kernel(f: Callable) -> Callable:
    """A kernel that releases the interpreter lock while it runs (called from worker threads)."""
    return _compiled(f, nogil=True)
