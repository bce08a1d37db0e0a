"""The run protocol (:mod:`engine.runs.protocol`) for the bottom-up hidden tree Markov models.

``run(BhtmmConfig(...), progress)`` trains TF-BHTMM or SP-BHTMM on a task of section IV of
"Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models" (Castellana & Bacciu, 2019) -- ``classify`` (one model per class) or ``label`` (node labels from the
structure alone) -- and returns the metrics of the CLI's ``--json`` output, the curves
``loglik`` (training log-likelihood per iteration; for classification the sum over the class
models) and ``k[l]`` (the size of position ``l`` per iteration, TF only; for classification the
mean over the class models), and artefacts for drawing (predictions, confusion matrices, traces).
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engine import limits
from engine.errors import need_choice
from engine.jsonio import to_jsonable
from engine.htmm.classifier import BHTMMClassifier
from engine.htmm.data import PositionalTrees, read_trees, shared_vocabulary, synthetic_trees
from engine.htmm.tasks import (classify, confusion_entropy, label_nodes, make_model,
                               per_label_accuracy)
from engine.htmm.tf import position_bounds
from engine.runs.protocol import ProgressCallback, RunConfig, RunResult, is_int, is_number, need, need_int, no_progress

__all__ = ["BhtmmConfig", "run", "load_data", "SYNTHETIC", "MODEL_SETTINGS"]

#: the embedded default data source (section IV-B generator)
SYNTHETIC = "synthetic"

#: the settings only one model reads; a run of the other model says, in one warning, that it
#: ignores them (when they differ from their defaults)
MODEL_SETTINGS = {"tf": ("lmin", "lmax", "phi", "sampler", "init", "t0", "m0"),
                  "sp": ("estep", "bottom_leaves", "cumulative_counts", "pseudocount")}
MODEL_NAMES = {"tf": "TF-BHTMM", "sp": "SP-BHTMM"}


@dataclass(frozen=True)
class BhtmmConfig(RunConfig):
    """Settings of one run.

    train, test : a JSON-lines tree file (``.jsonl`` / ``.jsonl.gz``), an XML file or directory,
        or ``"synthetic"`` (the generator of section IV-B with ``synthetic_trees`` trees per class
        for training and 30 % of that for testing, from fixed data seeds 0 and 1).
    model : ``"tf"`` or ``"sp"``; task : ``"classify"`` or ``"label"``; states : ``C``;
    iterations : Gibbs sweeps (TF) or EM iterations (SP); lmin, lmax : bounds on the number of
    positions with ``k_l > 1`` (``lmax`` None: ``min(L, 5)``, the paper's setting); phi : size-prior decay;
    sampler : ``"exact"`` or ``"prior"`` (the paper's Algorithm 1); init : ``"sp"`` (states from a
    short SP-BHTMM run) or ``"prior"`` (parameters from the priors, as the authors); t0, m0 : the
    annealing schedule (TF only); estep : ``"exact"`` or ``"paper"`` (SP only: the authors' E-step);
    bottom_leaves : SP only, let a leaf take the bottom state as the authors' code does;
    cumulative_counts : SP only, M-steps on the counts summed over all iterations (the authors' code);
    pseudocount : SP only, Dirichlet pseudo-count of the M-step (the authors' code: 2.2e-16). With
    ``estep="paper"``, ``bottom_leaves``, ``cumulative_counts`` and that pseudo-count the run is
    the authors' SP-BHTMM, step for step.
    """

    algorithm: ClassVar[str] = "bhtmm"
    limited: ClassVar[dict[str, str]] = {"states": "states", "iterations": "iterations", "synthetic_trees": "vertices"}
    unsized: ClassVar[tuple[str, ...]] = ("seed", "lmin", "lmax")
    train: str = SYNTHETIC
    test: str = SYNTHETIC
    model: str = "tf"
    task: str = "label"
    states: int = 10
    iterations: int = 100
    lmin: int = 1
    lmax: int | None = None
    phi: float = 2.0
    sampler: str = "exact"
    init: str = "sp"
    estep: str = "exact"
    bottom_leaves: bool = False
    cumulative_counts: bool = False
    pseudocount: float = 0.01
    t0: float = 10.0
    m0: float = 20.0
    synthetic_trees: int = 200
    seed: int = 0

    def validate(self) -> None:
        super().validate()
        need_choice(self.model, "model", ("tf", "sp"))
        need_choice(self.task, "task", ("classify", "label"))
        need_int(self.states, "states", 1, 64)
        need_int(self.iterations, "iterations", 0)
        need_int(self.lmin, "lmin", 0)
        need(self.lmax is None or (is_int(self.lmax) and self.lmax >= max(1, self.lmin)),
             f"need 0 <= lmin <= lmax and lmax >= 1, got lmin={self.lmin!r}, lmax={self.lmax!r}")
        need(is_number(self.phi) and self.phi >= 0, f"phi must be a finite number >= 0, got {self.phi!r}")
        need_choice(self.sampler, "sampler", ("exact", "prior"))
        need_choice(self.init, "init", ("sp", "prior"))
        need_choice(self.estep, "estep", ("exact", "paper"))
        need(isinstance(self.bottom_leaves, bool), f"bottom_leaves must be true or false, got {self.bottom_leaves!r}")
        need(isinstance(self.cumulative_counts, bool),
             f"cumulative_counts must be true or false, got {self.cumulative_counts!r}")
        need(is_number(self.pseudocount) and 0 <= self.pseudocount <= 1e3,
             f"pseudocount must be in 0..1000, got {self.pseudocount!r}")
        need(is_number(self.t0) and self.t0 >= 1, f"the initial temperature t0 must be >= 1, got {self.t0!r}")
        need(is_number(self.m0) and self.m0 > 0, f"m0 must be > 0, got {self.m0!r}")
        need_int(self.synthetic_trees, "synthetic_trees", 1)
        if SYNTHETIC in (self.train, self.test):   # the generator's trees, before any is drawn
            limits.check("vertices", 3 * self.synthetic_trees * 100,
                         f"synthetic_trees: {self.synthetic_trees} trees per class x 3 classes x up to 100 nodes =")

    def ignored(self) -> str | None:
        """One line naming the settings given (away from their defaults) that the chosen model does
        not read, or None.

        >>> BhtmmConfig(model="sp", lmin=2).ignored()
        'SP-BHTMM ignores lmin=2: a TF-BHTMM setting (leave it out, or run TF-BHTMM)'
        """
        other = "sp" if self.model == "tf" else "tf"
        defaults = {f.name: f.default for f in dataclasses.fields(self)}
        given = [f"{k}={getattr(self, k)!r}" for k in MODEL_SETTINGS[other] if getattr(self, k) != defaults[k]]
        if not given:
            return None
        one = len(given) == 1
        kind = f"a {MODEL_NAMES[other]} setting" if one else f"{MODEL_NAMES[other]} settings"
        return (f"{MODEL_NAMES[self.model]} ignores {', '.join(given)}: {kind} (leave {'it' if one else 'them'} "
                f"out, or run {MODEL_NAMES[other]})")


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
