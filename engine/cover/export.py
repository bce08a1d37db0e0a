"""Writing a hierarchical cover out: streamed JSON and a compact NumPy array form.

Herbster, Pasteris and Vitale, *Online Sum-Product Computation over Trees* (section 3, Figure 1):
the decomposition tree D of a cover has about 2n nodes, so at 10^6 vertices its JSON (the object
of ``python -m engine cover --json``, :meth:`HierarchicalCover.to_dict`) is some 160 MB.
:func:`write_cover_json` writes exactly the text of ``json.dumps(cover.to_dict())`` in chunks,
never holding the list of components; :func:`save_cover_npz` stores the same content as arrays
(a few bytes per node), for large trees.

>>> import io
>>> from engine.cover import optimal_cover
>>> from engine.trees.generators import path_tree
>>> out = io.StringIO()
>>> write_cover_json(optimal_cover(path_tree(4)), out)
>>> out.getvalue()[:34]
'{"n": 4, "root": "0", "height": 2,'
"""

from __future__ import annotations

import json

import numpy as np

from engine.cover.hierarchical import EDGE, KIND_NAMES, HierarchicalCover

__all__ = ["NPZ_ARRAYS", "save_cover_npz", "write_cover_json"]

#: Components per chunk of streamed JSON (a chunk is built as one string, then written).
CHUNK = 1 << 15

#: The arrays of :func:`save_cover_npz`.
NPZ_ARRAYS = {
    "names": "vertex names of T (strings, index = vertex)",
    "parent": "D's parent of every node (-1 at the root), nodes numbered bottom-up",
    "kind": f"node kind: {', '.join(f'{i} = {k}' for i, k in enumerate(KIND_NAMES))}",
    "round": "the round in which the node's component is formed",
    "ends": "(m, 2) the edge (parent, child) of an edge node, towards s; -1 otherwise",
    "split_vertex": "the splitting vertex of an internal node; -1 for an edge node",
    "boundary": "(m, 2) the boundary vertices of every component (-1 padding; end towards s first)",
    "meta": "[n, s, height, rounds, rake_only]",
}


def _quoted(names) -> list[str]:
    """The JSON string (escaped, in quotes) of every name."""
    names = names.tolist() if isinstance(names, np.ndarray) else list(names)
    joined = ",".join(names)
    if json.dumps(joined)[1:-1] == joined:  # nothing in any name needs escaping
        return [f'"{s}"' for s in names]
    return [json.dumps(s) for s in names]


def write_cover_json(cover: HierarchicalCover, fh, *, vertices: bool = False) -> None:
    """Write ``json.dumps(cover.to_dict(vertices=vertices))`` and a newline to the text file ``fh``.

    Beyond the cover, the memory is one list of the quoted names and one chunk's text."""
    tree = cover.tree
    quoted = _quoted(tree.name_array() if not tree.has_default_names else map(str, range(tree.n)))
    fh.write(f'{{"n": {cover.n}, "root": {json.dumps(tree.name(cover.s))}, "height": {int(cover.height)}, '
             f'"rounds": {int(cover.rounds)}, "components": [')
    kinds = [json.dumps(k) for k in KIND_NAMES]
    m = cover.m
    for lo in range(0, m, CHUNK):
        hi = min(lo + CHUNK, m)
        kind = cover.kind[lo:hi].tolist()
        split = cover.split_vertex[lo:hi].tolist()
        e0, e1 = cover.ends[lo:hi, 0].tolist(), cover.ends[lo:hi, 1].tolist()
        ids = [f"{quoted[a][:-1]}|{quoted[b][1:]}" if k == EDGE else quoted[v] for k, a, b, v in zip(kind, e0, e1, split)]
        par = cover.parent[lo:hi]
        pc = np.maximum(par, 0)
        pk, ps = cover.kind[pc].tolist(), cover.split_vertex[pc].tolist()
        pe0, pe1 = cover.ends[pc, 0].tolist(), cover.ends[pc, 1].tolist()
        pids = [("null" if p < 0 else quoted[v] if k != EDGE else f"{quoted[a][:-1]}|{quoted[b][1:]}")
                for p, k, a, b, v in zip(par.tolist(), pk, pe0, pe1, ps)]
        b0, b1 = cover.boundary[lo:hi, 0].tolist(), cover.boundary[lo:hi, 1].tolist()
        bnds = [(f"[{quoted[x]}, {quoted[y]}]" if y >= 0 else f"[{quoted[x]}]") if x >= 0 else
                (f"[{quoted[y]}]" if y >= 0 else "[]") for x, y in zip(b0, b1)]
        rnd = cover.round[lo:hi].tolist()
        if vertices:
            verts = [", \"vertices\": [" + ", ".join(quoted[v] for v in cover.vertices_of(z).tolist()) + "]"
                     for z in range(lo, hi)]
        else:
            verts = [""] * (hi - lo)
        fh.write((", " if lo else "") + ", ".join(
            f'{{"id": {i}, "parent": {p}, "kind": {kinds[k]}, "boundary": {bd}, "round": {r}{vs}}}'
            for i, p, k, bd, r, vs in zip(ids, pids, kind, bnds, rnd, verts)))
    fh.write("]}\n")


def save_cover_npz(cover: HierarchicalCover, path) -> None:
    """Save the cover as the arrays of :data:`NPZ_ARRAYS` (``numpy.load`` reads them back).

    Uncompressed, indices as int32 below 2^30 vertices (about 60 bytes a vertex, written at disk
    speed; gzip it for storage)."""
    tree = cover.tree
    names = tree.name_array() if not tree.has_default_names else np.arange(tree.n).astype(str)
    ix = np.int32 if 2 * cover.n < 2**31 else np.int64
    np.savez(path, names=names, parent=cover.parent.astype(ix), kind=cover.kind.astype(np.int8),
             round=cover.round.astype(ix), ends=cover.ends.astype(ix), split_vertex=cover.split_vertex.astype(ix),
             boundary=cover.boundary.astype(ix),
             meta=np.array([cover.n, cover.s, cover.height, cover.rounds, int(cover.rake_only)], np.int64))
