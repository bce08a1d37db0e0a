"""TREE-HEDGE of "Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale;
section 5): the learner against Hedge over all labellings, the exact Theorem 9 bound, the
baselines as limiting cases, the environments and the loss-file reader.

Tolerances: the learner against enumeration and full recomputation, relative 1e-9 (exact
algorithms); the limiting cases coupling 1/k (= Hedge per task) and coupling 1 (= shared Hedge),
absolute 1e-12 on probabilities (the same numbers reached by different float operations).
"""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import DataFormatError, InvalidParameterError, InvalidPotentialError
from engine.hedge import (IndependentHedge, SharedHedge, TreeHedge, c_eta, iid_environment,
                          piecewise_environment, read_loss_file, switching_environment, task_losses,
                          theorem9_bound)
from engine.hedge.bruteforce import BruteForceHedge, brute_best_comparator, brute_marginals
from engine.hedge.potentials import edge_potentials, initial_data, potts_transition
from engine.trees import Tree, generate
from engine.trees.generators import prufer_to_parent

REL = 1e-9


def prufer_tree(seq, n):
    return Tree.from_parent(prufer_to_parent(np.asarray(seq, np.int64), n)) if n > 2 else generate("path", n)


@st.composite
def small_trees(draw, max_n=7):
    n = draw(st.integers(2, max_n))
    seq = draw(st.lists(st.integers(0, n - 1), min_size=max(n - 2, 0), max_size=max(n - 2, 0)))
    return prufer_tree(seq, n)


def random_losses(rng, T, k, kind):
    if kind == "uniform":
        return rng.random((T, k))
    if kind == "bernoulli":
        return (rng.random((T, k)) < 0.5).astype(float)
    return np.where(rng.random((T, k)) < 0.5, 0.0, 1.0) * rng.random((T, 1))  # correlated


# ---------------------------------------------------------------------- the learner is Hedge over labellings
@given(tree=small_trees(), k=st.integers(2, 3), seed=st.integers(0, 2**31),
       coupling=st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0]), eta=st.floats(0.05, 4.0))
@settings(max_examples=40)
def test_learner_equals_hedge_over_labellings(tree, k, seed, coupling, eta):
    rng = np.random.default_rng(seed)
    if coupling == 0.0 and k == 2:
        coupling = 0.3  # k=2, coupling 0 is legal but forces alternation; covered elsewhere
    data = rng.random((tree.n, k)) + 0.05
    th = TreeHedge(tree, k, eta=eta, coupling=coupling, data=data, backend="brute")
    bf = BruteForceHedge(tree, k, eta=eta, coupling=coupling, data=data)
    for _ in range(25):
        v = int(rng.integers(tree.n))
        p, q = th.predict_one(v), bf.predict_one(v)
        np.testing.assert_allclose(p, q, rtol=REL, atol=1e-15)
        y = rng.random(k)
        th.learn_one(v, y)
        bf.learn_one(v, y)


def test_printed_figure3_update_is_not_hedge_over_labellings():
    """Figure 3's D(v) <- p_hat * exp(-eta y) counts the other tasks' evidence twice (issue 5)."""
    tree = generate("path", 4)
    k, eta = 2, 1.0
    theta = edge_potentials(tree, k, coupling=0.8)
    bf = BruteForceHedge(tree, k, eta=eta, coupling=0.8)
    d = np.ones((tree.n, k))
    y = np.array([0.0, 1.0])
    for v in (0, 1, 1):
        p = brute_marginals(tree, theta, d)[v]
        d[v] = p * np.exp(-eta * y)  # as printed
        bf.learn_one(v, y)
    printed = brute_marginals(tree, theta, d)[1]
    assert abs(printed - bf.predict_one(1)).max() > 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["online", "bp", "brute"])
def test_coupling_one_over_k_is_independent_hedge(backend):
    """With every edge uniform the tree model factorises: TREE-HEDGE is Hedge per task (atol 1e-12)."""
    rng = np.random.default_rng(5)
    for n, k in [(6, 2), (5, 3), (4, 4)] + ([(60, 3), (200, 2)] if backend != "brute" else []):
        tree = generate("random", n, seed=n)
        th = TreeHedge(tree, k, eta=0.8, coupling=1.0 / k, backend=backend)
        ih = IndependentHedge(n, k, eta=0.8)
        for _ in range(200):
            v = int(rng.integers(n))
            np.testing.assert_allclose(th.predict_one(v), ih.predict_one(v), rtol=0, atol=1e-12)
            y = rng.random(k)
            th.learn_one(v, y)
            ih.learn_one(v, y)


