"""Flat-array kernels of the online sum-product model ("Online Sum-Product Computation over Trees",
Herbster, Pasteris & Vitale, section 4), division-free and exact at any magnitude.

One source, two builds: imported as ``engine.inference._online_kernels`` every function is compiled
by numba (lazily, on first call, cached on disk); loaded under the name ``..._online_kernels_pure``
(see :func:`pure_module`) the very same functions run as plain Python on NumPy arrays — the
reference the compiled build is tested against.

Numbers. Every entry of every table, product-tree vector and message is a mantissa and an
exponent (``engine.inference._extended``): value m·2^e, m in [2^-128, 2^128] or exactly 0. So no
product under- or overflows, sums of non-negative terms are exact to a few ulps whatever the
magnitudes, and a table is all zero only when its component's mass is exactly zero.

Layout (m = nodes of D, numbered children before parents, root m - 1). ``NI[z]`` holds
``[dpar, nb, split, end0, end1, bd, bdd, gofs, gP, gslot]``: D-parent, number of boundary
vertices, splitting vertex (-1 for an edge), the edge's ends (towards s, away from s), the two
2-boundary children (``bd`` holds the parent-side boundary vertex "dot", ``bdd`` the other,
"ddot"), the offset and leaf count of the node's product tree, and the node's slot in its
D-parent's product tree (-1 for 2-boundary children).

``tab[z]`` is the component's summary ψ^{S^z} (Definition 7) over its boundary: a scalar (root),
a k-vector over the D-parent's splitting vertex (α, one boundary vertex) or a k x k matrix (β),
rows the D-parent's splitting vertex, columns the other boundary vertex. Mantissas fill
``tab[z, :k*k]`` (row-major; a vector uses the first k, the scalar the first one), exponents
``tab[z, k*k:2*k*k]`` in the same places. The product tree of an internal node z (splitting
vertex v) holds in its leaves d_v (slot 0) and the α of every 1-boundary child; its root is the
paper's γ(v); a pool row is k mantissas then k exponents. Leaves of T are not boundary vertices:
their data is summed into their edge's table.

A kernel that finds a table of all zeros (total mass zero) restores every entry it wrote from
its undo buffers and returns failure, so the model is left exactly as it was.

The buffers: floats ``F`` and ints ``I`` with the offsets and sizes in the vector ``L``, indexed by
the ``L_*`` constants below (see ``online.py``, which lays them out).
"""

from __future__ import annotations

import numpy as np

from engine.jit import inline_kernel, kernel

__all__ = ["layout_kernel", "orient_kernel", "fill_kernel", "refresh_kernel", "marginal_kernel",
           "views", "refresh_entry", "update_entry", "marginal_entry", "update_many_entry",
           "marginal_many_entry", "marginal_update_many_entry", "log_partition_entry",
           "pure_module", "NI_WIDTH", "L_SIZE", "ST_SIZE", "VPATH", "scratch_size"]

_PURE = __name__.endswith("_pure")

if _PURE:
    from engine.inference._extended import pure_module as _extended_pure

    _X = _extended_pure()
else:
    from engine.inference import _extended as _X

norm = _X.norm
split = _X.split
pow2 = _X.pow2
to_log = _X.to_log
to_doubles = _X.to_doubles
prefetch_row = _X.prefetch_row
c_view = _X.c_view
c_view_i32 = _X.c_view_i32
ZERO_E = _X.ZERO_E
#: In the fast path of a node table, non-zero scaled entries must be at least this (so that a
#: product of three is a normal double).
SAFE = 2.0 ** -300

# columns of NI
DPAR, NB, SPLIT, END0, END1, BD, BDD, GOFS, GP, GSLOT = range(10)
NI_WIDTH = 10

