"""A tree-shaped network with its potentials, assembled from the variables and factors of a file.

Two kinds of network are trees:

- a Bayesian network in which every node has at most one parent: the root's table is its node
  potential φ, and each other node's conditional table P(child | parent) is the potential ψ of the
  edge (parent, child), rows indexing the parent's state (so the partition function is 1). A row
  must sum to one within :data:`CPT_TOLERANCE` (files round their numbers) and is rescaled to sum
  exactly one;
- a pairwise Markov network whose pairwise factors form a tree: unary factors multiply into φ,
  pairwise ones into ψ.

Anything else is refused in one line naming the node (``node X has two parents: A, B``), the factor
(``factor 3 joins three variables: A, B, C``) or the cycle (``edge (A, C) closes the cycle A-B-C``).

The engine's models give every vertex the same number of labels k. Variables with fewer states are
padded to k = the largest cardinality: the extra states get node potential 0, so they carry no mass
and every marginal of a real state is exact (the padded entries of a marginal are 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import (
    DuplicateEdgeError,
    EngineError,
    InvalidPotentialError,
    NetworkFormatError,
    NotATreeError,
)
from engine.trees.model import Tree

__all__ = ["CPT_TOLERANCE", "Factor", "Network", "Variable", "assemble", "cpt_layout"]

# Sizes are bounded by the named limits of engine.limits: ``vertices`` (variables), ``states``
# (states of one variable) and ``table_cells`` (numbers in all the tables together).

#: How far a conditional table's row may sum from 1 (files round their numbers).
CPT_TOLERANCE = 1e-3

_COUNT = {2: "two", 3: "three", 4: "four", 5: "five"}


@dataclass(frozen=True)
class Variable:
    """A variable of a file: its name, state names, and the line that declares it (0: unknown)."""

    name: str
    states: tuple[str, ...]
    line: int = 0


@dataclass(frozen=True)
class Factor:
    """A table over ``scope`` (variable indices); ``table.shape`` is their cardinalities.

    For a Bayesian network, ``child`` is the variable the table is the conditional distribution of
    (its last axis); None for a Markov network's factors.
    """

    scope: tuple[int, ...]
    table: np.ndarray
    line: int = 0
    child: int | None = None


@dataclass(frozen=True)
class Network:
    """A tree-shaped network in the engine's conventions (``engine.inference.potentials``).

    Attributes
    ----------
    tree : Tree
        One vertex per variable, named by the variable; rooted at the Bayesian network's root (or
        the first variable of a Markov network).
    node_potentials : ndarray, shape (n, k)
        φ_v(a); zero on the padded states a >= ``cardinality[v]``.
    edge_potentials : ndarray, shape (n - 1, k, k)
        ψ of each row ``(parent, child)`` of ``tree.edges``; entry ``[i, a, b]`` = ψ(parent = a, child = b).
    states : tuple of tuple of str
        The state names of each vertex (length ``cardinality[v]``).
    kind : str
        ``"bayes"`` or ``"markov"``.
    source : str
        The file (name) it was read from.
    """

    tree: Tree
    node_potentials: np.ndarray
    edge_potentials: np.ndarray
    states: tuple[tuple[str, ...], ...]
    kind: str
    source: str = ""

    @property
    def k(self) -> int:
        return int(self.node_potentials.shape[1])

    @property
    def cardinality(self) -> np.ndarray:
        return np.array([len(s) for s in self.states], np.int64)

    def evidence_potentials(self, evidence: dict | None = None) -> np.ndarray:
        """φ multiplied by evidence ``{vertex name: state name, state index or weights}``."""
        phi = self.node_potentials.copy()
        for name, val in (evidence or {}).items():
            v = self.tree.index(name)
            card = len(self.states[v])
            if isinstance(val, str):
                if val not in self.states[v]:
                    raise InvalidPotentialError(f"evidence {name}={val}: {name} has states "
                                                f"{', '.join(self.states[v])}")
                val = self.states[v].index(val)
            if isinstance(val, (int, np.integer)) and not isinstance(val, bool):
                if not 0 <= val < card:
                    raise InvalidPotentialError(f"evidence {name}={val}: states are 0..{card - 1}")
                w = np.zeros(self.k)
                w[val] = 1.0
            else:
                w = np.zeros(self.k)
                a = np.asarray(val, dtype=np.float64)
                if a.shape != (card,) or not np.isfinite(a).all() or (a < 0).any():
                    raise InvalidPotentialError(f"soft evidence at {name} must be {card} finite weights >= 0")
                w[:card] = a
            phi[v] *= w
        return phi


def assemble(variables: list[Variable], factors: list[Factor], kind: str, label: str) -> Network:
    """Check that the factors make a tree-shaped network and build its potentials.

    ``label`` (the file name) starts every error message, with the line when it is known.
    """
    def at(line: int) -> str:
        return f"{label}:{line}: " if line else f"{label}: "

    from engine import limits

    n = len(variables)
    if n == 0:
        raise NetworkFormatError(f"{label}: the network has no variables")
    limits.check("vertices", n, f"{label}: variables")
    names = [v.name for v in variables]
    seen: dict[str, int] = {}
    for v in variables:
        if v.name in seen:
            raise NetworkFormatError(f"{at(v.line)}variable {v.name} is declared twice")
        seen[v.name] = 1
        if not v.states:
            raise NetworkFormatError(f"{at(v.line)}variable {v.name} has no states")
        limits.check("states", len(v.states), f"{at(v.line)}variable {v.name}: states")
        if len(set(v.states)) != len(v.states):
            raise NetworkFormatError(f"{at(v.line)}variable {v.name} names a state twice")
    card = [len(v.states) for v in variables]
    k = max(2, max(card))
    limits.check("table_cells", n * k * k, f"{label}: {n:,} variables x {k} x {k} states")
    for f in factors:
        bad = ~np.isfinite(f.table) | (f.table < 0)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            what = ", ".join(f"{names[s]}={variables[s].states[i]}" for s, i in zip(f.scope, idx))
            raise InvalidPotentialError(f"{at(f.line)}the table over {', '.join(names[s] for s in f.scope)} "
                                        f"has an invalid entry {f.table[idx]} at {what} (entries must be "
                                        "finite and >= 0)")
    phi = np.zeros((n, k))
    for v, c in enumerate(card):
        phi[v, :c] = 1.0
    pair: dict[tuple[int, int], np.ndarray] = {}
    pair_line: dict[tuple[int, int], int] = {}
    root = 0
    if kind == "bayes":
        cpt: dict[int, Factor] = {}
        for f in factors:
            if f.child in cpt:
                raise NetworkFormatError(f"{at(f.line)}node {names[f.child]} has a second probability table "
                                         f"(the first at line {cpt[f.child].line})")
            cpt[f.child] = f
        for v in range(n):
            f = cpt.get(v)
            if f is None:
                raise NetworkFormatError(f"{at(variables[v].line)}node {names[v]} has no probability table")
            parents = [s for s in f.scope if s != v]
            if len(parents) > 1:
                raise NotATreeError(f"{at(f.line)}node {names[v]} has {_COUNT.get(len(parents), len(parents))} "
                                    f"parents: {', '.join(names[p] for p in parents)}; only networks in "
                                    "which every node has at most one parent are trees")
            _check_cpt(f, variables, at)
        roots = [v for v in range(n) if len(cpt[v].scope) == 1]
        for v in range(n):
            f = cpt[v]
            # each row is a distribution: files round their numbers, so rescale to sum exactly one
            table = f.table / f.table.sum(axis=-1, keepdims=True)
            if len(f.scope) == 1:
                phi[v, :card[v]] *= table
            else:
                p = f.scope[0]
                back = cpt[p].scope[0] if len(cpt[p].scope) == 2 else None
                if back == v:
                    raise NotATreeError(f"{at(f.line)}nodes {names[p]} and {names[v]} are each other's parent "
                                        f"(the cycle {names[p]}-{names[v]}-{names[p]})")
                pair[(p, v)] = table
                pair_line[(p, v)] = f.line
        if roots:
            root = roots[0]
    else:
        for i, f in enumerate(factors):
            if len(f.scope) == 0:
                phi[0] *= float(f.table)  # a constant: scales the partition function only
            elif len(f.scope) == 1:
                phi[f.scope[0], :card[f.scope[0]]] *= f.table
            elif len(f.scope) == 2:
                u, v = f.scope
                if u == v:
                    raise NetworkFormatError(f"{at(f.line)}factor {i} joins {names[u]} with itself")
                key, t = ((u, v), f.table) if (u, v) in pair or (v, u) not in pair else ((v, u), f.table.T)
                pair[key] = pair[key] * t if key in pair else t
                pair_line.setdefault(key, f.line)
            else:
                raise NotATreeError(f"{at(f.line)}factor {i} joins {_COUNT.get(len(f.scope), len(f.scope))} "
                                    f"variables: {', '.join(names[s] for s in f.scope)}; only pairwise "
                                    "networks on a tree are read")
    edges = list(pair)
    try:
        tree = Tree.from_edges(np.asarray(edges, np.int64).reshape(-1, 2), n, names=names, root=root)
    except DuplicateEdgeError as exc:  # pragma: no cover - pairs are merged above
        raise NotATreeError(f"{label}: {exc}") from None
    except EngineError as exc:
        raise type(exc)(f"{label}: the network is not a tree: {exc}") from None
    psi = np.zeros((tree.n - 1, k, k))
    for i, (p, c) in enumerate(tree.edges):
        p, c = int(p), int(c)
        t = pair[(p, c)] if (p, c) in pair else pair[(c, p)].T
        psi[i, :card[p], :card[c]] = t
    return Network(tree, phi, psi, tuple(tuple(v.states) for v in variables), kind, label)


def cpt_layout(vals: np.ndarray, cp: int, cc: int, *, standard: bool) -> np.ndarray | None:
    """A conditional table of ``cc`` child states given ``cp`` parent states, written as one flat
    list: read parent by parent (the child's states fastest) or child by child (as pgmpy's UAI
    writer and some BIF ``table`` lines have it), whichever makes every row a distribution.

    When both readings do and differ: with ``standard`` (UAI, whose format fixes the parent-by-
    parent layout) that layout is taken, unless only the other sums to one exactly (to 1e-9) and it
    only within the rounding tolerance — a coincidence of a pgmpy-written table, e.g. a 2 x 2 one
    whose first column sums to 1 ± 0.001; without ``standard`` (BIF) the table is ambiguous and
    ``None`` is returned, for the reader to refuse naming its line. When neither reading does, the
    parent-by-parent table is returned and the probability check names the row that is off.
    """
    a = vals.reshape(cp, cc)
    b = vals.reshape(cc, cp).T
    da = float(np.max(np.abs(a.sum(axis=1) - 1)))
    db = float(np.max(np.abs(b.sum(axis=1) - 1)))
    if da <= CPT_TOLERANCE and db <= CPT_TOLERANCE and not np.allclose(a, b):
        if not standard:
            return None
        return b if db <= 1e-9 < da else a
    return b if db <= CPT_TOLERANCE < da else a


def _check_cpt(f: Factor, variables: list[Variable], at) -> None:
    """Each row of a conditional table (one per parent state) must sum to 1 (within the tolerance)."""
    t = f.table.reshape(-1, f.table.shape[-1])
    sums = t.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > CPT_TOLERANCE)
    if bad.size:
        child = variables[f.child].name
        row = int(bad[0])
        given = ""
        if len(f.scope) == 2:
            p = variables[f.scope[0]]
            given = f" given {p.name}={p.states[row]}"
        raise InvalidPotentialError(f"{at(f.line)}the probabilities of {child}{given} sum to {sums[row]:.6g}, "
                                    "not 1")
