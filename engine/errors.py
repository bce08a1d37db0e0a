"""Errors raised by the engine.

Every error the engine raises on bad input derives from :class:`EngineError`; the CLI turns one
into a single ``error: ...`` line and exit status 2, the app into an error message on screen. Subclasses that
describe a bad value also derive from :class:`ValueError`.
"""

__all__ = [
    "EngineError",
    "NotATreeError",
    "EmptyTreeError",
    "SelfLoopError",
    "DuplicateEdgeError",
    "CycleError",
    "DisconnectedError",
    "DuplicateNameError",
    "UnknownVertexError",
    "TreeFormatError",
    "InvalidPotentialError",
    "InconsistentEvidenceError",
    "InvalidParameterError",
    "DataFormatError",
    "JSONFormatError",
    "NetworkFormatError",
    "LessonError",
    "NumericalRangeError",
    "need",
    "need_choice",
    "LimitExceededError",
    "InputFileError",
    "ClassError",
    "RateLimitedError",
]


class EngineError(Exception):
    """Base class of every error the engine raises on bad input."""


class NotATreeError(EngineError, ValueError):
    """The graph given is not a tree."""


class EmptyTreeError(NotATreeError):
    """The input has no vertices."""


class SelfLoopError(NotATreeError):
    """An edge joins a vertex to itself."""


class DuplicateEdgeError(NotATreeError):
    """The same edge is given twice."""


class CycleError(NotATreeError):
    """The edges close a cycle; the message names it."""

    def __init__(self, message: str, cycle=()):
        super().__init__(message)
        self.cycle = tuple(cycle)


class DisconnectedError(NotATreeError):
    """The graph has more than one component; the message names a vertex of two of them."""


class DuplicateNameError(EngineError, ValueError):
    """Two vertices carry the same name."""


class UnknownVertexError(EngineError, KeyError):
    """A vertex name or index that the tree does not have."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class TreeFormatError(EngineError, ValueError):
    """A tree file or text that cannot be parsed; the message names the file and the place."""


class InvalidPotentialError(EngineError, ValueError):
    """A potential or data vector that is negative, not finite, or of the wrong shape."""


class InconsistentEvidenceError(EngineError, ValueError):
    """Evidence under which the total mass (partition function) is zero."""


class InvalidParameterError(EngineError, ValueError):
    """A setting outside its allowed range."""


class DataFormatError(EngineError, ValueError):
    """A data file (CSV, ARFF, JSON lines) that cannot be read."""


class JSONFormatError(DataFormatError):
    """JSON text that cannot be read safely: not UTF-8, not JSON, nested too deeply or holding a
    number too long; the message names the place and the position (see :mod:`engine.jsonio`)."""


class NetworkFormatError(TreeFormatError):
    """A network file (BIF, XMLBIF, UAI, Hugin .net) that cannot be read; the message names the file
    and the line."""


class LessonError(EngineError, ValueError):
    """A lesson file that cannot be used; the message starts with ``file:line:``."""

    def __init__(self, message: str, path: str = "", line: int = 0):
        super().__init__(message)
        self.path = path
        self.line = line


class NumericalRangeError(EngineError, ArithmeticError):
    """An input outside the range the inference code computes with exactly: a subnormal potential
    entry (below 2.2e-308, already short of digits) or a log-potential beyond ±1e300. Raised up
    front, before anything is computed; the message names the entry."""


class LimitExceededError(EngineError, ValueError):
    """A count that drives memory or time (vertices, states, bytes, ...) above its named limit in
    :mod:`engine.limits`; the message names the limit and how to raise it."""


class InputFileError(EngineError, ValueError):
    """A file that cannot be opened as input: missing, not a regular file, unreadable, a broken
    compressed stream or text that does not decode; the message starts with the file's name."""


def need(condition: bool, message: str) -> None:
    """The one check of a setting: raise ``InvalidParameterError(message)`` unless ``condition``.

    Run configs (``RunConfig.validate``), generators, scenarios and estimators check their settings
    with it, one line per check; the message names the setting and what was expected.

    >>> need(3 >= 1, "n must be >= 1")
    >>> need(0 >= 1, "n must be >= 1, got 0")
    Traceback (most recent call last):
        ...
    engine.errors.InvalidParameterError: n must be >= 1, got 0
    """
    if not condition:
        raise InvalidParameterError(message)


def need_choice(value, name: str, choices: tuple) -> None:
    """The check of a setting that takes one of a few values, worded alike everywhere.

    >>> need_choice("forests", "model", ("trees", "forests"))
    >>> need_choice("bush", "model", ("trees", "forests"))
    Traceback (most recent call last):
        ...
    engine.errors.InvalidParameterError: model must be 'trees' or 'forests', got 'bush'
    """
    if value not in choices:
        shown = [repr(c) for c in choices]
        allowed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
        raise InvalidParameterError(f"{name} must be {allowed}, got {value!r}")


class ClassError(EngineError, ValueError):
    """A class (lead a class, follow, answer a poll) that refuses an action: a wrong or expired
    class code, an answer after the reveal or over its size limit, a student asking for what only
    the lecturer may do; the message is one line naming the class or the culprit."""


class RateLimitedError(ClassError):
    """One session sending answers faster than a class accepts (see ``engine.classroom``)."""
