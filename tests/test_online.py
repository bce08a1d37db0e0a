"""The online sum-product model of "Online Sum-Product Computation over Trees" (Herbster,
Pasteris & Vitale; section 4) checked after every operation against full belief propagation
and brute-force enumeration, relative 1e-9; zeros, asymmetric potentials, both covers, atomic
failure, extreme potentials on long paths, the pure-Python reference."""

import functools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import (
    InconsistentEvidenceError,
    InvalidParameterError,
    InvalidPotentialError,
    NumericalRangeError,
    UnknownVertexError,
)
from engine.inference.belief_propagation import belief_propagation
from engine.inference.brute_force import brute_force
from engine.inference.online import OnlineModel
from engine.inference.potentials import potts_interaction
from engine.trees.generators import generate, path_tree, prufer_to_parent, star_tree
from engine.trees.model import Tree

RTOL = 1e-9


def _tree(draw, n):
    if n <= 2:
        return path_tree(n)
    prufer = draw(st.lists(st.integers(0, n - 1), min_size=n - 2, max_size=n - 2))
    return Tree.from_parent(prufer_to_parent(np.asarray(prufer, np.int64), n))


def _check(model, tree, k):
    """Every marginal and log Z against a fresh BP pass (and brute force when small)."""
    phi, E = model.node_data, model.edge_potentials()
    ref = belief_propagation(tree, phi, E if tree.n > 1 else np.ones((k, k)), k=k)
    got = np.array([model.marginal(v) for v in range(tree.n)])
    np.testing.assert_allclose(got, ref.marginals, rtol=RTOL, atol=1e-300)
    assert model.log_partition() == pytest.approx(ref.log_partition, rel=RTOL, abs=1e-12)
    if k ** tree.n <= 2 ** 12:
        bf = brute_force(tree, phi, E if tree.n > 1 else np.ones((k, k)), k=k)
        np.testing.assert_allclose(got, bf.marginals, rtol=RTOL, atol=1e-300)
        assert model.log_partition() == pytest.approx(bf.log_partition, rel=RTOL, abs=1e-12)


def _snapshot(model):
    return model.state_arrays()


ops = st.lists(st.tuples(st.sampled_from(["update", "zero", "edge", "edge0", "marginal"]),
                         st.integers(0, 10 ** 6), st.integers(0, 2 ** 31)), min_size=1, max_size=12)


@given(data=st.data(), n=st.integers(1, 40), k=st.sampled_from([2, 3, 4]),
       cover=st.sampled_from(["optimal", "rake-only"]), seq=ops, seed=st.integers(0, 2 ** 31))
def test_every_answer_equals_bp_after_every_operation(data, n, k, cover, seq, seed):
    tree = _tree(data.draw, n)
    rng = np.random.default_rng(seed)
    phi = rng.random((n, k)) + 0.05
    E = rng.random((max(n - 1, 0), k, k)) + 0.05      # asymmetric
    model = OnlineModel(tree, k, E if n > 1 else np.ones((k, k)), phi, cover=cover)
    _check(model, tree, k)
    for kind, a, b in seq:
        r = np.random.default_rng(b)
        v = a % n
        before = _snapshot(model)
        try:
            if kind == "update":
                model.update(v, r.random(k) * 10.0 ** r.integers(-5, 6))
            elif kind == "zero":             # hard evidence: some labels forbidden (maybe all)
                d = r.random(k)
                d[r.random(k) < 0.6] = 0.0
                model.update(v, d)
            elif kind in ("edge", "edge0") and n > 1:
                p, c = tree.edges[a % (n - 1)]
                M = r.random((k, k))
                if kind == "edge0":
                    M[r.random((k, k)) < 0.4] = 0.0
                if r.random() < 0.5:
                    model.set_edge_potential(int(c), int(p), M)
                else:
                    model.set_edge_potential(int(p), int(c), M)
            else:
                model.marginal(v)
        except InconsistentEvidenceError:
            after = _snapshot(model)
            for x, y in zip(before, after):
                np.testing.assert_array_equal(x, y)   # exactly as before
        _check(model, tree, k)


