"""Reproducing the papers: one command per paper, a report of our numbers beside the published ones.

``python -m engine reproduce PAPER`` (PAPER one of :data:`PAPERS` or ``all``) runs a paper's
protocol on the benchmark data (:func:`engine.datasets.data_home`) with today's code and writes a
report (:mod:`engine.reproduce.report`): Markdown, HTML, JSON and SVG figures. One module per paper
result, each declaring its title, its protocol (full and quick) and how its rows are read:

* ``cover``: the optimal (2,s)-cover's height against brute force, and its growth (Theorem 6 of
  "Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale);
* ``hedge``: TREE-HEDGE against its Theorem 9 bound and two baselines (the same paper, section 5);
* ``rta``: Table 1 and Figure 1 of "Multilabel Structured Output Learning with Random Spanning Trees
  of Max-Margin Markov Networks" (Marchand, Su, Morvant, Rousu & Shawe-Taylor);
* ``ofde``: Figure 2 and the Chow-Liu log-likelihoods of "Online Forest Density Estimation" (Koriche);
* ``bhtmm``: Tables I and III of "Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov
  Models" (Castellana & Bacciu).

A paper's :class:`Plan` is a list of run configs of the learning families (``engine.runs``): with a
run history they run as one recorded sweep (``loky`` processes or a ``dask`` cluster, resumable with
``python -m engine runs resume``); without one, one after another in this process. Work that is no
family's run (the brute-force cover check) runs in this process. A reproduction is itself a run of
the protocol (family ``reproduce``, :class:`ReproduceConfig`), so the app starts it
in its run pool and lists earlier reports from the run history.

>>> plan("cover", quick=True).paper
'cover'
>>> sorted(PAPERS)
['bhtmm', 'cover', 'hedge', 'ofde', 'rta']
"""

from __future__ import annotations

import importlib
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, ClassVar, NamedTuple

from engine.errors import EngineError, InvalidParameterError
from engine.params import Param
from engine.reproduce.report import Figure, Missing, Report, Row
from engine.runs.protocol import ProgressCallback, RunConfig, RunResult, need_int, no_progress

__all__ = ["PAPERS", "Plan", "Point", "ReproduceConfig", "paper_module", "plan", "reproduce", "report_from_sweep",
           "run", "Report", "Row", "Figure", "Missing"]

#: paper name -> the module that declares it, in the order ``all`` runs them
PAPERS: dict[str, str] = {
    "cover": "engine.reproduce.cover",
    "hedge": "engine.reproduce.hedge",
    "rta": "engine.reproduce.rta",
    "ofde": "engine.reproduce.ofde",
    "bhtmm": "engine.reproduce.bhtmm",
}


@dataclass(frozen=True)
class Plan:
    """What reproducing a paper runs.

    points : run configs (dicts with their ``algorithm``) of the learning families, run as one sweep
    local : work done in this process, ``local(progress) -> value`` (None: none); its share of the
        progress bar is ``local_share``
    protocol : one paragraph a reader of the report reads; settings : the protocol's settings
    missing : the paper's data sets that the data folder does not have
    """

    paper: str
    quick: bool
    points: tuple[dict, ...] = ()
    local: Callable[[ProgressCallback], Any] | None = None
    local_share: float = 0.0
    protocol: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    missing: tuple[Missing, ...] = ()


class Point(NamedTuple):
    """How one point of a plan ended: its config, status, metrics and curves (empty unless
    finished), and the error line of a point that did not finish."""

    config: dict
    status: str
    metrics: dict
    curves: dict
    error: str | None = None


def paper_module(name: str):
    """The module that declares paper ``name``; one clear line for an unknown name."""
    if name not in PAPERS:
        raise InvalidParameterError(f"unknown paper {name!r}; expected one of {', '.join(PAPERS)} or all")
    return importlib.import_module(PAPERS[name])


def plan(name: str, *, quick: bool = False, seeds: int | None = None) -> Plan:
    """The plan of paper ``name``: its full protocol, or with ``quick`` the reduced one.
    ``seeds`` (when the protocol has seeds) replaces the protocol's number of seeds."""
    if seeds is not None:
        need_int(seeds, "seeds", 1, 100)
    return paper_module(name).plan(quick=bool(quick), seeds=seeds)


def reproduce(name: str, *, quick: bool = False, seeds: int | None = None,
              progress: ProgressCallback | None = None, store=None, backend: str = "loky",
              n_jobs: int | None = 1, scheduler: str | None = None) -> Report:
    """Run paper ``name``'s protocol and return its report.

    With ``store`` (a :class:`engine.runs.store.RunStore`) the plan's points run as one recorded
    sweep through :func:`engine.runs.execute.execute_sweep` (``n_jobs``, ``backend``, ``scheduler``
    as there; its id is in the report's settings); without, one after another in this process.
    ``progress(fraction, message)`` may raise :class:`~engine.runs.protocol.RunCancelled`.
    """
    progress = progress or no_progress
    p = plan(name, quick=quick, seeds=seeds)
    start = time.perf_counter()
    share = p.local_share if p.points else 1.0
    local = None
    if p.local is not None:
        local = p.local(lambda f, m: progress(share * f, m))
    sweep = None
    if p.points:
        def sub(f, m):
            progress(share + (1 - share) * f, m)

        if store is None:
            points = _run_here(p.points, sub)
        else:
            from engine.runs.execute import execute_sweep

            spec = {"algorithm": p.points[0]["algorithm"], "sweep": [dict(c) for c in p.points]}
            recs = execute_sweep(spec, sub, store, n_jobs=n_jobs, backend=backend, scheduler=scheduler,
                                 label=f"reproduce {name}{' quick' if quick else ''}")
            sweep = recs[0].sweep
            points = [Point(r.config, r.status, r.metrics, r.curves, r.error) for r in recs]
    else:
        points = []
    settings = {"backend": ("here" if store is None or not p.points else backend), "sweep": sweep, "seeds_option": seeds,
                "seconds": time.perf_counter() - start}
    return _report(p, points, local, settings)


