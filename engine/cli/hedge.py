"""``python -m engine hedge``: a TREE-HEDGE run against both baselines, with the Theorem 9 bound."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from engine import limits
from engine.cli import print_json

_SHORT = re.compile(r"^([a-z_-]+):(\d+)(?::(\d+))?$")


def register(sub) -> None:
    p = sub.add_parser(
        "hedge", help="TREE-HEDGE versus Hedge per task and one shared Hedge on a tree of tasks",
        description="Play an environment against TREE-HEDGE (Herbster, Pasteris & Vitale, \"Online Sum-Product "
                    "Computation over Trees\", section 5), Hedge per task and "
                    "one shared Hedge, and evaluate the Theorem 9 bound at its best comparator.")
    p.add_argument("--tree", required=True,
                   help="tree file, a generator KIND:N[:SEED] such as random:31, or a JSON spec")
    p.add_argument("--states", type=limits.flag("states"), default=3, help="number of actions k (default 3)")
    p.add_argument("--trials", type=limits.flag("trials"), default=2000, help="number of trials T (default 2000)")
    p.add_argument("--eta", type=float, default=1.0, help="learning rate (default 1)")
    p.add_argument("--coupling", type=float, default=0.9,
                   help="Potts coupling P on every edge, in [0, 1]; 1/k means unrelated tasks (default 0.9)")
    p.add_argument("--environment", choices=["piecewise", "iid", "switching", "file"], default="piecewise")
    p.add_argument("--switches", type=limits.flag("vertices"), default=3,
                   help="edges across which the best action changes (piecewise, switching; default 3)")
    p.add_argument("--losses", metavar="FILE", help="rows TASK,y_1,...,y_k (CSV/TSV) or JSON lines "
                   '{"task": NAME, "loss": [...]}; implies --environment file')
    p.add_argument("--low", type=float, default=0.2, help="mean loss of a task's best action (default 0.2)")
    p.add_argument("--high", type=float, default=0.6, help="mean loss of the other actions (default 0.6)")
    p.add_argument("--backend", choices=["online", "bp", "brute"], default=None,
                   help="how TREE-HEDGE computes marginals (default: the online model)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--trace", metavar="OUT.jsonl",
                   help='write one line per trial: {"t", "vertex", "prediction", "loss"}')
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_hedge)


def tree_spec(text: str):
    """A JSON-able tree spec from ``--tree``: a file path, ``KIND:N[:SEED]`` or a JSON spec."""
    m = _SHORT.match(text)
    if m and not Path(text).exists():
        spec = {"generate": m.group(1), "n": int(m.group(2))}
        if m.group(3) is not None:
            spec["seed"] = int(m.group(3))
        return spec
    if text.lstrip().startswith("{"):

        from engine.jsonio import loads

        return loads(text, where="--tree")
    return text


def _hedge(args) -> int:
    from engine.hedge.learner import DEFAULT_BACKEND
    from engine.hedge.run import HedgeConfig, metrics_of, play_config

    if args.trace and Path(args.trace).is_dir():  # before the run, not after it
        from engine.errors import InvalidParameterError

        raise InvalidParameterError(f"--trace {args.trace}: is a directory, not a file name")
    env = "file" if args.losses else args.environment
    config = HedgeConfig(tree=tree_spec(args.tree), states=args.states, trials=args.trials, eta=args.eta,
                         coupling=args.coupling, environment=env, switches=args.switches,
                         low=args.low, high=args.high, loss_file=args.losses,
                         backend=args.backend or DEFAULT_BACKEND, seed=args.seed)
    pb = play_config(config)
    if args.trace:
        _write_trace(args.trace, pb)
    m = metrics_of(config, pb)
    if args.json:
        print_json(m)
    else:
        w = max(len(k) for k in m)
        for key, val in m.items():
            print(f"{key:>{w}}: {val:.6g}" if isinstance(val, float) else f"{key:>{w}}: {val}")
    return 0


def _write_trace(path, pb) -> None:
    """One JSON line per trial, written to a temporary file and renamed (never half-written)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    names = pb.tree.names
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            for t in range(pb.stream.trials):
                fh.write(json.dumps({"t": t + 1, "vertex": names[int(pb.stream.vertices[t])],
                                     "prediction": pb.predictions[t].tolist(),
                                     "loss": pb.stream.losses[t].tolist()}) + "\n")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
