"""Tree-shaped networks from BIF, XMLBIF, UAI and Hugin .net files: potentials checked against pgmpy's
inference on the same networks and against enumeration; everything else refused in one line.

Tolerance: relative 1e-9 for marginals (exact algorithms on both sides).
"""

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import (
    CycleError,
    EngineError,
    InvalidPotentialError,
    NetworkFormatError,
    NotATreeError,
)
from engine.inference.belief_propagation import belief_propagation
from engine.inference.models import network_marginals
from engine.networks import (
    NETWORK_SAMPLES_DIR,
    network_sample_names,
    read_network,
    read_network_bytes,
    read_sample_network,
)

pgmpy = pytest.importorskip("pgmpy")
warnings.filterwarnings("ignore", category=FutureWarning)

RTOL = 1e-9


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=1e-12)


def _brute(net, evidence=None):
    """Marginals by summing the joint over every labelling (small networks only)."""
    phi = net.evidence_potentials(evidence)
    card = net.cardinality
    n = net.tree.n
    marg = [np.zeros(c) for c in card]
    row = {int(c): i for i, c in enumerate(net.tree.edges[:, 1])}
    for x in itertools.product(*[range(c) for c in card]):
        w = np.prod([phi[v, x[v]] for v in range(n)])
        for v in range(n):
            if v != net.tree.root:
                w *= net.edge_potentials[row[v], x[int(net.tree.parent[v])], x[v]]
        for v in range(n):
            marg[v][x[v]] += w
    return [m / m.sum() for m in marg]


def _ours(net, evidence=None):
    res = belief_propagation(net.tree, net.evidence_potentials(evidence), net.edge_potentials)
    return [res.marginals[v, :c] for v, c in enumerate(net.cardinality)]


# ---------------------------------------------------------------------- our sample files

def test_the_sample_networks_load_with_their_potentials():
    names = network_sample_names()
    assert {"weather.bif", "weather_xmlbif.xml", "weather_hugin.net", "lecture_pairwise.uai",
            "chain_bayes.uai"} <= set(names)
    for name in names:
        net = read_sample_network(name)
        assert net.node_potentials.shape == (net.tree.n, net.k)
        assert net.edge_potentials.shape == (net.tree.n - 1, net.k, net.k)
        for got, want in zip(_ours(net), _brute(net)):
            _close(got, want)


def test_the_three_weather_files_are_the_same_network():
    a, b, c = (read_sample_network(x) for x in ("weather", "weather_xmlbif", "weather_hugin"))
    for other in (b, c):
        assert other.tree.named_edges() == a.tree.named_edges() and other.states == a.states
        _close(other.node_potentials, a.node_potentials)
        _close(other.edge_potentials, a.edge_potentials)
    assert a.kind == "bayes" and a.tree.name(a.tree.root) == "Season" and a.k == 4
    assert a.cardinality.tolist() == [4, 2, 3, 2, 3]
    # rows of each edge potential index the parent's state: P(Rain | Season = summer)
    i = [tuple(e) for e in a.tree.named_edges()].index(("Season", "Rain"))
    _close(a.edge_potentials[i, 2, :2], [0.1, 0.9])
    assert (a.node_potentials[1, 2:] == 0).all()  # Rain has 2 states: the padded ones carry no mass
    post = network_marginals(a, {"WetGrass": "wet"})
    assert abs(post["Rain"]["yes"] - 0.75) < 1e-12 and abs(post["Traffic"]["jammed"] - 0.25) < 1e-12


def _pgmpy_marginals(model, evidence=None):
    from pgmpy.inference import VariableElimination

    ve = VariableElimination(model)
    out = {}
    for v in model.nodes():
        if evidence and v in evidence:
            continue
        q = ve.query([v], evidence=evidence or None, show_progress=False)
        out[v] = dict(zip(q.state_names[v], (q.values / q.values.sum()).tolist()))
    return out


