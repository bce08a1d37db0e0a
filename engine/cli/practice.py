"""Practice command: ``practice list`` (the exercise families) and ``practice FAMILY --seed S`` (one
exercise with its answer, for scripts and tests)."""

from __future__ import annotations

from engine.cli import print_json


def register(sub) -> None:
    p = sub.add_parser("practice", help="list the exercise families or print one seeded exercise with its answer",
                       description="Exercises generated and checked by the engine, one family at least per paper "
                       "(the app offers them too). `practice list` lists the families; `practice FAMILY "
                       "--seed S` prints the exercise of that seed with its answer, tolerance, hint and solution.")
    p.add_argument("family", help="list, or the name of a family (see `practice list`)")
    p.add_argument("--seed", type=int, default=0, help="the exercise's seed (default 0; the same seed, the same "
                   "exercise)")
    p.add_argument("--json", action="store_true",
                   help='print JSON: list gives [{"family", "paper", "title"}], a family gives the exercise '
                   '{"family", "seed", "title", "prompt", "data", "answer", "answer_text", "answer_format", '
                   '"tolerance", "hint", "solution"}')
    p.set_defaults(handler=_practice)


def _practice(args) -> int:
    from engine.practice import FAMILIES, make

    if args.family == "list":
        if args.json:
            print_json([f.to_dict() for f in FAMILIES.values()])
        else:
            for f in FAMILIES.values():
                print(f"{f.name}: {f.title} ({f.paper})")
        return 0
    ex = make(args.family, args.seed)
    if args.json:
        print_json(ex.to_dict())
    else:
        print(f"{ex.title} (family {ex.family}, seed {ex.seed})\n\n{ex.prompt}\n\nAnswer format: {ex.answer_format}"
              f"\nAnswer: {ex.answer_text}\n\nHint: {ex.hint}\n\nSolution:\n{ex.solution}")
    return 0
