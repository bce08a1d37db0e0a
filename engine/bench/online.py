"""``bench online``: the online sum-product model against full belief-propagation passes.

"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale), section 4: after an O(n)
initialisation each update and each marginal walks one path of the cover's decomposition tree.

Rows: n, tree shape, cover height; seconds to build the cover and to initialise the model (each
the median of three runs on a warm heap) and the two in BP passes (``init_bp_passes``);
``init_cold_s``, the first cover + model build in the process, which also pays the OS's first
touch of fresh memory; median µs per public ``update`` call and per public ``marginal`` call (at
the vertex just updated, as TREE-HEDGE's predict-then-learn asks); µs per operation of the batch
verbs on the same stream in chunks of 100 (``update_many`` of a chunk, then ``marginal_many`` at
its vertices, so a marginal does not follow its own update and runs colder than the single one;
median over the chunks); seconds of the project's BP pass (``bp_s``: ``belief_propagation``, the
compiled sweep) and of the lean sweep (``lean_s``: a plain compiled collect/distribute over arrays
already in breadth-first order, no checks, the yardstick), each the best of five runs interleaved
with the other's, and ``bp_over_lean`` = ``bp_s / lean_s``; ``bp_numpy_s``, the
vectorised-by-level NumPy pass, timed when n <= 10^5 or the tree is shallow; ``ratio`` = BP pass
/ (update + marginal) and ``ratio_lean`` = lean sweep / (update + marginal); pgmpy's
BeliefPropagation (one query) for n <= 300 when pgmpy is installed (the ``test`` extra; else the
column is empty and a line on stderr says why). Every pass gets the same (n - 1, k, k)
edge-potential array (Potts interaction 1 on every edge) and data U(0.1, 1.1).
"""

from __future__ import annotations

import functools
import sys
import time

import numpy as np

from engine import limits

__all__ = ["register", "bench_online", "lean_seconds"]

COLUMNS = ("n", "shape", "k", "height", "cover_s", "init_s", "init_bp_passes", "init_cold_s", "update_us",
           "marginal_us", "update_many_us", "marginal_many_us", "bp_s", "bp_numpy_s", "lean_s",
           "bp_over_lean", "ratio", "ratio_lean", "pgmpy_s")


def register(bsub) -> None:
    p = bsub.add_parser("online", help="online sum-product vs full BP passes (Herbster, Pasteris & Vitale, "
                        "\"Online Sum-Product Computation over Trees\", section 4)")
    p.add_argument("--sizes", default="1000,10000,100000,1000000",
                   help="comma-separated tree sizes (default 1000,10000,100000,1000000)")
    p.add_argument("--shapes", default="random,path", help="tree shapes (generators), default random,path")
    p.add_argument("--ops", type=limits.flag("rounds"), default=2000, help="updates and marginals timed per row")
    p.add_argument("--states", type=limits.flag("states"), default=2, help="number of labels k (default 2)")
    p.add_argument("--cover", choices=("optimal", "rake-only"), default="optimal")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="one JSON object per row")
    p.set_defaults(handler=_handler)


def _handler(args) -> int:
    from engine.jsonio import print_json
    from engine.errors import InvalidParameterError

    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        raise InvalidParameterError(f"--sizes must be comma-separated integers, got {args.sizes!r}") from None
    if not sizes or min(sizes) < 3:
        raise InvalidParameterError("--sizes must list integers >= 3")
    if args.ops < 1:
        raise InvalidParameterError(f"--ops must be >= 1, got {args.ops}")
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    if not args.json:
        print(" ".join(f"{c:>14}" for c in COLUMNS))
    for shape in shapes:
        for n in sizes:
            row = bench_online(n, shape, ops=args.ops, k=args.states, cover=args.cover, seed=args.seed)
            if args.json:
                print_json(row)
            else:
                print(" ".join(f"{_fmt(row[c]):>14}" for c in COLUMNS), flush=True)
    return 0


