"""Classical sum-product (belief propagation) on a tree, its parallel schedule, and max-product.

The lecture notes "Inferences on trees: sum-product algorithm": section 8.2 (collect towards a
root, then distribute outwards, eq. 5 and 6), section 8.3 (the parallel "flooding" schedule, exact after diameter-many iterations) and
section 8.4 (the product trick for high degree: one product per vertex, then one exclusion per
outgoing message). The lecture excludes a message by dividing the full product by it (eq. 9),
which fails when a message has a zero entry (hard evidence); here the exclusion is division-free:
prefix and suffix products in the compiled sweep, and (log of the non-zero part, count of zeros)
pairs in the vectorised NumPy code.

Two implementations of the same schedule, both exact for any entries 0 or from 2.2e-308 to
1.8e308 (subnormal entries are refused with :class:`NumericalRangeError` naming them):

- ``method="numba"``: a compiled sequential sweep over the breadth-first order (fast on every
  shape, including 10^6-vertex paths); compiled on first use and cached on disk. A fast pass in
  doubles checks as it goes that no product can underflow and, where one could, gives way to an
  exact pass with a mantissa and an exponent per entry (``_bp_kernels``).
- ``method="numpy"``: the reference, vectorised over breadth-first levels (one NumPy step per
  level, so fast on bushy trees and slow on long chains), every message in logs (log-sum-exp).

Messages are renormalised as they are formed and the logarithm of each factor is carried, so the
log-partition function stays exact on long trees with extreme potentials; the total mass is
declared zero only when it is exactly zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from engine import limits
from engine.errors import (
    InconsistentEvidenceError,
    InvalidParameterError,
    InvalidPotentialError,
    NumericalRangeError,
)
from engine.inference.potentials import (
    check_matrix,
    check_states,
    child_potentials,
    node_potential_array,
)
from engine.trees.model import Tree

__all__ = [
    "Marginals",
    "belief_propagation",
    "FloodingTrace",
    "flooding",
    "max_product",
    "level_slices",
    "sequential_schedule",
    "bp_work",
]

_ZERO_MASS = "the evidence is inconsistent: every labelling has probability zero (total mass 0)"


@dataclass(frozen=True)
class Marginals:
    """The result of a belief-propagation pass.

    Attributes
    ----------
    marginals : ndarray, shape (n, k)
        ``marginals[v, a] = p(x_v = a)``; rows sum to one.
    log_partition : float
        ``log Z``, natural logarithm of the total mass.
    root : int
        The root the schedule collected towards.
    upward : ndarray, shape (n, k)
        ``upward[v]`` is the message from ``v`` to its parent (lecture: m_{v→parent}), normalised to
        sum one; the root's row is NaN. Made on first use (the pass keeps the messages in its
        breadth-first order).
    downward : ndarray, shape (n, k)
        ``downward[v]`` is the message from ``v``'s parent to ``v``, normalised; root's row NaN.
    """

    marginals: np.ndarray
    log_partition: float
    root: int
    _up: np.ndarray = field(repr=False)
    _down: np.ndarray = field(repr=False)
    #: ``_order[i]`` is the vertex of row i of ``_up``/``_down`` (None: rows are vertices)
    _order: np.ndarray | None = field(default=None, repr=False)

    @property
    def k(self) -> int:
        return self.marginals.shape[1]

    @cached_property
    def upward(self) -> np.ndarray:
        return self._messages(self._up)

    @cached_property
    def downward(self) -> np.ndarray:
        return self._messages(self._down)

    def _messages(self, a):
        with np.errstate(invalid="ignore", divide="ignore"):
            b = a / a.sum(axis=1, keepdims=True)
        if self._order is not None:
            out = np.empty_like(b)
            out[self._order] = b
            b = out
        b[self.root] = np.nan
        return b


def _inputs(tree, node_potentials, edge_potentials, k):
    k = _states(tree, node_potentials, edge_potentials, k)
    phi = node_potential_array(tree, node_potentials, k)
    P = child_potentials(tree, edge_potentials, k)
    return phi, P, k


def belief_propagation(tree: Tree, node_potentials, edge_potentials, *, k: int | None = None,
                       method: str = "auto") -> Marginals:
    """All marginals and the log-partition function by collect/distribute, O(n k^2).

    Parameters
    ----------
    tree : Tree
        Rooted tree; the schedule collects towards ``tree.root``.
    node_potentials : array (n, k) or None
        φ_v(a) >= 0 (None: all ones, then ``k`` is needed).
    edge_potentials : array (k, k) or (n - 1, k, k)
        One matrix for every edge, or one per row of ``tree.edges``; ``[i, a, b]`` is
        ψ(parent = a, child = b).
    method : {"auto", "numba", "numpy"}
        Compiled sequential sweep or the vectorised-by-level NumPy reference.

    Raises
    ------
    InvalidPotentialError
        A negative, infinite or NaN entry, or a wrong shape (the message names the vertex/edge).
    NumericalRangeError
        A subnormal entry (below 2.2e-308; the message names it). Every other entry, from the
        smallest normal double to the largest, is computed with exactly.
    InconsistentEvidenceError
        The total mass is exactly zero.

    Examples
    --------
    The tree of the lecture notes (edges 1-2, 1-3, 2-4, 2-5), label 0 observed at vertex 4:

    >>> import numpy as np
    >>> from engine.trees import Tree
    >>> t = Tree.from_named_edges([("1", "2"), ("1", "3"), ("2", "4"), ("2", "5")])
    >>> phi = np.ones((5, 2)); phi[t.index("4")] = [1.0, 0.0]
    >>> m = belief_propagation(t, phi, np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> m.marginals[t.index("5")].round(4).tolist(), round(m.log_partition, 6)
    ([0.5556, 0.4444], 4.394449)
    """
    if method not in ("auto", "numba", "numpy"):
        raise InvalidParameterError(f"method must be 'auto', 'numba' or 'numpy', got {method!r}")
    if method == "numpy":
        phi, P, k = _inputs(tree, node_potentials, edge_potentials, k)
        marg, logz, up, down = _bp_numpy(tree, phi, P)
        return Marginals(marg, float(logz), tree.root, up, down)
    phi, E, k, fast = _sweep_inputs(tree, node_potentials, edge_potentials, k)
    return _bp_numba(tree, phi, E, fast)


def _states(tree, node_potentials, edge_potentials, k):
    """``k``, checked: within the ``states`` limit, and the pass's (n, k) tables within ``table_cells``."""
    if k is None:
        if node_potentials is not None:
            k = np.asarray(node_potentials).shape[-1]
        else:
            k = np.asarray(edge_potentials).shape[-1]
    k = check_states(k)
    limits.check("table_cells", tree.n * k, f"{tree.n:,} vertices x {k} states; the marginals and messages")
    return k


def _sweep_inputs(tree, node_potentials, edge_potentials, k):
    """Validate for the compiled sweeps: ``phi`` (n, k) by vertex (its shape here; its entries
    are checked by the fast pass as it reads them, or by :func:`_bp_numba` before the exact
    pass) and the edge potentials as they are, (1, k, k) shared or (n - 1, k, k) by edge row,
    in one compiled scan. The careful validators run only to word the error. Also says whether
    the edge potentials lie in the fast pass's range."""
    from engine.inference import _bp_kernels as K

    k = _states(tree, node_potentials, edge_potentials, k)
    n = tree.n
    if node_potentials is None:
        phi = np.ones((n, k))
    else:
        phi = np.ascontiguousarray(node_potentials, dtype=np.float64)
        if phi.shape != (n, k):
            node_potential_array(tree, phi, k)    # raises, naming the shape
    E = np.ascontiguousarray(edge_potentials, dtype=np.float64)
    if E.shape == (k, k):
        E = check_matrix(E, k, "the edge potential").reshape(1, k, k)
    elif E.shape != (n - 1, k, k):
        child_potentials(tree, E, k)             # raises, naming the culprit
    else:
        return phi, E, k, None   # one per edge: checked by the fast pass as it reads them
    bad, inside = K.scan(E, K.P_LO, K.P_HI)
    if bad >= 0:
        child_potentials(tree, E, k)
    return phi, E, k, inside


def _bp_numba(tree, phi, E, fast=True):
    """The compiled pass: the fast one when ``fast`` (edge potentials in its range; None: not
    checked yet, the fast pass checks them), the exact one when it is not or when the fast one
    bails. ``phi`` has its shape checked, not its entries: the fast pass checks them as it reads
    them, :func:`scan` before the exact one. Edge potentials are validated before any other
    answer (an error about them comes first, as when they are scanned up front)."""
    from engine.inference import _bp_kernels as K

    n, k = phi.shape
    pr, ptr, order = tree.bfs_parent, tree.bfs_children_ptr, tree.order
    up = np.empty((n, k))      # every row is written by either pass
    down = np.empty((n, k))
    marg = np.empty((n, k))
    status = K.BAIL
    if fast or fast is None:
        status, logz = K.sum_product_kernel(order, tree.bfs_rank, pr, ptr, phi, E, np.empty((n, k)),
                                            marg, up, down, marg, fast is None)    # φ by rank waits in marg
        if status != K.OK and fast is None and K.scan(E, K.P_LO, K.P_HI)[0] >= 0:
            child_potentials(tree, E, k)          # raises, naming the culprit
        if status == K.INVALID:
            node_potential_array(tree, phi, k)    # raises, naming the culprit
    if status == K.BAIL:   # a product could underflow in doubles: the exact pass
        if fast is not None and not fast and K.scan(phi, K.PHI_LO, K.PHI_HI)[0] >= 0:   # (else the fast pass did)
            node_potential_array(tree, phi, k)    # raises, naming the culprit
        status, logz = K.sum_product_wide(order, pr, ptr, phi, E, up, down, marg)
    if status != K.OK:
        raise InconsistentEvidenceError(_ZERO_MASS)
    return Marginals(marg, float(logz), tree.root, up, down, order)


# ---------------------------------------------------------------------- NumPy reference

def level_slices(tree: Tree) -> list[slice]:
    """Slices of ``tree.order`` holding each breadth-first level (level 0 is the root)."""
    d = tree.depth[tree.order]
    cuts = np.flatnonzero(np.diff(d)) + 1
    bounds = np.concatenate([[0], cuts, [tree.n]])
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]


