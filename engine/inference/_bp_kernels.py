"""Compiled sequential sweeps for belief propagation and max-product (numba, cached on disk).

Imported only when a sweep runs, so importing the engine never compiles anything. The sweeps run
over the tree renumbered in breadth-first order (``Tree.bfs_parent``, ``Tree.bfs_children_ptr``:
rank 0 the root, the children of rank i are ranks ``ch_ptr[i]..ch_ptr[i+1]-1``), so every
message array is read and written in order. Node potentials come in and marginals go out in the
caller's vertex order (``order[i]`` is the vertex of rank i): one gather and one scatter, done
inside the sweep. Edge potentials need no renumbering: the rows of ``tree.edges`` are already
in breadth-first order, so rank c's edge is row c - 1 (or one shared matrix).

Sum-product runs in two steps (lecture notes "Inferences on trees: sum-product algorithm",
sections 8.2 and 8.4):

- :func:`sum_product_kernel`, the fast pass, in plain doubles: every vector is scaled to a
  largest entry of 1 as it is formed and the factors are multiplied into log Z (one logarithm
  per many factors). It is exact whenever no product can underflow, which it makes sure of:
  the potentials' non-zero entries must lie in [2^-300, 2^300] (the edge potentials' checked by
  :func:`scan` before it starts, the node potentials' as it reads them) and every scaled vector
  must keep its non-zero entries at least ``TAU`` = 2^-300 (checked as it goes), so every
  product formed (of at most three such numbers) is a normal double. A failed check returns
  ``BAIL`` at once — never an answer that might be wrong.
- :func:`sum_product_wide`, the exact pass for the models the fast one gives up on: every entry
  is a mantissa and an exponent (``engine.inference._extended``), exact at any magnitude.

Both exclude a child's message from its parent's product with prefix and suffix products
(division-free, so zeros are exact), and a mass is zero only when it is exactly zero. Helpers
take an array and a row index rather than a row view: views in the per-vertex loops cost
reference counting.
"""

from __future__ import annotations

import numpy as np
from engine.jit import inline_kernel, kernel

from engine.inference._extended import ZERO_E, norm, pow2, prefetch_row, split, to_doubles, to_log

__all__ = ["sum_product_kernel", "sum_product_wide", "max_product_kernel", "lean_sweep", "scan",
           "OK", "ZERO", "BAIL", "INVALID", "PHI_LO", "PHI_HI", "P_LO", "P_HI"]

#: Return codes of the sum-product kernels (INVALID: a node potential entry is negative, NaN,
#: infinite or subnormal — the fast pass checks them as it reads them).
OK, ZERO, BAIL, INVALID = 0, 1, 2, 3
#: Smallest non-zero entry of a scaled vector in the fast pass.
TAU = 2.0 ** -300
#: Range of the non-zero entries of node and of edge potentials in the fast pass (checked by
#: :func:`scan` before it starts).
PHI_LO = 2.0 ** -300
PHI_HI = 2.0 ** 300
P_LO = 2.0 ** -300
P_HI = 2.0 ** 300
_TINY = 2.2250738585072014e-308
_HUGE = 1.7976931348623157e308


@kernel
def scan(a, lo, hi):
    """One pass over ``a``: (flat index of the first entry that is not 0 or a normal double in
    [2.2e-308, 1.8e308] — negative, NaN, infinite or subnormal — or -1; whether every non-zero
    entry lies in [lo, hi]). Validation at the boundary and the fast pass's range check at once."""
    f = a.ravel()
    inside = True
    for i in range(f.shape[0]):
        x = f[i]
        if not (x == 0.0 or (x >= _TINY and x <= _HUGE)):
            return i, False
        inside &= (x == 0.0) | ((x >= lo) & (x <= hi))
    return -1, inside


