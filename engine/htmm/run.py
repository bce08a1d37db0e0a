"""The run protocol (:mod:`engine.runs.protocol`) for the bottom-up hidden tree Markov models.

``run(BhtmmConfig(...), progress)`` trains TF-BHTMM or SP-BHTMM on a task of section IV of
"Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models" (Castellana & Bacciu, 2019) -- ``classify`` (one model per class) or ``label`` (node labels from the
structure alone) -- and returns the metrics of the CLI's ``--json`` output, the curves
``loglik`` (training log-likelihood per iteration; for classification the sum over the class
models) and ``k[l]`` (the size of position ``l`` per iteration, TF only; for classification the
mean over the class models), and artefacts for drawing (predictions, confusion matrices, traces).
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from engine.jsonio import to_jsonable
from engine.htmm.classifier import BHTMMClassifier
from engine.htmm.config import MODEL_SETTINGS, SYNTHETIC, BhtmmConfig
from engine.htmm.data import PositionalTrees, read_trees, shared_vocabulary, synthetic_trees
from engine.htmm.tasks import (classify, confusion_entropy, label_nodes, make_model,
                               per_label_accuracy)
from engine.htmm.tf import position_bounds
from engine.runs.protocol import ProgressCallback, RunResult, no_progress

__all__ = ["BhtmmConfig", "run", "load_data", "SYNTHETIC", "MODEL_SETTINGS"]

def load_data(spec: str, *, test: bool, n_per_class: int = 200) -> PositionalTrees:
    """A data source: a file path or ``"synthetic"``."""
    if str(spec) == SYNTHETIC:
        n = max(1, round(n_per_class * 0.3)) if test else n_per_class
        return synthetic_trees(n, seed=1 if test else 0)
    return read_trees(spec)


def run(config: BhtmmConfig, progress: ProgressCallback | None = None) -> RunResult:
    """Train and evaluate; see the module docstring for what is returned."""
    progress = progress or no_progress
    start = time.perf_counter()
    progress(0.0, "loading data")
    train = load_data(config.train, test=False, n_per_class=config.synthetic_trees)
    test = load_data(config.test, test=True, n_per_class=config.synthetic_trees)
    train, test = shared_vocabulary(train, test)
    L = max(train.max_children, test.max_children)
    position_bounds(config.lmin, config.lmax, L)   # both models: an impossible lmin or lmax is refused, not ignored
    if config.ignored():   # the same warning for both models (the command line prints it as one line)
        warnings.warn(config.ignored(), stacklevel=2)
    M = max(train.n_labels, test.n_labels)
    train, test = train.with_slots(L).with_n_labels(M), test.with_slots(L).with_n_labels(M)
    n_it = max(int(config.iterations), 1)
    opts = dict(states=int(config.states), iterations=int(config.iterations), lmin=int(config.lmin),
                lmax=None if config.lmax is None else int(config.lmax), phi=float(config.phi),
                sampler=config.sampler)
    if config.model == "tf":
        opts.update(t0=float(config.t0), m0=float(config.m0), init=config.init)
    else:
        opts.update(estep=config.estep, bottom_leaves=bool(config.bottom_leaves),
                    cumulative_counts=bool(config.cumulative_counts), pseudocount=float(config.pseudocount))
    name = "TF-BHTMM" if config.model == "tf" else "SP-BHTMM"
    metrics = {"model": config.model, "task": config.task, "states": int(config.states),
               "iterations": int(config.iterations), "n_train": train.n_trees, "n_test": test.n_trees,
               "n_labels": M, "max_children": L}
    if config.model == "sp":
        metrics.update(estep=config.estep, bottom_leaves=bool(config.bottom_leaves),
                       cumulative_counts=bool(config.cumulative_counts), pseudocount=float(config.pseudocount))
    curves: dict = {}
    artefacts: dict = {}
    seeds = np.random.SeedSequence(int(config.seed)).generate_state(64)

    if config.task == "label":
        def cb(it, ll):
            progress(0.95 * it / n_it, f"{name} iteration {it}/{config.iterations}: log-likelihood {ll:,.1f}")

        model = _model(config.model, opts, int(seeds[0]), callback=cb)
        res = label_nodes(train, test, model, seed=int(seeds[1]))
        cm, gcm = res.confusion(), res.confusion(generated=True)
        metrics.update(
            accuracy=res.accuracy, generated_accuracy=res.generated_accuracy,
            entropy=100 * res.entropy, confusion_entropy=100 * confusion_entropy(gcm),
            per_label_accuracy=_labelled(per_label_accuracy(cm)),
            generated_per_label_accuracy=_labelled(per_label_accuracy(gcm)),
            confusion=cm.tolist(), generated_confusion=gcm.tolist(),
            train_loglik=_last(model.loglik_))
        curves["loglik"] = [[i + 1, v] for i, v in enumerate(model.loglik_)]
        if config.model == "tf":
            metrics.update(k=model.k_.tolist(), accept_k=to_jsonable(float(model.accept_k_)),
                           accept_states=to_jsonable(float(model.accept_states_)))
            for l in range(L):
                curves[f"k[{l + 1}]"] = [[i + 1, int(v)] for i, v in enumerate(model.k_trace_[:, l])]
            artefacts["k_trace"] = model.k_trace_.tolist()
        artefacts.update(predicted=(res.predicted + 1).tolist(), generated=(res.generated + 1).tolist(),
                         tree_ptr=test.tree_ptr.tolist())
    else:
        classes = np.unique(train.y)
        done = {"n": 0}

        def cb(ci, nc, it, ll):
            done["n"] += 1
            progress(0.95 * done["n"] / (nc * n_it),
                     f"{name} class {classes[ci]} ({ci + 1}/{nc}), iteration {it}/{config.iterations}")

        clf = BHTMMClassifier(_model(config.model, opts, None), callback=cb,
                              class_seeds={c: int(seeds[int(c) % 64]) for c in classes.tolist()})
        res = classify(train, test, clf)
        cm = res.confusion
        metrics.update(
            accuracy=res.accuracy, entropy=100 * res.entropy, confusion_entropy=100 * confusion_entropy(cm),
            per_label_accuracy=_labelled(per_label_accuracy(cm), res.classes),
            confusion=cm.tolist(), classes=res.classes.tolist())
        lls = np.array([m.loglik_ for m in res.models], float).reshape(len(res.models), -1)
        curves["loglik"] = [[i + 1, float(v)] for i, v in enumerate(lls.sum(axis=0))]
        if config.model == "tf":
            tr = np.stack([m.k_trace_ for m in res.models])  # (classes, iterations, L)
            used = np.flatnonzero((tr > 1).any(axis=(0, 1)))
            for l in used:
                curves[f"k[{l + 1}]"] = [[i + 1, float(v)] for i, v in enumerate(tr[:, :, l].mean(axis=0))]
            metrics["k"] = {str(c): m.k_.tolist() for c, m in zip(res.classes.tolist(), res.models)}
            artefacts["k_trace"] = {str(c): m.k_trace_.tolist() for c, m in zip(res.classes.tolist(), res.models)}
        artefacts.update(predicted_class=res.predicted.tolist(), true_class=res.true.tolist(),
                         posterior_max=res.posterior.max(axis=1).tolist())
    seconds = time.perf_counter() - start
    metrics["seconds"] = seconds
    progress(1.0, "done")
    return RunResult(metrics=metrics, curves=curves, artefacts=artefacts, seconds=seconds)


def _model(kind, opts, seed, callback=None):
    o = dict(opts)
    if kind == "sp":
        for k in ("lmin", "lmax", "phi", "sampler", "t0", "m0", "init"):
            o.pop(k, None)
    return make_model(kind, seed=seed, callback=callback, **o)


def _labelled(values, names=None) -> dict:
    names = range(1, len(values) + 1) if names is None else names
    return {str(n): to_jsonable(float(v)) for n, v in zip(names, values)}


def _last(xs):
    return float(xs[-1]) if len(xs) else None