@pytest.mark.parametrize("backend", ["online", "brute"])
def test_coupling_one_is_shared_hedge(backend):
    """Coupling 1 allows only constant labellings: TREE-HEDGE is one shared Hedge (atol 1e-12)."""
    rng = np.random.default_rng(6)
    tree = generate("random", 7, seed=2)
    th = TreeHedge(tree, 3, eta=1.3, coupling=1.0, backend=backend)
    sh = SharedHedge(3, eta=1.3)
    for _ in range(200):
        v = int(rng.integers(7))
        np.testing.assert_allclose(th.predict_one(v), sh.predict_one(v), rtol=0, atol=1e-12)
        y = rng.random(3)
        th.learn_one(v, y)
        sh.learn_one(v, y)


def test_long_run_does_not_underflow():
    tree = generate("path", 5)
    th = TreeHedge(tree, 2, eta=5.0, coupling=0.9, backend="brute")
    for _ in range(3000):
        th.learn_one(0, np.array([0.0, 1.0]))  # 15000 nats of evidence at one task
    p = th.predict_one(0)
    assert np.isfinite(p).all() and abs(p.sum() - 1) < 1e-12 and p[1] < 1e-300
    assert np.isfinite(th.log_scale).all() and th.data.max() == 1.0
    assert th.predict_one(4)[0] > 0.5 and np.isfinite(th.predict_one(4)).all()


def test_learner_checks_its_inputs():
    tree = generate("path", 3)
    th = TreeHedge(tree, 2, eta=1.0, coupling=0.7, backend="brute")
    with pytest.raises(InvalidParameterError, match="losses must lie in"):
        th.learn_one(0, [0.5, 1.5])
    with pytest.raises(InvalidParameterError, match="2 entries"):
        th.learn_one(0, [0.5, 0.5, 0.5])
    with pytest.raises(Exception, match="no vertex is named"):
        th.predict_one("zz")
    with pytest.raises(InvalidParameterError, match="eta"):
        TreeHedge(tree, 2, eta=0.0)
    with pytest.raises(InvalidParameterError, match="coupling"):
        TreeHedge(tree, 2, eta=1.0, coupling=-0.1)
    with pytest.raises(InvalidParameterError, match="integer >= 2"):
        TreeHedge(tree, 1, eta=1.0)
    with pytest.raises(InvalidPotentialError, match="vertex 1 is all zeros"):
        TreeHedge(tree, 2, eta=1.0, data=[[1, 1], [0, 0], [1, 1]])
    with pytest.raises(InvalidPotentialError, match=r"edge \(0, 1\).*-1"):
        TreeHedge(tree, 2, eta=1.0, theta=np.array([[[1, -1], [1, 1]], [[1, 1], [1, 1]]]))
    with pytest.raises(InvalidParameterError, match="backend"):
        TreeHedge(tree, 2, eta=1.0, backend="magic")


def test_potts_transition():
    np.testing.assert_allclose(potts_transition(3, 0.7), [[0.7, 0.15, 0.15], [0.15, 0.7, 0.15], [0.15, 0.15, 0.7]], rtol=1e-15)
    np.testing.assert_array_equal(potts_transition(2, 1.0), np.eye(2))


# ---------------------------------------------------------------------- Theorem 9
def test_c_eta():
    assert c_eta(1.0) == pytest.approx(1 / (1 - np.exp(-1)), rel=1e-15)
    assert c_eta(1e-8) == pytest.approx(1.0, rel=1e-7)


@given(tree=small_trees(6), k=st.integers(2, 3), seed=st.integers(0, 2**31),
       coupling=st.sampled_from([0.0, 0.4, 0.7, 0.95, 1.0]), eta=st.floats(0.05, 5.0))
