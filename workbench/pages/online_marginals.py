"""Online Marginals: evidence arrives one vertex at a time; each update and each marginal walks one
path of the cover's decomposition tree D instead of running a full belief-propagation pass
("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, section 4)."""

from __future__ import annotations

import json
from dataclasses import astuple, dataclass

import numpy as np
import pandas as pd
import streamlit as st

from engine.jsonio import loads
from engine.errors import EngineError
from engine.files import browser_paths, public_message
from engine.inference.belief_propagation import belief_propagation, bp_work
from engine.inference.online import OnlineModel, largest_difference_from_bp, random_ops
from engine.inference.potentials import potts_interaction
from engine.inference.scenario import apply_op, build_model, parse_scenario, scenario_to_dict
from workbench.figures.inference_figures import (
    PROB_SCALE,
    d_figure,
    difference_bars,
    marginal_bars,
    probability_colours,
    work_bars,
)
from workbench.figures.tree_figure import tree_figure
from workbench.state import current_tree, set_tree
from workbench.text import md

COLOUR_LIMIT = 5000   # colour every vertex by its marginal up to this size
D_LIMIT = 3000        # draw D up to this many nodes


@dataclass(frozen=True)
class OnlineParams:
    k: int
    matrix: tuple          # k x k potential of every edge: rows the parent's label, columns the child's
    cover: str


def _params(tree) -> OnlineParams:
    c1, c2, c3 = st.columns([1, 2, 1])
    with c1:
        st.session_state.setdefault("om_k", 2)
        k = st.slider("Labels k", 2, 5, key="om_k")
    with c2:
        mode = st.radio("Edge potential", ["Potts coupling", "Edit matrix"], horizontal=True, key="om_mode")
        if mode == "Potts coupling":
            coupling = st.slider("Coupling (diagonal = e^coupling, off-diagonal 1)", -3.0, 3.0, 1.0, 0.1,
                                 key="om_coupling")
            matrix = potts_interaction(k, coupling)
        else:
            start = st.session_state.get("om_matrix_start")
            if start is None or len(start) != k:
                start = potts_interaction(k, 1.0).tolist()
            df = st.data_editor(pd.DataFrame(start, columns=[f"→{b}" for b in range(k)],
                                             index=[f"{a}" for a in range(k)]),
                                key=f"om_matrix_{k}_{abs(hash(json.dumps(start)))}")
            st.caption("ψ(parent = row, child = column) on every edge, parents towards the root "
                       f"{tree.name(tree.root)}; entries >= 0, zero forbids a pair.")
            matrix = df.to_numpy(dtype=float)
    with c3:
        cover = st.radio("Cover", ["optimal", "rake-only"], key="om_cover",
                         help="optimal: height O(log n); rake-only: only leaves are merged, height "
                              "up to the diameter, but only k^2 work per level")
    return OnlineParams(int(k), tuple(map(tuple, np.asarray(matrix, float).tolist())), cover)


def _state(tree, p: OnlineParams):
    """The model for these parameters, rebuilt (O(n)) when they change."""
    # the page script (and so its dataclass) is re-executed each run: compare plain tuples
    key = (st.session_state.get("tree_version", 0), st.session_state.get("tree_source"), tree.n,
           astuple(p))
    s = st.session_state.get("om_state")
    pending = st.session_state.pop("om_pending", None)
    if pending is not None:   # a loaded scenario, already replayed
        sc = pending["scenario"]
        start = build_model(sc)   # the scenario's starting point (before its ops) is the prior
        prior = belief_propagation(tree, start.node_data, start.edge_potentials(), k=p.k).marginals
        ev = {}
        for op in sc.ops:
            if "update" in op:
                ev[tree.index(op["update"])] = op["data"]
        # kept so that saving again writes the same starting point (overrides, node data, root)
        base = {"edge_potentials": sc.edge_potentials, "node_data": sc.node_data, "root": sc.root}
        s = {"key": key, "model": pending["model"], "prior": prior, "ops": list(sc.ops), "evidence": ev,
             "base": base}
        st.session_state["om_state"] = s
    if s is None or s["key"] != key:
        M = np.asarray(p.matrix)
        model = OnlineModel(tree, p.k, M, None, cover=p.cover)
        prior = belief_propagation(tree, None, M, k=p.k).marginals
        s = {"key": key, "model": model, "prior": prior, "ops": [], "evidence": {}, "base": {}}
        st.session_state["om_state"] = s
    return s


