"""Compile every numba kernel of the engine before anyone waits for it.

Each kernel is compiled on its first call, for the argument types of that call (tens of seconds
for the whole engine on a small machine). :func:`compile_kernels` runs a tiny problem through every
family (trees and layout, covers, belief propagation, the online model, TREE-HEDGE, OFDE and
Chow-Liu, RTA, the bottom-up hidden tree Markov models) so that every kernel is compiled for the
types the real runs use, and written to numba's on-disk cache (``NUMBA_CACHE_DIR``): a later
process loads it instead of compiling. :func:`uncompiled_kernels` lists the kernels still without
a compiled version, so a test can check that the exercise reaches all of them.

``python -m engine.warmup`` does it once (the container build runs it, to bake the cache in).

A command of ``python -m engine`` that meets a kernel missing from the cache says so before it
compiles (:func:`cold_seconds` estimates how long, from :data:`COMPILE_SECONDS`);
``python -m engine.warmup --costs`` measures those costs again (run it with an empty
``NUMBA_CACHE_DIR``: a cached kernel costs nothing).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import time
from pathlib import Path
from typing import Callable, Optional

__all__ = ["compile_kernels", "uncompiled_kernels", "kernel_modules", "compile_costs", "cold_seconds",
           "COMPILE_SECONDS"]


def _quiet(*_args) -> None:
    pass


#: CPU seconds that compiling each kernel module's kernels took from an empty cache, as
#: :func:`compile_kernels` exercises them (``python -m engine.warmup --costs`` on a 2-core machine;
#: the table and its date are in docs/benchmarks.md, "Compiling the kernels"). A kernel that calls
#: into another module is counted with its caller.
COMPILE_SECONDS = {
    "engine.inference._online_kernels": 140.0,
    "engine.multilabel.learner": 25.0,
    "engine.forests._kernels": 15.0,
    "engine.trees.formats._kernels": 11.0,
    "engine.inference._bp_kernels": 10.0,
    "engine.cover._kernels": 5.0,
    "engine.multilabel.kbest": 5.0,
    "engine.trees.kernels": 4.0,
}


def _trees_and_inference() -> None:
    import numpy as np

    from engine.bench.online import lean_seconds
    from engine.cover import optimal_cover, rake_only_cover
    from engine.inference import belief_propagation, flooding, max_product
    from engine.inference.online import OnlineModel
    from engine.inference.potentials import potts_interaction
    from engine.trees import generate
    from engine.trees.layout import tidy_layout

    for kind in ("random", "path", "star", "caterpillar", "spider", "recursive", "binary"):
        generate(kind, 40, seed=0)
    tree = generate("random", 40, seed=0)
    tidy_layout(tree)
    for cover in (optimal_cover(tree), rake_only_cover(tree)):
        cover.to_tree()
        cover.trace(0)
    for k in (2, 3):
        M = potts_interaction(k, 1.0)
        belief_propagation(tree, None, M, k=k)
        # node potentials whose entries differ by more than 2^480: the exact (wide) pass
        belief_propagation(tree, np.tile([1.0] + [1e-200] * (k - 1), (tree.n, 1)), M, k=k)
        max_product(tree, np.zeros((tree.n, k)), np.log(M))
        flooding(tree, None, M, k=k)
        for cover in ("optimal", "rake-only"):
            m = OnlineModel(tree, k, M, None, cover=cover)
            m.update(3, np.eye(k)[0])
            m.marginal(5)
            m.set_edge_potential(int(tree.parent[7]), 7, M)
            m.log_partition()
            m.update_many([1, 2], np.ones((2, k)))      # the page's playback and streams
            m.marginal_many([1, 2])
    lean_seconds(tree, np.ones((tree.n, 2)), np.ones((tree.n - 1, 2, 2)))   # bench online's yardstick
    _large_tree_files()


def _large_tree_files() -> None:
    """The compiled readers and writers of large Newick and JSON-lines files (they take over from
    the careful parsers from about 10^4 vertices: a 20,000-vertex tree written and read back)."""
    from engine.trees import generate
    from engine.trees.formats import format_tree_text, parse_tree_text

    tree = generate("random", 20_000, seed=0)
    for fmt in ("newick", "jsonl"):
        parse_tree_text(format_tree_text(tree, fmt), fmt)


def _runs() -> None:
    from engine.forests.run import ChowLiuConfig, OfdeConfig
    from engine.forests.run import run as forests_run
    from engine.hedge.run import HedgeConfig
    from engine.hedge.run import run as hedge_run
    from engine.htmm.run import BhtmmConfig
    from engine.htmm.run import run as htmm_run
    from engine.multilabel.run import RtaConfig
    from engine.multilabel.run import run as rta_run

    hedge_run(HedgeConfig(tree={"generate": "random", "n": 12, "seed": 0}, trials=30, snapshots=5), _quiet)
    for model in ("trees", "forests"):
        forests_run(OfdeConfig(n_vars=6, n_train=200, n_test=50, n_valid=50, model=model, eval_points=3), _quiet)
    forests_run(ChowLiuConfig(n_vars=6, n_train=200, n_test=50, n_valid=50, threshold=True), _quiet)
    rta_run(RtaConfig(data={"synthetic": {"n_examples": 40, "n_labels": 4, "n_features": 5, "seed": 0}},
                      n_trees=2, max_k=4, C=1.0, folds=2, max_passes=2, baseline=None), _quiet)
    for model in ("tf", "sp"):
        htmm_run(BhtmmConfig(model=model, states=2, iterations=2, synthetic_trees=6), _quiet)
    _rta_inference()


def _rta_inference() -> None:
    """The learner's margins and the single-example certified inference (not used by a run)."""
    import numpy as np

    from engine.multilabel.kbest import certified_inference
    from engine.multilabel.learner import RTAClassifier

    rng = np.random.default_rng(0)
    X = rng.random((30, 4))
    Y = (rng.random((30, 3)) < 0.5).astype(np.int64)
    clf = RTAClassifier(n_trees=2, max_k=4, max_passes=2, random_state=0).fit(X, Y)
    clf.decision_function(X[:3])
    certified_inference(clf.edge_scores(X[:1])[0], clf.trees_, 4)


