"""``python -m engine bench NAME ...``: speed tables, one subcommand per benchmark.

Each module of the package :mod:`engine.bench` defines ``register(bench_subparsers)`` and adds its
own subcommand (``online`` lives in ``engine/bench/online.py``); add a module there to add a
benchmark. Benchmarks print tables (or ``--json`` lines), never assert timings.
"""

from __future__ import annotations

import importlib
import pkgutil


def register(sub) -> None:
    import engine.bench as pkg

    p = sub.add_parser("bench", help="speed benchmarks (tables of timings and ratios)")
    bsub = p.add_subparsers(dest="benchmark", metavar="BENCHMARK", parser_class=type(p))
    bsub.required = True
    for mod in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__)):
        importlib.import_module(f"{pkg.__name__}.{mod}").register(bsub)
