"""Compiled (numba, cached) loops of the tree formats for large trees: the scanner and token walk
of the Newick reader and writer, and the children rows of the JSON-lines reader and writer.

Imported lazily by :mod:`engine.trees.formats.newick` and :mod:`engine.trees.formats.positional`
for large trees, so that importing the engine does not load numba. The scanner runs the very state machine of the careful parser
(``parse_newick_lengths``) over the bytes of a plain text (ASCII, no quoted names, no comments)
and gives up (status ``-1``) at anything the careful parser would refuse: that parser then runs
and names the line and column. Both loops are flat (no recursion), so 10^6 levels of nesting are
one pass.
"""

from __future__ import annotations

import numpy as np
from engine.jit import inline_kernel, kernel

__all__ = ["scan_newick", "newick_tokens", "int_rows_json", "json_object_spans", "json_int_rows", "child_slots"]

_OPEN, _COMMA, _CLOSE, _COLON, _SEMI = 40, 44, 41, 58, 59  # ( , ) : ;


@inline_kernel
def _is_special(c):
    return c == 40 or c == 41 or c == 44 or c == 58 or c == 59


@inline_kernel
def _is_space(c):
    # str.isspace on ASCII: \t \n \v \f \r, the separators \x1c-\x1f, and the blank
    return (9 <= c <= 13) or (28 <= c <= 32)


@inline_kernel
def _segment(b, i):
    """The text from ``i`` to the next special character: (its end, and the stripped span a:e)."""
    j = i
    while j < b.shape[0] and not _is_special(b[j]):
        j += 1
    a = i
    e = j
    while a < e and _is_space(b[a]):
        a += 1
    while e > a and _is_space(b[e - 1]):
        e -= 1
    return j, a, e


@kernel
def scan_newick(b):  # pragma: no cover - compiled
    """Parse the bytes ``b`` (uint8) of one Newick tree.

    Returns ``(status, parent, depth, name_span, length_span)`` over the vertices in order of
    creation (preorder, the careful parser's numbering): ``parent`` (-1 at the root), ``depth``,
    ``name_span`` (k, 2) byte offsets of the stripped name (-1 when unnamed) and ``length_span``
    (k, 2) of the branch length's text (-1 when none), int32 (``b`` must be under 2^31 bytes).
    ``status`` is 0, or -1 when the careful parser must read the text (to refuse it with a
    message, or because it is unusual)."""
    L = b.shape[0]
    cap = 1  # one vertex more than the slots, which '(' and ',' open
    for i in range(L):
        c = b[i]
        if c == 40 or c == 44:
            cap += 1
    parent = np.empty(cap, np.int64)
    depth = np.empty(cap, np.int32)       # int32: the caller passes texts under 2^31 bytes
    name_span = np.full((cap, 2), -1, np.int32)
    length_span = np.full((cap, 2), -1, np.int32)
    stack = np.empty(cap, np.int32)
    sp = 0
    nv = 0
    last = -1
    named_last = False
    slot_empty = True
    done = False
    i = 0
    while i < L:
        c = b[i]
        if not _is_special(c):
            j, a, e = _segment(b, i)
            i = j
            if a == e:
                continue  # blanks
            if done:
                break
            if last >= 0 and not named_last and not slot_empty:
                name_span[last, 0] = a  # the name after ')'
                name_span[last, 1] = e
                named_last = True
            elif slot_empty and sp > 0:
                parent[nv] = stack[sp - 1]
                depth[nv] = sp
                name_span[nv, 0] = a
                name_span[nv, 1] = e
                last = nv
                nv += 1
                slot_empty = False
                named_last = True
            else:
                return -1, parent[:0], depth[:0], name_span[:0], length_span[:0]
            continue
        i += 1
        if done:
            break
        if c == 40:  # (
            if not slot_empty or (sp == 0 and nv > 0):
                return -1, parent[:0], depth[:0], name_span[:0], length_span[:0]
            parent[nv] = stack[sp - 1] if sp > 0 else -1
            depth[nv] = sp
            stack[sp] = nv
            sp += 1
            nv += 1
            slot_empty = True
            last = -1
            named_last = False
        elif c == 44 or c == 41:  # , )
            if sp == 0:
                return -1, parent[:0], depth[:0], name_span[:0], length_span[:0]
            if slot_empty:  # an unnamed leaf, as in '(,)'
                parent[nv] = stack[sp - 1]
                depth[nv] = sp
                nv += 1
            if c == 44:
                slot_empty = True
                last = -1
                named_last = False
            else:
                sp -= 1
                last = stack[sp]
                slot_empty = False
                named_last = False
        elif c == 58:  # :
            if slot_empty and sp > 0:  # ':0.1' for an unnamed leaf
                parent[nv] = stack[sp - 1]
                depth[nv] = sp
                last = nv
                nv += 1
                slot_empty = False
                named_last = True
            if last < 0 or length_span[last, 0] >= 0:
                return -1, parent[:0], depth[:0], name_span[:0], length_span[:0]
            # the length: the text up to the next special character, not blank
            j, a, e = _segment(b, i)
            if a == e:
                return -1, parent[:0], depth[:0], name_span[:0], length_span[:0]
            length_span[last, 0] = a
            length_span[last, 1] = e
            named_last = True
            i = j
        else:  # ;
            if sp > 0:
                return -1, parent[:0], depth[:0], name_span[:0], length_span[:0]
            done = True
    if sp > 0 or nv == 0 or not done:
        return -1, parent[:0], depth[:0], name_span[:0], length_span[:0]
    return 0, parent[:nv], depth[:nv], name_span[:nv], length_span[:nv]