@pytest.mark.slow   # over ten seconds here (subprocesses, compiling, a large file or pgmpy): make test only
@pytest.mark.parametrize("name, reader", [("weather.bif", "BIFReader"), ("weather_xmlbif.xml", "XMLBIFReader"),
                                          ("weather_hugin.net", "NETReader")])
def test_pgmpy_reads_our_files_to_the_same_marginals(name, reader):
    import pgmpy.readwrite as rw

    model = getattr(rw, reader)(str(NETWORK_SAMPLES_DIR / name)).get_model()
    net = read_network(NETWORK_SAMPLES_DIR / name)
    for ev in (None, {"WetGrass": "wet"}, {"Temperature": "hot", "Traffic": "light"}):
        want = _pgmpy_marginals(model, ev)
        got = network_marginals(net, ev)
        for v, dist in want.items():
            for s, p in dist.items():
                assert abs(got[v][s] - p) <= RTOL * max(p, 1e-300) + 1e-12, (name, ev, v, s)


def test_pgmpy_reads_our_markov_uai_to_the_same_marginals(tmp_path):
    from pgmpy.inference import VariableElimination
    from pgmpy.readwrite import UAIReader

    text = (NETWORK_SAMPLES_DIR / "lecture_pairwise.uai").read_text()
    (tmp_path / "m.uai").write_text("\n".join(x for x in text.splitlines() if not x.startswith("c")))
    model = UAIReader(str(tmp_path / "m.uai")).get_model()  # pgmpy reads no comment lines
    net = read_sample_network("lecture_pairwise")
    ve = VariableElimination(model)
    for v in range(5):
        q = ve.query([f"var_{v}"], show_progress=False)
        _close(network_marginals(net)[f"x{v}"]["0"], q.values[0] / q.values.sum())


# ---------------------------------------------------------------------- what pgmpy's writers produce

@st.composite
def tree_bns(draw, max_n=7):
    """A random Bayesian network whose nodes have at most one parent, with random cardinalities."""
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    n = draw(st.integers(2, max_n))
    parents = [None] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    card = [draw(st.integers(2, 4)) for _ in range(n)]
    names = [f"V{i}_{draw(st.sampled_from(['a', 'b', 'rain', 'x']))}" for i in range(n)]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    model = DiscreteBayesianNetwork([(names[p], names[i]) for i, p in enumerate(parents) if p is not None])
    model.add_nodes_from(names)
    cpds = []
    for i, p in enumerate(parents):
        states = {names[i]: [f"s{a}" for a in range(card[i])]}
        if p is None:
            vals = rng.dirichlet(np.ones(card[i]))[:, None]
            cpds.append(TabularCPD(names[i], card[i], vals, state_names=states))
        else:
            vals = rng.dirichlet(np.ones(card[i]), size=card[p]).T  # columns: parent states
            if draw(st.booleans()):
                vals[:, 0] = 0
                vals[0, 0] = 1  # a zero-probability transition
            states[names[p]] = [f"s{a}" for a in range(card[p])]
            cpds.append(TabularCPD(names[i], card[i], vals, evidence=[names[p]], evidence_card=[card[p]],
                                   state_names=states))
    model.add_cpds(*cpds)
    model.check_model()
    return model


def _write(model, fmt, tmp_path):
    from pgmpy.readwrite import BIFWriter, NETWriter, UAIWriter, XMLBIFWriter

    path = tmp_path / f"model.{ {'bif': 'bif', 'xmlbif': 'xml', 'uai': 'uai', 'hugin': 'net'}[fmt] }"
    {"bif": BIFWriter, "xmlbif": XMLBIFWriter, "uai": UAIWriter, "hugin": NETWriter}[fmt](model).write(str(path))
    return path


