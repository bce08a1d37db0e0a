"""Positional-children JSON lines (``.jsonl``, ``.jsonl.gz``) of the hidden-tree-Markov-model data.

One tree per line: ``{"y": class, "labels": [l_1, ..., l_n], "children": [[c_1, ..., c_L], ...]}``;
nodes are numbered from 1, node 1 is the root, slot ``l`` of node ``k``'s list holds its ``l``-th
child (``-1`` for an empty slot). Reading keeps the labels in ``Tree.labels``, the slots in
``Tree.positions`` (1-based; 0 at the root) and names vertex ``k-1`` ``"k"`` (its number in the file).

Writing produces the same keys (``y`` is left out: a single tree has no class) plus, only where
needed, ``"names"`` (vertex names that are not the node numbers) and ``"label_names"`` (labels
that are not positive integers are coded 1..M in order of first appearance; this list decodes
them), so every round trip keeps names and labels.
"""

from __future__ import annotations

import itertools
import json
import re

import numpy as np

from engine.errors import EngineError, TreeFormatError
from engine.files import iter_lines, text_lines
from engine.jsonio import loads
from engine.trees.formats.common import compiled_ready, token_matrix, token_strings
from engine.trees.model import Tree

__all__ = ["parse_positional", "parse_positional_record", "format_positional", "read_positional_stream",
           "iter_positional_stream", "positional_children"]


def parse_positional(text: str, index: int = 0) -> Tree:
    """Tree number ``index`` (0-based, blank lines skipped) of JSON-lines text."""
    k = -1
    for lineno, line in text_lines(text):   # non-blank lines, numbered as an editor shows them
        k += 1
        if k == index:
            return parse_positional_record(line, lineno)
    raise _missing(index, k + 1)


def _missing(index: int, count: int) -> TreeFormatError:
    if count == 0:
        return TreeFormatError("no tree found: the JSON-lines input is empty")
    return TreeFormatError(f"tree index {index} is out of range: the file has {count} trees (0..{count - 1})")


def iter_positional_stream(f, max_bytes: int | None = None):
    """Yield ``(lineno, line)`` of the non-blank lines of a binary stream, within ``max_bytes``
    (default: the ``bytes`` limit of :mod:`engine.limits`); each line as its bytes (UTF-8,
    checked): :func:`parse_positional_record` reads them as they are."""
    for lineno, line in iter_lines(f, error=TreeFormatError, max_bytes=max_bytes, as_bytes=True, skip_blank=True):
        if not (_BLANK.fullmatch(line) if line.isascii() else line.decode("utf-8").isspace()):
            yield lineno, line


#: an ASCII line that str.isspace() calls blank (bytes.isspace() leaves out \x1c-\x1f), or an
#: empty one; matched without copying a long line
_BLANK = re.compile(rb"[ \t\n\r\x0b\x0c\x1c-\x1f]*")


def read_positional_stream(f, index: int = 0, max_bytes: int | None = None) -> Tree:
    """Tree number ``index`` of a binary stream, reading no further than that line."""
    if index < 0:
        raise TreeFormatError(f"tree index must be >= 0, got {index}")
    k = -1
    for lineno, line in iter_positional_stream(f, max_bytes):
        k += 1
        if k == index:
            return parse_positional_record(line, lineno)
    raise _missing(index, k + 1)


#: records of at least this many characters are read through the compiled scanner first
FAST_READ_FROM = 100_000


def parse_positional_record(line: str | bytes, lineno: int = 1) -> Tree:
    """The tree of one JSON line, text or UTF-8 bytes (``lineno`` is for messages)."""
    where = f"line {lineno}"
    fast = _fast_record(line, where) if len(line) >= FAST_READ_FROM and compiled_ready() else None
    if fast is not None:
        rec, parent, slot = fast
    else:
        if isinstance(line, bytes):   # the careful reader counts columns in characters
            line = line.decode("utf-8")
        try:
            rec = loads(line, where=where)
        except EngineError as exc:
            raise TreeFormatError(str(exc)) from None
        if not isinstance(rec, dict) or not isinstance(rec.get("children"), list):
            raise TreeFormatError(f"{where}: expected an object with a 'children' list (and 'labels')")
        if not rec["children"]:
            from engine.errors import EmptyTreeError

            raise EmptyTreeError(f"{where}: the tree is empty ('children' has no nodes)")
        parent, slot = positional_children(rec["children"], where=where)
    return _record_tree(rec, parent, slot, where)