# The layout vector L, kept in I[0:L_SIZE] so that an entry point takes just (F, I): offsets
# into F ...
L_TAB, L_POOL, L_THETA, L_DATA, L_UT, L_UP, L_OUT, L_SCR = range(8)
# ... offsets into I (``vpath[v]``: the D node holding vertex v and its next VPATH - 1
# D-ancestors, -1 past the root, as int32; ``stats``: see ST_*) ...
L_NI, L_UIDX, L_UPIDX, L_TOUCHED, L_PATH, L_VNODE, L_STATS = range(8, 15)
# ... and sizes: D nodes, product-tree pool rows, vertices, undo capacity (tables, pool rows), k
L_M, L_S, L_N, L_CT, L_CP, L_K = range(15, 21)
L_SIZE = 21
# stats of the latest operation, at I[L[L_STATS] + ST_*]: D nodes touched, multiply-adds, and
# the multiply-adds of every operation so far
ST_NT, ST_WORK, ST_TOTAL = range(3)
ST_SIZE = 3
#: D nodes of a vertex's path kept with it, as int32: one 64-byte line (sixteen measured
#: 0.15-0.2 µs faster an update at 10^6 than eight, which miss the levels that sit in L3)
VPATH = 16
# status codes of the entry points
OK, INCONSISTENT, INVALID, OUT_OF_RANGE = range(4)
_TINY = 2.2250738585072014e-308
_HUGE = 1.7976931348623157e308


# rows of the scratch array ``sc`` (SC_ROWS x k*k; a row holds a k-vector of mantissas and, for
# the message rows, its k exponents after them): addressed by element, never sliced, so that
# the hot loops create no array views
PM, PE, WD, D1, D2, R1, R2, HD, HDD, MD, MDD, LV, G, OLD = range(14)
SC_ROWS = 14


def scratch_size(k: int) -> int:
    """Floats of scratch the kernels use (so that no operation allocates)."""
    return SC_ROWS * k * k


@inline_kernel
def _sum_terms(sc, cnt):
    """Σ sc[PM, i] 2^sc[PE, i], i < cnt, aligned on the largest exponent: (mantissa, exponent)."""
    F = ZERO_E
    for i in range(cnt):
        if sc[PE, i] > F:
            F = sc[PE, i]
    s = 0.0
    for i in range(cnt):
        s += sc[PM, i] * pow2(sc[PE, i] - F)
    return norm(s, F)


@inline_kernel
def _put(a, r, c, off, mm, ee):
    """Entry c of row r of a table or pool array := mm 2^ee (the exponent ``off`` places after the
    mantissa). True when it is not zero."""
    a[r, c] = mm
    a[r, off + c] = ee
    return mm > 0.0


@inline_kernel
def _edge_table(z, NI, tab, theta, data, k, sc):
    """Table of edge node z; False when it is all zero. Returns (ok, work)."""
    kk = k * k
    w = NI[NI[z, DPAR], SPLIT]
    p = NI[z, END0]
    u = NI[z, END1]
    flip = w != p
    o = p if flip else u
    some = False
    if NI[z, NB] == 2:
        for a in range(k):
            for b in range(k):
                mm, ee = split(theta[z, b, a] if flip else theta[z, a, b])
                some = _put(tab, z, a * k + b, kk, mm, ee) or some
        return some, kk
    # a leaf of T at the far end: sum it out, α(a) = Σ_b θ(a, b) d_o(b)
    for a in range(k):
        for b in range(k):
            m1, e1 = split(theta[z, b, a] if flip else theta[z, a, b])
            m2, e2 = split(data[o, b])
            sc[PM, b] = m1 * m2
            sc[PE, b] = e1 + e2
        mm, ee = _sum_terms(sc, k)
        some = _put(tab, z, a, kk, mm, ee) or some
    return some, kk


@inline_kernel
def _seg_node(pool, base, i, k):
    """Product tree node i := product of its two children; False when all zero."""
    a = base + 2 * i
    b = a + 1
    t = base + i
    some = False
    for x in range(k):
        mm, ee = norm(pool[a, x] * pool[b, x], pool[a, k + x] + pool[b, k + x])
        some = _put(pool, t, x, k, mm, ee) or some
    return some


