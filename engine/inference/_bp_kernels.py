"""Compiled sequential sweeps for belief propagation and max-product (numba, cached on disk).

Imported only when a sweep runs, so importing the engine never compiles anything. Arrays are
indexed by breadth-first rank (rank 0 the root; the children of rank i are ranks
``ch_ptr[i]..ch_ptr[i+1]-1``), so the sweeps read memory in order.

Sum-product runs in two steps (lecture notes on the sum-product algorithm, sections 8.2 and 8.4):

- :func:`sum_product_kernel`, the fast pass, in plain doubles: every vector is divided by its
  largest entry as it is formed and the logarithm of the factor is added to log Z. It is exact
  whenever no product can underflow, and it checks that as it goes: every normalised vector
  must have its non-zero entries at least ``TAU`` = 2^-480 (so a product of two is at least
  2^-960, a normal double), and every edge potential's non-zero entries must lie in
  [``P_LO``, ``P_HI``] (so a potential times a message stays normal). A violated check
  returns ``BAIL`` at once — never an answer that might be wrong.
- :func:`sum_product_wide`, the exact pass for the models the fast one gives up on: every entry
  is a mantissa and an exponent (``engine.inference._extended``), exact at any magnitude.

Both exclude a child's message from its parent's product with prefix and suffix products
(division-free, so zeros are exact), and a mass is zero only when it is exactly zero.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.inference._extended import ZERO_E, norm, pow2, split, to_doubles, to_log

__all__ = ["sum_product_kernel", "sum_product_wide", "max_product_kernel", "OK", "ZERO", "BAIL"]

#: Return codes of the sum-product kernels.
OK, ZERO, BAIL = 0, 1, 2
#: Smallest non-zero entry of a normalised vector in the fast pass.
TAU = 2.0 ** -480
#: Range of the non-zero entries of an edge potential in the fast pass.
P_LO = 2.0 ** -540
P_HI = 2.0 ** 1000


@njit(cache=True)
def _normalise(vec, k):
    """vec /= max vec. Returns (max, ok): max 0 means all zero; ok is False when a non-zero
    entry falls below TAU after the division (the fast pass must give up)."""
    m = 0.0
    for a in range(k):
        if vec[a] > m:
            m = vec[a]
    if m == 0.0:
        return 0.0, True
    ok = True
    for a in range(k):
        x = vec[a] / m
        if vec[a] != 0.0 and x < TAU:   # the quotient itself may have underflowed to 0
            ok = False
        vec[a] = x
    return m, ok


@njit(cache=True)
def _potential_ok(P, v, k):
    """Every non-zero entry of P[v] lies in [P_LO, P_HI]."""
    for a in range(k):
        for b in range(k):
            x = P[v, a, b]
            if x != 0.0 and (x < P_LO or x > P_HI):
                return False
    return True


@njit(cache=True)
def _carry(m, acc, logz):
    """Multiply the scale factor m into the running product acc, moving acc into logz (as a log)
    before it could leave [2^-400, 2^400]: one logarithm per many factors, not one per factor."""
    if m < 2.0 ** -500 or m > 2.0 ** 500:
        return acc, logz + np.log(m)
    acc *= m
    if acc < 2.0 ** -400 or acc > 2.0 ** 400:
        return 1.0, logz + np.log(acc)
    return acc, logz


@njit(cache=True)
def sum_product_kernel(parent, ch_ptr, phi, P, inner, up, down, marg):
    """The fast pass. Returns (status, log Z); status OK, ZERO (total mass 0) or BAIL.

    ``phi`` is overwritten by its rows divided by their largest entries."""
    n, k = phi.shape
    acc = 1.0
    logz = 0.0
    tmp = np.empty(k)
    suf = np.empty(k)
    for i in range(n):
        m, ok = _normalise(phi[i], k)
        if m == 0.0:
            return ZERO, 0.0
        if not ok:
            return BAIL, 0.0
        acc, logz = _carry(m, acc, logz)
        for a in range(k):
            inner[i, a] = phi[i, a]
    # collect: inner[v] = phi[v] * prod_children up[c] (kept normalised); up[v] = P[v] @ inner[v]
    for v in range(n - 1, 0, -1):
        p = parent[v]
        if not _potential_ok(P, v, k):
            return BAIL, 0.0
        for a in range(k):
            s = 0.0
            for b in range(k):
                s += P[v, a, b] * inner[v, b]
            up[v, a] = s
        m, ok = _normalise(up[v], k)
        if m == 0.0:
            return ZERO, 0.0
        if not ok:
            return BAIL, 0.0
        acc, logz = _carry(m, acc, logz)
        for a in range(k):
            inner[p, a] *= up[v, a]
        m, ok = _normalise(inner[p], k)
        if m == 0.0:
            return ZERO, 0.0
        if not ok:
            return BAIL, 0.0
        acc, logz = _carry(m, acc, logz)
    s = 0.0
    for a in range(k):
        s += inner[0, a]
    logz += np.log(acc) + np.log(s)
    # distribute: down[c] = P[c]^T (phi[p] down[p] prod_{siblings s != c} up[s])
    for a in range(k):
        down[0, a] = 1.0
    for p in range(n):
        lo = ch_ptr[p]
        hi = ch_ptr[p + 1]
        if lo == hi:
            continue
        for a in range(k):
            tmp[a] = phi[p, a] * down[p, a]
        m, ok = _normalise(tmp, k)
        if not ok:
            return BAIL, 0.0
        # prefix products, stored in down[c] for now
        for c in range(lo, hi):
            for a in range(k):
                down[c, a] = tmp[a]
                tmp[a] *= up[c, a]
            m, ok = _normalise(tmp, k)
            if not ok:
                return BAIL, 0.0
        for a in range(k):
            suf[a] = 1.0
        for c in range(hi - 1, lo - 1, -1):
            for a in range(k):
                tmp[a] = down[c, a] * suf[a]
            m, ok = _normalise(tmp, k)
            if not ok:
                return BAIL, 0.0
            for b in range(k):
                s = 0.0
                for a in range(k):
                    s += P[c, a, b] * tmp[a]
                down[c, b] = s
            m, ok = _normalise(down[c], k)
            if not ok:
                return BAIL, 0.0
            for a in range(k):
                suf[a] *= up[c, a]
            m, ok = _normalise(suf, k)
            if not ok:
                return BAIL, 0.0
    # beliefs: products of two vectors with entries >= TAU are exact; any result is kept
    for v in range(n):
        s = 0.0
        for a in range(k):
            marg[v, a] = inner[v, a] * down[v, a]
            s += marg[v, a]
        if s == 0.0:
            return BAIL, 0.0
        for a in range(k):
            marg[v, a] /= s
    return OK, logz


# ---------------------------------------------------------------------- the exact pass

@njit(cache=True)
def _wide_matvec(P, v, transpose, xm, xe, ym, ye, k, pm, pe):
    """y = P[v] x (or P[v]^T x), vectors as mantissas and exponents. Returns True if y != 0."""
    some = False
    for a in range(k):
        F = ZERO_E
        for b in range(k):
            m1, e1 = split(P[v, b, a] if transpose else P[v, a, b])
            pm[b] = m1 * xm[b]
            pe[b] = e1 + xe[b]
            if pe[b] > F:
                F = pe[b]
        s = 0.0
        for b in range(k):
            s += pm[b] * pow2(pe[b] - F)
        ym[a], ye[a] = norm(s, F)
        if ym[a] > 0.0:
            some = True
    return some


@njit(cache=True)
def _wide_mul(am, ae, bm, be, k):
    """a *= b entrywise."""
    for x in range(k):
        am[x], ae[x] = norm(am[x] * bm[x], ae[x] + be[x])


@njit(cache=True)
def sum_product_wide(parent, ch_ptr, phi, P, up, down, marg):
    """The exact pass (mantissas and exponents). Writes up, down and marg as doubles (each row
    divided by its largest entry; marg rows sum to one). Returns (status, log Z)."""
    n, k = phi.shape
    im = np.empty((n, k))
    ie = np.empty((n, k))
    um = np.empty((n, k))
    ue = np.empty((n, k))
    dm = np.empty((n, k))
    de = np.empty((n, k))
    tm = np.empty(k)
    te = np.empty(k)
    sm = np.empty(k)
    se = np.empty(k)
    pm = np.empty(k)
    pe = np.empty(k)
    for i in range(n):
        for a in range(k):
            im[i, a], ie[i, a] = split(phi[i, a])
    for a in range(k):
        um[0, a] = 1.0      # the root sends no message
        ue[0, a] = 0.0
    for v in range(n - 1, 0, -1):
        if not _wide_matvec(P, v, False, im[v], ie[v], um[v], ue[v], k, pm, pe):
            return ZERO, 0.0
        _wide_mul(im[parent[v]], ie[parent[v]], um[v], ue[v], k)
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
    for a in range(k):
        dm[0, a] = 1.0
        de[0, a] = 0.0
    for p in range(n):
        lo = ch_ptr[p]
        hi = ch_ptr[p + 1]
        if lo == hi:
            continue
        for a in range(k):
            tm[a], te[a] = split(phi[p, a])
        _wide_mul(tm, te, dm[p], de[p], k)
        for c in range(lo, hi):
            for a in range(k):
                dm[c, a] = tm[a]
                de[c, a] = te[a]
            _wide_mul(tm, te, um[c], ue[c], k)
        for a in range(k):
            sm[a] = 1.0
            se[a] = 0.0
        for c in range(hi - 1, lo - 1, -1):
            for a in range(k):
                tm[a] = dm[c, a]
                te[a] = de[c, a]
            _wide_mul(tm, te, sm, se, k)
            _wide_matvec(P, c, True, tm, te, dm[c], de[c], k, pm, pe)
            _wide_mul(sm, se, um[c], ue[c], k)
    for v in range(n):
        for a in range(k):
            tm[a] = im[v, a]
            te[a] = ie[v, a]
        _wide_mul(tm, te, dm[v], de[v], k)
        to_doubles(tm, te, marg[v], k)
        s = 0.0
        for a in range(k):
            s += marg[v, a]
        for a in range(k):
            marg[v, a] /= s
        to_doubles(um[v], ue[v], up[v], k)
        to_doubles(dm[v], de[v], down[v], k)
    return OK, logz


@njit(cache=True)
def max_product_kernel(parent, lphi, lP, inner, back, labels):
    """Max-sum in log space on breadth-first ranks; returns the best log value (-inf: mass 0)."""
    n, k = lphi.shape
    for i in range(n):
        inner[i, :] = lphi[i, :]
    for v in range(n - 1, 0, -1):
        p = parent[v]
        for a in range(k):
            best = -np.inf
            arg = 0
            for b in range(k):
                x = lP[v, a, b] + inner[v, b]
                if x > best:
                    best = x
                    arg = b
            back[v, a] = arg
            inner[p, a] += best
    r = 0
    best = -np.inf
    arg = 0
    for a in range(k):
        if inner[r, a] > best:
            best = inner[r, a]
            arg = a
    labels[r] = arg
    for v in range(1, n):
        labels[v] = back[v, labels[parent[v]]]
    return best