def _fast_record(line: str | bytes, where: str):
    """``(rec, parent, slot)`` of a large record whose 'children' are plain integer rows, read by
    the compiled scanner (the other keys by :func:`loads`); None when the careful reader must run
    (anything unusual, or an error to name)."""
    from engine.trees.formats._kernels import child_slots, json_int_rows, json_object_spans, json_plain_strings

    raw = line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
    b = np.frombuffer(raw, np.uint8)
    status, spans = json_object_spans(b)
    if status:
        return None
    keys = [raw[a:e].decode("utf-8", "surrogatepass") for a, e in spans[:, :2].tolist()]
    if len(set(keys)) != len(keys) or "children" not in keys or not set(keys) <= _KEYS:
        return None
    from engine import limits

    depth = limits.value("json_depth") - 1   # the values sit one level inside the record
    rec = {}
    for key, (_, _, a, e) in zip(keys, spans.tolist()):
        if key == "children":
            status, widths, flat = json_int_rows(b, a, e)
            if status or len(widths) == 0:
                return None
            ok, parent, slot = child_slots(widths, flat)   # one pass, no mask
            if ok:
                del widths, flat    # the rows' integers: free them before the other keys
        elif raw.startswith(b"\xef\xbb\xbf", a):   # loads drops a leading byte-order mark; JSON has none here
            return None
        elif key == "names" and (found := json_plain_strings(b, a, e))[0] == 0:
            spans_of = found[1]   # one string array, no Python string per node
            mat, width = token_matrix(b, spans_of[:, 0], spans_of[:, 1] - spans_of[:, 0])
            if mat is None:
                return None
            rec[key] = token_strings(mat, width)
            del mat, spans_of, found
        else:
            try:
                rec[key] = loads(raw[a:e], where=where, max_depth=depth)
            except EngineError:
                return None
    del b, raw, spans     # the bytes of the line are no longer needed: free them before the checks
    if not ok:      # the NumPy checks name the problem (after the other keys, as the careful reader)
        del parent, slot
        parent, slot = _slots(widths, flat, where=where)
    return rec, parent, slot


#: the keys the fast reader knows (``y``, a class, is read and not used)
_KEYS = {"children", "labels", "label_names", "names", "y"}


def _record_tree(rec: dict, parent: np.ndarray, slot: np.ndarray, where: str) -> Tree:
    """The tree of a record whose 'children' gave ``parent`` and ``slot``."""
    def bad(msg: str) -> TreeFormatError:
        return TreeFormatError(f"{where}: {msg}")

    n = len(parent)
    labels = rec.get("labels")
    if labels is not None:
        if not isinstance(labels, list) or len(labels) != n:
            raise bad(f"'labels' must be a list of {n} labels, one per node")
        flag = next((i for i, x in enumerate(labels) if x is True or x is False), None)
        if flag is not None:   # (a label is an integer 1..M, or a code of 'label_names')
            raise bad(f"node {flag + 1} has the label {str(labels[flag]).lower()}, a boolean; labels are integers")
        names_of = rec.get("label_names")
        if names_of is not None:
            if not isinstance(names_of, list):
                raise bad("'label_names' must be a list")
            for x in labels:  # codes 1..M only: 0, -1 or true must not wrap around to another name
                if x is not None and (isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= len(names_of)):
                    raise bad(f"label {str(x)[:20]} is not a position 1..{len(names_of)} of 'label_names'")
            labels = [None if x is None else names_of[x - 1] for x in labels]
    names = rec.get("names")
    if isinstance(names, np.ndarray):   # the fast reader's string array
        if len(names) != n:
            raise bad(f"'names' must be a list of {n} names, one per node")
    elif names is not None:
        if not isinstance(names, list) or len(names) != n:
            raise bad(f"'names' must be a list of {n} names, one per node")
        names = [str(s) for s in names]
    else:
        names = list(map(str, range(1, n + 1)))
    try:
        return Tree.from_parent(parent, names=names, labels=labels, positions=slot,
                                unique_names=rec.get("names") is None)  # node numbers are distinct
    except TreeFormatError:
        raise
    except Exception as exc:  # NotATreeError, DuplicateNameError: say where
        raise type(exc)(f"{where}: {exc}") from None


