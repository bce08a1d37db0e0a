"""The two small languages a link writes model data in: evidence and square matrices.

Evidence (``4=1,5=0.2/0.8,Smoker=yes``) is what the inference pages of "Online Sum-Product
Computation over Trees" (Herbster, Pasteris & Vitale, section 4) and the lecture notes
"Inferences on trees: sum-product algorithm" multiply into the node potentials; a matrix
(``2,1;1,2``) is one edge potential ψ. Numbers are written in the shortest text that reads back
as the same double (:func:`number_text`).

>>> parse_evidence("4=1,5=0.2/0.8")
{'4': 1, '5': (0.2, 0.8)}
>>> format_matrix(parse_matrix("2,1;1,2"))
'2,1;1,2'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from engine.errors import InvalidParameterError, UnknownVertexError

__all__ = ["evidence_vectors", "format_evidence", "format_matrix", "number_text", "parse_evidence", "parse_matrix"]


def number_text(x) -> str:
    """The shortest text that reads back as exactly the same double (``2`` rather than ``2.0``)."""
    v = float(x)
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)


def parse_evidence(text: str, *, what: str = "evidence") -> dict[str, Any]:
    """``"4=1,5=0.2/0.8,Smoker=yes"`` -> ``{"4": 1, "5": (0.2, 0.8), "Smoker": "yes"}``.

    Items are separated by commas; each is ``VERTEX=LABEL`` (an integer label, or a state name of a
    network's variable) or ``VERTEX=W0/W1/...`` (soft evidence: one non-negative weight per label).
    The vertex name is everything before the last ``=``.
    """
    out: dict[str, Any] = {}
    if not text.strip():
        return out
    for item in text.split(","):
        name, eq, val = item.strip().rpartition("=")
        name, val = name.strip(), val.strip()
        if not eq or not name or not val:
            raise InvalidParameterError(f"{what}: {item.strip()!r} is not VERTEX=LABEL or VERTEX=W0/W1/...")
        if name in out:
            raise InvalidParameterError(f"{what}: vertex {name} is given twice")
        if "/" in val:
            try:
                w = tuple(float(x) for x in val.split("/"))
            except ValueError:
                raise InvalidParameterError(f"{what}: soft evidence {val!r} at {name} must be numbers "
                                            "separated by /") from None
            if not all(math.isfinite(x) and x >= 0 for x in w) or not any(w):
                raise InvalidParameterError(f"{what}: soft evidence at {name} must be finite weights >= 0, "
                                            f"not all zero, got {val}")
            out[name] = w
        elif re.fullmatch(r"[0-9]+", val):
            out[name] = int(val)
        else:
            out[name] = val
    return out


def format_evidence(evidence: Mapping[str, Any]) -> str:
    """The inverse of :func:`parse_evidence`; a vertex name with ``,`` cannot go into a link."""
    items = []
    for name, val in evidence.items():
        name = str(name)
        if "," in name or not name.strip() or name != name.strip():
            raise InvalidParameterError(f"vertex {name!r} cannot be named in evidence of a link "
                                        "(a comma or surrounding blanks in its name)")
        if isinstance(val, (tuple, list)):
            items.append(f"{name}=" + "/".join(number_text(x) for x in val))
        else:
            items.append(f"{name}={val}")
    return ",".join(items)


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


def parse_matrix(text: str, *, what: str = "matrix") -> tuple[tuple[float, ...], ...]:
    """``"2,1;1,2"`` -> ``((2.0, 1.0), (1.0, 2.0))``: a square matrix of finite numbers >= 0."""
    try:
        rows = tuple(tuple(float(x) for x in r.split(",")) for r in text.split(";"))
    except ValueError:
        raise InvalidParameterError(f"{what}: {text[:60]!r} is not numbers separated by , and ;") from None
    k = len(rows)
    if k < 2 or any(len(r) != k for r in rows):
        raise InvalidParameterError(f"{what}: expected a square matrix of at least 2 x 2, rows separated by ;")
    if not all(math.isfinite(x) and x >= 0 for r in rows for x in r):
        raise InvalidParameterError(f"{what}: entries must be finite and >= 0")
    return rows


def format_matrix(m) -> str:
    """The inverse of :func:`parse_matrix`."""
    return ";".join(",".join(number_text(x) for x in r) for r in m)
