"""The command line, ``python -m engine COMMAND ...``.

Each module in this package (other than this one) defines ``register(subparsers)``, adding its
commands; a command's handler takes the parsed arguments and returns an exit status. Handlers
import the heavy parts of the engine lazily so that ``--help`` answers at once.

An :class:`~engine.errors.EngineError`, a file that cannot be read, or any other exception becomes
one line on stderr, ``error: ...``, and exit status 2; never a traceback (``--debug`` shows it).

A command that meets a compiled kernel missing from numba's on-disk cache (the first run on a fresh
clone) says so on stderr before it compiles, once: :data:`COMPILING`.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.abc
import importlib.util
import pkgutil
import re
import sys

from engine import limits
from engine.errors import EngineError
from engine.jsonio import print_json  # re-exported: the commands print with it
from engine.warmup import cold_seconds

__all__ = ["main", "build_parser", "print_json", "jobs", "COMPILING"]


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


_JOBS = limits.flag("jobs")


def jobs(text: str) -> int | None:
    """The ``type=`` of every command's ``--jobs``: how many workers run at once, ``0`` meaning one
    per core (as ``xz -T0``; returned as None, what each command runs for "one per core"). A
    negative or fractional number is refused as the flag is parsed, in one line, and so is one past
    the ``jobs`` limit.

    >>> jobs("2"), jobs("0")
    (2, None)
    >>> jobs("-1")
    Traceback (most recent call last):
        ...
    argparse.ArgumentTypeError: expected a whole number >= 0 (0: one per core), got '-1'
    """
    if not re.fullmatch(r"\+?[0-9]+", text.strip()):
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0 (0: one per core), got {text[:40]!r}")
    return _JOBS(text) or None


jobs.limit = _JOBS.limit   # (read by the test that walks every flag)


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


#: the line a command prints on stderr before it compiles kernels the on-disk cache lacks
COMPILING = "compiling kernels once, about {seconds} s; `python -m engine.warmup` does it ahead"


class _Compiling:
    """Whether a command is running (only then is compiling announced) and whether it was said."""

    running = False
    said = False
    watching = False


def _announce(_event=None) -> None:
    if _Compiling.running and not _Compiling.said:
        _Compiling.said = True
        try:
            seconds = cold_seconds()
        except Exception:  # noqa: BLE001 - an estimate must never stop a compilation
            seconds = 0.0
        text = COMPILING.format(seconds=f"{max(5, 5 * round(seconds / 5)):.0f}") if seconds >= 1 else \
            COMPILING.replace(", about {seconds} s", "")
        print(text, file=sys.stderr, flush=True)


def _listen() -> None:
    from numba.core import event   # (called once numba is imported: the command needs it anyway)

    class _FirstCompile(event.Listener):
        def on_start(self, ev):
            _announce(ev)

        def on_end(self, ev):
            pass

    event.register("numba:compile", _FirstCompile())


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``then()`` right after the module ``name`` is first imported (a post-import hook): the
    compile listener is registered only in a command that imports numba, so ``--help`` and
    ``runs list`` do not pay numba's import."""

    def __init__(self, name: str, then):
        self.name, self.then = name, then

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenLoader(spec.loader, self.then)
        return spec


class _ThenLoader(importlib.abc.Loader):
    def __init__(self, loader, then):
        self._loader, self._then = loader, then

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._then()

    def __getattr__(self, name):   # everything else is the real loader's
        return getattr(self._loader, name)


def _watch_compiling() -> None:
    if _Compiling.watching:
        return
    _Compiling.watching = True
    if "numba" in sys.modules:
        _listen()
    else:
        sys.meta_path.insert(0, _AfterImport("numba", _listen))


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

    _watch_compiling()
    try:
        _Compiling.running = True
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
    finally:
        _Compiling.running = False
    return 2