def positional_children(children: list, *, where: str, error: type = TreeFormatError) -> tuple[np.ndarray, np.ndarray]:
    """Check the ``children`` lists of one positional tree: the one validator of the format, used
    by the tree reader and by the hidden-tree-Markov-model data reader.

    Node ``k`` (1-based) has the list ``children[k - 1]`` of its slots, each a node number or -1
    (empty); node 1 is the root. Every other node must fill exactly one slot, of a node other than
    itself. Returns ``(parent, slot)``: the 0-based parent of every node (-1 at the root) and the
    1-based slot it fills (0 at the root). Rows may differ in length. Refusals are one ``error``
    line starting with ``where``; a cycle cut off from the root passes here (every node then has one
    parent) and is left to the caller's own walk from the root.

    >>> parent, slot = positional_children([[2, -1, 3], [-1], [-1]], where="line 1")
    >>> parent.tolist(), slot.tolist()
    ([-1, 0, 0], [0, 1, 3])
    >>> positional_children([[2], [2]], where="line 1")
    Traceback (most recent call last):
        ...
    engine.errors.TreeFormatError: line 1: node 2, slot 1: node 2 is its own child
    """
    n = len(children)
    for k, row in enumerate(children, 1):
        if type(row) is not list:
            raise error(f"{where}: children of node {k} must be a list of slots, got {type(row).__name__}")
    widths = np.fromiter(map(len, children), np.int64, n)
    flat = list(itertools.chain.from_iterable(children))
    a = np.asarray(flat) if flat else np.zeros(0, np.int64)
    if a.dtype.kind not in "iu":
        i = next((i for i, c in enumerate(flat) if type(c) is not int), None)
        if i is not None:
            raise error(f"{where}: {_place(widths, i)}: {flat[i]!r} is not a node number (-1 for an empty slot)")
        i = next(i for i, c in enumerate(flat) if not -1 <= c <= n)  # an integer beyond 64 bits
        raise error(f"{where}: {_place(widths, i)}: child {flat[i]} is not a node 1..{n} or -1")
    return _slots(widths, a.astype(np.int64, copy=False), where=where, error=error, flat=flat)


def _place(widths: np.ndarray, i: int) -> str:
    """Where the ``i``-th slot of the rows (all of them in order) is: ``"node 2, slot 1"``."""
    ends = np.cumsum(widths)
    o = int(np.searchsorted(ends, i, side="right"))
    return f"node {o + 1}, slot {i - int(ends[o] - widths[o]) + 1}"


