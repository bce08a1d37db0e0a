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
import numpy as np
import pandas as pd
import streamlit as st

from engine.errors import EngineError
from engine.files import browser_paths, public_message
from engine.inference.belief_propagation import bp_work
from engine.inference.models import PairwiseConfig
from engine.inference.online import random_ops
from engine.inference.potentials import potts_interaction
from engine.inference.scenario import parse_scenario
from engine.inference.session import OnlineSession
from engine.jsonio import loads
from engine.inference.evidence import evidence_vectors
from engine.networks import read_sample_network
from workbench.declarations.page_table import PAGES
from engine.trees import Tree
from workbench import address_bar
from workbench.components import (
    page_cache,
    tree_hash,
    Spec,
    spec_of,
    bars,
    chart,
    FigureText,
    export_buttons,
    marginal_panel,
    selected_vertex,
    selection_key,
    vertex_box,
    stats,
)
from workbench.figures.inference_figures import (difference_bars, work_bar_names,
                                                 work_bars)
from workbench.figures.style import NEUTRAL, OKABE_ITO
from workbench.figures.style import current as current_style
from workbench.session import Family, PageState
from workbench.treeview import tree_view, view_bind
from workbench.state import current_tree, network_samples, set_tree
from workbench.text import md, subscript
from workbench.widgets import widget

SPEC = PAGES["online_marginals"]
MAX_K = SPEC.setting("k").hi
NO_NETWORK = "(the current tree)"
POTTS, EDIT = "Potts coupling", "Edit matrix"   # the two ways to give the edge potential
HARD, SOFT = "A label", "Soft weights"           # the two kinds of evidence set at a vertex
MODEL = ("k", "coupling", "psi", "cover", "network")   # the settings of the model (the evidence is the lesson's)


class OnlineState(PageState, page="online_marginals"):
    mode: str = POTTS                       # the edge potential: a Potts coupling or an edited matrix
    matrix: Family[dict] = None             # the matrix editor, by k and its first matrix
    matrix_start: list | None = None        # the editor's first matrix (a link's psi, a scenario's)
    matrix_now: tuple | None = None         # the edited matrix now
    session: OnlineSession | None = None    # the lesson: the model, its evidence and its operation log
    session_key: tuple | None = None        # the model settings the session was built for
    evidence_link: dict | None = None       # a link's evidence, applied to the next session
    evidence_said: tuple | None = None      # (session, its version, the evidence as a link gives it, per vertex)
    evidence_kind: str = HARD               # the evidence the controls set: a label observed, or soft weights
    label: int = 0                          # the label to observe
    soft: Family[float] = 1.0               # the weight of each label in soft evidence
    error: str | None = None                # the last evidence error, shown once
    flash: tuple | None = None              # (kind, message) of the last stream, check or load, shown once
    tools: bool = False                     # the stream, check and scenarios' expander is open (drawn then)
    count: int = 50                         # operations of a random stream
    seed: int = 0                           # ... and its seed
    load: object = None                     # the uploaded scenario
    tree: None = None                       # the clickable tree (its selection: workbench.components)
    d: None = None                          # the decomposition tree D's view
    bars: None = None                       # the selected vertex's marginal
    work: None = None                       # the work of the last operation
    diff: None = None                       # the posterior minus the prior
    observe: bool = False                   # the evidence's buttons: observe the label
    clear: bool = False                     # ... clear the evidence
    apply: bool = False                     # ... apply the soft evidence
    play: bool = False                      # the stream's buttons: play a random stream
    check: bool = False                     # ... check against BP
    save: None = None                       # ... save the scenario


S = OnlineState()
KEY = S.key("tree")


@page_cache(st.cache_resource, max_entries=8, show_spinner=False)
def _network(name: str):
    return read_sample_network(name)


def _page_tree():
    """The tree of the page: the chosen network's, else the current tree."""
    name = S.network
    return _network(name).tree if name and name != NO_NETWORK else current_tree()


