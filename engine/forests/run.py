"""Runs of the forests family (the protocol of :mod:`engine.runs.protocol`): OFDE and Chow-Liu.

Both configs name their data the same way: ``train``/``test``/``valid`` paths to ``.data(.gz)``
or CSV files, or, with ``train`` empty, the embedded synthetic source (a random Markov tree over
``n_vars`` binary variables, ``n_train``/``n_test``/``n_valid`` samples, seed ``data_seed``).
``run(config)`` dispatches on the config's type; the metrics' keys are the ``--json`` keys of the
``ofde`` and ``chowliu`` commands.
"""

from __future__ import annotations

import time
import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engine.errors import DataFormatError, InvalidParameterError
from engine.forests.data import Dataset, check_synthetic_sizes, read_data, synthetic_split
from engine.forests.estimators import PSEUDOCOUNT
from engine.forests.fpl import SCALE
from engine.forests.structure import MODEL
from engine.params import Param
from engine.runs.protocol import ProgressCallback, RunConfig, RunResult, need, no_progress

__all__ = ["OfdeConfig", "ChowLiuConfig", "run", "load_split"]


@dataclass(frozen=True)
class _DataFields(RunConfig):
    limited: ClassVar[dict[str, str]] = {"n_vars": "columns", "n_train": "data_cells", "n_test": "data_cells",
                                         "n_valid": "data_cells"}
    unsized: ClassVar[tuple[str, ...]] = ("seed", "data_seed")
    train: str = ""
    test: str = ""
    valid: str = ""
    n_vars: int = Param(int, 16, "variables of the synthetic Markov tree", lo=2).field()
    n_train: int = Param(int, 5000, "training samples of the synthetic source", lo=1).field()
    n_test: int = Param(int, 2000, "test samples of the synthetic source", lo=1).field()
    n_valid: int = Param(int, 1000, "validation samples of the synthetic source", lo=0).field()
    data_seed: int = Param(int, 0, "the seed of the synthetic data", lo=0).field()
    seed: int = 0

    def validate(self) -> None:
        super().validate()
        need(bool(self.train) or not (self.test or self.valid), "a test or validation file needs a training file too")
        need(not self.train or bool(self.test), "a test file is required with a training file")
        if not self.train:  # the synthetic source
            check_synthetic_sizes(self.n_vars, self.n_train, self.n_test, self.n_valid)   # before any draw


@dataclass(frozen=True)
class OfdeConfig(_DataFields):
    """OFDE (Algorithm 1). ``mixture_size = 0`` means ``round(ln n)``; ``rounds = 0`` one pass."""

    algorithm = "ofde"
    limited: ClassVar[dict[str, str]] = {**_DataFields.limited, "mixture_size": "mixture", "rounds": "rounds",
                                         "eval_points": "eval_points"}
    model: str = MODEL.field()
    mixture_size: int = Param(int, 0, "the mixture size k (0 = ln n)", lo=0).field()
    rounds: int = Param(int, 0, "rounds (0 = one pass over the training set)", lo=0).field()
    perturbation_scale: float = SCALE.field()
    prior: float = PSEUDOCOUNT.field()   # the Dirichlet pseudo-count of the experts' tables
    eval_points: int = Param(int, 40, "points of the learning curve", lo=2).field()


@dataclass(frozen=True)
class ChowLiuConfig(_DataFields):
    """Chow-Liu tree, or with ``threshold`` the CLT forest (epsilon chosen on ``valid``)."""

    algorithm = "chowliu"
    threshold: bool = Param(bool, False, "the thresholded Chow-Liu forest (epsilon chosen on valid)").field()
    pseudocount: float = dataclasses.replace(PSEUDOCOUNT, default=0.25, doc="the pseudo-count of every pair table").field()

    def validate(self) -> None:
        super().validate()
        need(not self.threshold or bool(self.valid if self.train else self.n_valid > 0),
             "the thresholded Chow-Liu forest needs a validation file (--valid) to choose epsilon")


def load_split(config: _DataFields):
    """``(train, valid or None, test, true_edges or None)`` with one alphabet and matching widths."""
    if not config.train:
        tr, va, te, src = synthetic_split(config.n_vars, config.n_train, config.n_test, config.n_valid,
                                          seed=config.data_seed)
        return tr, (va if config.n_valid > 0 else None), te, src.edges
    tr = read_data(config.train)
    te = read_data(config.test)
    va = read_data(config.valid) if config.valid else None
    if tr.n_vars < 2:
        raise DataFormatError(f"{tr.source}: {tr.n_vars} column; a forest over one variable has no structure "
                              "to learn (need at least 2 columns)")
    parts = [d for d in (tr, va, te) if d is not None]
    for d in parts[1:]:
        if d.n_vars != tr.n_vars:
            raise DataFormatError(f"{d.source}: {d.n_vars} columns, but the training file {tr.source} has {tr.n_vars}")
    m = max(d.m for d in parts)
    tr, te = tr.with_alphabet(m), te.with_alphabet(m)
    va = va.with_alphabet(m) if va is not None else None
    return tr, va, te, None