@inline_kernel
def _node_table(z, NI, tab, pool, k, sc):
    """Table of internal node z from γ (its product tree's root) and its 2-boundary children."""
    g = NI[z, GOFS] + 1
    nb = NI[z, NB]
    kk = k * k
    if nb == 0:
        for a in range(k):
            sc[PM, a] = pool[g, a]
            sc[PE, a] = pool[g, k + a]
        mm, ee = _sum_terms(sc, k)
        tab[z, 0] = mm
        tab[z, kk] = ee
        return mm > 0.0, k
    c1 = NI[z, BD]
    some = False
    if nb == 1:
        for x in range(k):
            for a in range(k):
                sc[PM, a] = pool[g, a] * tab[c1, a * k + x]
                sc[PE, a] = pool[g, k + a] + tab[c1, kk + a * k + x]
            mm, ee = _sum_terms(sc, k)
            some = _put(tab, z, x, kk, mm, ee) or some
        return some, kk
    c2 = NI[z, BDD]
    # Fast path: scale each row a of β_c1 and β_c2 by its largest exponent and γ by its largest;
    # when every non-zero scaled entry is >= SAFE, the k^3 products are plain doubles >= SAFE^3
    # (never subnormal), so the sums are exact, and one exponent serves the whole table.
    fast = _scale_rows(tab, c1, k, sc, D1, R1) & _scale_rows(tab, c2, k, sc, D2, R2)
    W = ZERO_E
    for a in range(k):
        sc[PE, a] = pool[g, k + a] + sc[R1, a] + sc[R2, a]
        if pool[g, a] > 0.0 and sc[PE, a] > W:
            W = sc[PE, a]
    for a in range(k):
        # only where γ is non-zero: W is the largest exponent of those, so the shift is <= 0
        w = pool[g, a] * pow2(sc[PE, a] - W) if pool[g, a] > 0.0 else 0.0
        if pool[g, a] > 0.0 and w < SAFE:
            fast = False
        sc[WD, a] = w
    if fast:
        for x in range(kk):
            sc[LV, x] = 0.0
        for a in range(k):
            for x in range(k):
                u = sc[D1, a * k + x] * sc[WD, a]
                for y in range(k):
                    sc[LV, x * k + y] += u * sc[D2, a * k + y]
        for x in range(kk):
            mm, ee = norm(sc[LV, x], W)
            some = _put(tab, z, x, kk, mm, ee) or some
        return some, kk * k
    for x in range(k):
        for y in range(k):
            for a in range(k):
                sc[PM, a] = tab[c1, a * k + x] * pool[g, a] * tab[c2, a * k + y]
                sc[PE, a] = tab[c1, kk + a * k + x] + pool[g, k + a] + tab[c2, kk + a * k + y]
            mm, ee = _sum_terms(sc, k)
            some = _put(tab, z, x * k + y, kk, mm, ee) or some
    return some, kk * k


@inline_kernel
def _scale_rows(tab, c, k, sc, row, keep):
    """sc[row, a*k + x] = β_c[a, x] / 2^r_a as doubles, r_a (kept in sc[keep, a]) the largest
    exponent of row a. False if a non-zero scaled entry falls below SAFE."""
    kk = k * k
    ok = True
    for a in range(k):
        r = ZERO_E
        for x in range(k):
            if tab[c, a * k + x] > 0.0 and tab[c, kk + a * k + x] > r:
                r = tab[c, kk + a * k + x]
        sc[keep, a] = r
        for x in range(k):
            v = tab[c, a * k + x] * pow2(tab[c, kk + a * k + x] - r) if tab[c, a * k + x] > 0.0 else 0.0
            sc[row, a * k + x] = v
            if tab[c, a * k + x] > 0.0 and v < SAFE:
                ok = False
    return ok


@inline_kernel
def _set_data_leaf(pool, t, data, v, k):
    """Product-tree slot 0 := d_v; False when d_v is all zero."""
    some = False
    for x in range(k):
        mm, ee = split(data[v, x])
        some = _put(pool, t, x, k, mm, ee) or some
    return some


@inline_kernel
def _set_alpha_leaf(pool, t, tab, c, k):
    kk = k * k
    for x in range(k):
        pool[t, x] = tab[c, x]
        pool[t, k + x] = tab[c, kk + x]


@kernel
def fill_kernel(NI, tab, pool, theta, data, k, child_ptr, child_idx, sc):
    """init: tables bottom-up, product trees filled from children. Returns first all-zero node or -1."""
    m = NI.shape[0]
    for z in range(m):
        v = NI[z, SPLIT]
        if v < 0:
            ok, _ = _edge_table(z, NI, tab, theta, data, k, sc)
            if not ok:
                return z
            continue
        base = NI[z, GOFS]
        P = NI[z, GP]
        for i in range(P, 2 * P):
            for x in range(k):
                pool[base + i, x] = 1.0
                pool[base + i, k + x] = 0.0
        if not _set_data_leaf(pool, base + P, data, v, k):
            return z
        for j in range(child_ptr[z], child_ptr[z + 1]):
            c = child_idx[j]
            s = NI[c, GSLOT]
            if s >= 0:
                _set_alpha_leaf(pool, base + P + s, tab, c, k)
        for i in range(P - 1, 0, -1):
            if not _seg_node(pool, base, i, k):
                return z
        ok, _ = _node_table(z, NI, tab, pool, k, sc)
        if not ok:
            return z
    return -1


