"""The optimal (2,s)-hierarchical cover of a tree and its decomposition tree D.

"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale), section 2
(Definitions 1-5), section 3 (Figure 1, Theorem 6) and the rake-only variant of section 4.

The tree T is rooted at a **leaf** s. Round t works on the contracted tree T_t (T_0 = the interior
vertices of T plus s). A vertex of T_t other than s is *mergeable* when it is a leaf of T_t, or has
exactly one child in T_t and that child is not mergeable (so mergeability is computed bottom-up,
children first). A mergeable leaf v is *raked* into its T_t-parent p: the new component
``[p / z]`` = p plus the whole T-subtree below z, the child of p towards v (boundary {p}). A
mergeable single-child vertex v is *compressed*: the new component is the maximal subtree with
p (its T_t-parent) and c (its T_t-child) among its leaves (boundary {p, c}) and c is re-attached
to p. The loop ends when only s is left; the last component formed is T itself.

Every component S^v formed in round t has a decomposition of height exactly t + 1, so the height
of the cover is the number of rounds R (Theorem 6: it is the minimum over all (2,s)-covers).

Array API (stable; the online sum-product model builds on it)
--------------------------------------------------------------
D has ``m = (number of interior vertices of T) + (n - 1)`` nodes, numbered **bottom-up**: the
n - 1 edge nodes first (0 .. n-2, in breadth-first order from s), then one node per interior
vertex in the order the vertices were merged (round by round). Hence ``parent[z] > z`` for every
non-root node, a loop ``for z in range(m)`` visits children before parents, and the root is
``m - 1``. See :class:`HierarchicalCover` for every array.

Roots that are not leaves are refused with :class:`~engine.errors.InvalidParameterError` naming
the vertex and a leaf to use instead (no dummy vertex is added: the cover is of T itself). A tree
with one vertex has no edge and no cover (the paper assumes at least one edge).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.cover import _kernels as K
from engine.cover._kernels import COMPRESS, EDGE, LOWER, RAKE, ROOT, UPPER
from engine.errors import EmptyTreeError, InvalidParameterError
from engine.trees.model import Tree

__all__ = [
    "EDGE",
    "RAKE",
    "COMPRESS",
    "ROOT",
    "UPPER",
    "LOWER",
    "KIND_NAMES",
    "HierarchicalCover",
    "RoundTrace",
    "optimal_cover",
    "rake_only_cover",
    "cover_root",
    "default_root",
    "heights_by_root",
]

#: Names of the kind codes of D's nodes (``HierarchicalCover.kind``: EDGE, RAKE, COMPRESS, ROOT).
KIND_NAMES = ("edge", "rake", "compress", "root")


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class RoundTrace:
    """The contracted tree T_t of round t, for teaching (Figure 1).

    Attributes
    ----------
    t : int
        The round (0 .. R; T_R is the single vertex s).
    vertices : ndarray of int64, shape (k,)
        The vertices of T_t, in breadth-first order from s.
    parent : ndarray of int64, shape (k,)
        Parent in T_t of each of ``vertices`` (-1 for s). An edge (v, parent) that is not an edge
        of T is one of the dashed edges of Figure 1.
    mergeable : ndarray of bool, shape (k,)
        Membership in M_t (drawn black in Figure 1); these vertices leave T_t in round t.
    """

    t: int
    vertices: np.ndarray
    parent: np.ndarray
    mergeable: np.ndarray


@dataclass(frozen=True, eq=False)
class HierarchicalCover:
    """A hierarchical cover of ``tree`` and its decomposition tree D, as flat int64 arrays.

    D's nodes are numbered bottom-up (children before parents, root ``m - 1``): first the
    ``n - 1`` edge nodes, then the interior vertices in merge order. Node ``z`` names the
    component S^z of T.

    Attributes
    ----------
    tree : Tree
        The tree T the cover was built from (any rooting; ``s`` below is the cover's root).
    s : int
        The leaf of T at which the cover is rooted.
    rake_only : bool
        True for the rake-only variant of section 4.
    parent : ndarray (m,)
        Parent of each node in D; -1 at the root.
    kind : ndarray (m,)
        ``EDGE`` (atomic component, a leaf of D), ``RAKE`` (boundary {p}), ``COMPRESS`` (between
        p and c), ``ROOT`` (the component T itself, formed in the last round). In a tree with two
        vertices the only node is the edge, of kind ``EDGE``, and it is D's root.
    ends : ndarray (m, 2)
        The tree positions of the component: for an edge node (its T-parent towards s, its
        child); for a compress node (p, c): its T_t-parent end first, then its T_t-child end;
        for a rake node (p, -1); for the root (-1, -1).
    boundary : ndarray (m, 2)
        The boundary ∂_T(S^z) (Definition in section 2), in the same columns as ``ends``: column
        0 is the end towards s, column 1 the end away from s, -1 where that end is not a boundary
        vertex. An end is not on the boundary exactly when it is a leaf of T: the leaf end of a
        pendant edge, and s itself (so a compress component whose parent end is s, like S^2 of
        Figure 1, has the single boundary vertex c). The root's boundary is empty.
    round : ndarray (m,)
        The round t in which the component was formed; -1 for edges (formed at initialisation).
        Component S^z has height ``round[z] + 1`` in D.
    split_vertex : ndarray (m,)
        The splitting vertex of an internal node (the merged vertex v of S^v); -1 for edges.
    edge_child : ndarray (m,)
        For an edge node, its endpoint away from s (each vertex u != s has exactly one edge to
        its parent, so u names the edge); -1 for internal nodes.
    up_child : ndarray (m,)
        For an internal node v, the child of v in D lying on the T_t-edge from v towards s (it
        contains v's T_t-parent; for the root it contains s); -1 for edges.
    down_child : ndarray (m,)
        For a compress node, the child of v in D lying on the T_t-edge from v to c (it contains c);
        -1 otherwise. Every other child of an internal node v is a component with boundary {v}
        hanging below v (a rake or a pendant edge).
    children_ptr : ndarray (m + 1,), children_idx : ndarray (m - 1,)
        Children in CSR form: the children of z are ``children_idx[children_ptr[z]:children_ptr[z+1]]``
        (in increasing id order).
    depth : ndarray (m,)
        Depth in D (root 0).
    node_height : ndarray (m,)
        Height of the subtree of D below each node (0 for edges).
    leaf_lo, leaf_hi : ndarray (m,)
        The edges below node z are ``leaf_order[leaf_lo[z]:leaf_hi[z]]`` (D's leaves in
        depth-first order), so vertex sets come on demand in O(size) without O(n height) memory.
    leaf_order : ndarray (n - 1,)
        Edge nodes in the depth-first order of D.
    vertex_node : ndarray (n,)
        D node S^v of each interior vertex v; -1 for the leaves of T (use ``edge_node``).
    edge_node : ndarray (n,)
        D node of the edge from u to its parent towards s, for each u != s; -1 at s.
    vertex_round : ndarray (n,)
        The round in which each vertex left T_t: the round of S^v for interior v, R for s
        (s never leaves), -1 for the other leaves of T (never in T_0).
    height : int
        Height of D (the height of the cover).
    rounds : int
        Number of rounds R (T_R = {s}); equals ``height`` except in a two-vertex tree (both 0).
    """

    tree: Tree
    s: int
    rake_only: bool
    parent: np.ndarray
    kind: np.ndarray
    ends: np.ndarray
    boundary: np.ndarray
    round: np.ndarray
    split_vertex: np.ndarray
    edge_child: np.ndarray
    up_child: np.ndarray
    down_child: np.ndarray
    children_ptr: np.ndarray
    children_idx: np.ndarray
    depth: np.ndarray
    node_height: np.ndarray
    leaf_lo: np.ndarray
    leaf_hi: np.ndarray
    leaf_order: np.ndarray
    vertex_node: np.ndarray
    edge_node: np.ndarray
    vertex_round: np.ndarray
    height: int
    rounds: int
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ sizes and names
    @property
    def n(self) -> int:
        return self.tree.n

    @property
    def m(self) -> int:
        """Number of nodes of D."""
        return int(self.parent.shape[0])

    @property
    def root(self) -> int:
        """D's root node (``m - 1``): the component T."""
        return self.m - 1

    @property
    def s_parent(self) -> np.ndarray:
        """Parent array of T rooted at s (the orientation used by ``ends`` and ``edge_node``)."""
        if "s_parent" not in self._cache:
            p = np.full(self.n, -1, np.int64)
            e = self.kind == EDGE
            p[self.ends[e, LOWER]] = self.ends[e, UPPER]
            self._cache["s_parent"] = _frozen(p)
        return self._cache["s_parent"]

    def node_name(self, z: int) -> str:
        """The splitting vertex's name for an internal node, ``"u|v"`` (parent|child) for an edge."""
        if self.kind[z] == EDGE:
            return f"{self.tree.name(int(self.ends[z, UPPER]))}|{self.tree.name(int(self.ends[z, LOWER]))}"
        return self.tree.name(int(self.split_vertex[z]))

    def node_names(self) -> tuple[str, ...]:
        """:meth:`node_name` of every node (computed once)."""
        if "names" not in self._cache:
            self._cache["names"] = tuple(self.node_name(z) for z in range(self.m))
        return self._cache["names"]

    def kind_name(self, z: int) -> str:
        return KIND_NAMES[int(self.kind[z])]

    def children(self, z: int) -> np.ndarray:
        return self.children_idx[self.children_ptr[z]:self.children_ptr[z + 1]]

    def node_of_vertex(self, v: int) -> int:
        """S^v for an interior vertex; for a leaf of T, the node of its only edge."""
        z = int(self.vertex_node[v])
        if z >= 0:
            return z
        if v == self.s:
            return int(self.edge_node[self.tree.neighbors(v)[0]])
        return int(self.edge_node[v])

    def ancestors(self, z: int) -> np.ndarray:
        """The chain z, parent(z), ..., root in D."""
        out = [int(z)]
        while self.parent[out[-1]] >= 0:
            out.append(int(self.parent[out[-1]]))
        return np.asarray(out, np.int64)

    # ------------------------------------------------------------------ components on demand
    def edges_of(self, z: int) -> np.ndarray:
        """The edges of S^z as (parent, child) rows (oriented from s), shape (k, 2)."""
        leaves = self.leaf_order[self.leaf_lo[z]:self.leaf_hi[z]]
        return self.ends[leaves]

    def vertices_of(self, z: int) -> np.ndarray:
        """The vertices of S^z, sorted (O(size of S^z); nothing is stored per component)."""
        return np.unique(self.edges_of(z))

    def boundary_of(self, z: int) -> list[int]:
        """∂_T(S^z) as a list (end towards s first)."""
        return [int(b) for b in self.boundary[z] if b >= 0]

    def subtree(self, z: int) -> np.ndarray:
        """The nodes of D below z, z included (the cover of S^z), in depth-first order."""
        out, stack = [], [int(z)]
        while stack:
            u = stack.pop()
            out.append(u)
            stack.extend(self.children(u)[::-1].tolist())
        return np.asarray(out, np.int64)

    def edge_owner(self, t: int) -> np.ndarray:
        """For each edge node (ids 0..n-2), the largest component formed before round t that
        contains it (the edge itself at t = 0). These are the components present at round t."""
        owner = np.arange(self.n - 1, dtype=np.int64)
        while True:
            par = self.parent[owner]
            ok = (par >= 0) & (self.round[np.maximum(par, 0)] < t)
            if not ok.any():
                return owner
            owner = np.where(ok, par, owner)

    def node_size(self) -> np.ndarray:
        """Number of edges of each component, shape (m,)."""
        return self.leaf_hi - self.leaf_lo

    # ------------------------------------------------------------------ the per-round trace
    def trace(self, t: int) -> RoundTrace:
        """T_t and M_t for round ``t`` in 0..R (computed on demand from ``vertex_round``)."""
        if not 0 <= t <= self.rounds:
            raise InvalidParameterError(f"round {t} is outside 0..{self.rounds}")
        order = self._s_order
        vr = self.vertex_round
        alive = vr >= t
        # the T_t-parent of v is its nearest proper T-ancestor still alive at round t
        p = self.s_parent.copy()
        todo = np.flatnonzero((p >= 0) & alive)
        while todo.size:
            q = p[todo]
            dead = ~alive[q]
            todo = todo[dead]
            p[todo] = self.s_parent[p[todo]]
        verts = order[alive[order]]
        return RoundTrace(t=t, vertices=verts, parent=p[verts] if verts.size else verts,
                          mergeable=(vr[verts] == t) & (verts != self.s))

    @property
    def _s_order(self) -> np.ndarray:
        if "s_order" not in self._cache:
            self._cache["s_order"] = _frozen(_bfs_from(self.tree, self.s)[1])
        return self._cache["s_order"]

    # ------------------------------------------------------------------ export
    def to_dict(self, *, vertices: bool = False) -> dict:
        """The JSON object of ``python -m engine cover``: ``n``, ``root``, ``height``, ``rounds`` and
        ``components`` (one object per node of D, bottom-up; ``vertices`` adds their vertex names)."""
        names = self.node_names()
        tn = self.tree.names
        comps = []
        for z in range(self.m):
            p = int(self.parent[z])
            c = {"id": names[z], "parent": names[p] if p >= 0 else None,
                 "kind": KIND_NAMES[int(self.kind[z])],
                 "boundary": [tn[b] for b in self.boundary[z] if b >= 0],
                 "round": int(self.round[z])}
            if vertices:
                c["vertices"] = [tn[v] for v in self.vertices_of(z)]
            comps.append(c)
        return {"n": self.n, "root": self.tree.name(self.s), "height": int(self.height),
                "rounds": int(self.rounds), "components": comps}

    def to_tree(self) -> Tree:
        """D as a :class:`Tree` (rooted at its root, vertex names from :meth:`node_names`)."""
        if "d_tree" not in self._cache:
            self._cache["d_tree"] = Tree.from_parent(self.parent, names=self._unique_name_array())
        return self._cache["d_tree"]

    def _unique_name_array(self) -> np.ndarray:
        """:meth:`node_names` as one string array, a repeated name numbered ``name#1``, ``name#2``
        in node order (as :func:`_unique`), built with array operations (a Python loop over 1.6
        million nodes took six seconds)."""
        names = np.asarray(self.tree.name_array(), dtype=str)
        edge = np.asarray(self.kind) == EDGE
        ends = np.asarray(self.ends, np.int64)
        pairs = np.strings.add(np.strings.add(names[ends[edge, UPPER]], "|"), names[ends[edge, LOWER]])
        out = np.empty(self.m, dtype=pairs.dtype if pairs.size and pairs.dtype.itemsize > names.dtype.itemsize
                       else names.dtype)
        out[~edge] = names[np.asarray(self.split_vertex, np.int64)[~edge]]
        out[edge] = pairs
        order = np.argsort(out, kind="stable")
        ranked = out[order]
        start = np.r_[True, ranked[1:] != ranked[:-1]]
        rank = np.arange(self.m) - np.maximum.accumulate(np.where(start, np.arange(self.m), 0))
        again = rank > 0
        if again.any():
            out = np.strings.add(out, "")   # room for the suffixes
            marked = np.strings.add(np.strings.add(out[order[again]], "#"), rank[again].astype(str))
            out = out.astype(marked.dtype if marked.dtype.itemsize > out.dtype.itemsize else out.dtype)
            out[order[again]] = marked
        return out


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for s in names:
        if s in seen:
            seen[s] += 1
            s = f"{s}#{seen[s]}"
        else:
            seen[s] = 0
        out.append(s)
    return out


# ---------------------------------------------------------------------- root choice

def default_root(tree: Tree) -> int:
    """The tree's own root when it is a leaf, else the leaf with the smallest index."""
    if tree.n < 2:
        raise EmptyTreeError("a hierarchical cover needs a tree with at least one edge")
    if tree.degree[tree.root] == 1:
        return int(tree.root)
    return int(tree.leaves[0])


def cover_root(tree: Tree, root=None) -> int:
    """Resolve ``root`` (a name, an index or None) to a leaf of ``tree``, with clear errors."""
    if tree.n < 2:
        raise EmptyTreeError("a hierarchical cover needs a tree with at least one edge; "
                             f"this tree has {tree.n} vertex")
    if root is None:
        return default_root(tree)
    s = tree.index(root)
    if tree.degree[s] != 1:
        raise InvalidParameterError(
            f"root {tree.name(s)} is not a leaf (degree {int(tree.degree[s])}): a (2,s)-cover is "
            f"rooted at a leaf s; leaves include {', '.join(tree.name(int(v)) for v in tree.leaves[:3])}")
    return s


# ---------------------------------------------------------------------- building (kernels in _kernels.py)

def _bfs_from(tree: Tree, s: int):
    """Parent array of T rooted at s and a breadth-first order from s (O(n), compiled)."""
    if s == tree.root:
        return np.asarray(tree.parent, np.int64), np.asarray(tree.order, np.int64)
    return K.bfs_kernel(tree.parent, tree.children_ptr, tree.children_idx, np.int64(s))


def _build(tree: Tree, root, rake_only: bool) -> HierarchicalCover:
    s = cover_root(tree, root)
    if tree.n >= 2**30:  # the kernel's working state is int32 (D has fewer than 2n nodes)
        raise InvalidParameterError(f"a tree of {tree.n} vertices is too large for the cover "
                                    "kernel (at most 2^30 - 1)")
    sp, order = _bfs_from(tree, s)
    sp = np.ascontiguousarray(sp, np.int64)
    order = np.ascontiguousarray(order, np.int64)
    # Work on vertices renumbered in breadth-first order from s (vertex k = order[k]): the rounds
    # then sweep memory sequentially, which keeps 10^6-vertex trees in cache-friendly territory.
    bsp = K.relabel_in(sp, order)
    bord = np.arange(tree.n, dtype=np.int64)
    n = tree.n
    m = (n - 1) + int(np.count_nonzero(np.asarray(tree.degree) >= 2))
    d = K.new_d_arrays(n, m)
    if rake_only == "simulate":  # the round-by-round loop with leaves only (a test oracle, O(n R))
        rounds = K.optimal_kernel(bsp, bord, np.int64(0), True, d, np.full(m, -1, np.int32))
    elif rake_only:
        rounds = K.rake_only_kernel(bsp, bord, np.int64(0), d)
    else:
        rounds = K.optimal_kernel(bsp, bord, np.int64(0), False, d, np.full(m, -1, np.int32))
    vnode, enode, vround = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64)
    K.relabel_out(order, d, vnode, enode, vround)
    depth, nh, ptr, idx, lo, hi, lorder = K.d_structure(
        d.parent, np.zeros(m, np.int64), np.zeros(m + 2, np.int64),
        np.empty(max(m - 1, 0), np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64),
        np.zeros(m, np.int64))
    boundary = K.boundary_kernel(d.ends.copy(), np.asarray(tree.degree, np.int64))
    return HierarchicalCover(
        tree=tree, s=int(s), rake_only=bool(rake_only), parent=_frozen(d.parent), kind=_frozen(d.kind),
        ends=_frozen(d.ends), boundary=_frozen(boundary), round=_frozen(d.round),
        split_vertex=_frozen(d.split), edge_child=_frozen(d.edge_child), up_child=_frozen(d.up_child),
        down_child=_frozen(d.down_child), children_ptr=_frozen(ptr), children_idx=_frozen(idx),
        depth=_frozen(depth), node_height=_frozen(nh), leaf_lo=_frozen(lo), leaf_hi=_frozen(hi),
        leaf_order=_frozen(lorder), vertex_node=_frozen(vnode), edge_node=_frozen(enode),
        vertex_round=_frozen(vround), height=int(nh[-1]), rounds=int(rounds))


def optimal_cover(tree: Tree, root=None) -> HierarchicalCover:
    """The optimal (2,s)-hierarchical cover of ``tree`` rooted at the leaf ``root`` (Figure 1).

    Parameters
    ----------
    tree : Tree
        Any tree with at least one edge (its own rooting is ignored).
    root : str or int or None
        The leaf s (a name or an index). Default: :func:`default_root`.

    Returns
    -------
    HierarchicalCover
        Height ``chi^2_s(T)`` (Theorem 6), built in O(n) time and memory.

    Raises
    ------
    InvalidParameterError
        When ``root`` is not a leaf. ``EmptyTreeError`` for a single vertex.

    Examples
    --------
    >>> from engine.trees import generate
    >>> cover = optimal_cover(generate("path", 1024))  # a path halves every round
    >>> cover.height, cover.m
    (10, 2045)
    >>> optimal_cover(generate("star-of-paths", 10_001)).height  # grows like log log n
    8
    """
    return _build(tree, root, False)


def rake_only_cover(tree: Tree, root=None) -> HierarchicalCover:
    """The rake-only cover of section 4: only leaves of T_t are merged; height <= diameter.

    Its compress-free structure gives only atomic two-boundary components, so the online
    sum-product update is quadratic rather than cubic in the number of labels.
    """
    return _build(tree, root, True)


def heights_by_root(tree: Tree, *, rake_only: bool = False, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """The cover height for every leaf as root s: ``(leaves, heights)``, int64 arrays.

    O(n) per leaf, so O(n * leaves) in all; ``progress(fraction, message)`` is called as it goes
    (raise from it to cancel, as in the run protocol).
    """
    if tree.n < 2:
        raise EmptyTreeError("a hierarchical cover needs a tree with at least one edge")
    leaves = np.asarray(tree.leaves, np.int64)
    heights = np.empty(leaves.size, np.int64)
    step = max(1, leaves.size // 100)
    for i, s in enumerate(leaves.tolist()):
        heights[i] = _build(tree, s, rake_only).height
        if progress is not None and (i % step == 0 or i == leaves.size - 1):
            progress((i + 1) / leaves.size, f"root {tree.name(s)}: height {heights[i]} "
                                            f"({i + 1}/{leaves.size} leaves)")
    return leaves, heights
