"""An algorithm's parameters, each declared once: its type, its range, its default and one line of
documentation, checked by one validator.

This is scikit-learn's ``_parameter_constraints`` with ``validate_params`` (``sklearn.utils.
_param_validation``), for frozen dataclasses: a config declares each parameter on its field with
:meth:`Param.field`, whose default is the field's default, and :func:`validate_params` checks every
declared field of a config in one place (``RunConfig.validate`` calls it). Whatever else offers
these values (the command line, the app's declarations layer) reads the same declarations with
:func:`declared` instead of writing a range or a default again. A violation is one :class:`~engine.errors.InvalidParameterError` line naming the
parameter, the value and what was expected.

>>> ETA = Param(float, 1.0, "the learning rate", lo=0, hi=1e6, closed="right")
>>> ETA.describe()
'a number in (0, 1e6]'
>>> ETA.check(0.5, "eta")
0.5
>>> ETA.check(0, "eta")
Traceback (most recent call last):
    ...
engine.errors.InvalidParameterError: eta = 0: expected a number in (0, 1e6]
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.errors import InvalidParameterError

__all__ = ["Param", "declared", "validate_params", "PARAM"]

#: The key of a dataclass field's metadata that holds its :class:`Param`.
PARAM = "param"
_ENDS = {"both": ("[", "]"), "left": ("[", ")"), "right": ("(", "]"), "neither": ("(", ")")}
_KINDS = (int, float, bool, str)


@dataclass(frozen=True)
class Param:
    """One parameter of an algorithm.

    kind : ``int``, ``float``, ``bool`` or ``str``. An ``int`` is a Python or NumPy integer (not a
        bool, not ``3.0``); a ``float`` is any finite real number (not a bool, NaN or infinity); a
        ``bool`` is ``True`` or ``False`` (Python's or NumPy's), never ``0``, ``1`` or ``"yes"``.
    default : the value when none is given (it must itself be accepted).
    doc : one line a reader reads (a setting's help, the reference tables).
    lo, hi : the ends of the accepted range of an ``int`` or ``float`` (None: unbounded);
    closed : which ends belong to it: ``"both"``, ``"left"``, ``"right"`` or ``"neither"``.
    choices : the accepted values of a ``str`` (empty: any non-empty text).
    none : None is accepted too (``doc`` says what it means).
    """

    kind: type
    default: Any
    doc: str
    lo: float | None = None
    hi: float | None = None
    closed: str = "both"
    choices: tuple = ()
    none: bool = False

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise TypeError(f"a parameter's kind is one of int, float, bool, str, not {self.kind!r}")
        if self.closed not in _ENDS:
            raise ValueError(f"closed must be one of {', '.join(_ENDS)}, got {self.closed!r}")
        if self.choices and self.kind is not str:
            raise ValueError("only a str parameter has choices")
        self.check(self.default, "the default")   # a declaration whose default it refuses is a bug

    # ------------------------------------------------------------------ the range
    def contains(self, x) -> bool:
        """Whether the number ``x`` lies in the declared range (ends as ``closed`` says)."""
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if self.lo is not None and not (x >= self.lo if left_closed else x > self.lo):
            return False
        return self.hi is None or (x <= self.hi if right_closed else x < self.hi)

    def bounds(self) -> tuple[float, float]:
        """The range's ends as numbers (``-inf``/``inf`` where unbounded); open ends included."""
        return (-math.inf if self.lo is None else self.lo, math.inf if self.hi is None else self.hi)

    def describe(self) -> str:
        """The accepted values in a few words, e.g. ``a number in (0, 1e6]``."""
        if self.kind is bool:
            text = "true or false"
        elif self.kind is str:
            text = _either([repr(c) for c in self.choices]) if self.choices else "a text"
        else:
            text = ("an integer" if self.kind is int else "a number") + self._range()
        return text + (" or None" if self.none else "")

    def _range(self) -> str:
        left, right = _ENDS[self.closed]
        if self.lo is not None and self.hi is not None:
            return f" in {left}{_number(self.lo)}, {_number(self.hi)}{right}"
        if self.lo is not None:
            return f" {'>=' if left == '[' else '>'} {_number(self.lo)}"
        if self.hi is not None:
            return f" {'<=' if right == ']' else '<'} {_number(self.hi)}"
        return ""

    # ------------------------------------------------------------------ the check
    def accepts(self, value) -> bool:
        """Whether ``value`` is a legal value of this parameter."""
        if value is None:
            return self.none
        if self.kind is bool:
            return isinstance(value, (bool, np.bool_))
        if self.kind is str:
            return isinstance(value, str) and (value in self.choices if self.choices else bool(value.strip()))
        if isinstance(value, bool) or not isinstance(value, numbers.Integral if self.kind is int else numbers.Real):
            return False
        return math.isfinite(value) and self.contains(value)

    def check(self, value, name: str):
        """``value`` (an ``int`` or ``float`` as its Python type) when accepted; else raise
        :class:`InvalidParameterError` naming ``name``, the value and what was expected."""
        if not self.accepts(value):
            shown = repr(value) if isinstance(value, str) else str(value)
            raise InvalidParameterError(f"{name} = {shown[:40]}: expected {self.describe()}")
        return value if value is None or self.kind is str else self.kind(value)

    def field(self, **more):
        """The dataclass field declaring this parameter (its default is :attr:`default`)."""
        return dataclasses.field(default=self.default, metadata={PARAM: self}, **more)


def _number(x) -> str:
    """``x`` as a reader writes it: ``0``, ``0.05``, ``1e6``, ``9.2e18``."""
    if float(x).is_integer() and abs(x) < 1e5:
        return str(int(x))
    return f"{x:.3g}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


def _either(shown: list[str]) -> str:
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def declared(cls) -> dict[str, Param]:
    """Field name -> :class:`Param` of every declared field of the dataclass ``cls`` (or instance).

    >>> from engine.hedge.run import HedgeConfig
    >>> declared(HedgeConfig)["eta"].describe()
    'a number in (0, 1e6]'
    """
    return {f.name: f.metadata[PARAM] for f in dataclasses.fields(cls) if PARAM in f.metadata}


def validate_params(obj, params: dict[str, Param] | None = None) -> None:
    """Check every declared field of the dataclass instance ``obj``, or, given ``params`` (an
    estimator's declarations, as scikit-learn's ``_parameter_constraints``), each attribute of
    ``obj`` they name; the first bad one raises."""
    for name, param in (declared(obj) if params is None else params).items():
        param.check(getattr(obj, name), name)
