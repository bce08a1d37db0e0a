"""Belief Propagation: set evidence by clicking a vertex, edit φ and ψ, and watch each sum-product
message being made, one at a time or played at a chosen speed; the parallel schedule iteration by
iteration, and why elimination order matters (the lecture notes "Inferences on trees: sum-product
algorithm", sections 8.1-8.4).

The model is the one of the page's spec (:mod:`workbench.declarations.page_table`: what a lesson's link describes and the
lesson checker computes with): the current tree with random φ and a Potts ψ, or a network (a
sample, or a BIF/XMLBIF/UAI/Hugin file imported here), with φ rows and ψ edited in the tables and
the evidence multiplied into φ. Every message shown is :func:`engine.inference.messages.message_work`'s,
made of the engine's own messages.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import streamlit as st

from engine.errors import EngineError
from engine.files import public_message
from engine.inference.belief_propagation import belief_propagation, flooding
from engine.inference.elimination import elimination_steps, largest_table, leaves_first_order
from engine.inference.messages import belief_work, marginals_csv, message_work, messages_csv
from engine.inference.models import BPModel
from engine.inference.evidence import evidence_vectors
from workbench.declarations.value_formats import format_evidence
from engine.networks import read_network_bytes, read_sample_network
from workbench.declarations.page_table import PAGES
from engine.trees import Tree
from engine.trees.generators import star_tree
from workbench import address_bar
from workbench.components import (Spec, array_key, as_spec, chart, marginal_panel, page_cache, selected_vertex, selection_key,
                                  stats, tree_hash)
from workbench.figures.arrows import message_text
from workbench.figures.inference_figures import convergence_figure, elimination_bars, message_figure
from workbench.figures.style import Style
from workbench.figures.style import current as current_style
from workbench.session import Family, PageState
from workbench.treeview import tree_view, view_bind
from workbench.state import DEFAULT_SAMPLE, current_tree, load_sample, network_samples
from workbench.text import md, subscript
from workbench.widgets import keep, widget

SPEC = PAGES["belief_propagation"]
DRAW_LIMIT = 40                       # messages are drawn up to this many vertices; above, the marginals
CURRENT = "(the current tree)"        # the model box: the current tree with random φ and a Potts ψ
UPLOADED = "uploaded: "               # ... or an imported network
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 10.0)
CLICKS = {"select": "inspects it", "set": "sets the evidence below", "clear": "clears its evidence"}
MODEL = ("k", "coupling", "seed", "psi", "phi", "evidence")   # the settings the model is made of


class BPState(PageState, page="belief_propagation"):
    psi: tuple | None = None            # ψ edited in its table (then it replaces the coupling)
    phi: dict | None = None             # rows of φ edited in its table, by vertex name
    evidence: dict | None = None        # the evidence, by vertex name
    psi_edges: dict | None = None       # a network's ψ edited edge by edge
    rev: int = 0                        # the model's revision: a change reruns the whole page
    model: BPModel | None = None        # the model drawn now (the callbacks act on it)
    uploaded: tuple | None = None       # (file name, network) imported here
    upload: object = None               # the network file uploader
    flash: tuple | None = None          # (kind, message) shown once
    click: str = "select"               # what a click on a vertex does (CLICKS)
    ev_kind: str = "hard"               # the evidence the buttons set: hard or soft
    ev_label: int = 0                   # ... its label
    soft: Family[float] = 1.0           # the weight of each label in soft evidence
    playing: bool = False               # the schedule plays
    tick: float = 0.0                   # ... and last moved at this time
    psi_edge: int | None = None         # the network edge whose ψ is edited
    phi_edit: Family[dict] = None       # the table editors: φ, by the model's revision
    psi_edit: Family[dict] = None       # ... ψ, by the revision
    psi_net: Family[dict] = None        # ... a network edge's ψ, by edge and revision
    prior: tuple | None = None          # (what φ and ψ it was for, the marginals without evidence)
    tree: None = None                   # the clickable tree (its selection: workbench.components)
    bars: None = None                   # the selected vertex's marginal
    ev_set: bool = False                # the evidence's buttons: set at the selected vertex
    ev_clear: bool = False              # ... clear there
    ev_clear_all: bool = False          # ... clear all
    ev_reset: bool = False              # ... clear all (the model's tab)
    back: bool = False                  # the schedule's buttons: back
    next: bool = False                  # ... next
    play: bool = False                  # ... play or pause
    phi_reset: bool = False             # the model's buttons: back to the seeded φ
    psi_reset: bool = False             # ... back to the Potts coupling
    marg_table: None = None             # the tables: the marginals
    messages_table: None = None         # ... the messages
    dl_messages: None = None            # the downloads: the messages
    dl_marginals: None = None           # ... the marginals
    par_fig: None = None                # the figures: the parallel schedule
    conv_fig: None = None               # ... its convergence
    elim_fig: None = None               # ... the elimination


S = BPState()
KEY = S.key("tree")


# ------------------------------------------------------------------ the model
def _tex(name: str) -> str:
    """A vertex name inside TeX: as ``\\text{...}`` with TeX's special characters escaped."""
    special = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
               "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"\~{}"}
    return r"\text{" + "".join(special.get(c, c) for c in " ".join(str(name).split())[:40]) + "}"


