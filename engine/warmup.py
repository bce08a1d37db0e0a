"""Compile the engine's numba kernels before anyone waits for them: stage by stage, in parallel.

Each kernel is compiled on its first call, for the argument types of that call, and written to
numba's on-disk cache (``NUMBA_CACHE_DIR``); a later process loads it in milliseconds instead of
compiling it again. A fresh install compiles for about two minutes of CPU, most of it the online
model's walks ("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale), so the
work is cut into :data:`STAGES`, each a small problem run through one family exactly as the app
calls it (no argument type that nothing uses), and each stage says which stages it builds on (a
stage's kernels call theirs: compiled first, they are loaded from the cache instead of compiled
twice). :func:`compile_stages` runs the stages in as many processes as there are cores, each
stage as soon as the stages it builds on are done.

When a stage runs says who waits for it:

- ``SERVE``: what a class opens first (trees, covers, belief propagation, the lessons): the app's
  server compiles these before it opens its port;
- ``SOON``: the online model's walks (about 40 CPU s): the server
  compiles them in other processes first thing once it serves; meanwhile the model runs the same
  walks as plain Python (a stage's ``stand_in``: :func:`stand_ins`, ``engine.jit.defer``), and
  switches to the compiled ones once they are in the cache;
- ``BEHIND``: the learning runs (TREE-HEDGE, OFDE, Chow-Liu, RTA, BHTMM) and the compiled readers
  of large tree files: the server's run workers compile them once it serves;
- ``LIBRARY``: called by the benchmarks and the library's own API only, never by the app.

A small stamp in the cache (:func:`stamp_path`) records the kernel sources the cache was built
from and how long each stage took: a later start whose sources are the same only loads the
kernels (:func:`is_warm`), and the log's estimates of what is left use the times measured here.
An estimate is honest: the first one is scaled by the machine's load (:func:`busy_factor`), and what
is shown of it counts down and never rises (:class:`Countdown`); once it has run out, the log says
how long so far and the load instead of a number.

Every process started here stops cleanly (:func:`start_processes`, :func:`stop_processes`): a
Ctrl-C, which a terminal sends to its whole foreground group, is left to the process that started
them (its children print no traceback), which ends them at once; a compile stopped keeps the
stages done so far.
:func:`uncompiled_kernels` lists the kernels still without a compiled version, so a test can
check that the stages reach all of them.

``python -m engine.warmup [--all] [--workers N]`` compiles every stage the app uses (``--all``:
the library's too); the container build and ``make test`` run it.

A command of ``python -m engine`` that meets a kernel missing from the cache says so before it
compiles, with a range (:func:`cold_range`, from :data:`COMPILE_SECONDS` and the machine's load);
``python -m engine.warmup --costs`` measures those costs again (run it with an empty
``NUMBA_CACHE_DIR``: a cached kernel costs nothing).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import pkgutil
import re
import signal
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

__all__ = ["Stage", "STAGES", "SERVE", "SOON", "BEHIND", "LIBRARY", "stage_names", "compile_stages", "load_stages",
           "compile_kernels", "uncompiled_kernels", "kernel_modules", "cache_dir", "stamp_path", "is_warm",
           "estimate_seconds", "expected_seconds", "speed", "core_count", "label", "remember", "remembered", "run_stage",
           "compile_costs", "cold_seconds", "cold_range", "COMPILE_SECONDS", "Countdown", "machine_load", "busy_factor",
           "busy_text", "start_processes", "stop_processes", "signals_held", "child_signals"]

SERVE, SOON, BEHIND, LIBRARY = "serve", "soon", "behind", "library"


def _quiet(*_args) -> None:
    pass


#: CPU seconds that compiling each kernel module's kernels took from an empty cache, as
#: :func:`compile_kernels` exercises them (``python -m engine.warmup --costs`` on a 2-core machine;
#: the table and its date are in docs/benchmarks.md, "Compiling the kernels"). A kernel that calls
#: into another module is counted with its caller.
COMPILE_SECONDS = {
    "engine.inference._online_kernels": 140.0,
    "engine.multilabel._kernels": 30.0,
    "engine.forests._kernels": 15.0,
    "engine.trees.formats._kernels": 11.0,
    "engine.inference._bp_kernels": 10.0,
    "engine.cover._kernels": 5.0,
    "engine.trees._kernels": 4.0,
    "engine.trees._lod_kernels": 22.0,   # the tree views' stage, measured alone (docs/benchmarks.md, "Tree views")
}


# ------------------------------------------------------------------ the exercises, one per stage
def _tree(n: int = 40):
    from engine.trees import generate

    return generate("random", n, seed=0)


def _trees() -> None:
    """The generators of the Tree Studio and the tidy layout of every tree figure."""
    from engine.trees import GENERATORS, generate
    from engine.trees.layout import tidy_layout

    for kind in GENERATORS:
        generate(kind, 40, seed=0)
    tidy_layout(_tree())


def _tree_views() -> None:
    """The level of detail of every tree view: both layouts, a view, its colours and paths."""
    import numpy as np

    from engine.trees.lod import TreeDrawing

    tree = _tree(400)
    for layout in ("tidy", "radial"):
        d = TreeDrawing(tree, layout)
        marks = d.marks(d.overview(300, 200), 300, 200, marker=10.0)   # dense: every kind of mark
        d.stats(d.in_preorder(np.linspace(0.0, 1.0, tree.n)), marks)
        d.root_path(tree.n - 1, marks)
        d.to_px([0], marks)
        if len(marks.first):
            d.opening(marks, 0)


def _covers() -> None:
    """The two hierarchical covers and their decomposition trees (Cover Inspector, online model)."""
    from engine.cover import optimal_cover, rake_only_cover

    tree = _tree()
    for cover in (optimal_cover(tree), rake_only_cover(tree)):
        cover.to_tree()
        cover.trace(0)


def _belief_propagation() -> None:
    """Belief propagation, max-product and flooding for two and three labels."""
    import numpy as np

    from engine.inference import belief_propagation, flooding, max_product
    from engine.inference.potentials import potts_interaction

    tree = _tree()
    for k in (2, 3):
        M = potts_interaction(k, 1.0)
        belief_propagation(tree, None, M, k=k)
        # node potentials whose entries differ by more than 2^480: the exact (wide) pass
        belief_propagation(tree, np.tile([1.0] + [1e-200] * (k - 1), (tree.n, 1)), M, k=k)
        max_product(tree, np.zeros((tree.n, k)), np.log(M))
        flooding(tree, None, M, k=k)


def _online_entry(name: str) -> None:
    """One hot entry point of the online model, compiled for the types its verb passes (its walks,
    k = 2 and general, compiled into it): the update and the marginal compile side by side."""
    import engine.inference._online_kernels as K
    from engine.inference.online import entry_signatures

    getattr(K, name).compile(entry_signatures()[name])


def _online_update() -> None:
    """The update walks (evidence at a vertex, an edge potential changed)."""
    _online_entry("update_entry")


def _online_marginal() -> None:
    """The marginal walks."""
    _online_entry("marginal_entry")


def _online() -> None:
    """The online model's layout and first fill (every online session opens with it) and
    every verb of the model (its playback and streams too), for both covers and two or three
    labels; the walks come from the two stages above."""
    import numpy as np

    from engine.inference.online import OnlineModel
    from engine.inference.potentials import potts_interaction

    tree = _tree()
    for k in (2, 3):
        M = potts_interaction(k, 1.0)
        for cover in ("optimal", "rake-only"):
            m = OnlineModel(tree, k, M, None, cover=cover)
            m.update(3, np.eye(k)[0])
            m.marginal(5)
            m.set_edge_potential(int(tree.parent[7]), 7, M)
            m.log_partition()
            m.update_many([1, 2], np.ones((2, k)))
            m.marginal_many([1, 2])


def _tree_files() -> None:
    """The compiled readers and writers of large Newick and JSON-lines files (they take over from
    the careful parsers from about 10^4 vertices: a 20,000-vertex tree written and read back)."""
    from engine.trees.formats import format_tree_text, parse_tree_text

    tree = _tree(20_000)
    for fmt in ("newick", "jsonl"):
        parse_tree_text(format_tree_text(tree, fmt), fmt)


def _hedge() -> None:
    from engine.hedge.run import HedgeConfig, run

    run(HedgeConfig(tree={"generate": "random", "n": 12, "seed": 0}, trials=30, snapshots=5), _quiet)


def _forests() -> None:
    from engine.forests.run import ChowLiuConfig, OfdeConfig, run

    for model in ("trees", "forests"):
        run(OfdeConfig(n_vars=6, n_train=200, n_test=50, n_valid=50, model=model, eval_points=3), _quiet)
    run(ChowLiuConfig(n_vars=6, n_train=200, n_test=50, n_valid=50, threshold=True), _quiet)


def _rta() -> None:
    from engine.multilabel.run import RtaConfig, run

    run(RtaConfig(data={"synthetic": {"n_examples": 40, "n_labels": 4, "n_features": 5, "seed": 0}},
                  n_trees=2, max_k=4, C=1.0, folds=2, max_passes=2, baseline=None), _quiet)


def _bhtmm() -> None:
    from engine.htmm.run import BhtmmConfig, run

    for model in ("tf", "sp"):
        run(BhtmmConfig(model=model, states=2, iterations=2, synthetic_trees=6), _quiet)


def _bench_online() -> None:
    """``bench online``'s yardstick (the lean sweep)."""
    import numpy as np

    from engine.bench.online import lean_seconds

    tree = _tree()
    lean_seconds(tree, np.ones((tree.n, 2)), np.ones((tree.n - 1, 2, 2)))


