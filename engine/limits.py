"""Named limits on the counts that drive memory and time, checked before anything is allocated.

A shared server must not fall over because one student typed ``"states": 200000`` or uploaded a
255 KB file that decompresses to 250 MiB. Every count that sizes an allocation (vertices, states,
columns, trials, rounds, grid points, labels, bytes read, JSON nesting) has one named limit here.
A refusal is one line that names the limit and says how to raise it::

    states: 200000 exceeds the limit of 4096 (labels per vertex); raise it with
    TREE_WORKBENCH_MAX_STATES=200000 or engine.limits.raised(states=200000)

Each limit is raised for a whole process by its environment variable, or for a block of code by
:func:`raised` (a context manager; it is per thread/task, so a Streamlit session raising a limit
does not raise it for the others):

>>> from engine import limits
>>> limits.check("states", 3)
3
>>> with limits.raised(states=10**6):
...     limits.value("states")
1000000
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engine.errors import InvalidParameterError, LimitExceededError

__all__ = ["Limit", "LIMITS", "value", "check", "check_count", "check_seed", "flag", "refusal", "raised", "describe"]


@dataclass(frozen=True)
class Limit:
    """One named limit: its key, default, what it counts, and the environment variable raising it."""

    key: str
    default: int
    what: str

    @property
    def env(self) -> str:
        return f"TREE_WORKBENCH_MAX_{self.key.upper()}"


_ALL = (
    Limit("bytes", 256 * 2**20, "bytes read from one input, after decompression"),
    Limit("vertices", 5_000_000, "vertices of one tree"),
    Limit("states", 4096, "labels (states) per vertex"),
    Limit("table_cells", 50_000_000, "entries of the potential tables of one model (edges x k x k)"),
    Limit("columns", 2_000, "variables (columns) of a data file for forest learning"),
    Limit("attributes", 100_000, "attributes (features and labels) of an ARFF file"),
    Limit("data_cells", 50_000_000, "values of one data table (rows x columns)"),
    Limit("labels", 10_000, "labels of a multilabel data set"),
    Limit("label_alphabet", 100_000, "distinct node labels of a tree data set"),
    Limit("trials", 10_000_000, "trials of one online run"),
    Limit("rounds", 100_000_000, "rounds of one online run"),
    Limit("mixture", 1_000, "components of a forest mixture"),
    Limit("grid", 10_000, "runs of one sweep grid"),
    Limit("spanning_trees", 1_000, "random spanning trees of one RTA model"),
    Limit("kbest", 10_000, "K of the K-best lists (RTA)"),
    Limit("eval_points", 100_000, "evaluation points of one run"),
    Limit("json_depth", 64, "nesting depth of a JSON document"),
    Limit("number_digits", 100, "digits of one number in a JSON or text input"),
    Limit("link_vertices", 1_000_000, "vertices of a tree a link generates (?tree=random:N)"),
    Limit("link_chars", 4_000, "characters of a Newick tree in a link"),
    Limit("lesson_bytes", 512 * 1024, "bytes of one lesson file"),
    Limit("generate", 2_000_000, "vertices of a tree a generator builds (generate, tree specs)"),
    Limit("iterations", 100_000, "iterations or passes of one batch learner (BHTMM, RTA)"),
    Limit("folds", 1_000, "folds of one cross-validation"),
    Limit("jobs", 256, "workers (processes or threads) one command runs at once"),
)

#: every limit, by key
LIMITS: dict[str, Limit] = {lim.key: lim for lim in _ALL}

_OVERRIDES: contextvars.ContextVar[Mapping] = contextvars.ContextVar("engine_limits", default=MappingProxyType({}))


def _limit(key: str) -> Limit:
    try:
        return LIMITS[key]
    except KeyError:
        raise KeyError(f"no limit named {key!r}; limits are {', '.join(LIMITS)}") from None


def value(key: str) -> int:
    """The limit in force for ``key``: :func:`raised` > environment variable > default."""
    lim = _limit(key)
    over = _OVERRIDES.get()
    if key in over:
        return over[key]
    raw = os.environ.get(lim.env)
    if raw is None or not raw.strip():
        return lim.default
    try:
        v = int(float(raw)) if raw.strip().lower() not in ("inf", "infinity") else 2**63 - 1
    except (ValueError, OverflowError):
        raise InvalidParameterError(f"{lim.env}={raw[:40]!r} is not a whole number") from None
    if v < 0:
        raise InvalidParameterError(f"{lim.env}={raw[:40]!r} must be >= 0")
    return v


def _fmt(x) -> str:
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e16:
        x = int(x)
    if isinstance(x, int) and x.bit_length() > 64:
        return f"about 10^{len(str(abs(x))) - 1}" if x.bit_length() < 14_000 else "a huge number"
    return f"{x}" if isinstance(x, float) else str(x)


def check(key: str, count, culprit: str = "") -> int | float:
    """Return ``count`` when it is within limit ``key``; else raise :class:`LimitExceededError`.

    ``culprit`` names what was counted (a file, a config key) at the start of the message.
    ``count`` may be any real number (a float from ``1e12`` in a config counts as itself).
    """
    top = value(key)  # names an unknown key
    try:
        over = not (count <= top)  # NaN is over too
    except TypeError:
        raise InvalidParameterError(f"{culprit or key}: expected a number, got {str(count)[:40]!r}") from None
    if over:
        raise LimitExceededError(refusal(key, f"{culprit + ': ' if culprit else ''}{_fmt(count)}", count))
    return count


def refusal(key: str, what: str, wanted=None, top: int | None = None) -> str:
    """The one-line message refusing ``what`` (e.g. ``"tree.csv: 6,000,000 vertices"``) under limit
    ``key`` (whose value in force is ``top``, by default :func:`value`)."""
    lim = _limit(key)
    top = value(key) if top is None else top
    if isinstance(wanted, float) and wanted.is_integer():
        wanted = int(wanted)
    want = wanted if isinstance(wanted, int) and not isinstance(wanted, bool) and 0 <= wanted < 2**63 else "N"
    return (f"{what} exceeds the limit of {top:,} {lim.what} (limit {key!r}); raise it with "
            f"{lim.env}={want} or engine.limits.raised({key}={want})")


def check_count(key: str, count, culprit: str, *, minimum: int = 0) -> int:
    """A whole number >= ``minimum`` within limit ``key`` (bools, fractions, NaN and strings refused).

    Accepts a float with an integral value (``1e3`` from a JSON config) and returns an ``int``.
    """
    if isinstance(count, bool) or not isinstance(count, (int, float)) and not hasattr(count, "__index__"):
        shown = repr(count[:40]) if isinstance(count, str) else repr(count)[:40]
        raise InvalidParameterError(f"{culprit} must be a whole number >= {minimum}, got {shown}")
    if isinstance(count, float) and not (math.isfinite(count) and count.is_integer()):
        if math.isfinite(count) or math.isnan(count):
            raise InvalidParameterError(f"{culprit} must be a whole number >= {minimum}, got {count!r}")
    if count < minimum:
        raise InvalidParameterError(f"{culprit} must be a whole number >= {minimum}, got {_fmt(count)}")
    check(key, count, culprit)
    return int(count)


def flag(key: str):
    """The ``type=`` of a command-line flag whose whole number sizes something under limit ``key``:
    ``--trials 10000001`` is refused as the flag is parsed, in one line, before the command runs.
    The lower bound is left to the command (its message says what it means).

    >>> flag("trials")("2000")
    2000
    >>> flag("trials")("20000000")
    Traceback (most recent call last):
        ...
    argparse.ArgumentTypeError: 20000000 exceeds the limit of 10,000,000 trials of one online run (limit 'trials'); raise it with TREE_WORKBENCH_MAX_TRIALS=20000000 or engine.limits.raised(trials=20000000)
    """
    import argparse

    _limit(key)

    def parse(text: str) -> int:
        n = int(text)   # (a ValueError: argparse says "invalid int value", as for any int flag)
        try:
            return check(key, n)
        except LimitExceededError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.limit = key          # (read by the test that walks every flag)
    parse.__name__ = "int"
    return parse


def check_seed(seed, culprit: str = "seed"):
    """``None``, a :class:`numpy.random.Generator`, or a whole number in ``0 .. 2**63 - 1`` (what a
    recorded config can hold and ``numpy.random.default_rng`` takes); anything else is refused."""
    if seed is None or type(seed).__name__ == "Generator":
        return seed
    if isinstance(seed, float) and seed.is_integer():
        seed = int(seed)
    if isinstance(seed, bool) or not hasattr(seed, "__index__") or not 0 <= int(seed) < 2**63:
        shown = repr(seed[:40]) if isinstance(seed, str) else _fmt(seed) if isinstance(seed, (int, float)) else repr(seed)[:40]
        raise InvalidParameterError(f"{culprit} must be a whole number in 0..2^63-1, got {shown}")
    return int(seed)


@contextlib.contextmanager
def raised(**limits: int):
    """Raise (or lower) limits inside a ``with`` block, for this thread or task only.

    >>> with raised(vertices=10**8):
    ...     check("vertices", 10**7)
    10000000
    """
    for k, v in limits.items():
        _limit(k)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise InvalidParameterError(f"limit {k!r} must be a whole number >= 0, got {v!r}")
    token = _OVERRIDES.set({**_OVERRIDES.get(), **limits})
    try:
        yield
    finally:
        _OVERRIDES.reset(token)


def describe() -> list[dict]:
    """Every limit with its value in force, default and environment variable (for docs and ``--help``)."""
    return [{"limit": lim.key, "value": value(lim.key), "default": lim.default, "counts": lim.what,
             "environment": lim.env} for lim in _ALL]