def test_pure_python_reference_equals_compiled():
    rng = np.random.default_rng(11)
    for trial in range(6):
        n, k = 25, 3
        tree = generate("random", n, seed=trial)
        E = rng.random((n - 1, k, k))
        phi = rng.random((n, k))
        a = OnlineModel(tree, k, E, phi, backend="python", cover=["optimal", "rake-only"][trial % 2])
        b = OnlineModel(tree, k, E, phi, backend="numba", cover=["optimal", "rake-only"][trial % 2])
        for _ in range(10):
            v = int(rng.integers(n))
            d = rng.random(k)
            d[int(rng.integers(k))] = 0.0
            a.update(v, d)
            b.update(v, d)
            assert a.last_op.work == b.last_op.work
            np.testing.assert_array_equal(a.last_op.touched, b.last_op.touched)
            w = int(rng.integers(n))
            np.testing.assert_allclose(a.marginal(w), b.marginal(w), rtol=1e-13)
            assert a.log_partition() == pytest.approx(b.log_partition(), rel=1e-13)
        _check(a, tree, k)


def test_update_walks_one_path_of_d():
    tree = generate("random", 2000, seed=3)
    model = OnlineModel(tree, 2, potts_interaction(2, 0.5), None)
    C = model.cover
    for v in (0, 17, 1999):
        model.update(v, [0.2, 0.8])
        rep = model.last_op
        assert rep.op == "update"
        z = C.node_of_vertex(v)
        np.testing.assert_array_equal(rep.touched, C.ancestors(z))
        assert len(rep.touched) <= C.height + 1
        model.marginal(v)
        np.testing.assert_array_equal(model.last_op.touched, C.ancestors(z)[::-1])


def test_high_degree_vertex_uses_the_product_tree():
    tree = star_tree(3000)
    model = OnlineModel(tree, 3, potts_interaction(3, 1.0), None)
    model.update(5, [0.0, 1.0, 0.0])
    assert model.last_op.work < 500          # O(k log degree), not O(k degree)
    model.update(0, [1.0, 0.0, 1.0])
    model.update(7, [1.0, 0.0, 0.0])
    _check(model, tree, 3)


def test_inconsistent_evidence_leaves_the_model_unchanged():
    tree = Tree.from_named_edges([("a", "b"), ("b", "c"), ("b", "d")])
    E = np.eye(2)                               # neighbours must agree
    model = OnlineModel(tree, 2, E, None)
    model.update("a", [1.0, 0.0])
    before = _snapshot(model)
    with pytest.raises(InconsistentEvidenceError, match="vertex c"):
        model.update("c", [0.0, 1.0])
    after = _snapshot(model)
    for x, y in zip(before, after):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(InconsistentEvidenceError):
        model.set_edge_potential("b", "d", np.zeros((2, 2)))
    np.testing.assert_array_equal(model.marginal("d"), [1.0, 0.0])
    _check(model, tree, 2)


@pytest.mark.parametrize("backend", ["numba", "python"])
@pytest.mark.parametrize("shape, cover", [("random", "optimal"), ("random", "rake-only"),
                                          ("star", "optimal"), ("path", "optimal")])
def test_all_zero_evidence_at_any_vertex_changes_nothing(shape, cover, backend):
    """Every vertex in turn gets an all-zero row: the walk fails at its first step (at an edge
    node's table or at an internal node's product-tree leaf) and every buffer is as before."""
    n, k = 30, 2
    rng = np.random.default_rng(5)
    tree = generate(shape, n, seed=1)
    model = OnlineModel(tree, k, rng.random((n - 1, k, k)) + 0.05, rng.random((n, k)) + 0.05,
                        cover=cover, backend=backend)
    for v in range(n):
        before = _snapshot(model)
        with pytest.raises(InconsistentEvidenceError, match=f"vertex {v}"):
            model.update(v, np.zeros(k))
        for x, y in zip(before, _snapshot(model)):
            np.testing.assert_array_equal(x, y)
    _check(model, tree, k)


