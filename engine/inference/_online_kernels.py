"""Flat-array kernels of the online sum-product model ("Online Sum-Product Computation over Trees",
Herbster, Pasteris & Vitale, section 4), division-free.

One source, two builds: imported as ``engine.inference._online_kernels`` every function is compiled
by numba (lazily, on first call, cached on disk); loaded under the name ``..._online_kernels_pure``
(see :func:`pure_module`) the very same functions run as plain Python on NumPy arrays — the
reference the compiled build is tested against.

Layout (m = nodes of D, numbered children before parents, root m - 1). ``NI[z]`` holds
``[dpar, nb, split, end0, end1, bd, bdd, gofs, gP, gslot]``: D-parent, number of boundary
vertices, splitting vertex (-1 for an edge), the edge's ends (towards s, away from s), the two
2-boundary children (``bd`` holds the parent-side boundary vertex "dot", ``bdd`` the other,
"ddot"), the offset and leaf count of the node's product tree, and the node's slot in its
D-parent's product tree (-1 for 2-boundary children).

``tab[z]`` is the component's summary ψ^{S^z} (Definition 7) over its boundary: a scalar (root)
or a k-vector over the D-parent's splitting vertex (α, one boundary vertex), renormalised to max 1
with ``ls[z]`` its log scale; or a k x k matrix (β), rows the D-parent's splitting vertex, columns
the other boundary vertex, stored as B (entries <= 1) with a log scale per row and per column in
``tab[z, k*k : k*k + 2k]`` (a β of a long path segment can span far more than 1e308). The product tree of an internal node z (splitting vertex v) holds in
its leaves d_v (slot 0) and the α of every 1-boundary child; its root is the seed's γ(v). Leaves
of T are not boundary vertices: their data is summed into their edge's table.

A kernel that finds a table of all zeros (total mass zero) restores every entry it wrote from
its undo buffers and returns failure, so the model is left exactly as it was.
"""

from __future__ import annotations

import numpy as np

__all__ = ["layout_kernel", "orient_kernel", "fill_kernel", "refresh_kernel", "marginal_kernel",
           "views", "refresh_packed", "marginal_packed", "pure_module"]

_PURE = __name__.endswith("_pure")

if _PURE:
    def _jit(f):
        return f
else:
    from numba import njit

    def _jit(f):
        return njit(cache=True)(f)

DPAR, NB, SPLIT, END0, END1, BD, BDD, GOFS, GP, GSLOT = range(10)


@_jit
def _log0(x):
    """log x, with log 0 = -inf (no warning in either build)."""
    if x > 0.0:
        return np.log(x)
    return -np.inf


@_jit
def _scale_matrix(z, tab, ls, k, rowadd, coladd):
    """Store the k x k matrix in tab[z, :k*k] as B with row and column log scales.

    Rows are divided by their maxima, then columns by theirs; the logs (plus ``rowadd`` and
    ``coladd``) go to tab[z, kk:kk+k] (rows) and tab[z, kk+k:kk+2k] (columns), -inf for an all-zero
    row or column. Keeping a scale per row and per column (not one per table) keeps entries that
    a later product makes dominant even when the table spans more than 1e308. False if all zero.
    """
    kk = k * k
    some = False
    for x in range(k):
        mx = 0.0
        for y in range(k):
            if tab[z, x * k + y] > mx:
                mx = tab[z, x * k + y]
        if mx > 0.0:
            some = True
            for y in range(k):
                tab[z, x * k + y] /= mx
            tab[z, kk + x] = np.log(mx) + rowadd[x]
        else:
            tab[z, kk + x] = -np.inf
    if not some:
        return False
    for y in range(k):
        mx = 0.0
        for x in range(k):
            if tab[z, x * k + y] > mx:
                mx = tab[z, x * k + y]
        if mx == 1.0:                      # common: the column holds some row's maximum
            tab[z, kk + k + y] = coladd[y]
        elif mx > 0.0:
            for x in range(k):
                tab[z, x * k + y] /= mx
            tab[z, kk + k + y] = np.log(mx) + coladd[y]
        else:
            tab[z, kk + k + y] = -np.inf
    ls[z] = 0.0
    return True


