"""Hidden Tree Markov Models: TF-BHTMM and SP-BHTMM on tree classification and node labelling."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from engine import datasets
from engine.errors import EngineError
from engine.files import public_message
from engine.htmm.run import SYNTHETIC, BhtmmConfig, load_data, run
from workbench.declarations.page_table import PAGES
from workbench import address_bar
from workbench.components import chart, page_cache
from workbench.figures.htmm_figures import (confusion_figure, k_trace_figure, labelled_tree_figure,
                                            loglik_figure)
from workbench.runner import launch
from workbench.session import PageState
from workbench.widgets import widget

SPEC = PAGES["bhtmm"]
NAMES = SPEC.setting("model").display


#: Castellana & Bacciu (2019), Table III (symm labelling, C = 10): label -> (SP acc, TF acc, SP H, TF H)
TABLE_III = {"0": (55.47, 99.67, 35.49, 1.34), "1": (60.15, 79.59, 151.51, 65.61),
             "2": (45.84, 64.71, 180.88, 93.69), "3": (17.04, 29.68, 184.08, 97.71),
             "All": (53.08, 80.68, 140.38, 51.42)}
#: Table I (inex05 classification): C -> (SP acc, TF acc, SP H, TF H)
TABLE_I = {2: (87.55, 91.41, 34.19, 31.99), 4: (90.68, 93.65, 28.92, 25.00), 6: (93.81, 95.10, 24.30, 20.91),
           8: (93.15, 94.28, 23.59, 23.12), 10: (93.30, 95.21, 21.77, 20.60)}
NAMES = {"tf": "TF-BHTMM", "sp": "SP-BHTMM"}


#: L_min and L_max when a link names neither (one range slider shows both)
L_RANGE = (SPEC.setting("lmin").default, SPEC.setting("lmax").default)


class BhtmmState(PageState, page="bhtmm"):
    lrange: tuple = L_RANGE                # L_min and L_max (one range slider)
    runs: dict | None = None               # (source, task) -> model -> (settings, config, result)
    last: tuple | None = None              # ((source, task), model) of the run shown
    params_now: dict | None = None         # the settings now
    cm: None = None                        # the figures: the confusion matrix
    ll: None = None                        # ... the log-likelihood curve
    k: None = None                         # ... the trace of the number of states
    tree_fig: None = None                  # ... the labelled tree
    settings: None = None                  # the settings' form


S = BhtmmState()


def sources() -> dict[str, tuple[str, str]]:
    """The data present: the source's label shown -> (train, test)."""
    label = SPEC.setting("source").widget_value
    out = {label("synthetic"): (SYNTHETIC, SYNTHETIC)}
    found = datasets.available("trees")
    for name in ("symm", "inex05"):
        if name in found:
            tr, te = found[name]
            out[label(name)] = (str(tr), str(te))
    return out


def _shown() -> bool:
    last = S.last
    if last is None:
        return False
    key, model = last
    return S.runs[key][model][0] == S.params_now


def _range_bind(end: int) -> address_bar.Bind:
    """L_min (end 0) or L_max (end 1) of the range slider."""
    def seed(v):
        lo_hi = list(S.lrange)
        lo_hi[end] = L_RANGE[end] if v is None else int(v)
        S.lrange = (min(lo_hi), max(lo_hi))

    return address_bar.Bind(seed=seed, read=lambda: S.lrange[end])


BINDS = {"lmin": _range_bind(0), "lmax": _range_bind(1), "run": address_bar.run_bind("bhtmm", _shown)}


@page_cache(st.cache_resource, show_spinner="Loading test trees")
def test_trees(spec: str, n_per_class: int):
    return load_data(spec, test=True, n_per_class=n_per_class)


def settings() -> tuple[dict, BhtmmConfig, bool]:
    """The settings, their run configuration, and whether the user asked to train."""
    src = sources()
    if S.source not in src:
        st.warning(f"{S.source}: not in the data folder; the synthetic source is shown.")
        S.source = SPEC.setting("source").widget_value("synthetic")
    with st.form(S.key("settings")):
        c1, c2, c3 = st.columns(3)
        with c1:
            widget(SPEC, "source", options=list(src))
            widget(SPEC, "task", horizontal=True)
            widget(SPEC, "model", horizontal=True)
        with c2:
            widget(SPEC, "states")
            widget(SPEC, "iterations")
            widget(SPEC, "synthetic")
        with c3:
            st.slider("Important positions L_min … L_max (TF)", 0, 8, L_RANGE, key=S.key("lrange"))
            widget(SPEC, "phi")
            widget(SPEC, "sampler")
            widget(SPEC, "init")
            widget(SPEC, "sp")
            widget(SPEC, "seed")
        go = st.form_submit_button("Train and evaluate", type="primary")
    params = SPEC.run_values(address_bar.values(SPEC))
    S.params_now = params
    # the run configuration of these settings, as a lesson's link describes it (the page's spec)
    return params, SPEC.run_config(params), go