@inline_kernel
def _save_row(src, r, U, Uidx, nu, w):
    """Row r of src (``w`` entries wide) saved to the undo buffer U as its entry nu."""
    for j in range(w):
        U[nu, j] = src[r, j]
    Uidx[nu] = r
    return nu + 1


@kernel
def _restore(tab, Ut, Uidx, nu, pool, Up, Upidx, npu):
    for i in range(nu - 1, -1, -1):
        z = Uidx[i]
        for j in range(tab.shape[1]):
            tab[z, j] = Ut[i, j]
    for i in range(npu - 1, -1, -1):
        t = Upidx[i]
        for j in range(pool.shape[1]):
            pool[t, j] = Up[i, j]


@inline_kernel
def _climb(pool, base, i, k, Up, Upidx, npu):
    """Recompute product-tree nodes i, i/2, ..., 1 of the tree at ``base`` (saving each first, for
    the undo). Returns (ok, npu, work); ok is False when a product is all zero."""
    work = 0
    while i >= 1:
        npu = _save_row(pool, base + i, Up, Upidx, npu, 2 * k)
        work += k
        if not _seg_node(pool, base, i, k):
            return False, npu, work
        i >>= 1
    return True, npu, work


@inline_kernel
def _retable(y, NI, tab, pool, k, sc, Ut, Uidx, nu, touched, nt):
    """Save D node y's table (for the undo), recompute it and record y as touched. Returns
    (ok, nu, nt, work); ok is False when the table is all zero."""
    nu = _save_row(tab, y, Ut, Uidx, nu, 2 * k * k)
    ok, w = _node_table(y, NI, tab, pool, k, sc)
    touched[nt] = y
    return ok, nu, nt + 1, w


@inline_kernel
def _prefetch_path(z, NI, tab, pool, vpath, v):
    """Cache hints for a walk from D node ``z`` up to the root: each node's table, its 2-boundary
    children's tables and the rows of its product tree that the walk climbs through (from the
    slot of the node below it on the walk, from slot 0 at ``z``, or just the root). Only the
    chain of D-parents is read here, so the misses of the other rows overlap; the walk that
    follows finds them in the cache (at 10^6 vertices the levels below the top dozen miss).

    When the walk starts at vertex ``v``'s node (``v >= 0``), the lowest levels' nodes are read
    from ``vpath[v]`` and their rows asked for all at once, before the chain is followed: its
    misses then overlap instead of following one another (each level's parent is in the row
    before)."""
    if v >= 0:
        for j in range(VPATH):
            y = np.int64(vpath[v, j])
            if y < 0:
                break
            prefetch_row(NI, y)
            prefetch_row(tab, y)
    c = -1
    while z >= 0:
        prefetch_row(tab, z)
        if NI[z, BD] >= 0:
            prefetch_row(tab, NI[z, BD])
        if NI[z, BDD] >= 0:
            prefetch_row(tab, NI[z, BDD])
        if NI[z, SPLIT] >= 0:
            i = 1
            if c < 0:
                i = NI[z, GP]
            elif NI[c, GSLOT] >= 0:
                i = NI[z, GP] + NI[c, GSLOT]
            while i >= 1:
                prefetch_row(pool, NI[z, GOFS] + i)
                i >>= 1
        c = z
        z = NI[z, DPAR]


@kernel
def refresh_kernel(start, NI, tab, pool, theta, data, k, Ut, Uidx, Up, Upidx, touched, sc, vpath, v):
    """Recompute node ``start`` (its data or edge potential changed) and every D ancestor.

    ``start`` is an edge node (edge potential or a T-leaf's data changed) or an internal node
    (its splitting vertex's data changed: product-tree slot 0). Returns (ok, touched count,
    arithmetic count); on failure every written entry is restored. ``v``: the vertex whose data
    changed (its node is ``start``; -1 for an edge potential). Two labels go to a build with k
    compiled in (see :func:`_refresh_k2`).
    """
    if k == 2:
        return _refresh_k2(start, NI, tab, pool, theta, data, Ut, Uidx, Up, Upidx, touched, sc, vpath, v)
    return _refresh_walk(start, NI, tab, pool, theta, data, k, Ut, Uidx, Up, Upidx, touched, sc, vpath, v)


