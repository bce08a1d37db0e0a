"""Potentials of a pairwise tree model: validation once at the public boundary, and orientation.

The model (the sum-product lecture notes, eq. 1; Herbster, Pasteris & Vitale, eq. 1) is
p(x) ∝ Π_v φ_v(x_v) Π_(u,v) ψ_uv(x_u, x_v). Node potentials are an ``(n, k)`` array (the data
matrix D of Herbster, Pasteris & Vitale). Edge potentials are either one ``(k, k)`` matrix shared by every edge or an ``(n - 1, k, k)`` array aligned with ``tree.edges``
(rows ``(parent, child)``): entry ``[i, a, b]`` is ψ(parent = a, child = b). Potentials need not be
symmetric (the paper assumes symmetric ones); a matrix given for a named edge ``(u, v)`` has rows
indexing ``u``'s state and is transposed when ``u`` is the child.

Zero entries are legal (hard evidence, forbidden transitions); negative, NaN and infinite entries
are not (:class:`InvalidPotentialError`). Every other double is computed with exactly, from the
smallest normal one (:data:`TINY`, 2.2e-308) to the largest (1.8e308); a positive entry below
:data:`TINY` (a subnormal, which already lost digits when it was stored) is refused with
:class:`NumericalRangeError` naming it.
"""

from __future__ import annotations

import numpy as np

from engine.errors import InvalidParameterError, InvalidPotentialError, NumericalRangeError
from engine.limits import check_seed
from engine.params import Param
from engine.trees.model import Tree

__all__ = [
    "TINY",
    "check_states",
    "check_normal",
    "check_edge_range",
    "check_vector",
    "check_matrix",
    "node_potential_array",
    "edge_potential_table",
    "child_potentials",
    "potts_interaction",
    "random_node_potentials",
    "POTTS_COUPLING",
]

#: The interaction strength J of a Potts edge (exp(J) on the diagonal): within +-700, exp(J) and
#: exp(-J) stay finite and non-zero in double precision.
POTTS_COUPLING = Param(float, 1.0, "the Potts coupling of every edge (diagonal e^coupling)", lo=-700, hi=700)


#: The smallest positive potential entry the inference code accepts (the smallest normal double).
TINY = float(np.finfo(np.float64).tiny)


def check_normal(a: np.ndarray, where) -> None:
    """Refuse subnormal entries (0 < x < TINY) of a finite non-negative array.

    ``where(idx)`` names the entry at index tuple ``idx`` for the message.
    """
    if a.size and a.min() < TINY:
        bad = (a > 0) & (a < TINY)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise NumericalRangeError(
                f"{where(idx)} is {float(a[idx])!r}, below the smallest normal double {TINY:.4g}: such an "
                "entry has already lost precision and is refused (entries must be 0 or in "
                "[2.2e-308, 1.8e308])")


