"""The ``cover`` command: the optimal (2,s)-hierarchical cover of a tree file
("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, Figure 1)."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("cover", help="optimal (2,s)-hierarchical cover and decomposition tree of a tree",
                       description="The optimal (2,s)-hierarchical cover of a tree and its decomposition tree "
                       "(Figure 1 and Theorem 6 of \"Online Sum-Product Computation over Trees\" (Herbster, Pasteris & Vitale)).")
    p.add_argument("tree", help="tree file (format by extension)")
    p.add_argument("--root", default=None, metavar="NAME",
                   help="the leaf s at which the cover is rooted (default: the file's root when it "
                        "is a leaf, else the leaf with the smallest index)")
    p.add_argument("--rake-only", action="store_true",
                   help="the rake-only cover of section 4 (height at most the diameter)")
    p.add_argument("--vertices", action="store_true", help="list each component's vertices")
    p.add_argument("--json", action="store_true", help="print one JSON object (same as --format json)")
    p.add_argument("--format", choices=("text", "json", "npz"), default=None,
                   help="text (the default), json (one object, streamed) or npz (the cover as NumPy arrays, "
                        "compact for large trees; needs --output)")
    p.add_argument("--output", "-o", default=None, metavar="FILE",
                   help="write to FILE instead of standard output (required for npz)")
    p.set_defaults(handler=_cover)


def _cover(args) -> int:
    from engine.cover import optimal_cover, rake_only_cover
    from engine.errors import InvalidParameterError
    from engine.trees import read_tree

    fmt = args.format or ("json" if args.json else "text")
    if args.json and fmt != "json":
        raise InvalidParameterError(f"--json and --format {fmt} disagree; give one of them")
    if fmt == "npz" and (args.output is None or args.vertices):
        raise InvalidParameterError("--format npz writes a file: give --output FILE (and no --vertices: the "
                                    "arrays describe every component)")
    tree = read_tree(args.tree)
    build = rake_only_cover if args.rake_only else optimal_cover
    cover = build(tree, args.root)
    with _output(args.output, binary=fmt == "npz") as out:
        if fmt == "npz":
            from engine.cover.export import save_cover_npz

            save_cover_npz(cover, out)
        elif fmt == "json":
            from engine.cover.export import write_cover_json

            write_cover_json(cover, out, vertices=args.vertices)
        else:
            _write_text(cover, out, args.vertices)
    return 0


def _write_text(cover, out, vertices: bool) -> None:
    tree = cover.tree
    print(f"n = {cover.n}, root s = {tree.name(cover.s)}, height = {cover.height}, "
          f"rounds = {cover.rounds}, components = {cover.m}", file=out)
    d = cover.to_dict(vertices=vertices)
    for c in d["components"]:
        line = (f"{c['id']:>12}  {c['kind']:<8} round {c['round']:>3}  parent {c['parent'] or '-':>12}"
                f"  boundary {{{', '.join(c['boundary'])}}}")
        if vertices:
            line += f"  vertices {{{', '.join(c['vertices'])}}}"
        print(line, file=out)


@contextlib.contextmanager
def _output(path, *, binary: bool):
    """Standard output, or ``path`` written through a temporary file renamed at the end (a failed
    or interrupted run leaves no half-written file)."""
    if path is None:
        yield sys.stdout
        return
    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    try:
        with open(tmp, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as fh:
            yield fh
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