@inline_kernel
def _scale_row(A, i, k, acc, logz):
    """A[i] *= 1 / max A[i], the max carried into (acc, logz) by :func:`_carry`. Returns
    (status, acc, logz): ZERO when A[i] is all zero, BAIL when a non-zero entry falls below TAU
    (the fast pass must give up), else OK."""
    m = 0.0
    for a in range(k):
        if A[i, a] > m:
            m = A[i, a]
    if m == 0.0:
        return ZERO, acc, logz
    r = 1.0 / m
    bad = False
    for a in range(k):
        y = A[i, a]
        x = y * r
        bad |= (x < TAU) & (y != 0.0)     # the product itself may have underflowed to 0
        A[i, a] = x
    if bad:
        return BAIL, acc, logz
    acc, logz = _carry(m, acc, logz)
    return OK, acc, logz


@inline_kernel
def _rescale(A, i, k):
    """A[i] *= 1 / max A[i], branch-free. True (the fast pass must give up) when a non-zero entry
    falls below TAU or the largest is not a normal double (all zero, or underflowed after an
    earlier give-up: the loop goes on, so this must not divide by zero)."""
    m = 0.0
    for a in range(k):
        m = max(m, A[i, a])
    bad = m < _TINY
    r = 1.0 / max(m, _TINY)
    for a in range(k):
        x = A[i, a]
        y = x * r
        bad |= (y < TAU) & (x != 0.0)
        A[i, a] = y
    return bad


@inline_kernel
def _carry(m, acc, logz):
    """Multiply the scale factor m into the running product acc, moving acc into logz (as a log)
    before it could leave [2^-400, 2^400]: one logarithm per many factors, not one per factor."""
    if m < 2.0 ** -500 or m > 2.0 ** 500:
        return acc, logz + np.log(m)
    acc *= m
    if acc < 2.0 ** -400 or acc > 2.0 ** 400:
        return 1.0, logz + np.log(acc)
    return acc, logz