@settings(max_examples=40)
def test_best_comparator_is_the_enumerated_minimum(tree, k, seed, coupling, eta):
    """The min-sum comparator attains min over all k^n labellings of L(mu) - ln p(mu)/eta (rel 1e-9)."""
    if coupling == 0.0 and k == 2:
        coupling = 0.1
    rng = np.random.default_rng(seed)
    T = int(rng.integers(1, 60))
    vs = rng.integers(tree.n, size=T)
    ys = rng.random((T, k))
    data = rng.random((tree.n, k)) + 0.01
    b = theorem9_bound(tree, k, eta=eta, coupling=coupling, data=data, vertices=vs, losses=ys)
    theta = edge_potentials(tree, k, coupling=coupling)
    mu, value = brute_best_comparator(tree, theta, initial_data(tree, k, data), eta, task_losses(tree.n, vs, ys))
    assert b.comparator_loss + b.complexity == pytest.approx(value, rel=REL, abs=1e-12)
    assert b.bound == pytest.approx(c_eta(eta) * value, rel=REL)
    L = task_losses(tree.n, vs, ys)
    assert b.comparator_loss == pytest.approx(L[np.arange(tree.n), b.comparator].sum(), rel=1e-12)
    assert b.best_hindsight_loss == pytest.approx(L.min(axis=1).sum(), rel=1e-12)


def test_bound_holds_on_hundreds_of_random_runs():
    """Theorem 9 at its best comparator is never violated (slack >= -1e-9 relative), 400 runs:
    random trees (2..39 tasks), k, eta, couplings (1/k to 1), random priors D^1 and every
    environment, plus loss sequences with no structure at all."""
    rng = np.random.default_rng(2024)
    worst = np.inf
    for i in range(400):
        n = int(rng.integers(2, 8 if i % 3 else 40))
        k = int(rng.integers(2, 4))
        tree = generate("random", n, seed=int(rng.integers(1 << 30)))
        eta = float(rng.choice([0.05, 0.3, 1.0, 2.5, 6.0]))
        coupling = float(rng.choice([1.0 / k, 0.6, 0.9, 0.99, 1.0]))
        T = int(rng.integers(1, 120))
        kind = i % 5
        if kind == 0:
            s = piecewise_environment(tree, k, T, switches=int(rng.integers(0, n)), seed=i)
            vs, ys = s.vertices, s.losses
        elif kind == 1:
            s = switching_environment(tree, k, T, switches=1, seed=i)
            vs, ys = s.vertices, s.losses
        elif kind == 2:
            s = iid_environment(tree, k, T, seed=i)
            vs, ys = s.vertices, s.losses
        else:
            vs = rng.integers(n, size=T)
            ys = random_losses(rng, T, k, ["uniform", "bernoulli"][kind - 3])
        data = None if i % 2 else rng.random((n, k)) + 0.05
        th = TreeHedge(tree, k, eta=eta, coupling=coupling, data=data)  # the online model
        loss = 0.0
        for v, y in zip(vs, ys):
            loss += th.predict_one(int(v)) @ y
            th.learn_one(int(v), y)
        b = theorem9_bound(tree, k, eta=eta, coupling=coupling, data=data, vertices=vs, losses=ys)
        assert loss <= b.bound * (1 + 1e-9) + 1e-12, (i, loss, b)
        worst = min(worst, (b.bound - loss) / max(b.bound, 1e-12))
    assert worst >= 0


def test_bound_rejects_bad_trials():
    tree = generate("path", 3)
    with pytest.raises(InvalidParameterError, match="not a vertex"):
        theorem9_bound(tree, 2, eta=1.0, coupling=0.8, vertices=[0, 3], losses=[[0, 1], [1, 0]])


# ---------------------------------------------------------------------- environments
def test_piecewise_environment_has_the_switches_asked_for():
    tree = generate("random", 40, seed=3)
    for k, s in [(2, 0), (3, 5), (4, 39)]:
        env = piecewise_environment(tree, k, 5000, switches=s, seed=s, low=0.1, high=0.7)
        best = env.best[0]
        e = tree.edges
        assert int((best[e[:, 0]] != best[e[:, 1]]).sum()) == s
        assert env.losses.shape == (5000, k) and set(np.unique(env.losses)) <= {0.0, 1.0}
        on = env.losses[np.arange(5000), best[env.vertices]]
        assert abs(on.mean() - 0.1) < 0.03  # 5000 Bernoulli(0.1): sd 0.004
        off = env.losses.sum(axis=1) - on
        assert abs(off.mean() / (k - 1) - 0.7) < 0.03
        counts = np.bincount(env.vertices, minlength=40)
        assert counts.min() > 60  # uniform arrival: 125 expected per task
    with pytest.raises(InvalidParameterError, match="switches"):
        piecewise_environment(tree, 2, 10, switches=40)
    with pytest.raises(InvalidParameterError, match="below"):
        piecewise_environment(tree, 2, 10, low=0.6, high=0.6)


