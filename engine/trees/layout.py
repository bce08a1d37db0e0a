"""Tidy drawing of a rooted tree: parents centred over their children, no crossings, O(n).

Leaves take consecutive x positions in depth-first order and every parent sits midway between its
first and last child; y is minus the depth. (Reingold–Tilford / Walker / Buchheim compact this
further; this layout keeps their invariants: no crossings, parents centred, subtrees in order.)
"""

from __future__ import annotations

import numpy as np

from engine.trees.model import Tree

__all__ = ["tidy_layout", "preorder"]


def preorder(tree: Tree) -> np.ndarray:
    """Depth-first preorder of the vertices from the root, children in stored order."""
    ptr, idx = tree.children_ptr, tree.children_idx
    out = np.empty(tree.n, np.int64)
    stack = [tree.root]
    k = 0
    while stack:
        v = stack.pop()
        out[k] = v
        k += 1
        stack.extend(idx[ptr[v]:ptr[v + 1]][::-1].tolist())
    return out


def tidy_layout(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """x and y coordinates (float arrays of shape (n,)) of a tidy top-down drawing."""
    n = tree.n
    x = np.zeros(n)
    y = -tree.depth.astype(float)
    ptr, idx = tree.children_ptr, tree.children_idx
    nchild = np.diff(ptr)
    pre = preorder(tree)
    leaf_in_pre = pre[nchild[pre] == 0]
    x[leaf_in_pre] = np.arange(leaf_in_pre.size, dtype=float)
    # internal vertices bottom-up (reverse BFS order), level by level
    order = tree.order
    internal = order[nchild[order] > 0][::-1]
    depth = tree.depth
    if internal.size:
        d = depth[internal]
        # process deepest level first; within one level the children are already placed
        for level in np.unique(d)[::-1]:
            vs = internal[d == level]
            first = idx[ptr[vs]]
            last = idx[ptr[vs + 1] - 1]
            x[vs] = 0.5 * (x[first] + x[last])
    return x, y