def report_from_sweep(name: str, sweep: str, store, *, quick: bool = False, seeds: int | None = None) -> Report:
    """The report of paper ``name`` from the finished points of a recorded ``sweep`` (one the
    reproduction ran, then resumed with ``python -m engine runs resume``): every point of the plan
    must be there, finished. The local part of the plan, if any, runs again here."""
    from engine.runs.registry import config_from_dict

    p = plan(name, quick=quick, seeds=seeds)
    start = time.perf_counter()
    recs = store.list(sweep=sweep, results=True)
    if not recs:
        raise InvalidParameterError(f"no sweep {sweep!r} in the history {store.path}")
    key = lambda d: config_from_dict(d).to_json()  # noqa: E731 - defaults filled in alike
    done = {key(r.config): r for r in recs if r.status == "finished"}
    points = []
    for cfg in p.points:
        r = done.get(key(cfg))
        if r is None:
            raise InvalidParameterError(
                f"sweep {sweep} has no finished run of the {name}{' quick' if quick else ''} point "
                f"{_point_name(cfg)}; run python -m engine runs resume {sweep} first (or give the same "
                "--quick and --seeds as the reproduction that made it)")
        points.append(Point(r.config, r.status, r.metrics, r.curves, r.error))
    local = p.local(no_progress) if p.local is not None else None
    used = [done[key(cfg)] for cfg in p.points]
    ran = sum(r.seconds or 0.0 for r in used)  # the points' own time, when they ran
    extra = {"backend": "recorded sweep", "sweep": sweep, "seeds_option": seeds, "seconds": ran + time.perf_counter() - start,
             "load_average": None}  # the load of now says nothing of when the points ran
    if used:  # the code that computed the numbers
        extra["code_version"] = ", ".join(sorted({r.code_version for r in used}))
    return _report(p, points, local, extra)


def _point_name(cfg: dict) -> str:
    keys = ("algorithm", "data", "train", "model", "task", "states", "environment", "threshold", "seed")
    return " ".join(f"{k}={os.path.basename(str(cfg[k]))}" for k in keys if k in cfg)


def _run_here(configs, progress) -> list[Point]:
    """Run each config in this process (a point's own failure is kept as its error line)."""
    from engine.runs.protocol import RunCancelled
    from engine.runs.registry import config_from_dict, family

    out = []
    n = len(configs)
    for i, d in enumerate(configs):
        cfg = config_from_dict(dict(d))

        def sub(f, m, i=i):
            progress((i + f) / n, f"point {i + 1}/{n}: {m}")

        try:
            res = family(cfg.algorithm).run(cfg, sub)
            out.append(Point(cfg.to_dict(), "finished", res.metrics, res.curves))
        except RunCancelled:
            raise
        except EngineError as exc:
            out.append(Point(cfg.to_dict(), "failed", {}, {}, str(exc)))
        progress((i + 1) / n, f"{i + 1}/{n} points done")
    return out


def _report(p: Plan, points: list[Point], local, extra: dict) -> Report:
    from engine.datasets import data_home
    from engine.runs.store import code_version

    mod = paper_module(p.paper)
    rows, figures, notes = mod.summarise(p, points, local)
    failed = [pt for pt in points if pt.status != "finished"]
    notes = list(notes) + [f"Point {_point_name(pt.config)} did not finish ({pt.status}): {pt.error}"
                           for pt in failed]
    settings = {"quick": p.quick, **p.settings,
                "data_home": str(data_home()),
                "created": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "code_version": code_version(),
                "load_average": " / ".join(f"{x:.1f}" for x in os.getloadavg()), **extra}
    return Report(p.paper, mod.TITLE, mod.AUTHORS, tuple(rows), tuple(figures), p.missing, p.protocol,
                  tuple(notes), settings)


@dataclass(frozen=True)
class ReproduceConfig(RunConfig):
    """A reproduction as a run of the run protocol (the app's run pool, the run history).

    paper : one of :data:`PAPERS`; quick : the reduced protocol; seeds : the number of seeds
    (0: the protocol's own).
    """

    algorithm: ClassVar[str] = "reproduce"
    paper: str = Param(str, "cover", "the paper whose protocol runs", choices=tuple(PAPERS)).field()
    quick: bool = Param(bool, True, "the quick (reduced) protocol").field()
    seeds: int = Param(int, 0, "the number of seeds (0: the protocol's own)", lo=0, hi=100).field()


def run(config: ReproduceConfig, progress: ProgressCallback | None = None, *, store=None,
        backend: str = "loky", n_jobs: int | None = 1, scheduler: str | None = None) -> RunResult:
    """Reproduce ``config.paper`` (the run protocol); the report is the artefact ``report``, its
    rows (the ``--json`` rows) the metric ``rows``. ``store``, ``backend``, ``n_jobs`` and
    ``scheduler`` are those of :func:`reproduce`."""
    start = time.perf_counter()
    report = reproduce(config.paper, quick=config.quick, seeds=config.seeds or None, progress=progress,
                       store=store, backend=backend, n_jobs=n_jobs, scheduler=scheduler)
    line = report.json_line()
    metrics = {"paper": config.paper, "quick": config.quick, "rows": line["rows"],
               "compared": sum(1 for r in report.rows if r.difference is not None),
               "missing": len(report.missing)}
    (progress or no_progress)(1.0, "report ready")
    return RunResult(metrics, {}, {"report": report.to_dict()}, time.perf_counter() - start)
