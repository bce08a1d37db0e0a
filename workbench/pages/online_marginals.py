"""Online Marginals: evidence arrives one vertex at a time; each update and each marginal walks one
path of the cover's decomposition tree D instead of running a full belief-propagation pass
("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, section 4).

Layout: the settings (labels, edge potential, cover) rerun the page and rebuild the model; the
lesson below them (the tree, the pick-by-name box, the marginal and the evidence buttons, D and
the work counters) is one fragment, so a click or a piece of evidence reruns only that. The state
of the lesson is an :class:`engine.inference.session.OnlineSession`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from engine.jsonio import loads
from engine.errors import EngineError
from engine.files import browser_paths, public_message
from engine.inference.belief_propagation import bp_work
from engine.networks import network_sample_names, read_sample_network
from engine.links.evidence import evidence_vectors
from engine.inference.online import random_ops
from engine.inference.potentials import potts_interaction
from engine.inference.scenario import parse_scenario
from engine.inference.session import OnlineSession
from workbench.components import (
    RING,
    Spec,
    as_spec,
    bars,
    chart,
    export_buttons,
    ring_trace,
    selected_vertex,
    tree_chart,
    tree_spec,
    vertex_box,
)
from workbench.figures.inference_figures import (PROB_SCALE, d_figure, difference_bars, marginal_bars, work_bar_names,
                                                 work_bars)
from workbench.figures.style import OKABE_ITO, category_colour
from workbench.figures.style import current as current_style
from workbench.figures.style import rich
from workbench import links
from workbench.state import current_tree, set_tree
from workbench.text import md, subscript

KEY = "om_tree"       # the clickable tree (its selection: workbench.components)
COLOUR_LIMIT = 5000   # colour every vertex by its marginal up to this size
D_LIMIT = 3000        # draw D up to this many nodes
D_AUTO = 1200         # ... by default up to this many (above, on request: it is resent on every click)
MAX_K = 5


NO_NETWORK = "(the current tree)"


@dataclass(frozen=True)
class OnlineParams:
    k: int
    matrix: tuple          # k x k potential of every edge: rows the parent's label, columns the child's
    cover: str
    network: str | None = None   # a sample network: its own tree, φ and ψ (then k and matrix are its)


@st.cache_resource(max_entries=8, show_spinner=False)
def _network(name: str):
    return read_sample_network(name)


def _page_tree():
    """The tree of the page: the chosen network's, else the current tree."""
    name = st.session_state.get("om_network")
    return _network(name).tree if name and name != NO_NETWORK else current_tree()


def _settings(tree) -> OnlineParams:
    c0, c1, c2, c3 = st.columns([1.2, 1, 2, 1])
    with c0:
        net_name = st.selectbox("Model", [NO_NETWORK] + [n.rsplit(".", 1)[0] for n in network_sample_names()],
                                key="om_network", help="A sample network brings its own tree, node potentials "
                                "φ and edge potentials ψ (sample_networks/).")
    if net_name != NO_NETWORK:
        net = _network(net_name)
        c1.metric("Labels k", net.k)
        c2.caption(f"Network **{net_name}** ({net.kind}, {net.tree.n} variables): its own φ and ψ on every "
                   "edge; evidence multiplies φ.")
        with c3:
            cover = st.radio("Cover", ["optimal", "rake-only"], key="om_cover")
        return OnlineParams(net.k, (), cover, net_name)
    with c1:
        k = st.slider("Labels k", 2, MAX_K, 2, key="om_k")
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
            st.session_state["om_matrix_now"] = tuple(map(tuple, np.asarray(matrix, float).tolist()))
    with c3:
        cover = st.radio("Cover", ["optimal", "rake-only"], key="om_cover",
                         help="optimal: height O(log n); rake-only: only leaves are merged, height "
                              "up to the diameter, but only k^2 work per level")
    return OnlineParams(int(k), tuple(map(tuple, np.asarray(matrix, float).tolist())), cover)


def _settings_key(tree, p: OnlineParams) -> tuple:
    return (tree.content_key, p.k, p.matrix, p.cover) + ((p.network,) if p.network else ())


