"""XMLBIF (``.xml``, ``.xmlbif``): the XML Interchange Format for Bayesian networks (version 0.3).

A ``VARIABLE`` has a ``NAME`` and ``OUTCOME`` states; a ``DEFINITION`` (``PROBABILITY`` in older
files) gives ``FOR`` a child, ``GIVEN`` its parents and a ``TABLE`` whose numbers run over the
parents' states, the child's state changing fastest. Tags are matched without regard to case.
Parsing is defusedxml's (no entities, no external references); errors name the file, and the
line of the variable or definition at fault.
"""

from __future__ import annotations

import re

import numpy as np

from engine.errors import EngineError, NetworkFormatError
from engine.networks.model import Factor, Network, Variable, assemble

__all__ = ["parse_xmlbif"]


def parse_xmlbif(data: bytes, label: str = "network.xml") -> Network:
    from engine.trees.formats.xmlsafe import feed_safely, local

    try:
        root = feed_safely(data, what=label)
    except EngineError as exc:
        raise NetworkFormatError(str(exc)) from None
    text = data.decode("utf-8", "replace")

    def line_of(tag: str, name: str) -> int:
        m = re.search(rf"<{tag}>\s*{re.escape(name)}\s*</{tag}>", text, re.IGNORECASE)
        return text.count("\n", 0, m.start()) + 1 if m else 0

    def err(msg: str, line: int = 0) -> NetworkFormatError:
        return NetworkFormatError(f"{label}:{line}: {msg}" if line else f"{label}: {msg}")

    def kids(el, tag):
        return [c for c in el if local(c.tag).upper() == tag]

    def one_text(el, tag, what, line=0) -> str:
        got = kids(el, tag)
        if len(got) != 1 or not (got[0].text or "").strip():
            raise err(f"{what} needs exactly one non-empty <{tag}>", line)
        return got[0].text.strip()

    if local(root.tag).upper() != "BIF":
        raise err(f"the root element is <{local(root.tag)}>, not <BIF>")
    nets = kids(root, "NETWORK")
    if len(nets) != 1:
        raise err(f"expected one <NETWORK>, found {len(nets)}")
    net = nets[0]
    variables: list[Variable] = []
    for el in kids(net, "VARIABLE"):
        name = one_text(el, "NAME", "a <VARIABLE>")
        line = line_of("NAME", name)
        kind = (el.get("TYPE") or el.get("type") or "nature").lower()
        if kind != "nature":
            raise err(f"variable {name} is a {kind} node; only chance (nature) variables are read", line)
        states = tuple((o.text or "").strip() for o in kids(el, "OUTCOME"))
        if not states or any(not s for s in states):
            raise err(f"variable {name} needs <OUTCOME> states, none empty", line)
        variables.append(Variable(name, states, line))
    index = {v.name: i for i, v in enumerate(variables)}
    factors = []
    for el in kids(net, "DEFINITION") + kids(net, "PROBABILITY"):
        child = one_text(el, "FOR", "a <DEFINITION>")
        line = line_of("FOR", child)
        if child not in index:
            raise err(f"a definition is FOR {child!r}, which no <VARIABLE> declares", line)
        parents = [(g.text or "").strip() for g in kids(el, "GIVEN")]
        for p in parents:
            if p not in index:
                raise err(f"the definition of {child} is GIVEN {p!r}, which no <VARIABLE> declares", line)
        scope = tuple(index[p] for p in parents) + (index[child],)
        shape = [len(variables[s].states) for s in scope]
        raw = one_text(el, "TABLE", f"the definition of {child}", line).split()
        try:
            vals = np.asarray([float(x) for x in raw], float)
        except ValueError:
            bad = next(x for x in raw if not _is_number(x))
            raise err(f"the table of {child} holds {bad[:30]!r}, not a number", line) from None
        if vals.size != int(np.prod(shape)):
            raise err(f"the table of {child} has {vals.size} numbers, expected "
                      f"{' x '.join(map(str, shape))} = {int(np.prod(shape))}", line)
        factors.append(Factor(scope, vals.reshape(shape), line, index[child]))
    return assemble(variables, factors, "bayes", label)


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True
