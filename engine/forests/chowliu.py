"""Batch baselines: the Chow-Liu tree (Chow & Liu 1968) and the thresholded Chow-Liu forest
(CLT, Tan, Anandkumar & Willsky 2011), as used in section 6 of
"Online Forest Density Estimation" (Koriche).

:class:`ChowLiu` (a scikit-learn density estimator): pairwise counts by one matrix product, pair tables with
``pseudocount`` per cell and node tables their marginals (the smoothing of the reference numbers
in ``../shared/data/README.md``: 0.25), mutual information, a maximum spanning tree. With
``epsilon`` set, edges whose mutual information is below ``N^-epsilon`` are dropped (CLT; ``N`` is
the number of training samples, as in Tan et al.; the OFDE paper writes ``n^-epsilon`` with its
``n`` the number of variables, which would prune almost every edge).
:func:`thresholded_chow_liu` picks ``epsilon`` from ``(1/4, 1/2, 3/4)`` on a validation set.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from engine.errors import InvalidParameterError
from engine.forests.estimators import PairCounts, consistent_tables, forest_loglik, mutual_information
from engine.forests.structure import edges_of, maximum_spanning_tree
from engine.forests.validation import CodesDensity, as_codes, check_alphabet, check_codes

__all__ = ["ChowLiu", "thresholded_chow_liu", "EPSILONS"]

EPSILONS = (0.25, 0.5, 0.75)


class ChowLiu(CodesDensity, BaseEstimator):
    """Chow-Liu tree (``epsilon=None``) or thresholded Chow-Liu forest: a scikit-learn density
    estimator over ``n >= 2`` discrete variables.

    Parameters
    ----------
    pseudocount : float
        Added to every cell of every pair table (node tables are their marginals).
    epsilon : float in (0, 1) or None
        With a value, edges whose mutual information is below ``N^-epsilon`` are dropped (CLT).
    m : int or None
        Alphabet size: samples are codes ``0..m-1``. None: the largest code of the training
        sample plus one (at least 2).

    ``fit(X)`` takes an ``(N, n)`` array of codes; ``score_samples(X)`` is ``log P(x)`` (nats) of each
    row and ``score(X)`` their mean (per sample, as ``GaussianMixture.score``; ``KernelDensity.score``
    sums instead). :meth:`fit_counts` fits from counts already accumulated.

    Fitted: ``m_``, ``n_features_in_``, ``counts_``, ``tables_``, ``mi_`` (E,), ``tree_edges_``
    (n-1, 2) the Chow-Liu tree, ``edges_`` (k, 2) the model's edges (the tree minus pruned edges),
    ``threshold_``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x0 = rng.integers(0, 2, 500)
    >>> X = np.column_stack([x0, x0 ^ (rng.random(500) < 0.1), rng.integers(0, 2, 500)])
    >>> cl = ChowLiu().fit(X)
    >>> cl.edges_.tolist(), round(cl.score(X), 4)
    ([[0, 1], [1, 2]], -1.6477)
    >>> cl.score_samples(X[:2]).round(4).tolist()
    [-1.386, -1.3494]

    Its parameters are scikit-learn's, so model selection works as for any estimator:

    >>> from sklearn.model_selection import GridSearchCV
    >>> GridSearchCV(ChowLiu(), {"pseudocount": [0.25, 50.0]}).fit(X).best_params_
    {'pseudocount': 0.25}
    """

    def __init__(self, pseudocount: float = 0.25, epsilon: float | None = None, *, m: int | None = None):
        self.pseudocount = pseudocount
        self.epsilon = epsilon
        self.m = m

    def fit(self, X, y=None) -> "ChowLiu":
        """Fit on the ``(N, n)`` codes ``X`` (``y`` is ignored, as by every density estimator)."""
        if isinstance(y, (int, np.integer)) and not isinstance(y, bool):
            raise TypeError(f"ChowLiu.fit(X, m) is now ChowLiu(m={y}).fit(X): the alphabet size is a parameter")
        X, m = check_codes(self, X, reset=True, m=self.m)
        self._check_epsilon()
        self.m_ = m
        self.counts_ = PairCounts.from_data(X, m)
        return self._fit_counts(X.shape[1])

    def fit_counts(self, counts: PairCounts) -> "ChowLiu":
        """Fit from counts already accumulated (e.g. by an online learner, or another ``ChowLiu``)."""
        if self.m is not None and check_alphabet(self.m, "ChowLiu") != counts.m:
            raise InvalidParameterError(f"ChowLiu: the counts are over an alphabet of {counts.m}, not m = {self.m}")
        self._check_epsilon()
        self.m_ = counts.m
        self.n_features_in_ = counts.n
        self.counts_ = counts
        return self._fit_counts(counts.n)

    def _check_epsilon(self) -> None:
        if self.epsilon is not None and not 0 < self.epsilon < 1:
            raise InvalidParameterError(f"epsilon must be in (0, 1), got {self.epsilon}")

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

    def score_samples(self, X) -> np.ndarray:
        """``log P(x)`` (nats) of each row of ``X``, shape ``(N,)``."""
        check_is_fitted(self, "ids_")
        X, _ = check_codes(self, X, reset=False, m=self.m_)
        return forest_loglik(X, self.ids_, self.tables_)


def thresholded_chow_liu(X_train, X_valid, m: int | None = None, *, pseudocount: float = 0.25,
                         epsilons=EPSILONS) -> ChowLiu:
    """CLT with ``epsilon`` chosen by validation log-likelihood (ties: the first). ``m`` None: the
    largest code of either sample plus one (at least 2). The fitted model also has
    ``valid_scores_`` (dict epsilon -> average validation log-likelihood)."""
    if m is None:
        m = max(as_codes(X_train, who="thresholded_chow_liu")[1], as_codes(X_valid, who="thresholded_chow_liu")[1])
    base = ChowLiu(pseudocount, m=m).fit(X_train)
    best, scores = None, {}
    for eps in epsilons:
        model = clone(base).set_params(epsilon=eps).fit_counts(base.counts_)
        scores[float(eps)] = model.score(X_valid)
        if best is None or scores[float(eps)] > scores[float(best.epsilon)]:
            best = model
    best.valid_scores_ = scores
    return best
