"""The online sum-product model against full belief-propagation passes, as growth curves.

    python benchmarks/bench_online.py [--sizes 1000,10000,100000,1000000] [--ops 2000] [--svg docs/img]

"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale), section 4: after an O(n)
initialisation, each update and each marginal walks one path of the cover's decomposition tree,
so its cost grows with the cover's height (O(log n)) while a full pass grows with n. This script
runs the rows of ``python -m engine bench online`` (:func:`engine.bench.online.bench_online`, whose
docstring defines every column) on random trees and paths, prints how each cost grows with n, and
with ``--svg DIR`` writes ``online_growth.svg``: µs of one public update + marginal beside one BP
pass of the project and one lean sweep, log axes. Prints tables; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.plots import line_plot, write_svg  # noqa: E402
from benchmarks.timing import load_average  # noqa: E402
from engine.bench.online import bench_online  # noqa: E402

SHAPES = ("random", "path")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000,1000000", help="comma-separated tree sizes")
    ap.add_argument("--ops", type=int, default=2000, help="updates and marginals timed per row")
    ap.add_argument("--svg", metavar="DIR", help="write DIR/online_growth.svg")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print(f"Online update + marginal against one BP pass, k = 2 (load {load_average()})")
    print("| shape | n | cover height | update + marginal µs | BP pass µs | lean sweep µs | BP / (update + marginal) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rows = []
    for shape in SHAPES:
        for n in sizes:
            r = bench_online(n, shape, ops=args.ops)
            pair = r["update_us"] + r["marginal_us"]
            rows.append((shape, r["n"], pair, 1e6 * r["bp_s"], 1e6 * r["lean_s"]))
            print(f"| {shape} | {r['n']:,} | {r['height']} | {pair:.1f} | {1e6 * r['bp_s']:,.0f} | "
                  f"{1e6 * r['lean_s']:,.0f} | {r['ratio']:,.0f} |", flush=True)
    print(f"(load at the end {load_average()})")
    if args.svg:
        series = {}
        for label, col in (("update + marginal", 2), ("BP pass", 3), ("lean sweep", 4)):
            for shape in SHAPES:
                mine = [row for row in rows if row[0] == shape]
                series[f"{label}, {shape}"] = ([row[1] for row in mine], [row[col] for row in mine])
        path = write_svg(Path(args.svg) / "online_growth.svg",
                         line_plot(series, title="Online update + marginal vs one BP pass",
                                   xlabel="vertices n", ylabel="µs (log axes)", logx=True, logy=True))
        print(f"\nplot: {path}")


if __name__ == "__main__":
    main()