def _slots(widths: np.ndarray, a: np.ndarray, *, where: str, error: type = TreeFormatError,
           flat: list | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`positional_children` on the rows given as their lengths ``widths`` and all their
    integers ``a`` (int64, or int32 from the compiled scanner) in order; ``flat``, the same as
    Python values, tells a JSON ``true`` read as 1 from the number."""
    n = len(widths)
    ends = np.cumsum(widths)
    filled = np.flatnonzero(a > 0)
    owner = np.searchsorted(ends, filled, side="right")   # the node whose row holds each filled slot
    child = a[filled] - 1
    own = np.zeros(len(a), bool)
    own[filled] = child == owner
    # (a large valid record's slots are decided by the compiled child_slots: these masks are
    # made for a small record, or to name the problem of a large one)
    for bad, says in (((a < -1) | (a == 0) | (a > n), lambda i: f"child {a[i]} is not a node 1..{n} or -1"),
                      (a == 1, lambda i: "node 1 is the root and cannot be a child"),
                      (own, lambda i: f"node {a[i]} is its own child")):
        if bad.any():
            i = int(np.argmax(bad))
            if flat is not None and type(flat[i]) is bool:  # NumPy read true/false among integers as 1/0
                raise error(f"{where}: {_place(widths, i)}: {flat[i]!r} is not a node number (-1 for an empty slot)")
            raise error(f"{where}: {_place(widths, i)}: {says(i)}")
    count = np.bincount(child, minlength=n)
    if (count > 1).any():
        c = int(np.argmax(count > 1))
        i, j = filled[child == c][:2]
        raise error(f"{where}: node {c + 1} is the child of two slots: {_place(widths, i)} and {_place(widths, j)}")
    if (count[1:] == 0).any():
        v = int(np.argmax(count[1:] == 0)) + 2
        raise error(f"{where}: node {v} is no node's child: it cannot be reached from the root, node 1")
    parent = np.full(n, -1, np.int64)
    slot = np.zeros(n, np.int64)
    parent[child] = owner
    slot[child] = filled - (ends[owner] - widths[owner]) + 1
    return parent, slot


#: trees with at least this many vertices are written with array operations (same text)
FAST_FROM = 10_000


def format_positional(tree: Tree) -> str:
    """One JSON line (with a final newline).

    >>> from engine.trees.model import Tree
    >>> format_positional(Tree.from_parent([-1, 0, 0], names=["1", "2", "3"]))
    '{"children":[[2,3],[-1,-1],[-1,-1]]}\\n'
    """
    n = tree.n
    names = tree.names
    numbered = list(map(str, range(1, n + 1)))
    if names[tree.root] == "1" and set(names) == set(numbered):
        number = np.array([int(s) for s in names], np.int64)
    else:
        number = np.empty(n, np.int64)
        number[tree.order] = np.arange(1, n + 1)
    inv = np.empty(n, np.int64)
    inv[number - 1] = np.arange(n)
    nchild = np.diff(tree.children_ptr)
    if tree.positions is not None and n > 1:
        pos = tree.positions
        width = int(pos[tree.order[1:]].max())
    else:
        pos = None
        width = int(nchild.max()) if n > 1 else 0
    from engine import limits

    if 3 * n * width > limits.value("bytes"):  # every slot takes at least '-1,'
        raise TreeFormatError(f"JSON lines would give every one of the {n:,} nodes {width:,} slots (the widest "
                              f"node's), over {3 * n * width / 2**20:,.0f} MiB: more than its reader accepts "
                              "(limit 'bytes'); write .nwk or .csv")
    if n >= FAST_FROM and compiled_ready():
        children = _children_rows(tree, number, width, pos)
    else:
        children = None
    if children is None:
        children = _children_lists(tree, number, inv, width, pos)
    rec: dict = {}
    lab = tree.labels
    ordered_names = list(map(names.__getitem__, inv.tolist()))
    if lab is not None:
        ordered = [lab[v] for v in inv.tolist()]
        if all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in ordered):
            rec["labels"] = ordered
        else:
            code: dict = {}
            for x in ordered:
                key = json.dumps(x)
                if key not in code:
                    code[key] = (len(code) + 1, x)
            rec["labels"] = [code[json.dumps(x)][0] for x in ordered]
            rec["label_names"] = [x for _, x in code.values()]
    rec["children"] = children
    if ordered_names != numbered:
        rec["names"] = ordered_names
    # the children rows may come as ready JSON text: the object is written key by key
    return "{" + ",".join(json.dumps(key) + ":" + (value if isinstance(value, str) else _dumps(value))
                          for key, value in rec.items()) + "}\n"


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _children_rows(tree: Tree, number: np.ndarray, width: int, pos) -> str | None:
    """The ``children`` rows as JSON text, by array operations; None when two children claim one
    slot (the careful loop then names the vertex)."""
    from engine.trees.formats._kernels import int_rows_json

    n = tree.n
    ptr, idx = tree.children_ptr, tree.children_idx
    par = np.repeat(np.arange(n), np.diff(ptr))  # the parent of idx[j]
    slot = np.arange(idx.size) - ptr[par] if pos is None else np.asarray(pos, np.int64)[idx] - 1
    if pos is not None and idx.size and ((slot < 0).any() or (slot >= width).any()):
        return None
    M = np.full((n, width), -1, np.int64)
    M[number[par] - 1, slot] = number[idx]
    if pos is not None and np.count_nonzero(M + 1) != idx.size:  # a slot written twice
        return None
    return int_rows_json(M).tobytes().decode("ascii")


def _children_lists(tree: Tree, number: np.ndarray, inv: np.ndarray, width: int, pos) -> list:
    names = tree.names
    ptr, idx = tree.children_ptr, tree.children_idx
    children = []
    for k in range(tree.n):
        v = inv[k]
        row = [-1] * width
        kids = idx[ptr[v]:ptr[v + 1]]
        for j, c in enumerate(kids.tolist()):
            s = j if pos is None else int(pos[c]) - 1
            if not 0 <= s < width or row[s] != -1:
                raise TreeFormatError(f"vertex {names[c]!r} has slot {s + 1}, which is not free under its parent")
            row[s] = int(number[c])
        children.append(row)
    return children