@page_cache(st.cache_resource, max_entries=8, show_spinner=False)
def _sample_network(name: str):
    return read_sample_network(name)


def _network():
    """The chosen network (a sample or the imported one), or None on the current tree."""
    name = S.network or CURRENT
    if name.startswith(UPLOADED):
        up = S.uploaded
        return up[1] if up and UPLOADED + up[0] == name else None
    return None if name == CURRENT else _sample_network(name)


def _page_tree():
    """The network's tree, else the current tree (a one-vertex tree: the lecture's 5-vertex tree)."""
    net = _network()
    if net is not None:
        return net.tree
    tree = current_tree()
    return tree if tree.n >= 2 else load_sample(DEFAULT_SAMPLE)


def _changed() -> None:
    """The model changed (evidence, φ, ψ): the schedule's fragment reruns the whole page."""
    S.rev = S.rev + 1


def _evidence() -> dict:
    return dict(S.evidence or {})


def _set_evidence(evidence: dict) -> None:
    S.evidence = evidence or None
    _changed()


def build_model(tree) -> BPModel:
    """The page's model: the run configuration of its settings (the link's values, :mod:`workbench.declarations.page_table`),
    with an imported network's tables and the per-edge ψ edits of a network."""
    net = _network()
    config = SPEC.run_config({name: getattr(S, name) for name in MODEL})
    if net is None:
        return config.model(tree)
    phi = np.array(net.node_potentials, float)
    for i, w in evidence_vectors(config.phi or {}, net.tree, net.k, net.states).items():
        phi[i] = w
    psi = np.array(net.edge_potentials, float)
    edits = S.psi_edges or {}
    for i, (a, b) in enumerate(net.tree.edges):
        m = edits.get((net.tree.name(int(a)), net.tree.name(int(b))))
        if m is not None:
            psi[i, : len(m), : len(m[0])] = m
    post = phi.copy()
    for i, w in evidence_vectors(config.evidence or {}, net.tree, net.k, net.states).items():
        post[i] = post[i] * np.asarray(w)
    return BPModel(net.tree, net.k, post, phi, psi, net.states)


def _labels(model: BPModel, v: int) -> list[str]:
    """The label names of vertex ``v`` (a network variable's states, else 0..k-1)."""
    return list(model.states[v]) if model.states is not None else [str(a) for a in range(model.k)]


def _evidence_value(model: BPModel, v: int, label: int):
    return model.states[v][label] if model.states is not None else int(label)


# ------------------------------------------------------------------ callbacks (before the rerun)
def _on_upload() -> None:
    up = S.upload
    if up is None:
        return
    try:
        net = read_network_bytes(up.getvalue(), up.name)
    except EngineError as exc:
        S.flash = ("error", public_message(exc))
        return
    S.uploaded = (up.name, net)
    S.network = UPLOADED + up.name
    _reset_model_state()
    S.flash = ("success", f"Imported {md(up.name)}: a {md(net.kind)} network of {net.tree.n} "
                                               f"variables, now the model of the page.")


def _reset_model_state() -> None:
    """A new model: evidence, edited tables and the schedule start afresh."""
    for name in ("evidence", "phi", "psi", "psi_edges"):
        S.pop(name)
    S.messages = 0
    _changed()


def _soft_weights(model: BPModel, v: int):
    return tuple(float(S.soft[a]) for a in range(len(_labels(model, v))))


def _wanted_evidence(model: BPModel, v: int):
    """The evidence the controls describe for vertex ``v``: a label (hard) or weights (soft)."""
    if S.ev_kind == "soft":
        return _soft_weights(model, v)
    label = min(int(S.ev_label), len(_labels(model, v)) - 1)
    return _evidence_value(model, v, label)


def _apply_evidence(v: int, action: str) -> None:
    """Set (``"set"``), toggle (``"toggle"``: set, or clear when it is already set) or clear the
    evidence at vertex ``v``."""
    model = S.model
    if model is None:
        return
    ev = _evidence()
    name = model.tree.name(v)
    want = _wanted_evidence(model, v)
    if action == "clear" or (action == "toggle" and ev.get(name) == want):
        ev.pop(name, None)
    else:
        if isinstance(want, tuple) and not any(want):
            S.flash = ("error", f"soft evidence at {md(name)} must have a positive weight")
            return
        ev[name] = want
    _set_evidence(ev)


