"""Tidy drawing of a rooted tree: Walker's algorithm in the linear-time form of Buchheim, Jünger and
Leipert (2002, "Improving Walker's algorithm to run in linear time").

Every vertex sits on the row of its depth; a parent is centred over its first and last child;
the order of children is kept, neighbouring vertices of a row are at least one unit apart, so
edges never cross; identical subtrees are drawn identically, and small subtrees between large ones
are spaced out evenly. Both walks are iterative (explicit postorder and breadth-first order) and
compiled with numba (in :mod:`engine.trees._kernels`): 10^6-vertex paths and 10^5-deep trees lay
out without recursion, in O(n) time (``benchmarks/tree_layout.py`` prints the timings).
"""

from __future__ import annotations

import numpy as np

from engine.trees.model import Tree

__all__ = ["tidy_layout", "preorder", "postorder"]


def preorder(tree: Tree) -> np.ndarray:
    """Depth-first preorder of the vertices from the root, children in stored order."""
    from engine.trees import _kernels as kernels  # numba loads on first use, not with the engine

    return kernels.depth_first(tree.children_ptr, tree.children_idx, tree.root)[0]


def postorder(tree: Tree) -> np.ndarray:
    """Depth-first postorder (children in stored order, each before its parent)."""
    from engine.trees import _kernels as kernels  # numba loads on first use, not with the engine

    return kernels.depth_first(tree.children_ptr, tree.children_idx, tree.root)[1]


def tidy_layout(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """x and y coordinates (float arrays of shape (n,)) of a tidy top-down drawing.

    y is minus the depth; x starts at 0 and neighbours on a row are at least 1 apart.
    """
    from engine.trees import _kernels as kernels  # numba loads on first use, not with the engine

    x = kernels.tidy_x(tree.children_ptr, tree.children_idx, tree.root)
    return x, -tree.depth.astype(float)

