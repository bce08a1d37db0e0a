"""K-best max-sum inference on one spanning tree and over an ensemble of trees, with the
certificate of exactness of Lemma 7.

"Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin Markov Networks"
(Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014), section 4.1 and supplementary Algorithm 1. On one tree, a max-sum
dynamic programme in post-order keeps, for every label v and value y_v, the K best scores of
labellings of the subtree below v (matrix ``P_v``); a child's list is turned into a message to
its parent (the K best over the child's value and rank, for each parent value) and merged into
the parent's list (the K best sums of two sorted lists, by a best-first heap search
over the pairs (i, j)). Back-pointers trace the K best labellings of the whole tree.

Over an ensemble of n trees the score is the average F(y) = (1/n) sum_t F_t(y). The candidate set
is the union of the trees' K-best lists; the threshold theta(K) = (1/n) sum_t F_t(y_{t,K}) averages
the K-th best score of every tree. Lemma 7: if the best candidate scores at least theta(K), it is
the exact maximiser over all 2^l labellings, since any labelling outside the candidate set scores
at most the K-th best in every tree. The same argument with the true multilabel taken out of the
candidate set certifies the worst violator used in training (a labelling outside the set still
scores at most theta). A tree whose list is complete (fewer than K labellings exist) makes the
certificate hold trivially (its K-th score is -inf).

Edge scores are an array ``(n_trees, l, 4)``: slot ``[t, v, 2*y_v + y_parent(v)]`` scores edge
``(v, parent[t, v])`` of tree t; the root's slot is ignored (see :mod:`engine.multilabel.spanning_trees`).
Comparisons are exact (no tolerance): rounding can only make the certificate decline a case that
is exact by a margin of the order of 1e-16 relative, never claim one falsely by more than that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import InvalidParameterError
from engine.multilabel._kernels import _certified, _ensemble, _kbest_tree, _workspace
from engine.multilabel.spanning_trees import LabelTrees

__all__ = ["TreeKBest", "EnsembleInference", "kbest_tree", "ensemble_inference", "certified_inference",
           "ensemble_scores", "brute_force_scores"]


# ----------------------------------------------------------------------------------- Python API

@dataclass(frozen=True)
class TreeKBest:
    """The K best labellings of one tree: ``labels`` uint8 (k, l), ``scores`` (k,), descending."""

    labels: np.ndarray
    scores: np.ndarray


@dataclass(frozen=True)
class EnsembleInference:
    """K-best inference over an ensemble of trees (Algorithm 1).

    candidates : uint8 (c, l), the union of the trees' K-best lists (with repeats)
    candidate_scores : (c,), ensemble score F of every candidate
    best : uint8 (l,), the best candidate y*_K; best_score its score
    violator : uint8 (l,) or None, the best candidate other than the excluded (true) multilabel
    violator_score : float (-inf when there is none)
    theta : the threshold theta(K) of Lemma 7 (-inf when a tree's list is complete)
    exact : best_score >= theta (y*_K is the exact maximiser over all labellings)
    violator_exact : violator_score >= theta (the violator is exact over all y != excluded)
    K : the list length used
    """

    candidates: np.ndarray
    candidate_scores: np.ndarray
    best: np.ndarray
    best_score: float
    violator: np.ndarray | None
    violator_score: float
    theta: float
    exact: bool
    violator_exact: bool
    K: int


def _check_scores(scores: np.ndarray, trees: LabelTrees) -> np.ndarray:
    s = np.ascontiguousarray(scores, dtype=np.float64)
    want = (trees.n_trees, trees.n_labels, 4)
    if s.shape != want:
        raise InvalidParameterError(f"edge scores have shape {s.shape}; expected {want} (trees, labels, 4)")
    if not np.all(np.isfinite(s)):
        raise InvalidParameterError("edge scores must be finite")
    return s


def _check_k(K: int) -> int:
    if int(K) != K or K < 1:
        raise InvalidParameterError(f"K must be a positive integer, got {K}")
    return int(K)


def kbest_tree(scores: np.ndarray, trees: LabelTrees, K: int, t: int = 0) -> TreeKBest:
    """The K best labellings of tree ``t`` under its edge scores ``scores[t]`` (Algorithm 1, lines 2-15)."""
    s = _check_scores(scores, trees)
    K = _check_k(K)
    labs = np.zeros((K, trees.n_labels), np.uint8)
    sc = np.empty(K)
    c = _kbest_tree(s[t], trees.parent[t], trees.post[t], trees.child_ptr[t], trees.child_idx[t], K, labs, sc,
                    _workspace(trees.n_labels, K))
    return TreeKBest(labs[:c].copy(), sc[:c].copy())


def ensemble_inference(scores: np.ndarray, trees: LabelTrees, K: int, exclude=None) -> EnsembleInference:
    """Algorithm 1 over the ensemble at one K: candidates, y*_K, worst violator, theta(K)."""
    s = _check_scores(scores, trees)
    K = _check_k(K)
    ex = np.zeros(trees.n_labels, np.uint8) if exclude is None else np.asarray(exclude, np.uint8)
    cand, cs, best, viol, theta = _ensemble(s, trees.parent, trees.post, trees.child_ptr, trees.child_idx,
                                            K, ex, exclude is not None, _workspace(trees.n_labels, K))
    vs = float(cs[viol]) if viol >= 0 else -np.inf
    return EnsembleInference(cand, cs, cand[best].copy(), float(cs[best]),
                             cand[viol].copy() if viol >= 0 else None, vs, float(theta),
                             bool(cs[best] >= theta), bool(viol >= 0 and vs >= theta), K)


def certified_inference(scores: np.ndarray, trees: LabelTrees, max_k: int, exclude=None, k_start: int = 2):
    """Double K from ``k_start`` until Lemma 7 holds or K = ``max_k``.

    Returns ``(labels, score, theta, K, certified)``: the best labelling (or the worst violator when
    ``exclude`` is given)."""
    s = _check_scores(scores, trees)
    max_k = _check_k(max_k)
    k0 = min(_check_k(k_start), max_k)
    ex = np.zeros(trees.n_labels, np.uint8) if exclude is None else np.asarray(exclude, np.uint8)
    out = np.zeros(trees.n_labels, np.uint8)
    score, theta, K, ok = _certified(s, trees.parent, trees.post, trees.child_ptr, trees.child_idx,
                                     k0, max_k, ex, exclude is not None, out)
    return out, float(score), float(theta), int(K), bool(ok)


def _all_labellings(l: int) -> np.ndarray:
    return ((np.arange(2 ** l)[:, None] >> np.arange(l)[None, :]) & 1).astype(np.uint8)


def ensemble_scores(scores: np.ndarray, trees: LabelTrees, Y: np.ndarray) -> np.ndarray:
    """Ensemble score F(y) of every row of ``Y`` (uint8 (m, l)), vectorised over labellings."""
    s = np.asarray(scores, np.float64)
    Y = np.asarray(Y, np.int64)
    n, l = trees.parent.shape
    tot = np.zeros(Y.shape[0])
    for t in range(n):
        v = np.flatnonzero(trees.parent[t] >= 0)
        p = trees.parent[t, v]
        tot += s[t, v[None, :], 2 * Y[:, v] + Y[:, p]].sum(axis=1)
    return tot / n


def brute_force_scores(scores: np.ndarray, trees: LabelTrees):
    """All 2^l labellings (uint8 rows, label j = bit j of the row index) and their ensemble scores."""
    Y = _all_labellings(trees.n_labels)
    return Y, ensemble_scores(scores, trees, Y)
