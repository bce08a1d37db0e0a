"""The compiled kernels of RTA ("Multilabel Structured Output Learning with Random Spanning Trees of
Max-Margin Markov Networks", Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014): the K-best
max-sum programme on one tree and over an ensemble with the certificate of Lemma 7
(:mod:`engine.multilabel.kbest` explains them), and the steps of the block-coordinate Frank-Wolfe
training passes (:mod:`engine.multilabel.learner`). The kernels run in worker threads (the folds of a
cross-validation), so the entry points release the interpreter lock (:mod:`engine.jit`).
"""

from __future__ import annotations

import numpy as np

from engine.jit import inline_kernel, threaded_kernel

__all__ = ["DENSE", "FACTORED", "KERNEL", "_topk_pairs", "_topk_scan", "_heap_push", "_heap_place",
           "_workspace", "_kbest_tree", "_labelling_score", "_ensemble", "_certified", "_edge_scores_linear",
           "_edge_scores_factored", "_update_factored", "_row_norms2", "_edge_scores_kernel", "_bcfw_pass",
           "_predict_all", "_exact_at_k", "_flip_margins"]

#: How a pass computes edge scores and updates the weights (``engine.multilabel.learner.Problem.mode``).
DENSE, KERNEL, FACTORED = 0, 1, 2


@inline_kernel
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


@inline_kernel
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


@inline_kernel
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


@inline_kernel
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


@threaded_kernel
def _workspace(l, K):
    """Scratch arrays of one K-best pass on a tree of l labels with lists up to K long."""
    return (np.zeros((l, 2, K)), np.ones((l, 2), np.int64), np.zeros((l, 2, K, 2), np.int64),
            np.zeros((l, 2, K, 2), np.int64), np.empty(2 * K), np.empty(K), np.empty(K, np.int64),
            np.empty(K, np.int64), np.empty((K, l), np.int64), np.empty(K, np.int64), np.empty(K, np.int64),
            np.empty(K), np.empty(K, np.int64),
            np.empty(K + 2), np.empty(K + 2, np.int64), np.empty(K + 2, np.int64))


@threaded_kernel
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


@inline_kernel
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


@threaded_kernel
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


@threaded_kernel
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


@threaded_kernel
def _edge_scores_linear(Wt, x, S):
    """S[p] = sum_j W[p, j] x[j], summed over j in order (the same rounding as a row-by-row dot
    product), vectorised over the slots p."""
    d, P = Wt.shape
    S[:] = 0.0
    for j in range(d):
        xj = x[j]
        for p in range(P):
            S[p] += Wt[j, p] * xj


@threaded_kernel
def _edge_scores_factored(f, k, S):
    """Edge scores W z_k from :class:`Factors` (see there), O(P * nnz(x_k))."""
    P = S.shape[0]
    S[:] = 0.0
    for q in range(f.indptr[k], f.indptr[k + 1]):
        j = f.indices[q]
        w = f.a2[j] * f.values[q]
        for p in range(P):
            S[p] += w * f.U[j, p]
    sk = f.s[k]
    cv = f.alpha[k] - f.gamma
    for p in range(P):
        S[p] = sk * (S[p] - f.r[p] - cv * f.v[p])
        if f.intercept:
            S[p] += f.w0[p]


@threaded_kernel
def _update_factored(f, k, g):
    """W += g (x) z_k on :class:`Factors`: U[j] += g s_k x_kj over the non-zeros of x_k."""
    P = g.shape[0]
    sk = f.s[k]
    for q in range(f.indptr[k], f.indptr[k + 1]):
        j = f.indices[q]
        w = sk * f.values[q]
        for p in range(P):
            f.U[j, p] += g[p] * w
    ra = sk * f.alpha[k]
    for p in range(P):
        f.r[p] += g[p] * ra
        f.v[p] += g[p] * sk
        f.w0[p] += g[p]


@threaded_kernel
def _row_norms2(Z):
    """Squared norm of every row, summed in order (the rounding of the pass's own sum)."""
    out = np.empty(Z.shape[0])
    for k in range(Z.shape[0]):
        xx = 0.0
        for j in range(Z.shape[1]):
            xx += Z[k, j] * Z[k, j]
        out[k] = xx
    return out


@threaded_kernel
def _edge_scores_kernel(B, kcol, C, S):
    m, P = B.shape
    S[:] = 0.0
    for j in range(m):
        kj = kcol[j] * C
        if kj != 0.0:
            for p in range(P):
                S[p] += kj * B[j, p]


