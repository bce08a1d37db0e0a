"""Shared pieces of the bottom-up hidden tree Markov models of :mod:`engine.htmm`.

The hidden alphabet has ``C`` real states ``0..C-1`` plus a bottom state ``⊥ = C`` that sits in
every empty child slot (Algorithm 1 of Castellana & Bacciu 2019, "Bottom if the child does not
exist"; the authors' code gives the leaf prior ``pi^l`` a mass for ``⊥`` too, so an empty slot ``l``
of an internal node contributes ``pi^l(⊥)`` to the likelihood). A node's state is never ``⊥``.
"""

from __future__ import annotations

import numpy as np

from engine.errors import InvalidParameterError
from engine.htmm.data import PositionalTrees

__all__ = ["dirichlet", "sample_rows", "evidence", "entropy_bits", "annealing_temperature",
           "normalise_rows", "check_trees", "fitted_trees", "tree_tags"]


def check_trees(X, who: str, y=None) -> PositionalTrees:
    """The one check of what a model's ``fit`` is given: a non-empty :class:`PositionalTrees` batch
    (``y``, ignored by the density models, must not be the old positional progress callback)."""
    if callable(y):
        raise TypeError(f"{who}.fit(trees, callback) is now {who}(callback=...).fit(trees): the progress "
                        "callback is a parameter")
    if not isinstance(X, PositionalTrees):
        raise InvalidParameterError(f"{who} takes a batch of positional trees (engine.htmm.data.PositionalTrees: "
                                    f"read_trees, synthetic_trees, from_lists), not {type(X).__name__}")
    if X.n_trees == 0:
        raise InvalidParameterError(f"{who}: the batch holds no tree to learn from")
    return X


def fitted_trees(X, L: int, M: int, who: str) -> PositionalTrees:
    """Trees to score with a model fitted on ``L`` child slots and ``M`` labels: padded to ``L`` slots,
    or refused, naming the slot or label the model has never seen."""
    if not isinstance(X, PositionalTrees):
        raise InvalidParameterError(f"{who} scores a batch of positional trees (engine.htmm.data.PositionalTrees), "
                                    f"not {type(X).__name__}")
    used = np.flatnonzero((X.children >= 0).any(axis=0))
    if used.size and used[-1] >= L:
        raise InvalidParameterError(f"{who} was fitted on trees with {L} child slots; these trees use slot "
                                    f"{int(used[-1]) + 1} (pad the training trees with with_slots)")
    if X.n_labels > M and X.labels.size and X.labels.max() >= M:
        raise InvalidParameterError(f"{who} was fitted on {M} labels; these trees use label {int(X.labels.max()) + 1}")
    return X.with_slots(L)


def tree_tags(tags):
    """scikit-learn's tags of a model whose input is a :class:`PositionalTrees` batch: not a 2-D
    array, so ``check_estimator`` runs none of its data checks (tests/test_estimator_checks.py runs
    the ones that need no data)."""
    tags.input_tags.two_d_array = False
    return tags


def dirichlet(rng: np.random.Generator, a) -> np.ndarray:
    """Dirichlet draws along the last axis of the concentration array ``a >= 0``.

    Computed in log space (``log G(a) = log G(a+1) + log(U)/a``) so that tiny concentrations such as
    ``alpha0 / C`` neither underflow to an all-zero row nor fail; a zero concentration gives a
    component that is exactly zero.
    """
    a = np.asarray(a, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.log(rng.standard_gamma(a + 1.0)) + np.log(rng.random(a.shape)) / a
    g = np.where(a > 0, g, -np.inf)
    g = g - g.max(axis=-1, keepdims=True)
    p = np.exp(g)
    return p / p.sum(axis=-1, keepdims=True)


def sample_rows(rng: np.random.Generator, w: np.ndarray) -> np.ndarray:
    """One categorical draw per row of the non-negative weights ``w`` (rows need not sum to 1)."""
    w = np.asarray(w, dtype=float)
    cw = np.cumsum(w, axis=1)
    total = cw[:, -1]
    u = rng.random(len(w)) * total
    idx = (cw <= u[:, None]).sum(axis=1)
    # guard the rounding case u == total: fall back to the last index of positive weight
    last = w.shape[1] - 1 - np.argmax(w[:, ::-1] > 0, axis=1)
    return np.minimum(idx, last)


def evidence(emit: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``b_j(x_u)`` for every node, shape (N, C); a hidden label (-1) gives a row of ones."""
    ev = np.ones((len(labels), emit.shape[0]))
    seen = labels >= 0
    ev[seen] = emit[:, labels[seen]].T
    return ev


def normalise_rows(a: np.ndarray):
    """Rows divided by their sums (rows of sum zero stay zero); returns ``(rows, log sums)``."""
    c = a.sum(axis=1)
    with np.errstate(divide="ignore"):
        logc = np.log(c)
    out = np.divide(a, c[:, None], out=np.zeros_like(a), where=c[:, None] > 0)
    return out, logc


def entropy_bits(p: np.ndarray) -> np.ndarray:
    """Entropy in bits of each row of the probability array ``p`` (0 log 0 = 0)."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(p > 0, -p * np.log2(p), 0.0)
    return t.sum(axis=-1)


def annealing_temperature(m: int, t0: float, m0: float) -> float:
    """``T(m) = max(T0^(1 - m/m0), 1)`` (equations 11-12); 1 from iteration ``m0`` on."""
    if m0 <= 0:
        return 1.0
    return max(float(t0) ** (1.0 - m / m0), 1.0)