def run(config, progress: ProgressCallback | None = None) -> RunResult:
    """Run an :class:`OfdeConfig` or a :class:`ChowLiuConfig`."""
    progress = progress or no_progress
    if isinstance(config, OfdeConfig):
        return _run_ofde(config, progress)
    if isinstance(config, ChowLiuConfig):
        return _run_chowliu(config, progress)
    raise InvalidParameterError(f"the forests family runs OfdeConfig or ChowLiuConfig, not {type(config).__name__}")


def _edges(e) -> list:
    return [[int(a), int(b)] for a, b in np.asarray(e).reshape(-1, 2)]


def _baselines(tr: Dataset, va: Dataset | None, te: Dataset, pseudocount: float = 0.25):
    from engine.forests.chowliu import ChowLiu, thresholded_chow_liu

    start = time.perf_counter()
    cl = ChowLiu(pseudocount, m=tr.m).fit(tr.X)
    fit_seconds = time.perf_counter() - start
    clt = thresholded_chow_liu(tr.X, va.X, tr.m, pseudocount=pseudocount) if va is not None else None
    return cl, clt, fit_seconds


def _run_chowliu(c: ChowLiuConfig, progress) -> RunResult:
    start = time.perf_counter()
    progress(0.0, "reading data")
    tr, va, te, true_edges = load_split(c)
    progress(0.3, "fitting")
    cl, clt, fit_seconds = _baselines(tr, va if c.threshold else None, te, c.pseudocount)
    model = clt if c.threshold else cl
    progress(0.9, "scoring")
    metrics = {
        "test_loglik": model.score(te.X),
        "edges": _edges(model.edges_),
        "n_vars": tr.n_vars, "n_train": tr.n_samples, "n_test": te.n_samples,
        "threshold": bool(c.threshold),
        "epsilon": model.epsilon,
        "fit_seconds": fit_seconds,
        "train_loglik": model.score(tr.X),
        "pseudocount": c.pseudocount,
    }
    if c.threshold:
        metrics["valid_scores"] = {str(k): v for k, v in model.valid_scores_.items()}
        metrics["chowliu_test_loglik"] = cl.score(te.X)
    arte = {"names": list(tr.names), "tree_edges": _edges(cl.tree_edges_),
            "mutual_information": cl.mi_.tolist()}
    if true_edges is not None:
        arte["true_edges"] = _edges(true_edges)
    progress(1.0, "done")
    return RunResult(metrics, {}, arte, time.perf_counter() - start)


def _run_ofde(c: OfdeConfig, progress) -> RunResult:
    from engine.forests.evaluation import evaluate_online, structural_hamming
    from engine.forests.ofde import OFDE
    from engine.forests.structure import warm_up

    start = time.perf_counter()
    progress(0.0, "reading data")
    tr, va, te, true_edges = load_split(c)
    cl, clt, _ = _baselines(tr, va, te)
    learner = OFDE(tr.n_vars, tr.m, model=c.model, mixture_size=c.mixture_size or None,
                   perturbation_scale=c.perturbation_scale, prior=c.prior, seed=c.seed)
    progress(0.0, "compiling kernels")
    warm_up()
    trace = evaluate_online(learner, tr.X, te.X, rounds=c.rounds or None, points=c.eval_points,
                            reference_edges=cl.tree_edges_, progress=progress)
    ms = trace.round_seconds * 1e3
    final = float(trace.test_loglik[-1])
    cl_ll = cl.score(te.X)
    curve = [[int(t), float(v)] for t, v in zip(trace.rounds, trace.test_loglik)]
    metrics = {
        "final_test_loglik": final,
        "per_round_ms_median": float(np.median(ms)),
        "curve": curve,
        "rounds": int(len(ms)),
        "model": c.model,
        "mixture_size": learner.k_,
        "perturbation_scale": c.perturbation_scale,
        "n_vars": tr.n_vars, "n_train": tr.n_samples, "n_test": te.n_samples,
        "per_round_ms_p90": float(np.percentile(ms, 90)),
        "chowliu_test_loglik": cl_ll,
        "clt_test_loglik": clt.score(te.X) if clt is not None else None,
        "clt_epsilon": clt.epsilon if clt is not None else None,
        "gap_to_chowliu": cl_ll - final,
        "shd_to_chowliu": structural_hamming(learner.current_forest(), cl.tree_edges_),
        "online_avg_logloss": learner.online_loss_ / len(ms),
        "edges": _edges(learner.current_forest()),
    }
    # per-round time: median over the rounds between consecutive evaluation points
    bounds = np.concatenate([[0], trace.rounds])
    round_ms = [[int(b), float(np.median(ms[a:b]))] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    curves = {
        "test_loglik": curve,
        "shd_to_chowliu": [[int(t), int(s)] for t, s in zip(trace.rounds, trace.shd)],
        "online_avg_logloss": [[int(t), float(v)] for t, v in zip(trace.rounds, trace.online_loss)],
        "round_ms": round_ms,
    }
    arte = {"names": list(tr.names), "chowliu_edges": _edges(cl.tree_edges_),
            "clt_edges": _edges(clt.edges_) if clt is not None else None,
            "mixture": [{"weight": float(w), "edges": _edges(f)} for w, f in zip(learner.weights_, learner.forests())]}
    if true_edges is not None:
        arte["true_edges"] = _edges(true_edges)
    progress(1.0, "done")
    return RunResult(metrics, curves, arte, time.perf_counter() - start)
