"""Newick (``.nwk``/``.newick``): ``((A:0.1,B:0.2)X,C);`` with an iterative parser and writer.

No recursion anywhere, so 10^5 and more levels of nesting parse and print. Internal node names are
kept; unnamed vertices get their preorder index as name (``"0"`` is the root), made unique against
explicit names. Branch lengths are accepted (numbers after ``:``) and returned by
:func:`parse_newick_lengths`; the tree model itself does not keep them. Quoted names
(``'it''s'``) and ``[comments]`` are understood; underscores are kept as they are. Only the first
tree of a file is read.

Large trees: a plain text of at least :data:`FAST_FROM` characters (ASCII, no quotes or comments) is
read by a compiled scanner running the same state machine (:mod:`engine.trees.formats._kernels`),
which declines anything unusual so that this parser reads it and names the line and column; trees of
at least ``FAST_FROM // 10`` vertices are written by a compiled walk. Both give the same tree and text;
while a server compiles them elsewhere the careful ones read and write everything (``compiled_ready``).
"""

from __future__ import annotations

import re

import numpy as np

from engine.errors import TreeFormatError
from engine.trees.formats.common import (compiled_ready, matrix_fits, refuse_unwritable, token_keys, token_matrix,
                                         token_strings, where)
from engine.trees.model import Tree

__all__ = ["parse_newick", "parse_newick_lengths", "format_newick"]

_TOKEN = re.compile(r"""
    (?P<q>'(?:[^']++|'')*+'?)     # quoted label (unterminated ones are caught below; possessive: linear)
  | (?P<c>\[[^\]]*\]?)            # comment
  | (?P<p>[(),:;])                # punctuation
  | (?P<w>[^()\[\]',:;]+)         # unquoted label (blanks allowed inside, trimmed)
""", re.VERBOSE)

_NEEDS_QUOTE = re.compile(r"[()\[\]',:;\s]")


def parse_newick(text: str) -> Tree:
    return parse_newick_lengths(text)[0]


#: texts at least this long (plain ones: ASCII, no quotes or comments) are read by the compiled scanner
FAST_FROM = 100_000


def parse_newick_lengths(text: str) -> tuple[Tree, np.ndarray]:
    """The tree and its branch lengths (``nan`` where none is given), by vertex.

    >>> tree, lengths = parse_newick_lengths("((A:0.1,B:0.2)X,C);")
    >>> tree.names, lengths.tolist()
    (('0', 'X', 'A', 'B', 'C'), [nan, nan, 0.1, 0.2, nan])
    """
    # (a blank flood: the careful parser says so at once)
    if len(text) >= FAST_FROM and not text.isspace() and compiled_ready():
        fast = _fast_newick(text)
        if fast is not None:
            return fast
    return _careful_newick(text)


def _fast_newick(text: str) -> tuple[Tree, np.ndarray] | None:
    """The compiled scanner's reading of a plain text, or None: then the careful parser reads it
    (and names the line and column of what is wrong). Same vertices, numbering and names; the
    names are kept as one NumPy string array (no Python string per vertex)."""
    if len(text) >= 2**31 or not text.isascii() or "'" in text or "[" in text or "]" in text or "\x00" in text:
        return None
    from engine import limits
    from engine.trees.formats._kernels import scan_newick

    # a tree has one vertex more than it has slots, and '(' and ',' open the slots
    limits.check("vertices", text.count("(") + text.count(",") + 1, "the Newick tree's vertices")

    buf = np.frombuffer(text.encode("ascii"), np.uint8)
    status, parent, depth, name_span, length_span = scan_newick(buf)
    if status != 0:
        return None
    names = _names_array(buf, name_span)
    if names is None:
        return None  # two vertices of one name, or an unnamed one's number taken: the careful parser
    lengths = np.full(len(parent), np.nan)
    has = length_span[:, 0] >= 0
    try:
        lengths[has] = [float(x) for x in _slices(text, length_span[has])]
    except ValueError:
        return None
    return Tree(parent, np.argsort(depth, kind="stable"), 0, names), lengths


