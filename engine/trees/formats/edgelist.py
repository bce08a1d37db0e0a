"""Edge lists: one ``u,v`` per line (comma, tab, semicolon or blanks), optional header, ``#`` comments.

A line with a single name adds an isolated vertex (so a one-vertex tree can be written). Names that
contain a separator, a quote or a leading ``#`` are written in double quotes (``""`` inside).
"""

from __future__ import annotations

import re

import numpy as np

from engine.errors import DuplicateEdgeError, SelfLoopError, TreeFormatError
from engine.files import line_col, text_lines
from engine.trees.formats.common import (LINE_BREAKS, refuse_unwritable, token_keys, token_matrix, token_strings,
                                         tree_from_names)
from engine.trees.model import Tree

__all__ = ["parse_edge_list", "fast_edge_list", "format_edge_list", "check_head", "HEAD_BYTES", "ODD_BREAKS"]

_HEADER_WORDS = {"u", "source", "from", "parent", "node1", "src"}
_HEADER_SECOND = {"v", "target", "to", "child", "node2", "dst"}


def _is_header(a: str, b: str, a_again: bool) -> bool:
    """Whether the first line ``a,b`` is a header: two column names ('u,v', 'Source,Target', ...;
    any case), or a first column name ('source', 'parent', ...) that names no vertex elsewhere
    in the file (``a_again``: it does), as in 'source,dest'. A first edge from a vertex called
    'u' that other lines name too is an edge."""
    return a.lower() in _HEADER_WORDS and (b.lower() in _HEADER_SECOND or not a_again)


_SPECIAL = set(',;\t"#\' ')


# (possessive runs: a 10 MB quoted name is one step, not ten million saved backtracking points)
_QUOTED = re.compile(r'"((?:[^"]++|"")*+)"|([^,;\t"]+)')


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


_SEP_TABLE = bytes.maketrans(b"\t;", b",,")


def fast_edge_list(data: bytes) -> Tree | None:
    """The tree of a plain edge list, parsed with array operations; None when the input is not plain.

    Plain means: ASCII without control characters, quotes or ``#``; every non-blank line holds two
    non-empty names separated by one ``,``, tab or ``;`` (names without blanks), or by one blank
    (in a file without those separators); an optional header line. Anything else (and every
    malformed input) goes to :func:`parse_edge_list`, whose messages name the line. The tree is the
    one :func:`parse_edge_list` builds: vertices numbered by first appearance, names kept as one
    NumPy string array.
    """
    parsed = _plain_edges(data)
    if parsed is None:
        return None
    edges, names = parsed
    try:
        return Tree.from_edges(edges, names.size, names=names, unique_names=True)
    except (DuplicateEdgeError, SelfLoopError):
        return None   # the careful parser names the line (it stops there)


