"""The K-best inference kernels as they were when the RTA numbers were pinned: the oracle of the
fast kernels in :mod:`engine.multilabel.kbest`.

A best-first heap merges two sorted lists (``_topk_pairs``), every list is computed in full up to
K (``_kbest_tree``) and every labelling is traced back on its own. The fast kernels must return
the same labellings in the same order with the same scores, bit for bit, ties included: the
tests compare them on random trees with many exact ties (``tests/test_multilabel_kbest.py``).
"""

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _topk_pairs(a, na, b, nb, K, out_val, out_ia, out_ib, hv, hi, hj):
    """K best sums a[i] + b[j] of two descending lists; returns how many (<= K).

    Best-first search over the grid of pairs with a binary max-heap (``hv``, ``hi``, ``hj``,
    scratch of length >= K + 1): pair (i, j) enters after (i, j - 1), and (i + 1, 0) after (i, 0),
    so every pair is pushed at most once and the search costs O(K log K)."""
    if na == 0 or nb == 0:
        return 0
    if na == 1 or nb == 1:
        # one list of one entry: the heap would pop the pairs along the other list in order
        k = 0
        while k < K and k < na * nb:
            i = k if nb == 1 else 0
            j = k if na == 1 else 0
            out_val[k] = a[i] + b[j]
            out_ia[k] = i
            out_ib[k] = j
            k += 1
        return k
    size = 1
    hv[0] = a[0] + b[0]
    hi[0] = 0
    hj[0] = 0
    k = 0
    while k < K and size > 0:
        v, i, j = hv[0], hi[0], hj[0]
        out_val[k] = v
        out_ia[k] = i
        out_ib[k] = j
        k += 1
        # pop the root
        size -= 1
        if size > 0:
            _heap_place(hv, hi, hj, 0, size, hv[size], hi[size], hj[size])
        if j + 1 < nb:
            size = _heap_push(hv, hi, hj, size, a[i] + b[j + 1], i, j + 1)
        if j == 0 and i + 1 < na:
            size = _heap_push(hv, hi, hj, size, a[i + 1] + b[0], i + 1, 0)
    return k


@njit(cache=True, inline="always")
def _heap_push(hv, hi, hj, size, v, i, j):
    c = size
    while c > 0:
        p = (c - 1) >> 1
        if hv[p] >= v:
            break
        hv[c], hi[c], hj[c] = hv[p], hi[p], hj[p]
        c = p
    hv[c], hi[c], hj[c] = v, i, j
    return size + 1


@njit(cache=True, inline="always")
def _heap_place(hv, hi, hj, c, size, v, i, j):
    """Sift the entry (v, i, j) down from slot c of a heap of ``size`` entries."""
    while True:
        ch = 2 * c + 1
        if ch >= size:
            break
        if ch + 1 < size and hv[ch + 1] > hv[ch]:
            ch += 1
        if hv[ch] <= v:
            break
        hv[c], hi[c], hj[c] = hv[ch], hi[ch], hj[ch]
        c = ch
    hv[c], hi[c], hj[c] = v, i, j


@njit(cache=True, nogil=True)
def _workspace(l, K):
    """Scratch arrays of one K-best pass on a tree of l labels with lists up to K long."""
    return (np.zeros((l, 2, K)), np.ones((l, 2), np.int64), np.zeros((l, 2, K, 2), np.int64),
            np.zeros((l, 2, K, 2), np.int64), np.empty(2 * K), np.empty(K), np.empty(K, np.int64),
            np.empty(K, np.int64), np.empty(K, np.int64), np.empty(K, np.int64), np.empty(K, np.int64),
            np.empty(l, np.int64), np.empty(l, np.int64), np.empty(l, np.int64),
            np.empty(K + 2), np.empty(K + 2, np.int64), np.empty(K + 2, np.int64))