@kernel
def sum_product_kernel(order, rank, parent, ch_ptr, phi, E, inner, phin, up, down, marg, check_e=False):
    """The fast pass, for edge potentials whose non-zero entries :func:`scan` found within
    [P_LO, P_HI]; the node potentials are checked here as they are read (the scan of
    :func:`scan`, without a pass of its own). ``order`` maps ranks to vertices, ``rank``
    vertices to ranks. ``phi`` (n, k) and ``marg`` (n, k) by vertex; ``E`` (1, k, k) shared or
    (n - 1, k, k) by edge row; ``inner``, ``phin`` (φ by rank), ``up``, ``down`` by rank.
    ``phin`` is not needed once the beliefs are formed: it may be ``marg`` itself. With
    ``check_e`` the edge potentials' range is checked in the collect sweep, which reads each of
    them once anyway (else :func:`scan` has done it): an entry that is not 0 or in [P_LO, P_HI]
    (NaN, negative and infinite ones included) returns BAIL at once, and the caller, which has
    not validated them, then does before it answers anything else.
    Returns (status, log Z); status OK, ZERO (total mass 0), BAIL (also when a non-zero φ entry
    lies outside [PHI_LO, PHI_HI]) or INVALID (a φ entry that is not 0 or a normal double)."""
    n, k = phi.shape
    shared = E.shape[0] == 1
    acc = 1.0
    logz = 0.0
    inside = True
    for v in range(n):              # φ in rank order: sequential reads, scattered writes
        i = rank[v]                 # (cheaper than gathering with random reads), asked ahead
        if v + _AHEAD < n:
            prefetch_row(phin, rank[v + _AHEAD])
        for a in range(k):
            x = phi[v, a]
            if not (x == 0.0 or (x >= _TINY and x <= _HUGE)):
                return INVALID, 0.0
            inside &= (x == 0.0) | ((x >= PHI_LO) & (x <= PHI_HI))
            phin[i, a] = x
    if not inside:
        return BAIL, 0.0
    for i in range(n):              # inner starts as φ (by rank), so the sweeps below need no
        for a in range(k):          # branch on leaves (unpredictable on random trees)
            inner[i, a] = phin[i, a]
    for a in range(k):
        up[0, a] = 1.0              # the root sends no message
    # collect: inner[v] = phi[v] * prod_children up[c], scaled after each product (a leaf's is
    # φ itself: E φ >= 2^-600 stays normal); up[v] = E_v @ inner[v]
    e_in = True
    for v in range(n - 1, 0, -1):
        p = parent[v]
        j = 0 if shared else v - 1
        for a in range(k):
            s = 0.0
            for b in range(k):
                e = E[j, a, b]
                s += e * inner[v, b]
                if check_e:
                    e_in &= (e == 0.0) | ((e >= P_LO) & (e <= P_HI))
            up[v, a] = s
        if not e_in:
            return BAIL, 0.0
        status, acc, logz = _scale_row(up, v, k, acc, logz)
        if status != OK:
            return status, 0.0
        for a in range(k):
            inner[p, a] *= up[v, a]
        status, acc, logz = _scale_row(inner, p, k, acc, logz)
        if status != OK:
            return status, 0.0
    s = 0.0
    for a in range(k):
        s += inner[0, a]
    logz += np.log(acc) + np.log(s)
    # distribute: down[c] = E_c^T (phi[p] down[p] prod_{siblings s != c} up[s]), the prefix
    # products waiting in down[c] while the suffix products are formed. Every product is of two
    # vectors whose non-zero entries are >= TAU (times E: >= 2^-900, still normal) and is scaled
    # at once; a scaled entry below TAU is noted and the pass gives up at the end (the values
    # formed meanwhile are discarded), so the loop has no exits.
    for a in range(k):
        down[0, a] = 1.0
    t = np.empty((2, k))    # row 0: phi[p] down[p] times a prefix, then prefix x suffix; row 1: a suffix
    bad = False
    for p in range(n):
        lo = ch_ptr[p]
        hi = ch_ptr[p + 1]
        if lo == hi:
            continue
        for a in range(k):
            t[0, a] = phin[p, a] * down[p, a]     # phi >= 2^-300, down >= TAU: normal
        last = hi - 1
        if lo == last:                           # one child (paths): no exclusion
            _push_down(E, shared, lo, t, 0, down, k)
            bad |= _rescale(down, lo, k)
            continue
        bad |= _rescale(t, 0, k)
        for c in range(lo, last):
            for a in range(k):
                down[c, a] = t[0, a]
                t[0, a] *= up[c, a]
            bad |= _rescale(t, 0, k)
        for a in range(k):
            down[last, a] = t[0, a]
            t[1, a] = 1.0
        for c in range(last, lo - 1, -1):
            for a in range(k):
                t[0, a] = down[c, a] * t[1, a]
            _push_down(E, shared, c, t, 0, down, k)
            bad |= _rescale(down, c, k)
            if c > lo:
                for a in range(k):
                    t[1, a] *= up[c, a]
                bad |= _rescale(t, 1, k)
    if bad:
        return BAIL, 0.0
    if not _beliefs(order, inner, down, marg, k):
        return BAIL, 0.0
    return OK, logz


@inline_kernel
def _push_down(E, shared, c, X, i, down, k):
    """down[c] = E_c^T X[i] (the message from c's parent, before scaling)."""
    j = 0 if shared else c - 1
    for b in range(k):
        s = 0.0
        for a in range(k):
            s += E[j, a, b] * X[i, a]
        down[c, b] = s


@kernel
def _beliefs(order, inner, down, marg, k):
    """marg[order[v]] = inner[v] * down[v] (inner[v] is φ_v times the messages from v's
    children, φ_v itself for a leaf), normalised to sum one, formed in rank order and written
    once each to the caller's vertex order, the rows written ``_AHEAD`` ranks later asked into the
    cache first (scattered writes otherwise wait for their lines one by one). False if one is all
    zero."""
    n = inner.shape[0]
    t = np.empty(k)
    for v in range(n):
        if v + _AHEAD < n:
            prefetch_row(marg, order[v + _AHEAD])
        s = 0.0
        for a in range(k):
            x = inner[v, a] * down[v, a]
            t[a] = x
            s += x
        if s == 0.0:
            return False
        r = 1.0 / s
        u = order[v]
        for a in range(k):
            marg[u, a] = t[a] * r
    return True


#: how many rows ahead the scattering loops ask for the rows they will write
_AHEAD = 48


