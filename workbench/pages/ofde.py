"""OFDE vs Chow-Liu: learn a Markov tree (or forest) one sample at a time and watch it catch up
with the batch Chow-Liu tree (Koriche, "Online Forest Density Estimation", Figure 2)."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import streamlit as st

from engine import datasets
from engine.errors import EngineError
from engine.files import public_message
from engine.forests.run import OfdeConfig, run
from workbench.declarations.page_table import PAGES
from workbench import address_bar
from workbench.components import chart
from workbench.figures.forest_figures import (THEIRS_ONLY, forest_layout, learning_curve_figure, round_time_figure,
                                             structure_figure)
from workbench.runner import launch
from workbench.session import PageState
from workbench.widgets import widget

SPEC = PAGES["ofde"]
SCALES = (1.0, 0.3, 0.1, 0.03)
UPLOAD = "Upload CSV"                      # a source no link names: the user's own files
SYNTHETIC_ONLY = ("vars", "train", "data_seed")


class OfdeState(PageState, page="ofde"):
    result: tuple | None = None            # (settings, result) of the run shown
    tradeoff: tuple | None = None          # (settings, curves by scale, metrics) of the scale comparison
    params_now: tuple | None = None        # the settings now: (source shown, their values)
    upload_dir: str | None = None          # this session's folder of uploaded files
    up_train: object = None                # the uploaded training file
    up_test: object = None                 # ... and test file
    run: bool = False                      # the buttons: Run OFDE
    trade: bool = False                    # ... Compare perturbation scales
    curve: None = None                     # the figures: the learning curve
    forest: None = None                    # ... the forest
    cl: None = None                        # ... the Chow-Liu tree
    time: None = None                      # ... the time of a round
    trade_fig: None = None                 # ... the perturbation trade-off


S = OfdeState()


def available_benchmarks() -> dict[str, tuple[Path, ...]]:
    """The density benchmarks present, in the page's order: name -> (train, valid, test)."""
    found = datasets.available("density")
    return {b: found[b] for b in SPEC.setting("benchmark").choices if b in found}


def save_upload(upload) -> str:
    """Write an uploaded file under its own name in this session's temporary folder."""
    folder = S.setdefault("upload_dir", tempfile.mkdtemp(prefix="ofde_"))
    path = Path(folder) / Path(upload.name).name
    path.write_bytes(upload.getvalue())
    return str(path)


def _shown() -> bool:
    stored = S.result
    return stored is not None and stored[0] == S.params_now


address_bar.page_head("ofde", "OFDE vs Chow-Liu",
                "\"Online Forest Density Estimation\" (Koriche): Jeffreys estimates for the parameters, Follow the "
                "Perturbed Leader over spanning trees or forests for the structure, a mixture of at most k "
                "structures kept by swap rounding. The batch Chow-Liu tree (CL) and thresholded forest (CLT) see "
                "the whole training set at once; OFDE sees one sample per round.",
                {"run": address_bar.run_bind("ofde", _shown)})
benchmarks = available_benchmarks()
data = SPEC.setting("data")
controls, main = st.columns([1, 3], gap="large")
with controls:
    sources = [data.widget_value("synthetic")] + ([data.widget_value("benchmark")] if benchmarks else []) + [UPLOAD]
    if S.data not in sources:
        st.warning("No benchmark is in the data folder: the synthetic source is shown.")
        S.data = sources[0]
    if S.has("benchmark") and S.benchmark is not None and S.benchmark not in benchmarks:
        st.warning(f"Benchmark {S.benchmark} is not in the data folder.")
        del S.benchmark
    source = widget(SPEC, "data", options=sources)
    token = data.token_of(source)          # synthetic, benchmark, or None: an upload
    up_train = up_test = None
    if token == "synthetic":
        widget(SPEC, "vars")
        widget(SPEC, "train")
        widget(SPEC, "data_seed")
    elif token == "benchmark":
        widget(SPEC, "benchmark", options=list(benchmarks))
        st.caption("One pass over kdd or msnbc takes one to three minutes; set a number of rounds to stop earlier.")
    else:
        up_train = st.file_uploader("Training CSV", type=["csv", "data", "gz", "txt"], key=S.key("up_train"))
        up_test = st.file_uploader("Test CSV", type=["csv", "data", "gz", "txt"], key=S.key("up_test"))
        st.caption("Comma-separated small integer codes (0, 1, 2, ...), one sample per line, optional header.")
    widget(SPEC, "experts", horizontal=True)
    widget(SPEC, "mixture")
    widget(SPEC, "scale")
    widget(SPEC, "rounds")
    widget(SPEC, "seed")
    values = {k: v for k, v in SPEC.run_values(address_bar.values(SPEC)).items()   # a widget not drawn now does not count
              if (token == "synthetic" or k not in SYNTHETIC_ONLY) and (token == "benchmark" or k != "benchmark")}
    params = (source, values)
    S.params_now = params
    scale_now = SPEC.setting("scale").config_value(values.get("scale", SPEC.setting("scale").default))
    go_run = st.button("Run OFDE", type="primary", key=S.key("run"), width="stretch")
    go_trade = st.button("Compare perturbation scales", key=S.key("trade"), width="stretch")