@_jit
def _edge_table(z, NI, tab, ls, theta, data, k, sc):
    """Table of edge node z; False when it is all zero. Returns (ok, work)."""
    w = NI[NI[z, DPAR], SPLIT]
    p = NI[z, END0]
    u = NI[z, END1]
    flip = w != p
    o = p if flip else u
    if NI[z, NB] == 2:
        for a in range(k):
            for b in range(k):
                tab[z, a * k + b] = theta[z, b, a] if flip else theta[z, a, b]
        zeros = sc[3 * k:4 * k]
        for a in range(k):
            zeros[a] = 0.0
        if not _scale_matrix(z, tab, ls, k, zeros, zeros):
            return False, k * k
        return True, 2 * k * k
    # a leaf of T at the far end: sum it out, in logs (potential and data may both be extreme)
    L = sc[0:k]
    Lm = -np.inf
    for a in range(k):
        m = -np.inf
        for b in range(k):
            t = _log0(theta[z, b, a] if flip else theta[z, a, b]) + _log0(data[o, b])
            if t > m:
                m = t
        if m == -np.inf:
            L[a] = -np.inf
        else:
            acc = 0.0
            for b in range(k):
                acc += np.exp(_log0(theta[z, b, a] if flip else theta[z, a, b]) + _log0(data[o, b]) - m)
            L[a] = m + np.log(acc)
        if L[a] > Lm:
            Lm = L[a]
    if Lm == -np.inf:
        return False, k * k
    for a in range(k):
        tab[z, a] = np.exp(L[a] - Lm)
    ls[z] = Lm
    return True, 2 * k * k


@_jit
def _seg_node(pool, pls, base, i, k):
    """Product tree node i := product of its two children; False when all zero."""
    a = base + 2 * i
    b = a + 1
    t = base + i
    mx = 0.0
    for x in range(k):
        val = pool[a, x] * pool[b, x]
        pool[t, x] = val
        if val > mx:
            mx = val
    if mx == 0.0:
        return False
    for x in range(k):
        pool[t, x] /= mx
    pls[t] = pls[a] + pls[b] + np.log(mx)
    return True


@_jit
def _node_table(z, NI, tab, ls, pool, pls, k, sc):
    """Table of internal node z from γ (its product tree's root) and its 2-boundary children.

    A 2-boundary child c stores B_c with row scales R_c (its D-parent's vertex) and column
    scales C_c; the weights w[a] = γ[a] e^{R_c1[a] (+ R_c2[a])} are formed in logs."""
    g = NI[z, GOFS] + 1
    nb = NI[z, NB]
    kk = k * k
    if nb == 0:
        s = 0.0
        for a in range(k):
            s += pool[g, a]
        if s == 0.0:
            return False, k
        tab[z, 0] = 1.0
        ls[z] = pls[g] + np.log(s)
        return True, k
    c1 = NI[z, BD]
    c2 = NI[z, BDD]
    wl = sc[0:k]
    wm = -np.inf
    for a in range(k):
        wl[a] = _log0(pool[g, a]) + tab[c1, kk + a]
        if nb == 2:
            wl[a] += tab[c2, kk + a]
        if wl[a] > wm:
            wm = wl[a]
    if wm == -np.inf:
        return False, k
    w = sc[k:2 * k]
    for a in range(k):
        w[a] = np.exp(wl[a] - wm)
    if nb == 1:
        L = sc[2 * k:3 * k]
        Lm = -np.inf
        for x in range(k):
            acc = 0.0
            for a in range(k):
                acc += w[a] * tab[c1, a * k + x]
            L[x] = _log0(acc) + tab[c1, kk + k + x]
            if L[x] > Lm:
                Lm = L[x]
        if Lm == -np.inf:
            return False, k * k
        for x in range(k):
            tab[z, x] = np.exp(L[x] - Lm)
        ls[z] = pls[g] + wm + Lm
        return True, k * k + 2 * k
    for x in range(k):
        for y in range(k):
            acc = 0.0
            for a in range(k):
                acc += tab[c1, a * k + x] * w[a] * tab[c2, a * k + y]
            tab[z, x * k + y] = acc
    rowadd = sc[3 * k:4 * k]
    coladd = sc[4 * k:5 * k]
    for x in range(k):
        rowadd[x] = tab[c1, kk + k + x] + wm + pls[g]
        coladd[x] = tab[c2, kk + k + x]
    if not _scale_matrix(z, tab, ls, k, rowadd, coladd):
        return False, k * k * k
    return True, k * k * k + 2 * k * k