def test_bad_inputs_name_the_culprit():
    tree = Tree.from_named_edges([("a", "b"), ("b", "c")])
    model = OnlineModel(tree, 2, np.ones((2, 2)), None)
    with pytest.raises(InvalidPotentialError, match="vertex b"):
        model.update("b", [1.0, -1.0])
    with pytest.raises(InvalidPotentialError, match="2 numbers"):
        model.update("b", [1.0, 1.0, 1.0])
    with pytest.raises(UnknownVertexError, match="zz"):
        model.marginal("zz")
    with pytest.raises(UnknownVertexError, match=r"\(a, c\) is not an edge"):
        model.set_edge_potential("a", "c", np.ones((2, 2)))
    with pytest.raises(InvalidPotentialError, match=r"edge \(a, b\).*nan"):
        model.set_edge_potential("a", "b", [[1.0, np.nan], [1.0, 1.0]])


def _extreme(n, k, rng, entry_range, scale_range):
    phi = 10.0 ** rng.uniform(-entry_range, entry_range, size=(n, k)) \
        * 10.0 ** rng.uniform(-scale_range, scale_range, size=(n, 1))
    E = 10.0 ** rng.uniform(-entry_range, entry_range, size=(n - 1, k, k)) \
        * 10.0 ** rng.uniform(-scale_range, scale_range, size=(n - 1, 1, 1))
    return phi, E


@pytest.mark.slow
@pytest.mark.parametrize("cover", ["optimal", "rake-only"])
@pytest.mark.parametrize("kind", ["path", "random"])
def test_long_trees_with_extreme_potentials(cover, kind):
    """20,000 vertices; every potential scaled by 10^U(-100, 100) and entries spanning 1e-50..1e50
    within each: finite marginals, log Z exact to relative 1e-12, before and after updates."""
    n, k = 20_000, 2
    tree = generate(kind, n, seed=4)
    rng = np.random.default_rng(2)
    phi, E = _extreme(n, k, rng, 50, 100)
    model = OnlineModel(tree, k, E, phi, cover=cover)
    ref = belief_propagation(tree, phi, E, method="numpy")   # log-domain reference
    assert model.log_partition() == pytest.approx(ref.log_partition, rel=1e-12)
    for v in rng.integers(n, size=20):
        d = 10.0 ** rng.uniform(-100, 100, size=k)
        model.update(int(v), d)
        phi[v] = d
    ref = belief_propagation(tree, phi, E, method="numpy")
    assert model.log_partition() == pytest.approx(ref.log_partition, rel=1e-12)
    for v in rng.integers(n, size=20):
        got = model.marginal(int(v))
        assert np.isfinite(got).all()
        # every entry to relative 1e-9, however tiny (mantissas and exponents, nothing flushed)
        np.testing.assert_allclose(got, ref.marginals[v], rtol=1e-9, atol=1e-300)


@pytest.mark.slow
@pytest.mark.parametrize("cover", ["optimal", "rake-only"])
def test_long_path_with_extreme_entries(cover):
    """Entries themselves spanning 1e-100..1e100 (not just scales): a k x k table of a long
    compressed path segment then spans far more than 1e308, which is why every table entry
    carries its own exponent."""
    n, k = 20_000, 2
    tree = path_tree(n)
    rng = np.random.default_rng(2)
    phi, E = _extreme(n, k, rng, 100, 0)
    model = OnlineModel(tree, k, E, phi, cover=cover)
    ref = belief_propagation(tree, phi, E, method="numpy")
    assert model.log_partition() == pytest.approx(ref.log_partition, rel=1e-12)
    for v in rng.integers(n, size=20):
        np.testing.assert_allclose(model.marginal(int(v)), ref.marginals[v], rtol=1e-9, atol=1e-300)