def kernel_modules() -> list[str]:
    """The engine modules that define numba kernels (found by their source, not imported)."""
    import engine

    out = []
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
        spec = importlib.util.find_spec(info.name)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        with open(spec.origin, encoding="utf-8") as f:
            src = f.read()
        if "njit" in src and "numba" in src:
            out.append(info.name)
    return out


def uncompiled_kernels() -> list[str]:
    """Entry-point kernels (``module.name``) with no compiled version in this process. Kernels
    called only from other kernels (or inlined, ``inline="always"``) are compiled into their
    callers and are not listed."""
    import inspect
    import re

    from numba.core.registry import CPUDispatcher

    kernels = {}
    for name in kernel_modules():
        mod = sys.modules.get(name) or importlib.import_module(name)
        kernels.update({(name, attr): obj for attr, obj in vars(mod).items()
                        if isinstance(obj, CPUDispatcher) and obj.__module__ == name})
    # a kernel called from another kernel (of any module) is compiled into its caller: only entry
    # points count
    sources = {key: inspect.getsource(obj.py_func) for key, obj in kernels.items()}
    missing = []
    for (name, attr), obj in kernels.items():
        called = any(re.search(rf"\b{re.escape(attr)}\(", src) for other, src in sources.items()
                     if other != (name, attr))
        if called or obj.targetoptions.get("inline", "never") == "always":
            continue
        if not obj.signatures:
            missing.append(f"{name}.{attr}")
    return sorted(missing)


def compile_kernels(progress: Optional[Callable[[str], None]] = None) -> dict:
    """Compile (or load from the on-disk cache) every kernel; returns seconds per family."""
    say = progress or _quiet
    out = {}
    for label, step in (("trees, covers and inference", _trees_and_inference),
                        ("TREE-HEDGE, OFDE, Chow-Liu, RTA, BHTMM", _runs)):
        t0 = time.perf_counter()
        say(f"compiling {label}")
        step()
        out[label] = round(time.perf_counter() - t0, 2)
    return out


