"""The configuration of a BHTMM run ("Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov
Models", Castellana & Bacciu, 2019, section IV) and the parameters TF-BHTMM's and SP-BHTMM's
estimators share with it, each declared once (:mod:`engine.params`).

A module of its own, importing neither scikit-learn nor numba, so that these declarations are
read at start-up without loading the models; :mod:`engine.htmm.run` runs the config,
and :class:`engine.htmm.tf.TFBHTMM` and :class:`engine.htmm.sp.SPBHTMM` check their parameters
against the same declarations (their ``n_states`` and ``n_iter`` are the config's ``states`` and
``iterations``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from engine import limits
from engine.params import Param
from engine.runs.protocol import RunConfig, need

__all__ = ["BhtmmConfig", "SYNTHETIC", "MODEL_SETTINGS", "MODEL_NAMES", "STATES", "ITERATIONS", "PHI", "SAMPLER",
           "INIT", "T0", "M0", "ESTEP", "BOTTOM_LEAVES", "CUMULATIVE_COUNTS", "PSEUDOCOUNT"]

#: The hidden states C of either model.
STATES = Param(int, 10, "hidden states C", lo=1)
#: Gibbs sweeps (TF) or EM iterations (SP).
ITERATIONS = Param(int, 100, "training iterations", lo=0)
#: TF-BHTMM: the decay of the size prior.
PHI = Param(float, 2.0, "the size prior φ (TF)", lo=0)
#: TF-BHTMM: how the hidden states are drawn.
SAMPLER = Param(str, "exact", "the hidden-state sampler (TF)", choices=("exact", "prior"))
#: TF-BHTMM: where training starts.
INIT = Param(str, "sp", "the start of TF-BHTMM", choices=("sp", "prior"))
#: TF-BHTMM: the annealing schedule's initial temperature and its decay.
T0 = Param(float, 10.0, "the initial temperature of the annealing (TF)", lo=1)
M0 = Param(float, 20.0, "the decay of the annealing temperature (TF)", lo=0, closed="neither")
#: SP-BHTMM: the exact E-step or the authors'.
ESTEP = Param(str, "exact", "the E-step (SP): exact or the authors'", choices=("exact", "paper"))
#: SP-BHTMM: the authors' code's variants.
BOTTOM_LEAVES = Param(bool, False, "a leaf may take the bottom state, as in the authors' code (SP)")
CUMULATIVE_COUNTS = Param(bool, False, "M-steps on the counts of all iterations, as in the authors' code (SP)")
PSEUDOCOUNT = Param(float, 0.01, "the Dirichlet pseudo-count of the M-step (SP)", lo=0, hi=1e3)

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
    model: str = Param(str, "tf", "TF-BHTMM or SP-BHTMM", choices=("tf", "sp")).field()
    task: str = Param(str, "label", "node labelling or tree classification", choices=("label", "classify")).field()
    states: int = dataclasses.replace(STATES, hi=64).field()   # a run's cap; the estimators take any C >= 1
    iterations: int = ITERATIONS.field()
    lmin: int = Param(int, 1, "first important child position L_min (TF)", lo=0).field()
    lmax: int | None = Param(int, None, "last important child position L_max (TF)", lo=1, none=True).field()
    phi: float = PHI.field()
    sampler: str = SAMPLER.field()
    init: str = INIT.field()
    estep: str = ESTEP.field()
    bottom_leaves: bool = BOTTOM_LEAVES.field()
    cumulative_counts: bool = CUMULATIVE_COUNTS.field()
    pseudocount: float = PSEUDOCOUNT.field()
    t0: float = T0.field()
    m0: float = M0.field()
    synthetic_trees: int = Param(int, 200, "synthetic training trees per class", lo=1).field()
    seed: int = 0

    def validate(self) -> None:
        super().validate()   # the declared ranges, the seed and the limits
        need(self.lmax is None or self.lmax >= self.lmin,
             f"need 0 <= lmin <= lmax and lmax >= 1, got lmin={self.lmin!r}, lmax={self.lmax!r}")
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