def _on_pick(v: int) -> None:
    mode = S.click
    if mode == "set":
        _apply_evidence(v, "toggle")
    elif mode == "clear":
        _apply_evidence(v, "clear")


def _step(delta: int, total: int) -> None:
    S.messages = int(min(max(S.messages + delta, 0), total))


def _play(total: int, play: bool) -> None:
    """Play or pause, as the button said when it was clicked: a "Pause" clicked just as the schedule
    ended (the server had stopped it, the button not yet redrawn) pauses, never plays again."""
    S.playing = play
    if play and S.messages >= total:
        S.messages = 0


# ------------------------------------------------------------------ links
def _snap_speed(v: float) -> float:
    return min(SPEEDS, key=lambda s: abs(s - float(v)))


def _seed_network(name) -> None:
    if name is None:
        S.network = CURRENT
        return
    stem = str(name).rsplit(".", 1)[0]
    if stem not in network_samples():
        raise ValueError(f"no sample network is called {name}; samples: {', '.join(network_samples())}")
    if S.network != stem:
        S.network = stem


def _state_bind(name: str) -> address_bar.Bind:
    """A setting kept as plain session state (evidence, φ rows, ψ)."""
    return address_bar.Bind(seed=lambda v: setattr(S, name, v or None), read=lambda: getattr(S, name) or None)


BINDS = {
    "psi": _state_bind("psi"), "phi": _state_bind("phi"), "evidence": _state_bind("evidence"),
    "network": address_bar.Bind(seed=_seed_network, read=lambda: S.network if S.network in network_samples() else None),
    "vertex": address_bar.vertex(selection_key(KEY), _page_tree),
    "speed": address_bar.Bind(S.key("speed"), _snap_speed),
    "region": view_bind(KEY),
}


# ------------------------------------------------------------------ pieces of the page
def settings() -> None:
    """The model: the current tree with random φ and a Potts ψ, or a network."""
    c0, c1, c2, c3 = st.columns([1.3, 1, 1, 1])
    options = [CURRENT] + network_samples()
    up = S.uploaded
    if up is not None:
        options.append(UPLOADED + up[0])
    if S.network not in options:
        S.network = CURRENT
    widget(SPEC, "network", where=c0, options=options, on_change=_reset_model_state)
    net = _network()
    if net is None:
        widget(SPEC, "k", where=c1, on_change=_reset_model_state)
        widget(SPEC, "coupling", where=c2, on_change=_changed, disabled=S.psi is not None)
        widget(SPEC, "seed", where=c3, on_change=_changed)
    else:
        c1.metric("Variables", net.tree.n)
        c2.metric("Largest number of states", net.k)
        c3.caption(f"A {net.kind} network from {net.source or 'a file'}: its own φ and ψ.")
    with st.expander("Import a network (BIF, XMLBIF, UAI, Hugin .net)", icon=":material/upload_file:"):
        st.file_uploader("Network file", type=["bif", "xml", "xmlbif", "uai", "net", "gz"], key=S.key("upload"),
                         on_change=_on_upload,
                         help="A Bayesian network whose nodes have at most one parent, or a pairwise Markov "
                              "network on a tree; anything else is refused, naming the node or cycle at fault.")
        if up is not None:
            st.caption(f"Imported: {md(up[0])}. An imported network does not travel in a link; a sample network does.")


def _prior_marginals(model: BPModel) -> np.ndarray:
    """The marginals without evidence, one BP pass kept for the session while φ and ψ stay the same
    (a click on a 10^6-vertex tree does not pay a second pass)."""
    phi, psi = np.asarray(model.prior_node_potentials), np.asarray(model.edge_potentials)
    key = (model.tree.content_key, model.k, hash(phi.tobytes()), hash(psi.tobytes()))
    kept = S.prior
    if kept is None or kept[0] != key:
        kept = (key, belief_propagation(model.tree, phi, psi, k=model.k).marginals)
        S.prior = kept
    return kept[1]


