"""What recording a run costs, and what a parallel sweep gains (prints two tables).

    python benchmarks/runs_history.py [--runs 200] [--points 8] [--db postgresql://...]

Uses the tests' small family ``treeflip`` (tests/runs_family.py), so it needs no data. Table 1:
milliseconds per run, direct ``run`` against ``execute`` (record opened, progress saved, results
written in transactions), on a throwaway SQLite file, or on the PostgreSQL database ``--db`` names
(its runs are left there). Table 2: wall time of a sweep of ``--points``
slow points (each sleeps ``--delay`` s in total, like a real run waiting on work) sequentially and
with joblib (loky, threading).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.runs.execute import execute, execute_sweep  # noqa: E402
from engine.runs.registry import load_config, register_family  # noqa: E402
from engine.runs.store import RunStore  # noqa: E402
from tests import runs_family  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--points", type=int, default=8)
    ap.add_argument("--delay", type=float, default=1.0)
    ap.add_argument("--db", default=None, help="a postgresql:// URL (default: a throwaway SQLite file)")
    args = ap.parse_args()
    register_family(*runs_family.FAMILY)
    with tempfile.TemporaryDirectory() as tmp, RunStore(args.db or Path(tmp) / "bench.sqlite") as store:
        print("| tree size | direct run (ms) | recorded run (ms) | overhead (ms) |")
        print("|---:|---:|---:|---:|")
        for n in (10, 1000, 10000):
            cfg = load_config({"algorithm": "treeflip", "tree": {"generate": "path", "n": n}})
            t = time.perf_counter()
            for _ in range(args.runs):
                runs_family.run(cfg)
            direct = (time.perf_counter() - t) / args.runs * 1e3
            t = time.perf_counter()
            for _ in range(args.runs):
                execute(cfg, None, store)
            recorded = (time.perf_counter() - t) / args.runs * 1e3
            print(f"| {n} | {direct:.2f} | {recorded:.2f} | {recorded - direct:.2f} |")
        print()
        spec = {"algorithm": "treeflip", "steps": 10, "delay": args.delay / 10,
                "sweep": {"seed": list(range(args.points))}}
        print(f"| sweep of {args.points} points x {args.delay:g} s | wall time (s) | speed-up |")
        print("|---|---:|---:|")
        base = None
        for name, kw in [("sequential (n_jobs=1)", dict(n_jobs=1)),
                         ("loky, 2 workers, cold (workers start)", dict(n_jobs=2, backend="loky")),
                         ("loky, 2 workers, warm (workers reused)", dict(n_jobs=2, backend="loky")),
                         ("threading, 4 threads", dict(n_jobs=4, backend="threading"))]:
            t = time.perf_counter()
            recs = execute_sweep(spec, None, store, **kw)
            wall = time.perf_counter() - t
            assert all(r.status == "finished" for r in recs)
            base = base or wall
            print(f"| {name} | {wall:.2f} | {base / wall:.2f} |")


if __name__ == "__main__":
    main()