def _session(tree, p: OnlineParams) -> OnlineSession:
    """This session's lesson for these settings; rebuilt (O(n)) when they or the tree change. A
    link's evidence waiting in ``om_evidence_link`` is applied, as it multiplies φ."""
    key = _settings_key(tree, p)
    if st.session_state.get("om_session_key") != key or "om_session" not in st.session_state:
        if p.network:
            net = _network(p.network)
            t = net.tree
            st.session_state["om_session"] = OnlineSession(
                t, net.k, np.ones((net.k, net.k)), cover=p.cover,
                edge_potentials={(t.name(int(a)), t.name(int(b))): net.edge_potentials[i]
                                 for i, (a, b) in enumerate(t.edges)},
                node_data={t.name(v): net.node_potentials[v] for v in range(t.n)})
        else:
            st.session_state["om_session"] = OnlineSession(tree, p.k, np.asarray(p.matrix), cover=p.cover)
        st.session_state["om_session_key"] = key
    s = st.session_state["om_session"]
    wanted = st.session_state.pop("om_evidence_link", None)
    if wanted is not None:
        _set_evidence(s, wanted)
    return s


def _states(s: OnlineSession):
    """The state names of a network's variables (None on the current tree)."""
    name = st.session_state.get("om_network")
    if name and name != NO_NETWORK and _network(name).tree is s.tree:
        return _network(name).states
    return None


def _phi(s: OnlineSession, v: int) -> np.ndarray:
    """φ_v of the session's start (ones, or a network's node potential)."""
    return np.asarray(s.node_data.get(s.tree.name(v), np.ones(s.k)), float)


def _set_evidence(s: OnlineSession, evidence: dict) -> None:
    """Make the session's evidence exactly ``evidence`` ({name: label or weights}, multiplying φ)."""
    wanted = evidence_vectors(evidence, s.tree, s.k, _states(s))
    for v in list(s.evidence):
        if v not in wanted:
            s.clear(v)
    for v, w in wanted.items():
        s.update(v, _phi(s, v) * np.asarray(w))


def _evidence_now() -> dict | None:
    """The session's evidence as a link gives it (label, state name or weights; φ divided out)."""
    s: OnlineSession | None = st.session_state.get("om_session")
    if s is None or not s.evidence:
        return None
    states = _states(s)
    out = {}
    for v, data in sorted(s.evidence.items()):
        card = len(states[v]) if states is not None else s.k
        phi = _phi(s, v)[:card]
        d = np.asarray(data, float)[:card]
        if np.any((phi == 0) & (d != 0)):
            continue
        w = np.divide(d, phi, out=np.zeros(card), where=phi > 0)
        nz = np.flatnonzero(w)
        if nz.size == 1 and np.allclose(w[nz], 1.0):
            out[s.tree.name(v)] = states[v][int(nz[0])] if states is not None else int(nz[0])
        else:
            out[s.tree.name(v)] = tuple(float(x) for x in w)
    return out or None


def _seed_psi(m) -> None:
    if m is None:
        st.session_state["om_mode"] = "Potts coupling"
        return
    if len(m) > MAX_K:
        raise ValueError(f"this page shows up to {MAX_K} labels")
    st.session_state["om_mode"] = "Edit matrix"
    st.session_state["om_matrix_start"] = [list(r) for r in m]
    st.session_state["om_k"] = len(m)


LINK = {
    "k": "om_k", "coupling": "om_coupling", "cover": links.choice("om_cover", {"optimal": "optimal", "rake": "rake-only"}),
    "psi": links.Bind(seed=_seed_psi, read=lambda: st.session_state.get("om_matrix_now")
                      if st.session_state.get("om_mode") == "Edit matrix" else None),
    "network": links.Bind("om_network", lambda name: name.rsplit(".", 1)[0],
                          lambda x: x if x in [n.rsplit(".", 1)[0] for n in network_sample_names()] else None),
    "evidence": links.Bind(seed=lambda e: st.session_state.__setitem__("om_evidence_link", e or {}),
                           read=_evidence_now),
    "vertex": links.vertex(f"{KEY}__vertex", _page_tree),
}


# ------------------------------------------------------------------ callbacks (run before the rerun)
def _query(v: int) -> None:
    st.session_state["om_session"].query(v)


