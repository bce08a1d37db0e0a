"""The immutable tree model shared by every part of the workbench.

A :class:`Tree` is a rooted, vertex-named tree kept in array form (int64 parent array, breadth-first
order, children in CSR form) so that a 10^6-vertex tree is held comfortably and every traversal is
vectorised. Rooting is a view choice: :meth:`Tree.rerooted` gives the same tree rooted elsewhere.

Validation happens once, in the constructors, with messages that name the culprit (the cycle, a
vertex of each of two components, the self-loop, the duplicate edge).
"""

from __future__ import annotations

from collections import deque
from functools import cached_property
from typing import Iterable, Sequence

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components

from engine.errors import (
    CycleError,
    DisconnectedError,
    DuplicateEdgeError,
    DuplicateNameError,
    EmptyTreeError,
    SelfLoopError,
    UnknownVertexError,
)

__all__ = ["Tree"]


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


class Tree:
    """A rooted tree on vertices ``0..n-1``, each with a display name and an optional label.

    Build one with :meth:`from_edges` (integer edges), :meth:`from_named_edges` (edges between
    names) or :meth:`from_parent` (a parent array); do not call the constructor directly.

    Attributes
    ----------
    n : int
        Number of vertices.
    root : int
        Index of the root.
    parent : ndarray of int64, shape (n,)
        ``parent[v]`` is the parent of ``v``; ``parent[root] == -1``.
    order : ndarray of int64, shape (n,)
        Breadth-first order from the root (parents before children).
    labels : tuple of (str, int or None) or None
        Optional per-vertex labels (for example XML tags, or the integer node labels 1..M of
        hidden tree Markov models).
    positions : ndarray of int64, shape (n,) or None
        Optional positional slot of each vertex among its parent's children (1-based; 0 at the
        root), for positional trees such as those of hidden tree Markov models.

    >>> from engine.trees import Tree
    >>> t = Tree.from_named_edges([("1", "2"), ("1", "3"), ("2", "4"), ("2", "5")])
    >>> t.n, t.name(t.root), [t.name(v) for v in t.leaves]
    (5, '1', ['3', '4', '5'])
    >>> t.index("4"), t.name(int(t.parent[t.index("4")]))
    (3, '2')
    """

    __slots__ = ("n", "root", "parent", "order", "labels", "positions", "_names", "__dict__")

    def __init__(self, parent, order, root, names=None, labels=None, positions=None):
        self.parent = _frozen(np.asarray(parent, dtype=np.int64))
        self.order = _frozen(np.asarray(order, dtype=np.int64))
        self.n = int(self.parent.shape[0])
        self.root = int(root)
        if isinstance(names, np.ndarray):  # one string array (large files): no Python string per vertex
            self._names = _frozen(names)
        else:
            self._names = None if names is None else tuple(names)
        self.labels = None if labels is None else tuple(labels)
        self.positions = None if positions is None else _frozen(np.asarray(positions, np.int64))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_edges(cls, edges, n: int | None = None, *, names: Sequence[str] | None = None,
                   root: int = 0, labels=None, positions=None, unique_names: bool = False) -> "Tree":
        """Validate integer edges on vertices ``0..n-1`` and build the tree rooted at ``root``.

        ``names`` may be a sequence or one NumPy string array (kept as it is);
        ``unique_names=True`` says they are known to be distinct (their check is skipped).

        Raises
        ------
        EmptyTreeError, SelfLoopError, DuplicateEdgeError, CycleError, DisconnectedError
            With a message naming the offending vertices (by name when names are given).
        """
        e = np.asarray(edges, dtype=np.int64).reshape(-1, 2) if len(edges) else np.zeros((0, 2), np.int64)
        if n is None:
            n = len(names) if names is not None else (int(e.max()) + 1 if e.size else 0)
        if n == 0:
            raise EmptyTreeError("the tree is empty: it has no vertices")
        from engine import limits

        limits.check("vertices", n, "the tree's vertices")
        _check_names(names, n, unique_names)
        nm = (lambda v: str(names[v])) if names is not None else (lambda v: str(v))
        if e.size and (e.min() < 0 or e.max() >= n):
            bad = int(e[(e < 0) | (e >= n)][0])
            raise UnknownVertexError(f"edge endpoint {bad} is not a vertex 0..{n - 1}")
        loops = np.flatnonzero(e[:, 0] == e[:, 1])
        if loops.size:
            v = int(e[loops[0], 0])
            raise SelfLoopError(f"edge ({nm(v)}, {nm(v)}) is a self-loop")
        if len(e):
            key = np.minimum(e[:, 0], e[:, 1]) * n + np.maximum(e[:, 0], e[:, 1])
            uniq, first, counts = np.unique(key, return_index=True, return_counts=True)
            if (counts > 1).any():
                k = uniq[np.argmax(counts > 1)]
                u, v = divmod(int(k), n)
                raise DuplicateEdgeError(f"edge ({nm(u)}, {nm(v)}) is given more than once")
        m = len(e)
        adj = coo_matrix((np.ones(m, np.int8), (e[:, 0], e[:, 1])), shape=(n, n)).tocsr()
        ncomp, comp = connected_components(adj, directed=False)
        if m > n - ncomp:
            cyc = _find_cycle(n, e)
            raise CycleError("edge ({}, {}) closes the cycle {}".format(
                nm(cyc[0]), nm(cyc[-1]), "-".join(nm(v) for v in cyc)), [nm(v) for v in cyc])
        if ncomp > 1:
            a = int(np.flatnonzero(comp == comp[root])[0])
            b = int(np.flatnonzero(comp != comp[root])[0])
            raise DisconnectedError(
                f"the graph is not connected: vertex {nm(b)} cannot be reached from vertex {nm(a)} "
                f"({ncomp} components)")
        if not 0 <= root < n:
            raise UnknownVertexError(f"root {root} is not a vertex 0..{n - 1}")
        order, pred = breadth_first_order(adj, root, directed=False, return_predecessors=True)
        parent = pred.astype(np.int64)
        parent[root] = -1
        return cls(parent, order, root, names, labels, positions)

    @classmethod
    def from_named_edges(cls, pairs: Iterable[tuple], *, vertices: Iterable | None = None,
                         root=None, labels: dict | None = None) -> "Tree":
        """Build a tree from edges between names (any hashable, shown with ``str``).

        Vertices are numbered in order of first appearance (``vertices`` first, if given).
        ``root`` is a name (default: the first vertex); ``labels`` maps names to labels.
        """
        index: dict[str, int] = {}
        names: list[str] = []

        def idx(x) -> int:
            s = str(x)
            i = index.get(s)
            if i is None:
                i = index[s] = len(names)
                names.append(s)
            return i

        for v in vertices or ():
            idx(v)
        edges = [(idx(u), idx(v)) for u, v in pairs]
        if not names:
            raise EmptyTreeError("the tree is empty: it has no vertices")
        r = 0
        if root is not None:
            if str(root) not in index:
                raise UnknownVertexError(f"root {root!s} is not a vertex of the tree")
            r = index[str(root)]
        lab = None
        if labels:
            lab = [labels.get(s) for s in names]
        return cls.from_edges(np.asarray(edges, np.int64).reshape(-1, 2), len(names), names=names,
                              root=r, labels=lab)

    @classmethod
    def from_parent(cls, parent, *, names=None, labels=None, positions=None, unique_names: bool = False) -> "Tree":
        """Build a tree from a parent array with exactly one ``-1`` (the root); ``unique_names`` as
        in :meth:`from_edges`."""
        p = np.array(parent, dtype=np.int64)   # a copy: the tree owns it
        if p.ndim != 1:
            raise ValueError(f"a parent array is one row of integers, one per vertex; got shape {p.shape}")
        n = p.size
        if n == 0:
            raise EmptyTreeError("the tree is empty: it has no vertices")
        from engine import limits

        limits.check("vertices", n, "the tree's vertices")
        roots = np.flatnonzero(p < 0)
        if len(roots) != 1:
            raise DisconnectedError(
                f"a parent array needs exactly one root (-1), found {len(roots)}"
                + (f": vertices {roots[0]} and {roots[1]}" if len(roots) > 1 else ""))
        root = int(roots[0])
        if p.max() < n < 2**31:
            # Every vertex but the root has one parent, so this is a tree exactly when a search
            # from the root down the parent -> child arcs reaches all n vertices: cheaper than
            # the general checks of from_edges, which run (and name the problem) otherwise. The
            # children of each vertex in increasing number, as from_edges visits them; int32
            # indices and float64 weights, which the search takes without a copy.
            p[root] = n                                    # sorts last, counted apart
            by = np.argsort(p, kind="stable")[:-1].astype(np.int32)
            count = np.bincount(p, minlength=n + 1)
            ptr = np.zeros(n + 1, np.int32)
            ptr[1:] = np.cumsum(count[:n], out=count[:n])
            del count
            p[root] = -1
            down = csr_matrix((np.ones(n - 1), by, ptr), shape=(n, n))
            del by, ptr
            order = breadth_first_order(down, root, directed=True, return_predecessors=False)
            if len(order) == n:
                _check_names(names, n, unique_names)
                return cls(p, order, root, names, labels, positions)
        p[root] = -1
        child = np.flatnonzero(p >= 0)
        edges = np.stack([p[child], child], axis=1)
        return cls.from_edges(edges, n, names=names, root=root, labels=labels,
                              positions=positions, unique_names=unique_names)

    # ------------------------------------------------------------------ names
    @property
    def names(self) -> tuple[str, ...]:
        """Display names of the vertices (default: ``"0"``, ``"1"``, ...)."""
        if self._names is None:
            self._names = tuple(map(str, range(self.n)))
        if isinstance(self._names, np.ndarray):
            return self._names_tuple
        return self._names

    @cached_property
    def _names_tuple(self) -> tuple[str, ...]:
        return tuple(self._names.tolist())

    @property
    def has_default_names(self) -> bool:
        return self._names is None

    def name(self, v: int) -> str:
        return str(v) if self._names is None else str(self._names[v])

    def name_array(self) -> np.ndarray:
        """The names as one NumPy string array (made once when the names are a tuple)."""
        if isinstance(self._names, np.ndarray):
            return self._names
        return np.array(self.names, dtype=str) if self.n else np.zeros(0, "U1")

    @cached_property
    def _index(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.names)}

    def find(self, name) -> int | None:
        """Index of the vertex called ``name``, or ``None`` when no vertex has that name.

        >>> t = Tree.from_named_edges([("a", "b"), ("a", "c")])
        >>> t.find("c"), t.find("z")
        (2, None)
        """
        return self._index.get(str(name))

    @cached_property
    def content_key(self) -> str:
        """A digest of everything that defines the tree (structure, root, names, labels, slots):
        two trees with the same key are the same tree, so the key can index caches.

        >>> Tree.from_parent([-1, 0, 0]).content_key == Tree.from_parent([-1, 0, 0]).content_key
        True
        """
        import hashlib

        h = hashlib.blake2b(digest_size=16)
        h.update(np.int64(self.n).tobytes())
        h.update(self.parent.tobytes())
        h.update(self.order.tobytes())
        for part in (self._names, self.labels):
            if isinstance(part, np.ndarray):   # every byte (an array's repr elides the middle)
                h.update(b"\x03" + part.dtype.str.encode() + part.tobytes())
            else:
                h.update(b"\x01" if part is None else b"\x02" + repr(part).encode())
        h.update(b"\x01" if self.positions is None else b"\x02" + self.positions.tobytes())
        return h.hexdigest()

    def index(self, name) -> int:
        """Index of the vertex called ``name`` (an ``int`` index is accepted as is)."""
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
            if 0 <= name < self.n:
                return int(name)
            raise UnknownVertexError(f"vertex {name} is not in 0..{self.n - 1}")
        i = self._index.get(str(name))
        if i is None:
            raise UnknownVertexError(f"no vertex is named {name!s}")
        return i

    # ------------------------------------------------------------------ structure
    @cached_property
    def edges(self) -> np.ndarray:
        """Edges as ``(parent, child)`` rows in breadth-first order, shape (n-1, 2), int64."""
        c = self.order[1:]
        return _frozen(np.stack([self.parent[c], c], axis=1))

    @cached_property
    def degree(self) -> np.ndarray:
        d = np.bincount(self.parent[self.parent >= 0], minlength=self.n).astype(np.int64)
        d[np.arange(self.n) != self.root] += 1
        return _frozen(d)

    @cached_property
    def children_ptr(self) -> np.ndarray:
        """CSR pointers: children of ``v`` are ``children_idx[children_ptr[v]:children_ptr[v+1]]``."""
        return self._children_csr[0]

    @cached_property
    def children_idx(self) -> np.ndarray:
        return self._children_csr[1]

    @cached_property
    def _children_csr(self):
        c = self.order[1:]
        counts = np.bincount(self.parent[c], minlength=self.n)
        ptr = np.zeros(self.n + 1, np.int64)
        np.cumsum(counts, out=ptr[1:])
        # children in breadth-first order, or by slot for positional trees
        if self.positions is not None:
            c = c[np.lexsort((self.positions[c], self.parent[c]))]
        else:
            c = c[np.argsort(self.parent[c], kind="stable")]
        return _frozen(ptr), _frozen(c)

    def children(self, v: int) -> np.ndarray:
        return self.children_idx[self.children_ptr[v]:self.children_ptr[v + 1]]

    def neighbors(self, v: int) -> list[int]:
        out = [int(c) for c in self.children(v)]
        if self.parent[v] >= 0:
            out.insert(0, int(self.parent[v]))
        return out

    @cached_property
    def depth(self) -> np.ndarray:
        """Distance from the root, by pointer jumping (O(n log depth), vectorised)."""
        anc = self.parent.copy()
        d = (anc >= 0).astype(np.int64)
        live = np.flatnonzero(anc >= 0)
        while live.size:
            a = anc[live]
            d[live] += d[a]
            anc[live] = anc[a]
            live = live[anc[live] >= 0]
        return _frozen(d)

    @cached_property
    def bfs_rank(self) -> np.ndarray:
        """``bfs_rank[v]``: the breadth-first rank of vertex v, the inverse of :attr:`order`."""
        rank = np.empty(self.n, np.int64)
        rank[self.order] = np.arange(self.n)
        return _frozen(rank)

    @cached_property
    def bfs_parent(self) -> np.ndarray:
        """The tree renumbered once in breadth-first order, for sweeps that read memory in order:
        ``bfs_parent[i]`` is the rank of the parent of the vertex of rank i (``order[i]``), -1 for
        rank 0 (the root). Parents come before children, and the children of a rank are
        contiguous ranks (see :attr:`bfs_children_ptr`)."""
        pr = np.full(self.n, -1, np.int64)
        pr[1:] = self.bfs_rank[self.parent[self.order[1:]]]
        return _frozen(pr)

    @cached_property
    def bfs_children_ptr(self) -> np.ndarray:
        """The children of rank i are ranks ``bfs_children_ptr[i]`` to ``bfs_children_ptr[i+1] - 1``
        (shape (n + 1,)); the edge of rank c >= 1 is row c - 1 of :attr:`edges`."""
        ptr = np.ones(self.n + 1, np.int64)
        np.cumsum(np.bincount(self.bfs_parent[1:], minlength=self.n), out=ptr[1:])
        ptr[1:] += 1
        return _frozen(ptr)

    @cached_property
    def leaves(self) -> np.ndarray:
        """Vertices of degree at most 1 (a single vertex is a leaf)."""
        return _frozen(np.flatnonzero(self.degree <= 1))

    def is_leaf(self, v: int) -> bool:
        return bool(self.degree[v] <= 1)

    def rerooted(self, root) -> "Tree":
        """The same tree rooted at ``root`` (a name or an index)."""
        r = self.index(root)
        if r == self.root:
            return self
        # the tree is valid already: one breadth-first search over the cached adjacency
        order, pred = breadth_first_order(self._adjacency, r, directed=False, return_predecessors=True)
        parent = pred.astype(np.int64)
        parent[r] = -1
        return Tree(parent, order, r, self._names, self.labels)

    @cached_property
    def _adjacency(self):
        e = self.edges
        return coo_matrix((np.ones(len(e), np.int8), (e[:, 0], e[:, 1])), shape=(self.n, self.n)).tocsr()

    def with_names(self, names: Sequence[str]) -> "Tree":
        if len(names) != self.n:
            raise ValueError(f"{len(names)} names given for {self.n} vertices")
        _check_unique_names(names)
        return Tree(self.parent, self.order, self.root, names, self.labels, self.positions)

    def with_labels(self, labels) -> "Tree":
        return Tree(self.parent, self.order, self.root, self._names, labels, self.positions)

    def named_edges(self) -> list[tuple[str, str]]:
        return [(self.name(int(u)), self.name(int(v))) for u, v in self.edges]

    def to_networkx(self):
        """An undirected ``networkx.Graph`` on the vertex names (labels as node attribute)."""
        import networkx as nx

        g = nx.Graph()
        for i, s in enumerate(self.names):
            g.add_node(s, **({"label": self.labels[i]} if self.labels and self.labels[i] is not None else {}))
        g.add_edges_from(self.named_edges())
        return g

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        return f"Tree(n={self.n}, root={self.name(self.root)!r})"

    def __eq__(self, other) -> bool:
        """Same vertex names, same (unrooted) edge set, same labels."""
        if not isinstance(other, Tree) or other.n != self.n:
            return NotImplemented if not isinstance(other, Tree) else False
        if self.names != other.names or (self.labels or None) != (other.labels or None):
            return False
        return _edge_key(self) == _edge_key(other)

    __hash__ = None  # arrays inside; compare with ==