def _log(s, op):
    s["ops"].append(op)


def _evidence(kind, v, k):
    """Button callback (runs before the page redraws): observe a label, soft evidence or clear."""
    s = st.session_state["om_state"]
    model = s["model"]
    if kind == "observe":
        label = st.session_state.get("om_label", 0)
        data = [1.0 if a == label else 0.0 for a in range(k)]
    elif kind == "soft":
        data = [float(st.session_state.get(f"om_soft_{a}", 1.0)) for a in range(k)]
    else:
        data = [1.0] * k
    try:
        model.update(v, data)
    except EngineError as exc:
        st.session_state["om_error"] = str(exc)
        return
    _log(s, {"update": model.tree.name(v), "data": data})
    if kind == "clear":
        s["evidence"].pop(v, None)
    else:
        s["evidence"][v] = data


st.title("Online Marginals")
st.caption('"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale), section 4: after'
           " one O(n) initialisation each piece of evidence and each "
           "marginal costs one walk along a path of the decomposition tree D (O(height)), not a "
           "full belief-propagation pass. Click a vertex, set evidence, and watch the path of D light up.")

# A loaded scenario sets widget values: done here, before any widget exists, because Streamlit
# refuses to change the state of a widget already drawn in this run (the load button sits below).
for _key, _value in st.session_state.pop("om_load_widgets", {}).items():
    st.session_state[_key] = _value

tree = current_tree()
if tree.n < 3:
    st.info("This page needs a tree with at least three vertices: load or generate one in Tree Studio.")
    st.stop()

try:
    params = _params(tree)
    s = _state(tree, params)
except EngineError as exc:
    st.error(public_message(exc))
    st.stop()

model: OnlineModel = s["model"]
k = params.k
sel = st.session_state.get("om_selected", int(tree.root))
if sel >= tree.n:
    sel = int(tree.root)

left, right = st.columns([3, 2])
with left:
    colour = None
    post = None
    if tree.n <= COLOUR_LIMIT:
        post = model.marginals()
        colour = post[:, 0].tolist()
    fig = tree_figure(tree, color=colour, colorscale=PROB_SCALE, highlight=sorted(s["evidence"]),
                      selected=sel, title="The tree T", height=460)
    event = st.plotly_chart(probability_colours(fig), on_select="rerun", key="om_tree",
                            selection_mode=("points",))
    st.caption("Colour: P(label 0). Ringed: the selected vertex and the vertices with evidence. "
               "Click a vertex to query its marginal.")
    pts = event["selection"]["points"] if event else []
    picked = [int(p["customdata"]) for p in pts if "customdata" in p]
    if picked and picked[0] != sel:
        sel = picked[0]
        st.session_state["om_selected"] = sel
        model.marginal(sel)
        _log(s, {"marginal": tree.name(sel)})
with right:
    last = model.last_op
    touched = last.touched if last is not None else ()
    if model.cover is not None and model.cover.m <= D_LIMIT:
        C = model.cover
        st.plotly_chart(d_figure(C.to_tree(), touched, kinds=C.kind,
                                 title=f"Decomposition tree D (height {C.height})"),
                        key="om_d")
        st.caption("Red: the D nodes the last operation touched (one path, at most height + 1 nodes).")
    else:
        st.info(f"D has {model.cover.m:,} nodes (height {model.height}); not drawn above {D_LIMIT:,}.")

name = tree.name(sel)
st.subheader(f"Vertex {md(name)}")
b1, b2 = st.columns([2, 3])
with b1:
    marg = model.marginal(sel, record=False)
    st.plotly_chart(marginal_bars(marg, s["prior"][sel], title=f"P(x_{name})"), key="om_bars")
