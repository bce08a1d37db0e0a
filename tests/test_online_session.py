"""OnlineSession (the state of the Online Marginals page, without Streamlit): every operation is
checked against a full belief-propagation pass, the log replays to the same model, and a failed
operation changes nothing."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import EngineError, InconsistentEvidenceError, InvalidParameterError, UnknownVertexError
from engine.inference.belief_propagation import belief_propagation
from engine.inference.online import random_ops
from engine.inference.potentials import potts_interaction
from engine.inference.scenario import load_scenario, parse_scenario, replay
from engine.inference.session import OnlineSession
from engine.trees.generators import random_tree
from tests.conftest import ROOT
from tests.tree_strategies import trees

SAMPLE = ROOT / "sample_scenarios" / "lecture_evidence.json"
RTOL = 1e-9


def _bp(session):
    m = session.model
    return belief_propagation(m.tree, m.node_data, m.edge_potentials(), k=m.k).marginals


@settings(max_examples=25)
@given(tree=trees(max_n=12).filter(lambda t: t.n >= 3), k=st.integers(2, 3), seed=st.integers(0, 10**6),
       cover=st.sampled_from(["optimal", "rake-only"]))
def test_every_operation_matches_a_full_recomputation(tree, k, seed, cover):
    rng = np.random.default_rng(seed)
    s = OnlineSession(tree, k, rng.random((k, k)) + 0.1, cover=cover)
    np.testing.assert_allclose(s.prior, _bp(s), rtol=RTOL)
    for op in random_ops(tree, k, 12, seed=rng):
        try:
            s.apply(op)
        except InconsistentEvidenceError:
            continue
        np.testing.assert_allclose(s.model.marginals(), _bp(s), rtol=RTOL, atol=1e-12)   # n walks of D
        np.testing.assert_allclose(s.marginals(), s.model.marginals(), rtol=RTOL, atol=1e-12)
        if "marginal" in op:
            np.testing.assert_allclose(s.model.marginal(op["marginal"], record=False),
                                       _bp(s)[tree.index(op["marginal"])], rtol=RTOL, atol=1e-12)
    # the evidence dict is exactly the vertices whose data is not all ones
    data = s.model.node_data
    assert set(s.evidence) == {v for v in range(tree.n) if not np.all(data[v] == 1.0)}
    for v, vec in s.evidence.items():
        np.testing.assert_array_equal(vec, data[v])


def test_verbs_log_scenario_ops_and_track_evidence():
    tree = random_tree(30, seed=1)
    s = OnlineSession(tree, 3, potts_interaction(3, 1.0))
    s.observe(4, 2)
    s.update("7", [0.2, 0.5, 1.0])
    got = s.query(4)
    np.testing.assert_allclose(got, [0, 0, 1], atol=1e-15)
    s.clear(4)
    s.set_edge_potential(tree.parent[9], 9, [[1, 2, 3], [1, 1, 1], [3, 2, 1]])
    s.log_partition()
    assert [next(iter(op)) for op in s.ops] == ["update", "update", "marginal", "update", "set_edge",
                                                 "log_partition"]
    assert set(s.evidence) == {7}
    assert s.n_operations == 4
    assert s.version == 4          # four changes; queries do not count
    np.testing.assert_allclose(s.marginals(), _bp(s), rtol=RTOL)


def test_to_scenario_replays_to_the_same_model():
    sc = load_scenario(SAMPLE)
    s = OnlineSession.from_scenario(sc)
    s.observe("3", 0)
    s.query("2")
    obj = json.loads(json.dumps(s.to_scenario()))       # what "Save scenario" writes
    again = OnlineSession.from_scenario(parse_scenario(obj))
    np.testing.assert_allclose(again.marginals(), s.marginals(), rtol=RTOL)
    assert again.model.log_partition() == pytest.approx(s.model.log_partition(), rel=RTOL)
    assert set(again.evidence) == set(s.evidence)
    assert again.ops == s.ops
    assert again.root == sc.root and again.node_data.keys() == sc.node_data.keys()
    assert again.edge_potentials.keys() == sc.edge_potentials.keys()
    # the prior is the scenario's starting point (its overrides and node data), not plain potts
    start = OnlineSession(sc.tree, sc.k, sc.edge_potential, edge_potentials=sc.edge_potentials,
                          node_data=sc.node_data, root=sc.root)
    np.testing.assert_allclose(again.prior, _bp(start), rtol=RTOL)
    # and the command line replays the saved scenario to the same answers
    lines = list(replay(parse_scenario(obj)))
    last_marginal = [line for line in lines if "marginal" in line][-1]
    np.testing.assert_allclose(last_marginal["marginal"], s.marginal("2"), rtol=RTOL)


def test_a_failed_operation_changes_nothing():
    tree = random_tree(12, seed=3)
    s = OnlineSession(tree, 2, [[1.0, 0.0], [0.0, 1.0]])   # neighbours must agree
    s.observe(0, 0)
    before = (s.marginals().copy(), list(s.ops), dict(s.evidence), s.version)
    with pytest.raises(InconsistentEvidenceError):
        s.observe(5, 1)                                      # contradicts vertex 0
    with pytest.raises(InvalidParameterError):
        s.observe(5, 2)                                      # no label 2 when k = 2
    with pytest.raises(UnknownVertexError):
        s.query("no such vertex")
    after = (s.model.marginals(), s.ops, s.evidence, s.version)
    np.testing.assert_array_equal(before[0], after[0])
    assert before[1:] == after[1:]


def test_play_skips_inconsistent_ops_and_reports_progress():
    tree = random_tree(40, seed=2)
    s = OnlineSession(tree, 2, [[1.0, 0.0], [0.0, 1.0]])
    seen = []
    played, skipped = s.play(random_ops(tree, 2, 60, seed=0, hard=1.0), progress=lambda f, m: seen.append(f))
    assert played + skipped == 60 and skipped > 0 and played > 0
    assert seen and 0 < seen[-1] <= 1
    np.testing.assert_allclose(s.marginals(), _bp(s), rtol=RTOL, atol=1e-12)


def _state(s: OnlineSession):
    last = s.model.last_op
    return (s.model.node_data.tobytes(), s.ops, {i: v.tolist() for i, v in s.evidence.items()}, s.version,
            s.model.total_work, None if last is None else (last.op, last.touched.tolist(), last.work))


@settings(max_examples=40, deadline=None)
@given(tree=trees(max_n=30).filter(lambda t: t.n >= 2), k=st.integers(2, 3), count=st.integers(0, 80),
       chunk=st.integers(1, 30), hard=st.sampled_from([0.2, 1.0]),
       bad=st.sampled_from([None, "vertex", "data", "column", "back"]),
       seed=st.integers(0, 10**6), cover=st.sampled_from(["optimal", "rake-only"]))
def test_play_in_batches_ends_as_one_op_at_a_time(tree, k, count, chunk, hard, bad, seed, cover):
    """The batched play (update_many, marginal_many, the last op alone) leaves model, log, evidence,
    version, total work and last op exactly as applying the ops one by one does; with inconsistent
    evidence (hard, contradicting potentials), an unknown vertex, bad data (k + 1 numbers, or k
    numbers as a column) or an update back to a vertex's starting data in the stream too."""
    rng = np.random.default_rng(seed)
    psi = [[1.0, 0.0, 0.0][:k], [0.0, 1.0, 0.0][:k], [0.0, 0.0, 1.0][:k]][:k] if hard == 1.0 else rng.random((k, k)) + 0.1
    start = {tree.name(0): [0.5] + [2.0] * (k - 1)}   # a vertex whose starting data is not all ones
    ops = random_ops(tree, k, count, seed=rng, hard=hard)
    if bad and ops:
        t = int(rng.integers(len(ops)))
        ops[t] = {"vertex": {"update": "no such vertex", "data": [1.0] * k},
                  "data": {"update": tree.name(0), "data": [1.0] * (k + 1)},
                  "column": {"update": tree.name(0), "data": [[1.0]] * k},
                  "back": {"update": tree.name(0), "data": start[tree.name(0)]}}[bad]
        ops.insert(t, {"update": tree.name(0), "data": [1.0] * k})   # all ones: evidence here
    batched, one_by_one = (OnlineSession(tree, k, psi, cover=cover, node_data=start) for _ in range(2))
    got = batched.play(ops, chunk=chunk)
    want = sum(1 for op in ops if _applies(one_by_one, op))
    assert got == (want, len(ops) - want)
    assert _state(batched) == _state(one_by_one)
    np.testing.assert_allclose(batched.marginals(), _bp(batched), rtol=RTOL, atol=1e-12)


