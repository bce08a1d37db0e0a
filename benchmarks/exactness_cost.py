"""What exactness costs: the online update + marginal and the BP pass, before and after.

"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale), section 4, and the
sum-product lecture notes: the same public calls (``OnlineModel.update``, ``OnlineModel.marginal``,
``belief_propagation``) timed on the engine of several git revisions, each extracted with
``git archive`` into a temporary folder and run in its own process, the revisions interleaved
``--rounds`` times and the best kept. Times are processor time (``time.process_time``), so the
other users of a shared machine move them less than wall time; the load average (``uptime``) is
printed before and after.

    python -m benchmarks.exactness_cost                       # the default revisions
    python -m benchmarks.exactness_cost --revs 87570c7,WORKTREE --sizes 1000,100000

``WORKTREE`` is the engine as it is in this checkout. Default revisions: the engine before the
exact arithmetic (87570c7), with it (a67201c) and this checkout. Models: k states, Potts
interaction 1 (``exp(1)`` on the diagonal), node data U(0.1, 1.1) — ordinary models, on which the
exact arithmetic must cost at most 1.5× of what the old code took (the goal set for this work).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REVS = "87570c7,a67201c,WORKTREE"
LABELS = {"87570c7": "before exactness", "a67201c": "exact (issue 16)", "WORKTREE": "this checkout"}

# Runs in the revision's process: only calls every revision has.
WORKER = r"""
import json, sys, time
import numpy as np
from engine.trees.generators import generate
from engine.inference.online import OnlineModel
from engine.inference.belief_propagation import belief_propagation

n, shape, k, ops, reps = json.loads(sys.argv[1])
rng = np.random.default_rng(0)
tree = generate(shape, n, seed=rng)
E = np.ones((k, k)) + (np.e - 1.0) * np.eye(k)
D = rng.random((n, k)) + 0.1
small = generate(shape, 50, seed=1)                      # compile outside the clock
m = OnlineModel(small, k, E, np.ones((small.n, k)))
m.update(3, np.ones(k)); m.marginal(4)
belief_propagation(small, None, E, k=k)
model = OnlineModel(tree, k, E, D)
vs = [int(v) for v in rng.integers(n, size=ops)]
ws = [int(v) for v in rng.integers(n, size=ops)]
X = rng.random((ops, k)) + 0.1
rows = [X[i] for i in range(ops)]
clock = time.process_time
up, mg, bp = [], [], []
for _ in range(reps):
    t0 = clock()
    for i in range(ops):
        model.update(vs[i], rows[i])
    t1 = clock()
    for i in range(ops):
        model.marginal(ws[i])
    t2 = clock()
    belief_propagation(tree, D, E)
    t3 = clock()
    up.append((t1 - t0) / ops * 1e6)
    mg.append((t2 - t1) / ops * 1e6)
    bp.append(t3 - t2)
print(json.dumps({"update_us": min(up), "marginal_us": min(mg), "bp_s": min(bp)}))
"""


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "uptime unavailable"


def _extract(rev: str, into: Path) -> Path:
    """The engine package of ``rev`` in a folder of its own (``WORKTREE``: this checkout)."""
    if rev == "WORKTREE":
        return ROOT
    out = into / rev
    out.mkdir()
    data = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "engine"],
                          capture_output=True, check=True, timeout=120).stdout
    tar = out / "engine.tar"
    tar.write_bytes(data)
    with tarfile.open(tar) as t:
        t.extractall(out, filter="data")
    tar.unlink()
    return out


def _run(src: Path, cache: Path, n: int, shape: str, k: int, ops: int, reps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), NUMBA_CACHE_DIR=str(cache))
    r = subprocess.run([sys.executable, "-c", WORKER, json.dumps([n, shape, k, ops, reps])],
                       capture_output=True, text=True, env=env, cwd=str(src), timeout=1800)
    if r.returncode:
        raise SystemExit(f"worker failed on {src} (n={n}, {shape}, k={k}):\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--revs", default=DEFAULT_REVS,
                    help=f"comma-separated git revisions, the first is the baseline (default {DEFAULT_REVS})")
    ap.add_argument("--cases", default="1000:path:2,1000:random:2,100000:path:2,100000:random:2,"
                    "1000000:path:2,1000000:random:2,10000:path:3,10000:random:3,10000:path:5,"
                    "10000:random:5", help="n:shape:k, comma-separated")
    ap.add_argument("--ops", type=int, default=4000, help="updates and marginals per repetition")
    ap.add_argument("--reps", type=int, default=3, help="repetitions inside a process (best kept)")
    ap.add_argument("--rounds", type=int, default=2, help="interleaved rounds over the revisions")
    ap.add_argument("--json", action="store_true", help="one JSON object per case")
    a = ap.parse_args(argv)
    revs = [r.strip() for r in a.revs.split(",") if r.strip()]
    cases = []
    for c in a.cases.split(","):
        n, shape, k = c.split(":")
        cases.append((int(n), shape, int(k)))
    print(f"# load before: {_uptime()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="exactness_cost_") as tmp:
        tmp = Path(tmp)
        srcs = {r: _extract(r, tmp) for r in revs}
        caches = {r: tmp / f"numba-{i}" for i, r in enumerate(revs)}
        if not a.json:
            head = ["n", "shape", "k"] + [f"{r} up+marg µs" for r in revs] + [f"{r} BP s" for r in revs]
            head += [f"{r}/{revs[0]} up+marg" for r in revs[1:]] + [f"{r}/{revs[0]} BP" for r in revs[1:]]
            print("| " + " | ".join(head) + " |")
            print("|" + "---|" * len(head))
        for n, shape, k in cases:
            best = {r: None for r in revs}
            for _ in range(a.rounds):
                for r in revs:
                    got = _run(srcs[r], caches[r], n, shape, k, a.ops, a.reps)
                    b = best[r]
                    best[r] = got if b is None else {key: min(b[key], got[key]) for key in got}
            um = {r: best[r]["update_us"] + best[r]["marginal_us"] for r in revs}
            bp = {r: best[r]["bp_s"] for r in revs}
            if a.json:
                print(json.dumps({"n": n, "shape": shape, "k": k,
                                  "results": {r: best[r] for r in revs}}), flush=True)
                continue
            cells = [f"{n:,}", shape, str(k)] + [f"{um[r]:.2f}" for r in revs] + [f"{bp[r]:.3g}" for r in revs]
            cells += [f"{um[r] / um[revs[0]]:.2f}" for r in revs[1:]]
            cells += [f"{bp[r] / bp[revs[0]]:.2f}" for r in revs[1:]]
            print("| " + " | ".join(cells) + " |", flush=True)
    print(f"# load after: {_uptime()}")
    print("# revisions: " + ", ".join(f"{r} = {LABELS.get(r, r)}" for r in revs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
