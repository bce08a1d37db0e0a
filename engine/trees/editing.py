"""Editing a tree: each operation returns a new :class:`Tree` (trees are immutable).

Used by the Tree Studio (click a vertex, then add a child, delete a leaf, rename it, make it the
root, or edit the edge table). Every refusal is an :class:`~engine.errors.EngineError` naming the
vertex and the reason. Vertex indices are kept, except that removing vertex ``v`` moves every
index above ``v`` down by one.
"""

from __future__ import annotations

import numpy as np

from engine.errors import DuplicateNameError, EmptyTreeError, InvalidParameterError, UnknownVertexError
from engine.trees.model import Tree

__all__ = ["add_child", "remove_leaf", "rename", "reroot", "relabel", "fresh_name", "tree_from_edge_rows"]


def fresh_name(tree: Tree) -> str:
    """The smallest ``str(k)``, k >= n, not yet a vertex name."""
    k = tree.n
    taken = set(tree.names) if not tree.has_default_names else ()
    while str(k) in taken:
        k += 1
    return str(k)


def _order_with(tree: Tree, parent: np.ndarray, root: int) -> np.ndarray:
    from engine.trees.generators import tree_from_parent_trusted

    return tree_from_parent_trusted(parent, root).order


def add_child(tree: Tree, v, name: str | None = None, label=None) -> Tree:
    """A new leaf (index n) under ``v``; ``name`` defaults to :func:`fresh_name`."""
    u = tree.index(v)
    new = fresh_name(tree) if name is None else str(name).strip()
    if not new:
        raise InvalidParameterError("a vertex name cannot be empty")
    if name is not None and new in tree._index:
        raise DuplicateNameError(f"a vertex is already named {new!r}")
    parent = np.append(tree.parent, u)
    names = None if tree.has_default_names and new == str(tree.n) else list(tree.names) + [new]
    labels = None
    if tree.labels is not None or label is not None:
        labels = list(tree.labels or [None] * tree.n) + [label]
    positions = None
    if tree.positions is not None:
        used = set(tree.positions[tree.children(u)].tolist())
        slot = 1
        while slot in used:
            slot += 1
        positions = np.append(tree.positions, slot)
    # breadth-first order again: appending the leaf last would leave u's children apart (the
    # sweeps over the breadth-first numbering need every vertex's children contiguous)
    return Tree(parent, _order_with(tree, parent, tree.root), tree.root, names, labels, positions)


def remove_leaf(tree: Tree, v) -> Tree:
    """The tree without leaf ``v``; a root of degree 1 may go too (its child becomes the root)."""
    u = tree.index(v)
    if tree.n == 1:
        raise EmptyTreeError(f"vertex {tree.name(u)} is the only vertex: the tree cannot become empty")
    if tree.degree[u] > 1:
        raise InvalidParameterError(
            f"vertex {tree.name(u)} is not a leaf (it has {int(tree.degree[u])} neighbours); "
            "only leaves can be deleted")
    t = tree
    if u == tree.root:
        t = tree.rerooted(int(tree.children(u)[0]))
    keep = np.arange(t.n) != u
    newid = np.cumsum(keep) - 1
    par = t.parent[keep]
    parent = np.where(par >= 0, newid[np.maximum(par, 0)], -1)
    order = newid[t.order[t.order != u]]
    names = None if t.has_default_names and u == t.n - 1 else [s for i, s in enumerate(t.names) if i != u]
    labels = None if t.labels is None else [x for i, x in enumerate(t.labels) if i != u]
    positions = None if t.positions is None else t.positions[keep]
    return Tree(parent, order, int(newid[t.root]), names, labels, positions)


def rename(tree: Tree, v, name: str) -> Tree:
    """Vertex ``v`` called ``name`` (non-empty, not the name of another vertex)."""
    u = tree.index(v)
    new = str(name).strip()
    if not new:
        raise InvalidParameterError("a vertex name cannot be empty")
    if new == tree.name(u):
        return tree
    if new in tree._index:
        raise DuplicateNameError(f"a vertex is already named {new!r}")
    names = list(tree.names)
    names[u] = new
    return Tree(tree.parent, tree.order, tree.root, names, tree.labels, tree.positions)


def relabel(tree: Tree, v, label) -> Tree:
    """Vertex ``v`` with label ``label`` (``None`` removes it)."""
    u = tree.index(v)
    labels = list(tree.labels or [None] * tree.n)
    labels[u] = label
    return tree.with_labels(None if all(x is None for x in labels) else labels)


def reroot(tree: Tree, v) -> Tree:
    """The same tree rooted at ``v`` (slot positions are dropped: they belong to the old rooting)."""
    return tree.rerooted(v)


def tree_from_edge_rows(rows, *, root=None, labels: dict | None = None) -> Tree:
    """A tree from edited table rows of (u, v) names: blank rows are skipped, blank cells refused.

    ``root`` (a name) is kept when it is still a vertex; every other check is the model's own
    (cycle, self-loop, duplicate edge, not connected), with the culprit named.
    """
    pairs = []
    for i, row in enumerate(rows, 1):
        u, w = (None if x is None else str(x).strip() for x in row)
        if u in (None, "", "nan", "None") and w in (None, "", "nan", "None"):
            continue
        if u in (None, "", "nan", "None") or w in (None, "", "nan", "None"):
            raise InvalidParameterError(f"row {i} of the edge table has an empty endpoint")
        pairs.append((u, w))
    if not pairs:
        raise EmptyTreeError("the edge table is empty: a tree needs at least one edge here")
    names = {x for p in pairs for x in p}
    r = root if root is not None and str(root) in names else None
    try:
        return Tree.from_named_edges(pairs, root=r, labels=labels)
    except UnknownVertexError:
        raise