@threaded_kernel
def _bcfw_pass(prob, trees, state, factors, order, stats):
    """One pass of block-coordinate Frank-Wolfe over the examples in ``order`` (Algorithm 2).

    ``prob`` is a :class:`Problem`, ``trees`` a :class:`TreeArrays`, ``state`` the
    :class:`DualState` updated in place (and ``factors``, the :class:`Factors` of the FACTORED
    mode) and ``stats`` the :class:`PassStats` filled in.
    ``state.k_mem[k]`` is example k's K (Algorithm 2 keeps it across passes: it starts at 2 and
    doubles while the certificate fails)."""
    mode, X, Kmat, xxs, Y, C, hamming, loss_scale, max_k = prob
    parent, post, ptr, idx, deg_inv = trees
    Wt, B, L, k_mem = state
    k_used, certified, gaps, violated = stats
    n, l = parent.shape
    P = n * l * 4
    S = np.empty(P)
    Bs = np.empty(P)
    cstep = np.empty(P)
    ybar = np.empty(l, np.uint8)
    inv_n = 1.0 / n
    ws = _workspace(l, max_k)
    for k in order:
        if mode == KERNEL:
            _edge_scores_kernel(B, Kmat[:, k], C, S)
        elif mode == DENSE:
            _edge_scores_linear(Wt, X[k], S)
        else:
            _edge_scores_factored(factors, k, S)
        xx = xxs[k]
        S3 = S.reshape((n, l, 4))
        yk = Y[k]
        Saug = S3.copy()
        if hamming:
            for t in range(n):
                for v in range(l):
                    p = parent[t, v]
                    if p >= 0:
                        for u in range(4):
                            a = u >> 1
                            b = u & 1
                            extra = 0.0
                            if a != yk[v]:
                                extra += deg_inv[t, v]
                            if b != yk[p]:
                                extra += deg_inv[t, p]
                            Saug[t, v, u] += loss_scale * extra
        ftrue = _labelling_score(S3, parent, yk)
        # Algorithm 2: K-best at this example's K; a candidate that violates the margin is a valid
        # Frank-Wolfe vertex at once; when none does, double K until Lemma 7 certifies that no
        # labelling violates it (or K = max_k), and keep the larger K for the next visit.
        K = k_mem[k]
        while True:
            cand, cscore, best, viol, theta = _ensemble(Saug, parent, post, ptr, idx, K, yk, True, ws)
            ok = viol >= 0 and cscore[viol] >= theta
            hinge_q = -np.inf
            if viol >= 0:
                hinge_q = cscore[viol] - ftrue + (0.0 if hamming else loss_scale)
            if hinge_q > 0.0 or ok or K >= max_k:
                break
            K = min(2 * K, max_k)
        k_mem[k] = K
        k_used[k] = K
        certified[k] = ok
        if viol >= 0:
            ybar[:] = cand[viol]
        else:
            ybar[:] = yk
        fbar = _labelling_score(S3, parent, ybar)
        ham = 0
        for v in range(l):
            if ybar[v] != yk[v]:
                ham += 1
        delta = loss_scale * ham if hamming else loss_scale
        hinge = delta + fbar - ftrue
        if viol < 0:
            hinge = 0.0
        Bs[:] = 0.0
        Ls = 0.0
        if hinge > 0.0:
            violated[k] = True
            Ls = delta
            for t in range(n):
                for v in range(l):
                    p = parent[t, v]
                    if p >= 0:
                        ut = 2 * yk[v] + yk[p]
                        ub = 2 * ybar[v] + ybar[p]
                        if ut != ub:
                            base = (t * l + v) * 4
                            Bs[base + ut] += 1.0
                            Bs[base + ub] -= 1.0
        else:
            violated[k] = False
        num = 0.0
        dd = 0.0
        Bk = B[k]
        for p in range(P):
            df = Bk[p] - Bs[p]
            num += df * S[p]
            dd += df * df
        num = num * inv_n - L[k] + Ls
        gaps[k] = num
        den = C * xx * dd * inv_n
        if den > 0.0 and num > 0.0:
            gamma = num / den
            gamma = min(gamma, 1.0)
            L[k] += gamma * (Ls - L[k])
            for p in range(P):
                step = gamma * (Bs[p] - Bk[p])
                Bk[p] += step
                cstep[p] = C * step
            if mode == DENSE:
                # W[p] += C * step_p * x_k, one vectorised sweep over the slots per feature
                for j in range(X.shape[1]):
                    xj = X[k, j]
                    for p in range(P):
                        Wt[j, p] += cstep[p] * xj
            elif mode == FACTORED:
                _update_factored(factors, k, cstep)


@threaded_kernel
def _predict_all(Sall, parent, post, ptr, idx, k_start, max_k, out, k_used, certified, best_score, theta_out):
    m = Sall.shape[0]
    ex = np.zeros(parent.shape[1], np.uint8)
    for i in range(m):
        score, theta, K, ok = _certified(Sall[i], parent, post, ptr, idx, k_start, max_k, ex, False, out[i])
        k_used[i] = K
        certified[i] = ok
        best_score[i] = score
        theta_out[i] = theta


@threaded_kernel
def _exact_at_k(Sall, parent, post, ptr, idx, K, exact):
    ex = np.zeros(parent.shape[1], np.uint8)
    ws = _workspace(parent.shape[1], K)
    for i in range(Sall.shape[0]):
        cand, cs, best, viol, theta = _ensemble(Sall[i], parent, post, ptr, idx, K, ex, False, ws)
        exact[i] = cs[best] >= theta


@threaded_kernel
def _flip_margins(Sall, parent, Yhat, out):
    m, l = Yhat.shape
    y = np.empty(l, np.uint8)
    for i in range(m):
        base = _labelling_score(Sall[i], parent, Yhat[i])
        for j in range(l):
            y[:] = Yhat[i]
            y[j] = 1 - y[j]
            d = base - _labelling_score(Sall[i], parent, y)
            out[i, j] = d if Yhat[i, j] == 1 else -d