_READERS = {"bif": "BIFReader", "xmlbif": "XMLBIFReader", "uai": "UAIReader", "hugin": "NETReader"}


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(model=tree_bns(), fmt=st.sampled_from(["bif", "xmlbif", "uai", "hugin"]), data=st.data())
def test_pgmpy_written_networks_load_with_their_potentials(tmp_path_factory, model, fmt, data):
    """pgmpy writes the network; its own reader and ours read the file back; VE on pgmpy's model and
    BP on ours give the same marginals, with and without evidence (writers round some numbers, so
    both sides read the same file)."""
    import pgmpy.readwrite as rw
    from pgmpy.inference import VariableElimination

    path = _write(model, fmt, tmp_path_factory.mktemp("net"))
    net = read_network(path)
    theirs = getattr(rw, _READERS[fmt])(str(path)).get_model()
    for cpd in theirs.get_cpds():  # writers round: read each row as the distribution it stands for
        cpd.normalize()
    # pgmpy names UAI variables var_i; we name them xi
    ours_name = (lambda v: "x" + v.split("_")[1]) if fmt == "uai" else (lambda v: v)
    ve = VariableElimination(theirs)
    ev_var = data.draw(st.sampled_from(sorted(theirs.nodes())))
    ev_state = data.draw(st.integers(0, theirs.get_cardinality(ev_var) - 1))
    for evidence in (None, {ev_var: ev_state}):
        pg_ev = None if evidence is None else {ev_var: theirs.get_cpds(ev_var).state_names[ev_var][ev_state]}
        ours = network_marginals(net, None if evidence is None else {ours_name(ev_var): ev_state})
        for v in theirs.nodes():
            if evidence and v in evidence:
                continue
            try:
                q = ve.query([v], evidence=pg_ev, show_progress=False)
            except (ValueError, ZeroDivisionError, FloatingPointError):
                return  # evidence of probability zero: pgmpy cannot condition on it
            want = q.values / q.values.sum()
            if not np.isfinite(want).all():
                return
            got = [ours[ours_name(v)][str(s)] for s in q.state_names[v]] if fmt != "uai" else \
                list(ours[ours_name(v)].values())
            _close(got, want)


def test_pgmpy_markov_network_on_a_tree_written_as_uai(tmp_path):
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteMarkovNetwork
    from pgmpy.readwrite import UAIWriter

    rng = np.random.default_rng(5)
    edges = [("a", "b"), ("b", "c"), ("b", "d"), ("d", "e")]
    card = {"a": 2, "b": 3, "c": 2, "d": 4, "e": 2}
    m = DiscreteMarkovNetwork(edges)
    facs = [DiscreteFactor([u, v], [card[u], card[v]], rng.random(card[u] * card[v]) + 0.05) for u, v in edges]
    facs += [DiscreteFactor([v], [card[v]], rng.random(card[v]) + 0.05) for v in card]
    facs.append(DiscreteFactor(["d", "b"], [4, 3], rng.random(12) + 0.05))  # a second factor on one edge
    m.add_factors(*facs)
    UAIWriter(m).write(str(tmp_path / "m.uai"))
    net = read_network(tmp_path / "m.uai")
    assert net.kind == "markov" and net.tree.n == 5
    names = {f"x{i}": v for i, (_, v) in enumerate(sorted((str(card[v]), v) for v in card))}
    ve = VariableElimination(m)
    for x, v in names.items():
        q = ve.query([v], show_progress=False)
        _close(list(network_marginals(net)[x].values()), q.values / q.values.sum())


def test_pgmpy_uai_bayes_layout_is_recognised(tmp_path):
    """pgmpy's UAIWriter lists a conditional table child-major, against the UAI format; both layouts
    of the same network read to the same potentials."""
    ours = read_sample_network("chain_bayes")
    text = (NETWORK_SAMPLES_DIR / "chain_bayes.uai").read_text()
    swapped = text.replace("0.1 0.6 0.3\n0.5 0.25 0.25", "0.1 0.5\n0.6 0.25\n0.3 0.25").replace(
        "0.9 0.1\n0.5 0.5\n0.2 0.8", "0.9 0.5 0.2\n0.1 0.5 0.8")
    assert swapped != text
    other = read_network_bytes(swapped.encode(), "pgmpy_layout.uai")
    _close(other.edge_potentials, ours.edge_potentials)


