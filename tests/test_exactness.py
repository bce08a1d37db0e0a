"""Exact at any magnitude: every inference path against an independent log-space reference.

``tests/logspace_reference.py`` (log-sum-exp sum-product, max-sum) is first checked against exact
rational enumeration; then hypothesis draws models — stars, paths, random Prüfer trees,
two-vertex trees, k = 2..5, entries 10^U(-300, 300) with zeros and hard evidence — and after every
operation (evidence, edge potentials) all marginals and log Z of the online model must agree with
the reference (relative 1e-9 on log Z, absolute 1e-9 on marginals), as must both BP passes,
max-product and the TREE-HEDGE comparator. "Inconsistent" must mean a total mass of exactly zero,
and entries outside the exact range (subnormals) are refused, named.
``benchmarks/exactness.py`` runs the same checks on 10,000 models.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InconsistentEvidenceError, NumericalRangeError
from engine.hedge.bound import theorem9_bound
from engine.inference.belief_propagation import belief_propagation, max_product
from engine.inference.online import OnlineModel
from engine.trees.generators import path_tree, prufer_to_parent, star_tree
from engine.trees.model import Tree
from tests.logspace_reference import (
    exact_enumeration,
    fraction_log,
    labelling_log_score,
    log_max_sum,
    log_sum_product,
)

RTOL_LOGZ = 1e-9
ATOL_MARGINAL = 1e-9
#: Beyond the absolute 1e-9: every marginal entry above 1e-300, however tiny, to relative 1e-9.
RTOL_ENTRY = 1e-9


def _logs(a):
    with np.errstate(divide="ignore"):
        return np.log(a)


def _close_logz(got, want):
    assert abs(got - want) <= RTOL_LOGZ * max(1.0, abs(want)), (got, want)


def _entries(rng, shape, zeros, span=300):
    a = 10.0 ** rng.uniform(-span, span, shape)
    a[rng.random(shape) < zeros] = 0.0
    return a


def _hard(rng, k, span=300):
    row = np.zeros(k)
    row[int(rng.integers(k))] = 10.0 ** rng.uniform(-span, span)
    return row


@st.composite
def models(draw, max_n=40, span=300):
    """(tree, k, phi, E, rng): a tree of one of the families, entries 10^U(-span, span)."""
    family = draw(st.sampled_from(["star", "path", "prufer", "two-vertex"]))
    k = draw(st.integers(2, 5))
    if family == "two-vertex":
        t = path_tree(2)
    elif family == "star":
        t = star_tree(draw(st.integers(3, max_n)))
    elif family == "path":
        t = path_tree(draw(st.integers(3, max_n)))
    else:
        n = draw(st.integers(3, max_n))
        seq = draw(st.lists(st.integers(0, n - 1), min_size=n - 2, max_size=n - 2))
        t = Tree.from_parent(prufer_to_parent(np.asarray(seq, np.int64), n))
    root = draw(st.integers(0, t.n - 1))
    if root != t.root:
        t = t.rerooted(root)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    zeros = draw(st.sampled_from([0.0, 0.05, 0.15]))
    phi = _entries(rng, (t.n, k), zeros, span)
    for v in np.flatnonzero(rng.random(t.n) < 0.1):
        phi[v] = _hard(rng, k, span)
    E = _entries(rng, (t.n - 1, k, k), zeros, span)
    return t, k, phi, E, rng


def _close_marginals(got, want):
    np.testing.assert_allclose(got, want, rtol=0, atol=ATOL_MARGINAL)
    np.testing.assert_allclose(got, want, rtol=RTOL_ENTRY, atol=1e-300)


def _check_bp(tree, phi, E):
    """Both BP passes against the reference (a consistent model)."""
    lz, marg = log_sum_product(tree, phi, E)
    for method in ("numba", "numpy"):
        r = belief_propagation(tree, phi, E, method=method)
        _close_logz(r.log_partition, lz)
        _close_marginals(r.marginals, marg)


def _check_online(model, tree, phi, E):
    lz, marg = log_sum_product(tree, phi, E)
    assert marg is not None
    got = np.array([model.marginal(v) for v in range(tree.n)])
    _close_logz(model.log_partition(), lz)
    _close_marginals(got, marg)


# ---------------------------------------------------------------------- the reference itself

@settings(max_examples=80)
@given(data=st.data(), n=st.integers(1, 5), k=st.integers(2, 3), seed=st.integers(0, 2 ** 32 - 1))
def test_reference_equals_exact_rational_enumeration(data, n, k, seed):
    rng = np.random.default_rng(seed)
    if n <= 2:
        t = path_tree(n)
    else:
        seq = data.draw(st.lists(st.integers(0, n - 1), min_size=n - 2, max_size=n - 2))
        t = Tree.from_parent(prufer_to_parent(np.asarray(seq, np.int64), n))
    phi = _entries(rng, (n, k), 0.2)
    E = _entries(rng, (max(n - 1, 0), k, k), 0.2)
    Z, exact = exact_enumeration(t, phi, E)
    lz, marg = log_sum_product(t, phi, E)
    if Z == 0:
        assert lz == -np.inf and marg is None
        return
    # The reference adds logs of entries up to |690|: each log is rounded to ~1 ulp of its own
    # magnitude, so its error scales with the sum of the factors' magnitudes, not with |log Z|
    # (log Z = 1.73 can be the sum of terms of size 690 that cancel).
    scale = max(1.0, abs(lz), float(np.abs(_logs(phi[phi > 0])).sum() + np.abs(_logs(E[E > 0])).max(initial=0) * (n - 1)))
    assert abs(lz - fraction_log(Z)) <= 1e-14 * scale
    want = [[float(x) for x in row] for row in exact]
    np.testing.assert_allclose(marg, want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(marg, want, rtol=1e-11, atol=1e-300)   # tiny entries too
    if n > 1:   # max-sum against the best labelling found by enumeration
        import itertools

        lphi, lE = _logs(phi), _logs(E)
        best = max(labelling_log_score(t, lphi, lE, lab)
                   for lab in itertools.product(range(k), repeat=n))
        assert log_max_sum(t, lphi, lE) == pytest.approx(best, rel=1e-13, abs=1e-13) \
            if best > -np.inf else log_max_sum(t, lphi, lE) == -np.inf


# ---------------------------------------------------------------------- the online model

@settings(max_examples=150)
@given(m=models(), ops=st.lists(st.tuples(st.sampled_from(["soft", "hard", "edge", "edge0"]),
                                          st.integers(0, 10 ** 6)), max_size=6))
def test_online_model_after_every_operation(m, ops):
    tree, k, phi, E, rng = m
    lz, _ = log_sum_product(tree, phi, E)
    if lz == -np.inf:
        with pytest.raises(InconsistentEvidenceError):
            OnlineModel(tree, k, E, phi)
        return
    model = OnlineModel(tree, k, E, phi)
    _check_online(model, tree, phi, E)
    for kind, a in ops:
        phi2, E2 = phi.copy(), E.copy()
        if kind in ("soft", "hard"):
            v = a % tree.n
            phi2[v] = _entries(rng, k, 0.2) if kind == "soft" else _hard(rng, k)
            apply = lambda: model.update(v, phi2[v])  # noqa: E731
        else:
            i = a % (tree.n - 1)
            E2[i] = _entries(rng, (k, k), 0.0 if kind == "edge" else 0.4)
            p, c = (int(x) for x in tree.edges[i])
            if a % 2:
                apply = lambda: model.set_edge_potential(p, c, E2[i])  # noqa: E731
            else:
                apply = lambda: model.set_edge_potential(c, p, E2[i].T)  # noqa: E731
        if log_sum_product(tree, phi2, E2)[0] == -np.inf:
            before = model.state_arrays()
            with pytest.raises(InconsistentEvidenceError):
                apply()
            for x, y in zip(before, model.state_arrays()):
                np.testing.assert_array_equal(x, y)
        else:
            apply()
            phi, E = phi2, E2
        _check_online(model, tree, phi, E)


@settings(max_examples=25)
@given(m=models(max_n=12))
def test_pure_python_build_is_exact_too(m):
    tree, k, phi, E, rng = m
    lz, _ = log_sum_product(tree, phi, E)
    if lz == -np.inf:
        return
    model = OnlineModel(tree, k, E, phi, backend="python")
    _check_online(model, tree, phi, E)
    v = int(rng.integers(tree.n))
    phi[v] = _entries(rng, k, 0.0)
    model.update(v, phi[v])
    _check_online(model, tree, phi, E)


# ---------------------------------------------------------------------- BP, max-product, TREE-HEDGE

@settings(max_examples=120)
@given(m=models(max_n=60))
def test_both_bp_passes(m):
    tree, k, phi, E, _ = m
    if log_sum_product(tree, phi, E)[1] is not None:
        _check_bp(tree, phi, E)
        return
    for method in ("numba", "numpy"):     # zero total mass: both passes say so
        with pytest.raises(InconsistentEvidenceError):
            belief_propagation(tree, phi, E, method=method)


@settings(max_examples=150)
@given(m=st.sampled_from([3, 30, 90]).flatmap(lambda span: models(max_n=60, span=span)))
def test_the_fast_pass_answers_only_when_exact(m):
    """The plain-double pass, on the potentials it accepts (non-zero entries in [2^-300, 2^300]):
    its products can still leave that range (a star's exclusion products, a path's long chains);
    whenever it answers instead of handing over to the exact pass, the answer is exact."""
    from engine.inference import _bp_kernels as K

    tree, k, phi, E, _ = m
    lz, marg = log_sum_product(tree, phi, E)
    n = tree.n
    out = [np.empty((n, k)) for _ in range(5)]
    status, logz = K.sum_product_kernel(tree.order, tree.bfs_rank, tree.bfs_parent, tree.bfs_children_ptr,
                                        phi, E, *out)
    if status == K.OK:
        assert marg is not None
        _close_logz(logz, lz)
        _close_marginals(out[4], marg)
    else:
        assert status == K.BAIL or (status == K.ZERO and marg is None)


def test_the_fast_pass_gives_up_before_a_downward_message_underflows():
    """A path 0-1-2-3 whose upward messages stay balanced while the downward ones lose a factor
    2^-299 at every step (every entry in the fast pass's range): the message into vertex 2 holds
    2^-898, the one into vertex 3 would hold 2^-1197, below the doubles. Vertex 3's own potential
    favours that state again, so its marginal is 4.7e-271, not 0: the fast pass must hand over
    (a pass without its check answers [0, 1]) and BP must give the exact number."""
    from engine.inference import _bp_kernels as K

    tree = path_tree(4)
    s = 2.0 ** -299
    E = np.array([[[s, 1.0], [0.0, 1.0]], [[s, 1.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]])
    phi = np.array([[1.0, 1.0], [s, 1.0], [s, 1.0], [1.0, s]])
    out = [np.empty((4, 2)) for _ in range(5)]
    status, _ = K.sum_product_kernel(tree.order, tree.bfs_rank, tree.bfs_parent, tree.bfs_children_ptr,
                                     phi, E, *out)
    assert status == K.BAIL
    lz, marg = log_sum_product(tree, phi, E)
    assert marg[3, 0] == pytest.approx(4.73220874e-271, rel=1e-8)
    _check_bp(tree, phi, E)


@settings(max_examples=60)
@given(m=models(max_n=60))
def test_max_product_both_methods(m):
    tree, k, phi, E, _ = m
    lphi, lE = _logs(phi), _logs(E)
    best = log_max_sum(tree, lphi, lE)
    for method in ("numba", "numpy"):
        if best == -np.inf:
            with pytest.raises(InconsistentEvidenceError):
                max_product(tree, lphi, lE, method=method)
            continue
        labels, value = max_product(tree, lphi, lE, method=method)
        _close_logz(value, best)
        _close_logz(labelling_log_score(tree, lphi, lE, labels), best)


@settings(max_examples=60)
@given(m=models(max_n=30), eta=st.floats(0.05, 3.0))
def test_tree_hedge_comparator(m, eta):
    tree, k, phi, E, rng = m
    if not (phi.any(axis=1).all() and E.reshape(len(E), -1).any(axis=1).all()):
        return      # TREE-HEDGE refuses an all-zero row or edge up front
    T = int(rng.integers(1, 3 * tree.n))
    verts = rng.integers(tree.n, size=T)
    losses = rng.random((T, k))
    lz, _ = log_sum_product(tree, phi, E)
    if lz == -np.inf:
        with pytest.raises(InconsistentEvidenceError):
            theorem9_bound(tree, k, eta=eta, vertices=verts, losses=losses, theta=E, data=phi)
        return
    b = theorem9_bound(tree, k, eta=eta, vertices=verts, losses=losses, theta=E, data=phi)
    L = np.zeros((tree.n, k))
    np.add.at(L, verts, losses)
    lphi, lE = _logs(phi), _logs(E)
    best = log_max_sum(tree, lphi - eta * L, lE)
    mu = np.asarray(b.comparator)
    _close_logz(labelling_log_score(tree, lphi - eta * L, lE, mu), best)
    _close_logz(b.log_prior, labelling_log_score(tree, lphi, lE, mu) - lz)


# ---------------------------------------------------------------------- cases found by the probe

def test_two_vertex_tree_with_an_entry_of_1e150_is_finite_and_exact():
    """1e150^3 is not a double (it used to give NaN marginals and a NaN log Z)."""
    t = path_tree(2)
    phi = np.array([[1e150, 1.0], [1e150, 1e-150]])
    E = np.array([[[1e150, 1.0], [1.0, 1e-150]]])
    model = OnlineModel(t, 2, E, phi)
    _check_online(model, t, phi, E)


def test_star_of_100_with_entries_1e_100_to_1e100_is_never_falsely_inconsistent():
    for seed in range(20):
        rng = np.random.default_rng(seed)
        t = star_tree(100)
        phi = 10.0 ** rng.uniform(-100, 100, (100, 2))
        E = 10.0 ** rng.uniform(-100, 100, (99, 2, 2))
        _check_online(OnlineModel(t, 2, E, phi), t, phi, E)
        _check_bp(t, phi, E)


def test_a_tiny_but_decisive_entry_selected_by_hard_evidence():
    """Three states that can only step up, by 1e-300 a step: the table of a path segment holds
    1e-600 (not a double) next to 1, and hard evidence at both ends makes it the whole mass."""
    n, k, eps = 9, 3, 1e-300
    t = path_tree(n)
    step = np.array([[1.0, eps, 0.0], [0.0, 1.0, eps], [0.0, 0.0, 1.0]])
    E = np.broadcast_to(step, (n - 1, k, k)).copy()
    phi = np.ones((n, k))
    model = OnlineModel(t, k, E, phi)
    phi[0] = [1.0, 0.0, 0.0]
    phi[n - 1] = [0.0, 0.0, 1.0]
    model.update(0, phi[0])
    model.update(n - 1, phi[n - 1])
    _check_online(model, t, phi, E)
    lz, _ = log_sum_product(t, phi, E)
    assert lz == pytest.approx(np.log((n - 1) * (n - 2) / 2) + 2 * np.log(eps), rel=1e-12)
    _check_bp(t, phi, E)


def test_the_full_double_range_is_exact():
    """The smallest and largest normal doubles side by side."""
    t = path_tree(4)
    tiny, huge = 2.2250738585072014e-308, 1.7976931348623157e308
    phi = np.array([[tiny, huge], [huge, tiny], [1.0, tiny], [huge, huge]])
    E = np.array([[[huge, tiny], [tiny, huge]]] * 3)
    _check_online(OnlineModel(t, 2, E, phi), t, phi, E)
    _check_bp(t, phi, E)


# ---------------------------------------------------------------------- refusals, named

def test_subnormal_entries_are_refused_with_the_entry_named():
    t = Tree.from_named_edges([("a", "b"), ("b", "c")])
    ok = np.ones((3, 2))
    sub = ok.copy()
    sub[1, 1] = 1e-310
    with pytest.raises(NumericalRangeError, match=r"vertex b at \[1\].*1e-310"):
        OnlineModel(t, 2, np.ones((2, 2)), sub)
    with pytest.raises(NumericalRangeError, match=r"vertex b at \[1\]"):
        belief_propagation(t, sub, np.ones((2, 2)))
    with pytest.raises(NumericalRangeError, match=r"vertex b at \[1\]"):
        belief_propagation(t, sub, np.ones((2, 2)), method="numpy")
    model = OnlineModel(t, 2, np.ones((2, 2)), ok)
    with pytest.raises(NumericalRangeError, match=r"vertex c.*\[0\]"):
        model.update("c", [5e-320, 1.0])
    with pytest.raises(NumericalRangeError, match=r"edge \(a, b\).*\[0, 1\]"):
        model.set_edge_potential("a", "b", [[1.0, 1e-315], [1.0, 1.0]])
    E = np.ones((2, 2, 2))
    E[1, 0, 0] = 1e-320
    with pytest.raises(NumericalRangeError, match=r"edge \(b, c\) at \[0, 0\]"):
        OnlineModel(t, 2, E, ok)
    with pytest.raises(NumericalRangeError, match=r"edge \(b, c\) at \[0, 0\]"):
        theorem9_bound(t, 2, eta=1.0, vertices=[0], losses=[[0.0, 1.0]], theta=E)
    with pytest.raises(NumericalRangeError, match=r"vertex b at action 1"):
        theorem9_bound(t, 2, eta=1.0, vertices=[0], losses=[[0.0, 1.0]], data=sub)
    for v in range(3):      # a refused update leaves the model as it was
        np.testing.assert_allclose(model.marginal(v), [0.5, 0.5])


def test_max_product_refuses_log_potentials_beyond_1e300():
    t = path_tree(3)
    lphi = np.zeros((3, 2))
    lphi[2, 0] = -1e306
    with pytest.raises(NumericalRangeError, match=r"\[2, 0\]"):
        max_product(t, lphi, np.zeros((2, 2)))
    lphi[2, 0] = -np.inf      # -inf is a legal zero
    labels, value = max_product(t, lphi, np.zeros((2, 2)))
    assert labels[2] == 1 and value == 0.0


def test_tree_hedge_stores_a_weight_below_the_normal_range_as_zero():
    """e^-720 is subnormal: the learner keeps its exact logarithm and gives the model 0 (the
    inference code refuses subnormal entries), on every backend."""
    from engine.hedge.learner import TreeHedge

    t = path_tree(3)
    for backend in ("online", "bp", "brute"):
        h = TreeHedge(t, 2, eta=720.0, coupling=0.9, backend=backend)
        h.learn_one(1, [1.0, 0.0])
        assert h.data[1].tolist() == [0.0, 1.0]
        assert h._log_data[1, 0] == pytest.approx(-720.0)
        np.testing.assert_allclose(h.predict_one(1), [0.0, 1.0])


def test_zero_entries_of_gamma_are_not_shifted_past_the_largest_exponent():
    """A node table once shifted γ's zero entries too: with an all-zero row of a β below, a zero
    entry's exponent sum exceeded the largest of the non-zero ones and ``pow2`` was asked for
    2^1536, read before its table (a segmentation fault in compiled code). The pure build
    indexes with Python's checks, so the case that found it now runs in both builds."""
    rng = np.random.default_rng(151)
    rng.integers(4), rng.integers(2, 6), rng.integers(3, 41)      # the draws of the stress script
    tree = path_tree(40).rerooted(int(rng.integers(40)))
    rng.integers(3)
    phi, E = _entries(rng, (40, 3), 0.15), _entries(rng, (39, 3, 3), 0.15)
    lz, marg = log_sum_product(tree, phi, E)
    for backend in ("python", "numba"):
        if marg is None:
            with pytest.raises(InconsistentEvidenceError):
                OnlineModel(tree, 3, E, phi, backend=backend)
        else:
            _check_online(OnlineModel(tree, 3, E, phi, backend=backend), tree, phi, E)
    from engine.inference._extended import pow2
    assert (pow2(0.0), pow2(-3.0), pow2(1.0), pow2(-5000.0)) == (1.0, 0.125, 2.0, 0.0)
    assert pow2(1536.0) == np.inf and np.isnan(pow2(np.nan))