def run_name(metrics: dict) -> str:
    """The model of a run, with the SP implementation when it is not the exact one."""
    name = NAMES[metrics["model"]]
    if metrics["model"] == "sp" and metrics.get("cumulative_counts") and metrics.get("bottom_leaves"):
        return f"{name} (authors' code)"
    if metrics["model"] == "sp" and metrics.get("estep") == "paper":
        return f"{name} (authors' E-step)"
    return name


def paper_table(results: dict, task: str, source: str, states: int):
    """This session's runs beside the published numbers."""
    if task == "label":
        rows = []
        for lab, (sp, tf, _hsp, _htf) in TABLE_III.items():
            row = {"label (children)": lab, "paper SP acc. %": sp, "paper TF acc. %": tf}
            for model in ("sp", "tf"):
                r = results.get(model)
                if r is not None:
                    m = r.metrics
                    v = (m["generated_accuracy"] if lab == "All"
                         else m["generated_per_label_accuracy"].get(str(int(lab) + 1)))
                    row[f"this run {run_name(m)} %"] = None if v is None else round(100 * v, 2)
            rows.append(row)
        st.markdown("**Table III** — generated-label accuracy on the labelling task "
                    "(paper: symm, C = 10, 100 iterations, mean of 5 runs)")
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    else:
        rows = []
        for C, (sp, tf, hsp, htf) in TABLE_I.items():
            row = {"C": C, "paper SP acc. %": sp, "paper TF acc. %": tf,
                   "paper SP entropy %": hsp, "paper TF entropy %": htf}
            rows.append(row)
        df = pd.DataFrame(rows)
        for model in ("sp", "tf"):
            r = results.get(model)
            if r is not None:
                df[f"this run {run_name(r.metrics)} acc. %"] = [round(100 * r.metrics["accuracy"], 2)
                                                        if C == r.metrics["states"] else None for C in df["C"]]
                df[f"this run {run_name(r.metrics)} entropy %"] = [round(r.metrics["confusion_entropy"], 2)
                                                           if C == r.metrics["states"] else None for C in df["C"]]
        st.markdown("**Table I** — classification accuracy and entropy (paper: INEX 2005, 100 iterations, "
                    "mean of 5 runs)")
        st.dataframe(df, hide_index=True, width="stretch")
    if source != "inex05" and task == "classify" or source not in ("symm", "synthetic") and task == "label":
        st.caption("The published numbers are for a different data set; they are shown for orientation.")


def ternary(cfg: BhtmmConfig) -> bool:
    """The data of section IV-B (synthetic generator, symm), where a label is the number of children + 1."""
    return cfg.train == SYNTHETIC or "symm" in Path(cfg.train).name


def _confusion_lead(cm, what: str, kind: str) -> str:
    """A confusion matrix in words: its size and how many of its counts are on the diagonal."""
    total = sum(sum(row) for row in cm)
    right = sum(cm[i][i] for i in range(len(cm)))
    share = f" ({100 * right / total:.1f} %)" if total else ""
    return f"Confusion of the {kind} {what}: {len(cm)} {what}, {right:,} of {total:,} test cases right{share}."