def _plain_edges(data: bytes):
    """(edges int64 (m, 2), names U-array) of a plain edge list (see :func:`fast_edge_list`), or None."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    if not data or b'"' in data or b"#" in data:
        return None
    blank = data.count(b"\n\n")
    if blank > 10_000 and blank * 4 > data.count(b"\n"):
        return None   # mostly blank lines: the careful parser skips their runs in C (the arrays here would not)
    buf = np.frombuffer(data, np.uint8)
    if ((buf >= 128) | ((buf < 32) & (buf != 10) & (buf != 9))).any():
        return None
    if b"," in data or b"\t" in data or b";" in data:
        if b" " in data:
            return None
        buf = np.frombuffer(data.translate(_SEP_TABLE), np.uint8)
        sep = ord(",")
    else:
        sep = ord(" ")
    tokens = _tokens(buf, sep)
    if tokens is None:
        return None
    tok_start, tok_len = tokens
    mat, width = token_matrix(buf, tok_start, tok_len)
    if mat is None:
        return None
    first, second = (bytes(buf[tok_start[i]:tok_start[i] + tok_len[i]]).decode("ascii") for i in (0, 1))
    del tok_start, tok_len, buf, data
    keys = token_keys(mat)
    # (the pass over the keys only when the first word could start a header)
    if first.lower() in _HEADER_WORDS and _is_header(first, second, bool((keys[2:] == keys[0]).any())):
        mat, keys = mat[2:], keys[2:]
        if len(mat) == 0:
            return None
    uniq, first_at, inverse = np.unique(keys, return_index=True, return_inverse=True)
    del keys, uniq
    by_appearance = np.argsort(first_at, kind="stable")
    rank = np.empty(by_appearance.size, np.int64)
    rank[by_appearance] = np.arange(by_appearance.size)
    edges = rank[inverse.reshape(-1)].reshape(-1, 2)
    del inverse, rank
    names = token_strings(mat[first_at[by_appearance]], width)
    return edges, names


def _tokens(buf: np.ndarray, sep: int):
    """(start, length) int32 of the two names of every non-blank line, or None when a line is not
    exactly ``name SEP name``."""
    ends = np.flatnonzero(buf == 10).astype(np.int32)
    if buf[-1] != 10:
        ends = np.append(ends, np.int32(buf.size))
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    keep = ends > starts  # blank lines are skipped
    starts, ends = starts[keep], ends[keep]
    if starts.size == 0:
        return None
    seps = np.flatnonzero(buf == sep).astype(np.int32)
    if seps.size != starts.size or (seps <= starts).any() or (seps + 1 >= ends).any():
        return None  # a line without a separator, with two, or with an empty name
    if (seps[1:] <= ends[:-1]).any():
        return None  # a separator landed on the line before: that line had two
    tok_start = np.stack([starts, seps + 1], axis=1).reshape(-1)
    tok_len = np.stack([seps - starts, ends - seps - 1], axis=1).reshape(-1)
    return tok_start, tok_len


#: characters that ``str.splitlines`` and some programs take for a line break, but that an editor
#: shows inside a line (or not at all): an edge list refuses them, naming the one it found
ODD_BREAKS = {"\x0b": "vertical tab", "\x0c": "form feed", "\x1c": "file separator", "\x1d": "group separator",
              "\x1e": "record separator", "\x85": "next-line character (NEL)", "\u2028": "line separator",
              "\u2029": "paragraph separator"}
_ODD = re.compile("[" + "".join(ODD_BREAKS) + "]")


def _odd_break(text: str, offset: int) -> TreeFormatError:
    line, col = line_col(text, offset)
    c = text[offset]
    return TreeFormatError(f"a {ODD_BREAKS[c]} (U+{ord(c):04X}) at line {line}, column {col}: an edge list has one "
                           "edge per line, and some programs would read a line break there; remove it")


def _data_lines(text: str):
    """``(lineno, line, parts)`` of the lines that are neither blank nor comments, in order: one
    name (an isolated vertex) or two. A malformed line or a character of :data:`ODD_BREAKS` raises,
    naming the line a user sees."""
    odd = _ODD.search(text)
    odd_line = line_col(text, odd.start())[0] if odd else None
    for lineno, raw in text_lines(text):
        if odd_line is not None and lineno >= odd_line:
            raise _odd_break(text, odd.start())
        line = raw.strip()
        if line.startswith("#"):
            continue
        parts = _split(line, lineno)
        if not (len(parts) == 1 and parts[0] is not None) and (len(parts) != 2 or None in parts):
            raise TreeFormatError(f"line {lineno}: expected 'u,v' (two names), got {line[:60]!r}")
        yield lineno, line, parts
    if odd is not None:   # (on a blank line or a comment)
        raise _odd_break(text, odd.start())


def _check_repeats(text: str) -> None:
    """Raise the first self-loop or edge given twice, in file order, naming its line (and the
    edge's first one); a first line that may be a header is left out (only the whole file tells).
    The careful reader calls it on the first 64 KiB before anything else, and on the whole text
    only when the tree refuses an edge (so a large file keeps no table of its edges)."""
    first_on: dict[tuple, int] = {}
    for i, (lineno, line, parts) in enumerate(_data_lines(text)):
        if len(parts) == 1 or i == 0 and _maybe_header(line, *parts):
            continue
        a, b = parts
        if a == b:
            raise SelfLoopError(f"line {lineno}: edge ({a[:40]}, {b[:40]}) is a self-loop")
        first = first_on.setdefault((a, b) if a <= b else (b, a), lineno)
        if first != lineno:
            raise DuplicateEdgeError(f"line {lineno}: edge ({a[:40]}, {b[:40]}) is given more than once "
                                     f"(first on line {first})")


def _maybe_header(line: str, a: str, b: str) -> bool:
    return bool(a and b) and a.lower() in _HEADER_WORDS and '"' not in line


def parse_edge_list(text: str) -> Tree:
    pairs: list[tuple[str, str]] = []
    single: list[str] = []
    header: tuple[str, str] | None = None
    _check_repeats(text[:HEAD_BYTES].rpartition("\n")[0])   # the first lines' fatal problems, at once
    for i, (_lineno, line, parts) in enumerate(_data_lines(text)):
        if len(parts) == 1:
            single.append(parts[0])
        elif i == 0 and _maybe_header(line, *parts):
            header = (parts[0], parts[1])   # a header or the first edge: the other lines tell
        else:
            pairs.append((parts[0], parts[1]))
    if header is not None:
        again = any(header[0] in pair for pair in pairs) or header[0] in single
        if not _is_header(*header, again):
            pairs.insert(0, header)
    if not pairs and not single:
        from engine.errors import EmptyTreeError

        raise EmptyTreeError("the tree is empty: the edge list has no edges")
    try:
        return _tree_from_pairs(pairs, single)
    except (DuplicateEdgeError, SelfLoopError):
        del pairs, single
        _check_repeats(text)   # names the line
        raise


#: bytes of an edge list checked by :func:`check_head` before the rest is read
HEAD_BYTES = 1 << 16


def check_head(head: bytes) -> None:
    """Refuse an edge list from its first lines (``head``: its first bytes, cut anywhere) when they
    already show a fatal problem: a malformed line, a self-loop or an edge given twice (the
    messages of :func:`parse_edge_list`). A 60 MiB file repeating ``a,b`` is then refused at line
    2, before the rest is read or parsed. What the first lines cannot decide (a head that is not
    UTF-8, a cycle) is left to the full reading.

    >>> check_head(b"a,b\\nb,a\\nc")
    Traceback (most recent call last):
        ...
    engine.errors.DuplicateEdgeError: line 2: edge (b, a) is given more than once (first on line 1)
    """
    cut = head.rfind(b"\n")
    try:
        text = head[:cut + 1].decode("utf-8-sig")
    except UnicodeDecodeError:
        return
    if "\0" not in text:
        _check_repeats(text)


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
