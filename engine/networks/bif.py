"""The Bayesian network Interchange Format (``.bif``), as written by pgmpy, bnlearn and JavaBayes.

::

    network weather { }
    variable Season { type discrete [ 2 ] { dry, wet }; }
    probability ( Season ) { table 0.6, 0.4; }
    probability ( Rain | Season ) { ( dry ) 0.1, 0.9; ( wet ) 0.7, 0.3; }

Rows of a conditional table are matched to the parent's states by name, in any order; a
``default`` row fills the parent states not listed. A conditional ``table`` line (no parent state
named) is read in the layout under which every row sums to one; when both layouts would, the file
is refused as ambiguous rather than read the wrong way round. ``property`` lines are skipped.
"""

from __future__ import annotations

import numpy as np

from engine.networks._text import Tokens, tokenize
from engine.networks.model import Factor, Network, Variable, assemble, cpt_layout

__all__ = ["parse_bif"]


def parse_bif(text: str, label: str = "network.bif") -> Network:
    tk = Tokens(tokenize(text, label, "c"), label)
    variables: list[Variable] = []
    blocks = []  # (child token, parent tokens, rows, line)
    while not tk.done():
        tok = tk.name("a block (network, variable or probability)")
        word = tok.text.lower()
        if word == "network":
            while not tk.accept("{"):
                tk.name("the network's name")
            tk.skip_until("}")
        elif word == "variable":
            variables.append(_variable(tk, tok.line))
        elif word == "probability":
            blocks.append(_probability(tk, tok.line))
        else:
            raise tk.error(f"expected network, variable or probability, found {tok.text!r}", tok.line)
    index = {v.name: i for i, v in enumerate(variables)}
    return assemble(variables, [_table(tk, variables, index, *b) for b in blocks], "bayes", label)


def _variable(tk: Tokens, line: int) -> Variable:
    name = tk.name("a variable name").text
    states = None
    for tok in tk.block("type or property"):
        if tok.text.lower() == "type":
            kind = tk.name("discrete").text.lower()
            if kind != "discrete":
                raise tk.error(f"variable {name} is of type {kind}; only discrete variables are read", tok.line)
            tk.expect("[")
            count_tok = tk.next("the number of states")
            tk.expect("]")
            tk.expect("{")
            states = []
            while True:
                states.append(tk.name(f"a state of {name}").text)
                if tk.accept("}"):
                    break
                tk.expect(",")
            tk.accept(";")
            try:
                count = int(count_tok.text)
            except ValueError:
                raise tk.error(f"variable {name}: the number of states must be an integer, found "
                               f"{count_tok.text!r}", count_tok.line) from None
            if count != len(states):
                raise tk.error(f"variable {name} declares {count} states but lists {len(states)}", tok.line)
        elif tok.text.lower() == "property":
            tk.skip_until(";")
        else:
            raise tk.error(f"variable {name}: expected type or property, found {tok.text!r}", tok.line)
    if states is None:
        raise tk.error(f"variable {name} has no 'type discrete [ n ] {{ ... }}' line", line)
    return Variable(name, tuple(states), line)


def _probability(tk: Tokens, line: int):
    child, parents = tk.scope("probability block")
    tk.expect("{")
    rows = []  # (kind, states, values, line)
    while not tk.accept("}"):
        tok = tk.next("a table row or '}'")
        if tok.kind == "p" and tok.text == "(":
            states = []
            while not tk.accept(")"):
                if tk.accept(","):
                    continue
                states.append(tk.name("a parent state"))
            rows.append(("row", states, _numbers(tk), tok.line))
        elif tok.text.lower() in ("table", "default"):
            rows.append((tok.text.lower(), [], _numbers(tk), tok.line))
        elif tok.text.lower() == "property":
            tk.skip_until(";")
        else:
            raise tk.error(f"probability of {child.text}: expected (states), table or default, found "
                           f"{tok.text!r}", tok.line)
    return child, parents, rows, line


def _numbers(tk: Tokens) -> list[float]:
    out = []
    while True:
        if tk.accept(";"):
            return out
        if tk.accept(","):
            continue
        out.append(tk.number("a probability"))


def _table(tk: Tokens, variables, index, child, parents, rows, line) -> Factor:
    c = tk.declared(child, index, "probability block", "variable block", "the variable")
    ps = [tk.declared(p, index, "probability block", "variable block", "the parent") for p in parents]
    name = variables[c].name
    cc = len(variables[c].states)
    if len(ps) > 1:  # let the assembler name the node and its parents
        return Factor(tuple(ps + [c]), np.full([len(variables[p].states) for p in ps] + [cc], 1.0 / cc), line, c)
    if not ps:
        vals = [r for r in rows if r[0] == "table"]
        if len(vals) != 1 or len(rows) != 1:
            raise tk.error(f"probability of {name} (no parent) needs exactly one 'table' line", line)
        if len(vals[0][2]) != cc:
            raise tk.error(f"the table of {name} has {len(vals[0][2])} numbers; {name} has {cc} states", vals[0][3])
        return Factor((c,), np.asarray(vals[0][2], float), line, c)
    p = ps[0]
    pstates = variables[p].states
    cp = len(pstates)
    table = np.full((cp, cc), np.nan)
    for kind, states, vals, rline in rows:
        if kind == "table":
            if len(vals) != cp * cc:
                raise tk.error(f"the table of {name} given {variables[p].name} has {len(vals)} numbers, "
                               f"expected {cp} x {cc} = {cp * cc}", rline)
            t = cpt_layout(np.asarray(vals, float), cp, cc, standard=False)
            if t is None:
                raise tk.error(f"the table of {name} given {variables[p].name} reads as a distribution both row "
                               f"by row and column by column; write one line per state of {variables[p].name}, "
                               "e.g. ( state ) 0.2, 0.8;", rline)
            table[:] = t
        elif kind == "default":
            if len(vals) != cc:
                raise tk.error(f"the default row of {name} has {len(vals)} numbers; {name} has {cc} states", rline)
            unset = np.isnan(table[:, 0])
            table[unset] = vals
        else:
            if len(states) != 1:
                raise tk.error(f"a row of {name} names {len(states)} parent states; {name} has one parent", rline)
            s = states[0].text
            if s not in pstates:
                raise tk.error(f"{variables[p].name} has no state {s!r} (states: {', '.join(pstates)})", rline)
            if len(vals) != cc:
                raise tk.error(f"the row ({s}) of {name} has {len(vals)} numbers; {name} has {cc} states", rline)
            table[pstates.index(s)] = vals
    missing = np.flatnonzero(np.isnan(table[:, 0]))
    if missing.size:
        raise tk.error(f"the table of {name} has no row for {variables[p].name}={pstates[missing[0]]}", line)
    return Factor((p, c), table, line, c)
