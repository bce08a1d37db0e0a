"""Summary numbers of a tree: leaves, diameter, radius, degrees (two BFS passes, O(n))."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy.sparse.csgraph import breadth_first_order

from engine.trees.model import Tree

__all__ = ["TreeInfo", "tree_info", "diameter_path"]


@dataclass(frozen=True)
class TreeInfo:
    n: int
    edges: int
    leaves: int
    diameter: int
    radius: int
    max_degree: int
    root: str

    def to_dict(self) -> dict:
        return asdict(self)


def diameter_path(tree: Tree) -> np.ndarray:
    """The vertices of a longest path (a diameter), from one end to the other.

    Two breadth-first searches: the last vertex a search reaches is a farthest one, and a vertex
    farthest from any vertex ends a diameter. The first search is the tree's own order."""
    if tree.n == 1:
        return np.array([0], np.int64)
    a = int(tree.order[-1])
    order, pred = breadth_first_order(tree._adjacency, a, directed=False, return_predecessors=True)
    v = int(order[-1])
    path = [v]
    while v != a:
        v = int(pred[v])
        path.append(v)
    return np.asarray(path, np.int64)


def tree_info(tree: Tree) -> TreeInfo:
    d = len(diameter_path(tree)) - 1
    return TreeInfo(n=tree.n, edges=tree.n - 1, leaves=int(tree.leaves.size), diameter=d,
                    radius=(d + 1) // 2, max_degree=int(tree.degree.max()) if tree.n > 1 else 0,
                    root=tree.name(tree.root))