# ---------------------------------------------------------------------- the exact pass

@kernel
def _wide_push(E, shared, v, transpose, Xm, Xe, i, Ym, Ye, r, k, pm, pe):
    """Y[r] = E_v X[i] (or E_v^T X[i]), vectors as mantissas and exponents; True if Y[r] != 0."""
    j = 0 if shared else v - 1
    some = False
    for a in range(k):
        F = ZERO_E
        for b in range(k):
            m1, e1 = split(E[j, b, a] if transpose else E[j, a, b])
            pm[b] = m1 * Xm[i, b]
            pe[b] = e1 + Xe[i, b]
            if pe[b] > F:
                F = pe[b]
        s = 0.0
        for b in range(k):
            s += pm[b] * pow2(pe[b] - F)
        mm, ee = norm(s, F)
        Ym[r, a] = mm
        Ye[r, a] = ee
        some |= mm > 0.0
    return some


@kernel
def _wide_mul(Am, Ae, i, Bm, Be, j, k):
    """A[i] *= B[j] entrywise."""
    for x in range(k):
        mm, ee = norm(Am[i, x] * Bm[j, x], Ae[i, x] + Be[j, x])
        Am[i, x] = mm
        Ae[i, x] = ee


@kernel
def _wide_copy(Am, Ae, i, Bm, Be, j, k):
    for x in range(k):
        Am[i, x] = Bm[j, x]
        Ae[i, x] = Be[j, x]


@kernel
def sum_product_wide(order, parent, ch_ptr, phi, E, up, down, marg):
    """The exact pass (mantissas and exponents), same arrays as :func:`sum_product_kernel`.
    Writes up and down by rank as doubles scaled to a common exponent per row, marg by vertex
    (rows sum to one). Returns (status, log Z)."""
    n, k = phi.shape
    shared = E.shape[0] == 1
    im = np.empty((n, k))
    ie = np.empty((n, k))
    um = np.empty((n, k))
    ue = np.empty((n, k))
    dm = np.empty((n, k))
    de = np.empty((n, k))
    tm = np.empty((2, k))       # row 0: the running prefix or suffix; row 1: prefix * suffix
    te = np.empty((2, k))
    pm = np.empty(k)
    pe = np.empty(k)
    for i in range(n):
        for a in range(k):
            im[i, a], ie[i, a] = split(phi[order[i], a])
    for a in range(k):
        um[0, a] = 1.0      # the root sends no message
        ue[0, a] = 0.0
        dm[0, a] = 1.0
        de[0, a] = 0.0
    for v in range(n - 1, 0, -1):
        if not _wide_push(E, shared, v, False, im, ie, v, um, ue, v, k, pm, pe):
            return ZERO, 0.0
        _wide_mul(im, ie, parent[v], um, ue, v, k)
    F = ZERO_E
    for a in range(k):
        if ie[0, a] > F:
            F = ie[0, a]
    s = 0.0
    for a in range(k):
        s += im[0, a] * pow2(ie[0, a] - F)
    sm0, se0 = norm(s, F)
    if sm0 == 0.0:
        return ZERO, 0.0
    logz = to_log(sm0, se0)
    for p in range(n):
        lo = ch_ptr[p]
        hi = ch_ptr[p + 1]
        if lo == hi:
            continue
        for a in range(k):
            tm[0, a], te[0, a] = split(phi[order[p], a])
        _wide_mul(tm, te, 0, dm, de, p, k)
        for c in range(lo, hi):
            _wide_copy(dm, de, c, tm, te, 0, k)
            _wide_mul(tm, te, 0, um, ue, c, k)
        for a in range(k):
            tm[0, a] = 1.0
            te[0, a] = 0.0
        for c in range(hi - 1, lo - 1, -1):
            _wide_copy(tm, te, 1, dm, de, c, k)
            _wide_mul(tm, te, 1, tm, te, 0, k)
            _wide_push(E, shared, c, True, tm, te, 1, dm, de, c, k, pm, pe)
            _wide_mul(tm, te, 0, um, ue, c, k)
    for v in range(n):
        u = order[v]
        _wide_copy(tm, te, 1, im, ie, v, k)
        _wide_mul(tm, te, 1, dm, de, v, k)
        to_doubles(tm[1], te[1], marg[u], k)
        s = 0.0
        for a in range(k):
            s += marg[u, a]
        for a in range(k):
            marg[u, a] /= s
        to_doubles(um[v], ue[v], up[v], k)
        to_doubles(dm[v], de[v], down[v], k)
    return OK, logz


