"""A TREE-HEDGE run ("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, section 5) under the run protocol
of ``engine.runs.protocol``.

One run plays an environment against three learners side by side -- TREE-HEDGE, Hedge per task
and one shared Hedge -- and evaluates the Theorem 9 bound at its best comparator along the way.
The same config runs from the app, from ``python -m engine run CONFIG.json`` and (as flags) from
``python -m engine hedge``; the metrics carry the keys of the CLI's JSON.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from engine.hedge.baselines import IndependentHedge, SharedHedge
from engine.hedge.bound import BoundOracle
from engine.hedge.environments import (ENVIRONMENTS, HIGH, LOW, TRIALS, LossStream, check_stream_size,
                                       make_environment, read_loss_file)
from engine.hedge.learner import BACKENDS, DEFAULT_BACKEND, TreeHedge
from engine.hedge.potentials import COUPLING, ETA, favourite_actions
from engine.params import Param, declared
from engine.runs.protocol import ProgressCallback, RunConfig, RunResult, need, no_progress
from engine.trees import Tree
from engine.trees.layout import preorder
from engine.trees.spec import check_tree_spec, tree_from_spec

__all__ = ["HedgeConfig", "Playback", "LEARNERS", "run", "play", "play_config"]

#: The learners of a run, in the order of their columns in :attr:`Playback.losses`.
LEARNERS = ("tree_hedge", "independent_hedge", "shared_hedge")


@dataclass(frozen=True)
class HedgeConfig(RunConfig):
    """Settings of a TREE-HEDGE run.

    tree : a tree file path, a generator spec ``{"generate": "random", "n": 31, "seed": 0}`` or
        ``{"edges": [[NAME, NAME], ...], "root": NAME}``.
    states : k, the number of actions.  trials : T.  eta : the learning rate (all three learners).
    coupling : the Potts coupling P of every edge (1/k: no relation; 1: equal actions forced).
    environment : ``piecewise``, ``iid``, ``switching``, or ``file`` (then ``loss_file`` is read).
    switches : edges across which the best action changes (piecewise, switching).
    low, high : mean loss of the best action and of the others (Bernoulli losses).
    backend : how TREE-HEDGE computes marginals (``online``, ``bp``, ``brute``).
    snapshots : how many times along the run the per-task state is recorded (for a plot of the run).
    """

    algorithm: ClassVar[str] = "hedge"
    limited: ClassVar[dict[str, str]] = {"states": "states", "trials": "trials", "switches": "vertices",
                                         "snapshots": "eval_points"}

    tree: Any = field(default_factory=lambda: {"generate": "random", "n": 31, "seed": 0})
    states: int = Param(int, 3, "the number of actions", lo=2).field()
    trials: int = TRIALS.field()
    eta: float = ETA.field()
    coupling: float = COUPLING.field()
    environment: str = Param(str, "piecewise", "the environment", choices=ENVIRONMENTS + ("file",)).field()
    switches: int = Param(int, 3, "edges where the best action changes", lo=0).field()
    low: float = LOW.field()
    high: float = HIGH.field()
    loss_file: str | None = Param(str, None, "the loss file of the file environment", none=True).field()
    backend: str = Param(str, DEFAULT_BACKEND, "how TREE-HEDGE computes marginals", choices=BACKENDS).field()
    snapshots: int = Param(int, 60, "how many times the per-task state is recorded", lo=2).field()
    seed: int = 0

    def validate(self) -> None:
        super().validate()   # the declared ranges, the seed and the limits
        check_stream_size(self.trials, self.states)   # the losses table, before anything is recorded
        check_tree_spec(self.tree)
        need(self.environment != "file" or bool(self.loss_file),
             "the file environment needs a loss file (loss_file / --losses)")
        need(self.environment == "file" or self.low < self.high,
             f"the best action's mean loss low={self.low!r} must be below the others' high={self.high!r}")


@dataclass(frozen=True)
class Playback:
    """Everything a run recorded.

    tree : Tree;  stream : LossStream (T trials, k actions)
    predictions : ndarray (T, k), TREE-HEDGE's allocation on each trial
    losses : ndarray (T, 3), each learner's mix loss on each trial (columns as :data:`LEARNERS`)
    curve_t : ndarray (C,), trial counts at which the bound was evaluated (last = T)
    curve_bound, curve_comparator : ndarray (C,), the bound and L(mu*) on the first curve_t trials
    snap_t : ndarray (S,), trial counts of the snapshots (first 0, last T)
    favourite : ndarray (S, 3, n), each learner's favourite action at each task (-1: tied)
    task_loss : ndarray (S, 3, n), each learner's cumulative loss at each task
    task_best : ndarray (S, n), each task's best cumulative loss of one action in hindsight
    comparator : ndarray (n,), the final best comparator mu*
    bound : Theorem9Bound at the end;  seconds_per_trial : TREE-HEDGE's mean time per trial
    cover_height : height of the cover the online model walks each trial (None for other backends)
    """

    tree: Tree
    stream: LossStream
    predictions: np.ndarray
    losses: np.ndarray
    curve_t: np.ndarray
    curve_bound: np.ndarray
    curve_comparator: np.ndarray
    snap_t: np.ndarray
    favourite: np.ndarray
    task_loss: np.ndarray
    task_best: np.ndarray
    comparator: np.ndarray
    bound: Any
    seconds_per_trial: float
    cover_height: int | None = None


def _grid(T: int, count: int, start: int) -> np.ndarray:
    return np.unique(np.linspace(start, T, max(2, min(count, T + 1 - start))).round().astype(np.int64))


def play(tree: Tree, stream: LossStream, *, eta: float, coupling: float | None = None, theta=None,
         data=None, backend: str = DEFAULT_BACKEND, snapshots: int = 60, curve_points: int = 200,
         progress: ProgressCallback | None = None) -> Playback:
    """Play ``stream`` against TREE-HEDGE and both baselines, recording curves and snapshots."""
    progress = progress or no_progress
    k = stream.k
    T = stream.trials
    declared(HedgeConfig)["snapshots"].check(snapshots, "snapshots")
    progress(0.0, "building the tree model")
    th = TreeHedge(tree, k, eta=eta, coupling=coupling, theta=theta, data=data, backend=backend)
    ih = IndependentHedge(tree.n, k, eta=eta)
    sh = SharedHedge(k, eta=eta)
    oracle = BoundOracle(tree, th.theta, th.data, th.eta)  # p(mu | Theta, D) ignores row scales of D
    # snapshots cost O(n) each: keep their total size near 2e5 numbers
    snap_t = _grid(T, int(min(snapshots, max(2, 200_000 // max(tree.n, 1)))), 0)
    # each bound point is one max-product pass, O(n k^2): keep their total near 5e6 vertex visits
    curve_t = _grid(T, int(min(curve_points, max(2, 5_000_000 // max(tree.n, 1)))), 1)

    vs, ys = stream.vertices, stream.losses
    preds = np.empty((T, k))
    lost = np.empty((T, 3))
    L = np.zeros((tree.n, k))  # cumulative loss of each action at each task
    task_loss = np.zeros((3, tree.n))
    S = len(snap_t)
    fav = np.empty((S, 3, tree.n), np.int64)
    tl = np.empty((S, 3, tree.n))
    tb = np.empty((S, tree.n))
    cb = np.empty(len(curve_t))
    cc = np.empty(len(curve_t))
    si = ci = 0
    busy = 0.0
    every = max(1, T // 200)

    def snapshot(i):
        fav[i, 0] = th.favourites()
        fav[i, 1] = ih.favourites()
        fav[i, 2] = favourite_actions(sh.predict_one())[0]
        tl[i] = task_loss
        tb[i] = L.min(axis=1)

    while si < S and snap_t[si] == 0:
        snapshot(si)
        si += 1
    vs64 = np.ascontiguousarray(vs, dtype=np.int64)
    t = 0
    while t < T:
        # TREE-HEDGE's trials up to the next bound point, snapshot or progress report in one
        # batch (its predictions do not depend on the baselines), then the baselines trial by trial
        stop = min(T, (t // every + 1) * every)
        if ci < len(curve_t):
            stop = min(stop, int(curve_t[ci]))
        if si < S:
            stop = min(stop, int(snap_t[si]))
        t0 = time.perf_counter()
        preds[t:stop] = th._predict_learn(vs64[t:stop], ys[t:stop])
        busy += time.perf_counter() - t0
        for u in range(t, stop):
            v, y = int(vs[u]), ys[u]
            q = ih.predict_one(v)
            r = sh.predict_one(v)
            lost[u] = (preds[u] @ y, q @ y, r @ y)
            ih.learn_one(v, y)
            sh.learn_one(v, y)
            L[v] += y
            task_loss[:, v] += lost[u]
        done = t = stop
        while ci < len(curve_t) and curve_t[ci] == done:
            b = oracle(L)
            cb[ci], cc[ci] = b.bound, b.comparator_loss
            ci += 1
        while si < S and snap_t[si] == done:
            snapshot(si)
            si += 1
        if done % every == 0:
            progress(done / T, f"trial {done:,} of {T:,}")
    final = oracle(L)
    return Playback(tree, stream, preds, lost, curve_t, cb, cc, snap_t, fav, tl, tb, final.comparator,
                    final, busy / max(T, 1), th.cover_height)


def play_config(config: HedgeConfig, progress: ProgressCallback | None = None) -> Playback:
    """Resolve the config's tree and environment, then :func:`play` it."""
    tree = tree_from_spec(config.tree)
    if config.environment == "file":
        stream = read_loss_file(config.loss_file, tree, config.states)
    else:
        stream = make_environment(config.environment, tree, config.states, config.trials,
                                  switches=config.switches, low=config.low, high=config.high,
                                  seed=config.seed)
    return play(tree, stream, eta=config.eta, coupling=config.coupling, backend=config.backend,
                snapshots=config.snapshots, progress=progress)


