"""Structure learning by the greedy matroid algorithm
("Online Forest Density Estimation", Koriche, section 2).

Forests of ``K_n`` are the independent sets of the graphic matroid and spanning trees its bases.
:func:`greedy_structure` minimises a linear objective ``<w, f>`` over either: Kruskal's algorithm
for spanning trees; for forests, the same scan stopped at the first non-negative weight (only
edges of negative weight can lower the objective). :func:`forest_via_extra_vertex` computes the
same forest as a spanning tree of ``K_{n+1}`` whose extra vertex ``n`` is joined to every vertex
by a zero-weight edge (ties between zero-weight edges resolved towards the extra vertex), and
:func:`extend_forest` / :func:`restrict_tree` move between the two views (swap rounding works on
spanning trees, so forests are rounded in ``K_{n+1}``).

The compiled kernels live in :mod:`engine.forests._kernels`, loaded on first use.
"""

from __future__ import annotations

import numpy as np

from engine.errors import InvalidParameterError
from engine.forests.estimators import pair_id, pairs
from engine.params import Param

__all__ = ["kernels", "warm_up", "greedy_structure", "maximum_spanning_tree", "forest_via_extra_vertex",
           "edges_of", "extend_forest", "restrict_tree", "MODELS", "MODEL"]

MODELS = ("trees", "forests")
#: The experts of OFDE and the structure Chow-Liu's search returns: spanning trees or forests.
MODEL = Param(str, "trees", "Markov trees or Markov forests", choices=MODELS)
_KERNELS = None


def kernels():
    """The compiled kernels module (numba imported and compiled on the first call only)."""
    global _KERNELS
    if _KERNELS is None:
        from engine.forests import _kernels

        _KERNELS = _kernels
    return _KERNELS


def warm_up() -> None:
    """Compile (or load from the on-disk cache) every kernel on a tiny input, so that timed rounds
    measure the algorithm, not the compiler."""
    K = kernels()
    iu, ju = pairs(3)
    ids = K.greedy_min(np.array([-1.0, -2.0, 0.5]), iu, ju, 3, True)
    K.extend_forest(ids, iu, ju, 3)
    t = np.array([[0, 1], [1, 2]], dtype=np.int64)
    K.merge_bases(t, np.array([[0, 1], [0, 2]], dtype=np.int64), 0.5, np.full(3, 0.25), 3)


def _check_model(model: str) -> bool:
    return MODEL.check(model, "model") == "forests"


def greedy_structure(w: np.ndarray, n: int, model: str = "trees") -> np.ndarray:
    """Sorted edge ids (pairs order) of ``argmin_f <w, f>`` over spanning trees (``"trees"``) or
    forests (``"forests"``) of ``K_n``; ``w`` has shape ``(n(n-1)/2,)``."""
    forest = _check_model(model)
    w = _pair_weights(w, n)
    if n < 2:
        return np.zeros(0, dtype=np.int64)
    iu, ju = pairs(n)
    return kernels().greedy_min(w, iu, ju, n, forest)


def _pair_weights(w, n: int) -> np.ndarray:
    """``w`` as a contiguous float64 vector of one weight per pair of ``K_n``, or one error line."""
    w = np.ascontiguousarray(w, dtype=np.float64)
    if w.shape != (n * (n - 1) // 2,):
        raise InvalidParameterError(f"weights must have shape ({n * (n - 1) // 2},) for n={n}, got {w.shape}")
    return w


def maximum_spanning_tree(weights: np.ndarray, n: int) -> np.ndarray:
    """Sorted edge ids of a maximum-weight spanning tree (Chow-Liu's step on mutual information).

    Prim's algorithm on the dense ``n x n`` matrix in NumPy, O(n^2): no compilation, so a batch
    Chow-Liu fit in a fresh process costs only its arithmetic.
    """
    w = _pair_weights(weights, n)
    if n < 2:
        return np.zeros(0, dtype=np.int64)
    iu, ju = pairs(n)
    W = np.full((n, n), -np.inf)
    W[iu, ju] = w
    W[ju, iu] = w
    in_tree = np.zeros(n, dtype=bool)
    in_tree[0] = True
    best = W[0].copy()
    link = np.zeros(n, dtype=np.int64)
    out = np.empty(n - 1, dtype=np.int64)
    for k in range(n - 1):
        cand = np.where(in_tree, -np.inf, best)
        v = int(np.argmax(cand))
        out[k] = pair_id(link[v], v, n)
        in_tree[v] = True
        better = W[v] > best
        best = np.where(better, W[v], best)
        link = np.where(better, v, link)
    return np.sort(out)


def edges_of(ids: np.ndarray, n: int) -> np.ndarray:
    """``(k, 2)`` vertex pairs of edge ids."""
    iu, ju = pairs(n)
    ids = np.asarray(ids, dtype=np.int64)
    return np.stack([iu[ids], ju[ids]], axis=1) if len(ids) else np.zeros((0, 2), dtype=np.int64)


def forest_via_extra_vertex(w: np.ndarray, n: int) -> np.ndarray:
    """The minimum forest of ``w`` as a minimum spanning tree of ``K_{n+1}`` with zero-weight
    edges to an extra vertex, extra edges dropped (the matroid view, for tests and teaching).
    Same weight as :func:`greedy_structure` (same forest when no weight is exactly zero)."""
    w = np.asarray(w, dtype=np.float64)
    iu, ju = pairs(n + 1)
    real = ju < n
    big = np.zeros(len(iu))
    big[real] = w[pair_id(iu[real], ju[real], n)]
    ids = greedy_structure(big, n + 1, "trees")
    ids = ids[ju[ids] < n]
    return np.sort(pair_id(iu[ids], ju[ids], n))


def extend_forest(edges: np.ndarray, n: int) -> np.ndarray:
    """A forest of ``K_n`` (``(k, 2)`` pairs) as a spanning tree of ``K_{n+1}``: every component is
    joined to the extra vertex ``n`` through its smallest vertex. Returns ``(n, 2)`` pairs."""
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    iu, ju = pairs(n)
    ids = pair_id(e[:, 0], e[:, 1], n) if len(e) else np.zeros(0, dtype=np.int64)
    return kernels().extend_forest(np.ascontiguousarray(ids, dtype=np.int64), iu, ju, n)


def restrict_tree(tree_edges: np.ndarray, n: int) -> np.ndarray:
    """Drop the edges at the extra vertex ``n``: the forest of ``K_n`` a spanning tree of
    ``K_{n+1}`` stands for."""
    e = np.asarray(tree_edges, dtype=np.int64)
    return e[(e < n).all(axis=1)]
