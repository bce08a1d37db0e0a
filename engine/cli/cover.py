"""The ``cover`` command: the optimal (2,s)-hierarchical cover of a tree file
("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, Figure 1)."""

from __future__ import annotations

from engine.cli import print_json


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
    p.add_argument("--json", action="store_true", help="print one JSON object (the default output)")
    p.set_defaults(handler=_cover)


def _cover(args) -> int:
    from engine.cover import optimal_cover, rake_only_cover
    from engine.trees import read_tree

    tree = read_tree(args.tree)
    build = rake_only_cover if args.rake_only else optimal_cover
    cover = build(tree, args.root)
    if args.json:
        print_json(cover.to_dict(vertices=args.vertices))
        return 0
    print(f"n = {cover.n}, root s = {tree.name(cover.s)}, height = {cover.height}, "
          f"rounds = {cover.rounds}, components = {cover.m}")
    d = cover.to_dict(vertices=args.vertices)
    for c in d["components"]:
        line = (f"{c['id']:>12}  {c['kind']:<8} round {c['round']:>3}  parent {c['parent'] or '-':>12}"
                f"  boundary {{{', '.join(c['boundary'])}}}")
        if args.vertices:
            line += f"  vertices {{{', '.join(c['vertices'])}}}"
        print(line)
    return 0