def metrics_of(config: HedgeConfig, pb: Playback) -> dict[str, Any]:
    """The summary numbers (the keys of ``python -m engine hedge --json``)."""
    tot = pb.losses.sum(axis=0)
    b = pb.bound
    return {
        "tree_hedge_loss": float(tot[0]),
        "independent_hedge_loss": float(tot[1]),
        "shared_hedge_loss": float(tot[2]),
        "best_comparator_loss": b.comparator_loss,
        "bound": b.bound,
        "bound_holds": bool(tot[0] <= b.bound),
        "comparator_complexity": b.complexity,
        "c_eta": b.c_eta,
        "best_hindsight_loss": b.best_hindsight_loss,
        "n": pb.tree.n,
        "states": pb.stream.k,
        "trials": pb.stream.trials,
        "eta": float(config.eta),
        "coupling": float(config.coupling),
        "environment": config.environment,
        "switches": int(config.switches) if config.environment in ("piecewise", "switching") else None,
        "backend": config.backend,
        "seconds_per_trial": pb.seconds_per_trial,
        "cover_height": pb.cover_height,
    }


def run(config: HedgeConfig, progress: ProgressCallback | None = None) -> RunResult:
    """Run TREE-HEDGE and both baselines on the config's environment (the run protocol)."""
    t0 = time.perf_counter()
    pb = play_config(config, progress)
    cum = np.cumsum(pb.losses, axis=0)
    idx = _grid(pb.stream.trials, 500, 1) - 1
    curves = {name + "_loss": [[int(i + 1), float(cum[i, j])] for i in idx] for j, name in enumerate(LEARNERS)}
    curves["bound"] = [[int(t), float(x)] for t, x in zip(pb.curve_t, pb.curve_bound)]
    curves["best_comparator_loss"] = [[int(t), float(x)] for t, x in zip(pb.curve_t, pb.curve_comparator)]
    # the same, measured above the best comparator L(mu*_t): the regret view of Theorem 9
    at = pb.curve_t - 1
    for j, name in enumerate(LEARNERS):
        curves[name + "_excess"] = [[int(t), float(x)] for t, x in zip(pb.curve_t, cum[at, j] - pb.curve_comparator)]
    curves["bound_excess"] = [[int(t), float(x)] for t, x in zip(pb.curve_t, pb.curve_bound - pb.curve_comparator)]
    st = pb.stream
    artefacts = {
        "vertex_names": list(pb.tree.names),
        "snapshot_trials": pb.snap_t.tolist(),
        "favourite": {name: pb.favourite[:, j].tolist() for j, name in enumerate(LEARNERS)},
        "task_loss": {name: pb.task_loss[:, j].tolist() for j, name in enumerate(LEARNERS)},
        "task_best_loss": pb.task_best.tolist(),
        "task_regret": {name: (pb.task_loss[:, j] - pb.task_best).tolist() for j, name in enumerate(LEARNERS)},
        "task_trials": [np.bincount(st.vertices[:int(t)], minlength=pb.tree.n).tolist() for t in pb.snap_t],
        "task_order": preorder(pb.tree).tolist(),
        "true_best": None if st.best is None else [st.best_at(max(int(t) - 1, 0)).tolist() for t in pb.snap_t],
        "phase_start": None if st.phase_start is None else st.phase_start.tolist(),
        "comparator": pb.comparator.tolist(),
    }
    progress = progress or no_progress
    progress(1.0, "done")
    return RunResult(metrics_of(config, pb), curves, artefacts, time.perf_counter() - t0)