def _rta_api() -> None:
    """The RTA learner's margins and the single-example certified inference (library API)."""
    import numpy as np

    from engine.multilabel.kbest import certified_inference
    from engine.multilabel.learner import RTAClassifier

    rng = np.random.default_rng(0)
    X = rng.random((30, 4))
    Y = (rng.random((30, 3)) < 0.5).astype(np.int64)
    clf = RTAClassifier(n_trees=2, max_k=4, max_passes=2, random_state=0).fit(X, Y)
    clf.decision_function(X[:3])
    certified_inference(clf.edge_scores(X[:1])[0], clf.trees_, 4)


@dataclass(frozen=True)
class Stage:
    """A part of the compilation: ``exercise()`` calls its kernels as the app does. ``cost``: CPU
    seconds it took from an empty cache on the 2-core test machine (the first estimate of a
    machine that has no times of its own; docs/benchmarks.md, "The first minute"). ``stand_in``:
    the kernel modules not called while this stage compiles elsewhere (``engine.jit.defer``): their
    callers take a slower path meanwhile (the plain-Python build of the same kernels, or the careful
    readers of tree files), so that nobody waits for the compile. ``runs``: the learning algorithms (a run
    config's ``algorithm``) whose kernels it compiles: a run launched while the stages compile
    waits for these only, and they go first (:func:`run_stages`)."""

    name: str
    label: str
    when: str
    cost: float
    after: tuple[str, ...]
    exercise: Callable[[], None]
    stand_in: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()


