"""The loss bound of TREE-HEDGE (seed 000, Theorem 9), for the best comparator, exactly.

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

__all__ = ["Theorem9Bound", "theorem9_bound", "c_eta", "task_losses"]


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
    L = task_losses(tree.n, vertices, losses)
    with np.errstate(divide="ignore"):
        log_theta = np.log(th)
        log_d1 = np.log(d1)
    node = log_d1 - eta * L
    node = node - node.max(axis=1, keepdims=True)  # per-row shifts leave the argmax unchanged
    mu = _inference.max_product(tree, log_theta, node)
    if log_z is None:
        log_z = _inference.log_partition(tree, th, d1)
    e = tree.edges
    idx = np.arange(tree.n)
    log_prior = float(log_theta[np.arange(len(e)), mu[e[:, 0]], mu[e[:, 1]]].sum()
                      + log_d1[idx, mu].sum() - log_z)
    comp_loss = float(L[idx, mu].sum())
    c = float(eta / -np.expm1(-eta))
    return Theorem9Bound(eta, c, mu, comp_loss, log_prior, c * (comp_loss - log_prior / eta),
                         float(L.min(axis=1).sum()))
