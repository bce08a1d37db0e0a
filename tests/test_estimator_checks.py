"""scikit-learn's conventions for the density estimators and classifiers of the forests and htmm
families: its estimator checks, clone / get_params / set_params, GridSearchCV and cross_val_score, and
that the scikit-learn verbs give the numbers of the old ones (the runs' numbers are unchanged).

ChowLiu and OFDE take 2-D arrays of codes, so every check of ``check_estimator`` applies and passes
(they declare the ``categorical`` and ``positive_only`` input tags, so the checks feed them
non-negative integer codes). The only one not run is ``check_array_api_input``, which scikit-learn
itself skips unless ``SCIPY_ARRAY_API`` is set.

SPBHTMM, TFBHTMM and BHTMMClassifier take a PositionalTrees batch, not a 2-D array: they declare
``two_d_array=False``, and scikit-learn then runs none of its data checks (they generate random
arrays, sparse matrices, NaN, complex numbers, 1-feature and 1-sample arrays, memmaps: inputs a tree
model cannot be given). The checks that need no data run below (``TREE_API_CHECKS``), and the data
checks that matter are restated on trees (``test_tree_models_*``): fit returns self and leaves the
parameters as they were, a second fit with the same seed gives the same model, the scores of a
subset or a permutation of the trees are the subset or permutation of the scores, unfitted models
raise NotFittedError, a pickled model scores the same.
"""

import pickle

import numpy as np
import pytest
from joblib import hash as joblib_hash
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, cross_val_score
from sklearn.utils import estimator_checks as sk_checks
from sklearn.utils.estimator_checks import parametrize_with_checks

from engine.errors import InvalidParameterError
from engine.forests.chowliu import ChowLiu, thresholded_chow_liu
from engine.forests.data import synthetic_split
from engine.forests.ofde import OFDE
from engine.htmm.classifier import BHTMMClassifier
from engine.htmm.data import from_lists, synthetic_trees
from engine.htmm.sp import SPBHTMM
from engine.htmm.tasks import classify, make_model
from engine.htmm.tf import TFBHTMM

# ----------------------------------------------------------------------------- forests: every check

#: check name -> why it fails; empty: every check that applies passes
EXPECTED_FAILED_CHECKS: dict = {}


