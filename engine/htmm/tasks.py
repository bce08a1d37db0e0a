"""The two tasks of section IV of "Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models"
(Castellana & Bacciu, 2019) and their metrics.

* Classification (IV-A): one model per class, trained on that class's trees; a test tree goes to
  the class whose model gives it the highest likelihood (:class:`~engine.htmm.classifier.BHTMMClassifier`).
* Node labelling (IV-B): one model on every training tree; the test labels are removed and each
  node's label is predicted from the structure alone, both as the most probable label of the
  exact predictive distribution ``p(x_u | structure)`` and as labels *generated* by sampling the
  hidden states and then the emissions (the paper's "label accuracy" is that of generated labels).

Metrics: accuracy; ``entropy``, the mean entropy in bits of the predictive distribution (the
class posterior under a uniform class prior, or ``p(x_u | structure)``), x100 like the paper's
"%"; ``confusion_entropy``, the conditional entropy ``H(true | predicted)`` of the confusion
matrix in bits x100 -- the quantity the authors' code reports as "entropy" in Tables I and III;
per-label accuracies (the rows of the confusion matrix, true label by predicted label).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.errors import InvalidParameterError
from engine.htmm.classifier import BHTMMClassifier, class_posterior, fit_class_models
from engine.htmm.common import entropy_bits
from engine.htmm.data import PositionalTrees

__all__ = ["confusion_matrix", "per_label_accuracy", "confusion_entropy", "ClassificationResult",
           "LabellingResult", "classify", "label_nodes", "make_model"]


def confusion_matrix(true, pred, n: int) -> np.ndarray:
    """Counts, (n, n): row = true label, column = predicted label (0-based)."""
    true = np.asarray(true, np.int64)
    pred = np.asarray(pred, np.int64)
    return np.bincount(true * n + pred, minlength=n * n).reshape(n, n)


def per_label_accuracy(cm: np.ndarray) -> np.ndarray:
    """Fraction of each true label predicted right (NaN for a label absent from the truth)."""
    tot = cm.sum(axis=1)
    return np.divide(np.diag(cm).astype(float), tot, out=np.full(len(cm), np.nan), where=tot > 0)


def confusion_entropy(cm: np.ndarray) -> float:
    """``H(true | predicted)`` in bits: the entropy of each predicted column, weighted by its size."""
    cm = np.asarray(cm, float)
    col = cm.sum(axis=0)
    p = np.divide(cm, col[None, :], out=np.zeros_like(cm), where=col[None, :] > 0)
    return float((entropy_bits(p.T) * col).sum() / cm.sum()) if cm.sum() else float("nan")


def make_model(kind: str, *, states: int, iterations: int, lmin: int = 1, lmax=None, phi: float = 2.0,
               sampler: str = "exact", seed=None, **extra):
    """A fresh ``TFBHTMM`` (``kind="tf"``) or ``SPBHTMM`` (``kind="sp"``); ``extra`` are the model's
    other parameters (``callback`` among them)."""
    from engine.htmm.sp import SPBHTMM
    from engine.htmm.tf import TFBHTMM

    if kind == "tf":
        return TFBHTMM(states, iterations, lmin=lmin, lmax=lmax, phi=phi, sampler=sampler, seed=seed,
                       **extra)
    if kind == "sp":
        return SPBHTMM(states, iterations, seed=seed, **extra)
    raise InvalidParameterError(f"model must be 'tf' or 'sp', got {kind!r}")


class _Scored:
    """What both tasks report: the share of ``predicted`` equal to ``true``, and the mean entropy
    (bits) of the predictive distributions, the rows of :meth:`_predictive`."""

    @property
    def accuracy(self) -> float:
        return float((self.predicted == self.true).mean())

    @property
    def entropy(self) -> float:
        return float(entropy_bits(self._predictive()).mean())


@dataclass(frozen=True)
class ClassificationResult(_Scored):
    """classes : (K,) class values; loglik : (T, K) test log-likelihood under each class model;
    predicted, true : (T,) class values; posterior : (T, K) with a uniform class prior;
    models : the trained models, one per class."""

    classes: np.ndarray
    loglik: np.ndarray
    predicted: np.ndarray
    true: np.ndarray
    posterior: np.ndarray
    models: list = field(repr=False)

    @property
    def confusion(self) -> np.ndarray:
        idx = {c: i for i, c in enumerate(self.classes.tolist())}
        t = np.array([idx.get(c, -1) for c in self.true.tolist()])
        p = np.array([idx[c] for c in self.predicted.tolist()])
        ok = t >= 0
        return confusion_matrix(t[ok], p[ok], len(self.classes))

    def _predictive(self) -> np.ndarray:
        return self.posterior


def classify(train: PositionalTrees, test: PositionalTrees, classifier, callback=None) -> ClassificationResult:
    """Fit ``classifier`` (a :class:`~engine.htmm.classifier.BHTMMClassifier`) on the training trees
    and their classes ``train.y``, both batches padded to one number of slots and labels; score the
    test trees. ``classifier`` may also be, as before, ``factory(class)`` giving a fresh model per
    class. ``callback(class_index, n_classes, iteration, loglik)``, if given, reports progress (it
    becomes the classifier's ``callback``)."""
    L = max(train.max_children, test.max_children)
    M = max(train.n_labels, test.n_labels)
    train, test = train.with_slots(L).with_n_labels(M), test.with_slots(L).with_n_labels(M)
    if isinstance(classifier, BHTMMClassifier):
        if callback is not None:
            classifier.set_params(callback=callback)
        classifier.fit(train, train.y)
    else:   # factory(class) -> a fresh model
        factory, classifier = classifier, BHTMMClassifier()
        classifier.classes_, classifier.estimators_ = fit_class_models(train, train.y, factory, callback)
    ll = classifier.class_log_likelihood(test)
    pred = classifier.classes_[np.argmax(ll, axis=1)]
    return ClassificationResult(classifier.classes_, ll, pred, test.y.copy(), class_posterior(ll),
                                classifier.estimators_)


@dataclass(frozen=True)
class LabellingResult(_Scored):
    """distribution : (N, M) ``p(x_u | structure)``; predicted : (N,) its argmax; generated : (N,)
    sampled labels; true : (N,) -- all 0-based labels of the test nodes."""

    distribution: np.ndarray
    predicted: np.ndarray
    generated: np.ndarray
    true: np.ndarray
    model: object = field(repr=False)

    @property
    def n_labels(self) -> int:
        return self.distribution.shape[1]

    def confusion(self, generated: bool = False) -> np.ndarray:
        return confusion_matrix(self.true, self.generated if generated else self.predicted, self.n_labels)

    @property
    def generated_accuracy(self) -> float:
        return float((self.generated == self.true).mean())

    def _predictive(self) -> np.ndarray:
        return self.distribution


def label_nodes(train: PositionalTrees, test: PositionalTrees, model, *, seed=None) -> LabellingResult:
    """Fit ``model`` on ``train`` and label the nodes of ``test`` from their structure alone."""
    L = max(train.max_children, test.max_children)
    M = max(train.n_labels, test.n_labels)
    train, test = train.with_slots(L).with_n_labels(M), test.with_slots(L).with_n_labels(M)
    if (test.labels < 0).any():
        raise InvalidParameterError("the test trees need their true labels to be scored")
    model.fit(train)
    dist = model.label_distribution(test)
    gen = model.sample_labels(test, seed)
    return LabellingResult(dist, dist.argmax(axis=1), gen, test.labels.copy(), model)