def _evidence(kind: str) -> None:
    """Observe a label, apply soft evidence or clear, at the selected vertex."""
    s: OnlineSession = st.session_state["om_session"]
    v = selected_vertex(s.tree, KEY, s.tree.root)
    try:  # evidence multiplies φ_v (all ones on the current tree; a network's own φ)
        if kind == "observe":
            label = int(st.session_state.get("om_label", 0))
            s.update(v, _phi(s, v) * np.eye(s.k)[label])
        elif kind == "soft":
            s.update(v, _phi(s, v) * np.array([float(st.session_state.get(f"om_soft_{a}", 1.0)) for a in range(s.k)]))
        else:
            s.clear(v)
    except EngineError as exc:
        st.session_state["om_error"] = public_message(exc)


def _play() -> None:
    s: OnlineSession = st.session_state["om_session"]
    ops = random_ops(s.tree, s.k, int(st.session_state.get("om_count", 50)),
                     seed=int(st.session_state.get("om_seed", 0)))
    full = bp_work(s.tree.n, s.k)
    before = s.model.total_work
    played, skipped = s.play(ops)
    st.session_state["om_flash"] = ("success", f"Played {played} operations"
                                    + (f" ({skipped} skipped: inconsistent evidence)" if skipped else "")
                                    + f"; their work {s.model.total_work - before:,} multiply-adds vs "
                                      f"{len(ops) * full:,} for one BP pass per operation.")


def _check() -> None:
    s: OnlineSession = st.session_state["om_session"]
    try:
        d = s.largest_difference_from_bp()
    except EngineError as exc:
        st.session_state["om_flash"] = ("error", str(exc))
        return
    st.session_state["om_flash"] = ("success" if d < 1e-9 else "warning",
                                    f"Largest |online − BP| over all vertices and labels: {d:.2e}")


def _load_scenario() -> None:
    """Read an uploaded scenario (before the widgets exist, so the settings can follow it)."""
    up = st.session_state.get("om_load")
    if up is None:
        return
    try:
        # an uploaded scenario may name samples and data-folder files only, never a server path
        sc = parse_scenario(loads(up.getvalue(), where=up.name), paths=browser_paths())
        if sc.k > MAX_K:
            raise ValueError(f"this page shows up to {MAX_K} labels; the scenario has {sc.k} "
                             "(replay it with python -m engine online replay)")
        s = OnlineSession.from_scenario(sc)
    except (EngineError, ValueError) as exc:
        st.session_state["om_flash"] = ("error", f"cannot load the scenario {md(up.name)}: {public_message(exc)}")
        return
    set_tree(sc.tree, f"scenario {up.name}")
    matrix = sc.edge_potential.tolist()
    st.session_state.update({"om_k": sc.k, "om_mode": "Edit matrix", "om_matrix_start": matrix,
                             "om_cover": sc.cover, "om_session": s,
                             "om_session_key": (sc.tree.content_key, sc.k,
                                                tuple(map(tuple, np.asarray(matrix, float).tolist())), sc.cover)})
    st.session_state["om_flash"] = ("success", f"Loaded {up.name}: {len(sc.ops)} operations replayed.")


# ------------------------------------------------------------------ figures from cached bases
@st.cache_resource(max_entries=16, show_spinner=False,
                   hash_funcs={"engine.cover.hierarchical.HierarchicalCover":
                               lambda c: (c.tree.content_key, c.rake_only, c.s)})
def _d_base(cover, style) -> tuple:
    from engine.trees.layout import tidy_layout

    dtree = cover.to_tree()
    x, y = tidy_layout(dtree)
    fig = d_figure(dtree, (), kinds=cover.kind, title=f"Decomposition tree D (height {cover.height})",
                   layout=(x, y), style=style)
    return as_spec(fig), x, y


def _d_spec(cover, touched) -> Spec:
    base, x, y = _d_base(cover, current_style())
    vt = next(t for t in base["data"] if t.get("name") == "vertices")
    data = list(base["data"])
    if len(touched):
        size = float(vt["marker"].get("size", 7))
        fill = ring_trace(x, y, touched, size=size, colour=RING, width=1, name="touched")
        fill["marker"]["color"] = RING
        data += [fill, ring_trace(x, y, touched, size=size + 8, colour=RING, width=3, name="path")]
    return Spec({"data": data, "layout": base["layout"]})


def _marginal_bars(post, prior, states=None) -> None:
    """The marginal of the selected vertex beside its prior (no evidence), as light bars: they
    change with every click, and a chart would be built again in the browser each time (its
    Plotly figure, :func:`_bars_spec`, is drawn only for the SVG/PDF downloads)."""
    bars([(f"label {a}" if states is None else states[a], p, category_colour(a), f"{p:.3f}", q)
          for a, (p, q) in enumerate(zip(post, prior))],
         legend="bar: posterior · hatched: prior (no evidence)")


