"""RTA Multilabel: max-margin learning on random spanning trees with certified-exact inference
("Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin Markov Networks",
Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014)."""

from __future__ import annotations

import dataclasses
import hashlib
import tempfile
from pathlib import Path

import streamlit as st

from engine.errors import EngineError
from engine.files import public_message
from engine.multilabel.data import benchmark_files, load_multilabel
from engine.multilabel.evaluation import PAPER_C_GRID
from engine.multilabel.run import run
from workbench.declarations.page_table import PAGES
from workbench import address_bar
from workbench.components import chart, page_cache
from workbench.figures.multilabel_figures import (exact_fraction_figure, label_pair_figure, per_fold_table,
                                                  results_table, spanning_trees_figure, training_figure)
from workbench.runner import launch
from workbench.session import PageState
from workbench.text import md
from workbench.widgets import widget

SPEC = PAGES["rta"]
SYNTHETIC = "Synthetic (embedded)"
UPLOAD = "Upload an ARFF file"
INNER = "inner validation"
SYNTHETIC_ONLY = ("examples", "labels")


class RtaState(PageState, page="rta"):
    c_mode: str = INNER                    # the margin slack: inner validation or "fixed"
    C: float = 1.0                         # ... its value when fixed
    result: tuple | None = None            # (settings, result) of the run shown
    params_now: tuple | None = None        # the settings now
    exact_fig: None = None                 # the figures: the exact-match fraction
    pairs_fig: None = None                 # ... the label pairs
    trees_fig: None = None                 # ... the spanning trees
    training_fig: None = None              # ... the training (dual and gap)


S = RtaState()


def _seed_c(c) -> None:
    S.c_mode = INNER if c in (None, "inner") else "fixed"
    if c not in (None, "inner"):
        S.C = float(c)


def _shown() -> bool:
    stored = S.result
    return stored is not None and stored[0] == S.params_now


BINDS = {
    "data": address_bar.Bind(S.key("data"), lambda d: SYNTHETIC if d == "synthetic" else d,
                       lambda c: "synthetic" if c == SYNTHETIC else None if c in (None, UPLOAD)
                       or c not in benchmark_files() else c),
    "c": address_bar.Bind(seed=_seed_c, read=lambda: "inner" if S.c_mode == INNER else f"{S.C:g}"),
    "run": address_bar.run_bind("rta", _shown),
}


@page_cache(st.cache_data, show_spinner=False, max_entries=16)
def _summary(data, labels) -> dict:
    return load_multilabel(data, labels).summary()


def _save_upload(up) -> str:
    raw = up.getvalue()
    digest = hashlib.sha1(raw).hexdigest()[:16]
    suffix = ".arff.gz" if up.name.endswith(".gz") else ".arff"
    d = Path(tempfile.gettempdir()) / "tree_workbench_uploads"
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"{digest}{suffix}"
    if not p.exists():
        p.write_bytes(raw)
    return str(p)


address_bar.page_head("rta", "RTA: multilabel learning on random spanning trees",
                "\"Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin Markov "
                "Networks\" (Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014). Instead of the "
                "intractable complete graph over the labels, RTA learns one max-margin model jointly on a small "
                "sample of uniformly random spanning trees. Each tree gives its K best labellings by dynamic "
                "programming; the best of their union is **provably** the best labelling of the whole ensemble "
                "whenever it scores at least the average of the trees' K-th best scores (Lemma 7).",
                BINDS)
files = benchmark_files()
_PAIR = 116   # px: two number boxes side by side in the settings column, one under the other when it is narrower
left, right = st.columns([1, 3], gap="large")
with left:
    choice = widget(SPEC, "data", options=[SYNTHETIC, *files.keys(), UPLOAD])
    data, labels = "synthetic", None
    if choice == SYNTHETIC:
        row = st.container(horizontal=True)   # side by side, or one under the other in a narrow column
        m = widget(SPEC, "examples", where=row, width=_PAIR)
        nl = widget(SPEC, "labels", where=row, width=_PAIR)
        data = {"synthetic": {"n_examples": int(m), "n_labels": int(nl), "n_features": 20, "seed": 0}}
    elif choice == UPLOAD:
        up = st.file_uploader("ARFF file (dense or sparse; .gz ok)", type=["arff", "gz"])
        n_lab = st.number_input("Label count (labels last; 0 = MEKA '-C n' header)", 0, 1000, 0)
        labels = int(n_lab) or None
        data = _save_upload(up) if up is not None else None
    else:
        data = str(files[choice])
    widget(SPEC, "trees")
    widget(SPEC, "max_k")
    c_mode = st.radio("Margin slack C", [INNER, "fixed"], horizontal=True, key=S.key("c_mode"),
                      help="Inner validation picks C from {100, 50, 10, 1, 0.5, 0.1, 0.01} in every training fold.")
    if c_mode == "fixed":
        st.select_slider("C", list(reversed(PAPER_C_GRID)), value=1.0, key=S.key("C"))
    row = st.container(horizontal=True)
    widget(SPEC, "folds", where=row, value=5 if choice != SYNTHETIC else 3, width=_PAIR)
    widget(SPEC, "passes", where=row, value=30 if choice != SYNTHETIC else 15, width=_PAIR)
    widget(SPEC, "baseline")
    widget(SPEC, "seed")
    values = {k: v for k, v in SPEC.run_values(address_bar.values(SPEC)).items()   # a widget not drawn now does not count
              if choice == SYNTHETIC or k not in SYNTHETIC_ONLY}
    params = (data, labels, values)
    S.params_now = params
    go_btn = st.button("Run cross-validation", type="primary", disabled=data is None)