def _edge_key(t: Tree) -> frozenset:
    e = t.edges
    return frozenset(zip(np.minimum(e[:, 0], e[:, 1]).tolist(), np.maximum(e[:, 0], e[:, 1]).tolist()))


def _check_names(names: Sequence[str] | None, n: int, unique_names: bool) -> None:
    """``n`` names (or none), distinct unless ``unique_names`` says they are known to be."""
    if names is None:
        return
    if isinstance(names, np.ndarray) and names.ndim != 1:
        raise ValueError(f"the names must be one per vertex, in one row; got an array of shape {names.shape}")
    if len(names) != n:
        raise ValueError(f"{len(names)} names given for {n} vertices")
    if not unique_names:
        _check_unique_names(names)


def _distinct_by_hash(names: np.ndarray) -> bool:
    """True when the strings of ``names`` (a NumPy str array) are surely distinct: their 64-bit
    polynomial hashes differ. Equal hashes (a repeat, or rarely two names alike by chance) say
    False and the exact sort decides. Eight bytes a name, where sorting copies the names; one pass
    a character, so names longer than 64 characters go to the sort."""
    n = len(names)
    width = names.dtype.itemsize // 4
    if type(names) is not np.ndarray or names.ndim != 1 or not names.flags.c_contiguous or not 0 < width <= 64:
        return False    # a subclass, a table, a view with gaps or long names: the exact sort decides
    chars = names.view(np.uint32).reshape(n, width)
    h = np.zeros(n, np.uint64)
    for j in range(width):
        h *= np.uint64(0x100000001B3)       # FNV-1a's prime; the arithmetic wraps modulo 2^64
        h ^= chars[:, j]
    h.sort()
    return not (h[1:] == h[:-1]).any()


