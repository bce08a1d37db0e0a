"""Shared helpers of the tree readers and writers: limits, positions in text, fallback names."""

from __future__ import annotations

import re

import numpy as np

from engine.errors import TreeFormatError
from engine.files import line_col
from engine.limits import LIMITS

__all__ = ["MAX_INPUT_BYTES", "line_col", "where", "fill_names", "refuse_unwritable", "matrix_fits",
           "token_matrix", "token_strings", "token_keys", "XML_ILLEGAL", "LINE_BREAKS", "TreeFormatError",
           "KERNELS", "compiled_ready"]

#: characters XML 1.0 cannot hold, not even as a character reference (GraphML and XML documents)
XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
#: characters that end a line for ``str.splitlines`` (an edge list is read line by line), and NUL
LINE_BREAKS = re.compile("[\x00\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_NUL = re.compile("\x00")
#: the kernel module of the compiled readers and writers of large trees
KERNELS = "engine.trees.formats._kernels"


def compiled_ready() -> bool:
    """Whether the compiled readers and writers of large trees may be called now: not while a
    server compiles them in other processes (``engine.jit.defer``), when the careful ones read and
    write instead (the same tree and the same text, slower) rather than compiling them here."""
    from engine.jit import deferred   # here, not at the top: only a large tree asks, and it imports numba

    return not deferred(KERNELS)


def refuse_unwritable(tree, fmt: str, bad: re.Pattern | None = None, *, labels: bool = False) -> None:
    """Raise a one-line :class:`TreeFormatError` when a vertex name (or, with ``labels``, a label) of
    ``tree`` has a character ``bad`` matches (default: NUL, which no text format holds): the file
    would not read back. The message names the vertex, the character and the formats that can."""
    bad = _NUL if bad is None else bad
    values = list(tree.names) + ([str(x) for x in tree.labels if x is not None] if labels and tree.labels else [])
    if not bad.search("".join(values)):  # one search over all (the patterns are single characters)
        return
    for s in values:
        m = bad.search(s)
        if m:
            raise TreeFormatError(
                f"{fmt} cannot hold the character U+{ord(m.group()):04X} of the name {s[:40]!r}; the file "
                "would not read back. Write .json or .jsonl (which escape every character) or rename the vertex")

#: Default largest input (after decompression) a reader accepts: beyond the app's upload limit,
#: small enough that every reader answers within seconds. The limit in force is
#: ``engine.limits.value("bytes")`` (raised by ``TREE_WORKBENCH_MAX_BYTES``).
MAX_INPUT_BYTES = LIMITS["bytes"].default


def matrix_fits(rows: int, width: int, payload: int) -> bool:
    """Whether a (rows x width) byte matrix of names stays within a few times the ``payload``
    bytes they come from: one long name among many short ones would make it gigabytes."""
    return rows * max(width, 8) <= 4 * payload + 2**20


def token_matrix(buf: np.ndarray, start: np.ndarray, length: np.ndarray) -> tuple[np.ndarray | None, int]:
    """The tokens ``buf[start[i]:start[i] + length[i]]`` (bytes) as the rows of one zero-padded
    uint8 matrix at least 8 bytes wide, and the longest token's length. Filled column by column:
    no Python object per token (the large-file readers keep names this way). None instead of a
    matrix that would not :func:`matrix_fits`: the caller then reads the careful way.

    Linear in the bytes of the tokens: column ``k`` is filled for the tokens longer than ``k``
    only (a shrinking set), for the first :data:`_BY_COLUMN` columns; a token longer than that
    is copied as one slice (there are at most ``payload / _BY_COLUMN`` of them), so a 10 MB name
    costs one copy, not ten million column steps."""
    width = int(length.max()) if length.size else 0
    if not matrix_fits(start.size, width, int(length.sum())):
        return None, width
    mat = np.zeros((start.size, max(width, 8)), np.uint8)
    alive = np.arange(start.size)
    for k in range(min(width, _BY_COLUMN)):
        alive = alive[length[alive] > k]
        if not alive.size:
            break
        mat[alive, k] = buf[start[alive] + k]
    for i in alive[length[alive] > _BY_COLUMN].tolist() if width > _BY_COLUMN else ():
        s, n = int(start[i]), int(length[i])
        mat[i, _BY_COLUMN:n] = buf[s + _BY_COLUMN:s + n]
    return mat, width


#: columns of a :func:`token_matrix` filled one column at a time; the rest of a longer token is
#: copied as one slice
_BY_COLUMN = 4096


def token_strings(mat: np.ndarray, width: int) -> np.ndarray:
    """The rows of a :func:`token_matrix` (ASCII, no NUL) as one str array."""
    width = max(width, 1)
    wide = np.zeros((mat.shape[0], width), np.uint32)  # each ASCII byte widened to its code point:
    wide[:, :min(width, mat.shape[1])] = mat[:, :width]  # (NumPy's S -> U cast takes seconds and
    return wide.view(np.dtype(("U", width))).ravel()     # gigabytes for one 10 MB name)


def token_keys(mat: np.ndarray) -> np.ndarray:
    """One sortable key per row of a :func:`token_matrix` (a uint64 when 8 bytes wide)."""
    return mat.view(np.uint64).ravel() if mat.shape[1] == 8 else mat.view(np.dtype((np.void, mat.shape[1]))).ravel()




def where(text: str, offset: int) -> str:
    line, col = line_col(text, offset)
    return f"line {line}, column {col}"


def fill_names(raw: list, taken: set[str] | None = None) -> list[str]:
    """Names for vertices: ``raw[v]`` where given, else ``str(v)`` (made unique if taken).

    Raises DuplicateNameError (through the Tree constructor later) only for explicit duplicates.
    """
    explicit = {s for s in raw if s is not None} if taken is None else taken
    out = []
    for v, s in enumerate(raw):
        if s is None:
            s = str(v)
            while s in explicit:
                s = s + "'"
            explicit.add(s)
        out.append(s)
    return out


def tree_from_names(pairs, vertices=(), root=None, labels: dict | None = None):
    """``Tree.from_named_edges`` with names numbered at once for large inputs: by pandas' hash table
    (in C) where pandas is installed (the app's extra), else by one dict; the same numbers either way.

    Vertices are numbered in order of first appearance, ``vertices`` first, as there.
    """
    import numpy as np

    from engine.trees.model import Tree

    vertices = list(vertices)
    if len(pairs) + len(vertices) < 20_000:
        return Tree.from_named_edges(pairs, vertices=vertices, root=root, labels=labels)
    flat = np.empty(len(vertices) + 2 * len(pairs), dtype=object)
    flat[:len(vertices)] = [str(s) for s in vertices]
    if pairs:   # (not .astype(str): a fixed-width copy as wide as the longest name, gigabytes for one long name)
        flat[len(vertices):] = [s if type(s) is str else str(s) for pair in pairs for s in pair]
    codes, names = _number_names(flat)
    edges = codes[len(vertices):].reshape(-1, 2).astype(np.int64)
    r = 0
    if root is not None:
        try:
            r = names.index(str(root))
        except ValueError:
            from engine.errors import UnknownVertexError

            raise UnknownVertexError(f"root {root!s} is not a vertex of the tree") from None
    lab = [labels.get(s) for s in names] if labels else None
    return Tree.from_edges(edges, len(names), names=names, root=r, labels=lab)


def _number_names(flat: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Each name of ``flat`` (an object array of str) numbered in order of first appearance, and the
    distinct names in that order: pandas' ``factorize`` where pandas is installed (2 million names of
    a random tree: 0.9-1.6 s, against 3.2-4.5 s for the dict, on 2 loaded cores), else one dict."""
    try:
        import pandas as pd   # optional (the app's extra) and slow to import (0.3-0.8 s): large inputs only
    except ImportError:
        index: dict[str, int] = {}
        number = index.setdefault
        codes = np.fromiter((number(s, len(index)) for s in flat), np.int64, flat.size)
        return codes, list(index)
    codes, uniques = pd.factorize(flat)
    return codes, [str(s) for s in uniques]
