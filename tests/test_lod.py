"""The level of detail of tree drawings (engine.trees.lod): every vertex is accounted for exactly
once, no two drawn vertices overlap, the budget holds, and what the marks say about the vertices
they hold (counts, min/mean/max, ringed vertices) matches a direct computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.trees import Tree
from engine.trees.generators import caterpillar_tree, path_tree, random_tree, star_of_paths, star_tree
from engine.trees.layout import tidy_layout
from engine.trees.lod import BAND, RUN, SUBTREE, TreeDrawing, ViewError, Viewport, auto_layout
from tests.tree_strategies import parent_arrays


def _members(d: TreeDrawing, m, g) -> np.ndarray:
    """The vertex ids collapsed mark ``g`` holds."""
    ranks = np.concatenate([np.arange(m.range_lo[j], m.range_hi[j])
                            for j in range(m.range_offsets[g], m.range_offsets[g + 1])] or [np.zeros(0, np.int64)])
    return d._pre[ranks]


def _check(d: TreeDrawing, m, *, whole: bool):
    n = d.tree.n
    # the budget, and no two drawn vertices nearer than a marker
    assert m.total <= 4000 or m.total <= getattr(m, "_budget", 4000)
    xy = m.vertex_xy.astype(float)
    if len(xy) > 1:
        from scipy.spatial import cKDTree

        assert not cKDTree(xy).query_pairs(m.marker - 1e-3), "two drawn vertices overlap"
    # collapsed marks hold disjoint sets, none of them drawn, and as many as they say
    seen = np.zeros(n, int)
    seen[m.vertices] += 1
    for g in range(len(m.first)):
        mem = _members(d, m, g)
        assert len(mem) == m.counts[g]
        seen[mem] += 1
        # a band belongs to its drawn (or passed) vertex, which it does not hold
        assert (m.first[g] in mem) == (m.kinds[g] != BAND)
        if m.kinds[g] == RUN:
            assert d.tree.parent[m.first[g]] >= 0 and m.last[g] in mem
    assert seen.max(initial=0) <= 1, "a vertex is in two marks"
    if whole:   # the whole tree in view: each vertex drawn, collapsed, or hidden on a drawn edge
        assert int(seen.sum()) + m.hidden == n
    # every edge joins two vertices of the tree, parent side first (a drawn level above)
    for a, b in m.edges:
        assert d.tree.depth[a] < d.tree.depth[b]
        u = b
        while u != a and u >= 0:
            u = d.tree.parent[u]
        assert u == a, "an edge that is not an ancestor-descendant pair"
    assert len(m.edge_offsets) == len(m.edges) + 1 and len(m.outline_offsets) == len(m.first) + 1


@settings(max_examples=60, deadline=None)
@given(parent_arrays(max_n=60), st.sampled_from(["tidy", "radial"]), st.floats(0.05, 4.0), st.integers(16, 900),
       st.integers(16, 700))
def test_overview_accounts_for_every_vertex(parent, layout, marker_scale, width, height):
    t = Tree.from_parent(parent)
    d = TreeDrawing(t, layout)
    m = d.marks(d.overview(width, height), width, height, marker=max(2.0, 10.0 * marker_scale))
    _check(d, m, whole=True)


@settings(max_examples=40, deadline=None)
@given(parent_arrays(max_n=80), st.sampled_from(["tidy", "radial"]), st.floats(0, 1), st.floats(0, 1),
       st.floats(0.02, 1.0), st.integers(16, 64))
def test_any_view_keeps_the_rules(parent, layout, cx, cy, frac, budget):
    t = Tree.from_parent(parent)
    d = TreeDrawing(t, layout)
    b = d.bounds
    w, h = frac * b.width, frac * b.height
    x, y = b.x0 + cx * b.width, b.y0 + cy * b.height
    m = d.marks(Viewport(x - w / 2, x + w / 2, y - h / 2, y + h / 2), 400, 300, budget=budget)
    assert m.total <= budget
    object.__setattr__(m, "_budget", budget)
    _check(d, m, whole=False)


@pytest.mark.parametrize("make", [lambda: random_tree(20_000, seed=1), lambda: path_tree(20_000),
                                  lambda: star_of_paths(140, 140), lambda: caterpillar_tree(20_000, seed=0),
                                  lambda: star_tree(20_000)])
@pytest.mark.parametrize("layout", ["tidy", "radial"])
def test_large_trees_fit_the_budget(make, layout):
    t = make()
    d = TreeDrawing(t, layout)
    m = d.marks(d.overview(1600, 1000), 1600, 1000)
    _check(d, m, whole=True)
    assert 0 < m.total <= 4000
    # a view of 1 % of the width about the middle
    vp = d.overview(1600, 1000)
    cx, cy = vp.centre
    z = Viewport(cx - 0.005 * vp.width, cx + 0.005 * vp.width, vp.y0, vp.y1)
    mz = d.marks(z, 1600, 1000)
    _check(d, mz, whole=False)


def test_small_trees_draw_every_vertex():
    t = Tree.from_named_edges([("1", "2"), ("1", "3"), ("2", "4"), ("2", "5")])
    d = TreeDrawing(t)
    assert d.layout == "tidy"
    m = d.marks(d.overview(600, 400), 600, 400)
    assert sorted(m.vertices.tolist()) == list(range(5)) and len(m.first) == 0 and m.hidden == 0
    assert sorted(map(tuple, m.edges.tolist())) == sorted(map(tuple, t.edges.tolist()))
    # the tidy drawing is the layout's own
    x, y = tidy_layout(t)
    assert np.allclose(d.x, x) and np.allclose(d.y, y)


def test_a_single_vertex_and_an_edge():
    for parent in ([-1], [-1, 0]):
        t = Tree.from_parent(np.array(parent))
        for layout in ("tidy", "radial"):
            d = TreeDrawing(t, layout)
            m = d.marks(d.overview(200, 200), 200, 200)
            assert len(m.vertices) == t.n and m.hidden == 0


def test_stats_and_rings_match_a_direct_computation():
    t = random_tree(5_000, seed=4)
    d = TreeDrawing(t, "tidy")
    m = d.marks(d.overview(800, 500), 800, 500)
    assert len(m.first) > 10
    rng = np.random.default_rng(0)
    vals = rng.random(t.n)
    vals[rng.integers(0, t.n, 50)] = np.nan
    stats = d.stats(d.in_preorder(vals), m)
    rings = rng.choice(t.n, 300, replace=False)
    inside = d.count_inside(rings, m)
    for g in range(len(m.first)):
        mem = _members(d, m, g)
        v = vals[mem]
        v = v[~np.isnan(v)]
        if v.size:
            assert stats[g] == pytest.approx([v.min(), v.mean(), v.max()], rel=1e-12)
        else:
            assert np.isnan(stats[g]).all()
        assert inside[g] == np.isin(mem, rings).sum()
        assert d.holder(int(mem[0]), m) == g
    assert d.holder(int(m.vertices[0]), m) == -1


def test_bands_and_strides_on_a_deep_path():
    t = path_tree(100_000)
    d = TreeDrawing(t, "tidy")
    m = d.marks(d.overview(400, 1000), 400, 1000, marker=10)
    assert m.stride > 1
    # a path: drawn vertices one stride apart, everything between hidden on the edges
    assert np.all(np.diff(np.sort(t.depth[m.vertices])) >= m.stride)
    assert not (m.kinds == BAND).any()
    _check(d, m, whole=True)
    # a caterpillar's legs are not on the drawn edges: they go into bands
    c = caterpillar_tree(20_000, seed=1)
    dc = TreeDrawing(c, "tidy")
    mc = dc.marks(dc.overview(400, 1000), 400, 1000)
    _check(dc, mc, whole=True)


def test_radial_edges_and_outlines_are_in_pixels():
    t = random_tree(3_000, seed=2)
    d = TreeDrawing(t, "radial")
    vp = d.overview(600, 600)
    m = d.marks(vp, 600, 600)
    # every drawn vertex is on the canvas (with a marker's margin), its edges end at it
    assert np.all((m.vertex_xy > -m.marker) & (m.vertex_xy < 600 + m.marker))
    pos = {int(v): m.vertex_xy[i] for i, v in enumerate(m.vertices)}
    for j, (a, b) in enumerate(m.edges):
        pts = m.edge_points[m.edge_offsets[j]:m.edge_offsets[j + 1]]
        if int(a) in pos:
            assert np.allclose(pts[0], pos[int(a)], atol=1e-3)
        if int(b) in pos:
            assert np.allclose(pts[-1], pos[int(b)], atol=1e-3)
    # radial: drawn at one scale whatever viewport was asked for
    m2 = d.marks(Viewport(vp.x0, vp.x1, vp.y0, vp.y0 + vp.height / 3), 600, 600)
    assert m2.viewport.width / 600 == pytest.approx(m2.viewport.height / 600)


def test_root_path_and_focus():
    t = path_tree(1_000)
    d = TreeDrawing(t, "tidy")
    vp = d.overview(400, 400)
    m = d.marks(vp, 400, 400)
    p = d.root_path(999, m)
    assert p.shape[1] == 2 and 2 <= len(p) <= 400
    assert np.allclose(p[-1], d.to_px([999], m)[0]) and np.allclose(p[0], d.to_px([t.root], m)[0])
    f = d.focus(500, vp, 400, 400)
    assert f.centre == pytest.approx((d.x[500], d.y[500]))
    mf = d.marks(f, 400, 400)
    assert 500 in mf.vertices


def test_auto_layout_is_radial_for_wide_trees_only():
    assert auto_layout(star_tree(10_000)) == "radial"
    assert auto_layout(path_tree(10_000)) == "tidy"
    assert auto_layout(star_tree(50)) == "tidy"   # a small tree stays tidy


@pytest.mark.parametrize("bad, msg", [
    ("1,2,3", "needs four numbers"), ("a,b,c,d", "needs four numbers"), ("0,0,0,1", "is empty"),
    ("0,1,nan,1", "not a finite number"), ("1,0,0,1", "is empty"),
])
def test_bad_viewports_are_one_line(bad, msg):
    with pytest.raises(ViewError, match=msg):
        Viewport.from_text(bad)


def test_viewport_text_round_trip_and_bad_canvases():
    v = Viewport(-1.5, 2e6, -12345.678, 3.25)
    assert Viewport.from_text(v.to_text()) == pytest.approx(v) or Viewport.from_text(v.to_text()).to_text() == v.to_text()
    d = TreeDrawing(path_tree(10))
    for w, h, kw, msg in [(8, 100, {}, "cannot be drawn"), (100, 100, {"marker": 0.5}, "marker size"),
                          (100, 100, {"budget": 3}, "too small")]:
        with pytest.raises(ViewError, match=msg):
            d.marks(d.overview(), w, h, **kw)
    with pytest.raises(ViewError, match="layout 'spiral'"):
        TreeDrawing(path_tree(10), "spiral")
    with pytest.raises(ViewError, match="3 values for a tree of 10"):
        d.in_preorder([1, 2, 3])


def test_subtree_kind_counts_whole_subtrees():
    t = random_tree(30_000, seed=9)
    d = TreeDrawing(t, "tidy")
    m = d.marks(d.overview(300, 200), 300, 200)
    sizes = np.bincount(np.concatenate([[0], np.ones(0, int)]))
    del sizes
    for g in np.flatnonzero(m.kinds == SUBTREE)[:50]:
        v = int(m.first[g])
        # a subtree mark holds its root's whole subtree
        sub = [v]
        stack = [v]
        while stack:
            u = stack.pop()
            ch = t.children(u).tolist()
            sub += ch
            stack += ch
        assert m.counts[g] == len(sub)
    assert math.isfinite(m.viewport.width)


@pytest.mark.parametrize("layout", ["tidy", "radial"])
def test_opening_a_mark_draws_its_first_level(layout):
    from engine.trees import read_tree
    from pathlib import Path

    xml = Path("/usr/share/mime/packages/freedesktop.org.xml")
    if xml.is_file():
        t = read_tree(xml)
    else:   # the same build: a root of degree 1,000 with 40 leaves under each child
        t = Tree.from_parent(np.array([-1] + sum(([0] + [1 + 41 * c] * 40 for c in range(1000)), [])))
    d = TreeDrawing(t, layout)
    m = d.marks(d.overview(900, 560), 900, 560)
    runs = np.flatnonzero(m.kinds == RUN)
    assert runs.size
    g = int(runs[np.argmax(m.counts[runs])])
    vp = d.opening(m, g)
    assert vp.width <= 0.5 * m.viewport.width + 1e-9
    inner = d.marks(vp, 900, 560)
    # the run's first sibling is drawn in the opened view
    assert int(m.first[g]) in inner.vertices.tolist()


@pytest.mark.parametrize("layout", ["tidy", "radial"])
def test_every_mark_of_a_strided_overview_opens(layout):
    """A strided level (one level in k drawn) gathers cousins, not only siblings, into a run: its
    opening counts the run's vertices on that level (it once stepped sibling to sibling past the
    run's last vertex, out of the tree)."""
    t = random_tree(100_000, seed=3)
    d = TreeDrawing(t, layout)
    m = d.marks(d.overview(548, 520), 548, 520)
    assert m.stride > 1 and m.first.size
    depth = t.depth
    for g in range(m.first.size):
        vp = d.opening(m, g)
        assert vp.width <= 0.5 * m.viewport.width + 1e-9 and vp.height <= 0.5 * m.viewport.height + 1e-9
        if int(m.kinds[g]) == RUN:
            assert depth[int(m.first[g])] == depth[int(m.last[g])]
