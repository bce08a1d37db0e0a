"""Inference commands: ``replay`` (an online sum-product scenario) and ``marginals`` (one BP pass)."""

from __future__ import annotations

from engine import limits
from engine.cli import print_json


def register(sub) -> None:
    p = sub.add_parser("replay", help="replay an online sum-product scenario (JSON), one line per query",
                       description="Replay a scenario through the online sum-product model of "
                       "\"Online Sum-Product Computation over Trees\" (Herbster, Pasteris & Vitale), section 4: one JSON line per query.")
    p.add_argument("scenario", help="scenario file (JSON; see the README)")
    p.add_argument("--backend", choices=("numba", "python"), default="numba",
                   help="compiled kernels (default) or the same kernels as plain Python")
    p.set_defaults(handler=_replay)

    p = sub.add_parser("marginals", help="all marginals and log Z of a tree by belief propagation",
                       description="All marginals and log Z by belief propagation, as in the lecture notes "
                       "\"Inferences on trees: sum-product algorithm\" (section 8.2).")
    p.add_argument("tree", help="tree file (format by extension)")
    p.add_argument("--states", type=limits.flag("states"), default=2, help="number of labels k (default 2)")
    p.add_argument("--coupling", type=float, default=1.0,
                   help="Potts coupling: edge potential exp(coupling) on the diagonal, 1 elsewhere")
    p.add_argument("--method", choices=("auto", "numba", "numpy"), default="auto")
    p.set_defaults(handler=_marginals)


def _replay(args) -> int:
    from engine.inference.scenario import load_scenario, replay

    for line in replay(load_scenario(args.scenario), backend=args.backend):
        print_json(line)
    return 0


def _marginals(args) -> int:
    from engine.inference.belief_propagation import belief_propagation
    from engine.inference.potentials import potts_interaction
    from engine.trees import read_tree

    tree = read_tree(args.tree)
    res = belief_propagation(tree, None, potts_interaction(args.states, args.coupling), k=args.states,
                             method=args.method)
    print_json({"log_partition": res.log_partition,
                "marginals": {tree.name(v): res.marginals[v].tolist() for v in range(tree.n)}})
    return 0
