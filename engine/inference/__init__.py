"""Inference on trees: classical sum-product (belief propagation) and the online sum-product model.

Sources: the lecture notes "Inferences on trees: sum-product algorithm" (sections 8.1-8.4:
elimination, sum-product, the parallel schedule and the product trick) and "Online Sum-Product Computation over Trees"
(Herbster, Pasteris & Vitale), section 4 (online marginalisation on the hierarchical cover).

``from engine.inference import belief_propagation`` gives the function; importing the package
does not load numba (the kernels compile on first use).
"""

from __future__ import annotations

__all__ = [
    "Marginals",
    "belief_propagation",
    "flooding",
    "FloodingTrace",
    "max_product",
    "brute_force",
    "BruteForce",
    "edge_potential_table",
    "potts_interaction",
    "OnlineModel",
]

# Eager imports: these modules are light (numba is compiled on first use, never imported here).
# A lazy ``__getattr__`` would be shadowed by the submodules of the same name
# (``belief_propagation``, ``brute_force``) as soon as those were imported directly.
from engine.inference.belief_propagation import (  # noqa: E402
    FloodingTrace,
    Marginals,
    belief_propagation,
    flooding,
    max_product,
)
from engine.inference.brute_force import BruteForce, brute_force  # noqa: E402
from engine.inference.online import OnlineModel  # noqa: E402
from engine.inference.potentials import edge_potential_table, potts_interaction  # noqa: E402
