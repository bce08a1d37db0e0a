"""``python -m engine bench NAME ...``: speed tables, one subcommand per benchmark.

Each module of the package :mod:`engine.bench` defines ``register(bench_subparsers)`` and adds its
own subcommand (``online`` lives in ``engine/bench/online.py``); add a module there to add a
benchmark. Benchmarks print tables (or ``--json`` lines), never assert timings.

The benchmark modules import NumPy and the kernels, so they are registered only when ``bench`` is
the command: ``python -m engine --help`` stays as quick as the interpreter (the rest of the
command line is handed to the benchmarks' own parser, ``python -m engine bench --help`` included).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil

HELP = "speed benchmarks (tables of timings and ratios)"


def register(sub) -> None:
    p = sub.add_parser("bench", help=HELP, add_help=False)
    p.__class__ = _HandOver  # keeps everything after "bench" for build_bench_parser


class _HandOver(argparse.ArgumentParser):
    """The ``bench`` subcommand's parser: takes the rest of the command line untouched (options such
    as ``--help`` included) for the benchmarks' parser, built when the handler runs."""

    def parse_known_args(self, args=None, namespace=None):
        return argparse.Namespace(handler=_bench, argv=list(args or ())), []


def build_bench_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m engine bench``, with every benchmark module's subcommand."""
    import engine.bench as pkg
    from engine.cli import _Parser

    p = _Parser(prog="python -m engine bench", description=HELP)
    bsub = p.add_subparsers(dest="benchmark", metavar="BENCHMARK", parser_class=_Parser)
    bsub.required = True
    for mod in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__)):
        importlib.import_module(f"{pkg.__name__}.{mod}").register(bsub)
    return p


def _bench(args) -> int:
    inner = build_bench_parser().parse_args(args.argv)
    return int(inner.handler(inner) or 0)