def _settings(tree) -> PairwiseConfig:
    """The model's settings (the evidence is the lesson's), drawn; their configuration."""
    c0, c1, c2, c3 = st.columns([1.2, 1, 2, 1])
    with c0:
        net_name = widget(SPEC, "network", options=[NO_NETWORK] + network_samples())
    if net_name != NO_NETWORK:
        net = _network(net_name)
        c1.metric("Labels k", net.k)
        c2.caption(f"Network **{net_name}** ({net.kind}, {net.tree.n} variables): its own φ and ψ on every "
                   "edge; evidence multiplies φ.")
        widget(SPEC, "cover", where=c3)
        return SPEC.run_config({"network": net_name, "cover": address_bar.values(SPEC).get("cover")})
    with c1:
        k = widget(SPEC, "k")
    with c2:
        mode = st.radio("Edge potential", [POTTS, EDIT], horizontal=True, key=S.key("mode"))
        if mode == POTTS:
            widget(SPEC, "coupling")
        else:
            start = S.matrix_start
            if start is None or len(start) != k:
                start = potts_interaction(k, 1.0).tolist()
            df = st.data_editor(pd.DataFrame(start, columns=[f"→{b}" for b in range(k)],
                                             index=[f"{a}" for a in range(k)]),
                                key=S.key("matrix", k, abs(hash(json.dumps(start)))))
            st.caption("ψ(parent = row, child = column) on every edge, parents towards the root "
                       f"{tree.name(tree.root)}; entries >= 0, zero forbids a pair.")
            S.matrix_now = tuple(map(tuple, np.asarray(df.to_numpy(dtype=float), float).tolist()))
    widget(SPEC, "cover", where=c3)
    values = address_bar.values(SPEC)
    return SPEC.run_config({name: values[name] for name in MODEL if name in values})


def _model_key(tree, config: PairwiseConfig) -> tuple:
    """What the session is built from: the tree, k, the edge potential, the cover (and the network)."""
    if config.network:
        return (tree.content_key, _network(config.network).k, (), config.cover, config.network)
    return (tree.content_key, config.k, tuple(map(tuple, config.edge_potential().tolist())), config.cover)


@page_cache(st.cache_resource, max_entries=6, show_spinner="Building the cover (once per tree)…", hash_funcs={Tree: tree_hash})
def _shared_cover(tree: Tree, cover: str):
    """The cover every session of this tree uses (read only; at 10^6 vertices, seconds a session saves)."""
    from engine.cover import default_root, optimal_cover, rake_only_cover

    return (rake_only_cover if cover == "rake-only" else optimal_cover)(tree, default_root(tree))


@page_cache(st.cache_resource, max_entries=12, show_spinner=False, hash_funcs={Tree: tree_hash})
def _shared_prior(tree: Tree, k: int, matrix: tuple) -> np.ndarray:
    """The marginals before any evidence for these settings, the same for every session."""
    from engine.inference.belief_propagation import belief_propagation

    prior = belief_propagation(tree, np.ones((tree.n, k)), np.asarray(matrix, float), k=k).marginals
    prior.flags.writeable = False
    return prior


@page_cache(st.cache_resource, max_entries=3, show_spinner="Building the online model (once per settings)…")
def _start_of(_tree: Tree, _config: PairwiseConfig, key: tuple) -> OnlineSession:
    """The session before any operation for these settings (``key``: :func:`_model_key`, the
    only argument hashed), built once per server; each user's is a copy (:meth:`OnlineSession.copy`:
    memory copies instead of the O(n k^3) fill; 30 students opening the page on 1,000 vertices spent
    a seventh of the server's time building 30 equal models: py-spy, bench_app, 2 December 2026).
    Never changed."""
    tree, config = _tree, _config
    if config.network:
        net = _network(config.network)
        t = net.tree
        return OnlineSession(
            t, net.k, np.ones((net.k, net.k)), cover=config.cover,
            edge_potentials={(t.name(int(a)), t.name(int(b))): net.edge_potentials[i]
                             for i, (a, b) in enumerate(t.edges)},
            node_data={t.name(v): net.node_potentials[v] for v in range(t.n)})
    matrix = tuple(map(tuple, config.edge_potential().tolist()))
    return OnlineSession(tree, config.k, config.edge_potential(), cover=_shared_cover(tree, config.cover),
                         prior=_shared_prior(tree, config.k, matrix))