def _check_unique_names(names: Sequence[str]) -> None:
    if isinstance(names, np.ndarray):
        names = names.astype(str, copy=False)
        if _distinct_by_hash(names):
            return
        by = np.argsort(names, kind="stable")
        srt = names[by]
        again = by[1:][srt[1:] == srt[:-1]]   # later occurrences of a name
        if again.size:   # the first repeat in order, as for a list
            raise DuplicateNameError(f"two vertices are named {str(names[again.min()])!r}")
        return
    strs = list(map(str, names))
    if len(set(strs)) == len(strs):
        return
    seen: set[str] = set()
    for s in strs:  # name the first repeat
        if s in seen:
            raise DuplicateNameError(f"two vertices are named {s!r}")
        seen.add(s)


def _find_cycle(n: int, e: np.ndarray) -> list[int]:
    """A cycle of the graph (error path only): union-find, then a path search in the forest."""
    root = list(range(n))

    def find(x: int) -> int:
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    adj: dict[int, list[int]] = {}
    for u, v in e.tolist():
        ru, rv = find(u), find(v)
        if ru == rv:
            # path from u to v among the edges accepted so far
            prev = {u: -1}
            q = deque([u])
            while q:
                x = q.popleft()
                if x == v:
                    break
                for y in adj.get(x, ()):
                    if y not in prev:
                        prev[y] = x
                        q.append(y)
            path = [v]
            while prev[path[-1]] != -1:
                path.append(prev[path[-1]])
            return path[::-1]  # u ... v; the closing edge is (v, u)
        root[ru] = rv
        adj.setdefault(u, []).append(v)
        adj.setdefault(v, []).append(u)
    raise AssertionError("no cycle found")
