"""Each message with its ingredients (engine.inference.messages) against belief_propagation, eq. 5 by
hand, and enumeration; the CSV exports read back. Tolerance: relative 1e-9."""

import csv
import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import NumericalRangeError
from engine.inference.belief_propagation import belief_propagation, sequential_schedule
from engine.inference.brute_force import brute_force
from engine.inference.messages import (
    belief_work,
    marginals_csv,
    message_work,
    messages_csv,
)
from engine.inference.potentials import potts_interaction
from engine.trees.samples import read_sample
from tests.tree_strategies import trees
from workbench.declarations.page_table import PAGES

RTOL = 1e-9


@st.composite
def models(draw, max_n=12):
    t = draw(trees(max_n=max_n))
    if t.n < 2:
        t = read_sample("lecture_5_vertices")
    k = draw(st.integers(2, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    phi = rng.random((t.n, k)) + 0.01
    if draw(st.booleans()):  # hard evidence: zeros in φ
        v = draw(st.integers(0, t.n - 1))
        phi[v] = 0
        phi[v, draw(st.integers(0, k - 1))] = 1
    psi = rng.random((t.n - 1, k, k)) + draw(st.sampled_from([0.0, 0.01]))
    return t, phi, psi


@given(models())
def test_every_message_equals_the_engines(m):
    t, phi, psi = m
    res = belief_propagation(t, phi, psi)
    work = message_work(t, phi, psi)
    assert [(w.sender, w.receiver) for w in work] == sequential_schedule(t)
    for w in work:
        want = res.upward[w.sender] if t.parent[w.sender] == w.receiver else res.downward[w.receiver]
        np.testing.assert_allclose(w.message, want, rtol=RTOL, atol=1e-15)
        # eq. 5 from the parts shown to the student
        prod = w.phi.copy()
        for u, msg in w.incoming:
            assert u in t.neighbors(w.sender) and u != w.receiver
            prod *= msg
        np.testing.assert_allclose(w.product, prod, rtol=RTOL)
        np.testing.assert_allclose(w.terms, prod[:, None] * w.psi, rtol=RTOL)
        np.testing.assert_allclose(w.unnormalised, w.terms.sum(axis=0), rtol=RTOL)
        if w.unnormalised.sum() > 0:
            np.testing.assert_allclose(w.message, w.unnormalised / w.unnormalised.sum(), rtol=1e-9)
        assert w.phase == ("collect" if w.step <= t.n - 1 else "distribute")


@given(models(max_n=8))
def test_beliefs_from_the_messages_equal_enumeration(m):
    t, phi, psi = m
    bf = brute_force(t, phi, psi)
    for v in range(t.n):
        b = belief_work(t, phi, psi, v)
        np.testing.assert_allclose(b.marginal, bf.marginals[v], rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(b.product / b.product.sum(), bf.marginals[v], rtol=1e-9, atol=1e-15)
        assert len(b.incoming) == len(t.neighbors(v))


def test_psi_rows_are_the_senders_state():
    t = read_sample("lecture_5_vertices")
    M = np.array([[1.0, 2.0], [3.0, 4.0]])  # asymmetric: rows index the parent's state
    work = message_work(t, None, M, k=2)
    up = next(w for w in work if t.name(w.sender) == "4")      # child -> parent: ψ transposed
    down = next(w for w in work if t.name(w.receiver) == "4")  # parent -> child: ψ as given
    np.testing.assert_array_equal(up.psi, M.T)
    np.testing.assert_array_equal(down.psi, M)


def test_a_worked_example_by_hand():
    """m_{3→1}(x_1) = Σ_{x_3} φ_3(x_3) ψ(x_3, x_1) with φ_3 = (3, 1) and a Potts coupling of 1."""
    t = read_sample("lecture_5_vertices")
    phi = np.ones((5, 2))
    phi[t.index("3")] = [3, 1]
    w = next(w for w in message_work(t, phi, potts_interaction(2, 1.0)) if t.name(w.sender) == "3")
    e = np.e
    np.testing.assert_allclose(w.unnormalised, [3 * e + 1, 3 + e], rtol=RTOL)
    assert w.incoming == ()


def test_tiny_and_huge_potentials_give_finite_messages():
    t = read_sample("lecture_5_vertices")
    phi = np.full((5, 2), 1e-300)
    phi[:, 1] = 2.3e-308               # the smallest normal doubles are still taken exactly
    psi = np.array([[1e300, 1.0], [1.0, 1e300]])
    for w in message_work(t, phi, psi):
        assert np.isfinite(w.message).all() and abs(w.message.sum() - 1) < 1e-12
    res = belief_propagation(t, phi, psi)
    np.testing.assert_allclose(message_work(t, phi, psi)[0].message, res.upward[4], rtol=1e-9)
    phi[1, 1] = 1e-310                 # a subnormal has already lost precision: refused, named
    with pytest.raises(NumericalRangeError, match="node potential of vertex"):
        message_work(t, phi, psi)


def test_the_page_model_with_evidence_and_a_network():
    t = read_sample("lecture_5_vertices")
    m = PAGES["belief_propagation"].run_config({"evidence": {"4": 1, "5": (0.25, 0.75)}}).model(t)
    assert m.node_potentials[3, 0] == 0 and m.node_potentials[4, 1] == pytest.approx(0.75 * m.prior_node_potentials[4, 1])
    work = message_work(m.tree, m.node_potentials, m.edge_potentials, k=m.k)
    res = belief_propagation(m.tree, m.node_potentials, m.edge_potentials)
    np.testing.assert_allclose(work[0].message, res.upward[work[0].sender], rtol=RTOL)
    net = PAGES["belief_propagation"].run_config({"network": "weather", "evidence": {"WetGrass": "wet"}}).model(None)
    w = message_work(net.tree, net.node_potentials, net.edge_potentials, k=net.k)
    b = belief_work(net.tree, net.node_potentials, net.edge_potentials, "Rain")
    assert b.marginal[0] == pytest.approx(0.75, rel=1e-12) and len(w) == 8


def test_csv_exports_read_back():
    t = read_sample("lecture_5_vertices")
    m = PAGES["belief_propagation"].run_config({}).model(t)
    work = message_work(m.tree, m.node_potentials, m.edge_potentials)
    rows = list(csv.reader(io.StringIO(messages_csv(t, work))))
    assert rows[0] == ["step", "phase", "from", "to", "m(to=0)", "m(to=1)"]
    assert [r[:4] for r in rows[1:3]] == [["1", "collect", "5", "2"], ["2", "collect", "4", "2"]]
    for r, w in zip(rows[1:], work):
        assert [float(x) for x in r[4:]] == w.message.tolist()  # repr: exact
    res = belief_propagation(t, m.node_potentials, m.edge_potentials)
    rows = list(csv.reader(io.StringIO(marginals_csv(t, res.marginals, label_names=["no", "yes"]))))
    assert rows[0] == ["vertex", "P(no)", "P(yes)"] and len(rows) == 6
    assert np.array([[float(x) for x in r[1:]] for r in rows[1:]]).tolist() == res.marginals.tolist()
    odd = read_sample("lecture_5_vertices").with_names(["a,b", 'q"uote', "x", "y", "z"])
    rows = list(csv.reader(io.StringIO(marginals_csv(odd, res.marginals))))
    assert [r[0] for r in rows[1:]] == ["a,b", 'q"uote', "x", "y", "z"]
