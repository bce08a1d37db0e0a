"""Per-trial time of TREE-HEDGE: the online sum-product model versus a full BP pass per trial.

"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale), section 5: with the online model
of section 4 a trial (one marginal, one data update) costs O(cover height), so its time should follow the cover height, not n. Prints one row per
tree: n, cover height, seconds to build the model, median microseconds per trial (predict +
learn) with the online model and with a belief-propagation recomputation, their ratio, and the
multiply-adds per trial the online model reports (deterministic, unlike the timings on a shared
machine) next to the n k^2 of one BP pass.

    python -m benchmarks.bench_hedge [--sizes 1000,10000,100000,1000000] [--trials 2000] [--k 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from engine.hedge import TreeHedge
from engine.trees import generate


def per_trial(th: TreeHedge, vs, ys, reps: int) -> float:
    """Median over ``reps`` blocks of the mean seconds per trial within a block."""
    blocks = np.array_split(np.arange(len(vs)), reps)
    times = []
    for b in blocks:
        t0 = time.perf_counter()
        for i in b:
            v = int(vs[i])
            th.predict_one(v)
            th.learn_one(v, ys[i])
        times.append((time.perf_counter() - t0) / max(len(b), 1))
    return float(np.median(times))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--shapes", default="path,random,star-of-paths,binary")
    ap.add_argument("--trials", type=int, default=2000, help="trials timed with the online model")
    ap.add_argument("--bp-trials", type=int, default=20, help="trials timed with BP recomputation")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    # compile the kernels once, off the clock
    warm = TreeHedge(generate("random", 50, seed=0), args.k, eta=1.0, coupling=0.9)
    warm.learn_one(3, np.zeros(args.k))
    warm.predict_one(4)
    TreeHedge(generate("random", 50, seed=0), args.k, eta=1.0, coupling=0.9, backend="bp").predict_one(0)

    print(f"{'tree':>14} {'n':>9} {'height':>6} {'init s':>7} {'online us':>10} {'bp us':>11} {'ratio':>8} "
          f"{'work/trial':>10} {'n k^2':>11}")
    for shape in args.shapes.split(","):
        for n in map(int, args.sizes.split(",")):
            tree = generate(shape, n, seed=args.seed)
            vs = rng.integers(tree.n, size=args.trials)
            ys = rng.random((args.trials, args.k))
            t0 = time.perf_counter()
            th = TreeHedge(tree, args.k, eta=1.0, coupling=0.9)
            init = time.perf_counter() - t0
            w0 = th._model.total_work
            on = per_trial(th, vs, ys, 10)
            work = (th._model.total_work - w0) / len(vs)
            bp_trials = max(2, min(args.bp_trials, int(2e6 // tree.n) + 2))
            bp = per_trial(TreeHedge(tree, args.k, eta=1.0, coupling=0.9, backend="bp"),
                           vs[:bp_trials], ys[:bp_trials], min(5, bp_trials))
            print(f"{shape:>14} {tree.n:>9,} {th.cover_height:>6} {init:>7.2f} {on * 1e6:>10.1f} "
                  f"{bp * 1e6:>11,.0f} {bp / on:>8,.0f} {work:>10,.0f} {tree.n * args.k ** 2:>11,}", flush=True)


if __name__ == "__main__":
    main()
