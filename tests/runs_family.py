"""A small, real, fast run family for the tests of the run history (``algorithm: treeflip``).

Not part of the workbench: the tests register it with
``engine.runs.registry.register_family("treeflip", "tests.runs_family", "TreeFlipConfig")`` (or, in a
subprocess, ``TREE_WORKBENCH_FAMILIES=treeflip=tests.runs_family:TreeFlipConfig``).

The model: a binary Markov field on a tree (the root a fair coin, each edge flips its parent's bit
with probability ``flip``). The learner predicts, edge after edge in BFS order, whether the edge
flips, with the Krichevsky-Trofimov estimate (k + 1/2) / (t + 1); its cumulative log loss is within
1/2 ln T + ln 2 nats of the best fixed Bernoulli in hindsight, which the tests check.
"""

from __future__ import annotations

import contextlib
import json
import math
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from engine.errors import InvalidParameterError
from engine.runs.protocol import RunConfig, RunResult, no_progress
from engine.runs.store import RunStore
from engine.trees.spec import tree_from_spec

__all__ = ["TreeFlipConfig", "run", "FAMILY", "ENV", "SLOW", "slow_run_in_progress"]

FAMILY = ("treeflip", "tests.runs_family", "TreeFlipConfig")
ENV = "treeflip=tests.runs_family:TreeFlipConfig"

#: a run that reports progress for about 20 s (400 steps of 0.05 s on a 2,000-vertex path)
SLOW = {"algorithm": "treeflip", "seed": 5, "steps": 400, "delay": 0.05, "tree": {"generate": "path", "n": 2000}}


@dataclass(frozen=True)
class TreeFlipConfig(RunConfig):
    algorithm: ClassVar[str] = "treeflip"
    tree: Any = field(default_factory=lambda: {"generate": "random", "n": 31, "seed": 0})
    flip: float = 0.2
    seed: int = 0
    steps: int = 20          # progress reports
    delay: float = 0.0       # seconds slept per progress report (to make a run slow on purpose)


def run(config: TreeFlipConfig, progress=None) -> RunResult:
    progress = progress or no_progress
    if not 0.0 <= config.flip <= 1.0:
        raise InvalidParameterError(f"flip must be in [0, 1], got {config.flip}")
    tree = tree_from_spec(config.tree)
    rng = np.random.default_rng(config.seed)
    order = tree.order
    bits = np.zeros(tree.n, dtype=np.int8)
    bits[tree.root] = rng.integers(2)
    flips = rng.random(tree.n) < config.flip
    for v in order[1:]:
        bits[v] = bits[tree.parent[v]] ^ flips[v]
    z = (bits[order[1:]] != bits[tree.parent[order[1:]]]).astype(int)  # observed flips, BFS order
    T = z.size
    loss = 0.0
    k = 0
    curve_loss, curve_est = [], []
    chunk = max(1, math.ceil(T / max(config.steps, 1)))
    for t in range(T):
        p1 = (k + 0.5) / (t + 1.0)
        loss -= math.log(p1 if z[t] else 1.0 - p1)
        k += int(z[t])
        curve_loss.append([t + 1, loss / (t + 1)])
        curve_est.append([t + 1, (k + 0.5) / (t + 2.0)])
        if (t + 1) % chunk == 0 or t + 1 == T:
            if config.delay:
                time.sleep(config.delay)
            progress((t + 1) / T, f"edge {t + 1} of {T}")
    q = k / T if T else 0.0
    best = -(k * math.log(q) if k else 0.0) - ((T - k) * math.log(1 - q) if T - k else 0.0)
    return RunResult(
        metrics={"n_edges": int(T), "flips": int(k), "flip_estimate": (k + 0.5) / (T + 1.0),
                 "log_loss": loss, "regret": loss - best},
        curves={"log_loss": curve_loss, "estimate": curve_est},
        artefacts={"root_bit": int(bits[tree.root])})


@contextlib.contextmanager
def slow_run_in_progress(config_path: Path, env: dict, store, *, timeout: float = 60.0):
    """``python -m engine run`` of :data:`SLOW` (written to ``config_path``) in a process of its own,
    with ``env`` (which names the run history and registers this family); yields ``(process, its
    record)`` once the history ``store`` (a SQLite path or a database URL) lists it running with some
    progress; kills the process on the way out."""
    config_path.write_text(json.dumps(SLOW))
    proc = subprocess.Popen([sys.executable, "-m", "engine", "run", str(config_path), "--quiet"],
                            cwd=Path(__file__).resolve().parents[1], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + timeout
        while True:
            with RunStore(store) as s:
                running = s.list(status="running")
            if running and (running[0].progress or 0) > 0:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"the slow run never reported progress within {timeout:.0f} s")
            time.sleep(0.2)
        yield proc, running[0]
    finally:
        proc.kill()
        proc.wait()
