"""The configuration of an RTA run ("Multilabel Structured Output Learning with Random Spanning Trees
of Max-Margin Markov Networks", Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014, sections 4
and 5) and the parameters RTA's estimator shares with it, each declared once (:mod:`engine.params`).

A module of its own, importing neither scikit-learn nor numba, so that these declarations are
read at start-up without loading the learner; :mod:`engine.multilabel.run` runs the
config and :class:`engine.multilabel.learner.RTAClassifier` checks its parameters against the same
declarations.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from engine import limits
from engine.multilabel.data import SYNTHETIC_KEYS, check_synthetic
from engine.params import Param
from engine.runs.protocol import RunConfig, is_int, is_number, need

__all__ = ["RtaConfig", "PAPER_C_GRID", "C", "N_TREES", "MAX_K", "KERNEL", "MAX_PASSES"]

#: The grid the paper chooses C from by inner validation.
PAPER_C_GRID = (100.0, 50.0, 10.0, 1.0, 0.5, 0.1, 0.01)

#: The margin slack C of the max-margin problem.
C = Param(float, 1.0, "the margin slack C", lo=0, closed="neither")
#: How many random spanning trees the model's ensemble holds.
N_TREES = Param(int, 10, "random spanning trees", lo=1)
#: The largest K of the K-best lists of the inference.
MAX_K = Param(int, 32, "the largest K of the K-best lists", lo=2)
#: The kernel on the inputs.
KERNEL = Param(str, "linear", "the kernel on the inputs", choices=("linear", "rbf"))
#: Passes of the conditional gradient over the training set.
MAX_PASSES = Param(int, 30, "passes over the training set", lo=1)


@dataclass(frozen=True)
class RtaConfig(RunConfig):
    """One RTA experiment.

    data : ARFF path, ``"synthetic"`` or ``{"synthetic": {...}}`` (see ``load_multilabel``)
    labels : label count (labels last), a Mulan XML path, or None (XML beside the file / MEKA header)
    C : margin slack, or None to choose it per outer fold from ``grid`` by inner validation
    baseline : "svm" to score one-vs-rest LinearSVC on the same folds
    jobs : outer folds run at once (threads); the results do not depend on it
    """

    algorithm: ClassVar[str] = "rta"
    limited: ClassVar[dict[str, str]] = {"labels": "labels", "n_trees": "spanning_trees", "max_k": "kbest",
                                         "folds": "folds", "inner_folds": "folds", "inner_splits": "folds",
                                         "max_passes": "iterations", "jobs": "jobs"}

    data: str | dict = "synthetic"
    labels: int | str | None = None
    n_trees: int = N_TREES.field()
    max_k: int = MAX_K.field()
    C: float | None = dataclasses.replace(
        C, default=None, none=True,
        doc="the margin slack C, or None: chosen per outer fold from grid by inner validation").field()
    grid: tuple = PAPER_C_GRID
    folds: int = Param(int, 5, "cross-validation folds", lo=2).field()
    inner_folds: int = Param(int, 3, "folds of the inner validation that chooses C", lo=2).field()
    inner_splits: int = Param(int, 1, "inner folds actually run (at most inner_folds)", lo=1).field()
    kernel: str = KERNEL.field()
    max_passes: int = MAX_PASSES.field()
    baseline: str | None = Param(str, None, "the LinearSVC baseline on the same folds", choices=("svm",), none=True).field()
    seed: int = 0
    jobs: int = Param(int, 1, "outer folds run at once (threads)", lo=1).field()

    def validate(self) -> None:
        super().validate()   # the declared ranges, the seed and the limits
        need(self.labels is None or isinstance(self.labels, str) or is_int(self.labels),
             f"labels must be a count, a Mulan XML file or none, got {str(self.labels)[:40]}")
        count = self.labels
        if isinstance(count, str) and count.strip().lstrip("-").isdigit():   # a count given as text
            count = int(count)
            limits.check("labels", count, "labels")
        if self.data in (None, "synthetic") and is_int(count):   # the synthetic source's size, before a draw
            check_synthetic(n_labels=count)
        elif isinstance(self.data, dict):
            need(set(self.data) == {"synthetic"} and isinstance(self.data["synthetic"], (dict, type(None))),
                 f"a data spec dict must be {{'synthetic': {{...}}}}, got {str(self.data)[:60]}")
            spec = self.data["synthetic"] or {}
            unknown = sorted(set(spec) - set(SYNTHETIC_KEYS), key=str)
            need(not unknown, f"bad synthetic data settings: unknown key {str(unknown[:1])[1:-1][:40]} (expected "
                              f"{', '.join(SYNTHETIC_KEYS)})")
            check_synthetic(**spec)
        need(self.inner_splits <= self.inner_folds,
             f"inner_splits must be at most inner_folds ({self.inner_folds}), got {self.inner_splits!r}")
        need(isinstance(self.grid, (list, tuple)) and len(self.grid) >= 1
             and all(is_number(c) and c > 0 for c in self.grid), f"the C grid must hold positive numbers, got {self.grid!r}")

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "grid", tuple(float(c) for c in self.grid))
