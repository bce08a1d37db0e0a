"""The command line, ``python -m engine COMMAND ...``.

Each module in this package (other than this one) defines ``register(subparsers)``, adding its
commands; a command's handler takes the parsed arguments and returns an exit status. Handlers
import the heavy parts of the engine lazily so that ``--help`` answers at once. A package built on
the engine adds commands the same way without the engine importing it: an entry point of the group
:data:`COMMANDS_GROUP` names its ``register`` (the app's declarations add ``lessons`` so, see
``pyproject.toml``); all commands are registered in the order of their names.

An :class:`~engine.errors.EngineError`, a file that cannot be read, or any other exception becomes
one line on stderr, ``error: ...``, and exit status 2; never a traceback (``--debug`` shows it).

A command that meets one of the engine's compiled kernels missing from numba's on-disk cache (the
first run on a fresh clone) says so on stderr before it compiles: :data:`COMPILING`, with a range of
seconds (from the kernel it compiles to every missing kernel of the kernel modules it has imported,
for the machine's load); a kernel module it imports later gets a line of its own
(:data:`COMPILING_MORE`), and nothing else is said of compiling.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.abc
import importlib.util
import math
import pkgutil
import re
import sys
from importlib.metadata import entry_points

from engine import limits
from engine.errors import EngineError
from engine.jsonio import print_json  # re-exported: the commands print with it
from engine.warmup import cold_range

__all__ = ["main", "build_parser", "print_json", "jobs", "COMMANDS_GROUP", "COMPILING"]


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
    for _, register in sorted(_registrars().items()):
        register(sub)
    return parser


#: The entry-point group of the commands other packages add (``name = "package.module:register"``).
COMMANDS_GROUP = "tree_workbench.cli"


def _registrars() -> dict:
    """Command module or entry-point name -> its ``register``: this package's modules, then the
    entry points of :data:`COMMANDS_GROUP` (an entry point may not take a name of this package)."""
    found = {m.name: importlib.import_module(f"{__name__}.{m.name}").register
             for m in pkgutil.iter_modules(__path__)}
    for ep in entry_points(group=COMMANDS_GROUP):
        if ep.name in found:
            raise RuntimeError(f"entry point {ep.name} = {ep.value} of {COMMANDS_GROUP}: the engine has a "
                               f"command module of that name")
        found[ep.name] = ep.load()
    return found


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


#: the line a command prints on stderr before it compiles kernels the on-disk cache lacks: a range,
#: from the kernel it has begun compiling to every missing kernel of the kernel modules it has
#: imported (``engine.warmup.cold_range``), for the machine's load
COMPILING = "compiling kernels once, about {seconds} s; `python -m engine.warmup` does it ahead"
#: the line of a kernel module imported after that range was said (a new range, for more work)
COMPILING_MORE = "compiling more kernels ({module}), about {seconds} s"


class _Compiling:
    """Whether a command is running (only then is compiling announced), whether it is not to be
    said (``said``: the tests that run commands in their own process), and the kernel modules
    whose compiling a line has counted."""

    running = False
    said = False
    watching = False
    counted: set = set()


def seconds_range(low: float, high: float) -> str:
    """A range of seconds as the compile notice says it: "2 to 40", or "5" when both ends agree
    (whole seconds, the top rounded up to 5 s).

    >>> seconds_range(1.6, 37.0), seconds_range(4.2, 4.9), seconds_range(0.2, 0.3)
    ('2 to 40', '5', '1 to 5')
    """
    lo = max(1, round(low))
    hi = max(5, 5 * math.ceil(max(high, low) / 5))
    return f"{hi}" if hi <= lo + 1 else f"{lo} to {hi}"


def _announce(event=None) -> None:
    """The compile notice, when numba compiles one of the engine's kernels (one the command calls
    and the cache lacks; numba's own helpers are not counted): once, with a range that counts every
    kernel module imported so far; again only for a kernel module imported later (more work)."""
    if not _Compiling.running or _Compiling.said:
        return
    dispatcher = (getattr(event, "data", None) or {}).get("dispatcher") if event is not None else None
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
    if (dispatcher is not None and not module.startswith("engine.")) or module in _Compiling.counted:
        return
    first = not _Compiling.counted
    try:
        low, high, counted = cold_range(module)
    except Exception:  # noqa: BLE001 - an estimate must never stop a compilation
        low = high = 0.0
        counted = set()
    _Compiling.counted = _Compiling.counted | counted | {module}
    if first:
        text = COMPILING.format(seconds=seconds_range(low, high)) if high >= 1 else \
            COMPILING.replace(", about {seconds} s", "")
    elif high >= 1:
        text = COMPILING_MORE.format(module=module, seconds=seconds_range(low, high))
    else:
        return
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
