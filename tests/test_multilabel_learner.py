"""The RTA learner: scikit-learn's estimator checks, exactness of its inference against brute
force, the Frank-Wolfe dual ascent, and the protocol on a small slice of real data."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from engine.errors import InvalidParameterError
from engine.multilabel.data import synthetic_multilabel
from engine.multilabel.evaluation import cross_validate, microlabel_loss, select_C, zero_one_loss
from engine.multilabel.kbest import brute_force_scores
from engine.multilabel.learner import RTAClassifier

# Every check that applies passes. RTA is a multilabel learner; single-output targets are learned
# as one label per class (exactly one on). Checks that do not apply: predict_proba checks (RTA has
# no probabilities) and array-API input (skipped by scikit-learn itself without SCIPY_ARRAY_API).
EXPECTED_FAILED_CHECKS: dict = {}


@pytest.mark.slow
@parametrize_with_checks([RTAClassifier(n_trees=2, max_passes=3, random_state=0)],
                         expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def small():
    d = synthetic_multilabel(160, 10, 7, seed=3)
    return d.X, d.Y


def test_fit_predict_shapes_and_exactness_against_brute_force(small):
    X, Y = small
    m = RTAClassifier(C=1.0, n_trees=4, max_k=128, max_passes=8, random_state=1).fit(X, Y)
    assert m.fit(X, Y) is m
    P = m.predict(X)
    assert P.shape == Y.shape and set(np.unique(P)) <= {0, 1} and P.dtype.kind == "i"
    S = m.edge_scores(X[:40])
    Yhat, cert, ku, score = m.infer(X[:40])
    for i in range(40):
        Yall, F = brute_force_scores(S[i], m.trees_)
        if cert[i]:
            assert score[i] == pytest.approx(F.max(), rel=1e-9, abs=1e-12)
        assert score[i] <= F.max() + 1e-9 * max(1.0, abs(F.max()))
    # at K = 2^l every prediction is certified, and equals the brute-force argmax score
    Yhat, cert, ku, score = m.infer(X[:20], max_k=2 ** 7)
    assert cert.all()


def test_decision_function_agrees_with_predict(small):
    X, Y = small
    m = RTAClassifier(C=1.0, n_trees=3, max_passes=5, random_state=0).fit(X, Y)
    d = m.decision_function(X)
    P = m.predict(X)
    assert d.shape == Y.shape
    nz = d != 0
    assert np.array_equal((d > 0)[nz], (P == 1)[nz])


def test_dual_objective_never_decreases(small):
    """Block-coordinate Frank-Wolfe with exact line search is a dual ascent."""
    X, Y = small
    m = RTAClassifier(C=0.5, n_trees=5, max_passes=12, tol=0, random_state=2).fit(X, Y)
    dual = [h["dual"] for h in m.history_]
    assert all(b >= a - 1e-9 * abs(a) for a, b in zip(dual, dual[1:]))
    assert all(h["gap"] >= -1e-9 for h in m.history_)
    assert m.history_[-1]["gap"] < m.history_[0]["gap"]


def test_learns_better_than_chance_and_warm_start(small):
    X, Y = small
    tr, te = slice(0, 120), slice(120, 160)
    m = RTAClassifier(C=1.0, n_trees=5, max_passes=15, random_state=0).fit(X[tr], Y[tr])
    P = m.predict(X[te])
    base = microlabel_loss(Y[te], np.tile((Y[tr].mean(0) > 0.5).astype(int), (40, 1)))
    assert microlabel_loss(Y[te], P) < base
    # warm start along a C path reaches a solution as good (dual objective) as a cold start
    w = RTAClassifier(C=0.1, n_trees=5, max_passes=15, random_state=0, warm_start=True).fit(X[tr], Y[tr])
    w.set_params(C=1.0).fit(X[tr], Y[tr])
    assert w.history_[0]["dual"] > m.history_[0]["dual"]


def test_label_pair_weights_live_on_tree_edges(small):
    X, Y = small
    m = RTAClassifier(C=1.0, n_trees=2, max_passes=3, random_state=0).fit(X, Y)
    W = m.label_pair_weights()
    assert np.allclose(W, W.T)
    held = m.trees_.edge_counts() > 0
    assert np.all(W[~held] == 0) and np.all(W[held] >= 0)


def test_rbf_kernel(small):
    X, Y = small
    m = RTAClassifier(C=1.0, n_trees=3, max_passes=5, kernel="rbf", random_state=0).fit(X[:100], Y[:100])
    P = m.predict(X[100:])
    assert P.shape == (60, 7)
    assert m.label_pair_weights().shape == (7, 7)


def test_single_output_targets_become_one_label_per_class():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 4))
    y = np.array(["a", "b", "c"])[np.argmax(X[:, :3], axis=1)]
    m = RTAClassifier(C=1.0, n_trees=2, max_passes=10, random_state=0).fit(X, y)
    assert list(m.classes_) == ["a", "b", "c"]
    assert (m.predict(X) == y).mean() > 0.8


@pytest.mark.parametrize("params, match", [
    (dict(C=0), r"C = 0: expected a number > 0$"), (dict(C=float("inf")), r"C = inf: expected a number > 0$"),
    (dict(n_trees=0), "n_trees"), (dict(max_k=1), "max_k"),
    (dict(kernel="poly"), "kernel"), (dict(loss="abs"), "loss"), (dict(scaling="x"), "scaling"),
])
def test_bad_parameters(small, params, match):
    X, Y = small
    with pytest.raises(InvalidParameterError, match=match):
        RTAClassifier(**params).fit(X, Y)


def test_bad_targets(small):
    X, Y = small
    with pytest.raises(InvalidParameterError, match="only 0 and 1"):
        RTAClassifier().fit(X, Y * 2)


def test_protocol_on_a_slice_of_emotions(data_dir):
    from engine.multilabel.data import read_arff

    d = read_arff(data_dir / "multilabel" / "emotions.arff.gz")
    X, Y = d.X[:200], d.Y[:200]
    C, table = select_C(X, Y, (0.1, 1.0), inner_folds=3, inner_splits=1, n_trees=3, max_passes=3)
    assert C in (0.1, 1.0) and len(table) == 2
    folds = cross_validate(X, Y, n_trees=3, C=1.0, folds=2, max_passes=4, baseline="svm")
    assert len(folds) == 2
    for f in folds:
        assert 0 <= f.microlabel_loss <= 100 and 0 <= f.zero_one_loss <= 100
        assert 0 <= f.exact_fraction <= 1 and f.svm_zero_one_loss is not None


def test_losses():
    Y = np.array([[1, 0, 1], [0, 0, 0]])
    P = np.array([[1, 1, 1], [0, 0, 0]])
    assert microlabel_loss(Y, P) == pytest.approx(100 / 6)
    assert zero_one_loss(Y, P) == pytest.approx(50.0)
