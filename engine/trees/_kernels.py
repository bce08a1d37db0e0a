"""Compiled (numba, cached) inner loops of the tree generators and the tidy layout.

Imported lazily by :mod:`engine.trees.generators` and :mod:`engine.trees.layout`, so that importing
the engine (and ``python -m engine --help``) does not load numba. The layout is Buchheim, Jünger and
Leipert (2002), "Improving Walker's algorithm to run in linear time", run iteratively.
"""

from __future__ import annotations

import numpy as np
from engine.jit import kernel

__all__ = ["prufer_decode", "reroot_parent", "depth_first", "preorder_csr", "buchheim", "tidy_x"]


@kernel
def prufer_decode(seq, n):  # pragma: no cover - compiled
    """Linear-time Prüfer decoding (the 'pointer + current leaf' method)."""
    degree = np.ones(n, np.int64)
    for x in seq:
        degree[x] += 1
    parent = np.full(n, -1, np.int64)
    ptr = 0
    while degree[ptr] != 1:
        ptr += 1
    leaf = ptr
    for x in seq:
        parent[leaf] = x
        degree[x] -= 1
        if degree[x] == 1 and x < ptr:
            leaf = x
        else:
            ptr += 1
            while degree[ptr] != 1:
                ptr += 1
            leaf = ptr
    parent[leaf] = n - 1
    return parent


@kernel
def reroot_parent(parent, r):  # pragma: no cover - compiled
    """Reverse the parent pointers on the path from ``r`` to the old root (in place)."""
    prev = -1
    v = r
    while v != -1:
        nxt = parent[v]
        parent[v] = prev
        prev = v
        v = nxt
    return parent


@kernel
def depth_first(ptr, idx, root):  # pragma: no cover - compiled
    """Preorder and postorder of one depth-first walk from ``root``, children in stored order."""
    n = ptr.shape[0] - 1
    pre = np.empty(n, np.int64)
    post = np.empty(n, np.int64)
    stack = np.empty(n, np.int64)
    nxt = ptr[:-1].copy()  # the next child of each vertex to visit
    top = 0
    stack[0] = root
    pre[0] = root
    i = 1
    k = 0
    while top >= 0:
        v = stack[top]
        if nxt[v] < ptr[v + 1]:
            c = idx[nxt[v]]
            nxt[v] += 1
            top += 1
            stack[top] = c
            pre[i] = c
            i += 1
        else:
            post[k] = v
            k += 1
            top -= 1
    return pre, post