def _applies(s: OnlineSession, op) -> bool:
    try:
        s.apply(op)
        return True
    except EngineError:
        return False


def test_from_scenario_names_the_failing_op():
    obj = json.loads(SAMPLE.read_text())
    obj["edge_potential"] = [[1.0, 0.0], [0.0, 1.0]]
    obj.pop("edge_potentials")
    obj["node_data"] = {}
    obj["ops"] = [{"update": "4", "data": [1.0, 0.0]}, {"update": "5", "data": [0.0, 1.0]}]
    with pytest.raises(InconsistentEvidenceError, match=r"ops\[1\]"):
        OnlineSession.from_scenario(parse_scenario(obj))


def test_evidence_is_data_that_differs_from_the_starting_data():
    """Every way of setting data (update, a scenario op, a played stream) keeps the same evidence:
    the vertices whose data is not their starting data (node_data here, not all ones)."""
    tree = random_tree(6, seed=1)
    a, b = tree.name(0), tree.name(1)
    for how in ("update", "apply", "play"):
        s = OnlineSession(tree, 2, [[2.0, 1.0], [1.0, 2.0]], node_data={a: [0.5, 2.0]})
        ops = [{"update": a, "data": [1.0, 1.0]}, {"update": b, "data": [0.3, 0.7]}, {"update": b, "data": [1.0, 1.0]}]
        for op in ops:
            if how == "update":
                s.update(op["update"], op["data"])
            elif how == "apply":
                s.apply(op)
        if how == "play":
            s.play(ops)
        assert {tree.name(i): v.tolist() for i, v in s.evidence.items()} == {a: [1.0, 1.0]}, how
        s.apply({"update": a, "data": [0.5, 2.0]})     # back to its starting data
        assert s.evidence == {}, how