def _log(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


def _lse(a, axis):
    """log Σ exp over ``axis``; -inf where every entry is -inf."""
    m = a.max(axis=axis, keepdims=True)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(np.log(np.exp(a - safe).sum(axis=axis, keepdims=True)) + safe, axis=axis)


def _shift(la):
    """Rows of a log array shifted to a largest entry of 0; returns (shifted, shifts). A row of
    -inf (a zero vector) stays -inf with shift -inf."""
    m = la.max(axis=-1)
    ok = np.isfinite(m)
    return np.where(ok[..., None], la - np.where(ok, m, 0.0)[..., None], -np.inf), m


def _split(la):
    """(finite part, zero count) of a log array: -inf entries become (0, 1). Split logs can be
    subtracted (a product with one factor removed) where -inf cannot: division-free at zero."""
    z = la == -np.inf
    return np.where(z, 0.0, la), z.astype(np.int64)


def _unsplit(L, Z):
    return np.where(Z == 0, L, -np.inf)


def _bp_numpy(tree, phi, P):
    """The reference: collect/distribute vectorised over breadth-first levels, all in logs
    (log-sum-exp messages, zeros as -inf), so no entry under- or overflows."""
    n, k = phi.shape
    order, parent = tree.order, tree.parent
    levels = level_slices(tree)
    lP = _log(P)
    Lin, Zin = _split(_log(phi))        # inside product at each vertex, split-log form
    lup = np.zeros((n, k))
    logz = 0.0
    for sl in reversed(levels[1:]):
        vs = order[sl]
        msg, m = _shift(_lse(lP[vs] + _unsplit(Lin[vs], Zin[vs])[:, None, :], axis=2))
        if not np.isfinite(m).all():
            raise InconsistentEvidenceError(_ZERO_MASS)
        lup[vs] = msg
        logz += float(m.sum())
        lg, zc = _split(msg)
        ps = parent[vs]  # non-decreasing breadth-first rank: children of a parent are contiguous
        starts = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
        uniq = ps[starts]
        Lin[uniq] += np.add.reduceat(lg, starts, axis=0)
        Zin[uniq] += np.add.reduceat(zc, starts, axis=0)
    r = tree.root
    top = float(_lse(_unsplit(Lin[r], Zin[r]), axis=0))
    if top == -np.inf:
        raise InconsistentEvidenceError(_ZERO_MASS)
    logz += top
    # distribute: outside product at p = phi[p] * down[p] * prod children up; exclude one child
    Ldown = np.zeros((n, k))
    Zdown = np.zeros((n, k), np.int64)
    ldown = np.zeros((n, k))
    Lup, Zup = _split(lup)
    for sl in levels[1:]:
        vs = order[sl]
        ps = parent[vs]
        Le = Lin[ps] + Ldown[ps] - Lup[vs]   # exclusion by subtracting logs of non-zero parts
        Ze = Zin[ps] + Zdown[ps] - Zup[vs]   # and counting zeros: division-free at zero
        msg, _ = _shift(_lse(lP[vs] + _unsplit(Le, Ze)[:, :, None], axis=1))
        ldown[vs] = msg
        Ldown[vs], Zdown[vs] = _split(msg)
    b, _ = _shift(_unsplit(Lin + Ldown, Zin + Zdown))
    marg = np.exp(b)
    marg /= marg.sum(axis=1, keepdims=True)
    return marg, logz, np.exp(lup), np.exp(ldown)


# ---------------------------------------------------------------------- parallel schedule

@dataclass(frozen=True)
class FloodingTrace:
    """The parallel schedule of lecture section 8.3, iteration by iteration.

    Attributes
    ----------
    upward, downward : list of ndarray (n, k)
        Messages after iteration t (index 0 is the all-ones start), normalised to sum one, indexed
        as in :class:`Marginals` (root rows NaN).
    marginals : list of ndarray (n, k)
        Beliefs after iteration t.
    converged_at : int
        First iteration whose messages equal the exact ones (within relative 1e-12); at most the
        diameter of the tree.
    """

    upward: list
    downward: list
    marginals: list
    converged_at: int


def flooding(tree: Tree, node_potentials, edge_potentials, *, k: int | None = None,
             iterations: int | None = None) -> FloodingTrace:
    """Run the parallel sum-product schedule (every message updated from the previous iteration).

    Uses the product trick of section 8.4: per vertex one product of all incoming messages, then
    each outgoing message excludes its recipient's message, division-free (split logs and zero
    counts). Messages are kept in logs, so any magnitude is exact. Runs ``iterations`` rounds (default: the tree's diameter, plus one to show that
    nothing changes any more).
    """
    phi, P, k = _inputs(tree, node_potentials, edge_potentials, k)
    exact = belief_propagation(tree, phi, _aligned(tree, P))
    if iterations is None:
        from engine.trees.metrics import diameter_path

        iterations = len(diameter_path(tree)) - 1 + 1
    iterations = int(iterations)
    if iterations < 0:
        raise InvalidParameterError(f"iterations must be >= 0, got {iterations}")
    n = tree.n
    ch = tree.order[1:]
    par = tree.parent[ch]
    lP = _log(P[ch])
    lup = np.zeros((n, k))      # messages in logs (zeros -inf), each shifted to a largest entry 0
    ldown = np.zeros((n, k))
    Lphi, Zphi = _split(_log(phi))
    ups, downs, margs = [], [], []
    converged = -1

    def products(lup, ldown):
        """Split logs of every message, and of the full product at each vertex:
        phi * message from the parent * messages from the children (section 8.4)."""
        Lu, Zu = _split(lup)
        Ld, Zd = _split(ldown)
        L, Z = Lphi + Ld, Zphi + Zd
        L[tree.root], Z[tree.root] = Lphi[tree.root], Zphi[tree.root]
        np.add.at(L, par, Lu[ch])
        np.add.at(Z, par, Zu[ch])
        return L, Z, Lu, Zu, Ld, Zd

    def normalised(la):
        """Rows of exp(la) summing to one (NaN for a zero row)."""
        b, _ = _shift(la)
        e = np.exp(b)
        with np.errstate(invalid="ignore"):
            return e / e.sum(axis=1, keepdims=True)

    def record(t):
        nonlocal converged
        u, d = normalised(lup), normalised(ldown)
        u[tree.root] = np.nan
        d[tree.root] = np.nan
        L, Z, _, _, _, _ = products(lup, ldown)
        ups.append(u)
        downs.append(d)
        margs.append(normalised(_unsplit(L, Z)))
        if converged < 0 and np.allclose(u[ch], exact.upward[ch], rtol=1e-12, atol=1e-300) \
                and np.allclose(d[ch], exact.downward[ch], rtol=1e-12, atol=1e-300):
            converged = t

    record(0)
    for t in range(1, iterations + 1):
        L, Z, Lu, Zu, Ld, Zd = products(lup, ldown)
        # upward message c -> parent excludes the parent's message into c
        bu = _unsplit(L[ch] - Ld[ch], Z[ch] - Zd[ch])
        # downward message parent -> c excludes c's message into the parent
        bd = _unsplit(L[par] - Lu[ch], Z[par] - Zu[ch])
        lup = lup.copy()
        ldown = ldown.copy()
        lup[ch] = _shift(_lse(lP + bu[:, None, :], axis=2))[0]
        ldown[ch] = _shift(_lse(lP + bd[:, :, None], axis=1))[0]
        record(t)
    return FloodingTrace(ups, downs, margs, converged)


def _aligned(tree, P):
    return P[tree.edges[:, 1]]


# ---------------------------------------------------------------------- max-product

def max_product(tree: Tree, node_log_potentials, edge_log_potentials, *,
                method: str = "auto") -> tuple[np.ndarray, float]:
    """The most probable labelling and its log score, by max-sum in log space.

    Maximises ``Σ_v node_log_potentials[v, x_v] + Σ_edges edge_log_potentials[e][x_parent, x_child]``
    (``-inf`` entries mean probability zero). For min-sum on losses pass the negated losses and
    negate the value. Edge log-potentials are one ``(k, k)`` matrix or ``(n - 1, k, k)`` aligned with
    ``tree.edges`` (rows index the parent's state). Ties go to the lowest label.

    Returns
    -------
    labelling : ndarray of int64, shape (n,)
    value : float
        The maximal log score.

    Raises
    ------
    InconsistentEvidenceError
        Every labelling scores ``-inf``.
    NumericalRangeError
        A finite log-potential beyond ±1e300 (:data:`LOG_LIMIT`); the message names it.
    """
    lphi = np.asarray(node_log_potentials, dtype=np.float64)
    if lphi.ndim != 2 or lphi.shape[0] != tree.n:
        raise InvalidPotentialError(f"node log-potentials must have shape ({tree.n}, k), got {lphi.shape}")
    n, k = lphi.shape
    check_states(k)
    _check_log(lphi, "node log-potentials")
    le = np.asarray(edge_log_potentials, dtype=np.float64)
    if le.shape not in ((k, k), (n - 1, k, k)):
        raise InvalidPotentialError(f"edge log-potentials must have shape ({k}, {k}) or "
                                    f"({n - 1}, {k}, {k}), got {le.shape}")
    _check_log(le, "edge log-potentials")
    if method == "numpy":
        lP = np.zeros((n, k, k))
        lP[tree.edges[:, 1]] = le
        lP[tree.root] = 0.0
        labels, value = _max_numpy(tree, lphi, lP)
    elif method in ("auto", "numba"):
        from engine.inference._bp_kernels import max_product_kernel

        labels = np.empty(n, np.int64)
        value = max_product_kernel(tree.order, tree.bfs_parent, np.ascontiguousarray(lphi),
                                   np.ascontiguousarray(le).reshape(-1, k, k), np.empty((n, k)),
                                   np.zeros((n, k), np.int64), labels)
    else:
        raise InvalidParameterError(f"method must be 'auto', 'numba' or 'numpy', got {method!r}")
    if value == -np.inf:
        raise InconsistentEvidenceError(_ZERO_MASS)
    return labels, float(value)


#: The largest magnitude of a finite log-potential max-product accepts: a sum of up to 10^8 of
#: them stays finite (larger ones could add up to -inf, a false "impossible").
LOG_LIMIT = 1e300


def _check_log(a, what):
    if np.isnan(a).any() or (a == np.inf).any():
        idx = tuple(int(i) for i in np.argwhere(np.isnan(a) | (a == np.inf))[0])
        raise InvalidPotentialError(f"{what} have an invalid entry {a[idx]} at {list(idx)} "
                                    "(log-potentials must be < +inf and not NaN)")
    big = np.isfinite(a) & (np.abs(a) > LOG_LIMIT)
    if big.any():
        idx = tuple(int(i) for i in np.argwhere(big)[0])
        raise NumericalRangeError(f"{what} have the entry {a[idx]!r} at {list(idx)}, beyond the "
                                  f"exact range: finite log-potentials must lie within ±{LOG_LIMIT:g}")


def _max_numpy(tree, lphi, lP):
    n, k = lphi.shape
    order, parent = tree.order, tree.parent
    levels = level_slices(tree)
    inner = lphi.copy()
    back = np.zeros((n, k), np.int64)
    for sl in reversed(levels[1:]):
        vs = order[sl]
        sc = lP[vs] + inner[vs][:, None, :]
        back[vs] = sc.argmax(axis=2)
        best = sc.max(axis=2)
        ps = parent[vs]
        starts = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
        inner[ps[starts]] += np.add.reduceat(best, starts, axis=0)
    labels = np.zeros(n, np.int64)
    r = tree.root
    labels[r] = int(inner[r].argmax())
    value = inner[r].max()
    for sl in levels[1:]:
        vs = order[sl]
        labels[vs] = back[vs, labels[parent[vs]]]
    return labels, value


def sequential_schedule(tree: Tree) -> list[tuple[int, int]]:
    """The lecture's message order: collect towards the root (each vertex after its children),
    then distribute outwards. ``(sender, receiver)`` pairs, 2(n - 1) of them."""
    order = tree.order
    up = [(int(v), int(tree.parent[v])) for v in order[::-1][:-1]]
    down = [(int(tree.parent[v]), int(v)) for v in order[1:]]
    return up + down


def bp_work(n: int, k: int) -> int:
    """Multiply-adds of one full sum-product pass: 2(n - 1) messages of k^2 plus the k-products
    into beliefs (what one operation of the online model is compared with)."""
    return int(2 * (n - 1) * (k * k + k) + n * k)