def check_states(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise InvalidParameterError(f"the number of states k must be an integer >= 2, got {k!r}")
    from engine.limits import check

    return int(check("states", int(k), "the number of states k"))


def _first_bad(a: np.ndarray):
    bad = ~np.isfinite(a) | (a < 0)
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    return idx, a[idx]


def _check_entries(x, shape: tuple, what: str, expect: str) -> np.ndarray:
    """An array of ``shape`` of finite non-negative numbers (``expect`` words the shape)."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidPotentialError(f"{what} must be {expect}, got {str(x)[:60]}") from None
    if a.shape != shape:
        raise InvalidPotentialError(f"{what} must be {expect}, got shape {a.shape}")
    if not (np.isfinite(a).all() and (a >= 0).all()):
        idx, val = _first_bad(a)
        at = ", ".join(map(str, idx))
        raise InvalidPotentialError(f"{what} has an invalid entry {val} at [{at}] "
                                    "(entries must be finite and >= 0)")
    check_normal(a, lambda i: f"{what}: the entry at [{', '.join(map(str, i))}]")
    return a


def check_vector(v, k: int, what: str) -> np.ndarray:
    """A length-``k`` vector of finite non-negative numbers (``what`` names it in messages)."""
    return _check_entries(v, (k,), what, f"{k} numbers")


def check_matrix(m, k: int, what: str) -> np.ndarray:
    """A ``k x k`` matrix of finite non-negative numbers."""
    return _check_entries(m, (k, k), what, f"a {k}x{k} matrix")


def node_potential_array(tree: Tree, node_potentials, k: int | None = None) -> np.ndarray:
    """Validate node potentials: ``None`` (all ones, needs ``k``) or an ``(n, k)`` array."""
    if node_potentials is None:
        if k is None:
            raise InvalidParameterError("give node potentials or the number of states k")
        return np.ones((tree.n, check_states(k)))
    a = np.asarray(node_potentials, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] != tree.n or (k is not None and a.shape[1] != k) or a.shape[1] < 2:
        want = f"({tree.n}, {k if k is not None else 'k'})"
        raise InvalidPotentialError(f"node potentials must have shape {want}, got {a.shape}")
    if not (np.isfinite(a).all() and (a >= 0).all()):
        (v, j), val = _first_bad(a)
        raise InvalidPotentialError(f"node potential of vertex {tree.name(v)} has an invalid entry "
                                    f"{val} at [{j}] (entries must be finite and >= 0)")
    check_normal(a, lambda i: f"the node potential of vertex {tree.name(i[0])} at [{i[1]}]")
    return np.ascontiguousarray(a)


def edge_potential_table(tree: Tree, default, overrides: dict | None = None) -> np.ndarray:
    """An ``(n - 1, k, k)`` array aligned with ``tree.edges`` (rows index the parent's state).

    ``default`` is a ``(k, k)`` matrix for every edge; ``overrides`` maps an edge ``(u, v)`` (names
    or indices; rows of the matrix index ``u``'s state) to its own matrix.
    """
    d = np.asarray(default, dtype=np.float64)
    if d.ndim != 2 or d.shape[0] != d.shape[1]:
        raise InvalidPotentialError(f"the default edge potential must be a square matrix, got shape {d.shape}")
    k = d.shape[0]
    check_states(k)
    check_matrix(d, k, "the default edge potential")
    out = np.broadcast_to(d, (tree.n - 1, k, k)).copy()
    if overrides:
        row = edge_rows(tree)
        for (u, v), m in overrides.items():
            iu, iv = tree.index(u), tree.index(v)
            m = check_matrix(m, k, f"potential for edge ({tree.name(iu)}, {tree.name(iv)})")
            if tree.parent[iv] == iu:
                out[row[iv]] = m
            elif tree.parent[iu] == iv:
                out[row[iu]] = m.T
            else:
                from engine.errors import UnknownVertexError

                raise UnknownVertexError(f"({tree.name(iu)}, {tree.name(iv)}) is not an edge of the tree")
    return out


def edge_rows(tree: Tree) -> np.ndarray:
    """``row[c]``: the row of ``tree.edges`` holding the edge (parent(c), c); -1 at the root."""
    row = np.full(tree.n, -1, np.int64)
    row[tree.edges[:, 1]] = np.arange(tree.n - 1)
    return row


def child_potentials(tree: Tree, edge_potentials, k: int) -> np.ndarray:
    """Validate edge potentials and index them by child: ``P[c][a, b] = ψ(parent(c) = a, c = b)``.

    ``P[root]`` is all ones (unused). Accepts one ``(k, k)`` matrix or an ``(n - 1, k, k)`` array
    aligned with ``tree.edges``.
    """
    a = np.asarray(edge_potentials, dtype=np.float64)
    P = np.ones((tree.n, k, k))
    if a.shape == (k, k):
        check_matrix(a, k, "the edge potential")
        P[:] = a
        P[tree.root] = 1.0
        return P
    if a.shape != (tree.n - 1, k, k):
        raise InvalidPotentialError(f"edge potentials must have shape ({k}, {k}) or "
                                    f"({tree.n - 1}, {k}, {k}), got {a.shape}")
    if not (np.isfinite(a).all() and (a >= 0).all()):
        (i, x, y), val = _first_bad(a)
        u, v = tree.edges[i]
        raise InvalidPotentialError(f"potential for edge ({tree.name(u)}, {tree.name(v)}) has an "
                                    f"invalid entry {val} at [{x}, {y}] (entries must be finite and >= 0)")
    check_edge_range(tree, a)
    P[tree.edges[:, 1]] = a
    return P


def check_edge_range(tree: Tree, a: np.ndarray) -> None:
    """Refuse subnormal entries of an ``(n - 1, k, k)`` array aligned with ``tree.edges``."""
    def where(i):
        u, v = tree.edges[i[0]]
        return f"the potential for edge ({tree.name(u)}, {tree.name(v)}) at [{i[1]}, {i[2]}]"

    check_normal(a, where)


def potts_interaction(k: int, coupling: float) -> np.ndarray:
    """The Potts edge potential of interaction strength J = ``coupling``: ``exp(J)`` on the
    diagonal, 1 elsewhere (``k x k``); J > 0 favours equal neighbours, J = 0 makes the edge
    uninformative. (TREE-HEDGE parameterises the same family by a probability instead:
    :func:`engine.hedge.potentials.potts_transition`.)

    >>> potts_interaction(2, 0.0)
    array([[1., 1.],
           [1., 1.]])
    """
    k = check_states(k)
    c = POTTS_COUPLING.check(coupling, "coupling")
    m = np.ones((k, k))
    np.fill_diagonal(m, np.exp(c))
    return m


def random_node_potentials(n: int, k: int, *, seed=None, floor: float = 0.1) -> np.ndarray:
    """Random node potentials ``floor + U(0, 1)`` (an ``(n, k)`` array) for demonstrations."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(check_seed(seed))
    return floor + rng.random((int(n), check_states(k)))
