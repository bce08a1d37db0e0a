"""The loss bound of TREE-HEDGE ("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, Theorem 9), for the
best comparator, exactly.

For every labelling mu of the tasks,

    sum_t y^t . p_hat^t  <=  c_eta * ( L(mu) + (1/eta) ln(1 / p(mu | Theta, D^1)) ),
    c_eta = eta / (1 - e^{-eta}),  L(mu) = sum_t y^t(mu(v^t)).

(The seed prints the second term as "ln2/eta * 1/log2 p", a typesetting slip for (1/eta) ln(1/p).)
The tightest instance minimises L(mu) - (1/eta) ln p(mu) over all k^n labellings. With
L_v(a) the cumulative loss of action a at task v,

    L(mu) - (1/eta) ln p(mu) = (1/eta) [ ln Z(D^1) - ( sum_e ln theta_e(mu) + sum_v (ln d^1_v(mu(v)) - eta L_v(mu(v))) ) ],

so the minimiser is the most probable labelling of the tree model with data D^1 * exp(-eta L):
a max-product (min-sum) problem on the tree, and ln Z(D^1) is one sum-product pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import InvalidParameterError
from engine.hedge import _inference
from engine.hedge.potentials import check_eta, check_states, edge_potentials, initial_data
from engine.trees import Tree

__all__ = ["Theorem9Bound", "BoundOracle", "theorem9_bound", "c_eta", "task_losses"]


def c_eta(eta: float) -> float:
    """The constant eta / (1 - e^{-eta}) of Theorem 9."""
    eta = check_eta(eta)
    return float(eta / -np.expm1(-eta))


def task_losses(n: int, vertices: np.ndarray, losses: np.ndarray) -> np.ndarray:
    """The cumulative loss of each action at each task, shape (n, k)."""
    out = np.zeros((n, losses.shape[1]))
    np.add.at(out, vertices, losses)
    return out


@dataclass(frozen=True)
class Theorem9Bound:
    """Theorem 9 evaluated at its best comparator.

    comparator : ndarray of int64, shape (n,)
        The labelling mu* minimising L(mu) - (1/eta) ln p(mu | Theta, D^1).
    comparator_loss : float
        L(mu*), the loss mu* would have suffered.
    log_prior : float
        ln p(mu* | Theta, D^1) (<= 0).
    bound : float
        c_eta (L(mu*) + (1/eta) ln(1/p(mu*))): no run of TREE-HEDGE loses more.
    best_hindsight_loss : float
        min over all labellings of L(mu) (each task's best action in hindsight, prior ignored).
    """

    eta: float
    c_eta: float
    comparator: np.ndarray
    comparator_loss: float
    log_prior: float
    bound: float
    best_hindsight_loss: float

    @property
    def complexity(self) -> float:
        """(1/eta) ln(1/p(mu*)), the price of the comparator under the prior."""
        return -self.log_prior / self.eta


def theorem9_bound(tree: Tree, k: int, *, eta: float, vertices, losses, coupling: float | None = None,
                   theta=None, data=None, log_z: float | None = None) -> Theorem9Bound:
    """The bound of Theorem 9 for the trials (``vertices`` (T,), ``losses`` (T, k)) at its best comparator.

    ``log_z`` (ln Z of the prior model) may be passed to save a pass when bounding many prefixes.
    """
    k = check_states(k)
    eta = check_eta(eta)
    th = edge_potentials(tree, k, theta, coupling)
    d1 = initial_data(tree, k, data)
    vertices = np.asarray(vertices, dtype=np.int64)
    losses = np.asarray(losses, dtype=np.float64).reshape(len(vertices), k)
    if len(vertices) and (vertices.min() < 0 or vertices.max() >= tree.n):
        raise InvalidParameterError(f"a trial's task is not a vertex 0..{tree.n - 1}")
    return BoundOracle(tree, th, d1, eta, log_z=log_z)(task_losses(tree.n, vertices, losses))


class BoundOracle:
    """Theorem 9 for one prior (T, Theta, D^1, eta) and any table of cumulative task losses.

    Computes ln Z(D^1) once (exactly, at any magnitude; InconsistentEvidenceError when it is
    zero); each call is one max-product pass. ``theta`` (n-1, k, k) and ``data`` (n, k) must
    already be validated.
    """

    def __init__(self, tree: Tree, theta: np.ndarray, data: np.ndarray, eta: float, *,
                 log_z: float | None = None):
        self.tree, self.eta = tree, float(eta)
        with np.errstate(divide="ignore"):
            self._log_theta = np.log(theta)
            self._log_d1 = np.log(data)
        self.log_z = _inference.check_consistent(tree, theta, data) if log_z is None else float(log_z)
        self.c_eta = float(self.eta / -np.expm1(-self.eta))

    def __call__(self, L: np.ndarray) -> Theorem9Bound:
        """The bound given L, the ``(n, k)`` cumulative loss of each action at each task."""
        eta, tree = self.eta, self.tree
        node = self._log_d1 - eta * L
        node = node - node.max(axis=1, keepdims=True)  # per-row shifts leave the argmax unchanged
        mu = np.asarray(_inference.max_product(tree, self._log_theta, node), dtype=np.int64)
        e = tree.edges
        idx = np.arange(tree.n)
        log_prior = float(self._log_theta[np.arange(len(e)), mu[e[:, 0]], mu[e[:, 1]]].sum()
                          + self._log_d1[idx, mu].sum() - self.log_z)
        comp_loss = float(L[idx, mu].sum())
        c = self.c_eta
        return Theorem9Bound(eta, c, mu, comp_loss, log_prior, c * (comp_loss - log_prior / eta),
                             float(L.min(axis=1).sum()))
