"""The elimination algorithm's cost on a tree
(the lecture notes "Inferences on trees: sum-product algorithm", section 8.1, Figures 2-4).

Eliminating a vertex sums it out of the product of every factor that mentions it, creating a
table over its current neighbours and joining them into a clique. Leaves first never creates a
table over more than one vertex; the centre of a star first creates one over all the others
(|X|^(N-1) entries).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import InvalidParameterError
from engine.trees.model import Tree

__all__ = ["EliminationStep", "elimination_steps", "leaves_first_order", "largest_table"]


@dataclass(frozen=True)
class EliminationStep:
    """Eliminating ``vertex`` created a table over ``scope`` (vertex indices) of ``size`` entries."""

    vertex: int
    scope: tuple
    size: int


def elimination_steps(tree: Tree, order, k: int) -> list[EliminationStep]:
    """Simulate eliminating the vertices of ``order`` (names or indices; all but the last vertex
    may be listed) on ``tree``'s graph with ``k`` labels per variable."""
    idx = [tree.index(v) for v in order]
    if len(set(idx)) != len(idx):
        raise InvalidParameterError("the elimination order lists a vertex twice")
    adj = {v: set(tree.neighbors(v)) for v in range(tree.n)}
    steps = []
    for v in idx:
        if v not in adj:
            raise InvalidParameterError(f"vertex {tree.name(v)} was already eliminated")
        nb = adj.pop(v)
        for a in nb:
            adj[a].discard(v)
            adj[a].update(nb - {a})
        steps.append(EliminationStep(v, tuple(sorted(nb)), int(k) ** len(nb)))
    return steps


def leaves_first_order(tree: Tree) -> list[int]:
    """Eliminate leaves first (reverse breadth-first order), root last: no table grows."""
    return [int(v) for v in tree.order[::-1][:-1]]


def largest_table(steps) -> int:
    return max((s.size for s in steps), default=1)

