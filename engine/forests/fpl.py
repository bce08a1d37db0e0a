"""Follow the Perturbed Leader over forests or spanning trees (Kalai & Vempala 2005;
"Online Forest Density Estimation", Koriche, Algorithm 1, lines 8-10).

The leader of round ``t`` minimises ``<r^t + sum_{tau<=t} phi^tau(x^tau), f>`` over the structure
class, with ``r^t`` uniform in ``[0, scale / beta_t]^E``. ``scale = 1`` is the paper's choice; a
smaller scale perturbs less (faster convergence to the Chow-Liu tree, weaker regret guarantee).
"""

from __future__ import annotations

import math

import numpy as np

from engine.forests.structure import _check_model, kernels
from engine.forests.estimators import pairs
from engine.params import Param

__all__ = ["PerturbedLeader", "paper_alpha", "paper_beta", "SCALE"]

#: The scale of the perturbation (1: the paper's; smaller perturbs less).
SCALE = Param(float, 1.0, "the perturbation scale (1 = the paper's)", lo=0)


def paper_alpha(t: int, n: int) -> float:
    """Horizon-independent mixing weight of the old mixture, ``1 / (4 sqrt(2 t))``."""
    return 1.0 / (4.0 * math.sqrt(2.0 * t))


def paper_beta(t: int, n: int) -> float:
    """Horizon-independent perturbation rate ``sqrt(2 / t) / n`` (perturbations in ``[0, 1/beta]``)."""
    return math.sqrt(2.0 / t) / n


class PerturbedLeader:
    """Cumulative structure losses ``W`` (E,) and the perturbed leader.

    n : number of variables; model : ``"trees"`` or ``"forests"``; scale : perturbation scale.
    """

    def __init__(self, n: int, model: str = "trees", scale: float = 1.0):
        self.forest = _check_model(model)
        self.n, self.scale = int(n), SCALE.check(scale, "perturbation_scale")
        self.iu, self.ju = pairs(self.n)
        self.W = np.zeros(len(self.iu))

    def add(self, phi: np.ndarray) -> None:
        """``W += phi`` (the round's edge losses)."""
        self.W += phi

    def leader(self, beta: float, rng) -> np.ndarray:
        """Sorted edge ids of ``argmin <W + r, f>``, ``r ~ U[0, scale/beta]^E``."""
        if self.n < 2:
            return np.zeros(0, dtype=np.int64)
        w = self.W + rng.random(len(self.W)) * (self.scale / beta) if self.scale > 0 else self.W
        return kernels().greedy_min(w, self.iu, self.ju, self.n, self.forest)