def evidence_panel(model: BPModel, exact, sel: int) -> None:
    """The selected vertex: its posterior, and the evidence controls."""
    tree = model.tree
    labels = _labels(model, sel)
    name = tree.name(sel)
    ev = _evidence()
    card = len(labels)
    post = exact.marginals[sel][:card]
    prior = _prior_marginals(model)[sel][:card]
    shown = ", ".join(f"{p:.4f}" for p in post) if model.states is None else \
        ", ".join(f"{md(a)} {p:.4f}" for a, p in zip(labels, post))
    st.markdown(f"**P({md(subscript('x', name))} | evidence)** = \\[{shown}\\]")
    marginal_panel(post, prior, key=S.key("bars"), name="bp_marginal",
                   title=f"P(x_{html.escape(name)}): prior and with the evidence",
                   labels=labels if model.states is not None else None,
                   describe=f"Vertex {name} of {tree.n:,}: P(x_{name} | evidence) = [{', '.join(f'{p:.4f}' for p in post)}]"
                            f", prior [{', '.join(f'{p:.4f}' for p in prior)}]; {len(ev):,} "
                            f"{'vertex' if len(ev) == 1 else 'vertices'} with evidence.")
    st.radio("A click on a vertex", list(CLICKS), format_func=CLICKS.get, key=S.key("click"), horizontal=True)
    st.radio("Evidence", ["hard", "soft"], key=S.key("ev_kind"), horizontal=True,
             format_func={"hard": "hard: one label", "soft": "soft: a weight per label"}.get)
    if S.ev_kind == "hard":
        if S.ev_label >= card:
            S.ev_label = 0
        st.selectbox("Label", list(range(card)), format_func=lambda a: labels[a], key=S.key("ev_label"))
    else:
        cols = st.columns(min(card, 4))
        for a in range(card):
            cols[a % len(cols)].number_input(f"weight of {labels[a]}", 0.0, 1e6, 1.0, 0.1, key=S.soft.key(a))
    with st.container(horizontal=True, gap="small"):   # one row block (wraps on a phone), not three columns
        st.button(f"Set at {md(name)}", key=S.key("ev_set"), on_click=_apply_evidence, args=(sel, "set"),
                  type="primary", width="stretch")
        st.button(f"Clear at {md(name)}", key=S.key("ev_clear"), on_click=_apply_evidence, args=(sel, "clear"),
                  disabled=name not in ev, width="stretch")
        st.button("Clear all", key=S.key("ev_clear_all"), on_click=_set_evidence, args=({},), disabled=not ev,
                  width="stretch")
    if ev:
        st.caption("Evidence: " + md(format_evidence(ev).replace(",", ", ")) + " (it multiplies φ).")
    else:
        st.caption("No evidence: click a vertex with **sets the evidence below** chosen, or use the buttons.")


def _message_table(model: BPModel, w) -> pd.DataFrame:
    """How m_{s→r} is made (eq. 5): one row per label of the sender, then the sums; the numbers as
    text (4 decimals, a blank where a row has none). Built in one go: a row added with ``.loc``
    copied the frame, 8 % of this page's run when a class follows a step of eight messages."""
    tree = model.tree
    s, r = tree.name(w.sender), tree.name(w.receiver)
    ls, lr = _labels(model, w.sender), _labels(model, w.receiver)
    cs, cr = len(ls), len(lr)
    columns = [f"φ_{s}"] + [f"m_{tree.name(u)}→{s}" for u, _ in w.incoming] + ["product"] + \
        [f"× ψ(·, x_{r}={lr[b]})" for b in range(cr)]
    body = np.column_stack([np.asarray(w.phi[:cs], float)] + [np.asarray(m[:cs], float) for _, m in w.incoming]
                           + [np.asarray(w.product[:cs], float), np.asarray(w.terms[:cs, :cr], float).reshape(cs, cr)])
    def text(x) -> str:   # a blank for a number that is not one (a message of impossible evidence)
        x = float(x)
        return "" if x != x else f"{x:.4f}"

    blank = [""] * (len(columns) - cr)
    rows = [[text(x) for x in row] for row in body.tolist()]
    rows.append(blank + [text(w.unnormalised[b]) for b in range(cr)])
    rows.append(blank + [text(w.message[b]) for b in range(cr)])
    index = [f"x_{s} = {a}" for a in ls] + ["Σ over x_" + s, f"m_{s}→{r} (normalised)"]
    return pd.DataFrame(rows, columns=columns, index=pd.Index(index, name="term"))


def _sent_text(tree, sent) -> str:
    """The messages drawn, in words (the view's description, read aloud)."""
    if not sent:
        return "No message sent yet."
    return "Messages sent, in order: " + "; ".join(
        f"{tree.name(s)} to {tree.name(r)} {text}" for s, r, text in sent) + "."


