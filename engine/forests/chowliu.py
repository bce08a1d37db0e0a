"""Batch baselines: the Chow-Liu tree (Chow & Liu 1968) and the thresholded Chow-Liu forest
(CLT, Tan, Anandkumar & Willsky 2011), as used in section 6 of
"Online Forest Density Estimation" (Koriche).

:class:`ChowLiu` (scikit-learn style): pairwise counts by one matrix product, pair tables with
``pseudocount`` per cell and node tables their marginals (the smoothing of the reference numbers
in ``../shared/data/README.md``: 0.25), mutual information, a maximum spanning tree. With
``epsilon`` set, edges whose mutual information is below ``N^-epsilon`` are dropped (CLT; ``N`` is
the number of training samples, as in Tan et al.; the OFDE paper writes ``n^-epsilon`` with its
``n`` the number of variables, which would prune almost every edge).
:func:`thresholded_chow_liu` picks ``epsilon`` from ``(1/4, 1/2, 3/4)`` on a validation set.
"""

from __future__ import annotations

import numpy as np

from engine.errors import InvalidParameterError
from engine.forests.estimators import PairCounts, consistent_tables, forest_loglik, mutual_information
from engine.forests.structure import edges_of, maximum_spanning_tree

__all__ = ["ChowLiu", "thresholded_chow_liu", "EPSILONS"]

EPSILONS = (0.25, 0.5, 0.75)


class ChowLiu:
    """Chow-Liu tree (``epsilon=None``) or thresholded Chow-Liu forest.

    Fitted: ``counts_``, ``tables_``, ``mi_`` (E,), ``tree_edges_`` (n-1, 2) the Chow-Liu tree,
    ``edges_`` (k, 2) the model's edges (the tree minus pruned edges), ``threshold_``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x0 = rng.integers(0, 2, 500)
    >>> X = np.column_stack([x0, x0 ^ (rng.random(500) < 0.1), rng.integers(0, 2, 500)])
    >>> cl = ChowLiu().fit(X)
    >>> cl.edges_.tolist(), round(cl.score(X), 4)
    ([[0, 1], [1, 2]], -1.6477)
    """

    def __init__(self, pseudocount: float = 0.25, epsilon: float | None = None):
        self.pseudocount = pseudocount
        self.epsilon = epsilon

    def fit(self, X, m: int = 2) -> "ChowLiu":
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 2:
            raise InvalidParameterError(f"Chow-Liu needs an (N, n) sample with N >= 1 and n >= 2, got shape {X.shape}")
        if self.epsilon is not None and not 0 < self.epsilon < 1:
            raise InvalidParameterError(f"epsilon must be in (0, 1), got {self.epsilon}")
        n = X.shape[1]
        self.counts_ = PairCounts.from_data(X, m)
        return self._fit_counts(n)

    def fit_counts(self, counts: PairCounts) -> "ChowLiu":
        """Fit from counts already accumulated (e.g. by an online learner)."""
        self.counts_ = counts
        return self._fit_counts(counts.n)

    def _fit_counts(self, n: int) -> "ChowLiu":
        self.tables_ = consistent_tables(self.counts_, self.pseudocount)
        self.mi_ = mutual_information(self.tables_)
        ids = maximum_spanning_tree(self.mi_, n)
        self.tree_ids_ = ids
        self.tree_edges_ = edges_of(ids, n)
        if self.epsilon is None:
            self.threshold_ = None
            self.ids_ = ids
        else:
            self.threshold_ = float(self.counts_.total) ** (-self.epsilon)
            self.ids_ = ids[self.mi_[ids] >= self.threshold_]
        self.edges_ = edges_of(self.ids_, n)
        return self

    def loglik(self, X) -> np.ndarray:
        """``log P(x)`` (nats) per row."""
        return forest_loglik(np.asarray(X), self.ids_, self.tables_)

    def score(self, X) -> float:
        """Average log-likelihood (nats)."""
        return float(self.loglik(X).mean())


def thresholded_chow_liu(X_train, X_valid, m: int = 2, *, pseudocount: float = 0.25,
                         epsilons=EPSILONS) -> ChowLiu:
    """CLT with ``epsilon`` chosen by validation log-likelihood (ties: the first). The fitted model
    also has ``valid_scores_`` (dict epsilon -> average validation log-likelihood)."""
    base = ChowLiu(pseudocount).fit(X_train, m)
    best, scores = None, {}
    for eps in epsilons:
        model = ChowLiu(pseudocount, eps).fit_counts(base.counts_)
        scores[float(eps)] = model.score(X_valid)
        if best is None or scores[float(eps)] > scores[float(best.epsilon)]:
            best = model
    best.valid_scores_ = scores
    return best