# ---------------------------------------------------------------------- refusals, one line each

V_STRUCTURE = """network v { }
variable A { type discrete [ 2 ] { y, n }; }
variable B { type discrete [ 2 ] { y, n }; }
variable C { type discrete [ 2 ] { y, n }; }
probability ( A ) { table 0.5, 0.5; }
probability ( B ) { table 0.5, 0.5; }
probability ( C | A, B ) { (y, y) 0.1, 0.9; (n, y) 0.2, 0.8; (y, n) 0.3, 0.7; (n, n) 0.4, 0.6; }
"""


def test_a_node_with_two_parents_is_refused_naming_it(tmp_path):
    with pytest.raises(NotATreeError) as exc:
        read_network_bytes(V_STRUCTURE.encode(), "v.bif")
    assert str(exc.value) == ("v.bif:7: node C has two parents: A, B; only networks in which every node has at "
                              "most one parent are trees")


@pytest.mark.parametrize("fmt", ["bif", "xmlbif", "uai", "hugin"])
def test_pgmpy_written_v_structure_is_refused_in_every_format(tmp_path, fmt):
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    m = DiscreteBayesianNetwork([("Smoker", "Cancer"), ("Pollution", "Cancer")])
    m.add_cpds(TabularCPD("Smoker", 2, [[0.3], [0.7]]), TabularCPD("Pollution", 2, [[0.9], [0.1]]),
               TabularCPD("Cancer", 2, [[0.03, 0.05, 0.001, 0.02], [0.97, 0.95, 0.999, 0.98]],
                          evidence=["Smoker", "Pollution"], evidence_card=[2, 2]))
    path = _write(m, fmt, tmp_path)
    with pytest.raises(NotATreeError) as exc:
        read_network(path)
    msg = str(exc.value)
    assert "\n" not in msg and "has two parents" in msg
    if fmt != "uai":
        assert "node Cancer has two parents: " in msg and "Smoker" in msg and "Pollution" in msg


