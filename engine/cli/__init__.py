"""The command line, ``python -m engine COMMAND ...``.

Each module in this package (other than this one) defines ``register(subparsers)``, adding its
commands; a command's handler takes the parsed arguments and returns an exit status. Handlers
import the heavy parts of the engine lazily so that ``--help`` answers at once.

An :class:`~engine.errors.EngineError` (or a file that cannot be read) becomes one line on stderr,
``error: ...``, and exit status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from engine.errors import EngineError
from engine.jsonio import print_json  # re-exported: the commands print with it

__all__ = ["main", "build_parser", "print_json"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, like every other bad input
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description="Tree Inference Workbench: headless runs, "
                     "file conversion, benchmarks.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        importlib.import_module(f"{__name__}.{mod}").register(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except EngineError as exc:
        print(f"error: {exc}", file=sys.stderr)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: {getattr(exc, 'filename', None) or ''}{': ' if getattr(exc, 'filename', None) else ''}"
              f"{exc.strerror if isinstance(exc, OSError) and exc.strerror else exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    return 2