@kernel
def _refresh_k2(start, NI, tab, pool, theta, data, Ut, Uidx, Up, Upidx, touched, sc, vpath, v):
    """:func:`refresh_kernel` for k = 2 (binary labels): the walk compiled with k a constant, so
    that every loop over labels is unrolled (an update at 10^6 vertices ≈ 0.3 µs faster)."""
    return _refresh_walk(start, NI, tab, pool, theta, data, 2, Ut, Uidx, Up, Upidx, touched, sc, vpath, v)


@inline_kernel
def _refresh_walk(start, NI, tab, pool, theta, data, k, Ut, Uidx, Up, Upidx, touched, sc, vpath, v):
    """The body of :func:`refresh_kernel`, compiled into it and into :func:`_refresh_k2`."""
    _prefetch_path(start, NI, tab, pool, vpath, v)
    nu = 0
    npu = 0
    nt = 0
    work = 0
    ok = True
    c = -1          # the D child the walk comes from; -1 at an internal start (its own data)
    y = start
    if NI[start, SPLIT] < 0:
        nu = _save_row(tab, start, Ut, Uidx, nu, 2 * k * k)
        ok, w = _edge_table(start, NI, tab, theta, data, k, sc)
        work += w
        touched[nt] = start
        nt += 1
        c = start
        y = NI[start, DPAR]
    while ok and y >= 0:
        base = NI[y, GOFS]
        i = 0           # the product-tree leaf written at y, if any
        if c < 0:
            i = NI[y, GP]
            npu = _save_row(pool, base + i, Up, Upidx, npu, 2 * k)
            ok = _set_data_leaf(pool, base + i, data, NI[y, SPLIT], k)
        elif NI[c, GSLOT] >= 0:
            i = NI[y, GP] + NI[c, GSLOT]
            npu = _save_row(pool, base + i, Up, Upidx, npu, 2 * k)
            _set_alpha_leaf(pool, base + i, tab, c, k)
        if ok and i > 0:
            ok, npu, w = _climb(pool, base, i >> 1, k, Up, Upidx, npu)
            work += w
        if ok:
            ok, nu, nt, w = _retable(y, NI, tab, pool, k, sc, Ut, Uidx, nu, touched, nt)
            work += w
        c = y
        y = NI[c, DPAR]
    if not ok:      # a table or product came out all zero: undo every write, newest first
        _restore(tab, Ut, Uidx, nu, pool, Up, Upidx, npu)
    return ok, nt, work


@inline_kernel
def _matvec(c, h, tab, out, k, sc):
    """sc[out] := β_c sc[h] (out[a] = Σ_x β_c[a, x] h[x]) for a 2-boundary child c, or all ones
    when c < 0. ``h`` and ``out`` are scratch rows: k mantissas then k exponents."""
    if c < 0:
        for a in range(k):
            sc[out, a] = 1.0
            sc[out, k + a] = 0.0
        return 0
    kk = k * k
    for a in range(k):
        for x in range(k):
            sc[PM, x] = tab[c, a * k + x] * sc[h, x]
            sc[PE, x] = tab[c, kk + a * k + x] + sc[h, k + x]
        mm, ee = _sum_terms(sc, k)
        sc[out, a] = mm
        sc[out, k + a] = ee
    return kk


@inline_kernel
def _mul_into(sc, dst, src, k):
    """sc[dst] := sc[dst] * sc[src], entrywise (rows of k mantissas then k exponents)."""
    for x in range(k):
        mm, ee = norm(sc[dst, x] * sc[src, x], sc[dst, k + x] + sc[src, k + x])
        sc[dst, x] = mm
        sc[dst, k + x] = ee


@inline_kernel
def _ones(sc, row, k):
    for x in range(k):
        sc[row, x] = 1.0
        sc[row, k + x] = 0.0