def sequential(model: BPModel, exact, work, rev: int) -> None:
    """The schedule one message at a time, played or stepped; a click, a step or a tick reruns only
    this (a new piece of evidence reruns the page)."""
    if S.rev != rev:
        st.rerun()
    address_bar.write_query("belief_propagation")
    tree = model.tree
    total = len(work)
    if S.messages > total:
        S.messages = total
    if S.playing:
        import time

        now = time.monotonic()
        if S.messages >= total:
            S.playing = False
            st.rerun()   # the whole page: the timer stops
        elif now - S.tick >= 0.8 / float(S.speed):
            S.tick = now
            S.messages = S.messages + 1
    # one row, each button as wide as its label and the slider the rest (columns of fixed shares cut
    # the labels to "◀ b..." beside the drawing on a 1024 px projector)
    row = st.container(horizontal=True, vertical_alignment="bottom")
    row.button("◀ back", on_click=_step, args=(-1, total), key=S.key("back"))
    row.button("next ▶", on_click=_step, args=(1, total), key=S.key("next"))
    step = widget(SPEC, "messages", where=row, hi=total)
    done = step == total
    phase = ("collect: leaves towards the root " + tree.name(tree.root)) if step <= total // 2 \
        else "distribute: root outwards"
    sel = selected_vertex(tree, KEY, tree.root)
    left, right = st.columns([3, 2], gap="medium")
    with left:
        # the messages on the canvas tree view, as every tree of the workbench is drawn: a fresh
        # session needs no Plotly script for its first view (docs/benchmarks.md)
        title = f"Message {step} of {total} — {phase}" + (" — colour: P(label 0)" if done else "")
        sent = [(int(w.sender), int(w.receiver), message_text(w.message[:len(_labels(model, w.receiver))]))
                for w in work[:step]]
        tree_view(tree, KEY, page="belief_propagation", values=exact.marginals[:, 0] if done else None,
                  value_title="P(label 0)", rings=[tree.index(n) for n in _evidence()], selected=sel,
                  on_pick=_on_pick, layout="tidy", height=480, title=title, arrows=sent,
                  current_arrow=step - 1 if step else None, export_name="bp_sequential", show_path=False,
                  describe=_sent_text(tree, sent),
                  # its data: the messages drawn (before the first, the vertices)
                  csv=(lambda: messages_csv(tree, work[:step]).encode("utf-8")) if step else None)
        st.caption("Click a vertex: it is selected (red ring) and, as chosen on the right, gets or loses "
                   "evidence (orange ring).")
    with right:
        evidence_panel(model, exact, sel)
    if step:
        w = work[step - 1]
        s, r = tree.name(w.sender), tree.name(w.receiver)
        others = [tree.name(u) for u, _ in w.incoming]
        # names are data: escaped Markdown and TeX, no HTML (a crafted name must not reach the browser as markup)
        st.markdown(f"**Message {step}: m({md(s)} → {md(r)})** = "
                    f"\\[{', '.join(f'{v:.4f}' for v in w.message[:len(_labels(model, w.receiver))])}\\] (normalised) — "
                    f"φ({md(s)})" + (f" times the messages from {', '.join(md(o) for o in others)}" if others
                                      else " only (a leaf)") + f", summed against ψ({md(s)}, {md(r)}):")
        ts, tr = _tex(s), _tex(r)
        # inline maths, its factors joined by a dot: on a phone it wraps after one instead of
        # scrolling sideways in a box the keyboard cannot reach
        st.markdown(rf"$m_{{{ts}\to {tr}}}(x_{{{tr}}}) = \sum_{{x_{{{ts}}}}} \phi_{{{ts}}}(x_{{{ts}}}) \cdot "
                    rf"\psi(x_{{{ts}}}, x_{{{tr}}})" + "".join(rf" \cdot m_{{{_tex(o)}\to {ts}}}(x_{{{ts}}})" for o in others)
                    + "$")
        st.table(_message_table(model, w))
    if done:
        st.success("All 2(n−1) messages sent: every marginal is exact. log Z = "
                   f"{exact.log_partition:.6f}")
        b = belief_work(tree, model.node_potentials, model.edge_potentials, sel, k=model.k, result=exact)
        name = tree.name(sel)
        card = len(_labels(model, sel))
        st.markdown(f"Eq. 6 at **{md(name)}**: P({md(subscript('x', name))}) ∝ {md(subscript('φ', name))} · "
                    + " · ".join(f"m({md(tree.name(u))} → {md(name)})" for u, _ in b.incoming)
                    + " = \\[" + ", ".join(f"{p:.4f}" for p in b.product[:card]) + "\\] → \\["
                    + ", ".join(f"{p:.4f}" for p in b.marginal[:card]) + "\\]")
        df = pd.DataFrame(exact.marginals, index=list(tree.names),
                          columns=[f"P(label {a})" for a in range(model.k)])
        st.dataframe(df.style.format("{:.4f}"), key=S.key("marg_table"))
    if step:
        table = pd.DataFrame([{"step": w.step, "phase": w.phase, "from": tree.name(w.sender), "to": tree.name(w.receiver),
                               **{f"m(x_to = {a})": float(w.message[a]) for a in range(model.k)}} for w in work[:step]])
        with st.expander(f"The {step} message{'s' if step > 1 else ''} sent so far", expanded=done):
            st.dataframe(table, hide_index=True, key=S.key("messages_table"))