def _session(tree, config: PairwiseConfig) -> OnlineSession:
    """This session's lesson for these settings; a new copy of :func:`_start_of` when they or the tree change. A
    link's evidence waiting in ``evidence_link`` is applied, as it multiplies φ."""
    key = _model_key(tree, config)
    if S.session_key != key or S.session is None:
        S.session = _start_of(tree, config, key).copy()
        S.session_key = key
    s = S.session
    wanted = S.pop("evidence_link")
    if wanted is not None:
        _set_evidence(s, wanted)
    return s


def _states(s: OnlineSession):
    """The state names of a network's variables (None on the current tree)."""
    name = S.network
    # by content, not identity: the session is a copy of one built per settings (_start_of), which
    # may hold an earlier read of the same network
    if name and name != NO_NETWORK and _network(name).tree.content_key == s.tree.content_key:
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
    s: OnlineSession | None = S.session
    if s is None or not s.evidence:
        S.evidence_said = None   # (not an old session's model kept alive by the memo)
        return None
    said = S.evidence_said   # the address is written on every click: the evidence is read once per change
    if said is not None and said[0] is s and said[1] == s.version:
        return said[2]
    # and each vertex's once per change of its data: an observation re-reads one vertex, not all
    before = said[3] if said is not None and said[0] is s else {}
    states = _states(s)
    each = {}
    for v, data in sorted(s.evidence.items()):
        d = np.asarray(data, float)
        known = before.get(v)
        each[v] = known if known is not None and known[0] == d.tobytes() else (d.tobytes(), _said(s, v, d, states))
    out = {s.tree.name(v): x for v, (_, x) in each.items() if x is not None}
    S.evidence_said = (s, s.version, out or None, each)
    return out or None


def _card(s: OnlineSession, v: int, states) -> int:
    """How many states vertex ``v`` has: ``k``, or fewer for a network's variable (``states`` its names)."""
    return s.k if states is None else len(states[v])


def _said(s: OnlineSession, v: int, data: np.ndarray, states) -> int | str | tuple | None:
    """Vertex ``v``'s evidence ``data`` as a link gives it: a label (its state's name on a network)
    when φ divided out leaves one label at weight 1, else the weights; ``None`` when a label φ
    forbids has weight (no link can say it)."""
    card = _card(s, v, states)
    phi = _phi(s, v)[:card].tolist()
    d = data[:card].tolist()
    if any(p == 0 and x != 0 for p, x in zip(phi, d)):
        return None
    w = [x / p if p > 0 else 0.0 for x, p in zip(d, phi)]
    nz = [i for i, x in enumerate(w) if x != 0]
    if len(nz) == 1 and abs(w[nz[0]] - 1.0) <= 1e-8 + 1e-5:   # np.allclose(w, 1.0)'s test
        return states[v][nz[0]] if states is not None else nz[0]
    return tuple(float(x) for x in w)


def _seed_psi(m) -> None:
    if m is None:
        S.mode = POTTS
        return
    if len(m) > MAX_K:
        raise ValueError(f"this page shows up to {MAX_K} labels")
    S.mode = EDIT
    S.matrix_start = [list(r) for r in m]
    S.k = len(m)


BINDS = {
    "psi": address_bar.Bind(seed=_seed_psi, read=lambda: S.matrix_now if S.mode == EDIT else None),
    "network": address_bar.Bind(S.key("network"), lambda name: name.rsplit(".", 1)[0],
                          lambda x: x if x in network_samples() else None),
    "evidence": address_bar.Bind(seed=lambda e: setattr(S, "evidence_link", e or {}), read=_evidence_now),
    "vertex": address_bar.vertex(selection_key(KEY), _page_tree),
    "region": view_bind(KEY),
    "tools": address_bar.Bind(S.key("tools")),
}


# ------------------------------------------------------------------ callbacks (run before the rerun)
def _query(v: int) -> None:
    S.session.query(v)