#: the online model's kernels: their plain-Python build stands in while they compile
_ONLINE = ("engine.inference._online_kernels",)

#: Every stage, in the order a single process would run them.
STAGES: tuple[Stage, ...] = (
    Stage("online-update", "online update walks", SOON, 45.0, (), _online_update, _ONLINE),
    Stage("online-marginal", "online marginal walks", SOON, 35.0, (), _online_marginal, _ONLINE),
    Stage("trees", "tree generators and layout", SERVE, 4.0, (), _trees),
    Stage("tree-views", "tree views (level of detail)", SERVE, 22.0, ("trees",), _tree_views),
    Stage("covers", "hierarchical covers", SERVE, 4.0, ("trees",), _covers),
    Stage("bp", "belief propagation", SERVE, 9.0, ("trees",), _belief_propagation),
    Stage("online", "online model and verbs", SOON, 15.0, ("covers", "online-update", "online-marginal"), _online,
          _ONLINE),
    Stage("tree-files", "large tree files", BEHIND, 8.0, ("trees",), _tree_files,
          ("engine.trees.formats._kernels",)),
    Stage("hedge", "TREE-HEDGE", BEHIND, 6.0, ("online",), _hedge, runs=("hedge",)),
    Stage("forests", "OFDE and Chow-Liu", BEHIND, 10.0, ("trees",), _forests, runs=("ofde", "chowliu")),
    Stage("rta", "RTA", BEHIND, 20.0, ("trees",), _rta, runs=("rta",)),
    Stage("bhtmm", "BHTMM", BEHIND, 1.0, ("trees",), _bhtmm, runs=("bhtmm",)),
    Stage("bench", "bench online's yardstick", LIBRARY, 1.0, ("online",), _bench_online),
    Stage("rta-api", "the RTA learner's API", LIBRARY, 3.0, ("rta",), _rta_api),
)
_BY_NAME = {s.name: s for s in STAGES}