def marginals_view(model: BPModel, exact, rev: int) -> None:
    """A tree too large to draw message by message: every marginal of one BP pass (both sweeps),
    on the tree view; a click inspects a vertex or sets its evidence, as on a small tree (new
    evidence reruns the page, which computes the marginals again)."""
    if S.rev != rev:
        st.rerun()
    address_bar.write_query("belief_propagation")
    tree = model.tree
    st.info(f"Messages are drawn one by one for trees of 2 to {DRAW_LIMIT} vertices; this tree has {tree.n:,}. "
            "Here is what the two sweeps give: every vertex's marginal under the evidence (a click on a vertex "
            "inspects it or sets evidence, as chosen on the right).", icon=":material/info:")
    sel = selected_vertex(tree, KEY, tree.root)
    left, right = st.columns([3, 2], gap="medium")
    with left:
        evidence = [v for v in (tree.find(n) for n in _evidence()) if v is not None]
        tree_view(tree, KEY, page="belief_propagation", values=exact.marginals[:, 0], value_title="P(label 0)", rings=evidence, selected=sel,
                  on_pick=_on_pick, describe="Every vertex coloured by its marginal P(label 0) after one "
                  "belief-propagation pass.", export_name="bp_marginals")
    with right:
        evidence_panel(model, exact, sel)


def controls(total: int) -> None:
    """Play / pause and the speed (the whole page reruns: the timer of the schedule changes)."""
    row = st.container(horizontal=True, vertical_alignment="bottom", gap="medium")   # the button as wide as its label
    playing = S.playing
    row.button("Pause" if playing else "Play", key=S.key("play"), on_click=_play, args=(total, not playing),
               icon=":material/pause:" if playing else ":material/play_arrow:")
    if S.speed not in SPEEDS:
        S.speed = SPEC.setting("speed").default
    widget(SPEC, "speed", where=row, options=SPEEDS, width=280)


_KEYS = {Tree: tree_hash, np.ndarray: array_key}


@page_cache(st.cache_resource, max_entries=16, show_spinner=False, hash_funcs=_KEYS)
def _flooded(tree: Tree, node_potentials, edge_potentials, k: int):
    """The parallel schedule's trace of a model, shared by every session on that model (a class
    following a lesson: one computation, not one per student)."""
    return flooding(tree, node_potentials, edge_potentials, k=k)


@page_cache(st.cache_resource, max_entries=64, show_spinner=False, hash_funcs=_KEYS)
def _parallel_figures(tree: Tree, node_potentials, edge_potentials, k: int, exact_marginals, it: int,
                      style: Style) -> tuple[Spec, Spec]:
    """The parallel tab's message and convergence figures at iteration ``it``, drawn once per model,
    iteration and style and shared by the sessions as finished dicts (:class:`Spec`, never changed
    after: :func:`~workbench.components.as_shown` copies one to enlarge it). With a class on this
    step, building them was the page's largest cost, 30 times over (docs/benchmarks.md)."""
    trace = _flooded(tree, node_potentials, edge_potentials, k)
    ch = tree.order[1:]
    msgs = [(int(c), int(tree.parent[c]), trace.upward[it][c]) for c in ch] + \
           [(int(tree.parent[c]), int(c), trace.downward[it][c]) for c in ch]
    fig = message_figure(tree, msgs, beliefs=np.nan_to_num(trace.marginals[it], nan=0.0), width=800,
                         title=f"Parallel schedule, iteration {it}: every message recomputed from "
                               "iteration t−1 (colour: belief P(label 0))", style=style)
    conv = convergence_figure(_errors(trace, exact_marginals), current=it, converged_at=trace.converged_at,
                              style=style)
    return Spec(as_spec(fig)), Spec(as_spec(conv))


def _errors(trace, exact_marginals) -> list[float]:
    """The largest |belief − exact| after each iteration of the parallel schedule."""
    return [float(np.nanmax(np.abs(np.nan_to_num(m, nan=1.0) - exact_marginals))) for m in trace.marginals]


def parallel(model: BPModel, exact) -> None:
    """The parallel schedule, iteration by iteration (the slider reruns only this)."""
    address_bar.write_query("belief_propagation")
    tree = model.tree
    trace = _flooded(tree, model.node_potentials, model.edge_potentials, model.k)
    last = len(trace.upward) - 1
    if S.iteration > last:
        S.iteration = last
    it = widget(SPEC, "iteration", hi=last, value=min(1, last))
    errs = _errors(trace, exact.marginals)
    fig, conv = _parallel_figures(tree, model.node_potentials, model.edge_potentials, model.k, exact.marginals,
                                  it, current_style())
    chart(fig, key=S.key("par_fig"), name="bp_parallel",
          describe=f"Parallel schedule on {tree.n:,} vertices, iteration {it} of {last}: {2 * (tree.n - 1):,} "
                   f"messages recomputed at once; largest |belief − exact| {errs[it]:.2e}; exact from "
                   f"iteration {trace.converged_at}.")
    stats([("Largest |belief − exact| now", f"{errs[it]:.2e}"), ("Exact from iteration", trace.converged_at),
           ("Messages per iteration", f"{2 * (tree.n - 1):,}")], label="The parallel schedule")
    chart(conv, key=S.key("conv_fig"), name="bp_convergence",
          describe=f"Largest |belief − exact| after each of {len(errs)} iterations, from {errs[0]:.2e} to "
                   f"{errs[-1]:.2e}; zero from iteration {trace.converged_at}; iteration {it} marked.")
    st.caption("Section 8.3: the parallel schedule is exact after at most diameter-many iterations. "
               "Each iteration uses the product trick of section 8.4 (one product per vertex, then "
               "one exclusion per outgoing message) — without dividing, so zero entries are exact.")


