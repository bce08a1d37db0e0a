"""The one check of the samples given to the forest density estimators of "Online Forest Density
Estimation" (Koriche, sections 3-6): an ``(N, n)`` array of codes ``0 .. m-1`` of ``n`` discrete
variables over one alphabet of size ``m``.

:func:`check_codes` is the scikit-learn boundary (``fit``, ``partial_fit``, ``score_samples``): it reads
array-likes and data frames with scikit-learn's ``validate_data`` (which records or checks
``n_features_in_``) and then :func:`as_codes` checks that every value is a whole, non-negative code
below ``m``, or infers ``m`` (the largest code plus one, at least 2). Integer arrays keep their dtype
(a benchmark's ``int8`` samples are not copied); whole floats become ``int64``.

>>> as_codes([[0, 1], [1.0, 0]])[1]
2
>>> as_codes([[0, 3]], 2, who="OFDE")
Traceback (most recent call last):
    ...
engine.errors.InvalidParameterError: OFDE: value 3 at row 0, column 1 is not a code 0..1 (alphabet size m = 2)
"""

from __future__ import annotations

import numpy as np
from sklearn.base import DensityMixin
from sklearn.utils.validation import validate_data

from engine.errors import InvalidParameterError

__all__ = ["MAX_ALPHABET", "as_codes", "check_alphabet", "check_codes", "CodesDensity"]

#: Largest alphabet a forest estimator takes (pair tables are ``m x m`` for each of the ``n(n-1)/2``
#: pairs).
MAX_ALPHABET = 64


def check_alphabet(m, who: str = "the estimator") -> int:
    """``m`` as an int in ``2..MAX_ALPHABET``."""
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 2 <= m <= MAX_ALPHABET:
        raise InvalidParameterError(f"{who}: alphabet size m must be a whole number in 2..{MAX_ALPHABET} "
                                    f"(or None: inferred from the data), got {m!r}")
    return int(m)


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def as_codes(X, m: int | None = None, *, who: str = "the estimator") -> tuple[np.ndarray, int]:
    """``(codes, m)``: ``X`` as an integer array of codes ``0..m-1`` (any shape), and ``m`` (given, or
    the largest code plus one, at least 2). A negative value, a fraction or a code ``>= m`` is refused
    naming its row and column."""
    X = np.asarray(X)
    if X.dtype.kind == "b":
        X = X.astype(np.int8)
    elif X.dtype.kind not in "iu":
        try:
            with np.errstate(invalid="ignore"):   # NaN and infinities are refused just below
                Xi = X.astype(np.int64)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"{who}: samples must be integer codes, got values of type {X.dtype}") from None
        frac = ~(Xi == X)
        if frac.any():
            at = _first(frac)
            raise InvalidParameterError(f"{who}: value {X[at].item()!r} at {_where(at)} is not a whole number "
                                        "(samples are codes 0..m-1 of discrete variables)")
        X = Xi
    if m is not None:
        m = check_alphabet(m, who)
    if X.size:
        lo = X.min()
        if lo < 0:
            at = _first(X < 0)
            raise InvalidParameterError(f"Negative values in data passed to {who}: {int(lo)} at {_where(at)} "
                                        "(samples are codes 0..m-1)")
        hi = int(X.max())
        if m is None:
            if hi >= MAX_ALPHABET:
                at = _first(X == hi)
                raise InvalidParameterError(f"{who}: value {hi} at {_where(at)} is not a code below "
                                            f"{MAX_ALPHABET}, the largest alphabet taken")
            return X, max(2, hi + 1)
        if hi >= m:
            at = _first(X >= m)
            raise InvalidParameterError(f"{who}: value {hi} at {_where(at)} is not a code 0..{m - 1} "
                                        f"(alphabet size m = {m})")
    return X, 2 if m is None else m


def _where(at: tuple[int, ...]) -> str:
    return f"row {at[0]}, column {at[1]}" if len(at) == 2 else f"variable {at[0]}" if len(at) == 1 else "index ()"


def check_codes(estimator, X, *, reset: bool, m: int | None = None) -> tuple[np.ndarray, int]:
    """``X`` read by ``validate_data`` (``reset``: at least 2 columns, recorded in ``n_features_in_`` as
    ``fit`` does; else the width checked against it), then :func:`as_codes`."""
    X = validate_data(estimator, X, reset=reset, dtype="numeric", ensure_min_features=2 if reset else 1)
    return as_codes(X, m, who=type(estimator).__name__)


class CodesDensity(DensityMixin):
    """What Chow-Liu and OFDE share as scikit-learn density estimators of rows of codes 0..m-1:
    ``score`` (the average of ``score_samples``) and the tags of categorical, non-negative input."""

    def score(self, X, y=None) -> float:
        """Average log-likelihood (nats) of the rows of ``X``."""
        return float(self.score_samples(X).mean())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True   # codes 0..m-1
        tags.input_tags.positive_only = True
        return tags
