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

A module loaded a second time as plain Python (its name ends in ``_pure``, see :func:`load_pure`:
the reference build of the online model) gets its functions back undecorated. That build is also
the stand-in while the compiled one is not there yet: a server that compiles a module's kernels in
other processes calls :func:`defer` with its name, its callers take :func:`build` of the module
(the plain-Python build until :func:`release`, the compiled one after), and nobody waits for a
compile, the way numba and JAX users compile in the background and serve a slower path meanwhile.
Both builds run the very same source on the same arrays, so a caller may change builds between
two calls and its answers agree within rounding (the tests compare the two at relative 1e-12).

Where kernels live: in ``_kernels.py`` of the subpackage whose algorithm calls them
(``_<topic>_kernels.py`` when the subpackage has several families, as ``engine.inference`` has),
imported by the algorithm's module; they take arrays, numbers and named layouts (NamedTuples,
column constants), never engine objects. numba's own extensions (intrinsics) live in
``engine/inference/_extended.py``. ``docs/contributing.md`` says the same for contributors.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Callable
from types import ModuleType

from numba import njit

__all__ = ["inline_kernel", "kernel", "threaded_kernel", "load_pure", "defer", "release", "deferred", "build"]

_LOCK = threading.RLock()
#: kernel modules (import names) whose compiled kernels are being prepared elsewhere (see defer)
_DEFERRED: set[str] = set()


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


def load_pure(name: str, path: str) -> ModuleType:
    """The module at ``path`` loaded again (once) as ``name + "_pure"``: its kernels undecorated, so
    they run as plain Python on NumPy arrays (the reference build)."""
    name = name if name.endswith("_pure") else name + "_pure"
    with _LOCK:   # two sessions' first models at once: the second waits for the whole module
        mod = sys.modules.get(name)
        if mod is None:
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            sys.modules[name] = mod
    return mod


def defer(*names: str) -> None:
    """The compiled kernels of the modules ``names`` are being compiled elsewhere (into the on-disk
    cache, by other processes): until :func:`release`, :func:`build` gives their plain-Python build,
    so no caller in this process compiles them itself or waits."""
    with _LOCK:
        _DEFERRED.update(names)


def release(*names: str) -> None:
    """The compiled kernels of the modules ``names`` may be called now (they are in the cache):
    :func:`build` gives them from now on."""
    with _LOCK:
        _DEFERRED.difference_update(names)


def deferred(name: str) -> bool:
    """Whether the compiled kernels of module ``name`` are deferred (:func:`defer`)."""
    return name in _DEFERRED


def build(module: ModuleType) -> ModuleType:
    """The build of kernel module ``module`` to call now: the module itself (compiled), or while its
    kernels are deferred its plain-Python build, which must then exist (``module.__file__`` loads
    as plain Python: no numba extension used at import time outside an ``if _PURE`` branch).

    >>> import engine.inference._extended as X
    >>> build(X) is X
    True
    >>> defer(X.__name__); build(X).__name__
    'engine.inference._extended_pure'
    >>> release(X.__name__); build(X) is X
    True
    """
    if module.__name__ not in _DEFERRED:
        return module
    return load_pure(module.__name__, module.__file__)
