"""An independent reference for pairwise tree models: sum-product and max-sum in log space, and
exact rational enumeration.

Written apart from ``engine.inference`` (it shares nothing with the code under test but the
:class:`~engine.trees.model.Tree` arrays), in the plainest form: every message is a vector of
natural logarithms, zeros are ``-inf``, sums are log-sum-exp, and each message is shifted to a
largest entry of 0 with the shift added to log Z. Nothing is ever divided or exponentiated outside
log-sum-exp, so no entry can under- or overflow; the distribute pass excludes a child's message by
prefix and suffix sums (never by subtraction, which is undefined at -inf).

:func:`exact_enumeration` sums all k^n labellings in :class:`fractions.Fraction` (every double is
an exact rational), the check of the check on tiny models.

The model: p(x) ∝ Π_v φ_v(x_v) Π_(p,c) ψ_pc(x_p, x_c), with ``phi`` of shape (n, k) and ``E`` of
shape (n - 1, k, k) aligned with ``tree.edges`` (rows index the parent's state).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

__all__ = ["log_sum_product", "log_max_sum", "labelling_log_score", "exact_enumeration",
           "fraction_log"]


def _log(a):
    a = np.asarray(a, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.log(a)


def _lse(a, axis=-1):
    """log Σ exp along ``axis``; -inf when every entry is -inf."""
    m = np.max(a, axis=axis, keepdims=True)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - safe), axis=axis, keepdims=True)) + safe
    return np.squeeze(out, axis=axis)


def _shift(v):
    """(v - max v, max v); (v, -inf) when every entry is -inf."""
    m = float(np.max(v))
    if m == -np.inf:
        return v, m
    return v - m, m


def _children(tree):
    ch = [[] for _ in range(tree.n)]
    for c in tree.order[1:]:
        ch[int(tree.parent[c])].append(int(c))
    return ch


def _edge_logs(tree, E):
    """lP[c] = log ψ(parent(c), c), rows the parent's state."""
    n = tree.n
    k = np.asarray(E).shape[-1]
    lP = np.zeros((n, k, k))
    if n > 1:
        lE = _log(E)
        lP[tree.edges[:, 1]] = lE
    return lP


def log_sum_product(tree, phi, E):
    """``(log Z, marginals (n, k))`` in log space; ``(-inf, None)`` when the total mass is zero."""
    n = tree.n
    lphi = _log(phi)
    lP = _edge_logs(tree, E)
    ch = _children(tree)
    lin = lphi.copy()              # log of φ_v times the messages of v's children
    lup = np.zeros_like(lphi)      # log message c -> parent(c), shifted to max 0
    logz = 0.0
    for v in tree.order[::-1]:
        v = int(v)
        for c in ch[v]:
            lin[v] = lin[v] + lup[c]
        if v == tree.root:
            break
        msg = _lse(lP[v] + lin[v][None, :], axis=1)
        msg, m = _shift(msg)
        if m == -np.inf:
            return -np.inf, None
        lup[v] = msg
        logz += m
    top = _lse(lin[tree.root])
    if top == -np.inf:
        return -np.inf, None
    logz += float(top)
    ldown = np.zeros_like(lphi)    # log message parent(v) -> v, shifted
    for p in tree.order:
        p = int(p)
        cs = ch[p]
        if not cs:
            continue
        base = lphi[p] + ldown[p]
        pre = [base]
        for c in cs[:-1]:
            pre.append(pre[-1] + lup[c])
        suf = np.zeros_like(base)
        for i in range(len(cs) - 1, -1, -1):
            c = cs[i]
            excl = pre[i] + suf
            msg = _lse(lP[c] + excl[:, None], axis=0)
            ldown[c], _ = _shift(msg)
            suf = suf + lup[c]
    belief = lin + ldown
    marg = np.empty_like(belief)
    for v in range(n):
        b, _ = _shift(belief[v])
        e = np.exp(b)
        marg[v] = e / e.sum()
    return float(logz), marg


def log_max_sum(tree, lphi, lE):
    """The largest Σ_v lphi[v, x_v] + Σ_edges lE[e][x_p, x_c] (``-inf`` when none is finite)."""
    lphi = np.asarray(lphi, dtype=np.float64)
    n, k = lphi.shape
    lP = np.zeros((n, k, k))
    if n > 1:
        lE = np.asarray(lE, dtype=np.float64)
        lP[tree.edges[:, 1]] = np.broadcast_to(lE, (n - 1, k, k))
    best = lphi.copy()
    for v in tree.order[::-1][:-1]:
        v = int(v)
        best[int(tree.parent[v])] += np.max(lP[v] + best[v][None, :], axis=1)
    return float(np.max(best[tree.root]))


def labelling_log_score(tree, lphi, lE, labels):
    """Σ_v lphi[v, labels[v]] + Σ_edges lE[e][labels[p], labels[c]], summed with math.fsum."""
    lphi = np.asarray(lphi, dtype=np.float64)
    n, k = lphi.shape
    terms = [lphi[v, labels[v]] for v in range(n)]
    if n > 1:
        lE = np.broadcast_to(np.asarray(lE, dtype=np.float64), (n - 1, k, k))
        for i, (p, c) in enumerate(tree.edges):
            terms.append(lE[i, labels[p], labels[c]])
    if any(t == -np.inf for t in terms):
        return -np.inf
    return math.fsum(terms)


def fraction_log(x: Fraction) -> float:
    """The natural logarithm of a positive rational, correct to double precision at any size."""
    num, den = x.numerator, x.denominator
    return math.log(num) - math.log(den)


def exact_enumeration(tree, phi, E):
    """``(Z, marginals)`` as Fractions by enumerating all k^n labellings (tiny models only)."""
    phi = np.asarray(phi, dtype=np.float64)
    n, k = phi.shape
    F = [[Fraction(float(x)) for x in row] for row in phi]
    edges = [(int(p), int(c)) for p, c in tree.edges]
    if n > 1:
        Ea = np.broadcast_to(np.asarray(E, dtype=np.float64), (n - 1, k, k))
        FE = [[[Fraction(float(x)) for x in r] for r in M] for M in Ea]
    Z = Fraction(0)
    marg = [[Fraction(0)] * k for _ in range(n)]
    for lab in itertools.product(range(k), repeat=n):
        w = Fraction(1)
        for v in range(n):
            w *= F[v][lab[v]]
            if not w:
                break
        if w:
            for i, (p, c) in enumerate(edges):
                w *= FE[i][lab[p]][lab[c]]
                if not w:
                    break
        if w:
            Z += w
            for v in range(n):
                marg[v][lab[v]] += w
    if Z == 0:
        return Z, None
    return Z, [[m / Z for m in row] for row in marg]
