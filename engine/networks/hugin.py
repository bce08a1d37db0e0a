"""Hugin's ``.net`` format (the part that describes discrete Bayesian networks).

::

    net { }
    node Rain { states = ("yes" "no"); label = "Rain"; }
    potential ( Rain | Season ) { data = (( 0.1 0.9 )    % Season = dry
                                          ( 0.7 0.3 )); } % Season = wet

``data`` nests one level of parentheses per parent, then the child's states (the child changes
fastest). ``%`` starts a comment. Continuous, decision and utility nodes and object-oriented
classes are refused in one line.
"""

from __future__ import annotations

import numpy as np

from engine.networks._text import Tokens, tokenize
from engine.networks.model import Factor, Network, Variable, assemble

__all__ = ["parse_hugin"]


def parse_hugin(text: str, label: str = "network.net") -> Network:
    tk = Tokens(tokenize(text, label, "%"), label)
    variables: list[Variable] = []
    pots = []
    while not tk.done():
        tok = tk.name("net, node or potential")
        word = tok.text.lower()
        if word == "net":
            tk.expect("{")
            tk.skip_until("}")
        elif word in ("node", "discrete"):
            if word == "discrete":
                nxt = tk.name("node")
                if nxt.text.lower() != "node":
                    raise tk.error(f"expected 'node' after 'discrete', found {nxt.text!r}", nxt.line)
            variables.append(_node(tk, tok.line))
        elif word in ("continuous", "decision", "utility", "function"):
            what = tk.peek().text if tk.peek() and word == "continuous" else ""
            raise tk.error(f"{word} nodes are not read: only discrete chance nodes make a tree of "
                           f"probabilities{(' (' + what + ')') if what and what != 'node' else ''}", tok.line)
        elif word == "class":
            raise tk.error("object-oriented classes are not read; export the network as a flat .net", tok.line)
        elif word == "potential":
            pots.append(_potential(tk, tok.line))
        else:
            raise tk.error(f"expected net, node or potential, found {tok.text!r}", tok.line)
    index = {v.name: i for i, v in enumerate(variables)}
    factors = []
    for child, parents, data, line, dline in pots:
        c = tk.declared(child, index, "potential", "node")
        scope = tuple(tk.declared(t, index, "potential", "node") for t in parents) + (c,)
        shape = [len(variables[s].states) for s in scope]
        if data is None:
            raise tk.error(f"the potential of {child.text} has no data", line)
        vals = np.asarray(data, float)
        if vals.size != int(np.prod(shape)):
            raise tk.error(f"the data of {child.text} has {vals.size} numbers, expected "
                           f"{' x '.join(map(str, shape))} = {int(np.prod(shape))}", dline)
        factors.append(Factor(scope, vals.reshape(shape), line, scope[-1]))
    return assemble(variables, factors, "bayes", label)


def _node(tk: Tokens, line: int) -> Variable:
    name = tk.name("a node name").text
    states = None
    for attr in tk.block("an attribute"):
        tk.expect("=")
        if attr.text == "states":
            tk.expect("(")
            states = []
            while not tk.accept(")"):
                s = tk.next(f"a state of {name}")
                if s.kind != "q":
                    raise tk.error(f"states of {name} must be quoted strings, found {s.text!r}", s.line)
                states.append(s.text)
            tk.expect(";")
        else:
            tk.skip_until(";")
    if not states:
        raise tk.error(f"node {name} has no states = (...);", line)
    return Variable(name, tuple(states), line)


def _potential(tk: Tokens, line: int):
    child, parents = tk.scope("potential")
    data = None
    dline = line
    for attr in tk.block("an attribute"):
        tk.expect("=")
        if attr.text == "data":
            dline = attr.line
            data = _nested_numbers(tk)
            tk.expect(";")
        else:
            tk.skip_until(";")
    return child, parents, data, line, dline


def _nested_numbers(tk: Tokens) -> list[float]:
    """The numbers of a nested parenthesised list, flattened in order."""
    out = []
    depth = 0
    while True:
        if tk.accept("("):
            depth += 1
            continue
        if tk.accept(")"):
            depth -= 1
            if depth < 0:
                raise tk.error("unbalanced ')' in data")
            if depth == 0:
                return out
            continue
        if depth == 0:
            out.append(tk.number("a number of the data"))
            return out
        out.append(tk.number("a number of the data"))