def label(name: str) -> str:
    """What the log calls stage ``name``."""
    return _BY_NAME[name].label


def stand_ins(names: Iterable[str]) -> list[str]:
    """The kernel modules a slower path stands in for while the stages ``names`` compile elsewhere
    (``engine.jit.defer`` them until the stages are in the cache)."""
    return sorted({m for n in _ordered(names) for m in _BY_NAME[n].stand_in})


def run_stages(algorithm: str | None, names: Iterable[str]) -> list[str]:
    """Which of the stages ``names`` a run of ``algorithm`` needs before it starts: the stages that
    name it in their ``runs`` and the stages they build on; every one of ``names`` for an algorithm
    no stage names (a paper's protocol runs several families; a family added at run time).

    >>> run_stages("rta", stage_names(BEHIND)), run_stages("reproduce", ["rta", "bhtmm"])
    (['rta'], ['rta', 'bhtmm'])
    """
    names = _ordered(names)
    need = {n for n in names if algorithm in _BY_NAME[n].runs}
    if not need:
        return names
    for n in reversed(names):   # STAGES lists every stage after the stages it builds on
        if n in need:
            need.update(a for a in _BY_NAME[n].after if a in names)
    return [n for n in names if n in need]


def stage_names(*whens: str) -> list[str]:
    """The names of the stages run at ``whens`` (``SERVE``, ``SOON``, ``BEHIND``, ``LIBRARY``), in order."""
    return [s.name for s in STAGES if s.when in whens]


# ------------------------------------------------------------------ the cache and its stamp
def cache_dir() -> Path:
    """numba's cache directory (``NUMBA_CACHE_DIR``; numba's default, ``__pycache__`` beside each
    module, when it is not set)."""
    raw = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    return Path(raw) if raw else Path(__file__).resolve().parent / "__pycache__"


def stamp_path() -> Path:
    return cache_dir() / "warmup-stamp.json"


def _sources() -> dict:
    """What the compiled kernels depend on: every kernel module's size and time, numba's version."""
    import numba

    out = {"numba": numba.__version__, "python": sys.version.split()[0]}
    for name in kernel_modules():
        path = Path(importlib.util.find_spec(name).origin)
        st = path.stat()
        out[name] = [st.st_size, st.st_mtime_ns]
    return out


def _read_stamp() -> dict:
    try:
        data = json.loads(stamp_path().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def is_warm(names: Iterable[str]) -> bool:
    """Whether the cache holds the stages ``names`` compiled from the current sources."""
    stamp = _read_stamp()
    return stamp.get("sources") == _sources() and set(names) <= set(stamp.get("compiled", []))


def _write_stamp(names: Iterable[str], seconds: dict) -> None:
    stamp = _read_stamp()
    sources = _sources()
    same = stamp.get("sources") == sources
    compiled = set(stamp.get("compiled", [])) if same else set()
    times = dict(stamp.get("seconds", {})) if same else {}
    compiled |= set(names)
    times.update(seconds)
    path = stamp_path()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"sources": sources, "compiled": sorted(compiled), "seconds": times}),
                       encoding="utf-8")
        os.replace(tmp, path)
    except OSError:   # a read-only cache still serves; the next start compiles again
        pass
    except BaseException:   # stopped while writing: the stamp as it was, no half-written file left
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def remember(step: str, seconds: float) -> None:
    """Keep the time a step of a start took on this machine (the next start's estimate)."""
    _write_stamp((), {step: round(float(seconds), 2)})


def remembered(step: str, default: float) -> float:
    """The time ``step`` took here last time (:func:`remember`), else ``default``."""
    try:
        return float(_read_stamp().get("seconds", {}).get(step, default))
    except (TypeError, ValueError):
        return default