def _evidence(kind: str) -> None:
    """Observe a label, apply soft evidence or clear, at the selected vertex."""
    s: OnlineSession = S.session
    v = selected_vertex(s.tree, KEY, s.tree.root)
    try:  # evidence multiplies φ_v (all ones on the current tree; a network's own φ)
        if kind == "observe":
            s.update(v, _phi(s, v) * np.eye(s.k)[int(S.label)])
        elif kind == "soft":   # a network's variable with fewer states than k: the weights of its own
            card = _card(s, v, _states(s))
            s.update(v, _phi(s, v) * np.array([float(S.soft[a]) if a < card else 0.0 for a in range(s.k)]))
        else:
            s.clear(v)
    except EngineError as exc:
        S.error = public_message(exc)


def _play() -> None:
    s: OnlineSession = S.session
    ops = random_ops(s.tree, s.k, int(S.count), seed=int(S.seed))
    full = bp_work(s.tree.n, s.k)
    before = s.model.total_work
    played, skipped = s.play(ops)
    S.flash = ("success", f"Played {played} operations"
               + (f" ({skipped} skipped: inconsistent evidence)" if skipped else "")
               + f"; their work {s.model.total_work - before:,} multiply-adds vs "
                 f"{len(ops) * full:,} for one BP pass per operation.")


def _check() -> None:
    s: OnlineSession = S.session
    try:
        d = s.largest_difference_from_bp()
    except EngineError as exc:
        S.flash = ("error", str(exc))
        return
    S.flash = ("success" if d < 1e-9 else "warning", f"Largest |online − BP| over all vertices and labels: {d:.2e}")


def _load_scenario() -> None:
    """Read an uploaded scenario (before the widgets exist, so the settings can follow it)."""
    up = S.load
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
        S.flash = ("error", f"cannot load the scenario {md(up.name)}: {public_message(exc)}")
        return
    set_tree(sc.tree, f"scenario {up.name}")
    matrix = sc.edge_potential.tolist()
    S.k, S.mode, S.matrix_start, S.cover, S.session = sc.k, EDIT, matrix, sc.cover, s
    S.session_key = (sc.tree.content_key, sc.k, tuple(map(tuple, np.asarray(matrix, float).tolist())), sc.cover)
    S.flash = ("success", f"Loaded {up.name}: {len(sc.ops)} operations replayed.")


# ------------------------------------------------------------------ figures
def _d_view(cover, touched, said: bool) -> None:
    """D at any size, coloured by kind (edge components grey), the path the last operation touched
    ringed and drawn from D's root down (``said``: whether an operation has been made)."""
    dtree = cover.to_tree()
    kinds = np.asarray(cover.kind, np.int64)
    palette = [NEUTRAL, OKABE_ITO["blue"], OKABE_ITO["sky"], OKABE_ITO["purple"]]   # edge, rake, compress, root
    deepest = max(touched, key=lambda z: int(dtree.depth[z])) if len(touched) else None
    tree_view(dtree, S.key("d"), categories=(kinds, palette), highlight=touched, path_of=deepest, height=420, layout="tidy",
              describe=f"The decomposition tree D ({cover.m:,} nodes, height {cover.height}); the nodes the last "
                       f"operation touched are ringed ({len(touched)} of them).", show_path=True,
              note="D's nodes: edge components (its leaves) grey, rakes blue, compresses light blue, the root "
                   "purple. Ringed and joined in red: the D nodes the last operation touched (one path from "
                   "D's root, at most height + 1 nodes)."
                   + (f"\nThe last operation touched {len(touched)} of the {cover.m:,} nodes of D." if said else ""))


def _work_bars(online: int, bp: int, ops: int, text: FigureText) -> None:
    """The multiply-adds of every online operation so far against one BP pass per operation."""
    passes = bp * max(ops, 1)
    spread = passes / max(online, 1)
    log = spread > 50 or spread < 1 / 50
    ours, theirs = work_bar_names(ops)
    bars([(ours, online, OKABE_ITO["green"], f"{online:,}"),
          (theirs, passes, current_style().muted, f"{passes:,}")], log=log,
         legend=f"{spread:,.1f} times the work of the online model" + (" (log scale)" if log else ""),
         title="Multiply-adds: online model vs one BP pass per operation", described=text)


def _no_difference(names: tuple, k: int, style):
    return difference_bars(names, np.zeros((len(names), k)), style=style)


