"""RTA runs under the workbench's run protocol (``engine.runs.protocol``).

``run(RtaConfig(...), progress)`` loads the data (an ARFF path or the synthetic source), runs the
paper's cross-validation protocol (:func:`engine.multilabel.evaluation.cross_validate`), optionally
beside the SVM baseline, and returns the losses, the certified-exact fraction against K (the
paper's Figure 1), the sampled spanning trees and the learned label-pair weights.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from engine.errors import InvalidParameterError
from engine.multilabel.config import RtaConfig
from engine.multilabel.data import load_multilabel
from engine.multilabel.evaluation import PAPER_RESULTS, cross_validate
from engine.runs.protocol import ProgressCallback, RunResult, no_progress

__all__ = ["RtaConfig", "run", "FIGURE1_KS"]

#: The list lengths of the certified-exact curve (the paper's Figure 1 uses 2..60).
FIGURE1_KS = (1, 2, 4, 8, 16, 32, 64)


def _paper_key(name: str, path) -> str | None:
    for key in PAPER_RESULTS:
        if key in str(name).lower() or key in str(path).lower():
            return key
    return None


def run(config: RtaConfig, progress: ProgressCallback | None = None) -> RunResult:
    """Run the protocol; metrics keys are the CLI's JSON keys."""
    progress = progress or no_progress
    start = time.perf_counter()
    progress(0.0, "loading data")
    data = load_multilabel(config.data, config.labels)
    X, Y = data.X, data.Y
    if Y.shape[1] < 2:
        raise InvalidParameterError(f"RTA needs at least 2 labels; {data.name} has {Y.shape[1]}")
    if len(X) < config.folds:
        raise InvalidParameterError(f"{data.name} has {len(X)} examples, fewer than the {config.folds} folds")
    l = Y.shape[1]
    ks = sorted(set(k for k in FIGURE1_KS if k <= max(64, l)) | {l})
    exact_counts = np.zeros(len(ks))
    n_test = 0
    first = {}

    def hook(f, model, Xte, Yte):
        nonlocal n_test
        exact_counts[:] += model.exact_fraction(Xte, ks) * len(Xte)
        n_test += len(Xte)
        if f == 0:
            first["model"] = model

    folds = cross_validate(X, Y, n_trees=config.n_trees, max_k=config.max_k, C=config.C, grid=config.grid,
                           folds=config.folds, inner_folds=config.inner_folds, inner_splits=config.inner_splits,
                           seed=config.seed,
                           baseline=config.baseline, progress=progress, model_hook=hook,
                           kernel=config.kernel, max_passes=config.max_passes, n_jobs=config.jobs)
    ml = np.array([f.microlabel_loss for f in folds])
    zo = np.array([f.zero_one_loss for f in folds])
    metrics: dict[str, Any] = {
        "dataset": data.name, "examples": int(X.shape[0]), "features": int(X.shape[1]), "labels": int(l),
        "n_trees": config.n_trees, "max_k": config.max_k, "folds": config.folds,
        "microlabel_loss": float(ml.mean()), "microlabel_loss_std": float(ml.std()),
        "zero_one_loss": float(zo.mean()), "zero_one_loss_std": float(zo.std()),
        "exact_fraction": float(np.mean([f.exact_fraction for f in folds])),
        "mean_k": float(np.mean([f.mean_k for f in folds])),
        "C": [f.C for f in folds],
        "per_fold": [f.to_dict() for f in folds],
    }
    if config.baseline == "svm":
        metrics["svm_microlabel_loss"] = float(np.mean([f.svm_microlabel_loss for f in folds]))
        metrics["svm_zero_one_loss"] = float(np.mean([f.svm_zero_one_loss for f in folds]))
    key = _paper_key(data.name, config.data if isinstance(config.data, str) else "")
    if key:
        metrics["paper"] = {m: {"microlabel_loss": v[0], "zero_one_loss": v[1]} for m, v in PAPER_RESULTS[key].items()}
    model = first["model"]
    seconds = time.perf_counter() - start
    metrics["seconds"] = seconds
    curves = {
        "exact_fraction_vs_k": [[int(k), float(c / max(n_test, 1))] for k, c in zip(ks, exact_counts)],
        "dual_objective": [[h["pass"], float(h["dual"])] for h in model.history_],
        "duality_gap": [[h["pass"], float(h["gap"])] for h in model.history_],
    }
    artefacts = {
        "label_names": list(data.label_names),
        "tree_parents": model.trees_.parent.tolist(),
        "label_pair_weights": model.label_pair_weights().tolist(),
        "edge_counts": model.trees_.edge_counts().tolist(),
        "label_frequencies": Y.mean(axis=0).tolist(),
    }
    progress(1.0, "done")
    return RunResult(metrics, curves, artefacts, seconds)