def expected_seconds(name: str) -> float:
    """What stage ``name`` took here last time it compiled, else its declared cost."""
    return remembered(name, _BY_NAME[name].cost)


def estimate_seconds(names: Iterable[str], workers: int = 1, speed: float = 1.0) -> float:
    """Wall seconds the stages ``names`` will take to compile on this machine: the times measured
    here last time (or the declared costs) times ``speed`` (how much slower than expected the
    stages done so far were: see :func:`speed`), spread over ``workers`` processes, never less
    than the longest chain of stages that must run one after another."""
    measured = _read_stamp().get("seconds", {})
    names = list(names)
    cost = {n: float(measured.get(n, _BY_NAME[n].cost)) * speed for n in names}
    chain: dict[str, float] = {}
    for n in _ordered(names):   # STAGES lists every stage after the stages it builds on
        chain[n] = cost[n] + max((chain[a] for a in _BY_NAME[n].after if a in chain), default=0.0)
    return max(sum(cost.values()) / max(workers, 1), max(chain.values(), default=0.0))


def speed(done: dict) -> float:
    """Seconds the stages ``done`` ({name: seconds}) took over the seconds expected for them
    (between 1/50 and 10): a loaded machine runs slower, a warm cache much faster."""
    expected = sum(expected_seconds(n) for n in done)
    if not done or expected <= 0:
        return 1.0
    return min(10.0, max(0.02, sum(done.values()) / expected))


def core_count() -> int:
    """CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


# ------------------------------------------------------------------ honest estimates
def machine_load() -> tuple[float, int]:
    """The machine's load average over the last minute (processes running or wanting a core; 0.0
    where the system keeps none) and the cores this process may use."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    return load, core_count()


def busy_factor(workers: int = 1, load: tuple[float, int] | None = None) -> float:
    """How many times longer than on an idle machine work in ``workers`` processes takes now: the
    processes that want a core (the load average, and these) over the cores, at least 1.

    >>> busy_factor(2, load=(0.0, 2)), busy_factor(2, load=(3.0, 2))
    (1.0, 2.5)
    """
    avg, cores = machine_load() if load is None else load
    return max(1.0, (avg + max(workers, 0)) / max(cores, 1))


def busy_text(load: tuple[float, int] | None = None) -> str:
    """The machine's load as a log line or the app says it: "the machine is busy: load 3.2 on 2
    cores" when more processes want a core than there are cores, else "load 0.4 on 2 cores"."""
    avg, cores = machine_load() if load is None else load
    said = f"load {avg:.1f} on {cores} core{'s' if cores != 1 else ''}"
    return f"the machine is busy: {said}" if avg > cores else said