@kernel
def newick_tokens(ptr, idx, root):  # pragma: no cover - compiled
    """The token walk of the Newick writer: ``(tokens, number)``.

    ``tokens`` lists, in the order of the text, a vertex ``v >= 0`` (its label), ``-1`` for '(',
    ``-2`` for ',' and ``-3`` for ')'; ``number`` is every vertex's preorder index."""
    n = ptr.shape[0] - 1
    tokens = np.empty(3 * n, np.int64)
    number = np.empty(n, np.int64)
    pos = ptr[:-1].copy()
    stack = np.empty(n, np.int64)
    top = 1
    stack[0] = root
    k = 0
    t = 0
    while top > 0:
        v = stack[top - 1]
        start = ptr[v]
        end = ptr[v + 1]
        if pos[v] == start:
            number[v] = k
            k += 1
            if start == end:
                tokens[t] = v
                t += 1
                top -= 1
                continue
            tokens[t] = -1
            t += 1
        if pos[v] < end:
            if pos[v] > start:
                tokens[t] = -2
                t += 1
            stack[top] = idx[pos[v]]
            top += 1
            pos[v] += 1
        else:
            tokens[t] = -3
            tokens[t + 1] = v
            t += 2
            top -= 1
    return tokens[:t], number


@inline_kernel
def _put(out, k, c):
    out[k] = c
    return k + 1


@kernel
def int_rows_json(M):  # pragma: no cover - compiled
    """The JSON text of the integer matrix ``M`` as a list of rows, ``[[1,-1],[2,3]]`` (what
    ``json.dumps(M.tolist(), separators=(",", ":"))`` writes), as uint8 ASCII bytes."""
    n, w = M.shape
    size = 2 + (n - 1 if n > 0 else 0)
    for r in range(n):
        size += 2 + (w - 1 if w > 0 else 0)
        for c in range(w):
            x = M[r, c]
            if x < 0:
                size += 1
                x = -x
            d = 1
            while x >= 10:
                x //= 10
                d += 1
            size += d
    out = np.empty(size, np.uint8)
    digits = np.empty(20, np.uint8)
    k = _put(out, 0, 91)  # [
    for r in range(n):
        if r > 0:
            k = _put(out, k, 44)  # ,
        k = _put(out, k, 91)
        for c in range(w):
            if c > 0:
                k = _put(out, k, 44)
            x = M[r, c]
            if x < 0:
                k = _put(out, k, 45)  # -
                x = -x
            d = 0
            while True:
                digits[d] = 48 + x % 10
                d += 1
                x //= 10
                if x == 0:
                    break
            for j in range(d - 1, -1, -1):
                k = _put(out, k, digits[j])
        k = _put(out, k, 93)  # ]
    out[k] = 93
    return out


