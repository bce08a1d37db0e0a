"""Example trees of "Online Sum-Product Computation over Trees"
(Herbster, Pasteris & Vitale): a tree consistent with every statement the text of Figure 1 makes.

The figure itself is an image; its caption and section 3 state that vertex 1 is s, S^2 = {1, 2, 3,
4} with boundary {4} formed at t = 0 from the edges (1,2), (2,3), (2,4); the children of 5 in D
are (4,5) and 6; the boundary of S^10 is {8, 12}; at t = 1, S^12 = [8 / 10] = [8 / 11] = [8 / 14]
is formed from S^10 and S^13 (both of round 0), with z = 10. The tree below satisfies all of them
(checked in ``tests/test_cover.py``); it is our reconstruction, not a copy of the drawing.
"""

from __future__ import annotations

from engine.trees.model import Tree

__all__ = ["FIGURE1_EDGES", "figure1_tree"]

FIGURE1_EDGES = ((1, 2), (2, 3), (2, 4), (4, 5), (5, 6), (6, 7), (4, 8), (8, 9), (8, 10), (10, 11),
                 (10, 12), (12, 13), (13, 14))


def figure1_tree() -> Tree:
    """The Figure 1 example, rooted at its leaf s = "1"."""
    return Tree.from_named_edges(FIGURE1_EDGES, root=1)