def _difference_spec(names, diff) -> Spec:
    """:func:`difference_bars` for ``diff`` (posterior minus prior, one row per vertex), from its
    dict kept per tree's names, number of labels and theme (:func:`spec_of`): building its Plotly
    figure on every observation was a quarter of the server's time on a 30-student Online
    Marginals class on the lecture's tree (py-spy --gil, bench_app, 2 December 2026)."""
    base = spec_of(_no_difference, tuple(names), diff.shape[1], current_style())
    return Spec({"data": [dict(t, y=diff[:, a]) for a, t in enumerate(base["data"])], "layout": base["layout"]})


def _work_spec(online: int, bp: int, ops: int) -> Spec:
    """:func:`work_bars` for these counts (their Plotly figure, drawn only for the SVG/PDF
    downloads, as the marginal's: workbench.components.marginal_spec), from its dict kept per theme
    (:func:`spec_of`; through Streamlit's cache its argument was hashed on every click: 2.7 % of the
    server's time on 30 students' clicks, py-spy --gil, bench_app, 2 December 2026)."""
    base = spec_of(work_bars, 1, 1, 1, style=current_style())
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
    # a click or evidence reruns only this: the address follows (written by the tree view, page=)
    s: OnlineSession = S.session
    k = s.k
    sel = selected_vertex(tree, KEY, tree.root)
    left, right = st.columns([3, 2], gap="medium")
    with left:
        tree_view(tree, KEY, page="online_marginals", values=s.marginals()[:, 0], value_title="P(label 0)", rings=s.evidence,
                  selected=sel, on_pick=_query, describe="The tree T coloured by each vertex's P(label 0).",
                  note="Colour: P(label 0); a collapsed group shades from its smallest P(label 0) to its largest. "
                       "Red ring: the selected vertex, with its path to the root; orange rings and dots: evidence. "
                       "Click a vertex (or find it by name) to query its marginal; scroll to zoom, drag to pan.")
    with right:
        vertex_box(tree, KEY, default=tree.root, on_pick=_query)
        name = tree.name(sel)
        marg = s.marginal(sel)
        prior = s.prior[sel]
        states = _states(s)
        card = _card(s, sel, states)
        marg, prior = marg[:card], prior[:card]
        shown = ", ".join(f"{p:.4f}" for p in marg) if states is None else \
            ", ".join(f"{a} {p:.4f}" for a, p in zip(states[sel], marg))
        said = ", ".join(f"{p:.4f}" for p in marg)
        marginal_panel(marg, prior, key=S.key("bars"), name="marginal", title=f"P(x_{name})",
                       labels=None if states is None else states[sel], describe=(
                           f"Tree of {tree.n:,} vertices, vertex {name} selected: P(x_{name}) = [{said}], prior "
                           f"[{', '.join(f'{p:.4f}' for p in prior)}]; {len(s.evidence):,} "
                           f"{'vertex' if len(s.evidence) == 1 else 'vertices'} with evidence."),
                       heading=(f"P({subscript('x', name)})", f" = [{shown}]" + (
                           " · evidence " + str([round(float(x), 3) for x in s.evidence[sel][:card]])
                           if sel in s.evidence else "")))
        # one kind of evidence's controls at a time (four elements on every click, not nine); the
        # other's values are kept (Streamlit forgets a widget a run does not draw)
        if st.radio("Evidence", [HARD, SOFT], horizontal=True, key=S.key("evidence_kind")) == HARD:
            S.soft.keep(*range(k))
            if states is not None and S.label >= len(states[sel]):
                S.label = 0
            st.selectbox("Observed label", list(range(card)), key=S.key("label"),
                         format_func=(lambda a: f"{a}") if states is None else (lambda a: states[sel][a]))
            st.button("Observe label", key=S.key("observe"), type="primary", on_click=_evidence, args=("observe",))
        else:
            S.keep("label")
            S.soft.keep(*range(card, k))
            for a in range(card):
                st.slider(f"weight of label {a}" if states is None else f"weight of {states[sel][a]}", 0.0, 1.0, 1.0,
                          0.05, key=S.soft.key(a))
            st.button("Apply soft evidence", key=S.key("apply"), type="primary", on_click=_evidence, args=("soft",))
        st.button("Clear evidence", key=S.key("clear"), on_click=_evidence, args=("clear",))
        if S.error:
            st.error(S.pop("error"))

    model = s.model
    rep = model.last_op
    full = bp_work(tree.n, k)
    # one HTML element (it wraps on a phone): a row of st.metric was five messages on every click
    stats([("Cover height", model.height),
           ("Last operation", rep.op if rep else "—", "its D nodes red and ringed in D" if rep else None),
           ("Its work (multiply-adds)", f"{rep.work:,}" if rep else "—",
            f"{rep.work / full:.1%} of a BP pass" if rep else None),
           ("One full BP pass", f"{full:,}")], label="The online model's work")
    d1, d2 = st.columns([3, 2])
    with d1:
        m_d = model.cover.m if model.cover is not None else 0
        if m_d:   # (its notes under the canvas, drawn by the view: no caption of their own)
            _d_view(model.cover, list(rep.touched) if rep else [], rep is not None)
    with d2:
        n_ops = s.n_operations
        if n_ops:
            spec = _work_spec(model.total_work, full, n_ops)
            text = FigureText.of(spec, key=S.key("work"), kind="bars", describe=(
                f"The work of the {n_ops:,} operation{'s' if n_ops != 1 else ''} so far: {model.total_work:,} "
                "multiply-adds online, "
                f"{full * n_ops:,} for one belief-propagation pass per operation."))
            _work_bars(model.total_work, full, n_ops, text)
            export_buttons(spec, key=S.key("work"), name="work", csv=text.csv)
        # without evidence every bar is zero: the chart (the page's only Plotly chart, whose script
        # a fresh browser loads) waits for the first observation
        if tree.n <= 60 and len(s.evidence):
            diff = s.marginals() - s.prior
            far, lab = np.unravel_index(int(np.argmax(np.abs(diff))), diff.shape)
            chart(_difference_spec(tree.names, diff), key=S.key("diff"), name="posterior_minus_prior",
                  describe=f"How far the evidence moved each of the {tree.n:,} vertices' marginal from the prior: "
                  f"the most at vertex {tree.name(int(far))}, label {lab}, by {diff[far, lab]:+.4f}.")