def test_extreme_potentials_with_zeros_marginal_walk_in_logs():
    """Entries 10^U(-100, 100), 30% zeros (a case found in review): the siblings' product and the
    outside messages of the marginal walk span more than 1e308 and used to underflow to 0/0 (NaN,
    or ZeroDivisionError in the compiled build). Against brute force, relative 1e-9."""
    rng = np.random.default_rng(0)
    k = 3
    for trial in range(6):    # the recipe of the review script; trial 5 is the failing case
        n = int(rng.integers(3, 9))
        tree = generate("random", n, seed=trial)
        E = 10.0 ** rng.uniform(-100, 100, (n - 1, k, k))
        E[rng.random(E.shape) < 0.3] = 0.0
        D = 10.0 ** rng.uniform(-100, 100, (n, k))
        D[rng.random(D.shape) < 0.3] = 0.0
    bf = brute_force(tree, D, E, k=k)
    for backend in ("numba", "python"):
        model = OnlineModel(tree, k, E, D, backend=backend)
        got = np.array([model.marginal(v) for v in range(n)])
        np.testing.assert_allclose(got, bf.marginals, rtol=RTOL, atol=1e-300)
        assert model.log_partition() == pytest.approx(bf.log_partition, rel=RTOL)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_unknown_cover_kind_is_rejected_at_every_size(n):
    from engine.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="'bogus'"):
        OnlineModel(generate("path", n), 2, np.ones((2, 2)), None, cover="bogus")


# ---------------------------------------------------------------------- the batch verbs

def _stream(rng, n, k, m):
    """m updates: soft data, hard evidence, and some all-zero rows (always inconsistent)."""
    vs = rng.integers(n, size=m)
    X = rng.random((m, k)) * 10.0 ** rng.integers(-3, 4, size=(m, 1))
    X[rng.random((m, k)) < 0.3] = 0.0
    X[rng.random(m) < 0.1] = 0.0
    return vs, X


@given(data=st.data(), n=st.integers(3, 40), k=st.sampled_from([2, 3, 4]),
       cover=st.sampled_from(["optimal", "rake-only"]), seed=st.integers(0, 2 ** 31))
def test_batch_verbs_equal_one_call_at_a_time_and_bp(data, n, k, cover, seed):
    tree = _tree(data.draw, n)
    rng = np.random.default_rng(seed)
    phi = rng.random((n, k)) + 0.05
    E = rng.random((n - 1, k, k)) + 0.05
    E[(rng.random((n - 1, k, k)) < 0.2) & ~np.eye(k, dtype=bool)] = 0.0   # mass stays positive
    a = OnlineModel(tree, k, E, phi, cover=cover)
    b = OnlineModel(tree, k, E, phi, cover=cover)
    for _ in range(3):
        vs, X = _stream(rng, n, k, 8)
        wa, wb = a.total_work, b.total_work
        applied = a.update_many(vs, X, skip_inconsistent=True)
        want = []
        for v, x in zip(vs, X):
            try:
                b.update(int(v), x)
                want.append(True)
            except InconsistentEvidenceError:
                want.append(False)
        assert applied.tolist() == want
        for x, y in zip(a.state_arrays(), b.state_arrays()):
            np.testing.assert_array_equal(x, y)
        assert a.total_work - wa == b.total_work - wb
        _check(a, tree, k)
        qs = rng.integers(n, size=10)
        np.testing.assert_array_equal(a.marginal_many(qs), [b.marginal(int(v)) for v in qs])
        # predict-then-learn: each marginal taken before its update (consistent data only)
        vs, X = rng.integers(n, size=6), rng.random((6, k)) + 0.01
        got = a.marginal_update_many(vs, X)
        for t, (v, x) in enumerate(zip(vs, X)):
            np.testing.assert_array_equal(got[t], b.marginal(int(v)))
            b.update(int(v), x)
        _check(a, tree, k)


