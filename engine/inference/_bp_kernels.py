"""Compiled sequential sweeps for belief propagation and max-product (numba, cached on disk).

Imported only when a sweep runs, so importing the engine never compiles anything. Every vector is
renormalised by its largest entry as it is formed and the logarithm of each factor is added to the
log-partition function, so very long chains neither underflow nor overflow. The distribute pass
excludes one child's message with prefix and suffix products (division-free, so zeros are exact).
A returned log-partition of NaN means the total mass is zero.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["sum_product_kernel", "max_product_kernel"]


@njit(cache=True)
def sum_product_kernel(parent, ch_ptr, phi, P, inner, up, down, marg):
    """Arrays indexed by breadth-first rank: vertex i's children are ranks ch_ptr[i]..ch_ptr[i+1]-1."""
    n, k = phi.shape
    logz = 0.0
    tmp = np.empty(k)
    # collect: inner[v] = phi[v] * prod_children up[c]; up[v] = P[v] @ inner[v]
    for i in range(n):
        inner[i, :] = phi[i, :]
    for v in range(n - 1, -1, -1):
        m = 0.0
        for a in range(k):
            if inner[v, a] > m:
                m = inner[v, a]
        if m == 0.0:
            return np.nan
        for a in range(k):
            inner[v, a] /= m
        logz += np.log(m)
        p = parent[v]
        if p < 0:
            s = 0.0
            for a in range(k):
                s += inner[v, a]
            logz += np.log(s)
            continue
        mu = 0.0
        for a in range(k):
            acc = 0.0
            for b in range(k):
                acc += P[v, a, b] * inner[v, b]
            up[v, a] = acc
            if acc > mu:
                mu = acc
        if mu == 0.0:
            return np.nan
        for a in range(k):
            up[v, a] /= mu
            inner[p, a] *= up[v, a]
        logz += np.log(mu)
        # keep the parent's running product in range
        mp = 0.0
        for a in range(k):
            if inner[p, a] > mp:
                mp = inner[p, a]
        if mp == 0.0:
            return np.nan
        if mp < 1e-150 or mp > 1e150:
            for a in range(k):
                inner[p, a] /= mp
            logz += np.log(mp)
    # distribute: down[c] = P[c]^T (phi[p] down[p] prod_{siblings s != c} up[s])
    for a in range(k):
        down[0, a] = 1.0
    suf = np.empty(k)
    for p in range(n):
        lo = ch_ptr[p]
        hi = ch_ptr[p + 1]
        # prefix products stored in down[c] temporarily
        m = 0.0
        for a in range(k):
            tmp[a] = phi[p, a] * down[p, a]
            if tmp[a] > m:
                m = tmp[a]
        for a in range(k):
            tmp[a] /= m
        for c in range(lo, hi):
            for a in range(k):
                down[c, a] = tmp[a]
            m = 0.0
            for a in range(k):
                tmp[a] *= up[c, a]
                if tmp[a] > m:
                    m = tmp[a]
            if m > 0.0:
                for a in range(k):
                    tmp[a] /= m
        for a in range(k):
            suf[a] = 1.0
        for c in range(hi - 1, lo - 1, -1):
            m = 0.0
            for a in range(k):
                tmp[a] = down[c, a] * suf[a]
                if tmp[a] > m:
                    m = tmp[a]
            mu = 0.0
            for b in range(k):
                acc = 0.0
                for a in range(k):
                    acc += P[c, a, b] * tmp[a]
                down[c, b] = acc
                if acc > mu:
                    mu = acc
            if mu > 0.0:
                for b in range(k):
                    down[c, b] /= mu
            m = 0.0
            for a in range(k):
                suf[a] *= up[c, a]
                if suf[a] > m:
                    m = suf[a]
            if m > 0.0:
                for a in range(k):
                    suf[a] /= m
    for v in range(n):
        s = 0.0
        for a in range(k):
            marg[v, a] = inner[v, a] * down[v, a]
            s += marg[v, a]
        for a in range(k):
            marg[v, a] /= s
    return logz


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
