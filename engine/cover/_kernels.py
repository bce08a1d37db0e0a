"""The compiled kernels behind :mod:`engine.cover.hierarchical` (numba, ``cache=True``, compiled on
first use, never at import).

"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale), Figure 1 (the rounds of
the optimal (2,s)-cover) and the rake-only variant of section 4. The kernels work on a tree given
by its parent array rooted at s and a breadth-first order from s, and fill the raw arrays of the
decomposition tree D, bundled as :class:`DArrays` (allocated by NumPy in :func:`new_d_arrays`, then
filled in place). Column and kind codes are named here (:data:`UPPER`, :data:`LOWER`,
:data:`EDGE` ...), never written as bare numbers.

Nothing here validates its input: :func:`engine.cover.optimal_cover` does, once.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.jit import kernel
import numpy as np

__all__ = ["EDGE", "RAKE", "COMPRESS", "ROOT", "UPPER", "LOWER", "DArrays", "new_d_arrays", "bfs_kernel",
           "optimal_kernel", "rake_only_kernel", "d_structure", "relabel_in", "relabel_out", "boundary_kernel"]

#: Kind codes of D's nodes (``HierarchicalCover.kind``).
EDGE, RAKE, COMPRESS, ROOT = 0, 1, 2, 3
#: Columns of ``ends`` and ``boundary``: the end towards s, and the end away from s.
UPPER, LOWER = 0, 1


class DArrays(NamedTuple):
    """The raw arrays of D that the round kernels fill (int64; ``m`` nodes, ``n`` vertices).

    parent (m,), kind (m,), ends (m, 2), round (m,), split (m,), edge_child (m,), up_child (m,),
    down_child (m,): as the attributes of ``HierarchicalCover`` with the same names (``split`` is
    ``split_vertex``); vertex_node (n,), edge_node (n,), vertex_round (n,): likewise, per vertex.
    """

    parent: np.ndarray
    kind: np.ndarray
    ends: np.ndarray
    round: np.ndarray
    split: np.ndarray
    edge_child: np.ndarray
    up_child: np.ndarray
    down_child: np.ndarray
    vertex_node: np.ndarray
    edge_node: np.ndarray
    vertex_round: np.ndarray


def new_d_arrays(n: int, m: int) -> DArrays:
    """Fresh D arrays for ``n`` vertices and ``m`` nodes (-1 everywhere, kind ``EDGE``).

    Allocated by NumPy rather than inside a kernel: NumPy asks for transparent huge pages on large
    arrays (``madvise``), numba's allocator does not; at 10^6 vertices the build touches about
    300 MB of fresh memory, and faulting it in 4 KB pages cost more than the rounds themselves
    (82,000 minor faults per build of a 10^6 path, against none at 10^5 where the freed memory is
    reused; see ``benchmarks/bench_cover.py``).
    """
    def minus_one(size):
        return np.full(size, -1, np.int64)

    return DArrays(parent=minus_one(m), kind=np.full(m, EDGE, np.int64), ends=minus_one((m, 2)),
                   round=minus_one(m), split=minus_one(m), edge_child=minus_one(m), up_child=minus_one(m),
                   down_child=minus_one(m), vertex_node=minus_one(n), edge_node=minus_one(n),
                   vertex_round=minus_one(n))


@kernel
def bfs_kernel(parent, cptr, cidx, s):  # pragma: no cover - compiled
    """Parent array of T rooted at ``s`` and a breadth-first order from ``s``."""
    n = parent.shape[0]
    sp = np.full(n, -1, np.int64)
    order = np.empty(n, np.int64)
    seen = np.zeros(n, np.bool_)
    order[0] = s
    seen[s] = True
    head, tail = 0, 1
    while head < tail:
        u = order[head]
        head += 1
        q = parent[u]
        if q >= 0 and not seen[q]:
            seen[q] = True
            sp[q] = u
            order[tail] = q
            tail += 1
        for k in range(cptr[u], cptr[u + 1]):
            c = cidx[k]
            if not seen[c]:
                seen[c] = True
                sp[c] = u
                order[tail] = c
                tail += 1
    return sp, order


@kernel
def _degrees(sp):  # pragma: no cover - compiled
    """Degree of every vertex of T, from its parent array."""
    deg = np.zeros(sp.shape[0], np.int64)
    for u in range(sp.shape[0]):
        if sp[u] >= 0:
            deg[u] += 1
            deg[sp[u]] += 1
    return deg


@kernel
def _fill_edge_nodes(sp, order, d):  # pragma: no cover - compiled
    """The n - 1 edge nodes of D, breadth-first from s: node k - 1 is the edge above ``order[k]``."""
    for k in range(1, sp.shape[0]):
        u = order[k]
        z = k - 1
        d.edge_node[u] = z
        d.ends[z, UPPER] = sp[u]
        d.ends[z, LOWER] = u
        d.edge_child[z] = u


@kernel
def optimal_kernel(sp, order, s, rake_only, d, hang_next):  # pragma: no cover - compiled
    """Figure 1 (or the rake-only variant, round by round): fills ``d`` and returns the number of
    rounds. ``hang_next`` (int32, size m) is scratch: the lists of components hanging below a vertex.

    The state of T_t is kept in arrays indexed by position in the list of surviving vertices
    (breadth-first order, s first), compacted after every round, so that each round sweeps
    contiguous memory of size |T_t| (the total is O(n): a round removes at least a quarter).
    The working state is int32 (half the memory traffic of int64; n < 2^30 keeps every vertex
    position and D node id in range); the D arrays are int64.
    """
    n = sp.shape[0]
    deg = _degrees(sp)
    _fill_edge_nodes(sp, order, d)
    # T_0 in compact form: position i holds vertex vid[i]; tp = position of the T_t-parent,
    # ec = D node on the edge to the parent, hh = head of the list of components hanging below
    pos = np.full(n, -1, np.int32)
    na = 0
    for k in range(n):
        u = order[k]
        if u == s or deg[u] >= 2:
            pos[u] = na
            na += 1
    vid = np.empty(na, np.int32)
    tp = np.full(na, -1, np.int32)
    ec = np.full(na, -1, np.int32)
    hh = np.full(na, -1, np.int32)
    for k in range(n):
        u = order[k]
        i = pos[u]
        if i >= 0:
            vid[i] = u
            if u != s:
                tp[i] = pos[sp[u]]
                ec[i] = d.edge_node[u]
        elif u != s:  # a pendant edge hangs at its parent (s's own edge is ec of its child)
            z = d.edge_node[u]
            q = pos[sp[u]]
            hang_next[z] = hh[q]
            hh[q] = z
    nch = np.zeros(na, np.int32)
    onech = np.full(na, -1, np.int32)
    merg = np.zeros(na, np.bool_)
    newpos = np.empty(na, np.int32)
    nxt = n - 1
    t = 0
    while na > 1:
        for i in range(na):
            nch[i] = 0
        for i in range(1, na):
            nch[tp[i]] += 1
            onech[tp[i]] = i
        merg[0] = False  # s
        for i in range(na - 1, 0, -1):
            if nch[i] == 0:
                merg[i] = True
            elif nch[i] == 1 and not rake_only:
                merg[i] = not merg[onech[i]]
            else:
                merg[i] = False
        for i in range(1, na):
            if not merg[i]:
                continue
            v = vid[i]
            z = nxt
            nxt += 1
            d.split[z] = v
            d.round[z] = t
            d.vertex_node[v] = z
            d.vertex_round[v] = t
            q = tp[i]
            d.parent[ec[i]] = z
            d.up_child[z] = ec[i]
            h = hh[i]
            while h >= 0:
                d.parent[h] = z
                h = hang_next[h]
            if nch[i] == 0:
                if q == 0:
                    d.kind[z] = ROOT
                else:
                    d.kind[z] = RAKE
                    d.ends[z, UPPER] = vid[q]
                    hang_next[z] = hh[q]
                    hh[q] = z
            else:
                c = onech[i]
                d.kind[z] = COMPRESS
                d.ends[z, UPPER] = vid[q]
                d.ends[z, LOWER] = vid[c]
                d.parent[ec[c]] = z
                d.down_child[z] = ec[c]
                ec[c] = z
                tp[c] = q  # re-attached to the grandparent (not mergeable: it survives)
        # compact the survivors (order kept, so parents still come before children)
        # in one pass: a parent's position precedes its children's, so newpos[tp[i]] is known
        w = 0
        for i in range(na):
            if not merg[i]:
                newpos[i] = w
                vid[w] = vid[i]
                tp[w] = newpos[tp[i]] if i > 0 else -1
                ec[w] = ec[i]
                hh[w] = hh[i]
                w += 1
        na = w
        t += 1
    d.vertex_round[s] = t
    return t


@kernel
def rake_only_kernel(sp, order, s, d):  # pragma: no cover - compiled
    """Rake-only variant in O(n): a vertex leaves in round = its height in T_0 (leaves of T_0: 0).
    Fills ``d`` and returns the number of rounds."""
    n = sp.shape[0]
    deg = _degrees(sp)
    h = np.full(n, -1, np.int64)
    for k in range(n - 1, 0, -1):
        v = order[k]
        if deg[v] >= 2:
            if h[v] < 0:
                h[v] = 0
            p = sp[v]
            if p != s and h[v] + 1 > h[p]:
                h[p] = h[v] + 1
    rounds = 0
    for u in range(n):
        if deg[u] >= 2 and h[u] + 1 > rounds:
            rounds = h[u] + 1
    _fill_edge_nodes(sp, order, d)
    # interior vertices by round, breadth-first within a round (counting sort)
    start = np.zeros(rounds + 1, np.int64)
    for u in range(n):
        if deg[u] >= 2:
            start[h[u] + 1] += 1
    for r in range(rounds):
        start[r + 1] += start[r]
    for k in range(n):
        v = order[k]
        if deg[v] >= 2:
            z = (n - 1) + start[h[v]]
            start[h[v]] += 1
            d.vertex_node[v] = z
            d.vertex_round[v] = h[v]
            d.split[z] = v
            d.round[z] = h[v]
            d.up_child[z] = d.edge_node[v]
            d.parent[d.edge_node[v]] = z
            p = sp[v]
            if p == s:
                d.kind[z] = ROOT
            else:
                d.kind[z] = RAKE
                d.ends[z, UPPER] = p
    for k in range(1, n):
        u = order[k]
        p = sp[u]
        if deg[u] >= 2 and p != s:
            d.parent[d.vertex_node[u]] = d.vertex_node[p]
        elif deg[u] == 1 and p != s:
            d.parent[d.edge_node[u]] = d.vertex_node[p]
    d.vertex_round[s] = rounds
    return rounds


@kernel
def d_structure(dpar, depth, ptr, idx, height, lo, hi):  # pragma: no cover - compiled
    """Depth, subtree height, children CSR and depth-first leaf ranges of D (ids are bottom-up).

    The caller passes zeroed arrays (``ptr`` of size m + 2, ``idx`` of size max(m - 1, 0)).
    """
    m = dpar.shape[0]
    for z in range(m - 2, -1, -1):
        depth[z] = depth[dpar[z]] + 1
    # children counts -> CSR (children of each node in increasing id order). Counts go to
    # ptr[p + 2] and the fill pointer is ptr[p + 1] itself, so no separate fill array is needed.
    for z in range(m):
        p = dpar[z]
        if p >= 0:
            ptr[p + 2] += 1
    for z in range(1, m + 1):
        ptr[z + 1] += ptr[z]
    for z in range(m):
        p = dpar[z]
        if p >= 0:
            idx[ptr[p + 1]] = z
            ptr[p + 1] += 1
    ptr = ptr[:m + 1]
    # hi: first the number of leaves below z, then lo[z] + that number
    for z in range(m):
        if ptr[z + 1] == ptr[z]:
            hi[z] += 1
        p = dpar[z]
        if p >= 0:
            if height[z] + 1 > height[p]:
                height[p] = height[z] + 1
            hi[p] += hi[z]
    # leaf ranges, top-down (a parent has a larger id than its children, so when z is reached
    # hi[c] of its children still holds their leaf counts)
    lo[m - 1] = 0
    for z in range(m - 1, -1, -1):
        start = lo[z]
        for k in range(ptr[z], ptr[z + 1]):
            c = idx[k]
            lo[c] = start
            start += hi[c]
        hi[z] = lo[z] + hi[z]
    nl = 0
    for z in range(m):
        if ptr[z + 1] == ptr[z]:
            nl += 1
    order = np.empty(nl, np.int64)
    for z in range(m):
        if ptr[z + 1] == ptr[z]:
            order[lo[z]] = z
    return depth, height, ptr, idx, lo, hi, order


@kernel
def relabel_in(sp, order):  # pragma: no cover - compiled
    """The parent array ``sp`` with every vertex renamed by its position in ``order``."""
    n = sp.shape[0]
    pos = np.empty(n, np.int64)
    for k in range(n):
        pos[order[k]] = k
    out = np.empty(n, np.int64)
    for k in range(n):
        p = sp[order[k]]
        out[k] = pos[p] if p >= 0 else -1
    return out


@kernel
def relabel_out(order, d, vn, en, vr):  # pragma: no cover - compiled
    """Map vertex ids (values in ends/split/edge_child, in place; indices of the per-vertex arrays,
    into ``vn``, ``en``, ``vr``) back to T's."""
    m = d.ends.shape[0]
    n = order.shape[0]
    for z in range(m):
        for j in range(2):
            if d.ends[z, j] >= 0:
                d.ends[z, j] = order[d.ends[z, j]]
        if d.split[z] >= 0:
            d.split[z] = order[d.split[z]]
        if d.edge_child[z] >= 0:
            d.edge_child[z] = order[d.edge_child[z]]
    for k in range(n):
        vn[order[k]] = d.vertex_node[k]
        en[order[k]] = d.edge_node[k]
        vr[order[k]] = d.vertex_round[k]


@kernel
def boundary_kernel(b, deg):  # pragma: no cover - compiled
    """∂_T of each component, in place on a copy of ``ends``: its ends, less the leaves of T."""
    for z in range(b.shape[0]):
        for j in range(2):
            if b[z, j] >= 0 and deg[b[z, j]] < 2:
                b[z, j] = -1
    return b
