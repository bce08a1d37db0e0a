"""This engine against pyAgrum and pgmpy on the same random tree-shaped Bayesian networks.

    python -m benchmarks.bench_peers [--json] [--sizes 100,...,1000000 | --max-n N | --quick]
                                     [--shapes random,path,star-of-paths] [--k 2,4,8]
                                     [--timeout 120] [--mem-mb 6000] [--svg docs/img]

The researcher's question: what does a tree-shaped Bayesian network cost in the libraries people
already use, and do they agree with us? Each network is a tree of ``n`` vertices (a uniformly random
tree, a path, or a star of paths: "Online Sum-Product Computation over Trees", Herbster, Pasteris &
Vitale, section 3), ``k`` states, a random table P(child | parent) per edge (entries U(0.05, 1.05)
normalised), a random prior at the root and hard evidence on ``--evidence`` random leaves. Two
tasks, every library called as its documentation says:

- ``all_marginals``: P(x_v | e) for every vertex and log P(e). Here: ``belief_propagation`` on the
  :class:`engine.networks.Network`'s potentials (the lecture notes' collect/distribute, section
  8.2). pyAgrum: ``LazyPropagation``, ``setEvidence``, ``makeInference``, ``posterior`` of every
  node, ``evidenceProbability``. pgmpy: ``VariableElimination.query`` once per unobserved
  variable (its ``BeliefPropagation.query`` rebuilds the junction tree on every call, and
  ``joint=False`` over many variables asks for their joint table, exponential in their number),
  log P(e) by the chain rule over the evidence.
- ``online``: change one leaf's evidence, ask one marginal. Here: the online model
  (:class:`engine.inference.OnlineModel`, section 4), ``update`` + ``marginal``. pyAgrum:
  ``chgEvidence`` and ``posterior`` on the same inference object. pgmpy: a fresh query with the
  new evidence, by ``VariableElimination`` or (n <= 300, where building its junction tree is
  affordable) ``BeliefPropagation``, whichever is faster. ``seconds`` is the median per answer.

Each run is a process of its own (a peer's per task; this engine's two tasks share one, all
marginals first) with a wall-clock cap (``--timeout``) and an address-space cap (``--mem-mb``,
RLIMIT_AS in the child; the parent also watches its resident set): a run over a cap is a row with
status ``timeout`` or ``memory``, never a crash. A peer that failed at a smaller n of the same shape
and k is not run at larger n (status ``skipped``), nor when its time at the last sizes, grown at
least linearly, would pass the cap, nor once the peers' ``--budget`` is spent. ``seconds`` is the
best of three when one run takes under five seconds. ``peak_mb`` is the process's peak resident set
so far (its interpreter and libraries included; ``base_mb`` is that after the imports and the
network's arrays). ``max_marginal_diff`` is the largest difference from this engine's marginals and
``loglik_diff`` that of log P(e). Prints tables of seconds and ratios; asserts nothing. ``--json``
prints one object ``{"machine": {...}, "rows": [...]}``; ``--svg DIR`` writes the k = 2 random-tree
curves to ``DIR/peers_growth.svg``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.plots import line_plot, write_svg  # noqa: E402
from benchmarks.timing import load_average  # noqa: E402
from engine.jsonio import dumps  # noqa: E402

# The engine's trees, networks and inference import SciPy (and load numba on first use): they are
# imported inside the functions that use them, so that a peer's worker process, whose memory is
# measured, holds NumPy and that peer only.

__all__ = ["LIBRARIES", "TASKS", "SHAPES", "make_network", "run_benchmark", "main"]

OURS = "workbench"
LIBRARIES = (OURS, "pyAgrum", "pgmpy")
TASKS = ("all_marginals", "online")
SHAPES = ("random", "path", "star-of-paths")
SIZES = (100, 1_000, 10_000, 100_000, 1_000_000)
#: the module each library is imported as (None: this engine, always there)
_MODULE = {OURS: None, "pyAgrum": "pyagrum", "pgmpy": "pgmpy"}
_DIST = {OURS: "tree-inference-workbench", "pyAgrum": "pyagrum", "pgmpy": "pgmpy"}
#: rows' keys, in order: the published keys scripts read, then the extras
COLUMNS = ("n", "shape", "k", "library", "task", "seconds", "peak_mb", "max_marginal_diff", "loglik_diff",
           "status", "method", "build_seconds", "setup_seconds", "ops", "loglik", "work_seconds", "base_mb",
           "load", "note")
#: pgmpy's BeliefPropagation builds a complete graph over the n - 1 cliques of a tree: tried up to here
PGMPY_BP_MAX_N = 300
#: a run under this many seconds is repeated, best of three (the first at 10^6 also pays for fresh memory)
REPEAT_UNDER_S = 5.0
_MEMORY_WORDS = ("memoryerror", "alloc", "out of memory", "failed to map")


# ------------------------------------------------------------------------------------ the networks
def make_network(shape: str, n: int, k: int, *, seed: int = 0, evidence: int = 10, ops: int = 200) -> dict:
    """The network of one row, as arrays (the same for every library; see the module docstring).

    ``parent`` (n,), -1 at the root; ``cpt`` (n, k, k), ``cpt[v, a, b]`` = P(x_v = b | x_parent = a)
    (the root's row unused); ``prior`` (k,); evidence at leaves ``ev_vertex`` in states
    ``ev_state``; the online stream changes ``ev_vertex[0]`` to ``online_state[i]`` and asks the
    marginal of ``online_query[i]`` (never an observed vertex). The tree depends on (seed, shape, n)
    only, so the three k share it.
    """
    from engine.trees.generators import generate

    tree = generate(shape, n, seed=np.random.default_rng([seed, SHAPES.index(shape), n]))
    n = tree.n
    rng = np.random.default_rng([seed, SHAPES.index(shape), n, k])
    cpt = rng.random((n, k, k))
    cpt += 0.05
    cpt /= cpt.sum(axis=2, keepdims=True)
    prior = rng.random(k) + 0.05
    prior /= prior.sum()
    leaves = np.flatnonzero(tree.degree == 1)
    ev_vertex = rng.choice(leaves, size=min(evidence, leaves.size), replace=False).astype(np.int64)
    ev_state = rng.integers(k, size=ev_vertex.size).astype(np.int64)
    free = np.ones(n, bool)
    free[ev_vertex] = False
    online_query = rng.choice(np.flatnonzero(free), size=ops).astype(np.int64)
    online_state = ((ev_state[0] + 1 + np.arange(ops)) % k).astype(np.int64)
    return {"parent": np.asarray(tree.parent, np.int64), "cpt": cpt, "prior": prior, "ev_vertex": ev_vertex,
            "ev_state": ev_state, "online_query": online_query, "online_state": online_state}


# ------------------------------------------------------------------------ the worker: one run each
def _rss_mb() -> float:
    """This process's peak resident set so far, MB: VmHWM, which starts again at exec (getrusage's
    ru_maxrss keeps the forking parent's, which held the largest networks)."""
    peak = _status_mb(os.getpid(), "VmHWM:")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _best(fn):
    """(seconds, result) of ``fn()``: one run, or the best of three when one takes under ``REPEAT_UNDER_S``."""
    t = time.perf_counter()
    out = fn()
    best = time.perf_counter() - t
    if best < REPEAT_UNDER_S:
        for _ in range(2):
            t = time.perf_counter()
            out = fn()
            best = min(best, time.perf_counter() - t)
    return best, out


def _online_loop(ops: int, answer, *, min_ops: int, seconds: float) -> tuple[float, np.ndarray]:
    """Median seconds of ``answer(i)`` (the i-th change + query, returning the marginal) over the
    stream: all ``ops``, or, for a slow peer, at least ``min_ops`` and until ``seconds`` are spent."""
    times, out = [], []
    spent = 0.0
    start = time.perf_counter()
    for i in range(ops):
        if i >= min_ops and spent > seconds:
            break
        t = time.perf_counter()
        out.append(np.array(answer(i), dtype=np.float64))
        dt = time.perf_counter() - t
        times.append(dt)
        spent += dt
    _LOOP[0] += time.perf_counter() - start
    return float(np.median(times)), np.array(out)


_LOOP = [0.0]   # seconds this worker spent in online answer loops


def _ours(task: str, d: dict, spec: dict) -> dict:
    from engine.inference import OnlineModel, belief_propagation
    from engine.networks import Network
    from engine.trees.model import Tree

    def network(parent, cpt, prior):
        k = prior.size
        tree = Tree.from_parent(parent)
        phi = np.ones((tree.n, k))
        phi[tree.root] = prior
        states = tuple(str(a) for a in range(k))
        return Network(tree, phi, cpt[tree.edges[:, 1]], (states,) * tree.n, "bayes", "bench_peers")

    # load the compiled kernels (cached on disk) on a 5-vertex path, outside the clock
    small = network(np.arange(-1, 4), np.full((5, 2, 2), 0.5), np.full(2, 0.5))
    belief_propagation(small.tree, small.node_potentials, small.edge_potentials)
    warm = OnlineModel(small.tree, 2, small.edge_potentials, small.node_potentials)
    warm.update(4, np.array([1.0, 0.0]))
    warm.marginal(2)

    k = d["prior"].size
    t = time.perf_counter()
    net = network(d["parent"], d["cpt"], d["prior"])
    build = time.perf_counter() - t
    base = _rss_mb()
    ev = {int(v): int(s) for v, s in zip(d["ev_vertex"], d["ev_state"])}
    if task == "all_marginals":
        seconds, res = _best(lambda: belief_propagation(net.tree, net.evidence_potentials(ev), net.edge_potentials))
        return {"seconds": seconds, "marginals": res.marginals, "loglik": res.log_partition, "build_seconds": build,
                "base_mb": base, "method": "belief_propagation"}
    t = time.perf_counter()
    model = OnlineModel(net.tree, k, net.edge_potentials, net.evidence_potentials(ev))
    setup = time.perf_counter() - t
    leaf, qs = int(d["ev_vertex"][0]), [int(q) for q in d["online_query"]]
    # the vertex's data: its own potential (the prior, at the root) times the new evidence; one
    # contiguous float64 row per change
    rows = net.node_potentials[leaf] * np.eye(k)[d["online_state"]]

    def answer(i):
        model.update(leaf, rows[i])
        return model.marginal(qs[i])

    seconds, out = _online_loop(len(qs), answer, min_ops=len(qs), seconds=math.inf)
    return {"seconds": seconds, "marginals": out, "loglik": model.log_partition(), "build_seconds": build,
            "setup_seconds": setup, "base_mb": base, "method": "OnlineModel update + marginal"}


def _pyagrum(task: str, d: dict, spec: dict) -> dict:
    import pyagrum as gum

    parent, cpt, prior = d["parent"], d["cpt"], d["prior"]
    n, k = parent.size, prior.size
    t = time.perf_counter()
    bn = gum.BayesNet("bench_peers")
    # the id given: BayesNet.add without one looks for a free id, quadratic in n (4.3 s for 4,000)
    for v in range(n):
        bn.add(gum.LabelizedVariable(f"x{v}", f"x{v}", k), v)
    for v in range(n):
        if parent[v] >= 0:
            bn.addArc(int(parent[v]), v)
    for v in range(n):
        # a CPT's first variable (the node) changes fastest: rows by parent state, as cpt[v]
        bn.cpt(v).fillWith((prior if parent[v] < 0 else cpt[v]).ravel().tolist())
    build = time.perf_counter() - t
    base = _rss_mb()
    ev = {f"x{v}": int(s) for v, s in zip(d["ev_vertex"], d["ev_state"])}
    if task == "all_marginals":
        def run():
            ie = gum.LazyPropagation(bn)
            ie.setEvidence(ev)
            ie.makeInference()
            return ie, np.array([ie.posterior(v).toarray() for v in range(n)])

        seconds, (ie, marg) = _best(run)
        return {"seconds": seconds, "marginals": marg, "loglik": math.log(ie.evidenceProbability()),
                "build_seconds": build, "base_mb": base, "method": "LazyPropagation"}
    t = time.perf_counter()
    ie = gum.LazyPropagation(bn)
    ie.setEvidence(ev)
    ie.makeInference()
    setup = time.perf_counter() - t
    leaf, qs, states = f"x{int(d['ev_vertex'][0])}", [int(q) for q in d["online_query"]], d["online_state"]

    def answer(i):
        ie.chgEvidence(leaf, int(states[i]))
        return ie.posterior(qs[i]).toarray()

    seconds, out = _online_loop(len(qs), answer, min_ops=3, seconds=spec["peer_op_seconds"])
    ie.chgEvidence(leaf, int(states[-1]))      # log P(e) where the whole stream ends, as ours
    return {"seconds": seconds, "marginals": out, "loglik": math.log(ie.evidenceProbability()),
            "build_seconds": build, "setup_seconds": setup, "base_mb": base, "ops": len(out),
            "method": "LazyPropagation: chgEvidence + posterior"}


def _pgmpy(task: str, d: dict, spec: dict) -> dict:
    import logging
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.factors.discrete import TabularCPD
        from pgmpy.inference import BeliefPropagation, VariableElimination
        from pgmpy.models import DiscreteBayesianNetwork
    logging.getLogger("pgmpy").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")

    parent, cpt, prior = d["parent"], d["cpt"], d["prior"]
    n, k = parent.size, prior.size
    names = [f"x{v}" for v in range(n)]
    t = time.perf_counter()
    model = DiscreteBayesianNetwork()
    model.add_nodes_from(names)
    model.add_edges_from((names[p], names[v]) for v, p in enumerate(parent) if p >= 0)
    model.add_cpds(*(TabularCPD(names[v], k, prior.reshape(k, 1)) if p < 0 else
                     TabularCPD(names[v], k, cpt[v].T, evidence=[names[p]], evidence_card=[k])
                     for v, p in enumerate(parent)))
    build = time.perf_counter() - t
    base = _rss_mb()
    ev = {names[v]: int(s) for v, s in zip(d["ev_vertex"], d["ev_state"])}

    def marginal(engine, v, evidence):
        return engine.query([names[v]], evidence=evidence, show_progress=False).values

    def loglik(engine, evidence):
        """log P(e) = sum of log P(e_i | e_1 .. e_i-1): pgmpy's answers are normalised."""
        total, given = 0.0, {}
        for var, s in evidence.items():
            total += math.log(engine.query([var], evidence=dict(given) or None, show_progress=False).values[s])
            given[var] = s
        return total

    if task == "all_marginals":
        def run():
            ve = VariableElimination(model)
            out = np.zeros((n, k))
            for v in range(n):
                if names[v] in ev:
                    out[v, ev[names[v]]] = 1.0     # observed: pgmpy refuses to query it
                else:
                    out[v] = marginal(ve, v, ev)
            return ve, out

        seconds, (ve, marg) = _best(run)
        return {"seconds": seconds, "marginals": marg, "loglik": loglik(ve, ev), "build_seconds": build,
                "base_mb": base, "method": "VariableElimination, one query per variable"}
    leaf, qs, states = names[int(d["ev_vertex"][0])], [int(q) for q in d["online_query"]], d["online_state"]

    def evidence(i):
        e = dict(ev)
        e[leaf] = int(states[i])
        return e

    tried = {}
    t = time.perf_counter()
    ve = VariableElimination(model)
    tried["VariableElimination.query"] = (time.perf_counter() - t, ve)
    if n <= PGMPY_BP_MAX_N:
        t = time.perf_counter()
        bp = BeliefPropagation(model)
        tried["BeliefPropagation.query"] = (time.perf_counter() - t, bp)
    best = None
    for method, (setup, engine) in tried.items():
        seconds, out = _online_loop(len(qs), lambda i: marginal(engine, qs[i], evidence(i)), min_ops=3,
                                    seconds=spec["peer_op_seconds"])
        if best is None or seconds < best[0]:
            best = (seconds, out, method, setup, engine)
    seconds, out, method, setup, engine = best
    last = evidence(len(qs) - 1)               # log P(e) where the whole stream ends, as ours
    return {"seconds": seconds, "marginals": out, "loglik": loglik(ve, last), "build_seconds": build,
            "setup_seconds": setup, "base_mb": base, "ops": len(out),
            "method": method + (" (faster than " + ", ".join(m for m in tried if m != method) + ")"
                                if len(tried) > 1 else "")}


_RUNNERS = {OURS: _ours, "pyAgrum": _pyagrum, "pgmpy": _pgmpy}


#: what each worker imports before its clock starts (pgmpy's imports take 5 s of CPU)
_IMPORTS = {OURS: ("engine.inference", "engine.networks"), "pyAgrum": ("pyagrum",),
            "pgmpy": ("pgmpy.inference", "pgmpy.models", "pgmpy.factors.discrete")}


def _worker(spec: dict) -> int:
    """The runs of one library on one network in this process, one task after the other: prints
    one JSON line per task (status, numbers) and saves its marginals.

    ``import_seconds`` is the library's import; ``work_seconds`` the task's time after it, of
    which ``loop_seconds`` in the online answers (bounded by ``peer_op_seconds``); ``peak_mb`` the
    process's peak so far."""
    import warnings

    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for module in _IMPORTS[spec["library"]]:
                importlib.import_module(module)
        with np.load(spec["network"]) as z:
            d = {key: z[key] for key in z.files}
    except Exception as exc:  # noqa: BLE001 - reported for every task
        print(json.dumps(_failure(exc)), flush=True)
        return 0
    imports = time.perf_counter() - t0
    for task in spec["tasks"]:
        t0 = time.perf_counter()
        _LOOP[0] = 0.0
        try:
            out = _RUNNERS[spec["library"]](task, d, spec)
            np.save(spec["marginals"].format(task=task), out.pop("marginals"))
            out.update(status="ok", note="")
        except Exception as exc:  # noqa: BLE001 - a peer's failure is a row, never a crash
            out = _failure(exc)
        out.update(task=task, work_seconds=time.perf_counter() - t0, loop_seconds=_LOOP[0],
                   import_seconds=imports, peak_mb=_rss_mb())
        print(json.dumps(out, default=float), flush=True)
    return 0


def _failure(exc: BaseException) -> dict:
    text = f"{type(exc).__name__}: {exc}"[:200]
    memory = isinstance(exc, MemoryError) or any(w in text.lower() for w in _MEMORY_WORDS)
    return {"status": "memory" if memory else "error", "note": text}


# ------------------------------------------------------------------------- the parent: caps, rows
def _limit_address_space(mem_mb: float):
    def apply():
        cap = int(mem_mb * 2 ** 20)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    return apply


def _status_mb(pid: int, key: str = "VmRSS:") -> float | None:
    """A size from /proc/PID/status (``VmRSS:`` now, ``VmHWM:`` its peak), MB; None off Linux."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run_capped(spec: dict, *, timeout: float, mem_mb: float) -> dict:
    """Run one worker in a child process under the caps: ``{task: result}`` for each of
    ``spec["tasks"]``; a task the child did not finish gets a status saying which cap stopped it
    ("timeout", "memory") or how the child failed ("error"), never an exception."""
    cmd = [sys.executable, "-m", "benchmarks.bench_peers", "--worker", json.dumps(spec)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_limit_address_space(mem_mb))
    lines, errors = [], []
    readers = [threading.Thread(target=lambda s=s, into=into: into.extend(s), daemon=True)
               for s, into in ((proc.stdout, lines), (proc.stderr, errors))]
    for r in readers:
        r.start()
    killed, seen = None, 0.0
    try:
        while proc.poll() is None:
            rss = _status_mb(proc.pid)
            seen = max(seen, rss or 0.0)
            if rss is not None and rss > mem_mb:
                killed = "memory"
            elif time.perf_counter() - t0 > timeout:
                killed = "timeout"
            if killed:
                break
            time.sleep(0.05)
    finally:                   # over a cap, or this benchmark itself stopped: no run outlives it
        if proc.poll() is None:
            proc.kill()        # this run's own child, by its id
            proc.wait()
    for r in readers:
        r.join(timeout=5)
    wall = time.perf_counter() - t0
    results = {}
    for line in lines:
        if line.startswith("{"):
            res = json.loads(line)
            for task in ([res["task"]] if "task" in res else spec["tasks"]):
                results[task] = dict(res, wall=wall)
    if killed:
        cap = f"{timeout:g} s" if killed == "timeout" else f"{mem_mb:g} MB"
        lost = {"status": killed, "peak_mb": seen or None, "note": f"stopped at the {cap} cap after {wall:.1f} s"}
    else:
        tail = " ".join(e.strip() for e in errors[-3:])[-200:]
        died = "memory" if any(w in tail.lower() for w in _MEMORY_WORDS) else "error"
        lost = {"status": died, "peak_mb": seen or None, "note": f"exit status {proc.returncode}: {tail}"}
    return {task: results.get(task, dict(lost, wall=wall)) for task in spec["tasks"]}


def _installed(library: str) -> bool:
    module = _MODULE[library]
    return module is None or importlib.util.find_spec(module) is not None


def _version(library: str) -> str:
    try:
        return importlib.metadata.version(_DIST[library])
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine(load: str, settings: dict) -> dict:
    """What the numbers were measured on: CPU, cores, memory, Python, library versions, load."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = next((round(int(line.split()[1]) / 2 ** 20, 1) for line in f if line.startswith("MemTotal")), None)
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    versions = {lib: _version(lib) for lib in LIBRARIES}
    for dep in ("numpy", "scipy", "numba"):
        versions[dep] = importlib.metadata.version(dep)
    return {"cpu": cpu, "cores": os.cpu_count(), "cores_usable": usable, "memory_gb": mem,
            "python": platform.python_version(), "platform": platform.platform(), "versions": versions,
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "load_before": load,
            "load_after": None, "settings": settings}


def _diff(ours_file: Path, theirs_file: Path) -> float | None:
    if not (ours_file.exists() and theirs_file.exists()):
        return None
    a, b = np.load(ours_file), np.load(theirs_file)
    m = min(len(a), len(b))                    # a slow peer answers a prefix of the online stream
    return float(np.max(np.abs(a[:m] - b[:m]))) if m else None


def _size(shape: str, n: int) -> int:
    """The number of vertices of ``generate(shape, n)`` (a star of paths has k * m + 1)."""
    from engine.trees.generators import check_generator

    _, paths, length = check_generator(shape, n)
    return paths * length + 1 if shape == "star-of-paths" else n


def _row(n, shape, k, library, task, **kw) -> dict:
    row = dict.fromkeys(COLUMNS)
    row.update(n=n, shape=shape, k=k, library=library, task=task, **kw)
    return row


def _projected(done: list[tuple[int, float, float]], n: int) -> float | None:
    """Seconds a run at ``n`` would take, from the last ok runs ``(size, seconds that grow with n,
    seconds that do not)``: the first part (build, inference) grown as it grew between the last two
    sizes and at least linearly; the second (imports, online answers, which a time budget bounds)
    as it was."""
    if not done:
        return None
    n1, w1, fixed = done[-1]
    e = 1.0
    if len(done) >= 2:
        n0, w0, _ = done[-2]
        if w0 > 0 and w1 > 0 and n1 > n0:
            e = max(1.0, math.log(w1 / w0) / math.log(n1 / n0))
    return w1 * (n / n1) ** e + fixed


def run_benchmark(args, *, progress=None) -> dict:
    """Every row of the benchmark (see the module docstring) as ``{"machine", "rows"}``."""
    settings = {"sizes": args.sizes, "shapes": args.shapes, "k": args.k, "libraries": args.libraries,
                "timeout_s": args.timeout, "mem_mb": args.mem_mb, "evidence": args.evidence, "ops": args.ops,
                "peer_op_seconds": args.peer_op_seconds, "seed": args.seed}
    out = {"machine": machine(load_average(), settings), "rows": []}
    say = progress or (lambda text: None)
    work = Path(tempfile.mkdtemp(prefix="bench_peers_"))
    try:
        configs = [(shape, k, n) for shape in args.shapes for k in args.k for n in args.sizes]
        nets: dict = {}

        def network_file(shape, k, n) -> tuple[Path, int]:
            key = (shape, k, n)
            if key not in nets:
                d = make_network(shape, n, k, seed=args.seed, evidence=args.evidence, ops=args.ops)
                folder = work / f"{shape}_{k}_{n}"
                folder.mkdir(exist_ok=True)
                np.savez(folder / "network.npz", **d)
                nets[key] = (folder / "network.npz", int(d["parent"].size))
            return nets[key]

        def run(library, tasks, shape, k, n) -> dict:
            path, size = network_file(shape, k, n)
            spec = {"library": library, "tasks": list(tasks), "network": str(path),
                    "peer_op_seconds": args.peer_op_seconds, "marginals": str(path.parent / f"{library}_{{task}}.npy")}
            load = round(os.getloadavg()[0], 2)
            results = run_capped(spec, timeout=args.timeout, mem_mb=args.mem_mb)
            for task, res in results.items():
                row = _row(size, shape, k, library, task, load=load,
                           **{c: res.get(c) for c in COLUMNS if c in res and c not in ("n", "k", "shape", "task")})
                if row["ops"] is None and task == "online" and res["status"] == "ok":
                    row["ops"] = args.ops
                if library != OURS and res["status"] == "ok":
                    mine = next((r for r in out["rows"] if (r["library"], r["task"], r["shape"], r["k"], r["n"])
                                 == (OURS, task, shape, k, size)), None)
                    row["max_marginal_diff"] = _diff(path.parent / f"{OURS}_{task}.npy",
                                                     Path(spec["marginals"].format(task=task)))
                    if mine and mine["loglik"] is not None and row["loglik"] is not None:
                        row["loglik_diff"] = abs(row["loglik"] - mine["loglik"])
                out["rows"].append(row)
                say(_line(row))
            return results

        # this engine first, both tasks in one process, at every size (the peers are compared with
        # its marginals); the network files are made again for the peers, which stop at smaller n
        if OURS in args.libraries:
            for shape, k, n in configs:
                run(OURS, TASKS, shape, k, n)
                nets.pop((shape, k, n))[0].unlink()
        started = time.perf_counter()
        peers = [lib for lib in LIBRARIES if lib != OURS and lib in args.libraries]
        for k in args.k:                       # (a --budget cuts the largest k first)
            for shape in args.shapes:
                for library in peers:
                    for task in TASKS:
                        failed, done = None, []
                        for n in args.sizes:
                            size = _size(shape, n)
                            if not _installed(library):
                                out["rows"].append(_row(size, shape, k, library, task, status="not installed"))
                                continue
                            projected = _projected(done, size)
                            skip = None
                            if failed:
                                skip = f"{failed[1]} at n = {failed[0]:,}"
                            elif projected is not None and projected > args.timeout:
                                skip = f"projected {projected:,.0f} s from n = {done[-1][0]:,}"
                            elif args.budget and time.perf_counter() - started > args.budget:
                                skip = "over the --budget"
                            if skip:
                                out["rows"].append(_row(size, shape, k, library, task, status="skipped", note=skip))
                                say(_line(out["rows"][-1]))
                                continue
                            res = run(library, [task], shape, k, n)[task]
                            if res["status"] == "ok":
                                done.append((size, res["work_seconds"] - res["loop_seconds"],
                                             res["loop_seconds"] + res["import_seconds"]))
                            else:
                                failed = (size, res["status"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    order = {lib: i for i, lib in enumerate(LIBRARIES)}
    out["rows"].sort(key=lambda r: (TASKS.index(r["task"]), SHAPES.index(r["shape"]), r["k"], r["n"],
                                    order[r["library"]]))
    out["machine"]["load_after"] = load_average()
    return out


# ------------------------------------------------------------------------------------ the output
def _fmt(x, digits=3) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        if x == 0:
            return "0"
        if abs(x) < 1e-3 or abs(x) >= 1e5:
            return f"{x:.1e}"
        return f"{x:.{digits}g}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def _line(row) -> str:
    return (f"{row['library']:>9} {row['task']:>13} {row['shape']:>13} k={row['k']} n={row['n']:>9,}: "
            f"{row['status']}, {_fmt(row['seconds'])} s, {_fmt(row['peak_mb'])} MB"
            + (f" ({row['note']})" if row.get("note") else ""))


def _cell(row) -> str:
    """A library's seconds, or why there are none."""
    if row is None:
        return "—"
    if row["status"] == "ok":
        return _fmt(row["seconds"])
    return row["status"] + (f" ({row['note']})" if row["status"] == "skipped" and row.get("note") else "")


def tables(result: dict) -> str:
    """The rows as Markdown tables: one per task, a network a line and a library a column group
    (seconds, peak MB, and for a peer the largest differences from our marginals and log P(e)),
    then each peer's seconds over ours."""
    m = result["machine"]
    peers = [lib for lib in LIBRARIES if lib != OURS]
    out = [f"Machine: {m['cpu']}, {m['cores']} cores ({m['cores_usable']} usable), {m['memory_gb']} GB, "
           f"Python {m['python']}; " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()),
           f"{m['date']}, load before {m['load_before']}, after {m['load_after']}", ""]
    by = {(r["task"], r["shape"], r["k"], r["n"], r["library"]): r for r in result["rows"]}
    nets = list(dict.fromkeys((r["shape"], r["k"], r["n"]) for r in result["rows"]))
    for task in TASKS:
        what = ("all marginals and log P(e), seconds" if task == "all_marginals" else
                "one evidence change at a leaf + one marginal, median seconds per answer")
        out += [f"**{task}**: {what}; Δ = largest difference from our marginals / our log P(e)", "",
                f"| n | shape | k | {OURS} | MB | " + " | ".join(f"{p} | MB | Δ" for p in peers) + " |",
                "|---:|---|---:|---:|---:|" + "---:|---:|---:|" * len(peers)]
        for shape, k, n in nets:
            mine = by.get((task, shape, k, n, OURS))
            cells = [f"{n:,}", shape, str(k), _cell(mine), _fmt(mine and mine["peak_mb"], 4)]
            for p in peers:
                r = by.get((task, shape, k, n, p))
                delta = (f"{_fmt(r['max_marginal_diff'], 2)} / {_fmt(r['loglik_diff'], 2)}"
                         if r and r["status"] == "ok" else "")
                cells += [_cell(r), _fmt(r and r["peak_mb"], 4) if r and r["status"] == "ok" else "", delta]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    out += ["**Peer seconds / our seconds** (where both answered)", "",
            "| n | shape | k | task | " + " | ".join(peers) + " |", "|---:|---|---:|---|" + "---:|" * len(peers)]
    for task in TASKS:
        for shape, k, n in nets:
            mine = by.get((task, shape, k, n, OURS))
            if not mine or mine["status"] != "ok" or not mine["seconds"]:
                continue
            cells = []
            for p in peers:
                r = by.get((task, shape, k, n, p))
                cells.append(f"{r['seconds'] / mine['seconds']:,.0f}×" if r and r["status"] == "ok" else "—")
            if any(c != "—" for c in cells):
                out.append(f"| {n:,} | {shape} | {k} | {task} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def figure(result: dict, folder: Path, *, k: int = 2, shape: str = "random") -> Path:
    """``folder/peers_growth.svg``: seconds against n per library (k = 2, random trees), all
    marginals solid, one online answer dashed, log axes."""
    series, dashed = {}, []
    for lib in LIBRARIES:
        for task, label in (("all_marginals", "all marginals"), ("online", "online answer")):
            rows = [r for r in result["rows"] if (r["library"], r["task"], r["k"], r["shape"], r["status"])
                    == (lib, task, k, shape, "ok")]
            if rows:
                name = f"{lib}, {label}"
                series[name] = ([r["n"] for r in rows], [r["seconds"] for r in rows])
                if task == "online":
                    dashed.append(name)
    svg = line_plot(series, title=f"Tree-shaped Bayesian network, {shape} tree, k = {k}", xlabel="vertices n",
                    ylabel="seconds (log axes)", logx=True, logy=True, dashed=dashed)
    return write_svg(Path(folder) / "peers_growth.svg", svg)


def _csv(text: str, cast=str) -> list:
    return [cast(s.strip()) for s in text.split(",") if s.strip()]


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help='print one JSON object {"machine", "rows"}')
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated numbers of vertices")
    ap.add_argument("--max-n", type=int, help="leave out the sizes above this")
    ap.add_argument("--quick", action="store_true", help="n = 100 and 1,000, random trees, k = 2, 20 answers")
    ap.add_argument("--shapes", default=",".join(SHAPES), help=f"tree shapes, of {', '.join(SHAPES)}")
    ap.add_argument("--k", default="2,4,8", help="comma-separated numbers of states")
    ap.add_argument("--libraries", default=",".join(LIBRARIES), help=f"of {', '.join(LIBRARIES)}")
    ap.add_argument("--timeout", type=float, default=120.0, help="wall-clock seconds a run may take (default 120)")
    ap.add_argument("--mem-mb", type=float, default=6000.0, help="address space a run may use, MB (default 6000)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds for all the peers' runs together; the runs left after it are skipped")
    ap.add_argument("--evidence", type=int, default=10, help="leaves with hard evidence (default 10)")
    ap.add_argument("--ops", type=int, default=200, help="online answers timed (default 200)")
    ap.add_argument("--peer-op-seconds", type=float, default=10.0,
                    help="a peer's online answers stop after these seconds (at least 3 answers)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--svg", metavar="DIR", help="write DIR/peers_growth.svg (k = 2, random trees)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return args
    if args.quick:
        args.sizes, args.shapes, args.k, args.ops = "100,1000", "random", "2", min(args.ops, 20)
    args.sizes = sorted(set(_csv(args.sizes, int)))
    if args.max_n is not None:
        args.sizes = [n for n in args.sizes if n <= args.max_n]
    args.shapes = _csv(args.shapes)
    args.k = _csv(args.k, int)
    args.libraries = _csv(args.libraries)
    bad = ([f"shape {s!r}" for s in args.shapes if s not in SHAPES]
           + [f"library {lib!r}" for lib in args.libraries if lib not in LIBRARIES]
           + [f"size {n}" for n in args.sizes if n < 3] + [f"k = {k}" for k in args.k if k < 2])
    if bad or not args.sizes or args.ops < 1 or args.timeout <= 0 or args.mem_mb <= 0:
        ap.error("; ".join(bad) or "need at least one size >= 3, --ops >= 1 and positive caps")
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    if args.worker:
        sys.exit(_worker(json.loads(args.worker)))
    # stopped by a signal: unwind, so the running child is killed and the temporary files go
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    result = run_benchmark(args, progress=lambda text: print(text, file=sys.stderr, flush=True))
    if args.json:
        print(dumps(result, indent=1))
    else:
        print(tables(result))
    if args.svg:
        print(f"plot: {figure(result, Path(args.svg))}", file=sys.stderr)


if __name__ == "__main__":
    main()
