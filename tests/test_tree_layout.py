"""The tidy layout against a direct recursive transcription of Buchheim, Jünger and Leipert (2002),
and its drawing invariants (parents centred, rows in order and one unit apart, depth rows)."""

import numpy as np
from hypothesis import given

from engine.trees.generators import complete_tree, path_tree, random_tree, star_of_paths, star_tree
from engine.trees.layout import postorder, preorder, tidy_layout
from tests.buchheim_reference import reference_layout
from tests.tree_strategies import trees


@given(t=trees(max_n=60, names=False))
def test_matches_the_papers_algorithm(t):
    ref = reference_layout([t.children(v).tolist() for v in range(t.n)], t.root)
    x, y = tidy_layout(t)
    np.testing.assert_allclose(x, [ref[v] for v in range(t.n)], rtol=0, atol=1e-9)


@given(t=trees(max_n=80, names=False))
def test_tidy_invariants(t):
    x, y = tidy_layout(t)
    assert np.array_equal(y, -t.depth)
    assert x.min() == 0
    for v in range(t.n):
        kids = t.children(v)
        if kids.size:
            assert abs(x[v] - 0.5 * (x[kids[0]] + x[kids[-1]])) < 1e-9  # centred over its children
            assert np.all(np.diff(x[kids]) >= 1 - 1e-9)                  # children in order
    # on every row, vertices appear left to right in preorder, at least one unit apart: no crossings
    pre = preorder(t)
    for d in np.unique(t.depth):
        row = pre[t.depth[pre] == d]
        assert np.all(np.diff(x[row]) >= 1 - 1e-9)


def test_orders():
    t = complete_tree(7)
    assert preorder(t).tolist() == [0, 1, 3, 4, 2, 5, 6]
    assert postorder(t).tolist() == [3, 4, 1, 5, 6, 2, 0]


def test_known_drawings():
    x, _ = tidy_layout(complete_tree(7))
    assert x.tolist() == [1.5, 0.5, 2.5, 0.0, 1.0, 2.0, 3.0]
    x, _ = tidy_layout(star_tree(5))
    assert x.tolist() == [1.5, 0.0, 1.0, 2.0, 3.0]


def test_huge_and_deep_trees_lay_out_without_recursion():
    x, y = tidy_layout(path_tree(1_000_000))
    assert np.all(x == 0) and y.min() == -999_999
    t = star_of_paths(10, 100_000)
    x, y = tidy_layout(t)
    assert y.min() == -100_000 and np.all(np.diff(np.sort(x[t.depth == 100_000])) >= 1)
    t = random_tree(200_000, seed=1)
    x, _ = tidy_layout(t)
    assert np.isfinite(x).all()