@kernel
def buchheim(ptr, idx, parent, order, post):  # pragma: no cover - compiled
    n = parent.shape[0]
    # sibling number (1-based) of each vertex
    number = np.zeros(n, np.int64)
    for v in range(n):
        for j in range(ptr[v], ptr[v + 1]):
            number[idx[j]] = j - ptr[v] + 1
    prelim = np.zeros(n)
    mod = np.zeros(n)
    shift = np.zeros(n)
    change = np.zeros(n)
    thread = np.full(n, -1, np.int64)
    ancestor = np.arange(n)
    default_anc = np.full(n, -1, np.int64)  # per parent, while its children are walked
    for v in post:
        p = parent[v]
        nc = ptr[v + 1] - ptr[v]
        left = -1
        if p >= 0 and number[v] > 1:
            left = idx[ptr[p] + number[v] - 2]
        if nc == 0:
            prelim[v] = prelim[left] + 1.0 if left >= 0 else 0.0
        else:
            # execute shifts
            s = 0.0
            c = 0.0
            for j in range(ptr[v + 1] - 1, ptr[v] - 1, -1):
                w = idx[j]
                prelim[w] += s
                mod[w] += s
                c += change[w]
                s += shift[w] + c
            first = idx[ptr[v]]
            last = idx[ptr[v + 1] - 1]
            mid = 0.5 * (prelim[first] + prelim[last])
            if left >= 0:
                prelim[v] = prelim[left] + 1.0
                mod[v] = prelim[v] - mid
            else:
                prelim[v] = mid
        if p < 0:
            continue
        # apportion v against its left siblings' subtrees
        da = default_anc[p]
        if da < 0:
            da = idx[ptr[p]]
        if left >= 0:
            vip = v
            vop = v
            vim = left
            vom = idx[ptr[p]]
            sip = mod[vip]
            sop = mod[vop]
            sim = mod[vim]
            som = mod[vom]
            while True:
                # next right of vim, next left of vip
                nr = idx[ptr[vim + 1] - 1] if ptr[vim + 1] > ptr[vim] else thread[vim]
                nl = idx[ptr[vip]] if ptr[vip + 1] > ptr[vip] else thread[vip]
                if nr < 0 or nl < 0:
                    break
                vim = nr
                vip = nl
                vom = idx[ptr[vom]] if ptr[vom + 1] > ptr[vom] else thread[vom]
                vop = idx[ptr[vop + 1] - 1] if ptr[vop + 1] > ptr[vop] else thread[vop]
                ancestor[vop] = v
                sh = (prelim[vim] + sim) - (prelim[vip] + sip) + 1.0
                if sh > 0:
                    a = ancestor[vim]
                    if parent[a] != p:
                        a = da
                    subtrees = number[v] - number[a]
                    change[v] -= sh / subtrees
                    shift[v] += sh
                    change[a] += sh / subtrees
                    prelim[v] += sh
                    mod[v] += sh
                    sip += sh
                    sop += sh
                sim += mod[vim]
                sip += mod[vip]
                som += mod[vom]
                sop += mod[vop]
            nr = idx[ptr[vim + 1] - 1] if ptr[vim + 1] > ptr[vim] else thread[vim]
            if nr >= 0:
                nr_op = idx[ptr[vop + 1] - 1] if ptr[vop + 1] > ptr[vop] else thread[vop]
                if nr_op < 0:
                    thread[vop] = nr
                    mod[vop] += sim - sop
            nl = idx[ptr[vip]] if ptr[vip + 1] > ptr[vip] else thread[vip]
            if nl >= 0:
                nl_om = idx[ptr[vom]] if ptr[vom + 1] > ptr[vom] else thread[vom]
                if nl_om < 0:
                    thread[vom] = nl
                    mod[vom] += sip - som
                    da = v
        default_anc[p] = da
    # second walk, parents before children
    x = np.empty(n)
    msum = np.zeros(n)
    for v in order:
        p = parent[v]
        if p >= 0:
            msum[v] = msum[p] + mod[p]
        x[v] = prelim[v] + msum[v]
    return x


@kernel
def preorder_csr(ptr, idx, root):  # pragma: no cover - compiled
    """The tree renumbered in preorder (for memory locality): preorder, new ptr, idx, parent."""
    n = ptr.shape[0] - 1
    pre = depth_first(ptr, idx, root)[0]
    rank = np.empty(n, np.int64)
    for i in range(n):
        rank[pre[i]] = i
    nptr = np.empty(n + 1, np.int64)
    nidx = np.empty(idx.shape[0], np.int64)
    npar = np.empty(n, np.int64)
    npar[0] = -1
    k = 0
    for i in range(n):
        v = pre[i]
        nptr[i] = k
        for j in range(ptr[v], ptr[v + 1]):
            c = rank[idx[j]]
            nidx[k] = c
            npar[c] = i
            k += 1
    nptr[n] = k
    return pre, nptr, nidx, npar


@kernel
def tidy_x(ptr, idx, root):  # pragma: no cover - compiled
    pre, nptr, nidx, npar = preorder_csr(ptr, idx, root)
    n = pre.shape[0]
    post = depth_first(nptr, nidx, 0)[1]
    # in preorder numbering, 0..n-1 lists parents before children: the second walk's order
    xp = buchheim(nptr, nidx, npar, np.arange(n), post)
    x = np.empty(n)
    lo = xp.min()
    for i in range(n):
        x[pre[i]] = xp[i] - lo
    return x
