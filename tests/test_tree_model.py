"""The tree model's validation (every error names its culprit), generators and editing operations."""

from collections import Counter

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chisquare

from engine.errors import (CycleError, DisconnectedError, DuplicateEdgeError, DuplicateNameError,
                           EmptyTreeError, InvalidParameterError, LimitExceededError, SelfLoopError,
                           UnknownVertexError)
from engine.trees.editing import add_child, relabel, remove_leaf, rename, reroot, tree_from_edge_rows
from engine.trees.generators import (GENERATORS, MAX_GENERATE, caterpillar_tree, complete_tree, generate,
                                     path_tree, prufer_to_parent, random_recursive_tree, random_tree,
                                     spider_tree, star_of_paths, star_tree)
from engine.trees.model import Tree, _check_unique_names, _distinct_by_hash
from tests.tree_strategies import same_tree, trees


# ---------------------------------------------------------------- validation
def test_validation_errors_name_the_culprit():
    with pytest.raises(EmptyTreeError):
        Tree.from_edges([], 0)
    with pytest.raises(SelfLoopError, match=r"edge \(b, b\) is a self-loop"):
        Tree.from_named_edges([("a", "b"), ("b", "b")])
    with pytest.raises(DuplicateEdgeError, match=r"edge \(a, b\) is given more than once"):
        Tree.from_named_edges([("a", "b"), ("b", "a")])
    with pytest.raises(CycleError, match=r"closes the cycle") as exc:
        Tree.from_named_edges([("r", "a"), ("a", "b"), ("b", "c"), ("c", "a")])
    assert set(exc.value.cycle) == {"a", "b", "c"}
    with pytest.raises(DisconnectedError, match=r"vertex c cannot be reached from vertex a"):
        Tree.from_named_edges([("a", "b"), ("c", "d")])
    with pytest.raises(DuplicateNameError, match=r"two vertices are named 'x'"):
        Tree.from_edges([(0, 1)], names=["x", "x"])
    with pytest.raises(DisconnectedError, match="exactly one root"):
        Tree.from_parent([-1, -1, 0])
    with pytest.raises(DuplicateNameError, match=r"two vertices are named 'x'"):
        Tree.from_parent([-1, 0, 0], names=["x", "y", "x"])
    with pytest.raises(ValueError, match="2 names given for 3 vertices"):
        Tree.from_parent([-1, 0, 0], names=["x", "y"])
    with pytest.raises(ValueError, match=r"a parent array is one row of integers, one per vertex; got shape \(2, 2\)"):
        Tree.from_parent([[-1, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"one per vertex, in one row; got an array of shape \(3, 1\)"):
        Tree.from_parent([-1, 0, 0], names=np.array([["a"], ["b"], ["c"]]))   # (found by review)


def _outcome(build):
    try:
        t = build()
    except Exception as exc:  # noqa: BLE001 - the outcome compared is the error itself
        return type(exc), str(exc)
    if not isinstance(t, Tree):
        return t
    return t.root, t.parent.tolist(), t.order.tolist(), t.names


@given(st.lists(st.text(st.sampled_from("ab\u00e9\U0001f333 "), max_size=4), min_size=1, max_size=20))
def test_array_names_are_checked_as_the_list_is(names):
    # The array check first compares 64-bit hashes; a repeat always has equal hashes, so only
    # the exact sort may answer "repeat", and its message is the list's
    assert not _distinct_by_hash(np.array(names)) or len(set(names)) == len(names)
    want = _outcome(lambda: _check_unique_names(names))
    assert _outcome(lambda: _check_unique_names(np.array(names))) == want
    if all(s == s.rstrip() for s in names):      # (a chararray ignores trailing spaces)
        assert _outcome(lambda: _check_unique_names(np.char.array(names))) == want   # a subclass (found by review)
    assert _outcome(lambda: _check_unique_names(np.array([s * 30 for s in names]))) == \
        _outcome(lambda: _check_unique_names([s * 30 for s in names]))            # long names: the sort only


@st.composite
def _shuffled_trees(draw):
    """The parent array of a random tree on 1..12 vertices, its vertices numbered at random."""
    n = draw(st.integers(1, 12))
    up = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    perm = draw(st.permutations(range(n)))
    parent = [0] * n
    for v in range(n):
        parent[perm[v]] = -1 if up[v] < 0 else perm[up[v]]
    return parent


@given(parent=st.lists(st.integers(-3, 12), min_size=1, max_size=12) | _shuffled_trees(), data=st.data())
def test_from_parent_agrees_with_the_general_checks(parent, data):
    # from_parent decides "tree or not" by one search from the root; whatever it is given, its
    # tree (order included) or its error must be the one the general edge checks give.
    n = len(parent)
    names = data.draw(st.none() | st.lists(st.sampled_from("abcd"), min_size=n, max_size=n)
                      | st.just([f"v{i}" for i in range(n)]))

    def general():
        p = np.asarray(parent)
        roots = np.flatnonzero(p < 0)
        if len(roots) != 1:
            return Tree.from_parent(parent, names=names)   # the root count is checked first by both
        child = np.flatnonzero(p >= 0)
        return Tree.from_edges(np.stack([p[child], child], axis=1), n, names=names, root=int(roots[0]))

    assert _outcome(lambda: Tree.from_parent(parent, names=names)) == _outcome(general)


@given(t=trees(max_n=30), data=st.data())
def test_adding_any_edge_to_a_tree_closes_a_named_cycle(t, data):
    if t.n < 3:
        return
    u, v = data.draw(st.lists(st.integers(0, t.n - 1), min_size=2, max_size=2, unique=True))
    if {u, v} in [{int(a), int(b)} for a, b in t.edges]:
        return
    with pytest.raises(CycleError) as exc:
        Tree.from_edges(np.vstack([t.edges, [[u, v]]]), t.n, names=t.names)
    cyc = [t.index(s) for s in exc.value.cycle]
    # the named cycle is the tree path between u and v, closed by the new edge
    assert set(cyc) == set(nx.shortest_path(nx.Graph(t.edges.tolist()), u, v))


# ---------------------------------------------------------------- generators
def test_prufer_decoding_matches_networkx():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(3, 40))
        seq = rng.integers(0, n, size=n - 2)
        p = prufer_to_parent(seq, n)
        mine = {frozenset((v, int(p[v]))) for v in range(n) if p[v] >= 0}
        assert mine == {frozenset(e) for e in nx.from_prufer_sequence(seq.tolist()).edges}


def test_random_tree_is_uniform_over_labelled_trees():
    # n = 5: 5^3 = 125 labelled trees, all equally likely (Cayley); chi-square on 6,250 draws
    n, draws = 5, 6_250
    counts = Counter()
    rng = np.random.default_rng(123)
    for _ in range(draws):
        t = random_tree(n, seed=rng)
        counts[frozenset(map(frozenset, t.edges.tolist()))] += 1
    assert len(counts) == n ** (n - 2)
    assert chisquare(list(counts.values())).pvalue > 1e-3


def test_generator_shapes():
    assert path_tree(10).degree.max() == 2 and len(path_tree(10).leaves) == 2
    s = star_tree(10)
    assert s.degree[0] == 9 and len(s.leaves) == 9
    sp = star_of_paths(4, 5)
    assert sp.n == 21 and sp.degree[0] == 4 and int(sp.depth.max()) == 5 and len(sp.leaves) == 4
    b = complete_tree(15, 2)
    assert int(b.depth.max()) == 3 and len(b.leaves) == 8
    c = caterpillar_tree(20, 5)
    spine = [v for v in range(20) if c.degree[v] > 1]
    assert len(spine) == 5 and nx.is_tree(nx.Graph(c.edges.tolist()))
    sd = spider_tree(4, n=30, seed=1)
    assert sd.n == 30 and sd.degree[0] == 4 and all(sd.degree[1:] <= 2)
    r = random_recursive_tree(200, seed=2)
    assert all(r.parent[1:] < np.arange(1, 200))


@pytest.mark.parametrize("kind", sorted(GENERATORS))
@pytest.mark.parametrize("n", [1, 2, 3, 50, 1000])
def test_every_family_gives_a_valid_tree(kind, n):
    t = generate(kind, n, seed=4)
    g = nx.Graph(t.edges.tolist())
    g.add_nodes_from(range(t.n))
    assert nx.is_tree(g)
    assert t.n == n or kind == "star-of-paths"
    # the order is breadth-first: parents before children
    rank = np.empty(t.n, np.int64)
    rank[t.order] = np.arange(t.n)
    assert all(rank[t.parent[v]] < rank[v] for v in range(t.n) if v != t.root)
    assert np.array_equal(t.depth, np.array([nx.shortest_path_length(g, t.root, v) for v in range(t.n)]))


def test_seeds_reproduce_and_bad_parameters_are_refused():
    assert generate("random", 100, seed=5) == generate("random", 100, seed=5)
    assert generate("random", 100, seed=5) != generate("random", 100, seed=6)
    with pytest.raises(InvalidParameterError, match="unknown tree family 'tree'"):
        generate("tree", 5)
    with pytest.raises(InvalidParameterError, match="n must be a whole number in 1.."):
        generate("path", 0)
    with pytest.raises(LimitExceededError, match="n: 2000001 exceeds the limit of 2,000,000 .* 'generate'"):
        generate("random", MAX_GENERATE + 1)
    with pytest.raises(LimitExceededError, match="a star of 2000000 paths of 2000000 edges"):
        generate("star-of-paths", 5, k=2_000_000, m=2_000_000)   # k*m sizes it, not n
    with pytest.raises(InvalidParameterError, match="Prüfer"):
        prufer_to_parent(np.array([7]), 3)


# ---------------------------------------------------------------- editing
LECTURE = Tree.from_named_edges([("1", "2"), ("1", "3"), ("2", "4"), ("2", "5")])


def test_add_child_remove_leaf_rename_reroot():
    t = add_child(LECTURE, "4", name="6")
    assert ("4", "6") in t.named_edges() and t.n == 6
    assert remove_leaf(t, "6") == LECTURE
    t = rename(LECTURE, "2", "two")
    assert ("two", "4") in t.named_edges() and t.index("two") == 1
    r = reroot(LECTURE, "4")
    assert r.name(r.root) == "4"
    same_tree(LECTURE, r, root=False)
    # removing a root of degree 1 hands the root to its neighbour
    p = remove_leaf(path_tree(4), 0)
    assert p.n == 3 and p.root == 0 and p.names == ("1", "2", "3")


def test_editing_refusals_are_named():
    with pytest.raises(InvalidParameterError, match="vertex 2 is not a leaf"):
        remove_leaf(LECTURE, "2")
    with pytest.raises(EmptyTreeError, match="only vertex"):
        remove_leaf(path_tree(1), 0)
    with pytest.raises(DuplicateNameError, match="already named '3'"):
        rename(LECTURE, "2", "3")
    with pytest.raises(DuplicateNameError, match="already named '5'"):
        add_child(LECTURE, "1", name="5")
    with pytest.raises(InvalidParameterError, match="cannot be empty"):
        rename(LECTURE, "2", "  ")
    with pytest.raises(UnknownVertexError, match="no vertex is named 9"):
        add_child(LECTURE, "9")


def assert_breadth_first(t: Tree) -> None:
    """``order`` is a breadth-first order: depth never decreases along it, and in the renumbering
    by it every rank's children are the contiguous ranks ``bfs_children_ptr`` says (what the
    compiled sweeps rely on; appending a new leaf last broke it, and with it BP's marginals)."""
    assert (np.diff(t.depth[t.order]) >= 0).all()
    pr, ptr = t.bfs_parent, t.bfs_children_ptr
    assert (np.diff(pr[1:]) >= 0).all()
    for i in range(t.n):
        assert (pr[ptr[i]:ptr[i + 1]] == i).all()


@given(t=trees(max_n=25, labels="tags"), data=st.data())
def test_edits_agree_with_rebuilding_from_edges(t, data):
    v = data.draw(st.integers(0, t.n - 1))
    a = add_child(t, v, label="new")
    assert_breadth_first(a)
    want = Tree.from_named_edges(t.named_edges() + [(t.name(v), a.name(a.n - 1))], vertices=t.names,
                                 labels={**{t.name(i): t.labels[i] for i in range(t.n)}, a.name(a.n - 1): "new"})
    same_tree(want, a, root=False)
    assert a.name(a.root) == t.name(t.root)
    leaf = int(data.draw(st.sampled_from(list(t.leaves))))
    if t.n > 1:
        r = remove_leaf(t, leaf)
        rest = [e for e in t.named_edges() if t.name(leaf) not in e]
        want = Tree.from_named_edges(rest, vertices=[s for s in t.names if s != t.name(leaf)])
        same_tree(want, r, labels=False, root=False)
        assert_breadth_first(r)
        assert r.labels == tuple(x for i, x in enumerate(t.labels) if i != leaf)
        # the structure is consistent: breadth-first order, CSR children, depth
        g = nx.Graph(r.edges.tolist())
        g.add_nodes_from(range(r.n))
        assert nx.is_tree(g)
        assert np.array_equal(r.depth, [nx.shortest_path_length(g, r.root, x) for x in range(r.n)])
    assert relabel(t, v, "z").labels[v] == "z"


def test_edge_table_rows():
    t = tree_from_edge_rows([("a", "b"), ("b", "c"), (None, None), ("", "")], root="b")
    assert t.name(t.root) == "b" and t.n == 3
    with pytest.raises(InvalidParameterError, match="row 2 of the edge table has an empty endpoint"):
        tree_from_edge_rows([("a", "b"), ("b", None)])
    with pytest.raises(CycleError):
        tree_from_edge_rows([("a", "b"), ("b", "c"), ("c", "a")])
    with pytest.raises(EmptyTreeError):
        tree_from_edge_rows([])
