"""Hypothesis strategies for trees of many shapes: random Prüfer sequences, paths, stars, brooms."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from engine.trees.generators import prufer_to_parent
from engine.trees.model import Tree

# printable names: no control, surrogate, unassigned or line/paragraph separator characters
NAME_CHARS = st.characters(blacklist_categories=("Cc", "Cs", "Cn", "Co", "Zl", "Zp"))
NAMES = st.text(NAME_CHARS, min_size=1, max_size=8).map(str.strip).filter(bool)
TAGS = st.from_regex(r"[a-z][a-z0-9_-]{0,6}", fullmatch=True)


@st.composite
def parent_arrays(draw, max_n: int = 40):
    n = draw(st.integers(1, max_n))
    shape = draw(st.sampled_from(["prufer", "prufer", "prufer", "path", "star", "broom"]))
    if n == 1:
        return np.array([-1], np.int64)
    if n == 2:
        return np.array([-1, 0], np.int64)
    if shape == "path":
        p = np.arange(-1, n - 1)
    elif shape == "star":
        p = np.zeros(n, np.int64)
        p[0] = -1
    elif shape == "broom":
        k = draw(st.integers(1, n - 1))
        p = np.concatenate([np.arange(-1, k - 1), np.full(n - k, k - 1)])
    else:
        seq = draw(st.lists(st.integers(0, n - 1), min_size=n - 2, max_size=n - 2))
        p = prufer_to_parent(np.array(seq, np.int64), n)
    perm = np.array(draw(st.permutations(range(n))), np.int64)  # relabel the vertices
    q = np.full(n, -1, np.int64)
    has = p >= 0
    q[perm[np.flatnonzero(has)]] = perm[p[has]]
    return q


@st.composite
def trees(draw, max_n: int = 40, names: bool = True, labels=None):
    """A random tree; ``labels`` is None (none), "tags" (XML-like strings), "ints" or "any"."""
    p = draw(parent_arrays(max_n))
    n = len(p)
    nm = draw(st.lists(NAMES, min_size=n, max_size=n, unique=True)) if names and draw(st.booleans()) else None
    lab = None
    if labels == "tags":
        lab = draw(st.lists(TAGS, min_size=n, max_size=n))
    elif labels == "ints":
        lab = draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    elif labels == "any":
        lab = draw(st.one_of(st.lists(TAGS, min_size=n, max_size=n),
                             st.lists(st.integers(1, 40), min_size=n, max_size=n),
                             st.lists(NAMES, min_size=n, max_size=n)))
    t = Tree.from_parent(p, names=nm, labels=lab)
    root = draw(st.integers(0, n - 1))
    return t.rerooted(root) if root != t.root else t


def same_tree(a: Tree, b: Tree, *, labels: bool = True, root: bool = True, str_labels: bool = False) -> None:
    """Assert ``a`` and ``b`` have the same names, edges between names, labels by name and root."""
    assert sorted(a.names) == sorted(b.names)
    ea = {frozenset(e) for e in a.named_edges()}
    eb = {frozenset(e) for e in b.named_edges()}
    assert ea == eb
    if root:
        assert a.name(a.root) == b.name(b.root)
    if labels:
        conv = (lambda x: None if x is None else str(x)) if str_labels else (lambda x: x)
        la = {a.name(v): conv(a.labels[v]) if a.labels else None for v in range(a.n)}
        lb = {b.name(v): conv(b.labels[v]) if b.labels else None for v in range(b.n)}
        assert la == lb
