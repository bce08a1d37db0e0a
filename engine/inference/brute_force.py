"""Exact enumeration of every labelling of a small tree: the oracle the tests compare against.

Sums (and maximises) the product of potentials of the sum-product lecture notes, eq. 1, over all
k^n labellings; no message passing, no cover. Limited to k^n <= 2^22 labellings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import InconsistentEvidenceError, InvalidParameterError
from engine.inference.potentials import check_states, child_potentials, node_potential_array
from engine.trees.model import Tree

__all__ = ["BruteForce", "brute_force", "MAX_LABELLINGS"]

MAX_LABELLINGS = 2 ** 22


@dataclass(frozen=True)
class BruteForce:
    """Marginals ``(n, k)``, ``log_partition``, the best labelling ``(n,)`` and its log score."""

    marginals: np.ndarray
    log_partition: float
    best_labelling: np.ndarray
    best_log_value: float


def brute_force(tree: Tree, node_potentials, edge_potentials, *, k: int | None = None) -> BruteForce:
    """Enumerate all labellings (k^n <= 2^22). Potentials as in ``belief_propagation``."""
    if k is None:
        k = np.asarray(node_potentials if node_potentials is not None else edge_potentials).shape[-1]
    k = check_states(k)
    if k ** tree.n > MAX_LABELLINGS:
        raise InvalidParameterError(f"brute force needs k^n <= {MAX_LABELLINGS}, got {k}^{tree.n}")
    phi = node_potential_array(tree, node_potentials, k)
    P = child_potentials(tree, edge_potentials, k)
    n = tree.n
    L = np.indices((k,) * n).reshape(n, -1)   # L[v, j] = label of v in labelling j
    with np.errstate(divide="ignore"):
        lphi, lP = np.log(phi), np.log(P)
    score = np.zeros(L.shape[1])
    for v in range(n):
        score += lphi[v, L[v]]
        p = tree.parent[v]
        if p >= 0:
            score += lP[v, L[p], L[v]]
    m = score.max()
    if m == -np.inf:
        raise InconsistentEvidenceError("every labelling has probability zero (total mass 0)")
    w = np.exp(score - m)
    Z = w.sum()
    marg = np.zeros((n, k))
    for v in range(n):
        marg[v] = np.bincount(L[v], weights=w, minlength=k) / Z
    j = int(score.argmax())
    return BruteForce(marg, float(m + np.log(Z)), L[:, j].astype(np.int64), float(m))