def test_same_seed_same_stream():
    tree = generate("random", 20, seed=1)
    a = piecewise_environment(tree, 3, 100, switches=2, seed=7)
    b = piecewise_environment(tree, 3, 100, switches=2, seed=7)
    np.testing.assert_array_equal(a.losses, b.losses)
    np.testing.assert_array_equal(a.vertices, b.vertices)


def test_switching_environment_switches_one_subtree_halfway():
    tree = generate("random", 30, seed=4)
    env = switching_environment(tree, 3, 1000, switches=2, seed=1)
    before, after = env.best
    assert list(env.phase_start) == [0, 500]
    moved = np.flatnonzero(before != after)
    assert 1 <= len(moved) <= 15
    top = [v for v in moved if tree.parent[v] not in moved]
    assert len(top) == 1  # one subtree: every moved vertex but its top has a moved parent
    np.testing.assert_array_equal(env.best_at(499), before)
    np.testing.assert_array_equal(env.best_at(500), after)


def test_iid_environment_ignores_the_tree():
    tree = generate("path", 400)
    env = iid_environment(tree, 2, 10, seed=0)
    b = env.best[0]
    agree = (b[tree.edges[:, 0]] == b[tree.edges[:, 1]]).mean()
    assert 0.4 < agree < 0.6


# ---------------------------------------------------------------------- loss files
@pytest.fixture
def named_tree():
    return Tree.from_named_edges([("a", "b"), ("b", "c"), ("b", "d")])


def test_loss_file_csv_and_jsonl(tmp_path, named_tree):
    p = tmp_path / "l.csv"
    p.write_text("task,y1,y2\n# a comment\na,0,1\n\nd,0.25,0.5\n")
    s = read_loss_file(p, named_tree)
    assert s.vertices.tolist() == [0, 3] and s.losses.tolist() == [[0, 1], [0.25, 0.5]] and s.best is None
    q = tmp_path / "l.jsonl"
    q.write_text("\n".join(json.dumps({"task": t, "loss": y}) for t, y in [("c", [1, 0, 0.5]), ("a", [0, 0, 0])]))
    s = read_loss_file(q, named_tree, 3)
    assert s.vertices.tolist() == [2, 0] and s.k == 3
    t = tmp_path / "l.tsv"
    t.write_text("b\t0.5\t0.5\n")
    assert read_loss_file(t, named_tree).vertices.tolist() == [1]


@pytest.mark.parametrize("text,message", [
    ("a,0,1\nz,0,1\n", "l.csv line 2: task 'z' is not a vertex of the tree"),
    ("a,0,1\nb,0\n", "l.csv line 2: expected 2 losses after the task, got 1"),
    ("a,0,1.5\n", r"l.csv line 1, loss 2: loss 1.5 is outside \[0, 1\]"),
    ("a,0,-0.1\n", r"outside \[0, 1\]"),
    ("a,0,nan\n", r"outside \[0, 1\]"),
    ("a,x,1\n", "l.csv line 1, loss 1: 'x' is not a number"),
    ("task,y1,y2\n", "no trials found"),
    ("a,1\n", "expected at least 2 losses"),
])
def test_loss_file_errors_name_the_culprit(tmp_path, named_tree, text, message):
    p = tmp_path / "l.csv"
    p.write_text(text)
    with pytest.raises(DataFormatError, match=message):
        read_loss_file(p, named_tree)


def test_loss_file_with_bom_and_undecodable_bytes(tmp_path, named_tree):
    """A spreadsheet's UTF-8 BOM is not part of the header; bytes that are not text name the file."""
    p = tmp_path / "l.csv"
    p.write_bytes(b"\xef\xbb\xbftask,y1,y2\na,0,1\n")
    assert read_loss_file(p, named_tree).vertices.tolist() == [0]
    p.write_bytes(b"\xff\xfe\x00a,0,1\n")
    with pytest.raises(DataFormatError, match=r"l.csv: not UTF-8 text"):
        read_loss_file(p, named_tree)
    p.write_bytes(b"a,0\x00,1\n")  # NUL is refused in every text input
    with pytest.raises(DataFormatError, match=r"l.csv: a NUL byte at line 1, column 4: not a text file"):
        read_loss_file(p, named_tree)