# ------------------------------------------------------------------ the page
address_bar.page_head("online_marginals", "Online Marginals",
                '"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale), section 4: after '
                "one O(n) initialisation each piece of evidence and each marginal costs one walk along a path "
                "of the decomposition tree D (O(height)), not a full belief-propagation pass. Click a vertex, "
                "set evidence, and watch the path of D light up.",
                BINDS)


tree = _page_tree()
if tree.n < 3:
    st.info("This page needs a tree with at least three vertices: load or generate one in Tree Studio.")
    st.stop()

try:
    _session(tree, _settings(tree))
except EngineError as exc:
    st.error(public_message(exc))
    st.stop()

lesson(tree)

flash = S.pop("flash")
if flash:
    getattr(st, flash[0])(flash[1])
# the tools under the page are drawn when their expander is open: a fresh page draws one expander
# instead of eleven elements and loads no number box's, uploader's or download button's script (a
# click reruns only the lesson's fragment, which never held them)
with st.expander("Random stream, check against BP, scenarios", key=S.key("tools"), on_change="rerun") as tools:
    if tools.open:
        r1, r2, r3 = st.columns(3)
        with r1:
            st.number_input("Random stream: operations", 2, 5000, 50, step=10, key=S.key("count"))
            st.number_input("Seed", 0, 10 ** 6, 0, key=S.key("seed"))
            st.button("Play random stream", key=S.key("play"), on_click=_play)
        with r2:
            st.button("Check against BP", key=S.key("check"), on_click=_check,
                      help="One belief-propagation pass under the current evidence, compared with every online "
                      "marginal.")
        with r3:
            # the file is made on the click, outside any script run (no session state there): the
            # session object is taken now
            session = S.session
            st.download_button("Save scenario", lambda: json.dumps(session.to_scenario(), indent=1),
                               file_name="scenario.json", mime="application/json", key=S.key("save"),
                               on_click="ignore")
            st.file_uploader("Load scenario", type=["json"], key=S.key("load"), on_change=_load_scenario)
    else:
        S.keep("count", "seed")