def test_batch_failure_stops_where_it_says_and_names_the_culprit():
    tree = Tree.from_named_edges([("a", "b"), ("b", "c"), ("b", "d")])
    a = OnlineModel(tree, 2, np.eye(2), None)        # neighbours must agree
    b = OnlineModel(tree, 2, np.eye(2), None)
    X = np.array([[1.0, 0.0], [0.3, 0.7], [0.0, 1.0], [1.0, 1.0]])
    with pytest.raises(InconsistentEvidenceError, match=r"vertex c\).*update 2 of the batch"):
        a.update_many(["a", "d", "c", "b"], X)
    b.update("a", X[0])
    b.update("d", X[1])                                 # the model is as after updates 0 and 1
    for x, y in zip(a.state_arrays(), b.state_arrays()):
        np.testing.assert_array_equal(x, y)
    before = a.state_arrays()
    bad = [([0, 1], [[1.0, 1.0], [1.0, -1.0]], InvalidPotentialError, r"vertex b \(update 1"),
           ([0, 1], [[1.0, 1.0], [1e-310, 1.0]], NumericalRangeError, r"vertex b \(update 1"),
           ([0, 1], [[np.nan, 1.0], [1.0, 1.0]], InvalidPotentialError, r"vertex a \(update 0"),
           ([0, 9], [[1.0, 1.0], [1.0, 1.0]], UnknownVertexError, "9"),
           (["a", "zz"], [[1.0, 1.0], [1.0, 1.0]], UnknownVertexError, "zz"),
           ([0, 1], [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], InvalidPotentialError, r"shape \(2, 2\)"),
           ([0, 1], [[1.0, 1.0]], InvalidPotentialError, r"shape \(2, 2\)")]
    for vs, X, err, msg in bad:                        # refused before anything is done
        with pytest.raises(err, match=msg):
            a.update_many(vs, X)
        with pytest.raises(err, match=msg):
            a.marginal_update_many(vs, X)
        for x, y in zip(before, a.state_arrays()):
            np.testing.assert_array_equal(x, y)
    with pytest.raises(UnknownVertexError, match="-1"):
        a.marginal_many([0, -1])
    with pytest.raises(InvalidPotentialError, match="2 numbers"):
        a.update("b", np.ones((1, 2)))                 # a row, not a vector
    with pytest.raises(InvalidParameterError, match=r"out must be .*shape \(2, 2\)"):
        a.marginal_many([0, 1], out=np.empty((2, 3)))
    with pytest.raises(InvalidParameterError, match="out must be"):
        a.marginal(0, out=np.empty(2, np.float32))
    _check(a, tree, 2)


def test_batch_verbs_on_tiny_trees_and_the_pure_python_build():
    rng = np.random.default_rng(5)
    for n in (1, 2):
        tree = path_tree(n)
        m = OnlineModel(tree, 3, np.ones((3, 3)) + np.eye(3), None)
        m.update_many([0] * 4, rng.random((4, 3)))
        np.testing.assert_array_equal(m.marginal_many(range(n)), [m.marginal(v) for v in range(n)])
        _check(m, tree, 3)
    tree = generate("random", 30, seed=2)
    E = rng.random((29, 3, 3))
    a = OnlineModel(tree, 3, E, None, backend="python")
    b = OnlineModel(tree, 3, E, None)
    vs, X = _stream(rng, 30, 3, 20)
    assert a.update_many(vs, X, skip_inconsistent=True).tolist() == \
        b.update_many(vs, X, skip_inconsistent=True).tolist()
    np.testing.assert_allclose(a.marginal_many(np.arange(30)), b.marginal_many(np.arange(30)), rtol=1e-13)
    assert a.last_op.work == b.last_op.work


@functools.cache
def _compiled_views():
    """``c_view`` and ``c_view_i32`` called from compiled code, the shape passed in: compiled once
    per dtype and number of dimensions, not once per example (a closure over the shape made each
    example a new function: 11 s of compiling for the two tests below)."""
    from numba import njit

    from engine.inference._extended import c_view, c_view_i32

    @njit
    def viewed(a, s, shape):
        return c_view(a, s, shape)

    @njit
    def viewed_i32(a, s, shape):
        return c_view_i32(a, s, shape).copy()

    return viewed, viewed_i32