class Countdown:
    """The time left of some work, as a log line or the app says it: never more than it said before.

    It starts from a first estimate (seconds); :meth:`update` takes a newer one (from the speed
    measured so far) and keeps it only when it ends sooner than the one kept, so :meth:`left`
    counts down with the clock and never rises. Once it has run out while the work goes on,
    :meth:`text` says how long the work has taken so far and the machine's load instead of a number
    (a busy machine compiles slower than any estimate made before it got busy).

    >>> now = [0.0]
    >>> c = Countdown(30, clock=lambda: now[0])
    >>> c.update(50); c.left()      # a slower estimate does not raise what was said
    30.0
    >>> now[0] = 10.0; c.update(5); c.left()
    5.0
    >>> now[0] = 40.0; c.overdue
    True
    """

    def __init__(self, seconds: float, *, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.started = clock()
        self.first = max(0.0, float(seconds))
        self._ends = self.started + self.first

    def update(self, seconds: float) -> None:
        """A new estimate: ``seconds`` from now (kept only if it ends sooner)."""
        self._ends = min(self._ends, self.clock() + max(0.0, float(seconds)))

    def left(self) -> float:
        """Seconds left: never more than at any earlier call."""
        return max(0.0, self._ends - self.clock())

    def elapsed(self) -> float:
        return self.clock() - self.started

    @property
    def overdue(self) -> bool:
        """Whether the estimate has run out (under a second left) while the work goes on."""
        return self.left() < 1.0

    def text(self, load: tuple[float, int] | None = None) -> str:
        """"about N s left" (with the load when the machine is busy), or once the estimate has run
        out "N s so far, longer than expected; <the load>"."""
        left, busy = self.left(), busy_text(load)
        if left >= 1.0:
            return f"about {left:.0f} s left" + (f" ({busy})" if busy.startswith("the machine is busy") else "")
        return f"{self.elapsed():.0f} s so far, longer than expected; {busy}"


# ------------------------------------------------------------------ processes that stop cleanly
@contextlib.contextmanager
def signals_held():
    """While processes are started from this thread: SIGINT (a Ctrl-C, which a terminal sends to
    every process of its foreground group, ours and our children) held back in it (blocked, not
    lost). A process started now begins with it held too, and drops it once it has said it leaves
    a Ctrl-C to its parent (:func:`child_signals`): a Ctrl-C in its first second, while it imports,
    is not a traceback. SIGTERM is not held: until a process says otherwise it ends it at once,
    quietly (no Python handler runs)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker

    # multiprocessing's resource tracker, started with the first process, lets SIGINT through in
    # the thread that starts it: started first, it does so before SIGINT is held
    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def child_signals(on_term=signal.SIG_DFL, *, ignore_term: bool = False) -> None:
    """In a process this one started (under :func:`signals_held`): a Ctrl-C is left to the parent,
    which stops its children in order (a Ctrl-C held meanwhile is dropped); SIGTERM ends this
    process (``on_term``: its own handler; or ignored: the parent ends it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN if ignore_term else on_term)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _child_start(initializer, initargs) -> None:
    child_signals()
    if initializer is not None:
        initializer(*initargs)


def start_processes(n: int, *, initializer: Callable | None = None, initargs: tuple = ()) -> ProcessPoolExecutor:
    """A pool of ``n`` spawned processes, every one started now (the executor would start them one
    per submit, later), each leaving a Ctrl-C to this process and ended by SIGTERM
    (:func:`child_signals`; ``initializer`` may set its own), then running ``initializer``.
    :func:`stop_processes` ends them."""
    # here, not at the top: ``python -m engine --help`` imports this module, not multiprocessing
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    with signals_held():
        executor = ProcessPoolExecutor(n, mp_context=mp.get_context("spawn"), initializer=_child_start,
                                       initargs=(initializer, initargs))
        for _ in range(n):
            executor.submit(os.getpid)
    return executor


def stop_processes(executor: Executor, grace: float = 0.0) -> list:
    """End the processes of ``executor`` (a :class:`ProcessPoolExecutor`) now: the work queued is
    dropped, each process is sent SIGTERM, killed if still there after ``grace`` seconds, and waited
    for (none is left behind, none left a zombie). Returns the processes. Other executors are shut
    down without waiting."""
    procs = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.terminate()
    end = time.monotonic() + grace
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.join(max(0.0, end - time.monotonic()))
    for proc in procs:
        with contextlib.suppress(Exception):
            if proc.exitcode is None:
                proc.kill()
                proc.join(5.0)
    return procs


# ------------------------------------------------------------------ running stages
def _compile_process_init() -> None:
    """A compile process: numba's cache made safe to share, numba imported once."""
    from engine.jitcache import guard_cache

    guard_cache()
    import numba  # noqa: F401


def run_stage(name: str) -> tuple[str, float]:
    """Run one stage's exercise in this process; (name, wall seconds)."""
    from engine.jitcache import guard_cache

    guard_cache()
    t0 = time.perf_counter()
    _BY_NAME[name].exercise()
    return name, round(time.perf_counter() - t0, 2)


def _ordered(names: Iterable[str]) -> list[str]:
    wanted = set(names)
    unknown = wanted - set(_BY_NAME)
    if unknown:
        raise ValueError(f"unknown warm-up stage {sorted(unknown)[0]!r}; the stages are {', '.join(_BY_NAME)}")
    return [s.name for s in STAGES if s.name in wanted]


def compile_stages(names: Iterable[str] | None = None, *, workers: int | None = None,
                   executor: Executor | None = None,
                   on_done: Callable[[str, float, list[str]], None] | None = None,
                   on_start: Callable[[str], None] | None = None,
                   first: Callable[[], Iterable[str]] | None = None) -> dict[str, float]:
    """Compile the stages ``names`` (default: every stage the app uses) into the on-disk cache,
    in ``workers`` processes (default: one per core), or in ``executor``'s processes (``workers``
    of them). A stage starts once the stages it builds on (among ``names``) are done; at most
    ``workers`` stages run at a time, and a free process takes the first ready stage in the order
    of :data:`STAGES` (so the ``SOON`` stages go before the ``BEHIND`` ones whenever they can).
    ``first()``, asked each time a process is free, names stages someone waits for now (a run):
    those go before the others once ready. ``on_start(name)`` is called as a stage is handed to a
    process, ``on_done(name, seconds, left)`` as it ends, ``left`` naming the stages still to run.
    Returns wall seconds per stage. The kernels are compiled in the other processes:
    this one has loaded none of them (:func:`load_stages` does). Stopped (an exception here, such as
    a Ctrl-C), its own processes are ended at once, not waited for; the stages done so far stay
    recorded as compiled.
    """
    todo = _ordered(stage_names(SERVE, SOON, BEHIND) if names is None else names)
    slots = max(1, min(workers or core_count(), len(todo)))
    own = None
    if executor is None:
        own = executor = start_processes(slots, initializer=_compile_process_init)
    times: dict[str, float] = {}
    running: dict = {}
    try:
        while todo or running:
            ready = [n for n in todo if all(a in times or a not in todo + list(running.values())
                                            for a in _BY_NAME[n].after)]
            if first is not None and len(running) < slots:
                wanted = set(first())
                ready.sort(key=lambda n: n not in wanted)   # stable: in the order of STAGES otherwise
            for name in ready[: slots - len(running)]:
                todo.remove(name)
                running[executor.submit(run_stage, name)] = name
                if on_start is not None:
                    on_start(name)
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for fut in done:
                running.pop(fut)
                name, seconds = fut.result()
                times[name] = seconds
                if on_done is not None:
                    on_done(name, seconds, todo + list(running.values()))
    except BaseException:
        # stopped (Ctrl-C, SIGTERM, a compile process gone): the stages running are not waited for
        if own is not None:
            stop_processes(own)
            own = None
        raise
    finally:
        if own is not None:
            own.shutdown(wait=True)
        if times:   # the stages done are in the cache: a later start does not compile them again
            _write_stamp(times, times)
    return times


def load_stages(names: Iterable[str]) -> float:
    """Run the stages ``names`` in this process (loading their kernels from the cache, compiling
    what is missing); wall seconds."""
    from engine.jitcache import guard_cache

    guard_cache()
    t0 = time.perf_counter()
    for name in _ordered(names):
        _BY_NAME[name].exercise()
    return round(time.perf_counter() - t0, 2)


def compile_kernels(progress: Callable[[str], None] | None = None, *, library: bool = True,
                    workers: int | None = None) -> dict:
    """Compile (or load from the on-disk cache) every kernel, the library's too unless
    ``library=False``, in parallel processes; then load them all in this process. Seconds per stage."""
    say = progress or _quiet
    names = stage_names(SERVE, SOON, BEHIND, *([LIBRARY] if library else []))
    times: dict = {}
    if not is_warm(names):
        times = compile_stages(names, workers=workers,
                               on_done=lambda n, s, left: say(f"compiled {_BY_NAME[n].label} in {s:.1f} s"))
    times["load"] = load_stages(names)
    return times


# ------------------------------------------------------------------ checks
#: this module's import name, also when it runs as ``python -m engine.warmup``
_SELF = __spec__.name if __spec__ is not None else __name__


#: a line that decorates a kernel (engine.jit's three decorators)
_DECORATED = re.compile(r"^@(inline_|threaded_)?kernel\b", re.M)


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
        # every kernel is decorated by engine.jit's decorators (a module that only asks engine.jit
        # which build to call defines none). Its own name from its spec: under `python -m
        # engine.warmup` __name__ is "__main__", and the stamp it wrote listed this module, so a
        # server's stamp (the module imported) never matched and reset the list
        if _DECORATED.search(src) and info.name != _SELF:
            out.append(info.name)
    return out


def uncompiled_kernels() -> list[str]:
    """Entry-point kernels (``module.name``) with no compiled version in this process. Kernels
    called only from other kernels (or inlined, ``inline="always"``) are compiled into their
    callers and are not listed."""
    import inspect

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


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m engine.warmup", description=__doc__.split("\n")[0])
    ap.add_argument("--all", action="store_true", help="the library's kernels too (benchmarks, learner API)")
    ap.add_argument("--workers", type=int, default=None, help="compile processes (default: one per core)")
    ap.add_argument("--costs", action="store_true",
                    help="measure each kernel module's compile seconds in this process (with an empty cache)")
    args = ap.parse_args(argv)
    if args.costs:
        _print_costs()
        return 0
    names = stage_names(SERVE, SOON, BEHIND, *([LIBRARY] if args.all else []))
    t0 = time.perf_counter()
    if is_warm(names):
        print(f"warm-up: kernels in the cache ({cache_dir()}) are up to date", flush=True)
        return 0
    workers = min(args.workers or core_count(), len(names))
    # the first estimate for this machine's load now; later ones from the speed measured, never higher
    clock = Countdown(estimate_seconds(names, workers) * busy_factor(workers))
    print(f"warm-up: compiling {len(names)} stages in {workers} processes into {cache_dir()} "
          f"({clock.text()})", flush=True)

    times: dict = {}

    def done(name, seconds, left):
        times[name] = seconds
        clock.update(estimate_seconds(left, workers, speed(times)))
        print(f"warm-up: {_BY_NAME[name].label}: {seconds:.1f} s" + (f"; {clock.text()}" if left else ""),
              flush=True)

    signal.signal(signal.SIGTERM, _interrupt)   # as a Ctrl-C: the compile processes ended, one line
    try:
        compile_stages(names, workers=workers, on_done=done)
    except KeyboardInterrupt:   # Ctrl-C: the compile processes are ended; what is done stays cached
        print(f"stopped after {time.perf_counter() - t0:.1f} s: {len(times)} of {len(names)} stages compiled "
              "(kept in the cache)", file=sys.stderr, flush=True)
        return 130
    print(f"warm-up: kernels ready in {time.perf_counter() - t0:.1f} s", flush=True)
    return 0


def compile_costs(progress: Callable[[str], None] | None = None) -> dict[str, float]:
    """CPU seconds spent compiling the kernels of each module while every stage runs in this
    process (what a kernel compiles of other modules' kernels counts with it); with a warm cache,
    the modules it loaded cost nothing and are left out."""
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
        for name in _ordered(stage_names(SERVE, SOON, BEHIND, LIBRARY)):
            (progress or _quiet)(f"compiling {_BY_NAME[name].label}")
            _BY_NAME[name].exercise()
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


def cold_range(module: str) -> tuple[float, float, set[str]]:
    """Seconds a command that has begun compiling a kernel of ``module`` (a kernel module's name)
    will spend compiling the kernels it has imported, on this machine at its load now: at least that
    kernel (its module's share of :data:`COMPILE_SECONDS`), at most every kernel the on-disk cache
    lacks in the kernel modules imported so far (it may call some of them only). Also the kernel
    modules counted: a module imported later is not in the range.

    >>> low, high, counted = cold_range("engine.trees._kernels"); 0 < low <= high
    True
    """
    factor = busy_factor(1)
    missing: dict[str, float] = {}
    for name, seconds in COMPILE_SECONDS.items():
        mod = sys.modules.get(name)
        if mod is not None and (kernels := _dispatchers(mod)):
            missing[name] = seconds * sum(not _on_disk(d) for d in kernels) / len(kernels)
    mod = sys.modules.get(module)
    one = COMPILE_SECONDS.get(module, 0.0) / max(len(_dispatchers(mod)) if mod is not None else 1, 1)
    return one * factor, max(one, sum(missing.values())) * factor, set(missing) | {module}


def _print_costs() -> None:
    costs = compile_costs(lambda m: print(m, file=sys.stderr, flush=True))
    print(f"CPU seconds compiling each kernel module from an empty cache (NUMBA_CACHE_DIR="
          f"{os.environ.get('NUMBA_CACHE_DIR', '')}); load average {os.getloadavg()[0]:.1f}")
    print("| module | CPU s |\n|---|---:|")
    for name, sec in sorted(costs.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {sec:.1f} |")
    print(f"| total | {sum(costs.values()):.1f} |")


if __name__ == "__main__":
    sys.exit(main())