@kernel
def marginal_kernel(target, vertex, NI, tab, pool, theta, data, k, path, out, sc, vpath):
    """Marginal of ``vertex`` (whose D node is ``target``) by a walk down from D's root.

    Carries the outside messages h at the current node's boundary vertices (the outside of a
    2-boundary component factorises over its two boundary vertices): scratch rows HD (the "dot"
    boundary vertex) and HDD ("ddot"). Writes the normalised marginal to ``out`` (NaN if every
    entry is zero: impossible when the mass is positive); returns (touched count, arithmetic
    count). The walk is written to ``path`` root first. Two labels go to a build with k
    compiled in, as in :func:`refresh_kernel`.
    """
    if k == 2:
        return _marginal_k2(target, vertex, NI, tab, pool, theta, data, path, out, sc, vpath)
    return _marginal_walk(target, vertex, NI, tab, pool, theta, data, k, path, out, sc, vpath)


@kernel
def _marginal_k2(target, vertex, NI, tab, pool, theta, data, path, out, sc, vpath):
    """:func:`marginal_kernel` for k = 2, k compiled in."""
    return _marginal_walk(target, vertex, NI, tab, pool, theta, data, 2, path, out, sc, vpath)


@inline_kernel
def _marginal_walk(target, vertex, NI, tab, pool, theta, data, k, path, out, sc, vpath):
    """The body of :func:`marginal_kernel`, compiled into it and into :func:`_marginal_k2`."""
    _prefetch_path(target, NI, tab, pool, vpath, vertex)
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
    k2 = 2 * k
    _ones(sc, HD, k)
    _ones(sc, HDD, k)
    work = 0
    for i in range(L - 1):
        z = path[i]
        c = path[i + 1]
        gi = NI[z, GOFS] + 1
        # the message through a 2-boundary child is needed unless the walk goes into that child
        if c != NI[z, BD]:
            work += _matvec(NI[z, BD], HD, tab, MD, k, sc)
        if c != NI[z, BDD]:
            work += _matvec(NI[z, BDD], HDD, tab, MDD, k, sc)
        for x in range(k2):
            sc[LV, x] = pool[gi, x]
        if c == NI[z, BD]:
            _mul_into(sc, LV, MDD, k)
            for x in range(k2):
                sc[HDD, x] = sc[HD, x]
        elif c == NI[z, BDD]:
            _mul_into(sc, LV, MD, k)
        else:
            # γ without c: the product of c's siblings in the product tree, times the messages
            base = NI[z, GOFS]
            j = NI[z, GP] + NI[c, GSLOT]
            _ones(sc, LV, k)
            while j > 1:
                sib = base + (j ^ 1)
                for x in range(k):
                    mm, ee = norm(sc[LV, x] * pool[sib, x], sc[LV, k + x] + pool[sib, k + x])
                    sc[LV, x] = mm
                    sc[LV, k + x] = ee
                work += k
                j >>= 1
            _mul_into(sc, LV, MD, k)
            _mul_into(sc, LV, MDD, k)
        work += 3 * k
        for x in range(k2):
            sc[HD, x] = sc[LV, x]
    t = target
    if NI[t, SPLIT] >= 0:
        gi = NI[t, GOFS] + 1
        work += _matvec(NI[t, BD], HD, tab, MD, k, sc)
        work += _matvec(NI[t, BDD], HDD, tab, MDD, k, sc)
        for x in range(k2):
            sc[LV, x] = pool[gi, x]
        _mul_into(sc, LV, MD, k)
        _mul_into(sc, LV, MDD, k)
        work += 3 * k
    else:
        # a leaf of T at the far end of its edge: d_v(x) Σ_w θ(w, x) h_w(w)
        w = NI[NI[t, DPAR], SPLIT]
        flip = w != NI[t, END0]
        for x in range(k):
            for a in range(k):
                m1, e1 = split(theta[t, x, a] if flip else theta[t, a, x])
                sc[PM, a] = m1 * sc[HD, a]
                sc[PE, a] = e1 + sc[HD, k + a]
            mm, ee = _sum_terms(sc, k)
            m2, e2 = split(data[vertex, x])
            mm, ee = norm(mm * m2, ee + e2)
            sc[LV, x] = mm
            sc[LV, k + x] = ee
        work += k * k + k
    for x in range(k):
        sc[PM, x] = sc[LV, x]
        sc[PE, x] = sc[LV, k + x]
    to_doubles(sc[PM], sc[PE], out, k)
    s = 0.0
    for x in range(k):
        s += out[x]
    if s == 0.0:    # every entry zero: impossible for a consistent model (the caller raises)
        for x in range(k):
            out[x] = np.nan
        return L, work
    for x in range(k):
        out[x] /= s
    return L, work


