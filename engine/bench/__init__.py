"""Benchmarks behind ``python -m engine bench``: one module per benchmark, each with
``register(bench_subparsers)`` (see :mod:`engine.cli.bench`)."""
