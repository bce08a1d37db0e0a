"""The SVM baseline of the RTA protocol computes what scikit-learn's composition of it computes.

:class:`engine.multilabel.evaluation.OneVsRestSVM` re-orders nothing, it only stops re-doing work
(each inner split standardised once for every C, no per-fit cloning): its chosen C and its
predictions must equal those of ``OneVsRestClassifier(GridSearchCV(make_pipeline(StandardScaler(),
LinearSVC(...))))``, the reference written out here, exactly (integers and grid values), but for
one quirk of the composition (a constant first label) that the baseline does not copy.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from engine.multilabel.data import synthetic_multilabel
from engine.multilabel.evaluation import SVM_C_GRID, OneVsRestSVM, cross_validate


def reference(grid, inner_folds, seed):
    inner = StratifiedKFold(inner_folds, shuffle=True, random_state=seed)
    search = GridSearchCV(make_pipeline(StandardScaler(), LinearSVC(dual="auto", max_iter=20000)),
                          {"linearsvc__C": list(grid)}, cv=inner, error_score=np.nan)
    return OneVsRestClassifier(search)


def _both(X, Y, Xt, grid=SVM_C_GRID, inner_folds=3, seed=0):
    with warnings.catch_warnings():   # constant and rare labels: OneVsRest's and the search's warnings
        warnings.simplefilter("ignore", FitFailedWarning)
        warnings.simplefilter("ignore", UserWarning)
        ref = reference(grid, inner_folds, seed).fit(X, Y)
        ours = OneVsRestSVM(grid, inner_folds=inner_folds, seed=seed).fit(X, Y)
    ref_C = [None if not hasattr(e, "best_params_") else e.best_params_["linearsvc__C"] for e in ref.estimators_]
    return ref.predict(Xt), ours.predict(Xt), ref_C, ours.C_


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("shape", [(300, 20, 6), (120, 40, 4)])   # 10 and 1.3 inner examples per feature
def test_same_choices_and_predictions_as_the_sklearn_composition(seed, shape):
    n, d, labels = shape
    data = synthetic_multilabel(n, d, labels, seed=seed)
    m = 2 * n // 3
    P_ref, P, C_ref, C = _both(data.X[:m], data.Y[:m], data.X[m:], seed=seed)
    assert C == C_ref
    assert P.tolist() == P_ref.astype(int).tolist()


def test_constant_rare_and_failing_labels():
    """A label constant in training (a constant predictor), one with a single positive (an inner
    fit fails at every C: the first C by the search's NaN ranking) and one with two."""
    data = synthetic_multilabel(150, 10, 5, seed=4)
    X, Y = data.X[:100], data.Y[:100].copy()
    Y[:, 4] = 1
    Y[:, 1] = 0
    Y[17, 1] = 1
    Y[:, 2] = 0
    Y[[3, 60], 2] = 1
    P_ref, P, C_ref, C = _both(X, Y, data.X[100:])
    assert C[4] is None and C[1] == SVM_C_GRID[0]
    assert C == C_ref
    assert P.tolist() == P_ref.astype(int).tolist()


def test_a_constant_first_label_leaves_the_others_alone():
    """scikit-learn's OneVsRest takes its threshold from its first label's estimator: a constant
    first label (a ``_ConstantPredictor``, not a classifier) makes it 0.5 on every other label's SVM
    decision value instead of 0. The baseline thresholds each SVM at 0, whatever the first label."""
    data = synthetic_multilabel(150, 10, 5, seed=4)
    X, Y = data.X[:100], data.Y[:100].copy()
    Y[:, 0] = 1
    with_constant = OneVsRestSVM().fit(X, Y).predict(data.X[100:])
    alone = OneVsRestSVM().fit(X, Y[:, 1:]).predict(data.X[100:])
    assert (with_constant[:, 0] == 1).all()
    assert with_constant[:, 1:].tolist() == alone.tolist()
    P_ref, P, _, _ = _both(X, Y, data.X[100:])
    assert P.tolist() == with_constant.tolist()
    assert P.tolist() != P_ref.astype(int).tolist()   # the composition's 0.5 changes some predictions here


def test_on_a_slice_of_emotions(data_dir):
    from engine.multilabel.data import read_arff

    d = read_arff(data_dir / "multilabel" / "emotions.arff.gz")
    P_ref, P, C_ref, C = _both(d.X[:240], d.Y[:240], d.X[240:360], seed=5)
    assert C == C_ref
    assert P.tolist() == P_ref.astype(int).tolist()


def test_the_protocol_scores_the_baseline_as_the_composition_would():
    data = synthetic_multilabel(90, 8, 4, seed=2)
    folds = cross_validate(data.X, data.Y, n_trees=2, C=1.0, folds=3, max_passes=2, baseline="svm", seed=3)
    from sklearn.model_selection import KFold

    for f, (tr, te) in zip(folds, KFold(3, shuffle=True, random_state=3).split(data.X)):
        P_ref, _, _, _ = _both(data.X[tr], data.Y[tr], data.X[te], seed=3 + f.fold - 1)
        wrong = P_ref.astype(int) != data.Y[te]
        assert f.svm_microlabel_loss == 100.0 * wrong.mean()
        assert f.svm_zero_one_loss == 100.0 * wrong.any(axis=1).mean()