@pytest.mark.parametrize("name, text, error, culprit", [
    ("cycle.uai", "MARKOV\n3\n2 2 2\n3\n2 0 1\n2 1 2\n2 2 0\n4\n1 1 1 1\n4\n1 1 1 1\n4\n1 1 1 1\n",
     CycleError, "closes the cycle"),
    ("triple.uai", "MARKOV\n3\n2 2 2\n1\n3 0 1 2\n8\n1 1 1 1 1 1 1 1\n", NotATreeError,
     "triple.uai:5: factor 0 joins three variables: x0, x1, x2"),
    ("loop.bif", ("network x { }\nvariable A { type discrete [ 2 ] { y, n }; }\n"
                  "variable B { type discrete [ 2 ] { y, n }; }\nprobability ( A | B ) { (y) 0.5, 0.5; (n) 0.5, 0.5; }\n"
                  "probability ( B | A ) { (y) 0.5, 0.5; (n) 0.5, 0.5; }\n"), NotATreeError, "each other's parent"),
    ("apart.bif", ("network x { }\nvariable A { type discrete [ 2 ] { y, n }; }\n"
                   "variable B { type discrete [ 2 ] { y, n }; }\nprobability ( A ) { table 0.5, 0.5; }\n"
                   "probability ( B ) { table 0.5, 0.5; }\n"), NotATreeError, "not connected"),
    ("short.bif", V_STRUCTURE[:V_STRUCTURE.index("probability ( C") + 30], NetworkFormatError,
     "short.bif:7: the file ends"),
    ("sum.bif", V_STRUCTURE.replace("table 0.5, 0.5; }\nprobability ( B )", "table 0.5, 0.6; }\nprobability ( B )"),
     InvalidPotentialError, "sum.bif:5: the probabilities of A sum to 1.1, not 1"),
    ("neg.bif", V_STRUCTURE.replace("table 0.5, 0.5; }\nprobability ( B )", "table -0.5, 1.5; }\nprobability ( B )"),
     InvalidPotentialError, "neg.bif:5: the table over A has an invalid entry -0.5 at A=y"),
    ("nan.uai", "MARKOV\n2\n2 2\n1\n2 0 1\n4\n1 nan 1 1\n", InvalidPotentialError, "invalid entry nan"),
    ("count.uai", "MARKOV\n2\n2 2\n1\n2 0 1\n3\n1 1 1\n", NetworkFormatError, "count.uai:6: factor 0 over x0, x1 has 4 entries"),
    ("huge.uai", "MARKOV\n2\n2 5000\n0\n", NetworkFormatError, "cardinality of variable 1 must be in 1..4,096"),
    ("word.uai", "MARKOV\n2\n2 two\n", NetworkFormatError, "word.uai:3: expected the cardinality of variable 1"),
    ("extra.uai", "MARKOV\n1\n2\n0\n7\n", NetworkFormatError, "unexpected '7'"),
    ("states.bif", "network x { }\nvariable A { type discrete [ 3 ] { y, n }; }\n", NetworkFormatError,
     "states.bif:2: variable A declares 3 states but lists 2"),
    ("row.bif", V_STRUCTURE.replace("probability ( C | A, B ) { (y, y) 0.1, 0.9; (n, y) 0.2, 0.8; (y, n) 0.3, 0.7; "
                                    "(n, n) 0.4, 0.6; }", "probability ( C | A ) { (maybe) 0.1, 0.9; }").replace(
        "probability ( B ) { table 0.5, 0.5; }\n", "probability ( B | C ) { (y) 0.5, 0.5; (n) 0.5, 0.5; }\n"),
     NetworkFormatError, "row.bif:7: A has no state 'maybe'"),
    ("missing.bif", "network x { }\nvariable A { type discrete [ 2 ] { y, n }; }\n", NetworkFormatError,
     "missing.bif:2: node A has no probability table"),
    ("cont.net", "net { }\ncontinuous node X { }\n", NetworkFormatError, "cont.net:2: continuous nodes are not read"),
    ("unquoted.net", "net { }\nnode X { states = (a b); }\n", NetworkFormatError, "must be quoted"),
    ("shape.net", "net { }\nnode X { states = (\"a\" \"b\"); }\npotential (X) { data = (0.5 0.25 0.25); }\n",
     NetworkFormatError, "shape.net:3: the data of X has 3 numbers, expected 2"),
    ("bad.xml", ("<BIF><NETWORK><VARIABLE><NAME>A</NAME><OUTCOME>y</OUTCOME><OUTCOME>n</OUTCOME></VARIABLE>"
                 "<DEFINITION><FOR>A</FOR><TABLE>0.5 x</TABLE></DEFINITION></NETWORK></BIF>"), NetworkFormatError,
     "the table of A holds 'x', not a number"),
    ("ent.xml", '<?xml version="1.0"?><!DOCTYPE BIF [<!ENTITY e "x">]><BIF>&e;</BIF>', NetworkFormatError,
     "entity declarations are refused"),
    ("open.xml", "<BIF><NETWORK>", NetworkFormatError, "not well-formed"),
    ("latin1.bif", "network \xe9 { }", NetworkFormatError, "latin1.bif:1: not UTF-8"),
    ("nothing.txt", "hello", NetworkFormatError, "not a BIF, XMLBIF, UAI or Hugin"),
    ("comment.bif", "network x { } /* never closed", NetworkFormatError, "comment.bif:1: a comment that never ends"),
])
def test_bad_network_files_are_refused_in_one_line(name, text, error, culprit):
    data = text.encode("latin-1") if name == "latin1.bif" else text.encode()
    with pytest.raises(error) as exc:
        read_network_bytes(data, name)
    msg = str(exc.value)
    assert culprit in msg and "\n" not in msg and msg.startswith(name), msg