@_jit
def _set_leaf(pool, pls, t, vec, vls, k):
    for x in range(k):
        pool[t, x] = vec[x]
    pls[t] = vls


@_jit
def fill_kernel(NI, tab, ls, pool, pls, theta, data, k, child_ptr, child_idx):
    """init: tables bottom-up, product trees filled from children. Returns first all-zero node or -1."""
    m = NI.shape[0]
    dv = np.empty(k)
    sc = np.empty(5 * k)
    for z in range(m):
        v = NI[z, SPLIT]
        if v < 0:
            ok, _ = _edge_table(z, NI, tab, ls, theta, data, k, sc)
            if not ok:
                return z
            continue
        base = NI[z, GOFS]
        P = NI[z, GP]
        for i in range(P, 2 * P):
            for x in range(k):
                pool[base + i, x] = 1.0
            pls[base + i] = 0.0
        dm = 0.0
        for x in range(k):
            if data[v, x] > dm:
                dm = data[v, x]
        if dm == 0.0:
            return z
        for x in range(k):
            dv[x] = data[v, x] / dm
        _set_leaf(pool, pls, base + P, dv, np.log(dm), k)
        for j in range(child_ptr[z], child_ptr[z + 1]):
            c = child_idx[j]
            s = NI[c, GSLOT]
            if s >= 0:
                t = base + P + s
                for x in range(k):
                    pool[t, x] = tab[c, x]
                pls[t] = ls[c]
        for i in range(P - 1, 0, -1):
            if not _seg_node(pool, pls, base, i, k):
                return z
        ok, _ = _node_table(z, NI, tab, ls, pool, pls, k, sc)
        if not ok:
            return z
    return -1


@_jit
def _save_tab(z, tab, ls, Ut, Uls, Uidx, nu):
    for j in range(tab.shape[1]):
        Ut[nu, j] = tab[z, j]
    Uls[nu] = ls[z]
    Uidx[nu] = z
    return nu + 1


@_jit
def _save_pool(t, pool, pls, Up, Upls, Upidx, npu):
    for j in range(pool.shape[1]):
        Up[npu, j] = pool[t, j]
    Upls[npu] = pls[t]
    Upidx[npu] = t
    return npu + 1


@_jit
def _restore(tab, ls, Ut, Uls, Uidx, nu, pool, pls, Up, Upls, Upidx, npu):
    for i in range(nu - 1, -1, -1):
        z = Uidx[i]
        for j in range(tab.shape[1]):
            tab[z, j] = Ut[i, j]
        ls[z] = Uls[i]
    for i in range(npu - 1, -1, -1):
        t = Upidx[i]
        for j in range(pool.shape[1]):
            pool[t, j] = Up[i, j]
        pls[t] = Upls[i]


@_jit
def _climb(pool, pls, base, i, k, Up, Upls, Upidx, npu):
    """Recompute product-tree nodes i, i/2, ..., 1 of the tree at ``base`` (saving each first, for
    the undo). Returns (ok, npu, work); ok is False when a product is all zero."""
    work = 0
    while i >= 1:
        npu = _save_pool(base + i, pool, pls, Up, Upls, Upidx, npu)
        work += k
        if not _seg_node(pool, pls, base, i, k):
            return False, npu, work
        i >>= 1
    return True, npu, work


