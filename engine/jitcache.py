"""numba's on-disk cache of compiled kernels, shared safely by several processes.

numba writes one index file per function (signature -> data file) and one data file per compiled
signature. Its ``save`` reads the index, picks the first unused data-file number, writes the index,
then the data. Two processes that compile *different* signatures of the same function at the same
moment both pick the same number: the index then names one signature and the data file holds the
other's machine code, which a later process would load and run. The warm-up's compile processes,
the run workers, the server and parallel test processes all share one cache (``NUMBA_CACHE_DIR``),
so :func:`guard_cache` makes ``save`` hold an exclusive lock on the function's index while it
writes, and write the data file before the index that names it (a reader never finds an index
entry whose data is not there yet).
"""

from __future__ import annotations

import contextlib
import itertools

__all__ = ["guard_cache"]

_GUARDED = False


def guard_cache() -> None:
    """Make numba's cache writes safe across processes (idempotent; a no-op where ``fcntl`` or
    numba's cache internals are not as expected, leaving numba's own behaviour)."""
    global _GUARDED
    if _GUARDED:
        return
    try:
        import fcntl

        from numba.core.caching import IndexDataCacheFile
    except ImportError:
        return
    if not all(hasattr(IndexDataCacheFile, n) for n in ("save", "_load_index", "_save_index", "_save_data",
                                                           "_data_name")):
        return

    def save(self, key, data):
        with open(self._index_path + ".lock", "a+b") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                overloads = self._load_index()
                name = overloads.get(key)
                if name is None:
                    used = set(overloads.values())
                    name = next(n for n in (self._data_name(i) for i in itertools.count(1)) if n not in used)
                self._save_data(name, data)
                if overloads.get(key) != name:
                    overloads[key] = name
                    self._save_index(overloads)
            finally:
                with contextlib.suppress(OSError):
                    fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    IndexDataCacheFile.save = save
    _GUARDED = True