@parametrize_with_checks([ChowLiu(), ChowLiu(0.5, 0.5), OFDE(seed=0), OFDE(model="forests", mixture_size=2, seed=0)],
                         expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def density():
    tr, va, te, _ = synthetic_split(8, 1500, 400, 300, seed=4)
    return tr.X, va.X, te.X


def test_chow_liu_model_selection(density):
    X, _, X_test = density
    cl = ChowLiu(m=2)
    assert cl.get_params() == {"pseudocount": 0.25, "epsilon": None, "m": 2}
    assert clone(cl.set_params(epsilon=0.5)).get_params()["epsilon"] == 0.5
    # cross_val_score is the mean log-likelihood of each held-out fold, fold by fold
    cv = KFold(3, shuffle=True, random_state=0)
    got = cross_val_score(ChowLiu(), X, cv=cv, error_score="raise")
    want = [ChowLiu().fit(X[a]).score(X[b]) for a, b in cv.split(X)]
    np.testing.assert_array_equal(got, want)
    search = GridSearchCV(ChowLiu(), {"pseudocount": [0.05, 0.25, 30.0], "epsilon": [None, 0.5]}, cv=cv,
                          error_score="raise").fit(X)
    best = max(search.cv_results_["params"], key=lambda p: np.mean(
        [ChowLiu(**p).fit(X[a]).score(X[b]) for a, b in cv.split(X)]))
    assert search.best_params_ == best and search.best_estimator_.edges_.shape[1] == 2
    assert np.isfinite(search.score(X_test))


def test_chow_liu_scores_and_the_old_signature(density):
    X, X_valid, X_test = density
    cl = ChowLiu().fit(X)
    assert cl.m_ == 2 and cl.n_features_in_ == 8
    assert cl.score(X_test) == float(cl.score_samples(X_test).mean())
    # whole floats, bools and int8 are codes; the same model from each
    for other in (X.astype(float), X.astype(np.int8), X.astype(bool)):
        np.testing.assert_array_equal(ChowLiu().fit(other).score_samples(X_test), cl.score_samples(X_test))
    # fit_counts keeps the old route from counts; the thresholded forest picks epsilon as before
    same = ChowLiu().fit_counts(cl.counts_)
    np.testing.assert_array_equal(same.score_samples(X_test), cl.score_samples(X_test))
    clt = thresholded_chow_liu(X, X_valid)
    assert clt.epsilon in clt.valid_scores_ and clt.m_ == 2
    with pytest.raises(TypeError, match=r"ChowLiu\(m=3\)\.fit\(X\)"):
        ChowLiu().fit(X, 3)
    with pytest.raises(InvalidParameterError, match="not a code 0..1"):
        ChowLiu(m=2).fit(X + 1)
    with pytest.raises(InvalidParameterError, match="not a whole number"):
        ChowLiu().fit(X + 0.5)
    with pytest.raises(InvalidParameterError, match="Negative values"):
        ChowLiu().fit(X - 1)
    with pytest.raises(ValueError, match="expecting 8 features"):
        cl.score(X_test[:, :5])


def test_ofde_fit_is_learn_one_on_every_row(density):
    X, _, X_test = density
    online = OFDE(8, 2, mixture_size=3, seed=1)
    for x in X:
        online.learn_one(x)
    batch = OFDE(mixture_size=3, seed=1).fit(X)
    parts = OFDE(mixture_size=3, seed=1).partial_fit(X[:700]).partial_fit(X[700:])
    for other in (batch, parts):
        assert other.t_ == online.t_ == len(X) and other.online_loss_ == online.online_loss_
        np.testing.assert_array_equal(other.score_samples(X_test), online.score_samples(X_test))
        assert [w for w in other.weights_] == online.weights_
    # fit starts afresh: a second fit is the first one again
    again = batch.fit(X)
    assert again is batch and batch.t_ == len(X)
    np.testing.assert_array_equal(batch.score_samples(X_test), online.score_samples(X_test))
    with pytest.raises(NotFittedError):
        OFDE().score_samples(X_test)


def test_ofde_model_selection(density):
    X, _, _ = density
    search = GridSearchCV(OFDE(seed=0), {"perturbation_scale": [0.1, 1.0]}, cv=KFold(2), error_score="raise").fit(X)
    assert search.best_params_["perturbation_scale"] in (0.1, 1.0)
    assert clone(search.best_estimator_).get_params() == search.best_estimator_.get_params()
    assert not hasattr(clone(search.best_estimator_), "t_")


# ----------------------------------------------------------------------------- tree models

#: scikit-learn's checks that need no data: they pass for the tree models
TREE_API_CHECKS = ("check_estimator_cloneable", "check_estimator_repr", "check_estimator_tags_renamed",
                   "check_valid_tag_types", "check_no_attributes_set_in_init", "check_mixin_order",
                   "check_do_not_raise_errors_in_init_or_set_params", "check_parameters_default_constructible",
                   "check_get_params_invariance", "check_set_params", "check_estimators_unfitted")


def _tree_models():
    return [SPBHTMM(3, 4, seed=0), TFBHTMM(3, 3, lmax=2, seed=0), BHTMMClassifier(SPBHTMM(2, 3, seed=0)),
            BHTMMClassifier(TFBHTMM(2, 2, lmax=2, seed=0))]


@pytest.mark.parametrize("check", TREE_API_CHECKS)
@pytest.mark.parametrize("model", _tree_models(), ids=repr)
def test_tree_models_pass_the_checks_that_need_no_data(model, check):
    getattr(sk_checks, check)(type(model).__name__, model)


@pytest.fixture(scope="module")
def trees():
    return synthetic_trees(8, seed=0), synthetic_trees(4, seed=1)


def _scores(model, data):
    return model.class_log_likelihood(data) if isinstance(model, BHTMMClassifier) else model.score_samples(data)


@pytest.mark.parametrize("model", _tree_models(), ids=repr)
def test_tree_models_follow_the_data_checks_on_trees(model, trees):
    train, test = trees
    params = joblib_hash(model.get_params())
    with pytest.raises(NotFittedError):
        _scores(model, test)
    fitted = model.fit(train, train.y)
    assert fitted is model and joblib_hash(model.get_params()) == params    # fit returns self, sets no parameter
    first = _scores(model, test)
    np.testing.assert_array_equal(_scores(clone(model).fit(train, train.y), test), first)  # same seed, same model
    np.testing.assert_array_equal(_scores(model.fit(train, train.y), test), first)         # idempotent
    order = np.random.default_rng(0).permutation(test.n_trees)
    np.testing.assert_allclose(_scores(model, test[order]), first[order], rtol=1e-12)      # sample order
    np.testing.assert_allclose(_scores(model, test[3:7]), first[3:7], rtol=1e-12)          # subsets
    np.testing.assert_array_equal(_scores(pickle.loads(pickle.dumps(model)), test), first)
    assert not hasattr(clone(model), "emit_") and not hasattr(clone(model), "estimators_")
    with pytest.raises(InvalidParameterError, match="positional trees"):
        clone(model).fit(np.zeros((4, 3)), [0, 1, 0, 1])


def test_tree_density_models_take_the_callback_as_a_parameter(trees):
    train, _ = trees
    seen = []
    SPBHTMM(2, 3, seed=0, callback=lambda it, ll: seen.append(it)).fit(train)
    TFBHTMM(2, 2, lmax=2, seed=0, callback=lambda it, ll: seen.append(-it)).fit(train)
    assert seen == [1, 2, 3, -1, -2]
    with pytest.raises(TypeError, match=r"SPBHTMM\(callback=...\)\.fit\(trees\)"):
        SPBHTMM(2, 1).fit(train, print)
    model = SPBHTMM(2, 3, seed=0).fit(train)
    assert model.score(train) == float(model.score_samples(train).mean())
    four_slots = from_lists([{"y": 1, "labels": [1, 2], "children": [[-1, -1, -1, 2], [-1, -1, -1, -1]]}])
    with pytest.raises(InvalidParameterError, match="fitted on trees with 3 child slots; these trees use slot 4"):
        model.score_samples(four_slots)
    np.testing.assert_array_equal(model.score_samples(train[:2].with_slots(5)), model.score_samples(train[:2]))


def test_classifier_cross_validation_and_grid_search(trees):
    train, test = trees
    clf = BHTMMClassifier(SPBHTMM(2, 4, seed=0))
    assert clf.get_params()["estimator__n_states"] == 2
    assert clone(clf.set_params(estimator__n_states=3)).estimator.n_states == 3
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    got = cross_val_score(clf, train, train.y, cv=cv, error_score="raise")
    want = [clone(clf).fit(train[a], train.y[a]).score(train[b], train.y[b]) for a, b in cv.split(train, train.y)]
    np.testing.assert_array_equal(got, want)
    search = GridSearchCV(BHTMMClassifier(SPBHTMM(2, 4, seed=0)), {"estimator__n_states": [1, 3]}, cv=cv,
                          error_score="raise").fit(train, train.y)
    for params, mean in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
        assert mean == np.mean(cross_val_score(clone(clf).set_params(**params), train, train.y, cv=cv))
    assert search.best_estimator_.estimators_[0].n_states == search.best_params_["estimator__n_states"]
    proba = search.predict_proba(test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(search.predict(test), search.classes_[proba.argmax(axis=1)])
    with pytest.raises(InvalidParameterError, match="at least two classes"):
        clf.fit(train[train.y == 1], train.y[train.y == 1])
    with pytest.raises(ValueError, match="requires y"):
        clf.fit(train, None)


@pytest.mark.parametrize("kind", ["sp", "tf"])
def test_classify_is_one_model_per_class_seeded_as_the_runs_were(kind, trees):
    """The run protocol's classification, now through BHTMMClassifier, gives the numbers of the old
    route: ``factory(c).fit(class trees)`` with seed ``seeds[c % 64]``, each model's ``loglik``."""
    train, test = trees
    seeds = np.random.SeedSequence(7).generate_state(64)
    opts = dict(states=2, iterations=3) if kind == "sp" else dict(states=2, iterations=3, lmax=2)
    calls = []
    clf = BHTMMClassifier(make_model(kind, **opts), class_seeds={c: int(seeds[c % 64]) for c in (1, 2, 3)},
                          callback=lambda ci, nc, it, ll: calls.append((ci, nc, it)))
    res = classify(train, test, clf)
    for i, c in enumerate((1, 2, 3)):
        alone = make_model(kind, seed=int(seeds[c % 64]), **opts).fit(train.subset(train.y == c))
        assert res.models[i].loglik_ == alone.loglik_
        np.testing.assert_array_equal(res.loglik[:, i], alone.score_samples(test))
    assert calls == [(i, 3, it) for i in range(3) for it in (1, 2, 3)]
    np.testing.assert_array_equal(res.predicted, clf.predict(test))
    np.testing.assert_array_equal(res.posterior, clf.predict_proba(test))
    # the older form, classify(train, test, factory, callback), still works and agrees
    old_calls = []
    old = classify(train, test, lambda c: make_model(kind, seed=int(seeds[c % 64]), **opts),
                   lambda ci, nc, it, ll: old_calls.append((ci, nc, it)))
    np.testing.assert_array_equal(old.loglik, res.loglik)
    assert old_calls == calls and [m.loglik_ for m in old.models] == [m.loglik_ for m in res.models]