with b2:
    st.markdown("**Evidence at this vertex**")
    e1, e2 = st.columns(2)
    with e1:
        label = st.selectbox("Observed label", list(range(k)), key="om_label")
        st.button("Observe label", key="om_observe", type="primary", on_click=_evidence,
                  args=("observe", sel, k))
        st.button("Clear evidence", key="om_clear", on_click=_evidence, args=("clear", sel, k))
    with e2:
        soft = [st.slider(f"weight of label {a}", 0.0, 1.0, 1.0, 0.05, key=f"om_soft_{a}") for a in range(k)]
        st.button("Apply soft evidence", key="om_apply", on_click=_evidence, args=("soft", sel, k))
    if st.session_state.get("om_error"):
        st.error(public_message(st.session_state.pop("om_error")))

rep = model.last_op
n_ops = sum(1 for op in s["ops"] if "update" in op or "marginal" in op)
full = bp_work(tree.n, k)
m1, m2, m3, m4 = st.columns(4)
m1.metric("Cover height", model.height)
m2.metric("Last operation", rep.op if rep else "—", help="the D nodes it touched are red in D")
m3.metric("Its work (multiply-adds)", f"{rep.work:,}" if rep else "—",
          delta=f"{rep.work / full:.1%} of a BP pass" if rep else None, delta_color="off",
          delta_arrow="off")   # a share, not a rise: no arrow
m4.metric("One full BP pass", f"{full:,}")
if n_ops:
    st.plotly_chart(work_bars(model.total_work, full, n_ops), key="om_work")

st.divider()
r1, r2, r3 = st.columns(3)
with r1:
    count = st.number_input("Random stream: operations", 2, 5000, 50, step=10, key="om_count")
    seed = st.number_input("Seed", 0, 10 ** 6, 0, key="om_seed")
    if st.button("Play random stream", key="om_play"):
        ops = random_ops(tree, k, int(count), seed=int(seed))
        bar = st.progress(0.0, text="playing")
        skipped = 0
        for i, op in enumerate(ops):
            try:
                apply_op(model, len(s["ops"]), op)
                _log(s, op)
                if "update" in op:
                    s["evidence"][tree.index(op["update"])] = op["data"]
            except EngineError:
                skipped += 1
            if i % 25 == 0:
                bar.progress((i + 1) / len(ops), text=f"operation {i + 1} of {len(ops)}")
        bar.empty()
        st.success(f"Played {len(ops) - skipped} operations"
                   + (f" ({skipped} skipped: inconsistent evidence)" if skipped else "")
                   + f"; total work {model.total_work:,} multiply-adds vs {len(ops) * full:,} for one "
                     "BP pass per operation.")
with r2:
    if st.button("Check against BP", key="om_check"):
        try:
            d = largest_difference_from_bp(model)
            (st.success if d < 1e-9 else st.warning)(
                f"Largest |online − BP| over all vertices and labels: {d:.2e}")
        except EngineError as exc:
            st.error(public_message(exc))
with r3:
    sc = scenario_to_dict({"edges": [list(e) for e in tree.named_edges()]}, k, np.asarray(params.matrix),
                          cover=params.cover, ops=s["ops"], **s.get("base", {}))
    st.download_button("Save scenario", json.dumps(sc, indent=1), file_name="scenario.json",
                       mime="application/json", key="om_save")
    up = st.file_uploader("Load scenario", type=["json"], key="om_load")
    if up is not None and st.session_state.get("om_loaded") != up.file_id:
        try:
            # an uploaded scenario may name samples and data-folder files only, never a server path
            sco = parse_scenario(loads(up.getvalue(), where=up.name), paths=browser_paths())
            loaded = build_model(sco)
            for i, op in enumerate(sco.ops):
                apply_op(loaded, i, op)
            set_tree(sco.tree, f"scenario {up.name}")
            st.session_state["om_loaded"] = up.file_id
            st.session_state["om_load_widgets"] = {"om_k": sco.k, "om_mode": "Edit matrix",
                                                   "om_matrix_start": sco.edge_potential.tolist(),
                                                   "om_cover": sco.cover}
            st.session_state["om_pending"] = {"model": loaded, "scenario": sco}
            st.rerun()
        except (EngineError, ValueError) as exc:
            st.error(f"cannot load the scenario: {public_message(exc)}")

if tree.n <= 60 and post is not None:
    st.plotly_chart(difference_bars(tree.names, post - s["prior"]), key="om_diff")