def compile_costs(progress: Optional[Callable[[str], None]] = None) -> dict[str, float]:
    """CPU seconds spent compiling the kernels of each module while :func:`compile_kernels` runs
    (what a kernel compiles of other modules' kernels counts with it); with a warm cache, the
    modules it loaded cost nothing and are left out."""
    from numba.core import event

    costs: dict[str, float] = {}
    state = {"depth": 0, "t0": 0.0, "module": ""}

    class _Timer(event.Listener):
        def on_start(self, ev):
            if state["depth"] == 0:
                state["t0"], state["module"] = time.process_time(), ev.data["dispatcher"].py_func.__module__
            state["depth"] += 1

        def on_end(self, ev):
            state["depth"] -= 1
            if state["depth"] == 0:
                m = state["module"]
                costs[m] = costs.get(m, 0.0) + time.process_time() - state["t0"]

    with event.install_listener("numba:compile", _Timer()):
        compile_kernels(progress)
    return costs


def _dispatchers(module) -> list:
    from numba.core.registry import CPUDispatcher

    return [obj for obj in vars(module).values()
            if isinstance(obj, CPUDispatcher) and obj.__module__ == module.__name__]


def _on_disk(dispatcher) -> bool:
    """Whether numba's on-disk cache holds a compiled version of ``dispatcher`` (its index file)."""
    index = getattr(getattr(getattr(dispatcher, "_cache", None), "_cache_file", None), "_index_path", None)
    return index is not None and os.path.exists(index)


def _indexed(name: str) -> bool:
    """Whether numba's on-disk cache holds an index file of a kernel of module ``name`` (without
    importing it): ``NUMBA_CACHE_DIR/<package>_<hash>/<module>.<kernel>-<line>.pyXY.nbi``, or the
    ``__pycache__`` beside the source when no cache folder is set."""
    package, _, base = name.rpartition(".")
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if folder:
        places = Path(folder).glob(f"{package.rpartition('.')[2]}_*")
    else:
        spec = importlib.util.find_spec(package)
        places = [Path(spec.origin).parent / "__pycache__"] if spec and spec.origin else []
    return any(next(p.glob(f"{base}.*.nbi"), None) is not None for p in places)


def cold_seconds() -> float:
    """About how many CPU seconds compiling will take this process: :data:`COMPILE_SECONDS` of each
    kernel module of the engine packages imported so far (a command imports a package before it
    reaches its kernels), in the share of its kernels the on-disk cache lacks."""
    total = 0.0
    for name, seconds in COMPILE_SECONDS.items():
        module = sys.modules.get(name)
        if module is None and name.rpartition(".")[0] not in sys.modules:
            continue
        if module is not None and (kernels := _dispatchers(module)):
            total += seconds * sum(not _on_disk(d) for d in kernels) / len(kernels)
        elif not _indexed(name):
            total += seconds
    return total


def _print_costs() -> None:
    costs = compile_costs(lambda m: print(m, file=sys.stderr, flush=True))
    print(f"CPU seconds compiling each kernel module from an empty cache (NUMBA_CACHE_DIR="
          f"{os.environ.get('NUMBA_CACHE_DIR', '')}); load average {os.getloadavg()[0]:.1f}")
    print("| module | CPU s |\n|---|---:|")
    for name, sec in sorted(costs.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {sec:.1f} |")
    print(f"| total | {sum(costs.values()):.1f} |")


if __name__ == "__main__":
    if sys.argv[1:] == ["--costs"]:
        _print_costs()
        raise SystemExit(0)
    t0 = time.perf_counter()
    times = compile_kernels(lambda m: print(m, flush=True))
    left = uncompiled_kernels()
    print(f"kernels ready in {time.perf_counter() - t0:.1f} s {times}"
          + (f"; not compiled: {', '.join(left)}" if left else ""))
