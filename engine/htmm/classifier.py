"""Tree classification by bottom-up hidden tree Markov models, section IV-A of "Bayesian Tensor
Factorisation for Bottom-up Hidden Tree Markov Models" (Castellana & Bacciu, 2019): one generative
model per class, trained on that class's trees; a tree goes to the class whose model gives it the
highest likelihood (a uniform prior over the classes).

:class:`BHTMMClassifier` is that rule as a scikit-learn classifier whose ``X`` is a
:class:`~engine.htmm.data.PositionalTrees` batch: ``fit(trees, y)``, ``predict``, ``predict_proba``
(the class posterior under the uniform prior), ``score`` (accuracy), and ``clone``,
``get_params``/``set_params`` (``estimator__n_states``, ...), ``GridSearchCV`` and ``cross_val_score``,
which split a batch tree by tree.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from engine.errors import InvalidParameterError
from engine.htmm.common import check_trees, tree_tags
from engine.htmm.tf import TFBHTMM

__all__ = ["BHTMMClassifier", "class_posterior", "fit_class_models"]


def class_posterior(loglik: np.ndarray) -> np.ndarray:
    """The class posterior (T, K) of per-class log-likelihoods (T, K) under a uniform class prior."""
    return np.exp(loglik - logsumexp(loglik, axis=1, keepdims=True))


def fit_class_models(trees, y, make_model, callback=None) -> tuple[np.ndarray, list]:
    """``(classes, models)``: for each class ``c`` of ``y`` (sorted), ``make_model(c)`` fitted on the trees
    of that class; ``callback(class_index, n_classes, iteration, loglik)`` (if given) becomes each
    model's progress callback."""
    classes, index = np.unique(y, return_inverse=True)
    K = len(classes)
    if K < 2:
        raise InvalidParameterError(f"classification needs at least two classes in the training data, found {K}")
    models = []
    for i, c in enumerate(classes):
        model = make_model(c)
        if callback is not None:
            model.set_params(callback=functools.partial(callback, i, K))
        models.append(model.fit(trees[index == i]))
    return classes, models


class BHTMMClassifier(ClassifierMixin, BaseEstimator):
    """One bottom-up HTMM per class; a tree goes to the class of highest likelihood.

    Parameters
    ----------
    estimator : TFBHTMM, SPBHTMM or None
        The generative model, cloned and fitted for each class (None: ``TFBHTMM()``, the paper's).
    class_seeds : dict or None
        ``{class: seed}``, the seed of each class's model; None: each keeps the estimator's seed.
        (The run protocol, :func:`engine.htmm.run.run`, seeds class ``c`` with entry ``c mod 64`` of
        ``numpy.random.SeedSequence(seed).generate_state(64)``.)
    callback : callable or None
        Called as ``callback(class_index, n_classes, iteration, loglik)`` after every iteration of
        every class's model (it may raise to stop training); None leaves the estimator's own.

    Fitted: ``classes_`` (K,), ``estimators_`` (the K fitted models, in the order of ``classes_``).

    Examples
    --------
    >>> from engine.htmm.data import synthetic_trees
    >>> from engine.htmm.sp import SPBHTMM
    >>> train, test = synthetic_trees(15, seed=0), synthetic_trees(5, seed=1)
    >>> clf = BHTMMClassifier(SPBHTMM(n_states=3, n_iter=10, seed=0)).fit(train, train.y)
    >>> clf.classes_.tolist(), clf.predict(test[::5]).tolist(), test.y[::5].tolist()
    ([1, 2, 3], [1, 2, 3], [1, 2, 3])
    >>> clf.predict_proba(test[:1]).round(3).tolist(), clf.score(test, test.y)
    ([[0.914, 0.086, 0.0]], 1.0)
    """

    def __init__(self, estimator=None, *, class_seeds=None, callback=None):
        self.estimator = estimator
        self.class_seeds = class_seeds
        self.callback = callback

    def fit(self, X, y) -> "BHTMMClassifier":
        """Fit a clone of ``estimator`` on the trees of each class of ``y`` (one class per tree)."""
        trees = check_trees(X, "BHTMMClassifier")
        if y is None:
            raise ValueError("BHTMMClassifier requires y to be passed, but the target y is None")
        y = column_or_1d(y, warn=True)
        check_consistent_length(trees, y)
        check_classification_targets(y)
        self.classes_, self.estimators_ = fit_class_models(trees, y, self._class_model, self.callback)
        return self

    def _class_model(self, c):
        model = clone(TFBHTMM() if self.estimator is None else self.estimator)
        if self.class_seeds is not None:
            if c not in self.class_seeds:
                raise InvalidParameterError(f"class_seeds has no seed for class {c!r}")
            model.set_params(seed=self.class_seeds[c])
        return model

    def class_log_likelihood(self, X) -> np.ndarray:
        """``log P(x | class k)`` of every tree under every class's model, (T, K)."""
        check_is_fitted(self, "estimators_")
        out = np.empty((len(X), len(self.estimators_)))
        for k, model in enumerate(self.estimators_):
            out[:, k] = model.score_samples(X)
        return out

    def predict_log_proba(self, X) -> np.ndarray:
        """Log of the class posterior under a uniform class prior, (T, K)."""
        ll = self.class_log_likelihood(X)
        return ll - logsumexp(ll, axis=1, keepdims=True)

    def predict_proba(self, X) -> np.ndarray:
        """The class posterior under a uniform class prior, (T, K)."""
        return class_posterior(self.class_log_likelihood(X))

    def predict(self, X) -> np.ndarray:
        """The class whose model gives each tree the highest likelihood, (T,)."""
        ll = self.class_log_likelihood(X)
        return self.classes_[np.argmax(ll, axis=1)]

    def __sklearn_tags__(self):
        return tree_tags(super().__sklearn_tags__())