def _work_bars(online: int, bp: int, ops: int) -> None:
    """The multiply-adds of every online operation so far against one BP pass per operation."""
    passes = bp * max(ops, 1)
    spread = passes / max(online, 1)
    log = spread > 50 or spread < 1 / 50
    st.markdown("**Multiply-adds: online model vs one BP pass per operation**")
    ours, theirs = work_bar_names(ops)
    bars([(ours, online, OKABE_ITO["green"], f"{online:,}"),
          (theirs, passes, current_style().muted, f"{passes:,}")], log=log,
         legend=f"{spread:,.1f} times the work of the online model" + (" (log scale)" if log else ""))


# the Plotly figures of the two bar panels, drawn only for their SVG/PDF downloads
@st.cache_resource(max_entries=8, show_spinner=False)
def _bars_base(k: int, style) -> dict:
    return as_spec(marginal_bars(np.full(k, 1.0 / k), np.full(k, 1.0 / k), style=style))


def _bars_spec(post, prior, title: str) -> Spec:
    base = _bars_base(len(post), current_style())
    pr, po = (dict(t) for t in base["data"])
    pr["y"] = np.asarray(prior, float)
    po["y"] = np.asarray(post, float)
    po["text"] = [f"{p:.3f}" for p in post]
    return Spec({"data": [pr, po], "layout": dict(base["layout"], title=dict(base["layout"].get("title", {}),
                                                                            text=rich(title)))})


@st.cache_resource(max_entries=4, show_spinner=False)
def _work_base(style) -> dict:
    return as_spec(work_bars(1, 1, 1, style=style))


def _work_spec(online: int, bp: int, ops: int) -> Spec:
    """:func:`work_bars` for these counts, from its cached dict."""
    base = _work_base(current_style())
    spread = bp * max(ops, 1) / max(online, 1)
    bars = dict(base["data"][0], x=[online, bp * max(ops, 1)],
                y=work_bar_names(ops),
                text=[f"{online:,}", f"{bp * max(ops, 1):,}"])
    layout = dict(base["layout"], xaxis=dict(base["layout"].get("xaxis", {}),
                                             type="log" if spread > 50 or spread < 1 / 50 else "linear"))
    return Spec({"data": [bars], "layout": layout})