def test_an_ambiguous_conditional_table_line_is_refused_not_guessed():
    head = ("network x { }\nvariable A { type discrete [ 3 ] { a, b, c }; }\n"
            "variable B { type discrete [ 3 ] { a, b, c }; }\nprobability ( A ) { table 0.2, 0.3, 0.5; }\n")
    # a symmetric table reads the same both ways: fine
    net = read_network_bytes((head + "probability ( B | A ) { table 0.2, 0.3, 0.5, 0.3, 0.4, 0.3, 0.5, 0.3, 0.2; }\n")
                             .encode(), "sym.bif")
    _close(net.edge_potentials[0], [[0.2, 0.3, 0.5], [0.3, 0.4, 0.3], [0.5, 0.3, 0.2]])
    # rows sum to one only when read parent by parent: read that way
    net = read_network_bytes((head + "probability ( B | A ) { table 0.1, 0.1, 0.8, 0.2, 0.2, 0.6, 0.3, 0.3, 0.4; }\n")
                             .encode(), "rows.bif")
    _close(net.edge_potentials[0], [[0.1, 0.1, 0.8], [0.2, 0.2, 0.6], [0.3, 0.3, 0.4]])
    # a doubly stochastic, unsymmetric table: refused rather than guessed
    with pytest.raises(NetworkFormatError, match="amb.bif:5: .*both row by row and column by column"):
        read_network_bytes((head + "probability ( B | A ) { table 0.2, 0.3, 0.5, 0.5, 0.2, 0.3, 0.3, 0.5, 0.2; }\n")
                           .encode(), "amb.bif")


UAI_HEAD = "BAYES\n2\n{c} {c}\n2\n1 0\n2 0 1\n\n{c}\n{prior}\n{cells}\n"


def test_uai_table_is_read_in_the_layout_that_sums_to_one_exactly():
    """A 2 x 2 table whose first column sums to 1.0005 reads as a distribution both ways within the
    rounding tolerance; the reading whose rows sum to one exactly is the one meant, in either
    layout (the UAI standard, or pgmpy's child-major one)."""
    cond = np.array([[0.3, 0.7], [0.7005, 0.2995]])  # rows: parent states, each sums to 1 exactly
    for layout, flat in (("standard", cond.ravel()), ("pgmpy", cond.T.ravel())):
        text = UAI_HEAD.format(c=2, prior="0.4 0.6", cells="4\n" + " ".join(repr(float(x)) for x in flat))
        net = read_network_bytes(text.encode(), f"{layout}.uai")
        _close(net.edge_potentials[0], cond)


def test_uai_table_exact_both_ways_is_read_the_standard_way():
    """A table that is an exact distribution read either way (rows 0.2 0.3 0.5 and 0.1 0.3 0.6 are
    also 0.2 0.5 0.3 and 0.3 0.1 0.6 column by column) is read as the UAI format lays it out: a
    file that follows the format is never refused or turned round."""
    cells = "6\n0.2 0.3 0.5 0.1 0.3 0.6"
    net = read_network_bytes(UAI_HEAD.replace("{c} {c}", "2 3").format(c=2, prior="0.4 0.6", cells=cells).encode(),
                             "std.uai")
    _close(net.edge_potentials[0][:2], [[0.2, 0.3, 0.5], [0.1, 0.3, 0.6]])   # (padded to 3 x 3)