def test_a_shared_cover_and_prior_give_the_same_session():
    """A server builds the cover and the prior marginals once and hands them to every session: the
    session answers as one that built its own (same content, another tree object too)."""
    from engine.cover import default_root, optimal_cover
    from engine.inference.belief_propagation import belief_propagation
    from engine.trees.generators import random_tree

    tree = random_tree(300, seed=5)
    E = np.array([[2.0, 1.0], [1.0, 2.0]])
    cover = optimal_cover(tree, default_root(tree))
    prior = belief_propagation(tree, np.ones((tree.n, 2)), E, k=2).marginals
    copy = random_tree(300, seed=5)                   # equal content, another object
    shared = OnlineSession(copy, 2, E, cover=cover, prior=prior)
    own = OnlineSession(tree, 2, E)
    assert shared.cover_kind == "optimal" and shared.model.cover.s == own.model.cover.s
    np.testing.assert_allclose(shared.prior, own.prior, rtol=1e-12)
    for v in (3, 77, 250):
        shared.update(v, [1.0, 0.0])
        own.update(v, [1.0, 0.0])
    np.testing.assert_allclose(shared.marginals(), own.marginals(), rtol=1e-9)
    with pytest.raises(InvalidParameterError, match="another tree"):
        OnlineSession(random_tree(300, seed=6), 2, E, cover=cover)
    with pytest.raises(InvalidParameterError, match="prior marginals of shape"):
        OnlineSession(tree, 2, E, prior=prior[:10])


@settings(max_examples=20)
@given(tree=trees(max_n=12), k=st.integers(2, 3), seed=st.integers(0, 10**6),
       cover=st.sampled_from(["optimal", "rake-only"]), before=st.integers(0, 4))
def test_a_copy_answers_as_a_fresh_build_and_neither_sees_the_other(tree, k, seed, cover, before):
    """A copy (what each student of a server gets of the one session built per settings) answers
    every operation as a full recomputation does, and its operations leave the original as it was
    (and the other way round); trees of one and two vertices (no cover) too."""
    rng = np.random.default_rng(seed)
    original = OnlineSession(tree, k, rng.random((k, k)) + 0.1, cover=cover)
    for op in random_ops(tree, k, before, seed=rng):
        try:
            original.apply(op)
        except EngineError:
            pass
    snapshot = original.model.state_arrays()
    said = original.marginals().copy()
    copy = original.copy()
    for a, b in zip(copy.model.state_arrays(), snapshot):
        np.testing.assert_array_equal(a, b)
    assert copy.to_scenario() == original.to_scenario()
    for op in random_ops(tree, k, 10, seed=rng):
        try:
            copy.apply(op)
        except EngineError:
            continue
        np.testing.assert_allclose(copy.marginals(), _bp(copy), rtol=RTOL)
        np.testing.assert_allclose(copy.model.marginal(0, record=False), _bp(copy)[0], rtol=RTOL)
    for a, b in zip(original.model.state_arrays(), snapshot):   # the original did not move
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(original.marginals(), said, rtol=0, atol=0)
    if tree.n >= 2:
        original.update(0, np.full(k, 0.5))
        np.testing.assert_allclose(original.marginals(), _bp(original), rtol=RTOL)
        assert 0 not in copy.evidence or not np.array_equal(copy.evidence[0], np.full(k, 0.5))
