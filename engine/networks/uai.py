"""The UAI inference-competition format (``.uai``): ``MARKOV`` or ``BAYES`` networks of numbered variables.

::

    MARKOV          type
    3               variables
    2 2 3           their cardinalities
    2               factors
    2 0 1           scope of factor 0: two variables, 0 and 1
    2 1 2
    4               table of factor 0: 4 numbers, the last variable of the scope changing fastest
    1.2 0.5 0.5 1.2
    6
    ...

Variables are named ``x0``, ``x1``, ... and their states ``0``, ``1``, ...; lines starting with ``c``
are comments. In a ``BAYES`` file each factor is the table of the last variable of its scope given
the others. pgmpy's ``UAIWriter`` lists a conditional table with the child changing slowest
instead; such a table is recognised (its rows sum to one only when read that way, or sum to one
exactly that way and only within rounding the standard way) and read as meant. A table that is an
exact distribution both ways is read the standard way.
"""

from __future__ import annotations

import numpy as np

from engine import limits
from engine.files import text_lines
from engine.networks._text import Token, Tokens
from engine.networks.model import Factor, Network, Variable, assemble, cpt_layout

__all__ = ["parse_uai"]


def _tokens(text: str) -> list[Token]:
    out = []
    for ln, line in text_lines(text):   # (the lines an editor shows; blank runs skipped in C)
        s = line.strip()
        if s.startswith("c"):
            continue
        out.extend(Token("w", w, ln) for w in s.split())
    return out


def parse_uai(text: str, label: str = "network.uai") -> Network:
    tk = Tokens(_tokens(text), label)
    head = tk.name("MARKOV or BAYES")
    kind = head.text.upper()
    if kind not in ("MARKOV", "BAYES"):
        raise tk.error(f"the first word must be MARKOV or BAYES, found {head.text!r}", head.line)

    def integer(what: str, lo: int, hi: int) -> tuple[int, int]:
        tok = tk.next(what)
        try:
            v = int(tok.text)
        except ValueError:
            raise tk.error(f"expected {what}, found {tok.text!r}", tok.line) from None
        if not lo <= v <= hi:
            raise tk.error(f"{what} must be in {lo}..{hi:,}, found {v:,}", tok.line)
        return v, tok.line

    n, _ = integer("the number of variables", 1, limits.value("vertices"))
    card = []
    lines = []
    top = limits.value("states")
    for i in range(n):
        c, ln = integer(f"the cardinality of variable {i}", 1, top)
        card.append(c)
        lines.append(ln)
    variables = [Variable(f"x{i}", tuple(str(a) for a in range(c)), lines[i]) for i, c in enumerate(card)]
    cells = limits.value("table_cells")
    m, _ = integer("the number of factors", 0, cells)
    scopes = []
    for f in range(m):
        size, ln = integer(f"the scope size of factor {f}", 0, n)
        scope = tuple(integer(f"a variable of factor {f}", 0, n - 1)[0] for _ in range(size))
        if len(set(scope)) != len(scope):
            raise tk.error(f"factor {f} names a variable twice", ln)
        scopes.append((scope, ln))
    total = 0
    factors = []
    for f, (scope, sline) in enumerate(scopes):
        shape = [card[s] for s in scope]
        want = int(np.prod(shape)) if shape else 1
        total += want
        if total > cells:
            raise tk.error(limits.refusal("table_cells", f"the tables ({total:,} numbers so far)", total), sline)
        count, ln = integer(f"the number of entries of factor {f}", 0, cells)
        if count != want:
            raise tk.error(f"factor {f} over {', '.join(f'x{s}' for s in scope) or 'nothing'} has "
                           f"{want} entries, the file says {count}", ln)
        vals = np.asarray([tk.number(f"entry {j} of factor {f}") for j in range(count)], float)
        table = vals.reshape(shape) if shape else vals.reshape(())
        child = None
        if kind == "BAYES":
            if not scope:
                raise tk.error(f"factor {f} of a BAYES network has an empty scope", sline)
            child = scope[-1]
            if len(scope) == 2:
                table = cpt_layout(vals, card[scope[0]], card[scope[1]], standard=True)
        factors.append(Factor(scope, table, sline, child))
    if not tk.done():
        raise tk.error(f"unexpected {tk.peek().text!r} after the last table")
    return assemble(variables, factors, "bayes" if kind == "BAYES" else "markov", label)