def _names_array(buf: np.ndarray, name_span: np.ndarray) -> np.ndarray | None:
    """The vertices' names as one string array: the name given, or for an unnamed vertex its
    number (as the careful parser names it). None when two would be equal (then the careful
    parser says which, or resolves a number that a given name took)."""
    named = name_span[:, 0] >= 0
    given, width = token_matrix(buf, name_span[named, 0], name_span[named, 1] - name_span[named, 0])
    if given is None:
        return None
    if named.all():
        mat = given
    else:
        numbers = np.flatnonzero(~named)
        digits = len(str(numbers[-1]))
        numbers = numbers.astype(f"S{digits}")
        width = max(width, digits)
        if not matrix_fits(len(named), width, len(buf)):   # a long given name among many numbers
            return None
        mat = np.zeros((len(named), max(width, 8)), np.uint8)
        mat[named, :given.shape[1]] = given
        mat[~named, :digits] = numbers.view(np.uint8).reshape(-1, digits)
    del given
    keys = np.sort(token_keys(mat))
    if (keys[1:] == keys[:-1]).any():
        return None
    del keys
    return token_strings(mat, width)


def _slices(text: str, spans: np.ndarray) -> list[str]:
    return [text[a:e] for a, e in zip(spans[:, 0].tolist(), spans[:, 1].tolist())]


def _careful_newick(text: str) -> tuple[Tree, np.ndarray]:
    parent: list[int] = []
    names: list[str | None] = []
    lengths: list[float] = []
    name_at: list[int] = []
    stack: list[int] = []
    open_at: list[int] = []
    last = -1          # the vertex a following name or ':length' belongs to
    named_last = False
    slot_empty = True  # nothing yet in the current child slot
    done = False
    pos = 0

    def new(par: int, off: int) -> int:
        parent.append(par)
        names.append(None)
        lengths.append(np.nan)
        name_at.append(off)
        return len(parent) - 1

    toks = _TOKEN.finditer(text)
    for m in toks:
        kind = m.lastgroup
        tok = m.group()
        pos = m.start()
        if kind == "c":
            if not tok.endswith("]"):
                raise TreeFormatError(f"unterminated [comment] starting at {where(text, pos)}")
            continue
        if kind == "w" and not tok.strip():
            continue
        if done:
            break
        if tok == "(":
            if not slot_empty:
                raise TreeFormatError(f"unexpected '(' at {where(text, pos)}: a ',' is missing before it")
            if not stack and parent:
                raise TreeFormatError(f"unexpected '(' at {where(text, pos)}: the tree is already complete")
            v = new(stack[-1] if stack else -1, pos)
            stack.append(v)
            open_at.append(pos)
            slot_empty, last, named_last = True, -1, False
        elif tok == "," or tok == ")":
            if not stack:
                raise TreeFormatError(f"unexpected '{tok}' at {where(text, pos)}: no '(' is open")
            if slot_empty:
                new(stack[-1], pos)  # an unnamed leaf, as in '(,)'
            if tok == ",":
                slot_empty, last, named_last = True, -1, False
            else:
                last = stack.pop()
                open_at.pop()
                slot_empty, named_last = False, False
        elif kind in ("q", "w"):
            if kind == "q":
                if len(tok) < 2 or not tok.endswith("'"):
                    raise TreeFormatError(f"unterminated quoted name starting at {where(text, pos)}")
                label = tok[1:-1].replace("''", "'")
            else:
                label = tok.strip()
            if last >= 0 and not named_last and not slot_empty:
                names[last] = label      # the name after ')' (an internal node)
                name_at[last] = pos
                named_last = True
            elif slot_empty and (stack or not parent):
                last = new(stack[-1] if stack else -1, pos)
                names[last] = label
                slot_empty, named_last = False, True
            else:
                raise TreeFormatError(f"unexpected name {label[:40]!r} at {where(text, pos)}")
        elif tok == ":":
            if slot_empty and (stack or not parent):
                last = new(stack[-1] if stack else -1, pos)  # ':0.1' for an unnamed leaf
                slot_empty, named_last = False, True
            if last < 0:
                raise TreeFormatError(f"unexpected ':' at {where(text, pos)}")
            nxt = next(toks, None)
            while nxt is not None and nxt.lastgroup in ("c", "w") and not nxt.group().strip():
                nxt = next(toks, None)
            if nxt is None or nxt.lastgroup != "w":
                raise TreeFormatError(f"a branch length is missing after ':' at {where(text, pos)}")
            try:
                lengths[last] = float(nxt.group().strip())
            except ValueError:
                raise TreeFormatError(f"branch length {nxt.group().strip()[:30]!r} at "
                                      f"{where(text, nxt.start())} is not a number") from None
            named_last = True
        elif tok == ";":
            if stack:
                break
            done = True
    if stack:
        raise TreeFormatError(f"the '(' at {where(text, open_at[-1])} is never closed")
    if not parent:
        raise TreeFormatError("no tree found: the Newick text is empty")
    if not done:
        raise TreeFormatError("the Newick text does not end with ';' (a Newick tree is "
                              "terminated by a semicolon, e.g. '(A,B)C;')")
    seen: dict[str, int] = {}
    for v, s in enumerate(names):
        if s is not None:
            if s in seen:
                raise TreeFormatError(f"two vertices are named {s!r} (at {where(text, name_at[seen[s]])} "
                                      f"and {where(text, name_at[v])})")
            seen[s] = v
    full = []
    for v, s in enumerate(names):
        if s is None:
            s = str(v)
            while s in seen:
                s += "'"
            seen[s] = v
        full.append(s)
    p = np.asarray(parent, np.int64)
    tree = _preorder_tree(p, full)
    return tree, np.asarray(lengths, float)