@kernel
def layout_kernel(dpar, split_vertex, boundary, ends, NI):
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
        NI[z, SPLIT] = split_vertex[z]
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
        w = split_vertex[y]
        if NI[c, NB] == 2:
            other = boundary[c, 1] if boundary[c, 0] == w else boundary[c, 0]
            yp = dpar[y]
            dot = split_vertex[yp] if yp >= 0 else -1
            if other == dot:
                NI[y, BD] = c
            else:
                NI[y, BDD] = c
        else:
            q[y] += 1
            NI[c, GSLOT] = q[y]
    total = 0
    for z in range(m):
        if split_vertex[z] < 0:
            continue
        P = 1
        while P < q[z] + 1:
            P *= 2
        NI[z, GP] = P
        NI[z, GOFS] = total - 1   # node i of the product tree lives at GOFS + i, i = 1..2P-1
        total += 2 * P - 1
    return total


@kernel
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


@kernel
def views(F, I):
    """The model's arrays as views of the two flat buffers (layout in I[0:L_SIZE]).

    Compiled, the views are borrowed (``c_view``: they do not keep F and I alive), for the entry
    points only; Python takes its views from the plain-Python build, where they are NumPy views."""
    L = I
    m = L[L_M]
    S = L[L_S]
    n = L[L_N]
    ct = L[L_CT]
    cp = L[L_CP]
    k = L[L_K]
    kk = k * k
    tw = 2 * kk
    tab = c_view(F, L[L_TAB], (m, tw))       # (the layout was built to fit: no checks)
    pool = c_view(F, L[L_POOL], (S, 2 * k))
    theta = c_view(F, L[L_THETA], (n - 1, k, k))
    data = c_view(F, L[L_DATA], (n, k))
    Ut = c_view(F, L[L_UT], (ct, tw))
    Up = c_view(F, L[L_UP], (cp, 2 * k))
    out = c_view(F, L[L_OUT], (k,))
    sc = c_view(F, L[L_SCR], (SC_ROWS, kk))
    NI = c_view(I, L[L_NI], (m, NI_WIDTH))
    Uidx = c_view(I, L[L_UIDX], (ct,))
    Upidx = c_view(I, L[L_UPIDX], (cp,))
    touched = c_view(I, L[L_TOUCHED], (ct,))
    path = c_view(I, L[L_PATH], (ct,))
    vpath = c_view_i32(I, L[L_VNODE], (n, VPATH))
    return tab, pool, theta, data, Ut, Up, out, sc, NI, Uidx, Upidx, touched, path, vpath


@kernel
def _record(I, nt, work):
    st = I[L_STATS]
    I[st + ST_NT] = nt
    I[st + ST_WORK] = work
    I[st + ST_TOTAL] += work


@kernel
def _valid_row(x, k):
    """The vector x holds k entries, each 0 or a normal double (not negative, NaN, inf,
    subnormal)."""
    if x.shape[0] != k:
        return False
    for a in range(k):
        y = x[a]
        if not (y == 0.0 or (y >= _TINY and y <= _HUGE)):
            return False
    return True


@kernel
def refresh_entry(start, F, I):
    """Recompute D node ``start`` and its ancestors (an edge potential changed): OK or
    INCONSISTENT (model unchanged)."""
    tab, pool, theta, data, Ut, Up, out, sc, NI, Uidx, Upidx, touched, path, vpath = views(F, I)
    ok, nt, work = refresh_kernel(start, NI, tab, pool, theta, data, I[L_K], Ut, Uidx, Up, Upidx,
                                  touched, sc, vpath, np.int64(-1))
    _record(I, nt, work)
    return OK if ok else INCONSISTENT


@inline_kernel
def _update(v, x, F, I, tab, pool, theta, data, Ut, Up, sc, NI, Uidx, Upidx, touched, vpath):
    """data[v] := x (a k-vector) and refresh its D path. OK, INCONSISTENT (model unchanged,
    data[v] restored too) or INVALID (a bad entry: nothing done)."""
    k = I[L_K]
    if not _valid_row(x, k):
        return INVALID
    for a in range(k):
        sc[OLD, a] = data[v, a]
        data[v, a] = x[a]
    ok, nt, work = refresh_kernel(np.int64(vpath[v, 0]), NI, tab, pool, theta, data, k, Ut, Uidx, Up,
                                  Upidx, touched, sc, vpath, v)
    _record(I, nt, work)
    if not ok:
        for x in range(k):
            data[v, x] = sc[OLD, x]
        return INCONSISTENT
    return OK


