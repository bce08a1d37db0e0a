"""Reproducing Table 1 and Figure 1 of "Multilabel Structured Output Learning with Random Spanning
Trees of Max-Margin Markov Networks" (Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014).

The protocol is the paper's and the benchmark's (``benchmarks/bench_rta.py``): on every data set of
Table 1 found in the data folder, 5-fold cross-validation of RTA with 10 random spanning trees,
K <= 32, 30 passes, C chosen in every training fold from {100, 50, 10, 1, 0.5, 0.1, 0.01} by inner
validation, beside one-vs-rest LinearSVC on the same folds; the certified-exact fraction of the test
predictions against K is the paper's Figure 1. The quick protocol: 2 folds, 5 trees, 10 passes,
C = 0.5 without inner validation, and no SVM baseline (its inner cross-validation costs more than RTA).
"""

from __future__ import annotations

from engine.datasets import available, data_home
from engine.multilabel.evaluation import PAPER_TABLE1, PAPER_TABLE2
from engine.reproduce import Plan
from engine.reproduce.report import Figure, Missing, Row, spread_of

__all__ = ["TITLE", "AUTHORS", "plan", "summarise", "WHERE"]

TITLE = "Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin Markov Networks"
AUTHORS = "Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014; Table 1 and Figure 1"

_MULAN = ("Mulan's multilabel data sets, mulan.sourceforge.net/datasets-mlc.html (NAME.arff and NAME.xml; "
          "gzip the ARFF as NAME.arff.gz)")
_AUTHORS = ("not in Mulan: the data of Su & Rousu's experiments, from the authors (the RTA code is "
            "github.com/hongyusu/RTA); as NAME.arff.gz with NAME.xml")
#: where each Table 1 data set can be had
WHERE = {"emotions": _MULAN, "yeast": _MULAN, "scene": _MULAN, "enron": _MULAN, "cal500": _MULAN,
         "medical": _MULAN, "fingerprint": _AUTHORS, "nci60": _AUTHORS,
         "circle10": "synthetic, of Su & Rousu; " + _AUTHORS, "circle50": "synthetic, of Su & Rousu; " + _AUTHORS}

FULL = {"n_trees": 10, "max_k": 32, "folds": 5, "inner_folds": 3, "C": None, "max_passes": 30, "baseline": "svm"}
QUICK = {"n_trees": 5, "max_k": 32, "folds": 2, "inner_folds": 3, "C": 0.5, "max_passes": 10, "baseline": None}


def plan(*, quick: bool, seeds=None) -> Plan:
    here = available("multilabel")
    found = [name for name in PAPER_TABLE1 if name in here]
    s = QUICK if quick else FULL
    points = tuple({"algorithm": "rta", "data": str(here[name][0]), **s, "seed": 0, "jobs": 2} for name in found)
    missing = tuple(Missing(name, "Table 1", WHERE[name]) for name in PAPER_TABLE1 if name not in here)
    c = "C = 0.5 (no inner validation)" if s["C"] else "C chosen per training fold by 3-fold inner validation"
    svm = ("; one-vs-rest LinearSVC (C per label by inner cross-validation) on the same folds" if s["baseline"]
           else "; no SVM baseline")
    protocol = (f"{s['folds']}-fold cross-validation (seed 0) of RTA with {s['n_trees']} random spanning trees, "
                f"K <= {s['max_k']}, {s['max_passes']} passes, {c}{svm}. Data: {', '.join(found) or 'none found'}.")
    return Plan("rta", quick, points=points, protocol=protocol,
                settings={**s, "data_sets": found, "data_folder": str(data_home("multilabel"))}, missing=missing)


def _name(point) -> str:
    from pathlib import Path

    return Path(point.config["data"]).name.split(".")[0]


def summarise(plan: Plan, points, local):
    rows, figs, notes = [], [], []
    curves = {}
    for p in points:
        if p.status != "finished":
            continue
        name = _name(p)
        folds = p.metrics["per_fold"]
        paper, sd = PAPER_TABLE1[name], PAPER_TABLE2[name]
        for method, prefix in (("RTA", ""), ("SVM", "svm_")):
            for j, (key, label) in enumerate((("microlabel_loss", "microlabel loss (%)"),
                                              ("zero_one_loss", "0/1 loss (%)"))):
                values = [f[prefix + key] for f in folds if f.get(prefix + key) is not None]
                if not values:
                    continue
                mean, spread, n = spread_of(values)
                rows.append(Row(name, f"{method}: {label}", paper[method][j], mean, spread, n, 1,
                                f"published sd over folds {sd[method][j]:.1f}"))
        exact = p.metrics.get("exact_fraction")
        notes.append(f"{name}: C per fold {', '.join(f'{c:g}' for c in p.metrics['C'])}; certified exact "
                     f"(Lemma 7) {100 * exact:.1f} % of the test predictions at K <= {p.config['max_k']}; "
                     f"{p.metrics['seconds']:.0f} s.")
        pts = p.curves.get("exact_fraction_vs_k") or []
        curves[f"{name} (l = {p.metrics['labels']})"] = ([k for k, _ in pts], [100 * v for _, v in pts])
    if curves:
        figs.append(Figure("figure1", "Certified-exact inference against K (Figure 1)", "K (length of the K-best lists)",
                           "test predictions certified exact (%)", curves, logx=True,
                           caption="The share of test predictions that Lemma 7 certifies as the exact maximiser of "
                                   "the tree ensemble, against the length K of every tree's K-best list (the paper's "
                                   "Figure 1; it reports about 90 % at K = l with five trees)"))
    notes.append("Published: Table 1 (means) and Table 2 (standard deviations over the five folds); our SVM is "
                 "scikit-learn's LinearSVC, one per label, which need not be the paper's SVM.")
    return rows, figs, notes
