"""Uniform random spanning trees of the complete graph K_l on the labels.

"Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin Markov Networks"
(Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014), section 3: the score of the complete
output graph is the expectation of the scores of its spanning trees under the uniform
distribution; RTA learns on a small sample of them. A uniformly random Prüfer sequence of length
l-2 over l symbols decodes to a uniformly random labelled tree, i.e. a uniform spanning tree of
K_l (Cayley: there are l^(l-2) of them, in bijection with the sequences).

Each tree is kept in the flat form the inference kernels use (:class:`LabelTrees`): for every tree
``t`` and label ``v`` the parent ``parent[t, v]`` (-1 at the root), a post-order of the labels, and
the children of every label in that post-order (CSR). Edge ``(v, parent[t, v])`` is stored at the
child ``v``: edge scores are an array ``(n_trees, l, 4)`` whose slot ``[t, v, 2*y_v + y_parent]``
scores the labelling of that edge (the root slot is unused and stays zero).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import InvalidParameterError
from engine.limits import check_seed
from engine.trees.generators import prufer_to_parent
from engine.trees.model import Tree
from engine.shapes import dimension

__all__ = ["LabelTrees", "random_spanning_trees", "label_trees_from_parents", "spanning_tree_key"]


@dataclass(frozen=True)
class LabelTrees:
    """A sample of spanning trees on ``n_labels`` labels.

    parent : int64 (n_trees, l), -1 at each tree's root
    post : int64 (n_trees, l), every label after all its children
    child_ptr : int64 (n_trees, l + 1) and child_idx : int64 (n_trees, l), children of label v in
        tree t are ``child_idx[t, child_ptr[t, v]:child_ptr[t, v + 1]]``, in post-order
    degree : int64 (n_trees, l), the number of tree edges at each label
    """

    parent: np.ndarray
    post: np.ndarray
    child_ptr: np.ndarray
    child_idx: np.ndarray
    degree: np.ndarray

    n_trees = dimension("parent", 0, "Number of spanning trees.")
    n_labels = dimension("parent", 1, "Number of labels l.")

    def edges(self, t: int) -> np.ndarray:
        """Edges of tree ``t`` as rows ``(child, parent)``, int64 (l - 1, 2)."""
        v = np.flatnonzero(self.parent[t] >= 0)
        return np.stack([v, self.parent[t, v]], axis=1)

    def tree(self, t: int, names=None) -> Tree:
        """Tree ``t`` as an :class:`engine.trees.Tree` (for drawing)."""
        return Tree.from_parent(self.parent[t], names=names) if names is not None else Tree.from_parent(self.parent[t])

    def edge_counts(self) -> np.ndarray:
        """Symmetric int64 (l, l): how many trees of the sample hold each label pair."""
        l = self.n_labels
        c = np.zeros((l, l), np.int64)
        for t in range(self.n_trees):
            e = self.edges(t)
            np.add.at(c, (e[:, 0], e[:, 1]), 1)
            np.add.at(c, (e[:, 1], e[:, 0]), 1)
        return c


def _structure(parent: np.ndarray, root: int):
    l = parent.size
    children = [[] for _ in range(l)]
    for v in range(l):
        if parent[v] >= 0:
            children[parent[v]].append(v)
    post = []
    stack = [(root, False)]
    while stack:  # iterative DFS post-order
        v, done = stack.pop()
        if done:
            post.append(v)
            continue
        stack.append((v, True))
        for c in reversed(children[v]):
            stack.append((c, False))
    pos = np.empty(l, np.int64)
    pos[np.asarray(post)] = np.arange(l)
    ptr = np.zeros(l + 1, np.int64)
    idx = []
    for v in range(l):
        ch = sorted(children[v], key=lambda c: pos[c])
        idx.extend(ch)
        ptr[v + 1] = ptr[v] + len(ch)
    deg = np.array([len(children[v]) + (parent[v] >= 0) for v in range(l)], np.int64)
    return np.asarray(post, np.int64), ptr, np.asarray(idx + [0] * (l - len(idx)), np.int64), deg


def label_trees_from_parents(parents, *, validate: bool = True) -> LabelTrees:
    """Build :class:`LabelTrees` from parent arrays (each a tree on the same l labels)."""
    parents = np.atleast_2d(np.asarray(parents, np.int64))
    n, l = parents.shape
    post = np.empty((n, l), np.int64)
    ptr = np.empty((n, l + 1), np.int64)
    idx = np.empty((n, l), np.int64)
    deg = np.empty((n, l), np.int64)
    for t in range(n):
        roots = np.flatnonzero(parents[t] < 0)
        if roots.size != 1:
            raise InvalidParameterError(f"tree {t} has {roots.size} roots; expected exactly one")
        if validate:
            Tree.from_parent(parents[t])  # validates: no cycle, connected
        post[t], ptr[t], idx[t], deg[t] = _structure(parents[t], int(roots[0]))
    return LabelTrees(parents, post, ptr, idx, deg)


def random_spanning_trees(n_labels: int, n_trees: int, *, seed=None) -> LabelTrees:
    """``n_trees`` independent uniform spanning trees of K_{n_labels}, each rooted at label 0."""
    if n_labels < 2:
        raise InvalidParameterError(f"spanning trees over the labels need at least 2 labels, got {n_labels}")
    if n_trees < 1:
        raise InvalidParameterError(f"the number of trees must be at least 1, got {n_trees}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(check_seed(seed))
    parents = np.empty((n_trees, n_labels), np.int64)
    seqs = rng.integers(0, n_labels, size=(n_trees, max(n_labels - 2, 0)))
    for t in range(n_trees):
        if n_labels == 2:
            p = np.array([-1, 0], np.int64)
        else:
            p = prufer_to_parent(seqs[t], n_labels)
        parents[t] = _rerooted(p, 0)
    return label_trees_from_parents(parents, validate=False)


def _rerooted(parent: np.ndarray, root: int) -> np.ndarray:
    """The same tree with its edges pointing towards ``root``."""
    l = parent.size
    adj = [[] for _ in range(l)]
    for v in range(l):
        if parent[v] >= 0:
            adj[v].append(int(parent[v]))
            adj[int(parent[v])].append(v)
    out = np.full(l, -1, np.int64)
    seen = [False] * l
    seen[root] = True
    stack = [root]
    while stack:
        u = stack.pop()
        for w in adj[u]:
            if not seen[w]:
                seen[w] = True
                out[w] = u
                stack.append(w)
    return out


def spanning_tree_key(parent: np.ndarray) -> tuple:
    """The edge set of a tree as a sorted tuple of (min, max) pairs (independent of the root)."""
    parent = np.asarray(parent)
    v = np.flatnonzero(parent >= 0)
    return tuple(sorted((int(min(a, b)), int(max(a, b))) for a, b in zip(v, parent[v])))