@given(st.integers(0, 40), st.lists(st.integers(1, 5), min_size=1, max_size=3), st.sampled_from([np.float64, np.int64]))
def test_the_unchecked_view_is_the_reshaped_slice(start, shape, dtype):
    """``c_view``, which the compiled verbs use for their thirteen arrays instead of reshape (its
    checks were a quarter of a call's set-up), gives the very view reshape gives: same values,
    shape and strides, and writes reaching the buffer. (The view is borrowed — it does not keep
    the buffer alive — so this test keeps ``buf`` alive while it looks.)"""
    shape = tuple(shape)
    size = int(np.prod(shape))
    buf = np.arange(start + size + 3).astype(dtype)
    want = buf[start:start + size].reshape(shape)
    got = _compiled_views()[0](buf, start, shape)
    assert got.shape == want.shape and got.strides == want.strides and (got == want).all()
    got[(0,) * len(shape)] = -1
    assert buf[start] == -1 and want[(0,) * len(shape)] == -1     # the same memory


@given(st.integers(0, 40), st.lists(st.integers(1, 5), min_size=1, max_size=3))
def test_the_int32_view_is_numpys(start, shape):
    """``c_view_i32`` (an int64 buffer seen as int32, for the vertices' D paths) gives the view
    NumPy's ``view(np.int32)`` gives, in the compiled and the plain-Python build."""
    from engine.inference import _extended

    shape = tuple(shape)
    size = int(np.prod(shape))
    buf = np.arange(start + size + 3, dtype=np.int64) * 7 - 5
    want = buf[start:].view(np.int32)[:size].reshape(shape)
    for got in (_compiled_views()[1](buf, start, shape), _extended.pure_module().c_view_i32(buf, start, shape)):
        assert got.dtype == np.int32 and got.shape == shape and (got == want).all()


@pytest.mark.parametrize("shape", ["random", "path", "star"])
def test_each_vertex_keeps_its_lowest_d_path(shape):
    """``vpath[v]``, read by the walks' cache hints, is v's D node then its D-ancestors, -1 past
    the root (a wrong row would not change a number, only lose the speed: so it is checked
    here)."""
    from engine.inference import _online_kernels as K

    model = OnlineModel(generate(shape, 300, seed=2), 2, np.array([[2.0, 1.0], [1.0, 2.0]]))
    vpath = K.pure_module().views(model._F, model._I)[-1]
    dpar = model._NI[:, K.DPAR]
    for v in range(300):
        z = vpath[v, 0]
        assert z >= 0
        for j in range(1, K.VPATH):
            z = dpar[z] if z >= 0 else -1
            assert vpath[v, j] == z


def test_the_models_arrays_keep_its_buffers_alive():
    """The arrays a model keeps for Python (its tables, data, ...) are NumPy views that own a
    reference to the flat buffers: they stay valid after the model is gone (the compiled build's
    own views are borrowed, which is why Python never takes those)."""
    import gc

    t = generate("random", 200, seed=5)
    model = OnlineModel(t, 2, np.array([[2.0, 1.0], [1.0, 2.0]]), np.random.default_rng(5).random((200, 2)) + 0.1)
    def owner(a):
        while isinstance(a.base, np.ndarray):
            a = a.base
        return a

    tab, data, NI = model._tab, model._data, model._NI
    assert owner(tab) is owner(model._F) and owner(data) is owner(model._F)
    assert owner(NI) is owner(model._I)
    seen_tab, seen_data, seen_NI = tab.copy(), data.copy(), NI.copy()
    size = model._F.nbytes
    del model
    gc.collect()
    junk = [np.full(size // 8, -7.0) for _ in range(50)]     # would reuse freed memory
    assert (tab == seen_tab).all() and (data == seen_data).all() and (NI == seen_NI).all()
    del junk
