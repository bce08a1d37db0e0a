"""The inference TREE-HEDGE needs, taken from ``engine.inference`` (issue 4).

One place adapts the calls: marginals of the tree model (equation (2)), ln Z, the most probable
labelling (max-product), and the incremental models the learner predicts with.
"""

from __future__ import annotations

import numpy as np

from engine.errors import InconsistentEvidenceError, InvalidParameterError
from engine.hedge import bruteforce
from engine.trees import Tree

__all__ = ["marginals", "log_partition", "max_product", "make_model", "check_consistent"]


def marginals(tree: Tree, theta: np.ndarray, data: np.ndarray) -> np.ndarray:
    """The ``(n, k)`` marginals of the model (tree, theta ``(n-1, k, k)``, data ``(n, k)``)."""
    return bruteforce.brute_marginals(tree, theta, data)


def log_partition(tree: Tree, theta: np.ndarray, data: np.ndarray) -> float:
    """ln Z of equation (1)."""
    return bruteforce.brute_log_partition(tree, theta, data)


def max_product(tree: Tree, log_theta: np.ndarray, log_data: np.ndarray) -> np.ndarray:
    """A labelling maximising sum of log_theta over edges + sum of log_data over vertices."""
    mu = bruteforce.labellings(tree.n, log_data.shape[1])
    s = log_data[np.arange(tree.n), mu].sum(axis=1)
    e = tree.edges
    for i in range(len(e)):
        s = s + log_theta[i][mu[:, e[i, 0]], mu[:, e[i, 1]]]
    return mu[int(np.argmax(s))].copy()


def check_consistent(tree: Tree, theta: np.ndarray, data: np.ndarray) -> float:
    """ln Z of the model, raising :class:`InconsistentEvidenceError` when every labelling has mass 0."""
    lz = log_partition(tree, theta, data)
    if not np.isfinite(lz):
        raise InconsistentEvidenceError(
            "the prior (edge potentials and initial data) gives every labelling probability zero")
    return lz


class _Recompute:
    """Marginals by a full recomputation after each update: O(n) per trial, always exact."""

    def __init__(self, fn, tree, theta, data):
        self._fn, self._tree, self._theta = fn, tree, theta
        self._data = data.copy()
        self._m = None

    def marginal(self, v: int) -> np.ndarray:
        if self._m is None:
            self._m = self._fn(self._tree, self._theta, self._data)
        return self._m[v].copy()

    def update(self, v: int, row: np.ndarray) -> None:
        self._data[v] = row
        self._m = None


def make_model(backend: str, tree: Tree, theta: np.ndarray, data: np.ndarray):
    """An object with ``marginal(v)`` and ``update(v, row)`` for the given backend."""
    if backend == "brute":
        return _Recompute(bruteforce.brute_marginals, tree, theta, data)
    if backend in ("bp", "online"):
        return _Recompute(marginals, tree, theta, data)
    raise InvalidParameterError(f"unknown backend {backend!r}")