def elimination(tree) -> None:
    """Elimination order on a star and on the current tree (its sliders rerun only this)."""
    address_bar.write_query("belief_propagation")
    st.markdown("Section 8.1: eliminating a variable multiplies every factor that mentions it and "
                "sums it out, leaving a table over its neighbours. On a star, eliminating the centre "
                "first creates a table over all the leaves.")
    e1, e2 = st.columns(2)
    leaves = int(widget(SPEC, "star", where=e1))
    ke = int(widget(SPEC, "elim_k", where=e2))
    star = star_tree(leaves + 1)
    centre_first = elimination_steps(star, [0] + list(range(1, leaves)), ke)
    leaves_first = elimination_steps(star, list(range(1, leaves + 1)), ke)
    chart(elimination_bars({
        f"centre first (largest table {largest_table(centre_first):,})":
            [(star.name(s.vertex), s.size) for s in centre_first],
        f"leaves first (largest table {largest_table(leaves_first):,})":
            [(star.name(s.vertex), s.size) for s in leaves_first],
    }), key=S.key("elim_fig"), name="bp_elimination",
        describe=f"Table sizes while eliminating a star of {leaves} leaves with {ke} labels: centre first, the "
                 f"largest table has {largest_table(centre_first):,} entries; leaves first, "
                 f"{largest_table(leaves_first):,}.")
    own = elimination_steps(tree, leaves_first_order(tree), ke)
    st.caption(f"On the current tree, eliminating leaves first (reverse breadth-first order) never "
               f"creates a table larger than |X| = {largest_table(own)} entries.")


def tables(model: BPModel) -> None:
    """φ and ψ as small tables: an edit changes the model at once."""
    tree = model.tree
    net = _network()
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown("**Node potentials φ** (before the evidence)")
        phi = model.prior_node_potentials
        cols = [f"label {a}" for a in range(model.k)]
        base = pd.DataFrame(phi, index=list(tree.names), columns=cols)
        got = st.data_editor(base, key=S.key("phi_edit", S.rev),
                             column_config={c: st.column_config.NumberColumn(c, min_value=0.0, format="%.4f")
                                            for c in cols})
        rows = {}
        for v, name in enumerate(tree.names):
            row = got.loc[name].to_numpy(dtype=float)
            if not np.array_equal(row, phi[v]):
                card = len(_labels(model, v))
                if not np.all(np.isfinite(row)) or np.any(row < 0) or not np.any(row[:card]):
                    st.error(f"φ at {md(name)} must be finite numbers >= 0, not all zero; got {row.tolist()}")
                    return
                rows[name] = tuple(float(x) for x in row[:card])
        if rows:
            S.phi = {**(S.phi or {}), **rows}
            _changed()
            st.rerun()
        if S.phi:
            st.button("Back to the seeded φ", key=S.key("phi_reset"),
                      on_click=lambda: (S.pop("phi"), _changed()))
        if net is not None:
            st.caption("States beyond a variable's own are padding: they stay 0.")
    with right:
        if net is None:
            st.markdown("**Edge potential ψ** (rows: the parent's label, columns: the child's), on every edge")
            psi = np.asarray(model.edge_potentials, float)
            psi = psi if psi.ndim == 2 else psi[0]
            cols = [f"child {b}" for b in range(model.k)]
            base = pd.DataFrame(psi, index=[f"parent {a}" for a in range(model.k)], columns=cols)
            got = st.data_editor(base, key=S.key("psi_edit", S.rev),
                                 column_config={c: st.column_config.NumberColumn(c, min_value=0.0, format="%.4f")
                                                for c in cols})
            m = got.to_numpy(dtype=float)
            if not np.array_equal(m, psi):
                if not np.all(np.isfinite(m)) or np.any(m < 0):
                    st.error("ψ must be finite numbers >= 0")
                    return
                S.psi = tuple(tuple(float(x) for x in r) for r in m)
                _changed()
                st.rerun()
            if S.psi is not None:
                st.button("Back to the Potts coupling", key=S.key("psi_reset"),
                          on_click=lambda: (S.pop("psi"), _changed()))
        else:
            st.markdown("**Edge potentials ψ** of the network: P(child | parent) of each edge")
            edges = [(tree.name(int(a)), tree.name(int(b))) for a, b in tree.edges]
            pick = st.selectbox("Edge", range(len(edges)), format_func=lambda i: f"{edges[i][0]} → {edges[i][1]}",
                                key=S.key("psi_edge"))
            a, b = (int(x) for x in tree.edges[pick])
            la, lb = _labels(model, a), _labels(model, b)
            psi = np.asarray(model.edge_potentials[pick], float)[: len(la), : len(lb)]
            base = pd.DataFrame(psi, index=[f"{edges[pick][0]} = {x}" for x in la],
                                columns=[f"{edges[pick][1]} = {x}" for x in lb])
            got = st.data_editor(base, key=S.key("psi_net", pick, S.rev))
            m = got.to_numpy(dtype=float)
            if not np.array_equal(m, psi):
                if not np.all(np.isfinite(m)) or np.any(m < 0):
                    st.error("ψ must be finite numbers >= 0")
                    return
                edits = dict(S.psi_edges or {})
                edits[edges[pick]] = m.tolist()
                S.psi_edges = edits
                _changed()
                st.rerun()
            st.caption("Edited tables of a network stay in this session (they do not travel in a link).")


