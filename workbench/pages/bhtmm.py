"""Hidden Tree Markov Models: TF-BHTMM and SP-BHTMM on tree classification and node labelling."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from engine.files import public_message
from engine import datasets
from engine.errors import EngineError
from engine.htmm.run import SYNTHETIC, BhtmmConfig, load_data, run
from engine.htmm.sp import AUTHORS_CODE
from workbench.components import chart
from engine.pagespecs import PAGES
from workbench import links
from workbench.figures.htmm_figures import (confusion_figure, k_trace_figure, labelled_tree_figure,
                                            loglik_figure)
from workbench.runner import launch


#: Castellana & Bacciu (2019), Table III (symm labelling, C = 10): label -> (SP acc, TF acc, SP H, TF H)
TABLE_III = {"0": (55.47, 99.67, 35.49, 1.34), "1": (60.15, 79.59, 151.51, 65.61),
             "2": (45.84, 64.71, 180.88, 93.69), "3": (17.04, 29.68, 184.08, 97.71),
             "All": (53.08, 80.68, 140.38, 51.42)}
#: Table I (inex05 classification): C -> (SP acc, TF acc, SP H, TF H)
TABLE_I = {2: (87.55, 91.41, 34.19, 31.99), 4: (90.68, 93.65, 28.92, 25.00), 6: (93.81, 95.10, 24.30, 20.91),
           8: (93.15, 94.28, 23.59, 23.12), 10: (93.30, 95.21, 21.77, 20.60)}
NAMES = {"tf": "TF-BHTMM", "sp": "SP-BHTMM"}


@dataclass(frozen=True)
class Params:
    source: str
    task: str
    model: str
    states: int
    iterations: int
    lmin: int
    lmax: int
    phi: float
    sampler: str
    init: str
    synthetic_trees: int
    seed: int
    sp_variant: str = "exact"


# SP-BHTMM implementations: options of BhtmmConfig
SP_VARIANTS = {"exact": {}, "paper": {"estep": "paper"}, "authors": AUTHORS_CODE}
SP_VARIANT_NAMES = {"exact": "exact EM (the model of eqs. 1–2)",
                    "paper": "authors' E-step only",
                    "authors": "authors' code, step for step (the published numbers)"}


SOURCE_LABELS = {"synthetic": "Synthetic ternary trees (section IV-B generator)",
                 "symm": "symm benchmark (600 / 180 trees)",
                 "inex05": "INEX 2005 benchmark (4,820 / 4,811 XML trees)"}


def sources() -> dict[str, tuple[str, str]]:
    out = {SOURCE_LABELS["synthetic"]: (SYNTHETIC, SYNTHETIC)}
    found = datasets.available("trees")
    for name in ("symm", "inex05"):
        if name in found:
            tr, te = found[name]
            out[SOURCE_LABELS[name]] = (str(tr), str(te))
    return out


def _shown() -> bool:
    last = st.session_state.get("bhtmm_last")
    if last is None:
        return False
    key, model = last
    return st.session_state["bhtmm_runs"][key][model][0] == st.session_state.get("bhtmm_params_now")


def _range_bind(end: int) -> links.Bind:
    """L_min (end 0) or L_max (end 1) of the range slider."""
    def seed(v):
        lo_hi = list(st.session_state.get("bhtmm_lrange", (1, 3)))
        lo_hi[end] = (1, 3)[end] if v is None else int(v)
        st.session_state["bhtmm_lrange"] = (min(lo_hi), max(lo_hi))

    return links.Bind(seed=seed, read=lambda: st.session_state.get("bhtmm_lrange", (1, 3))[end])


LINK = {"source": links.choice("bhtmm_source", SOURCE_LABELS), "task": "bhtmm_task", "model": "bhtmm_model",
        "states": "bhtmm_states", "iterations": "bhtmm_iterations", "synthetic": "bhtmm_synthetic",
        "lmin": _range_bind(0), "lmax": _range_bind(1), "phi": "bhtmm_phi", "sampler": "bhtmm_sampler",
        "init": "bhtmm_init", "sp": "bhtmm_sp_variant", "seed": "bhtmm_seed", "run": links.run_bind("bhtmm", _shown),
        "test_tree": "bhtmm_tree"}


@st.cache_resource(show_spinner="Loading test trees")
def test_trees(spec: str, n_per_class: int):
    return load_data(spec, test=True, n_per_class=n_per_class)


def settings() -> tuple[Params, BhtmmConfig, bool]:
    """The settings, their run configuration, and whether the user asked to train."""
    src = sources()
    if st.session_state.get("bhtmm_source", SOURCE_LABELS["synthetic"]) not in src:
        st.warning(f"{st.session_state['bhtmm_source']}: not in the data folder; the synthetic source is shown.")
        st.session_state["bhtmm_source"] = SOURCE_LABELS["synthetic"]
    with st.form("bhtmm_settings"):
        c1, c2, c3 = st.columns(3)
        with c1:
            source = st.selectbox("Data", list(src), help="train / test trees", key="bhtmm_source")
            task = st.radio("Task", ["label", "classify"], horizontal=True, key="bhtmm_task",
                            format_func={"label": "node labelling", "classify": "classification"}.get)
            model = st.radio("Model", ["tf", "sp"], horizontal=True, format_func=NAMES.get, key="bhtmm_model")
        with c2:
            states = st.slider("Hidden states C", 2, 12, 10, key="bhtmm_states")
            iterations = st.slider("Iterations", 1, 200, 30, key="bhtmm_iterations")
            synthetic = st.slider("Synthetic trees per class (training)", 5, 200, 40, key="bhtmm_synthetic",
                                  help="test: 30 % of that; only for the synthetic source")
        with c3:
            lmin, lmax = st.slider("Important positions L_min … L_max (TF)", 0, 8, (1, 3), key="bhtmm_lrange")
            phi = st.number_input("Size prior φ (TF)", 0.0, 10.0, 2.0, 0.5, key="bhtmm_phi")
            sampler = st.selectbox("Hidden-state sampler (TF)", ["exact", "prior"], key="bhtmm_sampler",
                                   format_func={"exact": "exact joint draw",
                                                "prior": "paper's prior proposal (Alg. 1)"}.get)
            init = st.selectbox("Start (TF)", ["sp", "prior"], key="bhtmm_init",
                                format_func={"sp": "states from a short SP-BHTMM run",
                                             "prior": "parameters from the priors (paper)"}.get)
            sp_variant = st.selectbox("SP-BHTMM implementation", list(SP_VARIANTS), key="bhtmm_sp_variant",
                                      format_func=SP_VARIANT_NAMES.get,
                                      help="The authors' code differs from the model in three ways: its E-step, "
                                           "a leaf may be explained as an empty slot (⊥), and its M-step "
                                           "sums the counts of all iterations. Together, not the "
                                           "switching-parent approximation, they bring SP-BHTMM down "
                                           "to the published 53 % on symm")
            seed = st.number_input("Seed", 0, 10**6, 0, key="bhtmm_seed")
        go = st.form_submit_button("Train and evaluate", type="primary")
    p = Params(source, task, model, int(states), int(iterations), int(lmin), int(max(lmax, 1)),
               float(phi), sampler, init, int(synthetic), int(seed), sp_variant)
    st.session_state["bhtmm_params_now"] = p
    token = next(t for t, label in SOURCE_LABELS.items() if label == source)
    # the run configuration of these settings, as a lesson's link describes it (engine.pagespecs)
    cfg = PAGES["bhtmm"].run_config({"source": token, "task": task, "model": model, "states": p.states,
                        "iterations": p.iterations, "synthetic": p.synthetic_trees, "lmin": p.lmin, "lmax": p.lmax,
                        "phi": p.phi, "sampler": sampler, "init": init, "sp": sp_variant, "seed": p.seed})
    return p, cfg, go


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
    if "inex" not in source and task == "classify" or "symm" not in source and "Synthetic" not in source and task == "label":
        st.caption("The published numbers are for a different data set; they are shown for orientation.")


def ternary(cfg: BhtmmConfig) -> bool:
    """The data of section IV-B (synthetic generator, symm), where a label is the number of children + 1."""
    return cfg.train == SYNTHETIC or "symm" in Path(cfg.train).name


def show(p: Params, cfg: BhtmmConfig, result):
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
                            key="bhtmm_cm")
        else:
            chart(confusion_figure(m["confusion"], m["classes"], title="Confusion matrix (rows: true class)"),
                            key="bhtmm_cm")
    with right:
        chart(loglik_figure(result.curves["loglik"]), key="bhtmm_ll")
        ks = {k: v for k, v in result.curves.items() if k.startswith("k[")}
        if ks:
            chart(k_trace_figure(ks), key="bhtmm_k")

    try:
        test = test_trees(cfg.test, cfg.synthetic_trees)
    except EngineError as exc:
        st.error(public_message(exc))
        return
    st.subheader("A test tree")
    if st.session_state.get("bhtmm_tree", 1) > test.n_trees:
        st.session_state["bhtmm_tree"] = test.n_trees
    links.write_query("bhtmm")
    t = st.slider("Test tree", 1, test.n_trees, 1, key="bhtmm_tree") - 1
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
        chart(labelled_tree_figure(tree, pred, true), key="bhtmm_tree_fig", name=f"bhtmm_tree_{t + 1}")
    else:
        yp, yt = result.artefacts["predicted_class"][t], result.artefacts["true_class"][t]
        st.caption(f"Tree {t + 1}: class {yt}, predicted {yp} "
                   f"({'right' if yp == yt else 'wrong'}; posterior {result.artefacts['posterior_max'][t]:.2f}).")
        chart(labelled_tree_figure(tree, true, true), key="bhtmm_tree_fig", name=f"bhtmm_tree_{t + 1}")


links.page_head("bhtmm", "Hidden Tree Markov Models",
                "\"Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models\" (Castellana & Bacciu "
                "2019): a node's hidden state depends "
                "on the joint state of its children. TF-BHTMM factorises that transition with a Bayesian Tucker "
                "decomposition learned by Gibbs sampling; SP-BHTMM (Bacciu et al. 2012) mixes one transition per "
                "child position and is trained by EM.",
                LINK)
p, cfg, go = settings()
store = st.session_state.setdefault("bhtmm_runs", {})
if go or links.run_once("bhtmm", cfg):
    result = launch(cfg, run, label=f"Training {NAMES[p.model]}")
    if result is not None:
        key = (p.source, p.task)
        store.setdefault(key, {})[p.model] = (p, cfg, result)
        st.session_state["bhtmm_last"] = (key, p.model)

last = st.session_state.get("bhtmm_last")
if last is None:
    st.info("Choose the data and the model, then **Train and evaluate**. The synthetic source (a few "
            "seconds) reproduces the labelling task of section IV-B; run both models to compare them "
            "with the paper's tables.")
else:
    key, model = last
    p, cfg, result = store[key][model]
    st.subheader(f"{run_name(result.metrics)} · {'node labelling' if p.task == 'label' else 'classification'} · "
                 f"C = {p.states}, {p.iterations} iterations")
    show(p, cfg, result)
    st.divider()
    paper_table({mm: r[2] for mm, r in store[key].items()}, p.task, p.source, p.states)
