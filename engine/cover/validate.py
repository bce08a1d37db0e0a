"""Checks of hierarchical covers ("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale,
section 2: Definitions 1, 2, 4 and 5).

A component is a subtree of T, held here as a bitmask of its vertices (a Python int: bit v is
vertex v), since a subtree is the subgraph induced by its vertex set. The checks are written for
clarity, not speed: they are meant for trees of up to a few hundred vertices (tests, an
interactive check), and cost O(m^2) for the pairwise condition.

* :func:`collection_violations` checks any collection of subtrees against Definition 1
  (1. T is in it; 2. every component with a nonempty interior splits at one of its interior
  vertices x into the pieces Omega(S, x), all in the collection; 3. two components are nested or
  share at most one vertex) and, optionally, exposure <= k and the (2,s) orientation.
* :func:`cover_violations` checks a :class:`~engine.cover.HierarchicalCover`: the collection of
  its components, plus that D is exactly the splitting process (Definition 2: the children of
  node v are Omega(S^v, v)), that its stored boundary, kind, round, depth and heights are right.

Both return a list of human-readable problems (empty when valid).
"""

from __future__ import annotations

from typing import Iterable


from engine.cover.hierarchical import COMPRESS, EDGE, RAKE, ROOT, HierarchicalCover
from engine.trees.model import Tree

__all__ = [
    "TreeMasks",
    "collection_violations",
    "cover_violations",
]


class TreeMasks:
    """Bitmask helpers for a small tree T rooted at ``s`` (used by the checks and brute force)."""

    def __init__(self, tree: Tree, s: int | None = None):
        self.tree = tree
        self.n = tree.n
        self.full = (1 << self.n) - 1
        self.nbr = [0] * self.n
        for u, v in tree.edges.tolist():
            self.nbr[u] |= 1 << v
            self.nbr[v] |= 1 << u
        self.s = s
        if s is not None:
            from engine.cover.hierarchical import _bfs_from

            sp, order = _bfs_from(tree, s)
            self.sp = sp.tolist()
            self.s_depth = [0] * self.n
            for v in order[1:].tolist():
                self.s_depth[v] = self.s_depth[self.sp[v]] + 1

    @staticmethod
    def bits(mask: int) -> list[int]:
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out

    def mask(self, vertices: Iterable[int]) -> int:
        m = 0
        for v in vertices:
            m |= 1 << int(v)
        return m

    def degree_in(self, v: int, mask: int) -> int:
        return (self.nbr[v] & mask).bit_count()

    def interior(self, mask: int) -> list[int]:
        """S° = vertices of S whose degree in S is not 1."""
        return [v for v in self.bits(mask) if self.degree_in(v, mask) != 1]

    def boundary(self, mask: int) -> list[int]:
        """∂_T(S) = vertices of S with a T-neighbour outside S."""
        return [v for v in self.bits(mask) if self.nbr[v] & ~mask & self.full]

    def component_of(self, start: int, mask: int) -> int:
        """The connected component of ``start`` in the subgraph induced by ``mask``."""
        comp = frontier = 1 << start
        while frontier:
            grow = 0
            for v in self.bits(frontier):
                grow |= self.nbr[v]
            frontier = grow & mask & ~comp
            comp |= frontier
        return comp

    def is_subtree(self, mask: int) -> bool:
        """Nonempty and connected (every induced subgraph of a tree is then a tree)."""
        return mask != 0 and self.component_of((mask & -mask).bit_length() - 1, mask) == mask

    def split(self, mask: int, x: int) -> list[int]:
        """Omega(S, x): one piece per neighbour y of x in S, x plus y's side of S - x."""
        rest = mask & ~(1 << x)
        return [self.component_of(y, rest) | (1 << x) for y in self.bits(self.nbr[x] & mask)]

    def is_oriented(self, mask: int) -> bool:
        """Is S = [w / v] (Definition 5): the maximal subtree with w and v among its leaves, for
        some proper descendant v of w (with respect to s)?

        Equivalently (proof in the module tests): the vertex w of S nearest s has degree 1 in S,
        and every other vertex of S has all its T-neighbours in S except at most one vertex v,
        which is a leaf of S. (Boundary-one subtrees w + T-subtree of one child are the case with
        no exception.) T itself is not of this form and is accepted separately by the callers.
        """
        vs = self.bits(mask)
        w = min(vs, key=lambda v: self.s_depth[v])
        if self.degree_in(w, mask) != 1:
            return False
        exceptions = 0
        for u in vs:
            if u != w and self.nbr[u] & ~mask & self.full:
                if self.degree_in(u, mask) != 1:
                    return False
                exceptions += 1
        return exceptions <= 1


