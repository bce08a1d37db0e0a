"""The inference TREE-HEDGE needs, taken from ``engine.inference``.

One place adapts the calls: marginals of the tree model (equation (2)), ln Z, the most probable
labelling (max-product), and the incremental models the learner predicts with.
"""

from __future__ import annotations

import numpy as np

from engine.errors import InconsistentEvidenceError, InvalidParameterError
from engine.hedge import bruteforce
from engine.inference.belief_propagation import belief_propagation
from engine.inference.belief_propagation import max_product as _max_product
from engine.trees import Tree

__all__ = ["marginals", "log_partition", "max_product", "make_model", "check_consistent"]


def marginals(tree: Tree, theta: np.ndarray, data: np.ndarray) -> np.ndarray:
    """The ``(n, k)`` marginals of the model (tree, theta ``(n-1, k, k)``, data ``(n, k)``)."""
    return belief_propagation(tree, data, theta).marginals


def log_partition(tree: Tree, theta: np.ndarray, data: np.ndarray) -> float:
    """ln Z of equation (1) (-inf when the total mass is zero)."""
    try:
        return belief_propagation(tree, data, theta).log_partition
    except InconsistentEvidenceError:
        return -np.inf


def max_product(tree: Tree, log_theta: np.ndarray, log_data: np.ndarray) -> np.ndarray:
    """A labelling maximising sum of log_theta over edges + sum of log_data over vertices."""
    return _max_product(tree, log_data, log_theta)[0]


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
    """An object with ``marginal(v)`` and ``update(v, row)`` for the given backend: the online
    sum-product model of section 4 (O(cover height) per call), a full belief-propagation pass
    after each update, or enumeration."""
    if backend == "brute":
        return _Recompute(bruteforce.brute_marginals, tree, theta, data)
    if backend == "online":
        from engine.inference.online import OnlineModel

        return OnlineModel(tree, data.shape[1], theta, data)
    if backend == "bp":
        return _Recompute(marginals, tree, theta, data)
    raise InvalidParameterError(f"unknown backend {backend!r}")
