"""Swap rounding by random base exchange (Chekuri, Vondrák & Zenklusen 2010;
"Online Forest Density Estimation", Koriche, section 2).

A convex combination ``p = sum_c w_c f_c`` of spanning trees is rounded by repeatedly merging two
components ``(w_a, A), (w_b, B)`` into ``(w_a + w_b, T)`` with :func:`merge_trees` (random base
exchanges): ``E[1_T] = (w_a 1_A + w_b 1_B) / (w_a + w_b)``, so every edge keeps its marginal.
``SWAP_k`` (:func:`swap_k`) stops when at most ``k`` components remain; ``SWAP_1``
(:func:`swap_1`) samples one tree whose edge indicators have expectation ``p``. Forests are rounded
as spanning trees of ``K_{n+1}`` (see :func:`engine.forests.structure.extend_forest`).

Trees are ``(V-1, 2)`` int64 arrays of vertex pairs over ``V`` vertices.
"""

from __future__ import annotations

import numpy as np

from engine.errors import InvalidParameterError
from engine.forests.structure import kernels

__all__ = ["merge_trees", "swap_k", "swap_1", "edge_marginals"]


def merge_trees(a: np.ndarray, b: np.ndarray, weight_a: float, weight_b: float, rng, V: int) -> np.ndarray:
    """One merge of SWAP: a random spanning tree ``T`` with ``E[1_T] = (w_a 1_A + w_b 1_B)/(w_a+w_b)``."""
    if not (weight_a >= 0 and weight_b >= 0 and weight_a + weight_b > 0):
        raise InvalidParameterError(f"merge weights must be non-negative, not both zero; got {weight_a}, {weight_b}")
    coins = rng.random(V)
    out, _ = kernels().merge_bases(np.ascontiguousarray(a, dtype=np.int64), np.ascontiguousarray(b, dtype=np.int64),
                                   weight_a / (weight_a + weight_b), coins, V)
    return out


def swap_k(trees: list, weights, k: int, rng, V: int):
    """Merge components (the two lightest each time) until at most ``k`` remain.

    Returns ``(trees, weights)`` (new lists); the edge marginals are preserved in expectation.
    """
    if k < 1:
        raise InvalidParameterError(f"mixture size k must be at least 1, got {k}")
    trees = list(trees)
    weights = [float(w) for w in weights]
    while len(trees) > k:
        order = np.argsort(weights, kind="stable")
        i, j = sorted(order[:2].tolist())
        t = merge_trees(trees[i], trees[j], weights[i], weights[j], rng, V)
        w = weights[i] + weights[j]
        trees[i], weights[i] = t, w
        del trees[j], weights[j]
    return trees, weights


def swap_1(trees: list, weights, rng, V: int) -> np.ndarray:
    """One spanning tree sampled with edge marginals ``sum_c w_c 1_{f_c} / sum_c w_c``: the
    components merged in order (component 1 with 2, the result with 3, ...)."""
    if not trees:
        raise InvalidParameterError("swap rounding needs at least one component")
    t, w = trees[0], float(weights[0])
    for tc, wc in zip(trees[1:], weights[1:]):
        t = merge_trees(t, tc, w, float(wc), rng, V)
        w += float(wc)
    return t


def edge_marginals(trees: list, weights, V: int) -> np.ndarray:
    """``(V, V)`` symmetric matrix of ``sum_c w_c [e in f_c] / sum_c w_c``."""
    P = np.zeros((V, V))
    total = float(np.sum(weights))
    for t, w in zip(trees, weights):
        t = np.asarray(t)
        P[t[:, 0], t[:, 1]] += w / total
    return P + P.T
