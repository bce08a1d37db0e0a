"""Brute-force oracles for TREE-HEDGE on tiny trees
("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, section 5).

TREE-HEDGE is Hedge run over all k^n labellings of the tree, with prior weights
p(mu | Theta, D^1) (equation (1)); a labelling mu suffers y^t(mu(v^t)) on trial t. This module
runs exactly that, with an explicit weight per labelling, so that the efficient learner (marginals
of the tree model, multiplicative update of the data row D(v)) can be checked against it, and
enumerates the labellings to find the best comparator of Theorem 9.
"""

from __future__ import annotations

import numpy as np

from engine.errors import InvalidParameterError
from engine.hedge.potentials import check_eta, check_states, edge_potentials, initial_data
from engine.trees import Tree

__all__ = ["MAX_LABELLINGS", "labellings", "log_weights", "brute_marginals", "brute_log_partition",
           "brute_best_comparator", "BruteForceHedge"]

#: The most labellings the oracles enumerate (k^n).
MAX_LABELLINGS = 1 << 20


def labellings(n: int, k: int) -> np.ndarray:
    """All k^n labellings as rows of an ``(k**n, n)`` int array (vertex 0 varies slowest)."""
    if k ** n > MAX_LABELLINGS:
        raise InvalidParameterError(f"{k}^{n} labellings are too many to enumerate (limit {MAX_LABELLINGS})")
    grids = np.indices((k,) * n).reshape(n, -1).T
    return np.ascontiguousarray(grids, dtype=np.int64)


def log_weights(tree: Tree, theta: np.ndarray, data: np.ndarray, mu: np.ndarray | None = None) -> np.ndarray:
    """ln of the unnormalised weight prod theta prod d of each labelling (-inf where it is zero).

    theta : ``(n - 1, k, k)`` aligned with ``tree.edges``; data : ``(n, k)``.
    """
    k = data.shape[1]
    mu = labellings(tree.n, k) if mu is None else mu
    with np.errstate(divide="ignore"):
        lt, ld = np.log(theta), np.log(data)
    out = ld[np.arange(tree.n), mu].sum(axis=1)
    e = tree.edges
    for i in range(len(e)):
        out = out + lt[i][mu[:, e[i, 0]], mu[:, e[i, 1]]]
    return out


def brute_log_partition(tree: Tree, theta, data) -> float:
    """ln Z of equation (1) by enumeration."""
    from scipy.special import logsumexp   # start-up: scipy.special takes ~0.15 s; only the oracles need it

    return float(logsumexp(log_weights(tree, theta, data)))


def brute_marginals(tree: Tree, theta, data) -> np.ndarray:
    """The ``(n, k)`` marginals p(v -> a | Theta, D) of equation (2) by enumeration."""
    k = data.shape[1]
    mu = labellings(tree.n, k)
    lw = log_weights(tree, theta, data, mu)
    w = np.exp(lw - lw.max())
    out = np.empty((tree.n, k))
    for v in range(tree.n):
        out[v] = np.bincount(mu[:, v], weights=w, minlength=k)
    return out / w.sum()


def brute_best_comparator(tree: Tree, theta, data1, eta: float, task_losses: np.ndarray):
    """The labelling minimising L(mu) - (1/eta) ln p(mu | Theta, D^1), by enumeration.

    task_losses : ``(n, k)``, the cumulative loss of each action at each task.
    Returns ``(mu, value)`` with value = L(mu) - (1/eta) ln p(mu).
    """
    from scipy.special import logsumexp   # start-up: as in brute_log_partition

    k = data1.shape[1]
    mu = labellings(tree.n, k)
    lw = log_weights(tree, theta, data1, mu)
    logp = lw - logsumexp(lw)
    loss = task_losses[np.arange(tree.n), mu].sum(axis=1)
    with np.errstate(invalid="ignore"):
        obj = np.where(np.isfinite(logp), loss - logp / eta, np.inf)
    i = int(np.argmin(obj))
    return mu[i].copy(), float(obj[i])


class BruteForceHedge:
    """Hedge over all k^n labellings with prior p(mu | Theta, D^1): the definition TREE-HEDGE implements.

    Verbs as in river: ``predict_one(v) -> p`` (the weight of the labellings giving v each action)
    and ``learn_one(v, y)`` (each labelling mu loses ``y[mu(v)]``; weights times exp(-eta loss)).
    For trees with k^n <= :data:`MAX_LABELLINGS`.
    """

    def __init__(self, tree: Tree, k: int, *, eta: float, coupling: float | None = None, theta=None, data=None):
        self.tree = tree
        self.k = check_states(k)
        self.eta = check_eta(eta)
        self._mu = labellings(tree.n, self.k)
        theta = edge_potentials(tree, self.k, theta, coupling)
        self._logw = log_weights(tree, theta, initial_data(tree, self.k, data), self._mu)

    def predict_one(self, v: int) -> np.ndarray:
        w = np.exp(self._logw - self._logw.max())
        p = np.bincount(self._mu[:, v], weights=w, minlength=self.k)
        return p / p.sum()

    def learn_one(self, v: int, y) -> None:
        y = np.asarray(y, dtype=np.float64)
        self._logw = self._logw - self.eta * y[self._mu[:, v]]