def collection_violations(tree: Tree, components: Iterable, *, exposure: int | None = None,
                          s: int | None = None, limit: int = 20) -> list[str]:
    """Problems of a collection of subtrees with respect to Definition 1 (empty list: valid).

    Parameters
    ----------
    components : iterable of vertex collections or int bitmasks
    exposure : int, optional
        Also require max |∂_T(S)| <= exposure (a k-hierarchical cover, Definition 4).
    s : int, optional
        Also require the (2,s) orientation of Definition 5 for every S != T.
    """
    tm = TreeMasks(tree, s)
    nm = tree.name
    masks = [c if isinstance(c, int) else tm.mask(c) for c in components]
    out: list[str] = []

    def fmt(mask):
        return "{" + ",".join(nm(v) for v in tm.bits(mask)) + "}"

    cset = set(masks)
    if tm.full not in cset:
        out.append("condition 1: T itself is not in the collection")
    for S in masks:
        if not tm.is_subtree(S) or S & (S - 1) == 0:
            out.append(f"{fmt(S)} is not a subtree with an edge")
            continue
        inner = tm.interior(S)
        if inner and not any(all(p in cset for p in tm.split(S, x)) for x in inner):
            out.append(f"condition 2: {fmt(S)} splits at none of its interior vertices "
                       f"{{{','.join(nm(x) for x in inner)}}} into members of the collection")
        if exposure is not None and len(tm.boundary(S)) > exposure:
            out.append(f"exposure: {fmt(S)} has boundary {fmt(tm.mask(tm.boundary(S)))} "
                       f"of size > {exposure}")
        if s is not None and S != tm.full and not tm.is_oriented(S):
            out.append(f"(2,s) orientation: {fmt(S)} is not [w / v] for an ancestor w of v "
                       f"(s = {nm(s)})")
        if len(out) >= limit:
            return out
    uniq = sorted(cset)
    for i, A in enumerate(uniq):
        for B in uniq[i + 1:]:
            inter = A & B
            if inter != A and inter != B and inter & (inter - 1):
                out.append(f"condition 3: {fmt(A)} and {fmt(B)} are not nested and share "
                           f"{inter.bit_count()} vertices")
                if len(out) >= limit:
                    return out
    return out