def _fmt(x):
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def bench_online(n: int, shape: str, *, ops: int = 2000, k: int = 2, cover: str = "optimal",
                 seed=0) -> dict:
    """One row of the table (see the module docstring)."""
    from engine.cover import optimal_cover, rake_only_cover
    from engine.inference.belief_propagation import belief_propagation
    from engine.inference.online import OnlineModel
    from engine.inference.potentials import potts_interaction
    from engine.trees.generators import generate

    limits.check("table_cells", (n - 1) * k * k, f"{n:,} vertices x {k} x {k} states; the edge potentials")
    rng = np.random.default_rng(seed)
    tree = generate(shape, n, seed=rng)
    E = np.ascontiguousarray(np.broadcast_to(potts_interaction(k, 1.0), (n - 1, k, k)))
    D = rng.random((n, k)) + 0.1
    # warm the compiled kernels on a small tree so compilation is not timed
    small = generate(shape, 50, seed=1)
    Es = np.ascontiguousarray(np.broadcast_to(potts_interaction(k, 1.0), (small.n - 1, k, k)))
    warm = OnlineModel(small, k, Es, np.ones((small.n, k)), cover=cover)
    warm.update(3, np.ones(k))
    warm.marginal(3)
    warm.update_many(np.arange(3), np.ones((3, k)))
    warm.marginal_many(np.arange(3))
    belief_propagation(small, np.ones((small.n, k)), Es)
    lean_seconds(small, np.ones((small.n, k)), Es)
    build = optimal_cover if cover == "optimal" else rake_only_cover
    # The first build in a process also pays the OS's first touch of fresh memory (glibc hands
    # large blocks back until its mmap threshold adapts): reported as init_cold_s. Then each
    # phase is timed three times, median, on a warm heap, as the BP pass is.
    t0 = time.perf_counter()
    model = OnlineModel(tree, k, E, D, cover=build(tree))
    init_cold_s = time.perf_counter() - t0
    model = None
    cs, ins = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        C = build(tree)
        cs.append(time.perf_counter() - t0)
        model = None
        t0 = time.perf_counter()
        model = OnlineModel(tree, k, E, D, cover=C)
        ins.append(time.perf_counter() - t0)
    cover_s, init_s = float(np.median(cs)), float(np.median(ins))
    bp, lean = [], []
    for _ in range(5):      # interleaved, best of five: the least disturbed by the other users
        t0 = time.perf_counter()
        belief_propagation(tree, D, E)
        bp.append(time.perf_counter() - t0)
        lean.append(lean_seconds(tree, D, E))
    bp_s, lean_s = min(bp), min(lean)
    bp_numpy_s = None
    if n <= 100_000 or shape not in ("path", "caterpillar", "spider", "star_of_paths"):
        t0 = time.perf_counter()
        belief_propagation(tree, D, E, method="numpy")
        bp_numpy_s = time.perf_counter() - t0
    vs = [int(v) for v in rng.integers(n, size=ops)]
    data = rng.random((ops, k)) + 0.01
    rows = [data[i] for i in range(ops)]
    tu = np.empty(ops)
    tm = np.empty(ops)
    clock = time.perf_counter_ns
    for i in range(ops):
        v = vs[i]
        d = rows[i]
        t0 = clock()
        model.update(v, d)
        t1 = clock()
        model.marginal(v)
        t2 = clock()
        tu[i] = t1 - t0
        tm[i] = t2 - t1
    update_us = float(np.median(tu)) / 1e3
    marginal_us = float(np.median(tm)) / 1e3
    # the batch verbs on the same stream, in chunks of up to 100 operations: median µs per
    # operation over the chunks (a chunk the scheduler interrupted does not count)
    va = np.asarray(vs, np.int64)
    out = np.empty((ops, k))
    bu, bm = [], []
    for lo in range(0, ops, 100):
        hi = min(ops, lo + 100)
        t0 = clock()
        model.update_many(va[lo:hi], data[lo:hi])
        t1 = clock()
        model.marginal_many(va[lo:hi], out[lo:hi])
        t2 = clock()
        bu.append((t1 - t0) / (hi - lo) / 1e3)
        bm.append((t2 - t1) / (hi - lo) / 1e3)
    pgmpy_s = _pgmpy_time(tree, D, E) if n <= 300 else None
    op_s = (update_us + marginal_us) * 1e-6
    return {"n": n, "shape": shape, "k": k, "height": model.height, "cover_s": cover_s,
            "init_s": init_s, "init_bp_passes": (cover_s + init_s) / bp_s, "init_cold_s": init_cold_s,
            "update_us": update_us, "marginal_us": marginal_us,
            "update_many_us": float(np.median(bu)), "marginal_many_us": float(np.median(bm)),
            "bp_s": bp_s, "bp_numpy_s": bp_numpy_s, "lean_s": lean_s, "bp_over_lean": bp_s / lean_s,
            "ratio": bp_s / op_s, "ratio_lean": lean_s / op_s, "pgmpy_s": pgmpy_s}


def lean_seconds(tree, D, E) -> float:
    """Seconds of the lean sweep (the yardstick) on the tree's breadth-first arrays, prepared
    outside the clock (the project's pass pays for its own renumbering and checks)."""
    from engine.inference._bp_kernels import lean_sweep

    n, k = D.shape
    pr, ptr = tree.bfs_parent, tree.bfs_children_ptr
    phi = np.ascontiguousarray(D[tree.order])
    inner, up, down, marg = (np.empty((n, k)) for _ in range(4))
    t0 = time.perf_counter()
    lean_sweep(pr, ptr, phi, E, inner, up, down, marg)
    return time.perf_counter() - t0


def _pgmpy_time(tree, D, E):
    """Seconds for pgmpy's BeliefPropagation to build, calibrate and answer one marginal query;
    None when pgmpy is not installed (a yardstick, not a dependency of the engine)."""
    import logging
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from pgmpy.factors.discrete import DiscreteFactor
            from pgmpy.inference import BeliefPropagation
            from pgmpy.models import DiscreteMarkovNetwork as MarkovNetwork
        except ImportError:
            _say_no_pgmpy()
            return None

    logging.getLogger("pgmpy").setLevel(logging.ERROR)
    k = D.shape[1]
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = MarkovNetwork()
        names = [f"x{v}" for v in range(tree.n)]
        g.add_nodes_from(names)
        fs = []
        for p, c in tree.edges:
            g.add_edge(names[p], names[c])
            fs.append(DiscreteFactor([names[p], names[c]], [k, k], E.ravel()))
        for v in range(tree.n):
            fs.append(DiscreteFactor([names[v]], [k], D[v]))
        g.add_factors(*fs)
        BeliefPropagation(g).query([names[tree.n // 2]], show_progress=False)
    return time.perf_counter() - t0


@functools.cache
def _say_no_pgmpy() -> None:
    """One line on stderr, once a command, that the pgmpy column stays empty and why."""
    print("bench online: pgmpy is not installed, so its column stays empty (pip install pgmpy, or the test extra)",
          file=sys.stderr)