def config_for(values: dict, scale: float | None = None) -> OfdeConfig | None:
    """The run configuration of the settings (with another perturbation ``scale``): the spec's, with
    the files of an upload."""
    if scale is not None:
        values = {**values, "scale": f"{scale:g}"}
    if token is None:
        if up_train is None or up_test is None:
            st.error("upload a training CSV and a test CSV first")
            return None
        return dataclasses.replace(SPEC.run_config(values), train=save_upload(up_train), test=save_upload(up_test),
                                   valid="")
    return SPEC.run_config(values)


with main:
    if not go_run and token is not None:
        try:
            go_run = address_bar.run_once("ofde", config_for(values))
        except EngineError as exc:
            st.error(public_message(exc))
    if go_run:
        try:
            cfg = config_for(values)
        except EngineError as exc:
            st.error(public_message(exc))
            cfg = None
        if cfg is not None:
            res = launch(cfg, run, label="Learning online", reuse=True)
            if res is not None:
                S.result = (params, res)
    if go_trade:
        curves, last = {}, None
        for s in SCALES:
            cfg = config_for(values, s)
            if cfg is None:
                break
            res = launch(cfg, run, label=f"Perturbation scale {s:g}", reuse=True)
            if res is None:
                break
            curves[f"scale {s:g}" + (" (paper)" if s == 1.0 else "")] = res.metrics["curve"]
            last = res
            if s == 1.0 or s == scale_now:
                S.result = ((source, {**values, "scale": f"{s:g}"}), res)
        if last is not None and len(curves) == len(SCALES):
            S.tradeoff = (params, curves, last.metrics)

    stored = S.result
    if stored is None:
        st.info("Choose a data set and press **Run OFDE**. The synthetic source samples a random Markov tree, "
                "so the page works without any download.")
    else:
        p, res = stored
        m, a = res.metrics, res.artefacts
        if p != params:
            st.caption("Showing the last run; the settings have changed since.")
        c1, c2, c3, c4, c5, c6 = st.columns(6)
        c1.metric("OFDE final", f"{m['final_test_loglik']:.3f}", help="average test log-likelihood, nats")
        c2.metric("Chow-Liu", f"{m['chowliu_test_loglik']:.3f}")
        c3.metric("CLT", "—" if m["clt_test_loglik"] is None else f"{m['clt_test_loglik']:.3f}")
        c4.metric("Gap to CL", f"{m['gap_to_chowliu']:.3f}",
                  help="Chow-Liu minus OFDE, nats. With the paper's perturbation (scale 1) the final forest "
                       "is one random draw: change the seed and the gap moves (nltcs: mean 0.118, sd 0.05 "
                       "over 100 seeds; the public Python OFDE 0.125). A smaller scale steadies it.")
        c5.metric("ms / round", f"{m['per_round_ms_median']:.3f}", help="median time per round")
        c6.metric("Edges ≠ CL", m["shd_to_chowliu"], help="structural Hamming distance to the Chow-Liu tree")
        tab_curve, tab_struct, tab_time, tab_trade = widget(SPEC, "tab", on_change="rerun")
        with tab_curve:
            levels = {"Chow-Liu": m["chowliu_test_loglik"], f"CLT (eps {m['clt_epsilon']})": m["clt_test_loglik"]}
            label = f"OFDE over {m['model']} (k={m['mixture_size']}, scale {m['perturbation_scale']:g})"
            chart(learning_curve_figure({label: m["curve"]}, levels), width="stretch", key=S.key("curve"),
                  name="ofde_learning_curve",
                  describe=f"Average test log-likelihood of OFDE over {m['rounds']:,} rounds on {m['n_vars']} "
                  f"variables: {m['final_test_loglik']:.3f} at the end, against {m['chowliu_test_loglik']:.3f} for "
                  f"the Chow-Liu tree (gap {m['gap_to_chowliu']:.3f} nats).")
            st.caption(f"{m['rounds']:,} rounds over {m['n_train']:,} training samples of {m['n_vars']} variables; "
                       f"average log-likelihood of {m['n_test']:,} test samples under the current mixture, "
                       "natural log.")
        with tab_struct:
            ours = {tuple(e) for e in m["edges"]}
            cl = {tuple(e) for e in a["chowliu_edges"]}
            left, right = st.columns(2)
            shared = forest_layout(m["n_vars"], a["chowliu_edges"])  # one layout: same variable, same place
            with left:
                chart(structure_figure(m["n_vars"], m["edges"], names=a["names"], marked=ours - cl,
                                       title="OFDE: heaviest component", layout=shared),
                      width="stretch", key=S.key("forest"), name="ofde_forest",
                      describe=f"The forest OFDE learned on {m['n_vars']} variables: {len(ours):,} edges, "
                      f"{len(ours - cl):,} of them not in the Chow-Liu tree.")
            with right:
                chart(structure_figure(m["n_vars"], a["chowliu_edges"], names=a["names"], marked=cl - ours,
                                       title="Chow-Liu tree", mark_colour=THEIRS_ONLY[0], mark_dash=THEIRS_ONLY[1],
                                       layout=shared),
                      width="stretch", key=S.key("cl"), name="ofde_chow_liu",
                      describe=f"The Chow-Liu tree on {m['n_vars']} variables: {len(cl):,} edges, "
                      f"{len(cl - ours):,} of them not in OFDE's forest.")
            st.caption(f"Both drawn on the Chow-Liu tree's layout. Vermillion, thick and solid: OFDE edges the Chow-Liu "
                       f"tree lacks ({len(ours - cl)}); orange, thick and dashed: Chow-Liu edges OFDE lacks ({len(cl - ours)}). Mixture weights: "
                       + ", ".join(f"{c['weight']:.3f}" for c in a["mixture"]))
        with tab_time:
            chart(round_time_figure(res.curves["round_ms"]), width="stretch", key=S.key("time"), name="ofde_round_time",
                  describe=f"Time of each of OFDE's {m['rounds']:,} rounds: median {m['per_round_ms_median']:.3f} ms, "
                  f"90th percentile {m['per_round_ms_p90']:.3f} ms.")
            st.caption(f"Median {m['per_round_ms_median']:.3f} ms, 90th percentile {m['per_round_ms_p90']:.3f} ms "
                       "per round (play, update, perturbed leader, swap rounding; evaluation excluded).")
        with tab_trade:
            trade = S.tradeoff
            if trade is None:
                st.info("Press **Compare perturbation scales** to run OFDE with scales "
                        + ", ".join(f"{s:g}" for s in SCALES) + " on the same data. The paper's scale (1) "
                        "carries the regret guarantee; smaller perturbations follow the leader sooner.")
            else:
                _, curves, tm = trade
                chart(learning_curve_figure(curves, {"Chow-Liu": tm["chowliu_test_loglik"]},
                                            title="Smaller perturbations converge faster"),
                      width="stretch", key=S.key("trade_fig"), name="ofde_perturbation_tradeoff",
                      describe=f"OFDE's test log-likelihood with {len(curves)} perturbation scales on the same "
                      f"data, against {tm['chowliu_test_loglik']:.3f} for the Chow-Liu tree.")
                st.caption("Perturbations are uniform in [0, scale / beta_t] with beta_t = sqrt(2/t)/n. The regret "
                           "bound of section 5 needs scale 1; below it, FPL behaves more like Follow the Leader, "
                           "which has no guarantee against adversarial sequences but converges fast on i.i.d. data.")
