"""The command line, ``python -m engine COMMAND ...``.

Each module in this package (other than this one) defines ``register(subparsers)``, adding its
commands; a command's handler takes the parsed arguments and returns an exit status. Handlers
import the heavy parts of the engine lazily so that ``--help`` answers at once.

An :class:`~engine.errors.EngineError`, a file that cannot be read, or any other exception becomes
one line on stderr, ``error: ...``, and exit status 2; never a traceback (``--debug`` shows it).
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
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of a failure instead of one error line (also accepted after "
                        "the command; or set TREE_WORKBENCH_DEBUG=1)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        importlib.import_module(f"{__name__}.{mod}").register(sub)
    return parser


def _one_line(text: str, limit: int = 600) -> str:
    """``text`` on one line (newlines and other separators as spaces), at most ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _message(exc: BaseException) -> str:
    if isinstance(exc, EngineError):
        return str(exc)
    if isinstance(exc, OSError):
        name = getattr(exc, "filename", None)
        return f"{name + ': ' if name else ''}{exc.strerror or exc}"
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start})"
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply"
    if isinstance(exc, MemoryError):
        return "out of memory; try a smaller input or lower setting"
    return (f"internal error {type(exc).__name__}: {exc} (a bug: please report it with the output of "
            "--debug)")


def _distinct(caught):
    seen = set()
    for w in caught:
        key = (w.category, str(w.message))
        if key not in seen and not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning)):
            seen.add(key)
            yield w


def main(argv=None) -> int:
    """Run one command; any failure is one ``error: ...`` line on stderr and exit status 2.

    ``--debug`` (anywhere before a ``--``) or ``TREE_WORKBENCH_DEBUG=1`` shows the traceback instead.
    """
    import os

    argv = list(sys.argv[1:] if argv is None else argv)
    head = argv[: argv.index("--")] if "--" in argv else argv
    debug = "--debug" in head or os.environ.get("TREE_WORKBENCH_DEBUG", "") not in ("", "0")
    if "--debug" in head:
        argv.remove("--debug")
    args = build_parser().parse_args(argv)
    import warnings

    try:
        with warnings.catch_warnings(record=not debug) as caught:
            if not debug:
                warnings.simplefilter("always")
            status = int(args.handler(args) or 0)
        for w in _distinct(caught or ()):  # on success, each distinct warning as one line
            print(f"warning: {_one_line(str(w.message), 200)}", file=sys.stderr)
        return status
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `... | head` closed stdout: not an error of ours
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return 0
    except Exception as exc:  # noqa: BLE001 - the one place that turns anything into one line
        if debug:
            raise
        print(f"error: {_one_line(_message(exc))}", file=sys.stderr)
    return 2
