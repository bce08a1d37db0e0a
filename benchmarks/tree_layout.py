"""Timings of the tree engine at 10^4..10^6 vertices: generators, tidy layout, and reading/writing formats.

Run from the project root: ``python benchmarks/tree_layout.py [--max 1000000]``. Prints markdown
tables (seconds, best of three; the first compile of the numba kernels is done before timing) and
the layout time per vertex, which stays flat for an O(n) step once the arrays outgrow the caches.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.timing import best_time  # noqa: E402
from engine.trees.formats import format_tree_text, parse_tree_text  # noqa: E402
from engine.trees.generators import generate  # noqa: E402
from engine.trees.layout import tidy_layout  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--max", type=int, default=2_000_000)
    args = ap.parse_args()
    sizes = [n for n in (10_000, 100_000, 1_000_000, 2_000_000) if n <= args.max]
    tidy_layout(generate("random", 50, seed=0))  # compile (or load the cached) kernels
    print("| family | n | generate (s) | tidy layout (s) | layout µs per vertex |")
    print("|---|---|---|---|---|")
    for kind in ("path", "star", "binary", "star-of-paths", "random", "recursive"):
        for n in sizes:
            tg = best_time(lambda: generate(kind, n, seed=1))
            t = generate(kind, n, seed=1)
            t.children_ptr, t.depth  # noqa: B018  (cached structure, shared with the drawing)
            tl = best_time(lambda: tidy_layout(t))
            print(f"| {kind} | {n:,} | {tg:.3f} | {tl:.3f} | {tl / n * 1e6:.2f} |")
    print()
    print("| format | n | write (s) | read (s) |")
    print("|---|---|---|---|")
    for n in [s for s in sizes if s <= 100_000]:
        t = generate("random", n, seed=2)
        for fmt in ("edgelist", "json", "gml", "graphml", "newick", "xml", "jsonl"):
            text = format_tree_text(t, fmt)
            tw = best_time(lambda: format_tree_text(t, fmt), 1)
            tr = best_time(lambda: parse_tree_text(text, fmt), 1)
            print(f"| {fmt} | {n:,} | {tw:.2f} | {tr:.2f} |")


if __name__ == "__main__":
    main()
