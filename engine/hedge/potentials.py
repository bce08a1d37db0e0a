"""The triple (T, Theta, D^1) of TREE-HEDGE ("Online Sum-Product Computation over Trees",
Herbster, Pasteris & Vitale, sections 4 and 5), validated once.

Edge potentials are given either as one ``(k, k)`` matrix shared by every edge or as an array of
shape ``(n - 1, k, k)`` aligned with the rows of ``tree.edges`` (rows ``(parent, child)``; the
matrix's rows index the parent's action, its columns the child's). The default is the Potts
transition matrix :func:`potts_transition`: the coupling P, the probability that a child keeps its
parent's action, on the diagonal and ``(1 - P) / (k - 1)`` elsewhere (P = 0.9 unless given), so
``P = 1/k`` makes every edge uninformative and ``P = 1`` forces equal actions. (The belief
propagation models of the lecture notes parameterise the same Potts family by an interaction strength instead:
:func:`engine.inference.potentials.potts_interaction`.)
"""

from __future__ import annotations

import numpy as np

from engine.errors import InvalidParameterError, InvalidPotentialError
from engine.inference.potentials import (  # check_states: the number of actions k
    check_edge_range,
    check_normal,
    check_states,
)
from engine.params import Param
from engine.trees import Tree

__all__ = ["potts_transition", "edge_potentials", "initial_data", "check_states", "check_eta", "favourite_actions",
           "TIE_TOLERANCE", "DEFAULT_COUPLING", "ETA_MAX", "ETA", "COUPLING"]

#: The Potts coupling used when neither edge potentials nor a coupling are given.
DEFAULT_COUPLING = 0.9
#: Two actions whose probabilities differ by at most this much are tied (no favourite).
TIE_TOLERANCE = 1e-12
#: The largest learning rate accepted. Above ~745, exp(-eta) is already 0 in double precision (a
#: rate acts as eta = infinity); far larger ones overflow eta times a cumulative loss (the bound's
#: max-product, the carried log scales) and end in NaN, so they are refused.
ETA_MAX = 1e6
#: The learning rate of TREE-HEDGE and of both Hedge baselines (Theorem 9's eta).
ETA = Param(float, 1.0, "the learning rate η", lo=0, hi=ETA_MAX, closed="right")
#: The Potts coupling P: the probability that a child keeps its parent's action.
COUPLING = Param(float, DEFAULT_COUPLING, "the Potts coupling P (P on the diagonal)", lo=0, hi=1)


def check_eta(eta) -> float:
    """The learning rate, a finite number in (0, :data:`ETA_MAX`] (see :data:`ETA`)."""
    return ETA.check(eta, "eta")


def potts_transition(k: int, coupling: float) -> np.ndarray:
    """The ``(k, k)`` Potts transition matrix: ``coupling`` P on the diagonal, ``(1 - P)/(k - 1)``
    elsewhere; each row sums to 1 (P is the probability that a child keeps its parent's state).

    ``coupling`` must lie in [0, 1]; 0 and 1 are legal (they put zeros in the matrix). For
    0 < P < 1 it is ``potts_interaction(k, J)`` scaled by ``(1 - P)/(k - 1)``, with
    ``J = ln(P (k - 1) / (1 - P))``.

    >>> potts_transition(3, 0.8)
    array([[0.8, 0.1, 0.1],
           [0.1, 0.8, 0.1],
           [0.1, 0.1, 0.8]])
    """
    k = check_states(k)
    p = COUPLING.check(coupling, "coupling")
    theta = np.full((k, k), (1.0 - p) / (k - 1))
    np.fill_diagonal(theta, p)
    return theta


def edge_potentials(tree: Tree, k: int, theta=None, coupling: float | None = None) -> np.ndarray:
    """Validated edge potentials of shape ``(n - 1, k, k)`` aligned with ``tree.edges``.

    Give ``theta`` (``(k, k)`` or ``(n - 1, k, k)``) or ``coupling`` (Potts); with neither, the
    coupling defaults to :data:`DEFAULT_COUPLING`.
    """
    k = check_states(k)
    m = tree.n - 1
    if theta is None:
        mat = potts_transition(k, DEFAULT_COUPLING if coupling is None else coupling)
        return np.broadcast_to(mat, (m, k, k)).copy()
    if coupling is not None:
        raise InvalidParameterError("give either theta or coupling, not both")
    t = np.asarray(theta, dtype=np.float64)
    if t.shape == (k, k):
        t = np.broadcast_to(t, (m, k, k)).copy()
    elif t.shape != (m, k, k):
        raise InvalidPotentialError(
            f"edge potentials must have shape ({k}, {k}) or ({m}, {k}, {k}), got {t.shape}")
    bad = ~np.isfinite(t) | (t < 0)
    if bad.any():
        e, a, b = (int(x) for x in np.argwhere(bad)[0])
        u, v = tree.edges[e]
        raise InvalidPotentialError(
            f"potential for edge ({tree.name(int(u))}, {tree.name(int(v))}) has the entry {t[e, a, b]!r} "
            f"at [{a}, {b}]; entries must be finite and >= 0")
    check_edge_range(tree, t)
    zero = ~t.any(axis=(1, 2))
    if zero.any():
        e = int(np.flatnonzero(zero)[0])
        u, v = tree.edges[e]
        raise InvalidPotentialError(
            f"potential for edge ({tree.name(int(u))}, {tree.name(int(v))}) is all zeros")
    return t


def initial_data(tree: Tree, k: int, data=None) -> np.ndarray:
    """Validated initial data D^1 of shape ``(n, k)`` (default: all ones)."""
    k = check_states(k)
    if data is None:
        return np.ones((tree.n, k))
    d = np.asarray(data, dtype=np.float64)
    if d.shape != (tree.n, k):
        raise InvalidPotentialError(f"initial data must have shape ({tree.n}, {k}), got {d.shape}")
    bad = ~np.isfinite(d) | (d < 0)
    if bad.any():
        v, a = (int(x) for x in np.argwhere(bad)[0])
        raise InvalidPotentialError(
            f"initial data of vertex {tree.name(v)} has the entry {d[v, a]!r} at action {a}; "
            "entries must be finite and >= 0")
    check_normal(d, lambda i: f"initial data of vertex {tree.name(i[0])} at action {i[1]}")
    zero = ~d.any(axis=1)
    if zero.any():
        v = int(np.flatnonzero(zero)[0])
        raise InvalidPotentialError(f"initial data of vertex {tree.name(v)} is all zeros")
    return d.copy()


def favourite_actions(p: np.ndarray) -> np.ndarray:
    """The most probable action of each row of ``p`` (shape (m, k)), or -1 where the top two
    differ by at most :data:`TIE_TOLERANCE` (no favourite yet, e.g. before any trial)."""
    p = np.atleast_2d(p)
    top2 = np.sort(p, axis=1)[:, -2:]
    fav = p.argmax(axis=1)
    fav[top2[:, 1] - top2[:, 0] <= TIE_TOLERANCE] = -1
    return fav