def test_bif_table_line_that_reads_both_ways_within_rounding_is_refused():
    """BIF has no fixed layout for a conditional 'table' line: 0.4, 0.6001, 0.6, 0.3999 sums to one
    (within rounding) row by row and column by column, so it is refused, not guessed."""
    text = ("network x { }\nvariable A { type discrete [ 2 ] { a, b }; }\n"
            "variable B { type discrete [ 2 ] { a, b }; }\nprobability ( A ) { table 0.5, 0.5; }\n"
            "probability ( B | A ) { table 0.4, 0.6001, 0.6, 0.3999; }\n")
    with pytest.raises(NetworkFormatError, match="round.bif:5: .*both row by row and column by column"):
        read_network_bytes(text.encode(), "round.bif")


def test_extreme_potentials_stay_exact():
    text = "MARKOV\n3\n2 2 2\n4\n1 0\n2 0 1\n2 1 2\n1 2\n2\n1e-300 1\n4\n1e300 1 1 1e300\n4\n1 1e-200 1e-200 1\n2\n1 1e-250\n"
    net = read_network_bytes(text.encode(), "extreme.uai")
    got = _ours(net)
    # independent log-space reference
    from scipy.special import logsumexp

    lp = {}
    for x in itertools.product(range(2), repeat=3):
        lp[x] = (np.log([1e-300, 1][x[0]]) + np.log([[1e300, 1], [1, 1e300]][x[0]][x[1]])
                 + np.log([[1, 1e-200], [1e-200, 1]][x[1]][x[2]]) + np.log([1, 1e-250][x[2]]))
    z = logsumexp(list(lp.values()))
    for v in range(3):
        want = [np.exp(logsumexp([p for x, p in lp.items() if x[v] == a]) - z) for a in range(2)]
        np.testing.assert_allclose(got[v], want, rtol=1e-9, atol=1e-300)


def test_read_network_refuses_missing_files_and_folders(tmp_path):
    with pytest.raises(NetworkFormatError, match="no such file"):
        read_network(tmp_path / "none.bif")
    with pytest.raises(NetworkFormatError, match="is a directory"):  # engine.files refuses it
        read_network(tmp_path)
    with pytest.raises(NetworkFormatError, match="no sample network is called 'nope'"):
        read_sample_network("nope")


def test_engine_errors_only():
    """Random bytes never escape as anything but an EngineError."""
    rng = np.random.default_rng(0)
    for ext in (".bif", ".xml", ".uai", ".net"):
        for _ in range(40):
            data = bytes(rng.integers(0, 256, rng.integers(0, 200)).tolist())
            try:
                read_network_bytes(data, "junk" + ext)
            except EngineError:
                pass


def test_cli_network(tmp_path):
    import json
    from tests.conftest import ROOT, engine_cli

    def cli(*a):
        return engine_cli("network", *a, cwd=ROOT)

    r = cli(str(NETWORK_SAMPLES_DIR / "weather.bif"), "--evidence", "WetGrass=wet", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["root"] == "Season" and out["kind"] == "bayes" and ["Rain", "WetGrass"] in out["edges"]
    assert abs(out["marginals"]["Rain"]["yes"] - 0.75) < 1e-12
    (tmp_path / "v.bif").write_text(V_STRUCTURE)
    for args, msg in (([str(tmp_path / "v.bif")], "error: v.bif:7: node C has two parents: A, B"),
                      ([str(NETWORK_SAMPLES_DIR / "weather.bif"), "--evidence", "Fog=1"], "no variable Fog"),
                      ([str(NETWORK_SAMPLES_DIR / "weather.bif"), "--evidence", "Rain=maybe"], "Rain has states yes, no"),
                      ([str(NETWORK_SAMPLES_DIR / "weather.bif"), "--evidence", "Rain=yes", "--evidence",
                        "WetGrass=dry", "--evidence", "Rain=no"], None)):
        r = cli(*args)
        if msg is None:
            assert r.returncode == 0  # the last observation of a variable counts
            continue
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and msg in r.stderr, r.stderr
