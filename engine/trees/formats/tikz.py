"""TikZ (LaTeX) drawing of a tree, for slides and papers: ``\\begin{tikzpicture}...`` with one node
per vertex at its tidy top-down position and one ``\\draw`` per edge.

Write-only (a drawing is not a tree file): names are escaped for LaTeX, node identifiers are
``v0, v1, ...`` (vertex indices), so any name is safe. Plain TikZ only (no ``forest`` package and no
LuaLaTeX graph drawing), so the output compiles with pdfLaTeX; ``standalone=True`` wraps it in a
complete ``standalone`` document.

>>> from engine.trees import Tree
>>> print(format_tikz(Tree.from_edges([[0, 1], [0, 2]], 3, names=["root", "a_1", "b"])), end="")  # doctest: +ELLIPSIS
% 3 vertices, root root (Tree Inference Workbench)
\\begin{tikzpicture}[x=1.20cm, y=1.20cm, ...]
  \\node[vertex] (v0) at (0.500, 0.000) {root};
  \\node[vertex] (v1) at (0.000, -1.000) {a\\_1};
  \\node[vertex] (v2) at (1.000, -1.000) {b};
  \\draw[edge] (v0) -- (v1);
  \\draw[edge] (v0) -- (v2);
\\end{tikzpicture}
"""

from __future__ import annotations

import numpy as np

from engine.errors import TreeFormatError
from engine.trees.layout import tidy_layout
from engine.trees.model import Tree

__all__ = ["TIKZ_LIMIT", "format_tikz", "latex_escape"]

#: largest tree written as TikZ (a picture of more vertices is neither readable nor quick to compile)
TIKZ_LIMIT = 2000

_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "#": r"\#", "$": r"\$", "%": r"\%",
            "&": r"\&", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (it prints as itself).

    >>> latex_escape("50% of a_b & {c}")
    '50\\\\% of a\\\\_b \\\\& \\\\{c\\\\}'
    """
    s = "".join(_ESCAPES.get(ch, ch) for ch in str(text))
    # control characters have no meaning in a label
    return "".join(max(ch, " ") for ch in s)


def format_tikz(tree: Tree, *, standalone: bool = False, layout=None) -> str:
    """The TikZ picture of ``tree`` (tidy top-down layout unless ``layout=(x, y)`` is given);
    ``standalone``: a complete LaTeX document around it."""
    if tree.n > TIKZ_LIMIT:
        raise TreeFormatError(f"a TikZ picture is written for trees of up to {TIKZ_LIMIT:,} vertices; "
                              f"this tree has {tree.n:,} (write Newick or an edge list instead)")
    x, y = tidy_layout(tree) if layout is None else (np.asarray(layout[0], float), np.asarray(layout[1], float))
    names = tree.names
    longest = max((len(s) for s in names), default=1)
    # about 0.2 cm per character at \small: neighbours 1 apart never overlap
    xu = max(1.0, 0.2 * longest + 0.4)
    lines = [f"% {tree.n:,} vertices, root {latex_escape(names[tree.root])} (Tree Inference Workbench)",
             f"\\begin{{tikzpicture}}[x={xu:.2f}cm, y=1.20cm, "
             "vertex/.style={draw, rounded corners=3pt, fill=white, inner sep=2pt, minimum size=1.4em, "
             "font=\\small}, edge/.style={draw, thick}]"]
    for v in range(tree.n):
        # "+ 0.0" turns -0.0 into 0.0
        lines.append(f"  \\node[vertex] (v{v}) at ({x[v] + 0.0:.3f}, {y[v] + 0.0:.3f}) {{{latex_escape(names[v])}}};")
    for a, b in tree.edges:
        lines.append(f"  \\draw[edge] (v{int(a)}) -- (v{int(b)});")
    lines.append("\\end{tikzpicture}")
    body = "\n".join(lines) + "\n"
    if standalone:
        return ("\\documentclass[tikz, border=4pt]{standalone}\n\\usepackage[T1]{fontenc}\n"
                "\\usepackage[utf8]{inputenc}\n\\begin{document}\n" + body + "\\end{document}\n")
    return body
