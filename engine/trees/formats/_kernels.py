"""Compiled (numba, cached) loops of the tree formats for large trees: the scanner and token walk
of the Newick reader and writer, and the children rows of the JSON-lines writer.

Imported lazily by :mod:`engine.trees.formats.newick` and :mod:`engine.trees.formats.positional`
for large trees, so that importing the engine does not load numba. The scanner runs the very state machine of the careful parser
(``parse_newick_lengths``) over the bytes of a plain text (ASCII, no quoted names, no comments)
and gives up (status ``-1``) at anything the careful parser would refuse: that parser then runs
and names the line and column. Both loops are flat (no recursion), so 10^6 levels of nesting are
one pass.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["scan_newick", "newick_tokens", "int_rows_json"]

_OPEN, _COMMA, _CLOSE, _COLON, _SEMI = 40, 44, 41, 58, 59  # ( , ) : ;


@njit(cache=True, inline="always")
def _is_special(c):
    return c == 40 or c == 41 or c == 44 or c == 58 or c == 59


@njit(cache=True, inline="always")
def _is_space(c):
    # str.isspace on ASCII: \t \n \v \f \r, the separators \x1c-\x1f, and the blank
    return (9 <= c <= 13) or (28 <= c <= 32)


@njit(cache=True, inline="always")
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


@njit(cache=True)
def scan_newick(b):  # pragma: no cover - compiled
    """Parse the bytes ``b`` (uint8) of one Newick tree.

    Returns ``(status, parent, depth, name_span, length_span)`` over the vertices in order of
    creation (preorder, the careful parser's numbering): ``parent`` (-1 at the root), ``depth``,
    ``name_span`` (k, 2) byte offsets of the stripped name (-1 when unnamed) and ``length_span``
    (k, 2) of the branch length's text (-1 when none). ``status`` is 0, or -1 when the careful
    parser must read the text (to refuse it with a message, or because it is unusual)."""
    L = b.shape[0]
    cap = 1  # one vertex more than the slots, which '(' and ',' open
    for i in range(L):
        c = b[i]
        if c == 40 or c == 44:
            cap += 1
    parent = np.empty(cap, np.int64)
    depth = np.empty(cap, np.int64)
    name_span = np.full((cap, 2), -1, np.int64)
    length_span = np.full((cap, 2), -1, np.int64)
    stack = np.empty(cap, np.int64)
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


@njit(cache=True)
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


@njit(cache=True, inline="always")
def _put(out, k, c):
    out[k] = c
    return k + 1


@njit(cache=True)
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
