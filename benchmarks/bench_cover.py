"""Benchmark of the optimal (2,s)-cover (seed 000, Theorem 6: linear time).

Prints, for uniform random trees (Prüfer), paths and stars of paths, the best-of-k build time at
n = 10^5 and 10^6, the ratio time(10^6)/time(10^5) (10 for linear time) and the cover heights.

    python -m benchmarks.bench_cover [--repeat 3] [--small 100000] [--large 1000000]
"""

from __future__ import annotations

import argparse
import math
import time

from engine.cover import optimal_cover, rake_only_cover
from engine.trees.generators import path_tree, random_tree, star_of_paths


def family(kind: str, n: int):
    if kind == "random":
        return random_tree(n, seed=0)
    if kind == "path":
        return path_tree(n)
    m = max(1, round(math.log2(n)))  # paths of log2 n edges, as in the paper's star-path
    return star_of_paths((n - 1) // m, m)


def best_time(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--small", type=int, default=100_000)
    ap.add_argument("--large", type=int, default=1_000_000)
    args = ap.parse_args(argv)
    optimal_cover(path_tree(10))  # load the compiled kernels (numba cache) outside the timings
    rake_only_cover(path_tree(10))
    print(f"| tree | n small | n large | time small (s) | time large (s) | ratio | height | "
          f"rake-only height | rake-only time large (s) | ceil(log2 n) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind in ("random", "path", "star-of-paths"):
        small, large = family(kind, args.small), family(kind, args.large)
        # interleaved repeats, so that both sizes see the same machine load; best of each
        ts = tl = tr = float("inf")
        for _ in range(args.repeat):
            ts = min(ts, best_time(lambda: optimal_cover(small), 3)[0])
            t_l, c = best_time(lambda: optimal_cover(large), 1)
            tl = min(tl, t_l)
            t_r, r = best_time(lambda: rake_only_cover(large), 1)
            tr = min(tr, t_r)
        print(f"| {kind} | {small.n} | {large.n} | {ts:.3f} | {tl:.3f} | {tl / ts:.1f} | {c.height} | "
              f"{r.height} | {tr:.3f} | {math.ceil(math.log2(large.n))} |", flush=True)


if __name__ == "__main__":
    main()