@_jit
def refresh_kernel(start, NI, tab, ls, pool, pls, theta, data, k,
                   Ut, Uls, Uidx, Up, Upls, Upidx, touched):
    """Recompute node ``start`` (its data or edge potential changed) and every D ancestor.

    ``start`` is an edge node (edge potential or a T-leaf's data changed) or an internal node
    (its splitting vertex's data changed: product-tree slot 0). Returns (ok, touched count,
    arithmetic count); on failure every written entry is restored.
    """
    nu = 0
    npu = 0
    nt = 0
    work = 0
    sc = np.empty(5 * k)
    z = start
    v = NI[z, SPLIT]
    if v < 0:
        nu = _save_tab(z, tab, ls, Ut, Uls, Uidx, nu)
        ok, w = _edge_table(z, NI, tab, ls, theta, data, k, sc)
        work += w
        touched[nt] = z
        nt += 1
        if not ok:
            _restore(tab, ls, Ut, Uls, Uidx, nu, pool, pls, Up, Upls, Upidx, npu)
            return False, nt, work
    else:
        base = NI[z, GOFS]
        P = NI[z, GP]
        t = base + P
        npu = _save_pool(t, pool, pls, Up, Upls, Upidx, npu)
        dm = 0.0
        for x in range(k):
            if data[v, x] > dm:
                dm = data[v, x]
        if dm == 0.0:
            _restore(tab, ls, Ut, Uls, Uidx, nu, pool, pls, Up, Upls, Upidx, npu)
            return False, nt, work
        for x in range(k):
            pool[t, x] = data[v, x] / dm
        pls[t] = np.log(dm)
        ok, npu, w = _climb(pool, pls, base, P >> 1, k, Up, Upls, Upidx, npu)
        work += w
        if not ok:
            _restore(tab, ls, Ut, Uls, Uidx, nu, pool, pls, Up, Upls, Upidx, npu)
            return False, nt, work
        nu = _save_tab(z, tab, ls, Ut, Uls, Uidx, nu)
        ok, w = _node_table(z, NI, tab, ls, pool, pls, k, sc)
        work += w
        touched[nt] = z
        nt += 1
        if not ok:
            _restore(tab, ls, Ut, Uls, Uidx, nu, pool, pls, Up, Upls, Upidx, npu)
            return False, nt, work
    c = z
    y = NI[c, DPAR]
    while y >= 0:
        s = NI[c, GSLOT]
        if s >= 0:
            base = NI[y, GOFS]
            P = NI[y, GP]
            i = P + s
            npu = _save_pool(base + i, pool, pls, Up, Upls, Upidx, npu)
            for x in range(k):
                pool[base + i, x] = tab[c, x]
            pls[base + i] = ls[c]
            ok, npu, w = _climb(pool, pls, base, i >> 1, k, Up, Upls, Upidx, npu)
            work += w
            if not ok:
                _restore(tab, ls, Ut, Uls, Uidx, nu, pool, pls, Up, Upls, Upidx, npu)
                return False, nt, work
        nu = _save_tab(y, tab, ls, Ut, Uls, Uidx, nu)
        ok, w = _node_table(y, NI, tab, ls, pool, pls, k, sc)
        work += w
        touched[nt] = y
        nt += 1
        if not ok:
            _restore(tab, ls, Ut, Uls, Uidx, nu, pool, pls, Up, Upls, Upidx, npu)
            return False, nt, work
        c = y
        y = NI[c, DPAR]
    return True, nt, work


@_jit
def _matvec_log(c, lh, tab, out, k):
    """out[a] = log Σ_x β_c[a, x] e^lh[x] for a 2-boundary child c (β = e^R B e^C), or 0 when
    c < 0. ``lh`` is a message in logs."""
    if c < 0:
        for a in range(k):
            out[a] = 0.0
        return 0
    kk = k * k
    um = -np.inf
    u = np.empty(k)
    for x in range(k):
        u[x] = lh[x] + tab[c, kk + k + x]
        if u[x] > um:
            um = u[x]
    for x in range(k):
        u[x] = np.exp(u[x] - um) if um > -np.inf else 0.0
    for a in range(k):
        acc = 0.0
        for x in range(k):
            acc += tab[c, a * k + x] * u[x]
        out[a] = tab[c, kk + a] + _log0(acc) + um
    return k * k + 2 * k


@_jit
def _exp_normalise(lv, out, k):
    """out = exp(lv - max lv) (max entry 1); zeros when every entry is -inf."""
    m = -np.inf
    for x in range(k):
        if lv[x] > m:
            m = lv[x]
    for x in range(k):
        out[x] = np.exp(lv[x] - m) if m > -np.inf else 0.0


@_jit
def _log_normalise(lv, out, k):
    """out = lv - max lv (max entry 0); all -inf when every entry is -inf."""
    m = -np.inf
    for x in range(k):
        if lv[x] > m:
            m = lv[x]
    for x in range(k):
        out[x] = lv[x] - m if m > -np.inf else -np.inf


