"""Inference on trees: classical sum-product (belief propagation) and the online sum-product model.

Seeds: the lecture notes 001 (sections 8.1-8.4: elimination, sum-product, the parallel schedule
and the product trick) and seed 000, section 4 (online marginalisation on the hierarchical cover).

Heavy modules are imported lazily: ``from engine.inference import belief_propagation`` works,
and importing the package itself does not load numba.
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
    "potts",
    "OnlineModel",
]

_WHERE = {
    "Marginals": "belief_propagation",
    "belief_propagation": "belief_propagation",
    "flooding": "belief_propagation",
    "FloodingTrace": "belief_propagation",
    "max_product": "belief_propagation",
    "brute_force": "brute_force",
    "BruteForce": "brute_force",
    "edge_potential_table": "potentials",
    "potts": "potentials",
    "OnlineModel": "online",
}


def __getattr__(name):
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{mod}"), name)
