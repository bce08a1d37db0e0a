"""The optimal (2,s)-cover of "Online Sum-Product Computation over Trees" (Herbster, Pasteris
& Vitale; Figure 1, Theorem 6) against the paper's own example, the validator of Definition 1
and exact brute-force optima."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cover import (
    COMPRESS,
    EDGE,
    RAKE,
    ROOT,
    brute_force_optima,
    collection_violations,
    FIGURE1_EDGES,
    cover_violations,
    figure1_tree,
    heights_by_root,
    min_cover_height,
    optimal_cover,
    rake_only_cover,
)
from engine.cover.hierarchical import _build
from engine.cover.validate import TreeMasks
from engine.errors import EmptyTreeError, InvalidParameterError
from engine.trees.generators import path_tree, prufer_to_parent, random_tree, star_of_paths, star_tree
from engine.trees.metrics import tree_info
from engine.trees.model import Tree
from tests.conftest import ROOT as REPO, engine_cli

# A tree consistent with every statement the text makes about Figure 1 (vertex 1 is s).
FIG1 = list(FIGURE1_EDGES)


def fig1():
    t = Tree.from_named_edges(FIG1, root=1)
    return t, optimal_cover(t, "1")


def names(cover, z):
    return sorted(int(cover.tree.name(v)) for v in cover.vertices_of(z))


def node(cover, v):
    return int(cover.vertex_node[cover.tree.index(str(v))])


def test_figure1_statements():
    t, c = fig1()
    assert cover_violations(c) == []
    s2, s10, s12, s5 = node(c, 2), node(c, 10), node(c, 12), node(c, 5)
    # "∂T(S^2) = {4} and ∂T(S^10) = {8, 12}"; "S^2 contains vertices 1, 2, 3 and 4"
    assert [t.name(v) for v in c.boundary_of(s2)] == ["4"]
    assert [t.name(v) for v in c.boundary_of(s10)] == ["8", "12"]
    assert names(c, s2) == [1, 2, 3, 4]
    # "Omega(S^2, 2) = {S(1,2), S(2,3), S(2,4)}", formed at t = 0
    assert sorted(c.node_name(z) for z in c.children(s2)) == ["1|2", "2|3", "2|4"]
    assert c.round[s2] == 0
    # "children of 5 in D are (4,5) and 6"
    assert sorted(c.node_name(z) for z in c.children(s5)) == ["4|5", "6"]
    # "at t = 1, S^12 is obtained by merging S^10 with S^13, both created at t = 0"
    assert c.round[s12] == 1 and c.round[s10] == 0 and c.round[node(c, 13)] == 0
    assert sorted(c.node_name(z) for z in c.children(s12)) == ["10", "13"]
    # "S^12 = [8 / 10]": vertex 8 plus the T-subtree below 10; 12 is raked into 8
    assert names(c, s12) == [8, 10, 11, 12, 13, 14] and c.kind[s12] == RAKE
    # "the height of the cover of S^v is t + 1 iff v is black in T_t"
    for v in (2, 6, 10, 13, 5, 12, 8, 4):
        z = node(c, v)
        assert c.node_height[z] == c.round[z] + 1
        assert c.trace(int(c.round[z])).mergeable[
            list(c.trace(int(c.round[z])).vertices).index(t.index(str(v)))]


def test_kinds_and_arrays_documented_layout():
    t, c = fig1()
    m = c.m
    assert m == (t.n - 1) + int((t.degree >= 2).sum())
    assert (c.kind[: t.n - 1] == EDGE).all() and c.root == m - 1 and c.kind[-1] == ROOT
    nonroot = np.flatnonzero(c.parent >= 0)
    assert (c.parent[nonroot] > nonroot).all()
    z = node(c, 10)  # compress: ends (T_t-parent, T_t-child)
    assert c.kind[z] == COMPRESS and [t.name(v) for v in c.ends[z]] == ["8", "12"]
    assert c.node_name(c.up_child[z]) == "8|10" and c.node_name(c.down_child[z]) == "10|12"
    z2 = node(c, 2)  # compress next to s: s is a leaf, so only c is on the boundary
    assert [t.name(v) for v in c.ends[z2]] == ["1", "4"] and c.boundary[z2, 0] == -1
    for v in range(t.n):
        if t.degree[v] == 1 and v != c.s:
            assert c.kind[c.edge_node[v]] == EDGE and c.ends[c.edge_node[v], 1] == v
    assert c.edge_node[c.s] == -1


def prufer_trees(max_n):
    return st.integers(2, max_n).flatmap(
        lambda n: st.lists(st.integers(0, n - 1), min_size=max(n - 2, 0), max_size=max(n - 2, 0))
        .map(lambda seq, n=n: Tree.from_parent(prufer_to_parent(np.array(seq, np.int64), n))
             if n > 2 else path_tree(n)))


@given(prufer_trees(24), st.data())
def test_hypothesis_valid_and_height_is_rounds(tree, data):
    s = data.draw(st.sampled_from(tree.leaves.tolist()))
    c = optimal_cover(tree, s)
    assert cover_violations(c) == []
    assert c.height == c.rounds


@pytest.mark.slow
def test_validity_on_thousands_of_random_trees():
    rng = np.random.default_rng(2026)
    count = 0
    for _ in range(2000):
        n = int(rng.integers(2, 25))
        t = random_tree(n, seed=rng)
        s = int(rng.choice(t.leaves))
        for c in (optimal_cover(t, s), rake_only_cover(t, s)):
            assert cover_violations(c) == [], (t.edges.tolist(), s, c.rake_only)
            count += 1
    assert count == 4000


def test_height_is_brute_force_optimum_for_every_leaf_root():
    """Theorem 6: the height is chi^2_s(T); and chi* <= chi^2 <= chi^2_s <= 2 chi*."""
    rng = np.random.default_rng(6)
    checked = 0
    for n in [n for n in range(2, 12) for _ in range(40)]:
        t = random_tree(n, seed=rng)
        chi_star = min_cover_height(t, "star")
        chi_2 = min_cover_height(t, "2")
        for s in t.leaves.tolist():
            c = optimal_cover(t, s)
            chi_2s = min_cover_height(t, "2s", s)
            assert c.height == chi_2s, (t.edges.tolist(), s)
            assert chi_star <= chi_2 <= chi_2s <= 2 * chi_star
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("tree", [star_tree(7), path_tree(11), star_of_paths(3, 3),
                                  Tree.from_named_edges(FIG1)], ids=["star", "path", "spider", "fig1"])
def test_families_against_brute_force(tree):
    for s in tree.leaves.tolist():
        o = brute_force_optima(tree, s)
        assert optimal_cover(tree, s).height == o.chi_2s
        assert o.chi_star <= o.chi_2 <= o.chi_2s <= 2 * o.chi_star


def test_star_has_height_one_and_only_one_cover():
    t = star_tree(9)
    c = optimal_cover(t)
    assert c.height == 1 and c.m == t.n  # n - 1 edges and the centre
    assert min_cover_height(t, "star") == 1


def test_path_height_is_logarithmic_and_star_of_paths_smaller():
    for n in (100, 1000, 10000):
        h = optimal_cover(path_tree(n)).height
        assert np.log2(n - 1) <= h <= 2 * np.ceil(np.log2(n))
    sp = optimal_cover(star_of_paths(100, 10))
    assert sp.height < optimal_cover(path_tree(sp.n)).height


def test_rake_only_is_the_leaf_merging_loop_and_bounded_by_diameter():
    rng = np.random.default_rng(4)
    for _ in range(200):
        t = random_tree(int(rng.integers(2, 40)), seed=rng)
        s = int(rng.choice(t.leaves))
        fast, loop = rake_only_cover(t, s), _build(t, s, "simulate")
        for a in ("parent", "kind", "ends", "round", "split_vertex", "vertex_round"):
            assert np.array_equal(getattr(fast, a), getattr(loop, a)), a
        assert fast.height <= tree_info(t).diameter
        assert not (fast.kind == COMPRESS).any()
        assert optimal_cover(t, s).height <= fast.height


def test_trace_follows_the_mergeable_rule():
    rng = np.random.default_rng(7)
    for _ in range(100):
        t = random_tree(int(rng.integers(3, 60)), seed=rng)
        c = optimal_cover(t, int(rng.choice(t.leaves)))
        tr0 = c.trace(0)
        assert set(tr0.vertices.tolist()) == set(np.flatnonzero(t.degree >= 2).tolist()) | {c.s}
        for k in range(c.rounds + 1):
            tr = c.trace(k)
            pos = {int(v): i for i, v in enumerate(tr.vertices)}
            kids = {int(v): [] for v in tr.vertices}
            for v, p in zip(tr.vertices.tolist(), tr.parent.tolist()):
                if p >= 0:
                    kids[p].append(v)
            merg = {}
            for v in tr.vertices[::-1].tolist():  # children first
                merg[v] = v != c.s and (not kids[v] or (len(kids[v]) == 1 and not merg[kids[v][0]]))
            assert [merg[int(v)] for v in tr.vertices] == tr.mergeable.tolist()
            if k < c.rounds:
                nxt = c.trace(k + 1)
                assert set(nxt.vertices.tolist()) == {v for v in pos if not merg[v]}
        assert c.trace(c.rounds).vertices.tolist() == [c.s]


def test_root_choice_errors_and_tiny_trees():
    t = star_tree(5)
    with pytest.raises(InvalidParameterError, match="root 0 is not a leaf"):
        optimal_cover(t, 0)
    assert optimal_cover(t).s == 1  # the star's root is its centre: the first leaf is used
    with pytest.raises(EmptyTreeError):
        optimal_cover(path_tree(1))
    c = optimal_cover(path_tree(2))
    assert c.m == 1 and c.height == 0 and c.rounds == 0 and c.kind[0] == EDGE
    assert cover_violations(c) == []
    assert brute_force_optima(path_tree(2)).chi_2s == 0
    with pytest.raises(InvalidParameterError, match="limit"):
        brute_force_optima(path_tree(30))


def test_rooting_of_the_input_does_not_matter():
    t = random_tree(200, seed=3)
    s = int(t.leaves[-1])
    a, b = optimal_cover(t, s), optimal_cover(t.rerooted(s), s)
    key = lambda c: sorted((x["id"], x["parent"] or "", x["kind"], x["boundary"], x["round"],  # noqa: E731
                            x["vertices"]) for x in c.to_dict(vertices=True)["components"])
    assert key(a) == key(b)


def test_validator_catches_broken_collections():
    t, c = fig1()
    comps = [c.vertices_of(z).tolist() for z in range(c.m)]
    assert collection_violations(t, comps, exposure=2, s=c.s) == []
    missing = comps[:-1]
    assert any("condition 1" in e for e in collection_violations(t, missing))
    no_split = [x for x in comps if sorted(x) != sorted(c.vertices_of(node(c, 13)).tolist())]
    assert any("condition 2" in e for e in collection_violations(t, no_split))
    ix = lambda *vs: [t.index(str(v)) for v in vs]  # noqa: E731
    crossing = comps + [ix(2, 4, 5)]
    assert any("condition 3" in e for e in collection_violations(t, crossing))
    # a star cover is a valid cover of exposure > 2 at its centre split, when T is not a star
    assert any("exposure" in e for e in collection_violations(t, comps + [ix(4, 5, 8, 2)], exposure=2))
    # an upward component (contains s, boundary {4}) is a 2-cover member but not (2,s)-oriented
    assert any("orientation" in e for e in collection_violations(t, [ix(1, 2, 3, 4, 5)], s=c.s))


def _maximal_with_leaves(tm, w, v):
    """[w / v] by definition: the largest subtree having w and v among its leaves (n <= 10)."""
    best = None
    for mask in range(1 << tm.n):
        if mask >> w & 1 and mask >> v & 1 and tm.is_subtree(mask) and \
                tm.degree_in(w, mask) == 1 and tm.degree_in(v, mask) == 1:
            if best is None or mask.bit_count() > best.bit_count():
                best = mask
    return best


def test_oriented_characterisation_matches_definition_5():
    rng = np.random.default_rng(5)
    for _ in range(25):
        t = random_tree(int(rng.integers(3, 9)), seed=rng)
        s = int(rng.choice(t.leaves))
        tm = TreeMasks(t, s)
        brackets = set()
        for w in range(t.n):
            for v in range(t.n):
                a = v
                while tm.sp[a] >= 0 and tm.sp[a] != w:
                    a = tm.sp[a]
                if v != w and tm.sp[a] == w:  # v is a proper descendant of w
                    brackets.add(_maximal_with_leaves(tm, w, v))
        for mask in range(1, 1 << t.n):
            if tm.is_subtree(mask) and mask.bit_count() >= 2 and mask != tm.full:
                assert tm.is_oriented(mask) == (mask in brackets), (t.edges.tolist(), s, bin(mask))


def test_large_tree_invariants():
    t = random_tree(100_000, seed=1)
    c = optimal_cover(t)
    nonroot = np.flatnonzero(c.parent >= 0)
    assert (c.parent[nonroot] > nonroot).all()
    internal = c.kind != EDGE
    assert np.array_equal(c.node_height[internal], c.round[internal] + 1)
    assert c.height == c.rounds == c.depth.max()
    assert np.array_equal(np.diff(c.children_ptr), np.bincount(c.parent[nonroot], minlength=c.m))
    assert c.leaf_hi[c.root] - c.leaf_lo[c.root] == t.n - 1
    assert c.height <= 2 * np.ceil(np.log2(t.n))


def run_cli(*args):
    return engine_cli("cover", *args, cwd=REPO)


@pytest.mark.slow
def test_cli_json(tmp_path):
    f = tmp_path / "fig1.txt"
    f.write_text("".join(f"{u},{v}\n" for u, v in FIG1))
    r = run_cli(str(f), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert list(d) == ["n", "root", "height", "rounds", "components"]
    assert d["n"] == 14 and d["root"] == "1" and d["height"] == d["rounds"] == fig1()[1].height
    comps = {c["id"]: c for c in d["components"]}
    assert set(comps["10"]) == {"id", "parent", "kind", "boundary", "round"}
    assert comps["10"] == {"id": "10", "parent": "12", "kind": "compress", "boundary": ["8", "12"], "round": 0}
    assert comps["12|13"]["kind"] == "edge" and comps["4"]["parent"] is None
    r = run_cli(str(f), "--vertices", "--rake-only", "--json", "--root", "14")
    d = json.loads(r.stdout)
    assert d["root"] == "14"
    whole = [c for c in d["components"] if c["parent"] is None][0]
    assert sorted(whole["vertices"], key=int) == [str(i) for i in range(1, 15)]
    r = run_cli(str(f), "--root", "4", "--json")
    assert r.returncode == 2 and r.stderr.startswith("error: root 4 is not a leaf")
    assert r.stderr.count("\n") == 1
    r = run_cli(str(f), "--root", "99", "--json")
    assert r.returncode == 2 and "99" in r.stderr


def test_heights_by_root_and_progress():
    t = random_tree(40, seed=11)
    seen = []
    leaves, heights = heights_by_root(t, progress=lambda f, msg: seen.append(f))
    assert leaves.tolist() == t.leaves.tolist()
    assert heights.tolist() == [optimal_cover(t, s).height for s in t.leaves.tolist()]
    assert seen[-1] == 1.0 and all(a <= b for a, b in zip(seen, seen[1:]))
    _, rh = heights_by_root(t, rake_only=True)
    assert (rh >= heights).all()
    assert figure1_tree().n == 14 and figure1_tree().name(figure1_tree().root) == "1"


def test_rake_only_height_is_eccentricity_of_s_minus_one():
    """Merging only leaves, vertex v leaves T_t in round = its height in T_0, so the rake-only
    height is ecc(s) - 1 (at most the diameter minus 1, the bound of section 4)."""
    rng = np.random.default_rng(8)
    for _ in range(100):
        t = random_tree(int(rng.integers(2, 300)), seed=rng)
        s = int(rng.choice(t.leaves))
        ecc = int(t.rerooted(s).depth.max())
        assert rake_only_cover(t, s).height == ecc - 1