def test_loss_file_jsonl_errors(tmp_path, named_tree):
    p = tmp_path / "l.jsonl"
    p.write_text('{"task": "a", "loss": [0, 1]}\n{"task": "a"}\n')
    with pytest.raises(DataFormatError, match="l.jsonl line 2: expected"):
        read_loss_file(p, named_tree)
    p.write_text('{"task": "a", "loss": [0, 1]}\nnot json\n')
    with pytest.raises(DataFormatError, match="l.jsonl line 2: invalid JSON"):
        read_loss_file(p, named_tree)
    p.write_text('{"task": "a", "loss": [0, 1]}\n')
    with pytest.raises(DataFormatError, match="expected 3 losses"):
        read_loss_file(p, named_tree, 3)


def _adaptive_run(tree, k, eta, coupling, vs, printed):
    """An adversary that puts loss 1 on the action the learner currently favours."""
    theta = edge_potentials(tree, k, coupling=coupling)
    d = np.ones((tree.n, k))
    th = TreeHedge(tree, k, eta=eta, coupling=coupling, backend="brute")
    ys = np.zeros((len(vs), k))
    loss = 0.0
    for t, v in enumerate(vs):
        p = brute_marginals(tree, theta, d)[v] if printed else th.predict_one(int(v))
        ys[t, int(np.argmax(p))] = 1.0
        loss += p @ ys[t]
        if printed:
            d[v] = p * np.exp(-eta * ys[t])  # Figure 3 as printed
        else:
            th.learn_one(int(v), ys[t])
    return loss, theorem9_bound(tree, k, eta=eta, coupling=coupling, vertices=vs, losses=ys).bound


def test_bound_holds_against_an_adaptive_adversary_and_the_printed_update_breaks_it():
    """Theorem 9 holds for every loss sequence, even one chosen against the learner; the update as
    printed in Figure 3 (D(v) <- p_hat * exp(-eta y)) loses several times its bound."""
    rng = np.random.default_rng(1)
    broken = 0
    for i in range(60):
        n = int(rng.integers(2, 6))
        tree = generate("path", n)
        eta, cp = float(rng.choice([0.5, 1.0, 3.0])), float(rng.choice([0.6, 0.9, 0.99]))
        vs = rng.integers(n, size=int(rng.integers(10, 60)))
        loss, bound = _adaptive_run(tree, 2, eta, cp, vs, printed=False)
        assert loss <= bound * (1 + 1e-9), (i, loss, bound)
        loss, bound = _adaptive_run(tree, 2, eta, cp, vs, printed=True)
        broken += loss > 2 * bound
    assert broken >= 5


def test_inconsistent_prior_is_refused():
    from engine.errors import InconsistentEvidenceError

    tree = generate("path", 3)
    with pytest.raises(InconsistentEvidenceError, match="probability zero"):
        TreeHedge(tree, 2, eta=1.0, coupling=1.0, data=[[1, 0], [1, 1], [0, 1]], backend="brute")


def test_huge_eta_keeps_rows_finite():
    tree = generate("path", 3)
    th = TreeHedge(tree, 2, eta=1e6, coupling=0.9, backend="brute")
    th.learn_one(1, [1.0, 1.0])  # both actions lose: nothing learnt, no 0/0
    np.testing.assert_allclose(th.predict_one(1), [0.5, 0.5], rtol=1e-12)
    th.learn_one(1, [0.0, 1.0])
    np.testing.assert_allclose(th.predict_one(1), [1.0, 0.0], rtol=1e-12, atol=0)


@pytest.mark.parametrize("backend", ["online", "bp"])
@given(tree=small_trees(40), k=st.integers(2, 4), seed=st.integers(0, 2**31),
       coupling=st.sampled_from([0.0, 0.3, 0.9, 1.0]), eta=st.floats(0.05, 4.0))
@settings(max_examples=15)
def test_predictions_equal_full_recomputation_after_every_trial(backend, tree, k, seed, coupling, eta):
    """After every trial the learner's prediction equals a fresh belief-propagation pass on the
    data D^t = D^1 * exp(-eta * (losses so far)), rebuilt from the stream (relative 1e-9); on
    trees with k^n <= 4096 also equal to enumeration of all labellings."""
    from engine.inference.belief_propagation import belief_propagation

    if coupling == 0.0 and k == 2:
        coupling = 0.2
    rng = np.random.default_rng(seed)
    data = rng.random((tree.n, k)) + 0.05
    th = TreeHedge(tree, k, eta=eta, coupling=coupling, data=data, backend=backend)
    theta = edge_potentials(tree, k, coupling=coupling)
    L = np.zeros((tree.n, k))
    small = k ** tree.n <= 4096
    for _ in range(30):
        v = int(rng.integers(tree.n))
        d = data * np.exp(-eta * (L - L.min(axis=1, keepdims=True)))
        ref = belief_propagation(tree, d, theta, method="numpy").marginals[v]
        p = th.predict_one(v)
        np.testing.assert_allclose(p, ref, rtol=REL, atol=1e-14)
        if small:
            np.testing.assert_allclose(p, brute_marginals(tree, theta, d)[v], rtol=REL, atol=1e-14)
        y = rng.random(k) * (rng.random(k) < 0.7)
        th.learn_one(v, y)
        L[v] += y


