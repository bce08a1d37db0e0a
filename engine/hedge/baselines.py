"""The two baselines of TREE-HEDGE ("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, section 5):
Hedge per task and one shared Hedge.

Both are Hedge (Freund and Schapire 1997) in the allocation model: weights over k actions,
prediction = normalised weights, update w(a) <- w(a) exp(-eta y(a)). Weights are kept as
logarithms shifted so that the largest is 0, so long runs neither underflow nor overflow.
"""

from __future__ import annotations

import numpy as np

from engine.hedge.potentials import check_eta, check_states, favourite_actions

__all__ = ["IndependentHedge", "SharedHedge"]


class IndependentHedge:
    """One Hedge per task: task v only ever learns from its own trials (the tree is ignored).

    Verbs as in river: ``predict_one(v) -> p`` (shape (k,)), ``learn_one(v, y)``.
    """

    def __init__(self, n: int, k: int, *, eta: float):
        self.n = int(n)
        self.k = check_states(k)
        self.eta = check_eta(eta)
        self._logw = np.zeros((self.n, self.k))

    def predict_one(self, v: int) -> np.ndarray:
        w = np.exp(self._logw[v])
        return w / w.sum()

    def learn_one(self, v: int, y) -> None:
        row = self._logw[v] - self.eta * np.asarray(y, dtype=np.float64)
        self._logw[v] = row - row.max()

    def favourites(self) -> np.ndarray:
        """The action of largest weight at every task, -1 where tied, shape (n,)."""
        w = np.exp(self._logw)
        return favourite_actions(w / w.sum(axis=1, keepdims=True))


class SharedHedge:
    """One Hedge for all tasks: every trial updates the same weights (the task is ignored)."""

    def __init__(self, k: int, *, eta: float):
        self.k = check_states(k)
        self.eta = check_eta(eta)
        self._logw = np.zeros(self.k)

    def predict_one(self, v=None) -> np.ndarray:
        w = np.exp(self._logw)
        return w / w.sum()

    def learn_one(self, v, y) -> None:
        row = self._logw - self.eta * np.asarray(y, dtype=np.float64)
        self._logw = row - row.max()