@kernel
def max_product_kernel(order, parent, lphi, lE, inner, back, labels):
    """Max-sum in log space over breadth-first ranks; ``lphi`` and ``labels`` by vertex, ``lE``
    (1, k, k) shared or (n - 1, k, k) by edge row. Returns the best log value (-inf: mass 0)."""
    n, k = lphi.shape
    shared = lE.shape[0] == 1
    for i in range(n):
        for a in range(k):
            inner[i, a] = lphi[order[i], a]
    for v in range(n - 1, 0, -1):
        p = parent[v]
        j = 0 if shared else v - 1
        for a in range(k):
            best = -np.inf
            arg = 0
            for b in range(k):
                x = lE[j, a, b] + inner[v, b]
                if x > best:
                    best = x
                    arg = b
            back[v, a] = arg
            inner[p, a] += best
    best = -np.inf
    arg = 0
    for a in range(k):
        if inner[0, a] > best:
            best = inner[0, a]
            arg = a
    ranked = np.empty(n, np.int64)
    ranked[0] = arg
    for v in range(1, n):
        ranked[v] = back[v, ranked[parent[v]]]
    for v in range(n):
        labels[order[v]] = ranked[v]
    return best


@kernel
def lean_sweep(parent, ch_ptr, phi, E, inner, up, down, marg):
    """The yardstick ``bench online`` times the project's pass against: a plain collect/distribute
    sweep over arrays already in breadth-first rank order (``E[c - 1]`` the potential of rank c's
    edge, rows the parent's state), each vector divided by its largest entry with the logarithm
    of the factor added to log Z, prefix and suffix products for the exclusions. No checks and no
    renumbering: exact only while no product under- or overflows (ordinary models). Returns
    log Z."""
    n, k = phi.shape
    logz = 0.0
    tmp = np.empty(k)
    suf = np.empty(k)
    for i in range(n):
        for a in range(k):
            inner[i, a] = phi[i, a]
    for v in range(n - 1, 0, -1):
        p = parent[v]
        m = 0.0
        for a in range(k):
            s = 0.0
            for b in range(k):
                s += E[v - 1, a, b] * inner[v, b]
            up[v, a] = s
            if s > m:
                m = s
        for a in range(k):
            up[v, a] /= m
            inner[p, a] *= up[v, a]
        logz += np.log(m)
        m = 0.0
        for a in range(k):
            if inner[p, a] > m:
                m = inner[p, a]
        for a in range(k):
            inner[p, a] /= m
        logz += np.log(m)
    s = 0.0
    for a in range(k):
        s += inner[0, a]
    logz += np.log(s)
    for a in range(k):
        down[0, a] = 1.0
    for p in range(n):
        lo = ch_ptr[p]
        hi = ch_ptr[p + 1]
        for a in range(k):
            tmp[a] = phi[p, a] * down[p, a]
        for c in range(lo, hi):
            for a in range(k):
                down[c, a] = tmp[a]
                tmp[a] *= up[c, a]
        for a in range(k):
            suf[a] = 1.0
        for c in range(hi - 1, lo - 1, -1):
            for a in range(k):
                tmp[a] = down[c, a] * suf[a]
                suf[a] *= up[c, a]
            m = 0.0
            for b in range(k):
                s = 0.0
                for a in range(k):
                    s += E[c - 1, a, b] * tmp[a]
                down[c, b] = s
                if s > m:
                    m = s
            for b in range(k):
                down[c, b] /= m
    for v in range(n):
        s = 0.0
        for a in range(k):
            marg[v, a] = inner[v, a] * down[v, a]
            s += marg[v, a]
        for a in range(k):
            marg[v, a] /= s
    return logz