def _preorder_tree(p: np.ndarray, names: list[str]) -> Tree:
    """Tree from a parent array in preorder (parents before children): BFS order by depth sort."""
    n = len(p)
    depth = np.zeros(n, np.int64)
    for v in range(1, n):  # parents come first in preorder
        depth[v] = depth[p[v]] + 1
    order = np.argsort(depth, kind="stable")
    return Tree(p, order, 0, names)


def _q(s: str) -> str:
    if s and not _NEEDS_QUOTE.search(s):
        return s
    return "'" + s.replace("'", "''") + "'"


def format_newick(tree: Tree, lengths=None) -> str:
    """Newick text of ``tree`` from its root; names equal to their preorder index are left out."""
    refuse_unwritable(tree, "Newick")
    if tree.n == 1:
        return _q(tree.name(0)) + ";\n"
    if tree.n >= FAST_FROM // 10 and compiled_ready():
        return _fast_format(tree, lengths)
    ptr, idx = tree.children_ptr, tree.children_idx
    names = tree.names
    pos = ptr[:-1].copy()
    out: list[str] = []
    stack = [tree.root]
    k = 0  # preorder counter

    def label(v: int, num: int) -> str:
        s = names[v]
        t = "" if s == str(num) else _q(s)
        if lengths is not None and np.isfinite(lengths[v]):
            t += f":{lengths[v]:g}"
        return t

    number = np.empty(tree.n, np.int64)
    while stack:
        v = stack[-1]
        start, end = ptr[v], ptr[v + 1]
        if pos[v] == start:
            number[v] = k
            k += 1
            if start == end:
                out.append(label(v, number[v]))
                stack.pop()
                continue
            out.append("(")
        if pos[v] < end:
            if pos[v] > start:
                out.append(",")
            stack.append(int(idx[pos[v]]))
            pos[v] += 1
        else:
            out.append(")" + label(v, number[v]))
            stack.pop()
    return "".join(out) + ";\n"


def _fast_format(tree: Tree, lengths) -> str:
    """:func:`format_newick` with the walk compiled and the text joined from one token array."""
    from engine.trees.formats._kernels import newick_tokens

    tokens, number = newick_tokens(tree.children_ptr, tree.children_idx, tree.root)
    names = tree.names
    plain = all(names) and not _NEEDS_QUOTE.search("".join(names))  # then no name is quoted
    label = [("" if s == k else s if plain else _q(s)) for s, k in zip(names, number.astype(str).tolist())]
    if lengths is not None:
        lengths = np.asarray(lengths, float)
        for v in np.flatnonzero(np.isfinite(lengths)).tolist():
            label[v] += f":{lengths[v]:g}"
    table = np.array(label + ["(", ",", ")"], dtype=object)
    n = tree.n
    return "".join(table[np.where(tokens >= 0, tokens, n - 1 - tokens)].tolist()) + ";\n"
