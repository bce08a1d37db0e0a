"""Tree commands: ``info``, ``convert`` and ``generate``."""

from __future__ import annotations

from engine import limits
from engine.cli import print_json

#: The names of :data:`engine.trees.generators.GENERATORS`, spelled out so that registering the
#: command imports no NumPy (a test keeps the two in step).
GENERATOR_NAMES = ("binary", "caterpillar", "complete", "path", "random", "recursive", "spider", "star",
                   "star-of-paths")


def register(sub) -> None:
    p = sub.add_parser("info", help="size, leaves, diameter, radius and maximum degree of a tree file")
    p.add_argument("tree", help="tree file (format by extension, else by content)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--index", type=int, default=0, help="which tree of a JSON-lines file (default 0)")
    p.set_defaults(handler=_info)

    p = sub.add_parser("convert", help="convert a tree file to another format (by extension)")
    p.add_argument("input")
    p.add_argument("output", help="output file; its extension chooses the format (.gz compresses)")
    p.add_argument("--index", type=int, default=0, help="which tree of a JSON-lines input (default 0)")
    p.set_defaults(handler=_convert)

    p = sub.add_parser("generate", help="generate a tree family and write it to a file")
    p.add_argument("kind", choices=GENERATOR_NAMES)
    p.add_argument("--n", type=limits.flag("generate"), required=True, help="number of vertices (about n for star-of-paths)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("output")
    p.set_defaults(handler=_generate)


def _info(args) -> int:
    from engine.trees import read_tree
    from engine.trees.metrics import tree_info

    info = tree_info(read_tree(args.tree, index=args.index))
    if args.json:
        print_json(info.to_dict())
    else:
        for k, v in info.to_dict().items():
            print(f"{k:>10}: {v}")
    return 0


def _convert(args) -> int:
    from engine.trees import read_tree, write_tree

    write_tree(read_tree(args.input, index=args.index), args.output)
    return 0


def _generate(args) -> int:
    from engine.trees import generate, write_tree

    write_tree(generate(args.kind, args.n, seed=args.seed), args.output)
    return 0