def show(cfg: BhtmmConfig, result):
    m = result.metrics
    cols = st.columns(5)
    cols[0].metric("Most-probable accuracy", f"{100 * m['accuracy']:.2f} %")
    if m["task"] == "label":
        cols[1].metric("Generated accuracy", f"{100 * m['generated_accuracy']:.2f} %",
                       help="labels generated by sampling the states, then the emissions: the paper's accuracy")
    cols[2].metric("Predictive entropy", f"{m['entropy']:.1f} %",
                   help="mean entropy of the predictive distribution, bits x100")
    cols[3].metric("H(true | predicted)", f"{m['confusion_entropy']:.1f} %",
                   help="the authors' 'entropy': conditional entropy of the confusion matrix, bits x100")
    cols[4].metric("Run time", f"{m['seconds']:.1f} s")
    if m.get("k") is not None and m["task"] == "label":
        st.caption(f"Learned size vector k = {m['k']} · SSVS acceptance {100 * m['accept_k']:.0f} % · "
                   f"state acceptance {100 * m['accept_states']:.0f} %")

    left, right = st.columns([1, 1])
    with left:
        if m["task"] == "label":
            gen = st.toggle("Confusion of the generated labels", value=True)
            cm = m["generated_confusion"] if gen else m["confusion"]
            names = [f"{i} ({i - 1} ch.)" if ternary(cfg) else str(i) for i in range(1, len(cm) + 1)]
            chart(confusion_figure(cm, names, title="Confusion matrix (rows: true label)"),
                            key=S.key("cm"), describe=_confusion_lead(cm, "labels", "generated" if gen else "predicted"))
        else:
            chart(confusion_figure(m["confusion"], m["classes"], title="Confusion matrix (rows: true class)"),
                            key=S.key("cm"), describe=_confusion_lead(m["confusion"], "classes", "predicted"))
    with right:
        chart(loglik_figure(result.curves["loglik"]), key=S.key("ll"),
              describe=f"The model's log-likelihood at each of its {len(result.curves['loglik']):,} recorded iterations.")
        ks = {k: v for k, v in result.curves.items() if k.startswith("k[")}
        if ks:
            chart(k_trace_figure(ks), key=S.key("k"),
                  describe=f"The sampled size of each of the {len(ks)} entries of k ({', '.join(ks)}) per iteration; "
                  f"learned k = {m['k']}.")

    try:
        test = test_trees(cfg.test, cfg.synthetic_trees)
    except EngineError as exc:
        st.error(public_message(exc))
        return
    st.header("A test tree")
    if S.test_tree > test.n_trees:
        S.test_tree = test.n_trees
    address_bar.write_query("bhtmm")
    t = widget(SPEC, "test_tree", hi=test.n_trees) - 1
    s = test.tree_nodes(t)
    tree = test.to_tree(t)
    true = [str(int(v) + 1) for v in test.labels[s]]
    if m["task"] == "label":
        kind = st.radio("Labels shown", ["generated", "predicted"], horizontal=True,
                        format_func={"generated": "generated by sampling (paper)",
                                     "predicted": "most probable"}.get)
        pred = result.artefacts[kind][s.start:s.stop]
        wrong = sum(str(a) != b for a, b in zip(pred, true))
        rule = " Label = number of children + 1 on these ternary trees." if ternary(cfg) else ""
        st.caption(f"Tree {t + 1}: {tree.n} nodes, {wrong} wrong label(s), drawn as vermillion squares marked ✗.{rule}")
        chart(labelled_tree_figure(tree, pred, true), key=S.key("tree_fig"), name=f"bhtmm_tree_{t + 1}",
              describe=f"Test tree {t + 1}: {tree.n} nodes, each with its {kind} label; {wrong} of them wrong.")
    else:
        yp, yt = result.artefacts["predicted_class"][t], result.artefacts["true_class"][t]
        st.caption(f"Tree {t + 1}: class {yt}, predicted {yp} "
                   f"({'right' if yp == yt else 'wrong'}; posterior {result.artefacts['posterior_max'][t]:.2f}).")
        chart(labelled_tree_figure(tree, true, true), key=S.key("tree_fig"), name=f"bhtmm_tree_{t + 1}",
              describe=f"Test tree {t + 1}: {tree.n} nodes, each with its label; the tree's class {yt}, predicted {yp}.")


address_bar.page_head("bhtmm", "Hidden Tree Markov Models",
                "\"Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models\" (Castellana & Bacciu "
                "2019): a node's hidden state depends "
                "on the joint state of its children. TF-BHTMM factorises that transition with a Bayesian Tucker "
                "decomposition learned by Gibbs sampling; SP-BHTMM (Bacciu et al. 2012) mixes one transition per "
                "child position and is trained by EM.",
                BINDS)
params, cfg, go = settings()
store = S.setdefault("runs", {})
if go or address_bar.run_once("bhtmm", cfg):
    result = launch(cfg, run, label=f"Training {NAMES[cfg.model]}", reuse=True)
    if result is not None:
        key = (SPEC.with_defaults(params)["source"], cfg.task)
        store.setdefault(key, {})[cfg.model] = (params, cfg, result)
        S.last = (key, cfg.model)

last = S.last
if last is None:
    st.info("Choose the data and the model, then **Train and evaluate**. The synthetic source (a few "
            "seconds) reproduces the labelling task of section IV-B; run both models to compare them "
            "with the paper's tables.")
else:
    key, model = last
    _, cfg, result = store[key][model]
    st.header(f"{run_name(result.metrics)} · {'node labelling' if cfg.task == 'label' else 'classification'} · "
                 f"C = {cfg.states}, {cfg.iterations} iterations")
    show(cfg, result)
    st.divider()
    paper_table({mm: r[2] for mm, r in store[key].items()}, cfg.task, key[0], cfg.states)
