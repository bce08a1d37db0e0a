"""Belief propagation, the parallel schedule and max-product against brute-force enumeration and
pgmpy (the lecture notes "Inferences on trees: sum-product algorithm", sections 8.2-8.4).
Tolerance: relative 1e-9 (exact algorithms)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InconsistentEvidenceError, InvalidPotentialError
from engine.inference.belief_propagation import belief_propagation, flooding, max_product
from engine.inference.brute_force import brute_force
from engine.inference.potentials import edge_potential_table, potts_interaction
from engine.trees.generators import generate, path_tree, star_tree
from engine.trees.metrics import diameter_path
from engine.trees.model import Tree

RTOL = 1e-9


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=1e-300)


@st.composite
def models(draw, max_n=9, zeros=True):
    n = draw(st.integers(1, max_n))
    k = draw(st.sampled_from([2, 3, 4]))
    while k ** n > 2 ** 16:
        n -= 1
    seed = draw(st.integers(0, 2 ** 31))
    rng = np.random.default_rng(seed)
    if n > 2:
        prufer = draw(st.lists(st.integers(0, n - 1), min_size=n - 2, max_size=n - 2))
        from engine.trees.generators import prufer_to_parent
        tree = Tree.from_parent(prufer_to_parent(np.asarray(prufer, np.int64), n))
    else:
        tree = path_tree(n)
    phi = rng.random((n, k)) * 10.0 ** rng.integers(-3, 4, size=(n, 1))
    E = rng.random((max(n - 1, 0), k, k)) + 0.01
    if zeros:
        phi[rng.random((n, k)) < 0.15] = 0.0
        E[rng.random(E.shape) < 0.1] = 0.0
    return tree, k, phi, E


def _bf(tree, k, phi, E):
    try:
        return brute_force(tree, phi, E, k=k)
    except InconsistentEvidenceError:
        return None


@given(models())
def test_bp_equals_brute_force(m):
    tree, k, phi, E = m
    bf = _bf(tree, k, phi, E)
    for method in ("numba", "numpy"):
        if bf is None:
            with pytest.raises(InconsistentEvidenceError):
                belief_propagation(tree, phi, E, k=k, method=method)
            continue
        res = belief_propagation(tree, phi, E, k=k, method=method)
        _close(res.marginals, bf.marginals)
        assert res.log_partition == pytest.approx(bf.log_partition, rel=RTOL, abs=1e-12)


@given(models(zeros=False))
def test_messages_satisfy_the_lecture_equations(m):
    """Each message equals eq. 5 computed from the others; beliefs equal eq. 6."""
    tree, k, phi, E = m
    res = belief_propagation(tree, phi, E, k=k)
    P = np.ones((tree.n, k, k))
    P[tree.edges[:, 1]] = E
    up, down = res.upward, res.downward
    for v in range(tree.n):
        kids = tree.children(v)
        inside = phi[v] * np.prod(up[kids], axis=0) if len(kids) else phi[v].copy()
        if v != tree.root:
            msg = P[v] @ inside                # m_{v -> parent}(x_p) = Σ_x ψ(x_p, x) φ_v(x) Π m_{c -> v}(x)
            _close(up[v], msg / msg.sum())
            p = tree.parent[v]
            outside = phi[p] * (down[p] if p != tree.root else 1.0)
            for s in tree.children(p):
                if s != v:
                    outside = outside * up[s]
            msg = outside @ P[v]               # m_{p -> v}(x_v) = Σ_xp φ_p ψ(x_p, x_v) Π others
            _close(down[v], msg / msg.sum())
        belief = inside * (down[v] if v != tree.root else 1.0)
        _close(res.marginals[v], belief / belief.sum())


def test_flooding_converges_within_the_diameter():
    rng = np.random.default_rng(3)
    for kind in ("random", "path", "star", "caterpillar"):
        tree = generate(kind, 12, seed=1)
        phi = rng.random((12, 3))
        phi[0, 1] = 0.0
        E = rng.random((11, 3, 3))
        trace = flooding(tree, phi, E)
        d = len(diameter_path(tree)) - 1
        assert 0 < trace.converged_at <= d
        bf = brute_force(tree, phi, E)
        _close(trace.marginals[-1], bf.marginals)
        _close(trace.marginals[trace.converged_at], bf.marginals)


def test_flooding_not_exact_before_the_diameter_on_a_path():
    tree = path_tree(9)
    rng = np.random.default_rng(0)
    phi = rng.random((9, 2))
    trace = flooding(tree, phi, potts_interaction(2, 1.0))
    assert trace.converged_at == 8


@given(models())
def test_max_product_equals_brute_force(m):
    tree, k, phi, E = m
    bf = _bf(tree, k, phi, E)
    with np.errstate(divide="ignore"):
        lphi, lE = np.log(phi), np.log(E)
    for method in ("numba", "numpy"):
        if bf is None:
            with pytest.raises(InconsistentEvidenceError):
                max_product(tree, lphi, lE, method=method)
            continue
        lab, val = max_product(tree, lphi, lE, method=method)
        assert val == pytest.approx(bf.best_log_value, rel=RTOL, abs=1e-12)
        # the labelling attains the value
        score = lphi[np.arange(tree.n), lab].sum()
        if tree.n > 1:
            score += lE[np.arange(tree.n - 1), lab[tree.edges[:, 0]], lab[tree.edges[:, 1]]].sum()
        assert score == pytest.approx(val, rel=RTOL, abs=1e-12)


def test_high_degree_star_with_zeros():
    """The product trick without division: a star of 2000 leaves, zeros in many messages."""
    tree = star_tree(2001)
    rng = np.random.default_rng(1)
    phi = rng.random((2001, 3))
    phi[1::3, 0] = 0.0
    phi[2::3, 1] = 0.0
    E = np.eye(3) + 0.0   # hard copy constraint: messages have zeros
    E[0, 1] = 0.5
    a = belief_propagation(tree, phi, E, method="numba")
    b = belief_propagation(tree, phi, E, method="numpy")
    _close(a.marginals, b.marginals)
    assert np.isfinite(a.log_partition)
    assert a.log_partition == pytest.approx(b.log_partition, rel=1e-12)


def test_agrees_with_pgmpy_variable_elimination():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.factors.discrete import DiscreteFactor
        from pgmpy.inference import VariableElimination
        from pgmpy.models import DiscreteMarkovNetwork

    rng = np.random.default_rng(7)
    for trial in range(4):
        n, k = 15, 3
        tree = generate("random", n, seed=trial)
        phi = rng.random((n, k))
        E = rng.random((n - 1, k, k))
        names = [f"x{v}" for v in range(n)]
        g = DiscreteMarkovNetwork()
        g.add_nodes_from(names)
        fs = []
        for i, (p, c) in enumerate(tree.edges):
            g.add_edge(names[p], names[c])
            fs.append(DiscreteFactor([names[p], names[c]], [k, k], E[i].ravel()))
        fs += [DiscreteFactor([names[v]], [k], phi[v]) for v in range(n)]
        g.add_factors(*fs)
        ve = VariableElimination(g)
        res = belief_propagation(tree, phi, E)
        for v in (0, 5, 14):
            q = ve.query([names[v]], show_progress=False)
            _close(res.marginals[v], q.values / q.values.sum())  # pgmpy leaves Markov networks unnormalised


def test_named_asymmetric_edge_potentials_are_oriented():
    tree = Tree.from_named_edges([("a", "b"), ("b", "c")])
    M = np.array([[1.0, 9.0], [1.0, 1.0]])  # rows index c's state
    E = edge_potential_table(tree, np.ones((2, 2)), {("c", "b"): M})
    bf = brute_force(tree, None, E, k=2)
    # p(x_b, x_c) ∝ M[x_c, x_b]
    want_b = M.sum(axis=0) / M.sum()
    _close(bf.marginals[tree.index("b")], want_b)
    _close(belief_propagation(tree, None, E, k=2).marginals, bf.marginals)


def test_bad_potentials_name_the_culprit():
    tree = Tree.from_named_edges([("a", "b"), ("b", "c")])
    E = np.ones((2, 2, 2))
    E[1, 1, 0] = -0.2
    with pytest.raises(InvalidPotentialError, match=r"edge \(b, c\).*-0.2.*\[1, 0\]"):
        belief_propagation(tree, None, E, k=2)
    phi = np.ones((3, 2))
    phi[2, 1] = np.nan
    with pytest.raises(InvalidPotentialError, match="vertex c"):
        belief_propagation(tree, phi, np.ones((2, 2)))


@pytest.mark.parametrize("bad", [np.nan, -1.0, np.inf, 1e-310])
@pytest.mark.parametrize("where", [0, -1])
def test_per_edge_potentials_checked_in_the_sweep_are_refused_first(bad, where):
    """One potential per edge is checked by the fast pass as it reads it (no separate scan): a bad
    entry on the first or the last edge read is still refused, named, before anything else is
    said -- also when a node potential is bad too, or the evidence is inconsistent."""
    from engine.errors import NumericalRangeError

    tree = generate("random", 2000, seed=5)
    E = np.ones((tree.n - 1, 2, 2))
    E[where, 0, 1] = bad
    want = NumericalRangeError if bad == 1e-310 else InvalidPotentialError
    phi = np.ones((tree.n, 2))
    with pytest.raises(want, match="edge"):
        belief_propagation(tree, phi, E)
    phi[7] = [np.nan, 1.0]                      # a bad node potential too: the edge is named first
    with pytest.raises(want, match="edge"):
        belief_propagation(tree, phi, E)
    phi[7] = [0.0, 0.0]                         # zero mass: the bad edge is still what is said
    with pytest.raises(want, match="edge"):
        belief_propagation(tree, phi, E)


def test_per_edge_potentials_outside_the_fast_range_go_to_the_exact_pass():
    tree = generate("random", 300, seed=6)
    rng = np.random.default_rng(2)
    E = rng.random((tree.n - 1, 3, 3)) + 0.1
    E[0] *= 1e200                               # row 0: the last the collect sweep reads; beyond 2^300
    phi = rng.random((tree.n, 3)) + 0.1
    got = belief_propagation(tree, phi, E)
    want = belief_propagation(tree, phi, E, method="numpy")
    np.testing.assert_allclose(got.marginals, want.marginals, rtol=1e-9)
    assert got.log_partition == pytest.approx(want.log_partition, rel=1e-12)


@pytest.mark.slow
def test_long_path_extreme_potentials_log_partition():
    """A 20,000-vertex path with potentials spanning 1e-100..1e100: finite, exact log Z."""
    from scipy.special import logsumexp

    n, k = 20_000, 2
    tree = path_tree(n)
    rng = np.random.default_rng(5)
    phi = 10.0 ** rng.uniform(-100, 100, size=(n, k))
    E = 10.0 ** rng.uniform(-100, 100, size=(n - 1, k, k))
    res = belief_propagation(tree, phi, E)
    ref = belief_propagation(tree, phi, E, method="numpy")
    # independent forward recursion in log space along the path
    order = tree.order
    lphi, lE = np.log(phi), np.log(E)
    row = {int(c): i for i, c in enumerate(tree.edges[:, 1])}
    a = lphi[order[0]].copy()
    for v in order[1:]:
        v = int(v)
        a = logsumexp(a[:, None] + lE[row[v]], axis=0) + lphi[v]
    z = logsumexp(a)
    assert np.isfinite(res.marginals).all()
    assert res.log_partition == pytest.approx(z, rel=1e-12)
    assert ref.log_partition == pytest.approx(z, rel=1e-12)
    # Tiny entries too: a belief entry ~1e-183 formed from factors 1e-159 * 1e-168 (which linear
    # max-normalised vectors used to flush to zero) agrees with the log-domain pass to relative
    # 1e-9, like every other entry.
    np.testing.assert_allclose(res.marginals, ref.marginals, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("shape", ["random", "path", "star", "caterpillar"])
def test_breadth_first_renumbering_and_the_lean_sweep(shape):
    """Tree.bfs_*: parents before children, children contiguous, edge rows in rank order; the
    lean sweep ``bench online`` times BP against gives BP's answers on an ordinary model."""
    from engine.inference._bp_kernels import lean_sweep

    tree = generate(shape, 300, seed=4)
    n, k = tree.n, 3
    order, rank, pr, ptr = tree.order, tree.bfs_rank, tree.bfs_parent, tree.bfs_children_ptr
    np.testing.assert_array_equal(rank[order], np.arange(n))
    assert pr[0] == -1 and (pr[1:] < np.arange(1, n)).all()
    np.testing.assert_array_equal(order[pr[1:]], tree.parent[order[1:]])
    for i in range(n):
        assert (pr[ptr[i]:ptr[i + 1]] == i).all()
    assert ptr[-1] == n
    np.testing.assert_array_equal(tree.edges[:, 1], order[1:])   # rank c's edge is row c - 1
    rng = np.random.default_rng(1)
    phi = rng.random((n, k)) + 0.1
    E = rng.random((n - 1, k, k)) + 0.1
    ref = belief_propagation(tree, phi, E)
    marg = np.empty((n, k))
    logz = lean_sweep(pr, ptr, phi[order], E, np.empty((n, k)), np.empty((n, k)),
                      np.empty((n, k)), marg)
    np.testing.assert_allclose(marg, ref.marginals[order], rtol=1e-9)
    assert logz == pytest.approx(ref.log_partition, rel=1e-9)


def test_bp_on_a_tree_edited_in_the_studio():
    """Adding a vertex under a shallow one (Tree Studio's "add child") used to put it last in the
    order, so its parent's children were no longer contiguous in the breadth-first numbering and
    the compiled pass's marginals were off by 0.03; both passes must equal brute force."""
    from engine.trees.editing import add_child, remove_leaf

    t = remove_leaf(add_child(add_child(generate("path", 6, seed=0), 0), 1), 5)
    rng = np.random.default_rng(3)
    phi = rng.random((t.n, 3)) + 0.1
    E = rng.random((t.n - 1, 3, 3)) + 0.1
    want = brute_force(t, phi, E).marginals
    for method in ("numba", "numpy"):
        np.testing.assert_allclose(belief_propagation(t, phi, E, method=method).marginals, want, atol=1e-12)