# ------------------------------------------------------------------ the page
address_bar.page_head("belief_propagation", "Belief Propagation",
                'The lecture notes "Inferences on trees: sum-product algorithm", sections 8.1–8.4: the '
                "sum-product messages (eq. 5) and marginals (eq. 6). Click a vertex to set evidence, check each "
                "message by hand from the numbers that make it, or play the schedule.",
                BINDS)
# the two equations as inline maths: on a phone each wraps after a dot instead of scrolling sideways
st.markdown(r"Eq. 5: $m_{i\to j}(x_j) = \sum_{x_i} \phi_i(x_i) \cdot \psi_{ij}(x_i, x_j) \cdot "
            r"\prod_{k \in N(i)\setminus\{j\}} m_{k\to i}(x_i)$  " "\n"
            r"Eq. 6: $p_{x_i}(x_i) \propto \phi_i(x_i) \cdot \prod_{j\in N(i)} m_{j\to i}(x_i)$")
flash = S.pop("flash")
if flash:
    getattr(st, flash[0])(flash[1])
settings()

tree = _page_tree()
if _network() is None and tree is not current_tree():
    st.info("Belief propagation needs a tree with an edge; the current tree has one vertex. Showing the "
            "lecture's 5-vertex tree instead.")
ev = _evidence()
stale = [n for n in ev if tree.find(n) is None]
if stale:
    st.warning(f"Evidence at {', '.join(md(n) for n in stale)} dropped: not a vertex of this tree.")
    _set_evidence({n: x for n, x in ev.items() if n not in stale})
try:
    model = build_model(tree)
    exact = belief_propagation(tree, model.node_potentials, model.edge_potentials, k=model.k)
except EngineError as exc:
    st.error(public_message(exc))
    if _evidence():
        st.button("Clear all evidence", key=S.key("ev_reset"), on_click=_set_evidence, args=({},))
    st.stop()
S.model = model
if tree.n > DRAW_LIMIT:
    st.fragment(marginals_view)(model, exact, S.rev)
    st.stop()
work = message_work(tree, model.node_potentials, model.edge_potentials, k=model.k, result=exact)

keep(SPEC, "messages", "iteration", "star", "elim_k")   # the sliders of the closed tabs
seq_tab, par_tab, elim_tab, table_tab = widget(SPEC, "tab", on_change="rerun")
# only the open tab is computed and sent: ``on_change="rerun"`` makes ``.open`` known, and a tab
# clicked reruns the page with that tab open, so a fresh page costs one tab, not four
if seq_tab.open:
    with seq_tab:
        controls(len(work))
        playing = S.playing
        st.fragment(sequential, run_every=1.0 / float(S.speed) if playing else None)(
            model, exact, work, S.rev)
        # one row block, not three columns (each block is one more message on every run of a class)
        with st.container(horizontal=True, gap="small"):
            st.download_button("Messages (CSV)", lambda: messages_csv(tree, work), file_name="messages.csv",
                               mime="text/csv", key=S.key("dl_messages"), icon=":material/download:", on_click="ignore")
            st.download_button("Marginals (CSV)", lambda: marginals_csv(tree, exact.marginals),
                               file_name="marginals.csv", mime="text/csv", key=S.key("dl_marginals"),
                               icon=":material/download:", on_click="ignore")
if par_tab.open:
    with par_tab:
        st.fragment(parallel)(model, exact)
if elim_tab.open:
    with elim_tab:
        st.fragment(elimination)(tree)
if table_tab.open:
    with table_tab:
        tables(model)