@inline_kernel
def _marginal(v, F, I, tab, pool, theta, data, sc, NI, path, out, vpath):
    nt, work = marginal_kernel(np.int64(vpath[v, 0]), v, NI, tab, pool, theta, data, I[L_K], path, out, sc,
                               vpath)
    _record(I, nt, work)


@kernel
def update_entry(v, x, F, I):
    """One update: data[v] := x (shape (k,)). v must be a vertex (0 <= v < n)."""
    tab, pool, theta, data, Ut, Up, out, sc, NI, Uidx, Upidx, touched, path, vpath = views(F, I)
    return _update(v, x, F, I, tab, pool, theta, data, Ut, Up, sc, NI, Uidx, Upidx, touched, vpath)


@kernel
def marginal_entry(v, F, I, out):
    """One marginal, written to out (k,). v must be a vertex (0 <= v < n). Returns True when
    the marginal came out all zero (NaN: impossible when the total mass is positive)."""
    tab, pool, theta, data, Ut, Up, _, sc, NI, Uidx, Upidx, touched, path, vpath = views(F, I)
    _marginal(v, F, I, tab, pool, theta, data, sc, NI, path, out, vpath)
    return out[0] != out[0]


@kernel
def _first_outside(vs, n):
    """The position of the first vertex outside 0..n-1, or -1."""
    for t in range(vs.shape[0]):
        if vs[t] < 0 or vs[t] >= n:
            return t
    return -1


@kernel
def _batch(vs, X, F, I, out, applied, ask, tell, skip):
    """For t in order: out[t] := the marginal of vs[t] (when ``ask``), then data[vs[t]] := X[t]
    (when ``tell``; ``applied[t]`` says it was done). An update that would make the mass zero is
    skipped (``skip``) or stops the batch. Returns (status, t): OK and len(vs), or the status and
    position of what stopped it (OUT_OF_RANGE for a vertex outside 0..n-1, found before anything
    is done; INVALID; INCONSISTENT)."""
    tab, pool, theta, data, Ut, Up, _, sc, NI, Uidx, Upidx, touched, path, vpath = views(F, I)
    bad = _first_outside(vs, I[L_N])
    if bad >= 0:
        return OUT_OF_RANGE, bad
    for t in range(vs.shape[0]):
        if ask:
            _marginal(vs[t], F, I, tab, pool, theta, data, sc, NI, path, out[t], vpath)
        if tell:
            st = _update(vs[t], X[t], F, I, tab, pool, theta, data, Ut, Up, sc, NI, Uidx, Upidx,
                         touched, vpath)
            if st == OK:
                applied[t] = True
            elif st == INVALID or not skip:
                return st, t
    return OK, vs.shape[0]


@kernel
def update_many_entry(vs, X, F, I, skip, applied):
    """data[vs[t]] := X[t] for t in order; ``applied``, ``skip`` and the result as in :func:`_batch`."""
    for t in range(vs.shape[0]):
        applied[t] = False
    return _batch(vs, X, F, I, X, applied, False, True, skip)


@kernel
def marginal_many_entry(vs, F, I, out):
    """out[t] = the marginal of vs[t]. Returns (status, t) as :func:`_batch`."""
    return _batch(vs, out, F, I, out, np.zeros(0, np.bool_), True, False, False)


@kernel
def marginal_update_many_entry(vs, X, F, I, out):
    """For t in order: out[t] = the marginal of vs[t], then data[vs[t]] := X[t] (a learner's
    predict-then-learn stream). Stops at the first update that fails; returns (status, t)."""
    return _batch(vs, X, F, I, out, np.zeros(vs.shape[0], np.bool_), True, True, False)


@kernel
def log_partition_entry(F, I):
    """ln Z from the root's scalar."""
    k = I[L_K]
    r = I[L_TAB] + (I[L_M] - 1) * 2 * k * k
    return to_log(F[r], F[r + k * k])


def pure_module():
    """This file loaded again as plain Python (no numba): the reference build."""
    return _X.load_pure(__name__, __file__)