@_jit
def marginal_kernel(target, vertex, NI, tab, pool, theta, data, k, path, out):
    """Marginal of ``vertex`` (whose D node is ``target``) by a walk down from D's root.

    Carries the outside messages h at the current node's boundary vertices (the outside of a
    2-boundary component factorises over its two boundary vertices). The messages are kept in
    logs: a message of a long or extreme component can span far more than 1e308. Writes the normalised marginal to ``out``; returns
    (touched count, arithmetic count). The walk is written to ``path`` root first.
    """
    L = 0
    z = target
    while z >= 0:
        path[L] = z
        L += 1
        z = NI[z, DPAR]
    for i in range(L // 2):
        tmp = path[i]
        path[i] = path[L - 1 - i]
        path[L - 1 - i] = tmp
    hd = np.zeros(k)    # log outside messages at the dot and ddot boundary vertices
    hdd = np.zeros(k)
    Md = np.empty(k)
    Mdd = np.empty(k)
    g = np.empty(k)
    lv = np.empty(k)
    work = 0
    for i in range(L - 1):
        z = path[i]
        c = path[i + 1]
        gi = NI[z, GOFS] + 1
        work += _matvec_log(NI[z, BD], hd, tab, Md, k)
        work += _matvec_log(NI[z, BDD], hdd, tab, Mdd, k)
        if c == NI[z, BD]:
            for a in range(k):
                lv[a] = _log0(pool[gi, a]) + Mdd[a]
            for a in range(k):
                hdd[a] = hd[a]
        elif c == NI[z, BDD]:
            for a in range(k):
                lv[a] = _log0(pool[gi, a]) + Md[a]
        else:
            base = NI[z, GOFS]
            j = NI[z, GP] + NI[c, GSLOT]
            for a in range(k):
                g[a] = 0.0      # the siblings' product, in logs (a linear product can underflow)
            while j > 1:
                sib = base + (j ^ 1)
                for a in range(k):
                    g[a] += _log0(pool[sib, a])
                work += k
                j >>= 1
            for a in range(k):
                lv[a] = g[a] + Md[a] + Mdd[a]
        work += 3 * k
        _log_normalise(lv, hd, k)
    t = target
    if NI[t, SPLIT] >= 0:
        gi = NI[t, GOFS] + 1
        work += _matvec_log(NI[t, BD], hd, tab, Md, k)
        work += _matvec_log(NI[t, BDD], hdd, tab, Mdd, k)
        for a in range(k):
            lv[a] = _log0(pool[gi, a]) + Md[a] + Mdd[a]
        work += 3 * k
    else:
        # a leaf of T at the far end of its edge: d_v(x) Σ_w θ(w, x) h_w(w), in logs
        w = NI[NI[t, DPAR], SPLIT]
        flip = w != NI[t, END0]
        for x in range(k):
            m = -np.inf
            for a in range(k):
                tt = _log0(theta[t, x, a] if flip else theta[t, a, x]) + hd[a]
                if tt > m:
                    m = tt
            acc = 0.0
            if m > -np.inf:
                for a in range(k):
                    acc += np.exp(_log0(theta[t, x, a] if flip else theta[t, a, x]) + hd[a] - m)
            lv[x] = _log0(data[vertex, x]) + m + _log0(acc) if m > -np.inf else -np.inf
        work += 2 * k * k + k
    _exp_normalise(lv, out, k)
    s = 0.0
    for x in range(k):
        s += out[x]
    if s == 0.0:    # every entry flushed to zero: ratios beyond the double range (the caller raises)
        for x in range(k):
            out[x] = np.nan
        return L, work
    for x in range(k):
        out[x] /= s
    return L, work


@_jit
def layout_kernel(dpar, split, boundary, ends, NI):
    """Fill ``NI`` from the cover's arrays; returns the size of the product-tree pool."""
    m = dpar.shape[0]
    for z in range(m):
        NI[z, DPAR] = dpar[z]
        nb = 0
        if boundary[z, 0] >= 0:
            nb += 1
        if boundary[z, 1] >= 0:
            nb += 1
        NI[z, NB] = nb
        NI[z, SPLIT] = split[z]
        NI[z, END0] = ends[z, 0]
        NI[z, END1] = ends[z, 1]
        NI[z, BD] = -1
        NI[z, BDD] = -1
        NI[z, GOFS] = -1
        NI[z, GP] = 0
        NI[z, GSLOT] = -1
    q = np.zeros(m, np.int64)
    for c in range(m):
        y = dpar[c]
        if y < 0:
            continue
        w = split[y]
        if NI[c, NB] == 2:
            other = boundary[c, 1] if boundary[c, 0] == w else boundary[c, 0]
            yp = dpar[y]
            dot = split[yp] if yp >= 0 else -1
            if other == dot:
                NI[y, BD] = c
            else:
                NI[y, BDD] = c
        else:
            q[y] += 1
            NI[c, GSLOT] = q[y]
    total = 0
    for z in range(m):
        if split[z] < 0:
            continue
        P = 1
        while P < q[z] + 1:
            P *= 2
        NI[z, GP] = P
        NI[z, GOFS] = total - 1   # node i of the product tree lives at GOFS + i, i = 1..2P-1
        total += 2 * P - 1
    return total


@_jit
def orient_kernel(theta, ep, ec, sp, enode, mats):
    """theta[z] = the potential of edge (ep[i], ec[i]) with rows indexing the end towards s."""
    ne = ep.shape[0]
    k = theta.shape[1]
    shared = mats.shape[0] == 1
    for i in range(ne):
        j = 0 if shared else i
        p = ep[i]
        c = ec[i]
        if sp[c] == p:
            z = enode[c]
            for a in range(k):
                for b in range(k):
                    theta[z, a, b] = mats[j, a, b]
        else:
            z = enode[p]
            for a in range(k):
                for b in range(k):
                    theta[z, a, b] = mats[j, b, a]


@_jit
def views(F, I, L):
    """The model's arrays as views of the two flat buffers (layout ``L``, see online.py)."""
    m = L[16]
    S = L[17]
    n = L[18]
    ct = L[19]
    cp = L[20]
    k = L[21]
    kk = k * k
    tw = kk + 2 * k
    tab = F[L[0]:L[0] + m * tw].reshape((m, tw))
    ls = F[L[1]:L[1] + m]
    pool = F[L[2]:L[2] + S * k].reshape((S, k))
    pls = F[L[3]:L[3] + S]
    theta = F[L[4]:L[4] + (n - 1) * kk].reshape((n - 1, k, k))
    data = F[L[5]:L[5] + n * k].reshape((n, k))
    Ut = F[L[6]:L[6] + ct * tw].reshape((ct, tw))
    Uls = F[L[7]:L[7] + ct]
    Up = F[L[8]:L[8] + cp * k].reshape((cp, k))
    Upls = F[L[9]:L[9] + cp]
    out = F[L[10]:L[10] + k]
    NI = I[L[11]:L[11] + m * 10].reshape((m, 10))
    Uidx = I[L[12]:L[12] + ct]
    Upidx = I[L[13]:L[13] + cp]
    touched = I[L[14]:L[14] + ct]
    path = I[L[15]:L[15] + ct]
    return (tab, ls, pool, pls, theta, data, Ut, Uls, Up, Upls, out, NI, Uidx, Upidx, touched,
            path)


@_jit
def refresh_packed(start, F, I, L):
    (tab, ls, pool, pls, theta, data, Ut, Uls, Up, Upls, out, NI, Uidx, Upidx, touched,
     path) = views(F, I, L)
    return refresh_kernel(start, NI, tab, ls, pool, pls, theta, data, L[21], Ut, Uls, Uidx, Up,
                          Upls, Upidx, touched)


@_jit
def update_packed(v, vec, F, I, L, vnode):
    """Set data[v] = vec and refresh; on failure data[v] is restored too."""
    (tab, ls, pool, pls, theta, data, Ut, Uls, Up, Upls, out, NI, Uidx, Upidx, touched,
     path) = views(F, I, L)
    k = L[21]
    old = data[v].copy()
    for x in range(k):
        data[v, x] = vec[x]
    ok, nt, work = refresh_kernel(vnode[v], NI, tab, ls, pool, pls, theta, data, k, Ut, Uls, Uidx,
                                  Up, Upls, Upidx, touched)
    if not ok:
        for x in range(k):
            data[v, x] = old[x]
    return ok, nt, work


@_jit
def marginal_packed(v, F, I, L, vnode):
    (tab, ls, pool, pls, theta, data, Ut, Uls, Up, Upls, out, NI, Uidx, Upidx, touched,
     path) = views(F, I, L)
    return marginal_kernel(vnode[v], v, NI, tab, pool, theta, data, L[21], path, out)


def pure_module():
    """This file loaded again as plain Python (no numba): the reference build."""
    import importlib.util
    import sys

    name = __name__ + "_pure"
    mod = sys.modules.get(name)
    if mod is None:
        spec = importlib.util.spec_from_file_location(name, __file__)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return mod