def cover_violations(cover: HierarchicalCover, *, oriented: bool = True,
                     limit: int = 20) -> list[str]:
    """Everything that is wrong with ``cover`` (empty list: a valid (2,s)-cover with its D).

    Checks Definition 1 and exposure <= 2 on the components, the (2,s) orientation when
    ``oriented``, and that D is the splitting process (Definition 2): the children of each
    internal node v are exactly Omega(S^v, v), the leaves are the edges of T, each once.
    Also checks the stored boundary (column 0 towards s), kinds, rounds, heights and maps.
    """
    tree = cover.tree
    tm = TreeMasks(tree, cover.s)
    nm = tree.name
    out: list[str] = []
    m = cover.m
    masks = [tm.mask(cover.vertices_of(z)) for z in range(m)]

    def bad(msg):
        out.append(msg)
        return len(out) >= limit

    if m != tree.n - 1 + int((tree.degree >= 2).sum()):
        if bad(f"D has {m} nodes, expected {tree.n - 1} edges + interior vertices"):
            return out
    if masks[cover.root] != tm.full:
        if bad("the root of D is not the whole tree"):
            return out
    # D is the splitting process
    seen_edges = set()
    for z in range(m):
        kids = cover.children(z).tolist()
        if cover.kind[z] == EDGE:
            u, v = (int(x) for x in cover.ends[z])
            if kids or tm.nbr[u] >> v & 1 == 0 or tm.sp[v] != u:
                if bad(f"edge node {cover.node_name(z)} is not a leaf of D on an edge (parent, child)"):
                    return out
            seen_edges.add((u, v))
            if cover.edge_node[v] != z or cover.round[z] != -1:
                if bad(f"edge node {cover.node_name(z)}: edge_node/round mismatch"):
                    return out
        else:
            x = int(cover.split_vertex[z])
            if cover.vertex_node[x] != z:
                if bad(f"vertex_node[{nm(x)}] != {z}"):
                    return out
            if x not in tm.interior(masks[z]) or tm.degree_in(x, masks[z]) < 2:
                if bad(f"S^{nm(x)}: {nm(x)} is not an interior vertex of its component"):
                    return out
            if sorted(tm.split(masks[z], x)) != sorted(masks[c] for c in kids):
                if bad(f"S^{nm(x)}: its children in D are not Omega(S^{nm(x)}, {nm(x)})"):
                    return out
            if cover.node_height[z] != cover.round[z] + 1:
                if bad(f"S^{nm(x)} formed in round {cover.round[z]} has height {cover.node_height[z]}"):
                    return out
            if cover.up_child[z] not in kids or (cover.kind[z] == COMPRESS) != (cover.down_child[z] >= 0):
                if bad(f"S^{nm(x)}: up/down child wrong"):
                    return out
        # stored boundary, columns ordered towards s first
        b = tm.boundary(masks[z])
        got = [int(v) for v in cover.boundary[z] if v >= 0]
        if sorted(got) != sorted(b):
            if bad(f"{cover.node_name(z)}: stored boundary {got} != ∂_T = {b}"):
                return out
        if any(b >= 0 and b != e for b, e in zip(cover.boundary[z].tolist(), cover.ends[z].tolist())):
            if bad(f"{cover.node_name(z)}: boundary columns do not match its ends"):
                return out
        if len(got) == 2 and tm.s_depth[got[0]] >= tm.s_depth[got[1]]:
            if bad(f"{cover.node_name(z)}: boundary not ordered towards s first"):
                return out
        k = int(cover.kind[z])
        expect = (ROOT if z == cover.root and cover.m > 1 else
                  EDGE if masks[z].bit_count() == 2 else None)
        if expect is not None and k != expect:
            if bad(f"{cover.node_name(z)}: kind {k}, expected {expect}"):
                return out
        if k == RAKE and len(b) != 1:
            if bad(f"rake {cover.node_name(z)} has boundary of size {len(b)}"):
                return out
        p = int(cover.parent[z])
        if p >= 0 and (p <= z or cover.depth[z] != cover.depth[p] + 1):
            if bad(f"{cover.node_name(z)}: not bottom-up numbered or wrong depth"):
                return out
    if len(seen_edges) != tree.n - 1:
        bad(f"D has {len(seen_edges)} distinct edge leaves, T has {tree.n - 1} edges")
    if cover.height != int(cover.depth.max()) or cover.height != int(cover.node_height[cover.root]):
        bad(f"height {cover.height} is not the height of D")
    if len(set(masks)) != m:
        bad("two nodes of D name the same component (Lemma 3)")
    out += collection_violations(tree, masks, exposure=2, s=cover.s if oriented else None,
                                 limit=limit - len(out))
    return out[:limit]
