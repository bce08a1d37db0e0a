"""Reproducing Figure 2 of "Online Forest Density Estimation" (Koriche) and the Chow-Liu
log-likelihoods of the benchmark data.

Figure 2 plots the average test log-likelihood of OFDE over Markov trees (OFDE_T) and forests
(OFDE_F) round after round, one pass over the training set with the paper's settings
(k = round(ln n), alpha_t = 1/(4 sqrt(2t)), beta_t = sqrt(2/t)/n), beside the batch Chow-Liu tree (CL)
and thresholded forest (CLT, epsilon in {1/4, 1/2, 3/4} chosen on the validation set); the paper
reads it as OFDE_T and OFDE_F converging to CL and CLT, averaged over 10 experiments. The Chow-Liu
reference log-likelihoods are those of the data folder's README (0.25 pseudo-count per cell).
The protocol runs every density set of the data folder, OFDE_T and OFDE_F over 10 seeds (the quick
protocol: 1 seed, the first 5,000 rounds).
"""

from __future__ import annotations

import numpy as np

from engine.datasets import available, data_home
from engine.reproduce import Plan
from engine.reproduce.report import Figure, Missing, Row, spread_of

__all__ = ["TITLE", "AUTHORS", "plan", "summarise", "CHOW_LIU_REFERENCE", "FIGURE2_SETS"]

TITLE = "Online Forest Density Estimation"
AUTHORS = "Koriche; Figure 2"
#: average test log-likelihood (nats) of a Chow-Liu tree with 0.25 pseudo-count per cell (the data README)
CHOW_LIU_REFERENCE = {"nltcs": -6.759, "msnbc": -6.540, "kdd": -2.295, "plants": -16.524}
#: the data sets of the paper's Table 1 and Figure 2
FIGURE2_SETS = ("abalone", "covertype", "kdd", "msnbc")
#: the paper's per-round time (C++, one core of a Xeon X5550): under 3 ms on every set
PAPER_MS_PER_ROUND = 3.0
_WHERE = ("the paper's source, alchemy.cs.washington.edu/papers/davis10a/ (Lowd & Davis; binary versions as "
          "NAME.ts.data.gz, NAME.valid.data.gz and NAME.test.data.gz)")
QUICK_ROUNDS = 5_000
MODELS = {"trees": "OFDE_T", "forests": "OFDE_F"}


def plan(*, quick: bool, seeds=None) -> Plan:
    here = available("density")
    names = sorted(here, key=lambda n: (n not in FIGURE2_SETS, n))
    n_seeds = seeds or (1 if quick else 10)
    rounds = QUICK_ROUNDS if quick else 0
    points = tuple({"algorithm": "ofde", "train": str(here[n][0]), "valid": str(here[n][1]), "test": str(here[n][2]),
                    "model": model, "rounds": rounds, "seed": s}
                   for n in names for model in MODELS for s in range(n_seeds))
    missing = tuple(Missing(n, "Figure 2", _WHERE) for n in FIGURE2_SETS if n not in here)
    length = f"the first {QUICK_ROUNDS:,} rounds" if quick else "one pass over the training set"
    protocol = (f"OFDE over Markov trees (OFDE_T) and forests (OFDE_F) with the paper's settings (k = round(ln n), "
                f"alpha_t = 1/(4 sqrt(2t)), beta_t = sqrt(2/t)/n), {length}, seeds 0..{n_seeds - 1}, the average "
                f"test log-likelihood at 40 log-spaced rounds; Chow-Liu (CL) and its thresholded forest (CLT, "
                f"epsilon chosen on the validation set) fit on the whole training set. Data: {', '.join(names)}.")
    return Plan("ofde", quick, points=points, protocol=protocol, missing=missing,
                settings={"seeds": n_seeds, "rounds": rounds or "one pass", "data_sets": names,
                          "data_folder": str(data_home("density"))})


def _name(path: str) -> str:
    from pathlib import Path

    return Path(path).name.split(".")[0]


def summarise(plan: Plan, points, local):
    rows, figs, notes = [], [], []
    ok = [p for p in points if p.status == "finished"]
    for name in plan.settings["data_sets"]:
        mine = [p for p in ok if _name(p.config["train"]) == name]
        if not mine:
            continue
        m0 = mine[0].metrics
        cl, clt = m0["chowliu_test_loglik"], m0["clt_test_loglik"]
        ref = CHOW_LIU_REFERENCE.get(name)
        in_paper = name in FIGURE2_SETS
        data = f"{name} (n = {m0['n_vars']}, {m0['n_train']:,} training samples)"
        rows.append(Row(data, "CL: average test log-likelihood (nats)", ref, cl, digits=3,
                        note="published: the data folder's reference value"))
        rows.append(Row(data, "CLT: average test log-likelihood (nats)", None, clt, digits=3,
                        note=f"epsilon = {m0['clt_epsilon']}"))
        length = "after one pass" if plan.settings["rounds"] == "one pass" else f"after {m0['rounds']:,} rounds"
        series = {}
        for model, label in MODELS.items():
            runs = [p for p in mine if p.config["model"] == model]
            if not runs:
                continue
            mean, sd, n = spread_of([p.metrics["final_test_loglik"] for p in runs])
            if model == "trees":
                rows.append(Row(data, f"{label}: test log-likelihood {length} (nats)", ref, mean, sd, n, 3,
                                "published: CL's level, which Figure 2 shows OFDE_T reaching" if in_paper else
                                "not in the paper's Figure 2; published: CL's level"))
            else:
                rows.append(Row(data, f"{label}: test log-likelihood {length} (nats)", None, mean, sd, n, 3,
                                f"Figure 2 shows OFDE_F reaching CLT's level (ours {clt:.3f})"))
            mean, sd, n = spread_of([p.metrics["per_round_ms_median"] for p in runs])
            rows.append(Row(data, f"{label}: median time per round (ms)", PAPER_MS_PER_ROUND, mean, sd, n, 3,
                            "published: under 3 ms (C++, Xeon X5550); ours: Python/numba on this machine"))
            curves = [p.curves["test_loglik"] for p in runs]
            k = min(len(c) for c in curves)
            series[label] = ([c[0] for c in curves[0][:k]], np.mean([[v for _, v in c[:k]] for c in curves], axis=0).tolist())
        if series:
            xs = [x for s in series.values() for x in s[0]]
            lo, hi = min(xs), max(xs)
            series["CL"] = ([lo, hi], [cl, cl])
            series["CLT"] = ([lo, hi], [clt, clt])
            figs.append(Figure(f"figure2-{name}", f"{name}: test log-likelihood against rounds (Figure 2)", "round t",
                               "average test log-likelihood (nats)", series, logx=True, dashed=("CL", "CLT"),
                               caption=f"{name}: OFDE_T and OFDE_F (mean over the seeds) beside the batch CL and "
                                       "CLT fit on the whole training set"))
    notes.append("Figure 2 publishes curves, not numbers: the paper reads them as OFDE_T and OFDE_F converging to CL "
                 "and CLT. The difference in the OFDE_T rows is therefore the gap to CL's reference level; "
                 "docs/online-forest-density-estimation.md explains the gap that one pass with the paper's "
                 "perturbation leaves.")
    return rows, figs, notes