def test_work_per_trial_follows_the_cover_height_not_n():
    """Counted multiply-adds (not time): a trial costs O(height k^3), so 100x more tasks on a path
    (height ~log n) costs about as much more work per trial as the cover is higher."""
    rng = np.random.default_rng(0)
    work = {}
    for n in (500, 50_000):
        th = TreeHedge(generate("path", n), 3, eta=1.0, coupling=0.9)
        w0 = th._model.total_work
        for v in rng.integers(n, size=300):
            th.predict_one(int(v))
            th.learn_one(int(v), rng.random(3))
        work[n] = ((th._model.total_work - w0) / 300, th.cover_height)
    (w_small, h_small), (w_big, h_big) = work[500], work[50_000]
    assert h_big <= 2 * h_small
    assert w_big / w_small < 1.5 * h_big / h_small  # in step with the height (n grew 100x)
    assert w_big < 60 * 3 ** 3 * h_big  # O(height k^3) with a small constant


def test_favourites_mark_ties():
    from engine.hedge.potentials import favourite_actions

    np.testing.assert_array_equal(favourite_actions(np.array([[0.5, 0.5], [0.2, 0.8], [0.3, 0.3 + 1e-9]])), [-1, 1, 1])
    th = TreeHedge(generate("path", 4), 3, eta=1.0, coupling=0.9)
    assert (th.favourites() == -1).all()  # before any trial every task is undecided
    th.learn_one(0, [1.0, 0.0, 1.0])
    assert (th.favourites() == 1).all()
    ih = IndependentHedge(4, 3, eta=1.0)
    ih.learn_one(0, [1.0, 0.0, 1.0])
    assert ih.favourites().tolist() == [1, -1, -1, -1]


def test_the_two_potts_parameterisations_are_one_family():
    """potts_transition(k, P) is potts_interaction(k, J) scaled, J = ln(P (k - 1) / (1 - P))."""
    from engine.inference.potentials import potts_interaction

    for k, P in ((2, 0.9), (3, 0.7), (5, 0.2), (4, 0.25)):
        J = np.log(P * (k - 1) / (1 - P))
        np.testing.assert_allclose(potts_transition(k, P), potts_interaction(k, J) * (1 - P) / (k - 1), rtol=1e-12)
    np.testing.assert_allclose(potts_transition(4, 0.25), np.full((4, 4), 0.25), rtol=1e-15)  # P = 1/k: J = 0


@pytest.mark.parametrize("backend", ["online", "bp"])
def test_predict_learn_many_equals_one_trial_at_a_time(backend):
    """The batch (one compiled call on the online backend) gives the very same numbers."""
    tree = generate("random", 40, seed=3)
    rng = np.random.default_rng(8)
    vs = rng.integers(40, size=300)
    Y = rng.random((300, 3))
    Y[rng.random(300) < 0.2] = 1.0
    a = TreeHedge(tree, 3, eta=30.0, coupling=0.8, backend=backend)   # large eta: floored weights
    b = TreeHedge(tree, 3, eta=30.0, coupling=0.8, backend=backend)
    got = a.predict_learn_many(vs, Y)
    want = []
    for v, y in zip(vs, Y):
        want.append(b.predict_one(int(v)))
        b.learn_one(int(v), y)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a.data, b.data)
    np.testing.assert_array_equal(a.log_scale, b.log_scale)
    with pytest.raises(InvalidParameterError, match=r"\[0, 1\].*trial 1 of the batch"):
        a.predict_learn_many([0, 1], [[0.0, 0.5, 1.0], [0.0, 1.5, 0.0]])
    with pytest.raises(InvalidParameterError, match=r"shape \(2, 3\)"):
        a.predict_learn_many([0, 1], [[0.0, 0.5, 1.0]])