# ------------------------------------------------------------------ the lesson (one fragment)
@st.fragment
def lesson(tree) -> None:
    links.write_query("online_marginals")   # a click or evidence reruns only this: the address follows
    s: OnlineSession = st.session_state["om_session"]
    k = s.k
    sel = selected_vertex(tree, KEY, tree.root)
    left, right = st.columns([3, 2], gap="medium")
    with left:
        colour = s.marginals()[:, 0] if tree.n <= COLOUR_LIMIT else None
        spec = tree_spec(tree, title="The tree T", colour=colour, colour_scale=PROB_SCALE,
                         colour_title="P(label 0)", rings=sorted(s.evidence), selected=sel)
        tree_chart(tree, KEY, spec, default=tree.root, on_pick=_query)
        st.caption("Colour: P(label 0). Large red ring: the selected vertex; smaller orange rings: vertices with "
                   "evidence. Click a vertex (or pick it by name) to query its marginal.")
    with right:
        vertex_box(tree, KEY, default=tree.root, on_pick=_query)
        name = tree.name(sel)
        marg = s.marginal(sel)
        states = _states(s)
        shown = ", ".join(f"{p:.4f}" for p in marg) if states is None else \
            ", ".join(f"{md(a)} {p:.4f}" for a, p in zip(states[sel], marg))
        st.markdown(f"**P({md(subscript('x', name))})** = [{shown}]"
                    + (" · evidence " + str([round(float(x), 3) for x in s.evidence[sel]])
                       if sel in s.evidence else ""))
        _marginal_bars(marg, s.prior[sel], None if states is None else states[sel])
        export_buttons(_bars_spec(marg, s.prior[sel], f"P(x_{name})"), key="om_bars", name="marginal")
        e1, e2 = st.columns(2)
        with e1:
            if states is not None and st.session_state.get("om_label", 0) >= len(states[sel]):
                st.session_state["om_label"] = 0
            st.selectbox("Observed label", list(range(k if states is None else len(states[sel]))), key="om_label",
                         format_func=(lambda a: f"{a}") if states is None else (lambda a: states[sel][a]))
            st.button("Observe label", key="om_observe", type="primary", on_click=_evidence, args=("observe",))
            st.button("Clear evidence", key="om_clear", on_click=_evidence, args=("clear",))
        with e2:
            for a in range(k):
                st.slider(f"weight of label {a}", 0.0, 1.0, 1.0, 0.05, key=f"om_soft_{a}")
            st.button("Apply soft evidence", key="om_apply", on_click=_evidence, args=("soft",))
        if st.session_state.get("om_error"):
            st.error(st.session_state.pop("om_error"))

    model = s.model
    rep = model.last_op
    full = bp_work(tree.n, k)
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Cover height", model.height)
    m2.metric("Last operation", rep.op if rep else "—", help="the D nodes it touched are red and ringed in D")
    m3.metric("Its work (multiply-adds)", f"{rep.work:,}" if rep else "—",
              delta=f"{rep.work / full:.1%} of a BP pass" if rep else None, delta_color="off",
              delta_arrow="off")   # a share, not a rise: no arrow
    m4.metric("One full BP pass", f"{full:,}")
    d1, d2 = st.columns([3, 2])
    with d1:
        m_d = model.cover.m if model.cover is not None else 0
        if m_d and m_d <= D_LIMIT and (m_d <= D_AUTO or st.toggle(
                f"Draw D ({m_d:,} nodes)", key="om_draw_d",
                help="Off by default for large trees: D is sent again after every click.")):
            chart(_d_spec(model.cover, rep.touched if rep else ()), key="om_d", name="decomposition_tree")
            st.caption("Red and ringed: the D nodes the last operation touched (one path, at most height + 1 nodes).")
        elif m_d > D_LIMIT:
            st.info(f"D has {m_d:,} nodes (height {model.height}); not drawn above {D_LIMIT:,}.")
        if m_d and rep is not None:
            st.caption(f"The last operation touched {len(rep.touched)} of the {m_d:,} nodes of D.")
    with d2:
        n_ops = s.n_operations
        if n_ops:
            _work_bars(model.total_work, full, n_ops)
            export_buttons(_work_spec(model.total_work, full, n_ops), key="om_work", name="work")
        if tree.n <= 60:
            chart(difference_bars(tree.names, s.marginals() - s.prior), key="om_diff", name="posterior_minus_prior")


# ------------------------------------------------------------------ the page
# A loaded scenario sets widget values: done here, before any widget exists, because Streamlit
# refuses to change the state of a widget already drawn in this run (the load button sits below).
for _key, _value in st.session_state.pop("om_load_widgets", {}).items():
    st.session_state[_key] = _value

links.page_head("online_marginals", "Online Marginals",
                '"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale), section 4: after '
                "one O(n) initialisation each piece of evidence and each marginal costs one walk along a path "
                "of the decomposition tree D (O(height)), not a full belief-propagation pass. Click a vertex, "
                "set evidence, and watch the path of D light up.",
                LINK)
tree = _page_tree()
if tree.n < 3:
    st.info("This page needs a tree with at least three vertices: load or generate one in Tree Studio.")
    st.stop()

try:
    params = _settings(tree)
    _session(tree, params)
except EngineError as exc:
    st.error(public_message(exc))
    st.stop()

lesson(tree)

st.divider()
flash = st.session_state.pop("om_flash", None)
if flash:
    getattr(st, flash[0])(flash[1])
r1, r2, r3 = st.columns(3)
with r1:
    st.number_input("Random stream: operations", 2, 5000, 50, step=10, key="om_count")
    st.number_input("Seed", 0, 10 ** 6, 0, key="om_seed")
    st.button("Play random stream", key="om_play", on_click=_play)
with r2:
    st.button("Check against BP", key="om_check", on_click=_check,
              help="One belief-propagation pass under the current evidence, compared with every online marginal.")
with r3:
    st.download_button("Save scenario", lambda: json.dumps(st.session_state["om_session"].to_scenario(), indent=1),
                       file_name="scenario.json", mime="application/json", key="om_save")
    st.file_uploader("Load scenario", type=["json"], key="om_load", on_change=_load_scenario)
