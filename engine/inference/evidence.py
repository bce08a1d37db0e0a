"""Evidence on a tree's vertices as weight vectors: what sum-product multiplies into the node potentials.

Evidence names vertices and gives each a label (hard evidence, a one-hot vector), a state name of a
network's variable, or one non-negative weight per label (soft evidence); the inference of the
lecture notes "Inferences on trees: sum-product algorithm" (section 8.2) and of "Online Sum-Product
Computation over Trees" (Herbster, Pasteris & Vitale, section 4) multiplies these vectors into φ.

>>> from engine.trees.samples import read_sample
>>> evidence_vectors({"4": 1, "5": (0.2, 0.8)}, read_sample("lecture_5_vertices"), 2)
{3: [0.0, 1.0], 4: [0.2, 0.8]}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import InvalidParameterError, UnknownVertexError

__all__ = ["evidence_vectors", "vertex_index"]


def evidence_vectors(evidence: Mapping[str, Any], tree, k: int, states=None) -> dict[int, list[float]]:
    """Evidence by vertex index as length-``k`` weight vectors (hard evidence is one-hot).

    ``states`` (per vertex, the state names of a network's variables) lets labels be state names.
    Raises :class:`~engine.errors.InvalidParameterError` naming the vertex at fault.
    """
    out: dict[int, list[float]] = {}
    for name, val in evidence.items():
        v = vertex_index(tree, name,
                         f"evidence {name}={val if not isinstance(val, tuple) else '/'.join(map(str, val))}")
        card = len(states[v]) if states is not None else k  # a network's variable may have fewer states
        if isinstance(val, tuple):
            if len(val) != card:
                raise InvalidParameterError(f"soft evidence at {name} has {len(val)} weights; {name} has "
                                            f"{card} {'states' if states is not None else 'labels'}")
            out[v] = [float(x) for x in val] + [0.0] * (k - card)
            continue
        label = val
        if isinstance(val, str):
            names = list(states[v]) if states is not None else []
            if val not in names:
                raise InvalidParameterError(f"evidence {name}={val}: {name} has no state {val!r}"
                                            + (f"; states: {', '.join(names)}" if names else ""))
            label = names.index(val)
        if not 0 <= label < card:
            raise InvalidParameterError(f"evidence {name}={val}: labels are 0..{card - 1}")
        out[v] = [1.0 if a == label else 0.0 for a in range(k)]
    return out


def vertex_index(tree, name, what: str) -> int:
    """The index of the vertex ``name`` of ``tree``; the error names ``what`` asked for it."""
    try:
        return tree.index(name)
    except UnknownVertexError:
        raise UnknownVertexError(f"{what}: the tree has no vertex named {name}") from None
