"""One run protocol for every learning algorithm of the workbench.

Each algorithm family ``engine.<family>.run`` defines

* a config: a frozen dataclass subclassing :class:`RunConfig`, with a class attribute
  ``algorithm`` (one of ``hedge``, ``ofde``, ``chowliu``, ``rta``, ``bhtmm``, and ``reproduce``: a
  paper's whole protocol, :mod:`engine.reproduce`), only JSON-able
  fields (numbers, strings, bools, lists, dicts; a tree or data set as a path string or a
  generator spec such as ``{"generate": "path", "n": 15}``) and a ``seed`` field, and a
  ``validate()`` method (below);
* ``run(config, progress=None) -> RunResult``, which calls ``progress(fraction, message)`` now and
  then (fraction in [0, 1]). A progress callback may raise :class:`RunCancelled` to stop the run;
  the run must then leave nothing half-written.

The same config runs from the app and from ``python -m engine run CONFIG.json``.

The validation contract. A config declares each parameter once, on its field, with
:class:`engine.params.Param` (type, range, default, one line of doc); the base ``validate()``
checks every declared field through the one validator :func:`engine.params.validate_params`, and a
subclass adds, one :func:`need` line each, only the checks that relate settings to each other or
that are not a range (a file needs a training file too, ``low < high``). Either raises
:class:`InvalidParameterError` naming the first bad setting. ``validate()`` runs when the config is
built (``__post_init__``), so an invalid config never exists: ``execute`` refuses it before anything
is recorded, whatever its family, and a sweep refuses a bad point before it records any. Problems
that only the data can show (a malformed file, too few labels) are found by ``run`` and recorded as
a failed run. A subclass
declares its parameters and adds checks by extending ``validate`` (calling ``super().validate()``
first)::

    trials: int = Param(int, 100, "the number of trials", lo=1).field()
    mode: str = Param(str, "a", "the mode", choices=("a", "b")).field()

    def validate(self) -> None:
        super().validate()
        need(self.mode != "b" or self.trials > 1, "mode 'b' needs at least 2 trials")

Every setting that sizes an allocation (a count of trials, variables, labels, iterations, workers)
is declared once in the config's ``limited`` (setting -> the name of its limit in
:mod:`engine.limits`); the base ``validate`` refuses a value past that limit in one line, before
anything is recorded or allocated. An integer setting that sizes nothing (a seed, a bound that is
only compared) is listed in ``unsized`` instead; a test walks every family's fields and checks
that each integer setting is one or the other, and that a value past its limit is refused.
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

from engine.errors import EngineError, InvalidParameterError, need
from engine.params import validate_params

__all__ = ["RunConfig", "RunResult", "RunCancelled", "ProgressCallback", "no_progress", "need", "need_int",
           "is_int", "is_number"]

ProgressCallback = Callable[[float, str], None]


def no_progress(fraction: float, message: str) -> None:
    """The default progress callback: does nothing."""


class RunCancelled(EngineError):
    """Raised by a progress callback to stop a run."""


def is_int(x) -> bool:
    """Whether ``x`` is an integer (Python or NumPy; ``True``/``False`` are not)."""
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def need_int(value, name: str, lo: int, hi: int | None = None, note: str = "") -> None:
    """Refuse ``value`` unless it is an integer in ``lo..hi`` (no upper bound when ``hi`` is None).

    The message names the setting, the range (with ``note`` after it) and the value, e.g.
    ``folds must be an integer >= 2, got 1``.
    """
    ok = is_int(value) and value >= lo and (hi is None or value <= hi)
    bound = f">= {lo}" if hi is None else f"in {lo}..{hi}"
    need(ok, f"{name} must be an integer {bound}{note}, got {value!r}")


def is_number(x) -> bool:
    """Whether ``x`` is a finite real number (``True``/``False`` are not)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


@dataclass(frozen=True)
class RunConfig:
    """Base of every run config; subclasses add their hyperparameters (with defaults)."""

    algorithm: ClassVar[str] = ""
    #: setting -> the limit of :mod:`engine.limits` it must stay within (it sizes an allocation)
    limited: ClassVar[dict[str, str]] = {}
    #: integer settings that size nothing (seeds, bounds only compared)
    unsized: ClassVar[tuple[str, ...]] = ("seed",)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every setting that needs no data (see the module docstring); the base checks ``seed``,
        every declared parameter and that every setting of ``limited`` holding a number is within
        its limit."""
        from engine import limits

        seed = getattr(self, "seed", 0)
        need(is_int(seed) and 0 <= seed < 2**63, f"seed must be an integer in 0..2^63-1, got {str(seed)[:40]}")
        for name, key in self.limited.items():   # first: a size past its limit names the limit to raise
            value = getattr(self, name)
            if is_number(value) or value == math.inf:   # (other types: the declaration's check names them)
                limits.check(key, value, name)
        validate_params(self)

    def to_dict(self) -> dict[str, Any]:
        d = {"algorithm": self.algorithm}
        d.update(dataclasses.asdict(self))
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict[str, Any]):
        d = dict(d)
        alg = d.pop("algorithm", cls.algorithm)
        if alg != cls.algorithm:
            raise InvalidParameterError(f"config is for {alg!r}, not {cls.algorithm!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise InvalidParameterError(
                f"unknown {cls.algorithm} setting {unknown[0]!r}; expected one of {', '.join(sorted(names))}")
        return cls(**d)

    @classmethod
    def from_json(cls, text: str):
        from engine.jsonio import loads

        return cls.from_dict(loads(text, where=f"{cls.algorithm} config"))


@dataclass(frozen=True)
class RunResult:
    """What a run returns.

    metrics : dict of str to JSON scalar or list
        The summary numbers (the same keys as the family's ``--json`` CLI output).
    curves : dict of str to list of [x, y]
        Named curves, e.g. ``{"test_loglik": [[t, value], ...]}``, drawn and overlaid by the app.
    artefacts : dict of str to JSON value
        Anything else worth keeping (learned edges, confusion matrices, traces).
    """

    metrics: dict[str, Any]
    curves: dict[str, list] = field(default_factory=dict)
    artefacts: dict[str, Any] = field(default_factory=dict)
    seconds: float | None = None