@njit(cache=True, nogil=True)
def _kbest_tree(S, parent, post, ptr, idx, K, labs, scores, ws):
    """K best labellings of one tree; fills ``labs`` (K, l) uint8 and ``scores`` (K,); returns count.

    ``ws`` is a :func:`_workspace` for at least K."""
    l = parent.shape[0]
    P, cnt, merge_back, msg_back, msg, tmp_val, tmp_a, tmp_b, tmp_p, ry, rr, sv, sy, sr, hv, hi, hj = ws
    for v in range(l):
        P[v, 0, 0] = 0.0
        P[v, 1, 0] = 0.0
        cnt[v, 0] = 1
        cnt[v, 1] = 1
    root = post[l - 1]
    for i in range(l - 1):
        v = post[i]
        p = parent[v]
        for yp in range(2):
            # message v -> p for parent value yp: merge the two lists of v shifted by the edge score
            s0 = S[v, yp]
            s1 = S[v, 2 + yp]
            n0 = cnt[v, 0]
            n1 = cnt[v, 1]
            i0 = 0
            i1 = 0
            mc = 0
            while mc < K and (i0 < n0 or i1 < n1):
                if i1 >= n1 or (i0 < n0 and P[v, 0, i0] + s0 >= P[v, 1, i1] + s1):
                    msg[mc] = P[v, 0, i0] + s0
                    msg_back[v, yp, mc, 0] = 0
                    msg_back[v, yp, mc, 1] = i0
                    i0 += 1
                else:
                    msg[mc] = P[v, 1, i1] + s1
                    msg_back[v, yp, mc, 0] = 1
                    msg_back[v, yp, mc, 1] = i1
                    i1 += 1
                mc += 1
            k = _topk_pairs(P[p, yp], cnt[p, yp], msg, mc, K, tmp_val, tmp_a, tmp_b, hv, hi, hj)
            for r in range(k):
                P[p, yp, r] = tmp_val[r]
                merge_back[v, yp, r, 0] = tmp_a[r]
                merge_back[v, yp, r, 1] = tmp_b[r]
            cnt[p, yp] = k
    # root: merge its two lists
    n0 = cnt[root, 0]
    n1 = cnt[root, 1]
    i0 = 0
    i1 = 0
    out = 0
    while out < K and (i0 < n0 or i1 < n1):
        if i1 >= n1 or (i0 < n0 and P[root, 0, i0] >= P[root, 1, i1]):
            scores[out] = P[root, 0, i0]
            ry[out] = 0
            rr[out] = i0
            i0 += 1
        else:
            scores[out] = P[root, 1, i1]
            ry[out] = 1
            rr[out] = i1
            i1 += 1
        out += 1
    for q in range(out):
        top = 0
        sv[0] = root
        sy[0] = ry[q]
        sr[0] = rr[q]
        top = 1
        while top > 0:
            top -= 1
            v = sv[top]
            y = sy[top]
            r = sr[top]
            labs[q, v] = y
            for j in range(ptr[v + 1] - 1, ptr[v] - 1, -1):
                c = idx[j]
                ra = merge_back[c, y, r, 0]
                rm = merge_back[c, y, r, 1]
                sv[top] = c
                sy[top] = msg_back[c, y, rm, 0]
                sr[top] = msg_back[c, y, rm, 1]
                top += 1
                r = ra
    return out


@njit(cache=True, inline="always")
def _labelling_score(S, parent, y):
    """Average over trees of the tree scores of labelling y."""
    n, l = parent.shape
    tot = 0.0
    for t in range(n):
        for v in range(l):
            p = parent[t, v]
            if p >= 0:
                tot += S[t, v, 2 * y[v] + y[p]]
    return tot / n


@njit(cache=True, nogil=True)
def _ensemble(S, parent, post, ptr, idx, K, exclude, use_exclude, ws):
    """Candidate set, best candidate, best candidate other than ``exclude`` and theta(K)."""
    n, l = parent.shape
    cand = np.empty((n * K, l), np.uint8)
    candT = np.empty((l, n * K), np.uint8)  # the same, label-major, for the vectorised scoring
    labs = np.empty((K, l), np.uint8)
    sc = np.empty(K)
    theta = 0.0
    complete = False
    nc = 0
    for t in range(n):
        c = _kbest_tree(S[t], parent[t], post[t], ptr[t], idx[t], K, labs, sc, ws)
        if c < K:
            complete = True
        else:
            theta += sc[K - 1]
        for q in range(c):
            for v in range(l):
                cand[nc, v] = labs[q, v]
                candT[v, nc] = labs[q, v]
            nc += 1
    theta = -np.inf if complete else theta / n
    # ensemble scores: every candidate's sum runs over (t, v) in the order of _labelling_score
    # (identical rounding), all candidates at once
    cscore = np.zeros(nc)
    for t in range(n):
        for v in range(l):
            p = parent[t, v]
            if p >= 0:
                s0, s1, s2, s3 = S[t, v, 0], S[t, v, 1], S[t, v, 2], S[t, v, 3]
                yv = candT[v]
                yp = candT[p]
                for q in range(nc):
                    if yv[q]:
                        cscore[q] += s3 if yp[q] else s2
                    else:
                        cscore[q] += s1 if yp[q] else s0
    for q in range(nc):
        cscore[q] /= n
    best = -1
    viol = -1
    for q in range(nc):
        if best < 0 or cscore[q] > cscore[best]:
            best = q
        if use_exclude:
            same = True
            for v in range(l):
                if cand[q, v] != exclude[v]:
                    same = False
                    break
            if not same and (viol < 0 or cscore[q] > cscore[viol]):
                viol = q
    return cand[:nc], cscore, best, viol, theta
