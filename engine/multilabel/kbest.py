"""K-best max-sum inference on one spanning tree and over an ensemble of trees, with the
certificate of exactness of Lemma 7.

"Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin Markov Networks"
(Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014), section 4.1 and supplementary Algorithm 1. On one tree, a max-sum
dynamic programme in post-order keeps, for every label v and value y_v, the K best scores of
labellings of the subtree below v (matrix ``P_v``); a child's list is turned into a message to
its parent (the K best over the child's value and rank, for each parent value) and merged into
the parent's list (the K best sums of two sorted lists, by a best-first heap search
over the pairs (i, j)). Back-pointers trace the K best labellings of the whole tree.

Over an ensemble of n trees the score is the average F(y) = (1/n) sum_t F_t(y). The candidate set
is the union of the trees' K-best lists; the threshold theta(K) = (1/n) sum_t F_t(y_{t,K}) averages
the K-th best score of every tree. Lemma 7: if the best candidate scores at least theta(K), it is
the exact maximiser over all 2^l labellings, since any labelling outside the candidate set scores
at most the K-th best in every tree. The same argument with the true multilabel taken out of the
candidate set certifies the worst violator used in training (a labelling outside the set still
scores at most theta). A tree whose list is complete (fewer than K labellings exist) makes the
certificate hold trivially (its K-th score is -inf).

Edge scores are an array ``(n_trees, l, 4)``: slot ``[t, v, 2*y_v + y_parent(v)]`` scores edge
``(v, parent[t, v])`` of tree t; the root's slot is ignored (see :mod:`engine.multilabel.spanning_trees`).
Comparisons are exact (no tolerance): rounding can only make the certificate decline a case that
is exact by a margin of the order of 1e-16 relative, never claim one falsely by more than that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from engine.errors import InvalidParameterError
from engine.multilabel.spanning_trees import LabelTrees

__all__ = ["TreeKBest", "EnsembleInference", "kbest_tree", "ensemble_inference", "certified_inference",
           "ensemble_scores", "brute_force_scores"]


@njit(cache=True, inline="always")
def _topk_pairs(a, na, b, nb, K, out_val, out_ia, out_ib, hv, hi, hj, cur, col):
    """K best sums a[i] + b[j] of two descending lists; returns how many (<= K).

    The reference is a best-first search over the grid of pairs with a binary max-heap (``hv``,
    ``hi``, ``hj``, scratch of length >= K + 1): pair (i, j) enters after (i, j - 1), and
    (i + 1, 0) after (i, 0), so every pair is pushed at most once and the search costs O(K log K).
    Among equal sums the heap's layout decides which pair comes first, and the learner's numbers
    depend on that order, so every other method must give exactly the heap's sequence. One that
    does when no sum is repeated: :func:`_topk_scan` (linear in the shorter list per pair); it
    gives up at the first repeated sum, and the heap runs instead."""
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
    if na <= nb:
        k = _topk_scan(a, na, b, nb, K, out_val, out_ia, out_ib, cur, col)
    else:
        k = _topk_scan(b, nb, a, na, K, out_val, out_ib, out_ia, cur, col)
    if k >= 0:
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
def _topk_scan(s, ns, t, nt, K, out_val, out_is, out_it, cur, col):
    """The K best sums s[r] + t[c] when no two of the K + 1 best are equal, else -1.

    One line per entry r of the shorter list s: its next pair is (r, col[r]) with sum cur[r]
    (-inf once the line is used up); line r + 1 opens when (r, 0) is taken, so the open lines are
    the heap's frontier seen along s. Every step takes the largest cur, a scan over the open lines
    (at most ns). When the K + 1 best sums are pairwise different, the order of the K best is the
    only descending one, which is the heap's; a repeated sum (two consecutive outputs, or the K-th
    and the next) returns -1. Floating-point addition commutes, so s[r] + t[c] is the very sum
    the heap computes as a[i] + b[j]."""
    top = s[0] + t[0]
    bottom = s[ns - 1] + t[nt - 1]
    if not (-np.inf < bottom and top < np.inf):
        # an infinite (overflowed) or undefined sum: the -inf sentinel below would be ambiguous
        return -1
    total = min(K, ns * nt)
    cur[0] = top
    col[0] = 0
    lo = 0
    hi = 1
    for k in range(total):
        r = lo
        best = cur[lo]
        for q in range(lo + 1, hi):
            if cur[q] > best:
                best = cur[q]
                r = q
        if k > 0 and best == out_val[k - 1]:
            return -1
        c = col[r]
        out_val[k] = best
        out_is[k] = r
        out_it[k] = c
        if c + 1 < nt:
            cur[r] = s[r] + t[c + 1]
            col[r] = c + 1
        else:
            cur[r] = -np.inf
        if c == 0 and r + 1 < ns:
            cur[hi] = s[hi] + t[0]
            col[hi] = 0
            hi += 1
        while lo < hi - 1 and cur[lo] == -np.inf:
            lo += 1
    if total < ns * nt:
        # the (K + 1)-th sum must differ from the K-th
        for q in range(lo, hi):
            if cur[q] == out_val[total - 1]:
                return -1
    return total


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
            np.empty(K, np.int64), np.empty((K, l), np.int64), np.empty(K, np.int64), np.empty(K, np.int64),
            np.empty(K), np.empty(K, np.int64),
            np.empty(K + 2), np.empty(K + 2, np.int64), np.empty(K + 2, np.int64))


@njit(cache=True, nogil=True)
def _kbest_tree(S, parent, post, ptr, idx, K, labs, scores, ws):
    """K best labellings of one tree; fills ``labs`` (K, l) uint8 and ``scores`` (K,); returns count.

    ``ws`` is a :func:`_workspace` for at least K."""
    l = parent.shape[0]
    P, cnt, merge_back, msg_back, msg, tmp_val, tmp_a, tmp_b, rank, ry, rr, cur, col, hv, hi, hj = ws
    for v in range(l):
        P[v, 0, 0] = 0.0
        P[v, 1, 0] = 0.0
        cnt[v, 0] = 1
        cnt[v, 1] = 1
    root = post[l - 1]
    for i in range(l - 1):
        v = post[i]
        p = parent[v]
        n0 = cnt[v, 0]
        n1 = cnt[v, 1]
        for yp in range(2):
            # message v -> p for parent value yp: merge the two lists of v shifted by the edge score
            s0 = S[v, yp]
            s1 = S[v, 2 + yp]
            na = cnt[p, yp]
            # the parent's list has one entry (v is its first child): the K best pairs are
            # (0, r) in the message's order, so the message goes straight into the list
            fused = na == 1
            a0 = P[p, yp, 0]
            i0 = 0
            i1 = 0
            mc = 0
            while mc < K and (i0 < n0 or i1 < n1):
                if i1 >= n1:
                    take0 = True
                    m = P[v, 0, i0] + s0
                elif i0 >= n0:
                    take0 = False
                    m = P[v, 1, i1] + s1
                else:
                    m0 = P[v, 0, i0] + s0
                    m1 = P[v, 1, i1] + s1
                    take0 = m0 >= m1
                    m = m0 if take0 else m1
                if take0:
                    msg_back[v, yp, mc, 0] = 0
                    msg_back[v, yp, mc, 1] = i0
                    i0 += 1
                else:
                    msg_back[v, yp, mc, 0] = 1
                    msg_back[v, yp, mc, 1] = i1
                    i1 += 1
                if fused:
                    P[p, yp, mc] = a0 + m
                    merge_back[v, yp, mc, 0] = 0
                    merge_back[v, yp, mc, 1] = mc
                else:
                    msg[mc] = m
                mc += 1
            if fused:
                cnt[p, yp] = mc
                continue
            k = _topk_pairs(P[p, yp], na, msg, mc, K, tmp_val, tmp_a, tmp_b, hv, hi, hj, cur, col)
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
    # trace the labellings back, all of them a vertex at a time (parents before children): the
    # same back-pointers as one depth-first walk per labelling, but the K walks interleave
    for q in range(out):
        labs[q, root] = ry[q]
        rank[q, root] = rr[q]
    for i in range(l - 1, -1, -1):
        v = post[i]
        if ptr[v + 1] == ptr[v]:
            continue
        for q in range(out):
            rr[q] = rank[q, v]
        for j in range(ptr[v + 1] - 1, ptr[v] - 1, -1):
            # the children were merged in order: undo the last merge first
            c = idx[j]
            for q in range(out):
                y = labs[q, v]
                rm = merge_back[c, y, rr[q], 1]
                rr[q] = merge_back[c, y, rr[q], 0]
                labs[q, c] = msg_back[c, y, rm, 0]
                rank[q, c] = msg_back[c, y, rm, 1]
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


@njit(cache=True, nogil=True)
def _certified(S, parent, post, ptr, idx, k_start, max_k, exclude, use_exclude, out):
    """Double K from k_start until Lemma 7 certifies the answer (or K reaches max_k).

    Writes the answer (best, or best other than ``exclude``) into ``out`` and returns
    (score, theta, K used, certified)."""
    K = k_start
    ws = _workspace(parent.shape[1], max_k)
    while True:
        cand, cscore, best, viol, theta = _ensemble(S, parent, post, ptr, idx, K, exclude, use_exclude, ws)
        q = viol if use_exclude else best
        ok = q >= 0 and cscore[q] >= theta
        if ok or K >= max_k:
            if q >= 0:
                out[:] = cand[q]
                return cscore[q], theta, K, ok
            return -np.inf, theta, K, False
        K = min(2 * K, max_k)


# ----------------------------------------------------------------------------------- Python API

@dataclass(frozen=True)
class TreeKBest:
    """The K best labellings of one tree: ``labels`` uint8 (k, l), ``scores`` (k,), descending."""

    labels: np.ndarray
    scores: np.ndarray


@dataclass(frozen=True)
class EnsembleInference:
    """K-best inference over an ensemble of trees (Algorithm 1).

    candidates : uint8 (c, l), the union of the trees' K-best lists (with repeats)
    candidate_scores : (c,), ensemble score F of every candidate
    best : uint8 (l,), the best candidate y*_K; best_score its score
    violator : uint8 (l,) or None, the best candidate other than the excluded (true) multilabel
    violator_score : float (-inf when there is none)
    theta : the threshold theta(K) of Lemma 7 (-inf when a tree's list is complete)
    exact : best_score >= theta (y*_K is the exact maximiser over all labellings)
    violator_exact : violator_score >= theta (the violator is exact over all y != excluded)
    K : the list length used
    """

    candidates: np.ndarray
    candidate_scores: np.ndarray
    best: np.ndarray
    best_score: float
    violator: np.ndarray | None
    violator_score: float
    theta: float
    exact: bool
    violator_exact: bool
    K: int


def _check_scores(scores: np.ndarray, trees: LabelTrees) -> np.ndarray:
    s = np.ascontiguousarray(scores, dtype=np.float64)
    want = (trees.n_trees, trees.n_labels, 4)
    if s.shape != want:
        raise InvalidParameterError(f"edge scores have shape {s.shape}; expected {want} (trees, labels, 4)")
    if not np.all(np.isfinite(s)):
        raise InvalidParameterError("edge scores must be finite")
    return s


def _check_k(K: int) -> int:
    if int(K) != K or K < 1:
        raise InvalidParameterError(f"K must be a positive integer, got {K}")
    return int(K)


def kbest_tree(scores: np.ndarray, trees: LabelTrees, K: int, t: int = 0) -> TreeKBest:
    """The K best labellings of tree ``t`` under its edge scores ``scores[t]`` (Algorithm 1, lines 2-15)."""
    s = _check_scores(scores, trees)
    K = _check_k(K)
    labs = np.zeros((K, trees.n_labels), np.uint8)
    sc = np.empty(K)
    c = _kbest_tree(s[t], trees.parent[t], trees.post[t], trees.child_ptr[t], trees.child_idx[t], K, labs, sc,
                    _workspace(trees.n_labels, K))
    return TreeKBest(labs[:c].copy(), sc[:c].copy())


def ensemble_inference(scores: np.ndarray, trees: LabelTrees, K: int, exclude=None) -> EnsembleInference:
    """Algorithm 1 over the ensemble at one K: candidates, y*_K, worst violator, theta(K)."""
    s = _check_scores(scores, trees)
    K = _check_k(K)
    ex = np.zeros(trees.n_labels, np.uint8) if exclude is None else np.asarray(exclude, np.uint8)
    cand, cs, best, viol, theta = _ensemble(s, trees.parent, trees.post, trees.child_ptr, trees.child_idx,
                                            K, ex, exclude is not None, _workspace(trees.n_labels, K))
    vs = float(cs[viol]) if viol >= 0 else -np.inf
    return EnsembleInference(cand, cs, cand[best].copy(), float(cs[best]),
                             cand[viol].copy() if viol >= 0 else None, vs, float(theta),
                             bool(cs[best] >= theta), bool(viol >= 0 and vs >= theta), K)


def certified_inference(scores: np.ndarray, trees: LabelTrees, max_k: int, exclude=None, k_start: int = 2):
    """Double K from ``k_start`` until Lemma 7 holds or K = ``max_k``.

    Returns ``(labels, score, theta, K, certified)``: the best labelling (or the worst violator when
    ``exclude`` is given)."""
    s = _check_scores(scores, trees)
    max_k = _check_k(max_k)
    k0 = min(_check_k(k_start), max_k)
    ex = np.zeros(trees.n_labels, np.uint8) if exclude is None else np.asarray(exclude, np.uint8)
    out = np.zeros(trees.n_labels, np.uint8)
    score, theta, K, ok = _certified(s, trees.parent, trees.post, trees.child_ptr, trees.child_idx,
                                     k0, max_k, ex, exclude is not None, out)
    return out, float(score), float(theta), int(K), bool(ok)


def _all_labellings(l: int) -> np.ndarray:
    return ((np.arange(2 ** l)[:, None] >> np.arange(l)[None, :]) & 1).astype(np.uint8)


def ensemble_scores(scores: np.ndarray, trees: LabelTrees, Y: np.ndarray) -> np.ndarray:
    """Ensemble score F(y) of every row of ``Y`` (uint8 (m, l)), vectorised over labellings."""
    s = np.asarray(scores, np.float64)
    Y = np.asarray(Y, np.int64)
    n, l = trees.parent.shape
    tot = np.zeros(Y.shape[0])
    for t in range(n):
        v = np.flatnonzero(trees.parent[t] >= 0)
        p = trees.parent[t, v]
        tot += s[t, v[None, :], 2 * Y[:, v] + Y[:, p]].sum(axis=1)
    return tot / n


def brute_force_scores(scores: np.ndarray, trees: LabelTrees):
    """All 2^l labellings (uint8 rows, label j = bit j of the row index) and their ensemble scores."""
    Y = _all_labellings(trees.n_labels)
    return Y, ensemble_scores(scores, trees, Y)
