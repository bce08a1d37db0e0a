"""Does TREE-HEDGE beat both baselines, and does it stay under its bound? A table over seeds.

For each environment: the mean loss of TREE-HEDGE, Hedge per task and one shared Hedge over
``--seeds`` runs, the mean Theorem 9 bound, how often TREE-HEDGE beat both baselines, and how
often the bound was violated (it never may be).

    python -m benchmarks.bench_hedge_story [--tree random:60:7] [--trials 2000] [--seeds 20]
"""

from __future__ import annotations

import argparse

import numpy as np

from engine.cli.hedge import tree_spec
from engine.hedge.run import HedgeConfig, run


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", default="random:60:7")
    ap.add_argument("--states", type=int, default=3)
    ap.add_argument("--trials", type=int, default=2000)
    ap.add_argument("--eta", type=float, default=1.0)
    ap.add_argument("--coupling", type=float, default=0.9)
    ap.add_argument("--switches", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=20)
    args = ap.parse_args(argv)
    print(f"tree {args.tree}, k = {args.states}, T = {args.trials}, eta = {args.eta}, coupling = {args.coupling}, "
          f"switches = {args.switches}, {args.seeds} seeds")
    print(f"{'environment':>12} {'TREE-HEDGE':>11} {'per task':>9} {'shared':>9} {'L(mu*)':>8} {'bound':>8} "
          f"{'wins':>6} {'violations':>10}")
    for env in ("piecewise", "switching", "iid"):
        rows = []
        for seed in range(args.seeds):
            m = run(HedgeConfig(tree=tree_spec(args.tree), states=args.states, trials=args.trials, eta=args.eta,
                                coupling=args.coupling, environment=env, switches=args.switches, seed=seed,
                                snapshots=2)).metrics
            rows.append((m["tree_hedge_loss"], m["independent_hedge_loss"], m["shared_hedge_loss"],
                         m["best_comparator_loss"], m["bound"]))
        a = np.array(rows)
        wins = int((a[:, 0] < np.minimum(a[:, 1], a[:, 2])).sum())
        viol = int((a[:, 0] > a[:, 4]).sum())
        mean = a.mean(axis=0)
        print(f"{env:>12} {mean[0]:>11.1f} {mean[1]:>9.1f} {mean[2]:>9.1f} {mean[3]:>8.1f} {mean[4]:>8.1f} "
              f"{wins:>3}/{args.seeds:<2} {viol:>10}", flush=True)


if __name__ == "__main__":
    main()
