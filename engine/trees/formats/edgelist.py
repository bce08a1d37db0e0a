"""Edge lists: one ``u,v`` per line (comma, tab, semicolon or blanks), optional header, ``#`` comments.

A line with a single name adds an isolated vertex (so a one-vertex tree can be written). Names that
contain a separator, a quote or a leading ``#`` are written in double quotes (``""`` inside).
"""

from __future__ import annotations

import re


from engine.errors import TreeFormatError
from engine.trees.formats.common import LINE_BREAKS, refuse_unwritable, tree_from_names
from engine.trees.model import Tree

__all__ = ["parse_edge_list", "format_edge_list"]

_HEADER_WORDS = {"u", "source", "from", "parent", "node1", "src"}
_SPECIAL = set(',;\t"#\' ')


_QUOTED = re.compile(r'"((?:[^"]|"")*)"|([^,;\t"]+)')


def _split(line: str, lineno: int = 0) -> list[str]:
    if '"' in line:
        parts = []
        at = 0
        for m in _QUOTED.finditer(line):
            if line[at:m.start()].strip(" ,;\t"):  # an unmatched quote is left between the matches
                break
            quoted, plain = m.groups()
            if plain is not None:
                if plain.strip():
                    parts.append(plain.strip())
            else:
                parts.append(quoted.replace('""', '"'))  # "" is the empty name
            at = m.end()
        if line[at:].strip(" ,;\t"):
            raise TreeFormatError(f"line {lineno}: unterminated or misplaced quote in {line[:60]!r}")
        return parts
    parts = [p.strip() or None for p in line.replace("\t", ",").replace(";", ",").split(",")]
    if len(parts) == 1 and parts[0] is not None and " " in parts[0]:
        parts = parts[0].split()
    return parts


def parse_edge_list(text: str) -> Tree:
    pairs: list[tuple[str, str]] = []
    single: list[str] = []
    seen_data = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = _split(line, lineno)
        if not seen_data:
            seen_data = True
            if len(parts) == 2 and parts[0] and parts[0].lower() in _HEADER_WORDS and '"' not in line:
                continue  # header
        if len(parts) == 1 and parts[0] is not None:
            single.append(parts[0])
            continue
        if len(parts) != 2 or parts[0] is None or parts[1] is None:
            raise TreeFormatError(f"line {lineno}: expected 'u,v' (two names), got {line[:60]!r}")
        pairs.append((parts[0], parts[1]))
    if not pairs and not single:
        from engine.errors import EmptyTreeError

        raise EmptyTreeError("the tree is empty: the edge list has no edges")
    return _tree_from_pairs(pairs, single)


def _tree_from_pairs(pairs, single) -> Tree:
    return tree_from_names(pairs, vertices=single)


def _quote(s: str) -> str:
    if s and not (_SPECIAL & set(s)) and s == s.strip() and not s.startswith("\ufeff"):
        return s
    return '"' + s.replace('"', '""') + '"'


def format_edge_list(tree: Tree, sep: str = ",") -> str:
    """One ``u,v`` line per edge; names with a separator, a quote, blanks at either end, a leading
    ``#`` or nothing at all are quoted. Names with a line break (which a line-based file cannot hold)
    are refused."""
    refuse_unwritable(tree, "an edge list", LINE_BREAKS)
    if tree.n == 1:
        return _quote(tree.name(0)) + "\n"
    names = [str(i) for i in range(tree.n)] if tree.has_default_names else [_quote(s) for s in tree.names]
    e = tree.edges.tolist()
    u0 = e[0][0]
    if names[u0].lower() in _HEADER_WORDS:  # quoted, so that the first edge is not taken for a header
        names[u0] = '"' + names[u0] + '"'
        first = f"{names[u0]}{sep}{names[e[0][1]]}\n"
        names[u0] = _quote(tree.names[u0])
    else:
        first = f"{names[u0]}{sep}{names[e[0][1]]}\n"
    return first + "".join(f"{names[u]}{sep}{names[v]}\n" for u, v in e[1:])
