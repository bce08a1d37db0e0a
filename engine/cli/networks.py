"""Network command: ``network FILE`` reads a tree-shaped BIF/XMLBIF/UAI/Hugin network and prints its
tree and marginals (with evidence)."""

from __future__ import annotations

from engine.cli import print_json


def register(sub) -> None:
    p = sub.add_parser("network", help="read a tree-shaped network (BIF, XMLBIF, UAI, Hugin .net); print its "
                                       "tree and marginals")
    p.add_argument("file", help="network file (.bif, .xml/.xmlbif, .uai, .net; else the content decides)")
    p.add_argument("--evidence", action="append", default=[], metavar="VAR=STATE",
                   help="observe a state (by name or number); repeat for more")
    p.add_argument("--json", action="store_true",
                   help='print {"kind", "root", "edges", "states", "marginals"} as one JSON object')
    p.set_defaults(handler=_network)


def _network(args) -> int:
    from engine.errors import InvalidParameterError
    from engine.inference.models import network_marginals
    from engine.networks import read_network

    net = read_network(args.file)
    evidence = {}
    for item in args.evidence:
        var, eq, state = item.rpartition("=")
        if not eq or not var:
            raise InvalidParameterError(f"--evidence {item!r}: expected VAR=STATE")
        if var not in net.tree.names:
            raise InvalidParameterError(f"--evidence {item}: the network has no variable {var}; variables: "
                                        f"{', '.join(net.tree.names[:20])}")
        v = net.tree.index(var)
        evidence[var] = int(state) if state.isdigit() and state not in net.states[v] else state
    marg = network_marginals(net, evidence)
    if args.json:
        print_json({"kind": net.kind, "root": net.tree.name(net.tree.root),
                    "edges": [list(e) for e in net.tree.named_edges()],
                    "states": {net.tree.name(v): list(s) for v, s in enumerate(net.states)},
                    "marginals": marg})
    else:
        print(f"{net.source}: {net.kind} network, {net.tree.n} variables, root {net.tree.name(net.tree.root)}")
        for var, dist in marg.items():
            print(f"  {var}: " + ", ".join(f"{s} {p:.4f}" for s, p in dist.items()))
    return 0