with right:
    if data is not None:
        try:
            summ = _summary(data, labels)
            st.markdown(f"**{md(summ['name'])}** · {summ['examples']:,} examples · {summ['features']} features · "
                        f"{summ['labels']} labels · {summ['label_cardinality']:.2f} labels per example · "
                        f"{summ['distinct_labelsets']} distinct label sets")
        except EngineError as exc:
            st.error(public_message(exc))
            data = None
    config = None
    if data is not None:
        try:   # the run configuration of these settings, as a lesson's link describes it (the page's spec)
            config = SPEC.run_config(values)
            if choice == UPLOAD:
                config = dataclasses.replace(config, data=data, labels=labels)
        except EngineError as exc:
            st.error(public_message(exc))
            config = None
    if config is not None and (go_btn or (choice != UPLOAD and address_bar.run_once("rta", config))):
        result = launch(config, run, label="Cross-validating RTA", reuse=True)
        if result is not None:
            S.result = (params, result)
    stored = S.result
    result = stored[1] if stored is not None else None
    if result is None:
        st.info("Choose data and settings, then **Run cross-validation**. The synthetic default takes a few seconds.")
    else:
        m = result.metrics
        a = result.artefacts
        if stored[0] != params:
            st.caption("Showing the last run; the settings have changed since.")
        k1, k2, k3, k4 = st.columns(4)
        k1.metric("Microlabel loss", f"{m['microlabel_loss']:.1f} %",
                  delta=(f"{m['microlabel_loss'] - m['svm_microlabel_loss']:+.1f} vs SVM" if "svm_microlabel_loss" in m else None),
                  delta_color="inverse")
        k2.metric("0/1 loss", f"{m['zero_one_loss']:.1f} %",
                  delta=(f"{m['zero_one_loss'] - m['svm_zero_one_loss']:+.1f} vs SVM" if "svm_zero_one_loss" in m else None),
                  delta_color="inverse")
        k3.metric("Certified exact", f"{100 * m['exact_fraction']:.1f} %", help="Test predictions certified by Lemma 7")
        k4.metric("Time", f"{m['seconds']:.1f} s", help=f"C per fold: {m['C']}")
        st.header("Results in the layout of the paper's Table 1")
        st.dataframe(results_table(m), width="stretch")
        st.caption(f"{m['dataset']}: {m['folds']}-fold cross-validation, {m['n_trees']} trees, K up to {m['max_k']}. "
                   "Paper: \"Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin Markov "
                   "Networks\" (Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014), Table 1, 5-fold CV, linear kernel.")
        c1, c2 = st.columns(2)
        with c1:
            exact = result.curves["exact_fraction_vs_k"]
            chart(exact_fraction_figure(exact, m["labels"], n_trees=m["n_trees"]),
                  key=S.key("exact_fig"), name="rta_exact_fraction", width="stretch",
                  describe=f"The share of test examples whose best candidate is certified exact, against K, on "
                  f"{m['labels']} labels and {m['n_trees']} trees" + (
                      f": {100 * exact[0][1]:.1f} % at K = {exact[0][0]}, {100 * exact[-1][1]:.1f} % at K = "
                      f"{exact[-1][0]}." if exact else "."))
        with c2:
            chart(label_pair_figure(a["label_pair_weights"], a["label_names"], a["label_frequencies"]),
                  key=S.key("pairs_fig"), name="rta_label_pairs", width="stretch",
                  describe=f"The {len(a['label_names'])} labels, each as often on as its size shows, joined by the "
                  f"norm of the learned weights of each label pair over the {m['n_trees']} trees.")
            st.caption("Edge width: norm of the learned weights of the label pair, over the trees that hold it. "
                       "Node size: how often the label is on.")
        st.header("The sampled spanning trees")
        st.caption("Labels sit at the same places in every tree; the root (an orange square) is label 0. "
                   + " · ".join(f"{i} = {n}" for i, n in enumerate(a["label_names"])))
        chart(spanning_trees_figure(a["tree_parents"], a["label_names"]), key=S.key("trees_fig"),
              name="rta_spanning_trees", width="stretch",
              describe=f"The {len(a['tree_parents'])} random spanning trees over the {len(a['label_names'])} labels, "
              f"each rooted at label 0 ({a['label_names'][0]}).")
        with st.expander("Per fold and training curve"):
            st.dataframe(per_fold_table(m), width="stretch")
            dual, gap = result.curves.get("dual_objective"), result.curves.get("duality_gap")
            chart(training_figure(dual, gap), key=S.key("training_fig"), name="rta_training", width="stretch",
                  describe=f"The first fold's training over {len(dual or gap or ()):,} passes: the dual objective "
                  "and the duality gap per pass" + (f", final gap {gap[-1][1]:.3g}." if gap else "."))
