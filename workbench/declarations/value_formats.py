"""The small languages a link writes model data in: evidence, square matrices, a region of a drawing.

Evidence (``4=1,5=0.2/0.8,Smoker=yes``) is what the inference pages of "Online Sum-Product
Computation over Trees" (Herbster, Pasteris & Vitale, section 4) and the lecture notes
"Inferences on trees: sum-product algorithm" multiply into the node potentials; a matrix
(``2,1;1,2``) is one edge potential ψ. Numbers are written in the shortest text that reads back
as the same double (:func:`number_text`).

>>> parse_evidence("4=1,5=0.2/0.8")
{'4': 1, '5': (0.2, 0.8)}
>>> format_matrix(parse_matrix("2,1;1,2"))
'2,1;1,2'

A region (``radial:-0.5,0.5,-0.2,0.3``) is the part of a tree's drawing a view shows: its layout
and its extent ``x0,x1,y0,y1`` in that layout's units (see :mod:`engine.trees.lod`).

>>> parse_region("tidy:0,12.5,-3,0.5")
('tidy', 0.0, 12.5, -3.0, 0.5)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from engine.errors import InvalidParameterError

__all__ = ["format_evidence", "format_matrix", "format_region", "number_text", "parse_evidence",
           "parse_matrix", "parse_region", "REGION_LAYOUTS"]

#: The layouts a region may name (:data:`engine.trees.lod.LAYOUTS`; a test keeps them equal).
REGION_LAYOUTS = ("tidy", "radial")
#: The largest coordinate a region may give (a drawing of 10^6 vertices spans about 10^6 units).
_REGION_BOUND = 1e12


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


def parse_region(text: str, *, what: str = "region") -> tuple[str, float, float, float, float]:
    """``"radial:-0.5,0.5,-0.2,0.3"`` -> ``("radial", -0.5, 0.5, -0.2, 0.3)``: a layout and the
    extent ``x0 < x1``, ``y0 < y1`` (finite numbers of at most 10^12 in size)."""
    layout, sep, rest = text.strip().partition(":")
    if not sep or layout not in REGION_LAYOUTS:
        raise InvalidParameterError(f"{what} {text[:60]!r}: expected LAYOUT:x0,x1,y0,y1 with LAYOUT one of "
                                    f"{', '.join(REGION_LAYOUTS)}")
    parts = rest.split(",")
    try:
        x0, x1, y0, y1 = (float(p) for p in parts)
    except ValueError:
        raise InvalidParameterError(f"{what} {text[:60]!r}: expected four numbers x0,x1,y0,y1 after "
                                    f"{layout}:") from None
    if not all(math.isfinite(v) and abs(v) <= _REGION_BOUND for v in (x0, x1, y0, y1)):
        raise InvalidParameterError(f"{what} {text[:60]!r}: the numbers must be finite and at most 1e12 in size")
    if not (x0 < x1 and y0 < y1):
        raise InvalidParameterError(f"{what} {text[:60]!r}: need x0 < x1 and y0 < y1")
    return layout, x0, x1, y0, y1


def format_region(region) -> str:
    """The text of a region (the inverse of :func:`parse_region`, to 8 significant digits)."""
    layout, *xs = region
    return f"{layout}:" + ",".join(f"{float(v):.8g}" for v in xs)