@inline_kernel
def _json_space(c):
    return c == 32 or c == 9 or c == 10 or c == 13


@kernel
def json_object_spans(b):  # pragma: no cover - compiled
    """The top-level members of the JSON object in the bytes ``b`` (uint8): ``(status, spans)``
    with ``spans`` (m, 4) holding the byte offsets of each key's text (inside its quotes) and of its
    value. Values are skipped by their brackets, strings (with escapes) stepped over; nothing is
    checked inside them. ``status`` is 0, or -1 at anything unusual (a key with an escape, an
    unbalanced value, text after the object): the careful reader then runs and names the place."""
    L = b.shape[0]
    spans = np.empty((L // 4 + 1, 4), np.int64)
    m = 0
    i = 0
    while i < L and _json_space(b[i]):
        i += 1
    if i >= L or b[i] != 123:  # {
        return -1, spans[:0]
    i += 1
    while True:
        while i < L and _json_space(b[i]):
            i += 1
        if i >= L:
            return -1, spans[:0]
        if b[i] == 125 and m == 0:  # } of an empty object
            i += 1
            break
        if b[i] != 34:  # "
            return -1, spans[:0]
        ks = i + 1
        i = ks
        while i < L and b[i] != 34:
            if b[i] == 92:  # a backslash in a key: the careful reader
                return -1, spans[:0]
            i += 1
        if i >= L:
            return -1, spans[:0]
        ke = i
        i += 1
        while i < L and _json_space(b[i]):
            i += 1
        if i >= L or b[i] != 58:  # :
            return -1, spans[:0]
        i += 1
        while i < L and _json_space(b[i]):
            i += 1
        vs = i
        depth = 0
        while i < L:
            c = b[i]
            if c == 34:
                i += 1
                while i < L and b[i] != 34:
                    i += 2 if b[i] == 92 else 1
                if i >= L:
                    return -1, spans[:0]
            elif c == 91 or c == 123:
                depth += 1
            elif c == 93 or c == 125:
                if depth == 0:
                    break
                depth -= 1
            elif c == 44 and depth == 0:
                break
            i += 1
        if depth != 0 or i >= L:
            return -1, spans[:0]
        ve = i
        while ve > vs and _json_space(b[ve - 1]):
            ve -= 1
        if ve == vs:
            return -1, spans[:0]
        spans[m, 0] = ks
        spans[m, 1] = ke
        spans[m, 2] = vs
        spans[m, 3] = ve
        m += 1
        if b[i] == 44:
            i += 1
            continue
        if b[i] != 125:  # a ] closing the object
            return -1, spans[:0]
        i += 1
        break
    while i < L and _json_space(b[i]):
        i += 1
    if i != L:
        return -1, spans[:0]
    return 0, spans[:m].copy()


@inline_kernel
def _skip_space(b, i, e):
    while i < e and _json_space(b[i]):
        i += 1
    return i


@inline_kernel
def _after_item(b, i, e):
    """Past the ',' or ']' after a list item: (position, 0 for ',', 1 for ']', -1 for anything else)."""
    i = _skip_space(b, i, e)
    if i < e and b[i] == 44:
        return i + 1, 0
    if i < e and b[i] == 93:
        return i + 1, 1
    return i, -1


@kernel
def json_plain_strings(b, s, e):  # pragma: no cover - compiled
    """The JSON list of strings in ``b[s:e]``, e.g. ``["a", "b c"]``, when every string is plain
    (printable ASCII, no backslash): ``(status, spans)``, the byte offsets (k, 2) int64 of each
    string's text between its quotes. ``status`` is 0, or -1 at anything else (an escape, a
    non-ASCII or control byte, a number, bad punctuation): the careful reader then runs."""
    quotes = 0
    for i in range(s, e):
        quotes += b[i] == 34
    spans = np.empty((quotes // 2 + 1, 2), np.int64)
    k = 0
    if s >= e or b[s] != 91:
        return -1, spans[:0]
    i = _skip_space(b, s + 1, e)
    more = not (i < e and b[i] == 93)
    if not more:
        i += 1
    while more:
        i = _skip_space(b, i, e)
        if i >= e or b[i] != 34:
            return -1, spans[:0]
        i += 1
        a = i
        while i < e and b[i] != 34:
            if b[i] < 32 or b[i] > 126 or b[i] == 92:
                return -1, spans[:0]
            i += 1
        if i >= e:
            return -1, spans[:0]
        spans[k, 0] = a
        spans[k, 1] = i
        k += 1
        i, end = _after_item(b, i + 1, e)
        if end < 0:
            return -1, spans[:0]
        more = end == 0
    if _skip_space(b, i, e) != e:
        return -1, spans[:0]
    return 0, spans[:k]


@kernel
def json_int_rows(b, s, e):  # pragma: no cover - compiled
    """The JSON list of lists of integers in ``b[s:e]``, e.g. ``[[2,3],[-1],[]]``: ``(status,
    widths, flat)``, the length of every row and all the integers row after row (int32). ``status``
    is 0, or -1 at anything else (a float, a string, a leading zero, an integer beyond int32, bad
    punctuation): the careful reader then runs and names the place."""
    opens = 0       # a row per '[' (one of them the outer list), an integer per ',' or row at most
    commas = 0
    for i in range(s, e):
        opens += b[i] == 91
        commas += b[i] == 44
    widths = np.empty(opens, np.int64)
    flat = np.empty(commas + opens, np.int32)   # node numbers; a larger one goes to the careful reader
    n = 0
    m = 0
    if s >= e or b[s] != 91:
        return -1, widths[:0], flat[:0]
    i = _skip_space(b, s + 1, e)
    more = not (i < e and b[i] == 93)   # rows to read
    if not more:
        i += 1
    while more:
        i = _skip_space(b, i, e)
        if i >= e or b[i] != 91:
            return -1, widths[:0], flat[:0]
        i = _skip_space(b, i + 1, e)
        w = 0
        items = not (i < e and b[i] == 93)
        if not items:
            i += 1
        while items:
            i = _skip_space(b, i, e)
            neg = i < e and b[i] == 45  # -
            if neg:
                i += 1
            d0 = i
            x = 0
            while i < e and 48 <= b[i] <= 57:
                x = 10 * x + (b[i] - 48)
                i += 1
            nd = i - d0
            if nd == 0 or nd > 18 or (nd > 1 and b[d0] == 48) or x > 2147483647:
                return -1, widths[:0], flat[:0]
            flat[m] = -x if neg else x
            m += 1
            w += 1
            i, end = _after_item(b, i, e)
            if end < 0:
                return -1, widths[:0], flat[:0]
            items = end == 0
        widths[n] = w
        n += 1
        i, end = _after_item(b, i, e)
        if end < 0:
            return -1, widths[:0], flat[:0]
        more = end == 0
    if _skip_space(b, i, e) != e:
        return -1, widths[:0], flat[:0]
    return 0, widths[:n], flat[:m]


@kernel
def child_slots(widths, a):  # pragma: no cover - compiled
    """Every node's parent and slot from positional 'children' rows, given as their lengths
    ``widths`` and all their integers ``a`` row after row (node numbers 1..n, ``-1`` an empty
    slot): ``(ok, parent, slot)``, parents 0-based (-1 at node 1, the root), slots from 1. ``ok``
    is False at anything a tree's rows cannot hold (a number outside 2..n, a node in its own row or
    in two slots, a node in none): ``positional._slots`` then names it. One pass, no mask."""
    n = widths.shape[0]
    parent = np.full(n, -1, np.int64)
    slot = np.zeros(n, np.int64)
    if widths.sum() != a.shape[0]:
        return False, parent, slot
    i = 0
    for v in range(n):
        for s in range(widths[v]):
            x = a[i]
            i += 1
            if x == -1:
                continue
            if x < 2 or x > n:      # 0, below -1, node 1 (the root) or no node
                return False, parent, slot
            c = x - 1
            if c == v or slot[c] != 0:
                return False, parent, slot
            parent[c] = v
            slot[c] = s + 1
    for c in range(1, n):
        if slot[c] == 0:
            return False, parent, slot
    return True, parent, slot
