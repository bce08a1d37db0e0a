"""Compiled kernels (numba, ``cache=True``) of the greedy matroid algorithm and of swap rounding.

Imported lazily (by :func:`engine.forests.structure.kernels`), so importing the engine neither
imports numba nor compiles anything; the first call compiles (or loads the on-disk cache).
"""

import numpy as np
from engine.jit import kernel

__all__ = ["greedy_min", "merge_bases"]


@kernel
def _find(parent, v):
    r = v
    while parent[r] != r:
        r = parent[r]
    while parent[v] != r:  # path compression
        nxt = parent[v]
        parent[v] = r
        v = nxt
    return r


@kernel
def _scan(order, w, iu, ju, parent, out, k, n, negative_only):
    """Kruskal's scan of ``order``; returns (edges accepted so far, finished?)."""
    for idx in range(order.shape[0]):
        e = order[idx]
        if negative_only and not (w[e] < 0.0):
            return k, True
        a = _find(parent, iu[e])
        b = _find(parent, ju[e])
        if a != b:
            parent[a] = b
            out[k] = e
            k += 1
            if k == n - 1:
                return k, True
    return k, False


@kernel
def greedy_min(w, iu, ju, n, negative_only):
    """Greedy matroid algorithm on the graphic matroid of K_n: the edge ids (sorted) of a
    minimum-weight spanning tree (Kruskal) or, with ``negative_only``, of a minimum-weight forest
    (only edges of negative weight are considered). Ties are broken by edge id.

    Only the ``8 n`` lightest edges are sorted first (a spanning tree of K_n almost always lies
    among them); the rest is sorted only if the scan needs it. Same result as a full sort.
    """
    E = w.shape[0]
    parent = np.arange(n)
    out = np.empty(max(n - 1, 0), dtype=np.int64)
    K = 8 * n
    if K < E:
        thr = np.partition(w, K - 1)[K - 1]
        head = np.flatnonzero(w <= thr)
        order = head[np.argsort(w[head], kind="mergesort")]
        k, done = _scan(order, w, iu, ju, parent, out, 0, n, negative_only)
        if not done:
            rest = np.flatnonzero(w > thr)
            order = rest[np.argsort(w[rest], kind="mergesort")]
            k, done = _scan(order, w, iu, ju, parent, out, k, n, negative_only)
    else:
        order = np.argsort(w, kind="mergesort")
        k, done = _scan(order, w, iu, ju, parent, out, 0, n, negative_only)
    return np.sort(out[:k])


@kernel
def _remove(adj, deg, u, v):
    for k in range(deg[u]):
        if adj[u, k] == v:
            deg[u] -= 1
            adj[u, k] = adj[u, deg[u]]
            return


@kernel
def _add(adj, deg, u, v):
    adj[u, deg[u]] = v
    deg[u] += 1


@kernel
def _set_edge(inX, adj, deg, u, v, present):
    """Put the edge (u, v) in (``present``) or take it out of the tree held as membership matrix
    ``inX`` and adjacency lists ``adj``/``deg``."""
    inX[u, v] = present
    inX[v, u] = present
    for a, b in ((u, v), (v, u)):
        if present:
            _add(adj, deg, a, b)
        else:
            _remove(adj, deg, a, b)


@kernel
def merge_bases(ea, eb, pa, coins, V):
    """Random base exchange (Chekuri, Vondrák, Zenklusen 2010) of two spanning trees of K_V.

    ea, eb : (V-1, 2) edges; pa = weight_a / (weight_a + weight_b); coins : >= V-1 uniforms.
    While A != B: take the first edge i = (a, b) of A (in A's list order) not in B, and the first
    edge j on B's a-b path that crosses the cut of A - i (then A - i + j and B - j + i are both
    trees); with probability pa set B <- B - j + i, else A <- A - i + j. Returns the common tree
    (edges as (min, max) rows) and the number of coins used (= |A \\ B|). Each edge's indicator
    has expectation pa [e in A] + (1 - pa) [e in B].
    """
    A = ea.copy()
    inA = np.zeros((V, V), dtype=np.bool_)
    inB = np.zeros((V, V), dtype=np.bool_)
    adjA = np.empty((V, V), dtype=np.int64)
    adjB = np.empty((V, V), dtype=np.int64)
    degA = np.zeros(V, dtype=np.int64)
    degB = np.zeros(V, dtype=np.int64)
    for k in range(V - 1):
        _set_edge(inA, adjA, degA, ea[k, 0], ea[k, 1], True)
        _set_edge(inB, adjB, degB, eb[k, 0], eb[k, 1], True)
    parB = np.empty(V, dtype=np.int64)
    side = np.zeros(V, dtype=np.int64)
    queue = np.empty(V, dtype=np.int64)
    used = 0
    stamp = 0
    for k in range(V - 1):
        a, b = A[k, 0], A[k, 1]
        if inB[a, b]:
            continue
        # B's path from a to b: BFS tree of B rooted at a
        for v in range(V):
            parB[v] = -2
        parB[a] = -1
        queue[0] = a
        head, tail = 0, 1
        while head < tail:
            u = queue[head]
            head += 1
            if u == b:
                break
            for q in range(degB[u]):
                w = adjB[u, q]
                if parB[w] == -2:
                    parB[w] = u
                    queue[tail] = w
                    tail += 1
        # a's side of A - (a, b)
        stamp += 1
        side[a] = stamp
        queue[0] = a
        head, tail = 0, 1
        while head < tail:
            u = queue[head]
            head += 1
            for q in range(degA[u]):
                w = adjA[u, q]
                if side[w] != stamp and not ((u == a and w == b) or (u == b and w == a)):
                    side[w] = stamp
                    queue[tail] = w
                    tail += 1
        # first edge of the path (walked from b) that crosses the cut
        x = b
        y = parB[b]
        while (side[x] == stamp) == (side[y] == stamp):
            x = y
            y = parB[y]
        coin = coins[used]
        used += 1
        if coin < pa:  # B <- B - (x, y) + (a, b)
            _set_edge(inB, adjB, degB, x, y, False)
            _set_edge(inB, adjB, degB, a, b, True)
        else:  # A <- A - (a, b) + (x, y)
            _set_edge(inA, adjA, degA, a, b, False)
            _set_edge(inA, adjA, degA, x, y, True)
            A[k, 0] = min(x, y)
            A[k, 1] = max(x, y)
    for k in range(V - 1):
        if A[k, 0] > A[k, 1]:
            t = A[k, 0]
            A[k, 0] = A[k, 1]
            A[k, 1] = t
    return A, used


@kernel
def extend_forest(ids, iu, ju, n):
    """A forest (edge ids of K_n) as a spanning tree of K_{n+1}: each component joined to the extra
    vertex n through its smallest vertex. Returns (n, 2) vertex pairs."""
    parent = np.arange(n)
    out = np.empty((n, 2), dtype=np.int64)
    k = 0
    for q in range(ids.shape[0]):
        e = ids[q]
        a = _find(parent, iu[e])
        b = _find(parent, ju[e])
        if a < b:
            parent[b] = a
        else:
            parent[a] = b
        out[k, 0] = iu[e]
        out[k, 1] = ju[e]
        k += 1
    for v in range(n):
        if _find(parent, v) == v:
            out[k, 0] = v
            out[k, 1] = n
            k += 1
    return out
